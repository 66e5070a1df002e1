# Mutated filters through every way in: text input, the bytea cast and
# COPY ... (FORMAT binary).  Each mutation (deterministically seeded) must
# either fail with the input's error code or give a filter that round-trips
# byte for byte and that every function can read; the server must survive.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use MIME::Base64 qw(encode_base64 decode_base64);

my $node = PostgreSQL::Test::Cluster->new('hostile');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');

srand(601);

# Valid filters to start from: several shapes, empty and partly full, and
# every other layout this build can construct.
my @sources = (
	"bloom_empty_with(1, 1)",
	"bloom_add_all(bloom_empty_with(65, 3), ARRAY[1,2,3])",
	"bloom_add_all(bloom_empty(100, 0.01), ARRAY['a','b','c'])",
	"bloom_add_all(bloom_empty_with(700, 64), array(SELECT generate_series(1, 50)))",
	"bloom_empty(1000, 0.001)");
for my $layout ('blocked', 'matrix')
{
	my ($ret) = $node->psql('postgres', "SELECT bloom_empty(100, 0.01, '$layout')");
	push @sources, "bloom_add_all(bloom_empty(100, 0.01, '$layout'), ARRAY[1,2,3])"
	  if $ret == 0;
}
my @valid = map {
	pack('H*', $node->safe_psql('postgres', "SELECT encode(($_)::bytea, 'hex')"))
} @sources;

# Interesting values for header fields: 0, 1, the limits, all ones.
my @interesting = (0, 1, 2, 63, 64, 65, 127, 128, 255);
sub mutate
{
	my ($b) = @_;
	my $op = int(rand(8));
	my $len = length($b);
	if ($op == 0)			# flip one bit
	{
		my $i = int(rand($len));
		substr($b, $i, 1) = chr(ord(substr($b, $i, 1)) ^ (1 << int(rand(8))));
	}
	elsif ($op == 1)		# one header byte to an interesting value
	{
		my $i = int(rand($len < 60 ? $len : 60));
		substr($b, $i, 1) = chr($interesting[ int(rand(@interesting)) ]);
	}
	elsif ($op == 2)		# a 64-bit header field to a huge value
	{
		my @fields = (4, 12, 20, 44, 52);
		my $off = $fields[ int(rand(@fields)) ];
		my @huge = ("\xff" x 8, "\x00" x 7 . "\x80", "\x00\x00\x00\x80\x00\x00\x00\x00",
			"\x00\x00\x00\x00\x01\x00\x00\x00", "\x00\x00\x00\x00\x02\x00\x00\x00");
		substr($b, $off, 8) = $huge[ int(rand(@huge)) ] if $len >= $off + 8;
	}
	elsif ($op == 3)		# truncate
	{
		$b = substr($b, 0, int(rand($len)));
	}
	elsif ($op == 4)		# append bytes
	{
		$b .= join('', map { chr(int(rand(256))) } 1 .. 1 + int(rand(16)));
	}
	elsif ($op == 5)		# random bytes in the payload
	{
		for (1 .. 1 + int(rand(4)))
		{
			my $i = int(rand($len));
			substr($b, $i, 1) = chr(int(rand(256)));
		}
	}
	elsif ($op == 6)		# nhashes, rows or locators
	{
		my @fields = (28, 32, 36, 40);
		my $off = $fields[ int(rand(@fields)) ];
		substr($b, $off, 4) = pack('V', (0, 1, 64, 65, 0xffffffff)[ int(rand(5)) ])
		  if $len >= $off + 4;
	}
	else					# two mutations
	{
		$b = mutate(mutate($b));
	}
	return $b;
}

my $n_per_form = 400;
my @inputs;
for my $i (1 .. $n_per_form)
{
	push @inputs, mutate($valid[ int(rand(@valid)) ]);
}
# unmutated copies too, so accepted inputs are certainly exercised
push @inputs, @valid;

# Text input and the bytea cast, one savepoint per input.
$node->safe_psql('postgres', q{
CREATE TABLE inputs (id int PRIMARY KEY, bin bytea, txt text);
CREATE FUNCTION exercise(f bloom) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	-- every reader must cope with what the input functions accepted
	PERFORM bloom_info(f), bloom_cardinality(f), bloom_fpp(f),
		bloom_contains(f, 1), bloom_contains(f, 'x'::text),
		bloom_add(f, 42) = f, f | f, f & f, f = f, f::text, f::bytea;
END $$;
CREATE FUNCTION try_text(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE f bloom;
BEGIN
	f := t::bloom;
	PERFORM exercise(f);
	RETURN CASE WHEN f::text = t THEN 'roundtrip' ELSE 'MISMATCH' END;
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE;
END $$;
CREATE FUNCTION try_bytea(b bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE f bloom;
BEGIN
	f := b::bloom;
	PERFORM exercise(f);
	RETURN CASE WHEN f::bytea = b THEN 'roundtrip' ELSE 'MISMATCH' END;
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE;
END $$;
});

my $copy = "COPY inputs (id, bin, txt) FROM STDIN;\n";
for my $i (0 .. $#inputs)
{
	my $hex = unpack('H*', $inputs[$i]);
	my $b64 = encode_base64($inputs[$i], '');
	# some text inputs get text-level damage as well
	if ($i % 5 == 0 && length($b64) > 4)
	{
		my @damage = (" ", "\\n", "=", "!", "A", "-");
		substr($b64, int(rand(length($b64))), 1) = $damage[ int(rand(@damage)) ];
	}
	$copy .= "$i\t\\\\x$hex\t$b64\n";
}
$copy .= "\\.\n";
$node->safe_psql('postgres', $copy);

my %text = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
	'SELECT r, count(*) FROM (SELECT try_text(txt) r FROM inputs) s GROUP BY r');
my %bin = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
	'SELECT r, count(*) FROM (SELECT try_bytea(bin) r FROM inputs) s GROUP BY r');
note "text input outcomes: " . join(', ', map { "$_=$text{$_}" } sort keys %text);
note "bytea cast outcomes: " . join(', ', map { "$_=$bin{$_}" } sort keys %bin);
is_deeply([ grep { $_ ne 'roundtrip' && $_ ne '22P02' } keys %text ], [],
	'text input: every input round-trips or fails with invalid_text_representation');
is_deeply([ grep { $_ ne 'roundtrip' && $_ ne '22P03' } keys %bin ], [],
	'bytea cast: every input round-trips or fails with invalid_binary_representation');
cmp_ok($text{roundtrip} // 0, '>=', scalar(@valid), 'text input accepted the valid filters');
cmp_ok($bin{'22P03'} // 0, '>', $n_per_form / 2, 'most mutations were rejected');

# COPY ... (FORMAT binary): one file per input, each loaded on its own.
sub copy_binary_file
{
	my ($datum) = @_;
	my $out = "PGCOPY\n\377\r\n\0" . pack('N', 0) . pack('N', 0);
	$out .= pack('n', 1) . pack('N', length($datum)) . $datum;
	$out .= pack('n', 0xffff);
	return $out;
}
my $dir = $node->basedir . '/copyin';
mkdir $dir;
my $n_copy = 150;
for my $i (0 .. $n_copy - 1)
{
	open(my $fh, '>:raw', "$dir/$i.bin") or die $!;
	print $fh copy_binary_file($inputs[$i]);
	close $fh;
}
open(my $fh, '>:raw', "$dir/valid.bin") or die $!;
print $fh copy_binary_file($valid[1]);
close $fh;
my %copy = map { split /\|/ } split /\n/, $node->safe_psql('postgres', qq{
CREATE TABLE loaded (f bloom);
CREATE FUNCTION try_copy(path text, b bytea) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE r text;
BEGIN
	TRUNCATE loaded;
	EXECUTE format('COPY loaded FROM %L (FORMAT binary)', path);
	SELECT CASE WHEN f::bytea = b THEN 'roundtrip' ELSE 'MISMATCH' END INTO r FROM loaded;
	PERFORM exercise(f) FROM loaded;
	RETURN r;
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE;
END \$\$;
SELECT r, count(*) FROM (
	SELECT try_copy('$dir/' || id || '.bin', bin) r FROM inputs WHERE id < $n_copy
	UNION ALL SELECT try_copy('$dir/valid.bin', (SELECT bin FROM inputs WHERE id = $#inputs - $#valid + 1))
) s GROUP BY r});
note "COPY binary outcomes: " . join(', ', map { "$_=$copy{$_}" } sort keys %copy);
is_deeply([ grep { $_ ne 'roundtrip' && $_ ne '22P03' } keys %copy ], [],
	'COPY binary: every row round-trips or fails with invalid_binary_representation');
cmp_ok($copy{roundtrip} // 0, '>=', 1, 'COPY binary loaded the valid filter');

# Random bytes, not derived from a filter, as text and as bytea.
my @random = map { join('', map { chr(int(rand(256))) } 1 .. int(rand(200))) } 1 .. 100;
my $rand_sql = join(' UNION ALL ', map {
	my $hex = unpack('H*', $_);
	my $b64 = encode_base64($_, '');
	"SELECT try_bytea('\\x$hex'::bytea) r UNION ALL SELECT try_text('$b64') r"
} @random);
my %rand = map { split /\|/ } split /\n/,
  $node->safe_psql('postgres', "SELECT r, count(*) FROM ($rand_sql) s GROUP BY r");
is_deeply([ sort keys %rand ], [ '22P02', '22P03' ], 'random bytes are rejected cleanly');

# The server never restarted.
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'server alive');
my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|server process .* was terminated/, 'no backend crashed');

$node->stop;
done_testing();
