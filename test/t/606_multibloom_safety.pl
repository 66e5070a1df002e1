# The multibloom type under the same checks as bloom (601, 602, 603):
# mutated values through text input, the bytea cast and COPY binary either
# fail with the input's error code or round-trip; eight clients adding rows
# to one summary row lose none; pg_dump/pg_restore and COPY binary keep
# every byte.  The server never restarts.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use MIME::Base64 qw(encode_base64);

my $node = PostgreSQL::Test::Cluster->new('multibloom_safety');
$node->init;
$node->append_conf('postgresql.conf', 'max_connections = 30');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');

srand(606);

# ---- hostile input ----
my @sources = (
	"multibloom_empty(1, 10)",
	"multibloom_add(multibloom_empty(2, 20, 0.05), 1, 'a'::text)",
	"multibloom_add(multibloom_add(multibloom_empty(3, 50), 1, 2, 3), 4, NULL::int, 6)",
	"(SELECT multibloom_agg(g, -g) FROM generate_series(1, 40) g)",
	"(SELECT multibloom_agg(g, g::text, g % 3) FROM generate_series(1, 5) g)");
my @valid = map {
	pack('H*', $node->safe_psql('postgres', "SELECT encode(($_)::bytea, 'hex')"))
} @sources;

my @huge = ("\xff" x 8, "\x00" x 7 . "\x80", "\x00\x00\x00\x80\x00\x00\x00\x00",
	"\x3c\x00\x00\x00\x00\x00\x00\x00", "\x00" x 8);
sub mutate
{
	my ($b) = @_;
	my $op = int(rand(7));
	my $len = length($b);
	if ($op == 0)			# flip one bit
	{
		my $i = int(rand($len));
		substr($b, $i, 1) = chr(ord(substr($b, $i, 1)) ^ (1 << int(rand(8))));
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
	elsif ($op == 5)		# random bytes anywhere (part headers included)
	{
		for (1 .. 1 + int(rand(4)))
		{
			substr($b, int(rand($len)), 1) = chr(int(rand(256)));
		}
	}
	else
	{
		$b = mutate(mutate($b));
	}
	return $b;
}

my $n_mutated = 300;
my @inputs = map { mutate($valid[ int(rand(@valid)) ]) } 1 .. $n_mutated;
push @inputs, @valid;

$node->safe_psql('postgres', q{
CREATE TABLE inputs (id int PRIMARY KEY, bin bytea, txt text);
CREATE FUNCTION exercise(f multibloom) RETURNS void LANGUAGE plpgsql AS $$
DECLARE n int := (multibloom_info(f)).nattrs;
BEGIN
	-- every reader must cope with what the input functions accepted
	PERFORM multibloom_info(f), f = f, multibloom_union(f, f) = f,
		multibloom_attribute(f, 1), f::text, f::bytea;
	IF n = 1 THEN
		PERFORM multibloom_contains(multibloom_add(f, 7), 7), multibloom_contains(f, 'x'::text);
	ELSIF n = 2 THEN
		PERFORM multibloom_contains(multibloom_add(f, 7, 8), 7, 8), multibloom_contains(f, 1, NULL::int);
	END IF;
END $$;
CREATE FUNCTION try_text(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE f multibloom;
BEGIN
	f := t::multibloom;
	PERFORM exercise(f);
	RETURN CASE WHEN f::text = t THEN 'roundtrip' ELSE 'MISMATCH' END;
EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE;
END $$;
CREATE FUNCTION try_bytea(b bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE f multibloom;
BEGIN
	f := b::multibloom;
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
	if ($i % 5 == 0 && length($b64) > 4)
	{
		my @damage = (" ", "\\n", "=", "!", "A");
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
	'multibloom text input: every input round-trips or fails with invalid_text_representation');
is_deeply([ grep { $_ ne 'roundtrip' && $_ ne '22P03' } keys %bin ], [],
	'multibloom bytea cast: every input round-trips or fails with invalid_binary_representation');
cmp_ok($bin{roundtrip} // 0, '>=', scalar(@valid), 'the valid multibloom values were accepted');
cmp_ok($bin{'22P03'} // 0, '>', $n_mutated / 2, 'most mutations were rejected');

# COPY ... (FORMAT binary), one file per input
my $dir = $node->basedir . '/copyin';
mkdir $dir;
my $n_copy = 60;
for my $i (0 .. $n_copy - 1, $#inputs)
{
	open(my $fh, '>:raw', "$dir/$i.bin") or die $!;
	print $fh "PGCOPY\n\377\r\n\0" . pack('N', 0) . pack('N', 0)
	  . pack('n', 1) . pack('N', length($inputs[$i])) . $inputs[$i] . pack('n', 0xffff);
	close $fh;
}
my %copied = map { split /\|/ } split /\n/, $node->safe_psql('postgres', qq{
CREATE TABLE loaded (f multibloom);
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
	SELECT try_copy('$dir/' || id || '.bin', bin) r FROM inputs WHERE id < $n_copy OR id = $#inputs
) s GROUP BY r});
note "COPY binary outcomes: " . join(', ', map { "$_=$copied{$_}" } sort keys %copied);
is_deeply([ grep { $_ ne 'roundtrip' && $_ ne '22P03' } keys %copied ], [],
	'multibloom COPY binary: every row round-trips or fails with invalid_binary_representation');
cmp_ok($copied{roundtrip} // 0, '>=', 1, 'COPY binary loaded the valid value');

# ---- eight clients adding rows to one summary row ----
$node->safe_psql('postgres', q{
CREATE TABLE summary (id int PRIMARY KEY, f multibloom NOT NULL);
INSERT INTO summary VALUES (1, multibloom_empty(2, 5000, 0.01));
CREATE TABLE written (a bigint NOT NULL, b text NOT NULL, how text NOT NULL);
});
my $clients = 8;
my $transactions = $ENV{BLOOM_CONCURRENCY_TX} // 60;	# per client
$node->pgbench(
	"--no-vacuum --client=$clients --jobs=2 --transactions=$transactions",
	0,
	[qr{processed: @{[ $clients * $transactions ]}/@{[ $clients * $transactions ]}}],
	[qr{^$}],
	'eight clients update the same multibloom row',
	{
		'606_add@2' => q{
\set v random(1, 1000000000000)
BEGIN;
UPDATE summary SET f = multibloom_add(f, :v::bigint, 'k' || :v) WHERE id = 1;
INSERT INTO written VALUES (:v, 'k' || :v, 'add');
COMMIT;
},
		'606_union@1' => q{
\set v random(1, 1000000000000)
BEGIN;
UPDATE summary SET f = multibloom_union(f, multibloom_add(multibloom_empty(2, 5000, 0.01), :v::bigint, 'k' || :v)) WHERE id = 1;
INSERT INTO written VALUES (:v, 'k' || :v, 'union');
COMMIT;
},
	});
my ($written, $rows, $missing) = split /\|/, $node->safe_psql('postgres', q{
SELECT (SELECT count(*) FROM written),
       (SELECT (multibloom_info(f)).rows FROM summary),
       (SELECT count(*) FROM written, summary WHERE NOT multibloom_contains(f, a, b))
});
is($written, $clients * $transactions, 'every transaction committed its row');
is($rows, $written, 'row count equals committed writes: no update was lost');
is($missing, 0, 'every row written is found');

# ---- dump and restore, COPY binary ----
$node->safe_psql('postgres', q{
CREATE TABLE kept (id int PRIMARY KEY, f multibloom);
INSERT INTO kept VALUES
 (1, multibloom_empty(1, 1)),
 (2, (SELECT multibloom_agg(g, g::text) FROM generate_series(1, 20000) g)),
 (3, (SELECT multibloom_agg(g, g, g, g) FROM generate_series(1, 10) g)),
 (4, NULL),
 (5, (SELECT f FROM summary));
});
my $before = $node->safe_psql('postgres', q{SELECT string_agg(id || ':' || coalesce(md5(f::bytea), 'null'), ',' ORDER BY id) FROM kept});
my $dump = $node->basedir . '/kept.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-t', 'kept', '-f', $dump, '-d', $node->connstr('postgres') ], 'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->safe_psql('restored', 'CREATE EXTENSION bloomfilter');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ], 'pg_restore');
is($node->safe_psql('restored', q{SELECT string_agg(id || ':' || coalesce(md5(f::bytea), 'null'), ',' ORDER BY id) FROM kept}),
	$before, 'pg_dump/pg_restore keep every byte of multibloom values');
my $bin = $node->basedir . '/kept.bin';
$node->safe_psql('postgres', "COPY kept TO '$bin' (FORMAT binary); CREATE TABLE kept2 (LIKE kept); COPY kept2 FROM '$bin' (FORMAT binary)");
is($node->safe_psql('postgres', q{SELECT count(*) FROM kept k JOIN kept2 c USING (id) WHERE k.f IS DISTINCT FROM c.f OR k.f::bytea IS DISTINCT FROM c.f::bytea}),
	'0', 'COPY binary keeps every byte of multibloom values');

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'server alive');
unlike(slurp_file($node->logfile), qr/terminated by signal|server process .* was terminated/, 'no backend crashed');
$node->stop;
done_testing();
