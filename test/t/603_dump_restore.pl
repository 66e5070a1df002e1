# pg_dump / pg_restore (custom format) and COPY (binary and text) keep every
# bit of every stored filter: f::bytea compared before and after, for empty,
# partly full, toasted and compressed filters, NULLs, and every layout this
# build can construct.
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

$node->stop;
done_testing();
