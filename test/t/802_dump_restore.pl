# pg_dump / pg_restore (custom format) and COPY (binary and text) keep every
# bit of every stored filter: f::bytea compared before and after, for empty,
# partly full, toasted and compressed filters, NULLs, and every layout this
# build can construct; and the same for multibloom values.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql('src', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE filters (id int PRIMARY KEY, note text, f bloom);
INSERT INTO filters VALUES
 (1, 'one bit', bloom_empty_with(1, 1)),
 (2, 'empty', bloom_empty(1000, 0.01)),
 (3, 'three ints', bloom_add_all(bloom_empty_with(65, 3), ARRAY[1, 2, 3])),
 (4, 'null', NULL),
 -- 1.2 MB, mostly zero: compressed and toasted
 (5, 'large sparse', bloom_add_all(bloom_empty(1000000, 0.01), array(SELECT generate_series(1, 1000)))),
 -- 120 kB, half full: toasted, incompressible
 (6, 'large dense', bloom_add_all(bloom_empty(100000, 0.01), array(SELECT generate_series(1, 100000)))),
 (7, 'text values', bloom_add_all(bloom_empty(100, 0.001), ARRAY['a', 'é', '']));
});
# other layouts, where this build has them
my $id = 100;
for my $layout ('blocked', 'matrix')
{
	my ($ret) = $node->psql('src', "SELECT bloom_empty(100, 0.01, '$layout')");
	next if $ret != 0;
	$node->safe_psql('src',
		"INSERT INTO filters VALUES ($id, '$layout', bloom_add_all(bloom_empty(5000, 0.01, '$layout'), array(SELECT generate_series(1, 3000))))");
	$id++;
}
# a hash index on the filters, rebuilt by pg_restore through the operator class
$node->safe_psql('src', 'CREATE INDEX filters_f ON filters USING hash (f)');

my $fingerprint = q{SELECT string_agg(id || ':' || coalesce(md5(f::bytea), 'null')
                                     || ':' || coalesce((bloom_info(f)).inserted::text, ''), ',' ORDER BY id)
                    FROM filters};
my $before = $node->safe_psql('src', $fingerprint);
like($before, qr/^1:/, 'source table fingerprinted');

# custom-format dump, restored into a new database
my $dump = $node->basedir . '/src.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('src'), '-f', $dump ], 'pg_dump -Fc');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ], 'pg_restore');
is($node->safe_psql('restored', $fingerprint), $before, 'pg_dump/pg_restore kept every bit');
is( $node->safe_psql('restored',
		"SELECT bloom_contains(f, 999) FROM filters WHERE id = 5"),
	't', 'restored filters answer');
is( $node->safe_psql('restored', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM filters WHERE f = (SELECT f FROM filters WHERE id = 3)}),
	'1', 'the restored hash index finds a filter');

# COPY binary out and in
my $bin = $node->basedir . '/filters.bin';
$node->safe_psql('src', "COPY filters TO '$bin' (FORMAT binary)");
$node->safe_psql('src', "CREATE TABLE copied (LIKE filters); COPY copied FROM '$bin' (FORMAT binary)");
is($node->safe_psql('src', $fingerprint =~ s/FROM filters/FROM copied/r), $before,
	'COPY (FORMAT binary) kept every bit');

# COPY text out and in
my $txt = $node->basedir . '/filters.txt';
$node->safe_psql('src', "COPY filters TO '$txt'");
$node->safe_psql('src', "CREATE TABLE copied_text (LIKE filters); COPY copied_text FROM '$txt'");
is($node->safe_psql('src', $fingerprint =~ s/FROM filters/FROM copied_text/r), $before,
	'COPY text kept every bit');

# bytea round trip through a client that does not know the type
is( $node->safe_psql('src',
		"SELECT count(*) FROM filters WHERE (f::bytea)::bloom IS DISTINCT FROM f"),
	'0', 'f::bytea::bloom = f for every row');

# ---- multibloom values: pg_dump/pg_restore of one table, COPY binary ----
$node->safe_psql('src', q{
CREATE TABLE kept (id int PRIMARY KEY, f multibloom);
INSERT INTO kept VALUES
 (1, multibloom_empty(1, 1)),
 (2, (SELECT multibloom_agg(g, g::text) FROM generate_series(1, 20000) g)),
 (3, (SELECT multibloom_agg(g, g, g, g) FROM generate_series(1, 10) g)),
 (4, NULL),
 (5, (SELECT multibloom_agg_fixed(5000, 0.01, g::bigint, 'k' || g) FROM generate_series(1, 480) g)),
 (6, multibloom_add(multibloom_add(multibloom_empty(2, 5000, 0.01), 1, 'k1'), 2, NULL::text));
});
my $mb_fingerprint = q{SELECT string_agg(id || ':' || coalesce(md5(f::bytea), 'null'), ',' ORDER BY id) FROM kept};
my $mb_before = $node->safe_psql('src', $mb_fingerprint);
my $mb_dump = $node->basedir . '/kept.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-t', 'kept', '-f', $mb_dump, '-d', $node->connstr('src') ],
	'pg_dump of a multibloom table');
$node->safe_psql('postgres', 'CREATE DATABASE mb_restored');
$node->safe_psql('mb_restored', 'CREATE EXTENSION bloomfilter');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('mb_restored'), $mb_dump ],
	'pg_restore of a multibloom table');
is($node->safe_psql('mb_restored', $mb_fingerprint),
	$mb_before, 'pg_dump/pg_restore keep every byte of multibloom values');
my $mb_bin = $node->basedir . '/kept.bin';
$node->safe_psql('src', "COPY kept TO '$mb_bin' (FORMAT binary); CREATE TABLE kept2 (LIKE kept); COPY kept2 FROM '$mb_bin' (FORMAT binary)");
is($node->safe_psql('src', q{SELECT count(*) FROM kept k JOIN kept2 c USING (id) WHERE k.f IS DISTINCT FROM c.f OR k.f::bytea IS DISTINCT FROM c.f::bytea}),
	'0', 'COPY binary keeps every byte of multibloom values');

$node->stop;
done_testing();
