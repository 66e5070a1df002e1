# Composite keys across servers: multibloom_contains(<filter>, col1, col2)
# is evaluated on the remote server, and multibloom_agg over a foreign
# table is pushed down.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomFdw;

my $remote = PostgreSQL::Test::Cluster->new('remote');
$remote->init;
$remote->start;
my $local = PostgreSQL::Test::Cluster->new('local');
$local->init;
$local->start;

$remote->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE sales (id int PRIMARY KEY, store int, product text, qty int);
	INSERT INTO sales SELECT g, g % 200, 'p' || (g % 300), g % 7 FROM generate_series(1, 30000) g;
	ANALYZE sales;
});
$local->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
} . foreign_server_sql('remote', $remote) . q{
	CREATE FOREIGN TABLE remote_sales (id int, store int, product text, qty int)
		SERVER remote OPTIONS (table_name 'sales');
	-- the (store, product) pairs of interest: each store with a few products,
	-- including pairs whose store and product occur, but never together
	CREATE TABLE wanted (store int, product text);
	INSERT INTO wanted SELECT s, 'p' || ((s * 7 + k) % 300)
		FROM generate_series(0, 199, 10) s, generate_series(0, 2) k;
	ANALYZE wanted;
});

sub query { return $local->safe_psql('postgres', $_[0]); }

my $filter = q{(SELECT multibloom_agg(store, product) FROM wanted)};
my $prefilter = "SELECT id FROM remote_sales s WHERE multibloom_contains($filter, s.store, s.product)";
my $exact = q{(store, product) IN (SELECT store, product FROM wanted)};

like(remote_sql($local, $prefilter),
	qr/WHERE \(public\.multibloom_contains\(\$1::public\.multibloom, store, product\)\)/,
	'multibloom_contains on a composite key ships with the filter as a parameter');

my ($exact_count, $prefilter_count) = check_prefilter($local,
	table => 'remote_sales', rows => 30000, prefilter => $prefilter, exact => $exact,
	what => 'composite key');

# The rows whose store and product are both wanted, but not as a pair: the
# verification filter rejects most of them (per-attribute filters alone
# would pass them all).
my $store_and_product_wanted = q{store IN (SELECT store FROM wanted) AND product IN (SELECT product FROM wanted)};
my $cross = query("SELECT count(*) FROM remote_sales WHERE $store_and_product_wanted AND NOT ($exact)");
cmp_ok($cross, '>', 0, 'there are rows with wanted attributes in unwanted pairs');
my $cross_passed = query("SELECT count(*) FROM remote_sales
	WHERE id IN ($prefilter) AND $store_and_product_wanted AND NOT ($exact)");
cmp_ok($cross_passed, '<', $cross / 10, 'the whole-row filter rejects unwanted pairs remotely');

# A filter folded to a literal ships too.
my $pairs = query(q{SELECT string_agg(format('(%s, %L)', store, product), ', ') FROM wanted});
my $literal = qq{SELECT id FROM remote_sales s WHERE multibloom_contains(
	(SELECT multibloom_agg(store, product) FROM (VALUES $pairs) v(store, product)), s.store, s.product)};
like(remote_sql($local, $literal), qr/public\.multibloom_contains\(\$1::public\.multibloom, store, product\)/,
	'a filter from VALUES ships as a parameter');
is(query("SELECT count(*) FROM ($literal) p"), $prefilter_count, 'same filter, same rows');

# multibloom_agg over the foreign table: the filter is built remotely.
like(remote_sql($local, q{SELECT multibloom_agg(store, product) FROM remote_sales}),
	qr/Remote SQL: SELECT public\.multibloom_agg\(store, product\) FROM public\.sales/,
	'multibloom_agg is pushed down');
is(query(q{SELECT (SELECT multibloom_agg(store, product) FROM remote_sales WHERE qty = 3)
	= (SELECT multibloom_agg(store, product) FROM (SELECT * FROM remote_sales WHERE qty = 3 OFFSET 0) s
	   WHERE random() >= 0)}),
	't', 'the remote multibloom has the bits of the same filter built locally');

done_testing();
