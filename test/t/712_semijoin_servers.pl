# The automatic semijoin prefilter across three servers: foreign partitions
# (one filter for all of them), a build side on another remote server, a
# build side under row-level security, and text keys under a
# case-insensitive (nondeterministic) collation.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomFdw;

my @remotes;
for my $name (qw(remote1 remote2))
{
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->start;
	$node->safe_psql('postgres', q{
		CREATE EXTENSION bloomfilter;
		CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
	});
	push @remotes, $node;
}
my ($remote1, $remote2) = @remotes;
# Orders split by id over the two servers; names in mixed case.
for my $i (0, 1)
{
	$remotes[$i]->safe_psql('postgres', qq{
		CREATE TABLE orders (id int, customer_id int, customer_name text COLLATE ci);
		INSERT INTO orders
			SELECT g, g % 5000, CASE WHEN g % 2 = 0 THEN 'Customer ' ELSE 'CUSTOMER ' END || (g % 5000)
			FROM generate_series(1, 50000) g WHERE g % 2 = $i;
		ANALYZE orders;
	});
}
# The remote customers live on the second server only.
$remote2->safe_psql('postgres', q{
	CREATE TABLE customers (id int, region text);
	INSERT INTO customers SELECT g, CASE WHEN g % 50 = 0 THEN 'EU' ELSE 'US' END
		FROM generate_series(0, 9999) g;
	ANALYZE customers;
});

my $local = PostgreSQL::Test::Cluster->new('local');
$local->init;
$local->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'");
$local->start;
$local->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
	CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
} . foreign_server_sql('remote1', $remote1) . foreign_server_sql('remote2', $remote2) . q{
	CREATE FOREIGN TABLE orders1 (id int, customer_id int, customer_name text COLLATE ci)
		SERVER remote1 OPTIONS (table_name 'orders');
	CREATE TABLE all_orders (id int, customer_id int, customer_name text COLLATE ci)
		PARTITION BY HASH (id);
	CREATE FOREIGN TABLE all_orders_0 PARTITION OF all_orders FOR VALUES WITH (MODULUS 2, REMAINDER 0)
		SERVER remote1 OPTIONS (table_name 'orders');
	CREATE FOREIGN TABLE all_orders_1 PARTITION OF all_orders FOR VALUES WITH (MODULUS 2, REMAINDER 1)
		SERVER remote2 OPTIONS (table_name 'orders');
	CREATE FOREIGN TABLE remote_customers (id int, region text)
		SERVER remote2 OPTIONS (table_name 'customers');
	CREATE TABLE customers (id int, region text, name text COLLATE ci);
	INSERT INTO customers SELECT g, CASE WHEN g % 50 = 0 THEN 'EU' ELSE 'US' END, 'customer ' || g
		FROM generate_series(0, 9999) g;
	ANALYZE customers, orders1, all_orders, remote_customers;
});

# The typed probe: an integer key, or a text key under the nondeterministic
# collation ci, which the filter hashes under and names.
my $filtered = qr/bloom_contains_typed\(\$\d+::public\.bloom, (customer_id, 'integer'::text, ''::text|customer_name, 'pg_catalog\.text'::text, 'public\.ci'::text), '\w+'::text\)/;

sub check
{
	my ($what, $query, $setup) = @_;
	my ($off, $on, $sql) = semijoin_both_ways($local, $query, $setup);
	isnt($off, '', "$what: the query returns rows");
	is($on, $off, "$what: the same rows with the prefilter on and off");
	like($sql, $filtered, "$what: the prefilter is in the Remote SQL");
	return $sql;
}

# 1. Foreign partitions on two servers: one InitPlan, its filter sent to
# both partitions' scans.
my $part_query = q{SELECT o.id, c.name FROM customers c JOIN all_orders o ON o.customer_id = c.id
	WHERE c.region = 'EU'};
my $sql = check('foreign partitions', $part_query);
is(scalar(() = $sql =~ /bloom_contains/g), 2, 'foreign partitions: both partitions receive the filter');
my $plan = $local->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $part_query");
is(scalar(() = $plan =~ /InitPlan/g), 1, 'foreign partitions: one filter, built once');

# 2. Build on one remote server, probe on the other.
check('build side on another server', q{
	SELECT o.id, o.customer_id FROM remote_customers c JOIN orders1 o ON o.customer_id = c.id
	WHERE c.region = 'EU'});
$plan = $local->safe_psql('postgres', q{EXPLAIN (VERBOSE, COSTS OFF)
	SELECT o.id FROM remote_customers c JOIN orders1 o ON o.customer_id = c.id WHERE c.region = 'EU'});
like($plan, qr/Aggregate on \(public\.remote_customers c_1\)|Foreign Scan on public\.remote_customers c_1/,
	'build side on another server: the filter reads the other server');

# Several foreign tables in one query: each gets its own filter.
$sql = check('two foreign tables', q{
	SELECT o.id, a.id FROM customers c JOIN orders1 o ON o.customer_id = c.id
		JOIN all_orders a ON a.customer_id = c.id
	WHERE c.region = 'EU'});
is(scalar(() = $sql =~ /bloom_contains/g), 3,
	'two foreign tables: the table and both partitions of the other receive a filter');

# 3. Row-level security on the build side: a role that sees only EU
# customers gets a filter of those only, and the same rows as without it.
$local->safe_psql('postgres', q{
	CREATE ROLE analyst;
	GRANT SELECT ON customers, orders1 TO analyst;
	GRANT USAGE ON FOREIGN SERVER remote1 TO analyst;
	CREATE USER MAPPING FOR analyst SERVER remote1 OPTIONS (user 'postgres', password_required 'false');
	ALTER TABLE customers ENABLE ROW LEVEL SECURITY;
	CREATE POLICY eu_only ON customers FOR SELECT TO analyst USING (region = 'EU');
});
my $rls_query = q{SELECT o.id, c.id FROM customers c JOIN orders1 o ON o.customer_id = c.id};
check('row-level security on the build side', $rls_query, 'SET ROLE analyst');
$plan = $local->safe_psql('postgres', "SET ROLE analyst; EXPLAIN (VERBOSE, COSTS OFF) $rls_query");
like($plan, qr/InitPlan.*Filter: \(c_1\.region = 'EU'::text\)/s,
	"row-level security: the filter's sub-select keeps the policy");
my $shipped = $local->safe_psql('postgres', qq{SET ROLE analyst;
	EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $rls_query});
my ($rows) = $shipped =~ /Foreign Scan on orders1 o \(actual rows=(\d+)/;
# 1,000 orders of visible customers, of 25,000; a few false positives
cmp_ok($rows, '<', 1100, 'row-level security: only candidates of the visible customers cross');
isnt($local->safe_psql('postgres', $rls_query), $local->safe_psql('postgres', "SET ROLE analyst; $rls_query"),
	'row-level security: the policy changes the result');

# 4. Text keys under a case-insensitive collation: the filter hashes under
# the join's collation, so 'CUSTOMER 50' finds 'customer 50'.
my $ci = q{SELECT o.id, c.name FROM customers c JOIN orders1 o ON o.customer_name = c.name
	WHERE c.region = 'EU'};
check('case-insensitive collation', $ci);
cmp_ok($local->safe_psql('postgres', "SELECT count(*) FROM ($ci) q WHERE q.name <> 'X'"), '>', 200,
	'case-insensitive collation: the join matches across case');
is($local->safe_psql('postgres', qq{SELECT count(*) FROM ($ci) q}),
	$local->safe_psql('postgres', q{SELECT count(*) FROM orders1 o WHERE o.customer_id % 50 = 0}),
	'case-insensitive collation: every order of an EU customer, whatever its case');

done_testing();
