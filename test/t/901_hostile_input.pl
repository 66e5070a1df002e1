# Mutated bloom and multibloom values through every way in: text input, the
# bytea cast and COPY ... (FORMAT binary).  Each mutation (deterministically
# seeded) must either fail with the input's error code or give a value that
# round-trips byte for byte and that every function can read; random bytes
# are rejected; the server must survive.  Both types go through the same
# checks (check_inputs); only how a value is mutated and what reads it differ.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use MIME::Base64 qw(encode_base64);

my $node = PostgreSQL::Test::Cluster->new('hostile');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');

# "outcome|count" rows of a query as a hash.
sub outcomes
{
	my ($sql) = @_;
	return map { split /\|/ } split /\n/, $node->safe_psql('postgres', $sql);
}

sub describe
{
	my ($what, %counts) = @_;
	note "$what outcomes: " . join(', ', map { "$_=$counts{$_}" } sort keys %counts);
}

# A COPY ... (FORMAT binary) file holding one row of one value.
sub copy_binary_file
{
	my ($path, $datum) = @_;
	open(my $fh, '>:raw', $path) or die "$path: $!";
	print $fh "PGCOPY\n\377\r\n\0" . pack('N', 0) . pack('N', 0)
	  . pack('n', 1) . pack('N', length($datum)) . $datum . pack('n', 0xffff);
	close $fh;
}

# Runs every check for one type.  %t: type (bloom or multibloom), name (of
# the value, for messages), valid (the binary forms of valid values), mutate
# (a sub mutating a binary form), n_mutated, damage (characters that damage
# some text inputs), n_copy (inputs also loaded by COPY binary), exercise
# (PL/pgSQL body reading f in every way).
sub check_inputs
{
	my (%t) = @_;
	my ($type, @valid) = ($t{type}, @{ $t{valid} });

	my @inputs = map { $t{mutate}->($valid[ int(rand(@valid)) ]) } 1 .. $t{n_mutated};
	# unmutated copies too, so accepted inputs are certainly exercised
	push @inputs, @valid;

	# Text input and the bytea cast, one savepoint per input.
	$node->safe_psql('postgres', qq{
CREATE TABLE inputs_$type (id int PRIMARY KEY, bin bytea, txt text);
CREATE FUNCTION exercise_$type(f $type) RETURNS void LANGUAGE plpgsql AS \$\$
$t{exercise}
\$\$;
CREATE FUNCTION try_text_$type(t text) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE f $type;
BEGIN
	f := t::$type;
	PERFORM exercise_$type(f);
	RETURN CASE WHEN f::text = t THEN 'roundtrip' ELSE 'MISMATCH' END;
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE;
END \$\$;
CREATE FUNCTION try_bytea_$type(b bytea) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE f $type;
BEGIN
	f := b::$type;
	PERFORM exercise_$type(f);
	RETURN CASE WHEN f::bytea = b THEN 'roundtrip' ELSE 'MISMATCH' END;
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE;
END \$\$;
});

	my $copy = "COPY inputs_$type (id, bin, txt) FROM STDIN;\n";
	for my $i (0 .. $#inputs)
	{
		my $hex = unpack('H*', $inputs[$i]);
		my $b64 = encode_base64($inputs[$i], '');
		# some text inputs get text-level damage as well
		if ($i % 5 == 0 && length($b64) > 4)
		{
			substr($b64, int(rand(length($b64))), 1) = $t{damage}[ int(rand(@{ $t{damage} })) ];
		}
		$copy .= "$i\t\\\\x$hex\t$b64\n";
	}
	$node->safe_psql('postgres', $copy . "\\.\n");

	my %text = outcomes("SELECT r, count(*) FROM (SELECT try_text_$type(txt) r FROM inputs_$type) s GROUP BY r");
	my %bin = outcomes("SELECT r, count(*) FROM (SELECT try_bytea_$type(bin) r FROM inputs_$type) s GROUP BY r");
	describe("$type text input", %text);
	describe("$type bytea cast", %bin);
	is_deeply([ grep { $_ ne 'roundtrip' && $_ ne '22P02' } keys %text ], [],
		"$type text input: every input round-trips or fails with invalid_text_representation");
	is_deeply([ grep { $_ ne 'roundtrip' && $_ ne '22P03' } keys %bin ], [],
		"$type bytea cast: every input round-trips or fails with invalid_binary_representation");
	cmp_ok($text{roundtrip} // 0, '>=', scalar(@valid), "$type text input accepted the valid $t{name}s");
	cmp_ok($bin{roundtrip} // 0, '>=', scalar(@valid), "$type bytea cast accepted the valid $t{name}s");
	cmp_ok($bin{'22P03'} // 0, '>', $t{n_mutated} / 2, "$type: most mutations were rejected");

	# COPY ... (FORMAT binary): one file per input, each loaded on its own;
	# the last input is a valid value.
	my $dir = $node->basedir . "/copyin_$type";
	mkdir $dir;
	copy_binary_file("$dir/$_.bin", $inputs[$_]) for 0 .. $t{n_copy} - 1, $#inputs;
	my %copied = outcomes(qq{
CREATE TABLE loaded_$type (f $type);
CREATE FUNCTION try_copy_$type(path text, b bytea) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE r text;
BEGIN
	TRUNCATE loaded_$type;
	EXECUTE format('COPY loaded_$type FROM %L (FORMAT binary)', path);
	SELECT CASE WHEN f::bytea = b THEN 'roundtrip' ELSE 'MISMATCH' END INTO r FROM loaded_$type;
	PERFORM exercise_$type(f) FROM loaded_$type;
	RETURN r;
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE;
END \$\$;
SELECT r, count(*) FROM (
	SELECT try_copy_$type('$dir/' || id || '.bin', bin) r FROM inputs_$type
	WHERE id < $t{n_copy} OR id = $#inputs
) s GROUP BY r});
	describe("$type COPY binary", %copied);
	is_deeply([ grep { $_ ne 'roundtrip' && $_ ne '22P03' } keys %copied ], [],
		"$type COPY binary: every row round-trips or fails with invalid_binary_representation");
	cmp_ok($copied{roundtrip} // 0, '>=', 1, "$type COPY binary loaded the valid $t{name}");

	# Random bytes, not derived from a value, as text and as bytea.
	my @random = map { join('', map { chr(int(rand(256))) } 1 .. int(rand(200))) } 1 .. 100;
	my $rand_sql = join(' UNION ALL ', map {
		my $hex = unpack('H*', $_);
		my $b64 = encode_base64($_, '');
		"SELECT try_bytea_$type('\\x$hex'::bytea) r UNION ALL SELECT try_text_$type('$b64') r"
	} @random);
	my %rand = outcomes("SELECT r, count(*) FROM ($rand_sql) s GROUP BY r");
	is_deeply([ sort keys %rand ], [ '22P02', '22P03' ], "$type: random bytes are rejected cleanly");

	# The server never restarted.
	is($node->safe_psql('postgres', 'SELECT 1'), '1', "server alive after the $type inputs");
	unlike(slurp_file($node->logfile), qr/terminated by signal|server process .* was terminated/,
		"no backend crashed on the $type inputs");
}

# The binary forms of valid values built by these expressions.
sub binary_forms
{
	return map { pack('H*', $node->safe_psql('postgres', "SELECT encode(($_)::bytea, 'hex')")) } @_;
}

# Mutations of any binary form.
sub flip_bit
{
	my ($b) = @_;
	my $i = int(rand(length($b)));
	substr($b, $i, 1) = chr(ord(substr($b, $i, 1)) ^ (1 << int(rand(8))));
	return $b;
}

sub truncated
{
	my ($b) = @_;
	return substr($b, 0, int(rand(length($b))));
}

sub with_bytes_appended
{
	my ($b) = @_;
	return $b . join('', map { chr(int(rand(256))) } 1 .. 1 + int(rand(16)));
}

# Interesting values for header fields: 0, 1, the limits, all ones.
my @interesting = (0, 1, 2, 63, 64, 65, 127, 128, 255);

# bloom: the header of doc/format.md (64-bit fields at 4, 12, 20, 44, 52;
# nhashes, rows, locators and reserved at 28, 32, 36, 40).
sub mutate_bloom
{
	my ($b) = @_;
	my $op = int(rand(8));
	my $len = length($b);
	if ($op == 0)
	{
		$b = flip_bit($b);
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
	elsif ($op == 3)
	{
		$b = truncated($b);
	}
	elsif ($op == 4)
	{
		$b = with_bytes_appended($b);
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
		$b = mutate_bloom(mutate_bloom($b));
	}
	return $b;
}

# multibloom: the container header of doc/multibloom.md (version, nattrs,
# flags, reserved; rows at 4, reserved at 12, part lengths from 20), then
# the parts in bloom's format.
my @huge_lengths = ("\xff" x 8, "\x00" x 7 . "\x80", "\x00\x00\x00\x80\x00\x00\x00\x00",
	"\x3c\x00\x00\x00\x00\x00\x00\x00", "\x00" x 8);
sub mutate_multibloom
{
	my ($b) = @_;
	my $op = int(rand(7));
	my $len = length($b);
	if ($op == 0)
	{
		$b = flip_bit($b);
	}
	elsif ($op == 1)		# a container header byte: version, nattrs, flags, reserved
	{
		substr($b, int(rand(4)), 1) = chr((0, 1, 2, 3, 32, 33, 128, 255)[ int(rand(8)) ]);
	}
	elsif ($op == 2)		# rows, reserved, or a part length to a huge or tiny value
	{
		my $nattrs = ord(substr($b, 1, 1));
		my @fields = (4, 12, map { 20 + 8 * $_ } 0 .. $nattrs);
		my $off = $fields[ int(rand(@fields)) ];
		substr($b, $off, 8) = $huge_lengths[ int(rand(@huge_lengths)) ] if $len >= $off + 8;
	}
	elsif ($op == 3)
	{
		$b = truncated($b);
	}
	elsif ($op == 4)
	{
		$b = with_bytes_appended($b);
	}
	elsif ($op == 5)		# random bytes anywhere (part headers included)
	{
		for (1 .. 1 + int(rand(4)))
		{
			substr($b, int(rand($len)), 1) = chr(int(rand(256)));
		}
	}
	else
	{
		$b = mutate_multibloom(mutate_multibloom($b));
	}
	return $b;
}

# ---- bloom: several shapes, empty and partly full, and every other layout
# this build can construct ----
srand(601);
my @bloom_sources = (
	"bloom_empty_with(1, 1)",
	"bloom_add_all(bloom_empty_with(65, 3), ARRAY[1,2,3])",
	"bloom_add_all(bloom_empty(100, 0.01), ARRAY['a','b','c'])",
	"bloom_add_all(bloom_empty_with(700, 64), array(SELECT generate_series(1, 50)))",
	"bloom_empty(1000, 0.001)");
for my $layout ('blocked', 'matrix')
{
	my ($ret) = $node->psql('postgres', "SELECT bloom_empty(100, 0.01, '$layout')");
	push @bloom_sources, "bloom_add_all(bloom_empty(100, 0.01, '$layout'), ARRAY[1,2,3])"
	  if $ret == 0;
}
check_inputs(
	type => 'bloom',
	name => 'filter',
	valid => [ binary_forms(@bloom_sources) ],
	mutate => \&mutate_bloom,
	n_mutated => 400,
	damage => [ " ", "\\n", "=", "!", "A", "-" ],
	n_copy => 150,
	exercise => q{
BEGIN
	-- every reader must cope with what the input functions accepted
	PERFORM bloom_info(f), bloom_cardinality(f), bloom_fpp(f),
		bloom_contains(f, 1), bloom_contains(f, 'x'::text),
		bloom_add(f, 42) = f, f | f, f & f, f = f, f < f, bloom_cmp(f, f),
		hash_bloom_extended(f, 1), f::text, f::bytea;
END});

# ---- multibloom: one to three attributes, rows with NULLs, data-sized ----
srand(606);
check_inputs(
	type => 'multibloom',
	name => 'value',
	valid => [ binary_forms(
		"multibloom_empty(1, 10)",
		"multibloom_add(multibloom_empty(2, 20, 0.05), 1, 'a'::text)",
		"multibloom_add(multibloom_add(multibloom_empty(3, 50), 1, 2, 3), 4, NULL::int, 6)",
		"(SELECT multibloom_agg(g, -g) FROM generate_series(1, 40) g)",
		"(SELECT multibloom_agg(g, g::text, g % 3) FROM generate_series(1, 5) g)") ],
	mutate => \&mutate_multibloom,
	n_mutated => 300,
	damage => [ " ", "\\n", "=", "!", "A" ],
	n_copy => 60,
	exercise => q{
DECLARE n int := (multibloom_info(f)).nattrs;
BEGIN
	-- every reader must cope with what the input functions accepted
	PERFORM multibloom_info(f), f = f, multibloom_union(f, f) = f, f < f,
		multibloom_cmp(f, f), hash_multibloom_extended(f, 1),
		multibloom_attribute(f, 1), f::text, f::bytea;
	IF n = 1 THEN
		PERFORM multibloom_contains(multibloom_add(f, 7), 7), multibloom_contains(f, 'x'::text);
	ELSIF n = 2 THEN
		PERFORM multibloom_contains(multibloom_add(f, 7, 8), 7, 8), multibloom_contains(f, 1, NULL::int);
	END IF;
END});

$node->stop;
done_testing();
