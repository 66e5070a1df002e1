# The automatic semijoin prefilter (doc/semijoin.md): a plain join with a
# postgres_fdw foreign table gets bloom_contains(<filter>, remote key) in its
# Remote SQL where that is correct and pays, and every query returns the
# same rows with the prefilter on and off.
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
$local->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'");
$local->start;

# 50,000 orders of 5,000 customers; every 100th order has no customer.
$remote->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE orders (id int, customer_id int, customer_big bigint, amount int);
	INSERT INTO orders
		SELECT g, CASE WHEN g % 100 = 0 THEN NULL ELSE g % 5000 END, g % 5000, g % 97
		FROM generate_series(1, 50000) g;
	CREATE TABLE regions (id int, region text);
	INSERT INTO regions SELECT g, 'R' || (g % 10) FROM generate_series(0, 9999) g;
	ANALYZE orders, regions;
});

# 10,000 customers, 2% in the EU; duplicate and NULL ids in a second table.
$local->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
} . foreign_server_sql('remote', $remote) . q{
	CREATE FOREIGN TABLE remote_orders (id int, customer_id int, customer_big bigint, amount int)
		SERVER remote OPTIONS (table_name 'orders');
	CREATE FOREIGN TABLE remote_regions (id int, region text)
		SERVER remote OPTIONS (table_name 'regions');
	CREATE TABLE customers (id int, region text, name text);
	INSERT INTO customers
		SELECT g, CASE WHEN g % 50 = 0 THEN 'EU' ELSE 'US' END, 'customer ' || g
		FROM generate_series(0, 9999) g;
	CREATE TABLE dup_customers (id int, region text);
	INSERT INTO dup_customers SELECT g % 100 * 50, 'EU' FROM generate_series(1, 300) g;
	INSERT INTO dup_customers SELECT NULL, 'EU' FROM generate_series(1, 20);
	INSERT INTO dup_customers SELECT g, 'US' FROM generate_series(1, 9000) g;
	ANALYZE customers, dup_customers, remote_orders, remote_regions;
});

# The typed probe (doc/semijoin.md): the column, its declared type, the
# filter's collation ('' for a deterministic one) and this database's encoding.
my $filtered = qr/bloom_contains_typed\(\$\d+::public\.bloom, customer_(id|big), '(integer|bigint)'::text, ''::text, '\w+'::text\)/;

# $query must return the same rows with and without the prefilter; $added:
# whether the Remote SQL must show it.
sub check
{
	my ($what, $query, $added, $setup) = @_;
	my ($off, $on, $sql) = semijoin_both_ways($local, $query, $setup);
	isnt($off, '', "$what: the query returns rows") unless $what =~ /empty/;
	is($on, $off, "$what: the same rows with the prefilter on and off");
	if ($added)
	{
		like($sql, $filtered, "$what: the prefilter is in the Remote SQL");
	}
	else
	{
		unlike($sql, qr/bloom_contains/, "$what: no prefilter in the Remote SQL");
	}
}

check('inner join', q{
	SELECT o.id, o.amount, c.name FROM customers c JOIN remote_orders o ON o.customer_id = c.id
	WHERE c.region = 'EU'}, 1);
check('inner join written in WHERE', q{
	SELECT o.id, c.name FROM customers c, remote_orders o
	WHERE o.customer_id = c.id AND c.region = 'EU' AND o.amount < 50}, 1);
check('nullable side of a left join', q{
	SELECT c.id, o.id FROM customers c LEFT JOIN remote_orders o ON o.customer_id = c.id
	WHERE c.region = 'EU'}, 1);
check('nullable side of a right join', q{
	SELECT c.id, o.id FROM remote_orders o RIGHT JOIN customers c ON o.customer_id = c.id
	WHERE c.region = 'EU'}, 1);
check('semi join written with IN', q{
	SELECT o.id, o.amount FROM remote_orders o
	WHERE o.customer_id IN (SELECT id FROM customers WHERE region = 'EU')}, 1);
check('semi join written with EXISTS', q{
	SELECT o.id FROM remote_orders o
	WHERE EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id AND c.region = 'EU')}, 1);
check('semi join with NULL and duplicate build keys', q{
	SELECT o.id FROM remote_orders o
	WHERE o.customer_id IN (SELECT id FROM dup_customers WHERE region = 'EU')}, 1);
check('anti join (NOT EXISTS): never', q{
	SELECT o.id FROM remote_orders o
	WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id AND c.region = 'US')}, 0);
check('NOT IN: never', q{
	SELECT o.id FROM remote_orders o
	WHERE o.customer_id NOT IN (SELECT id FROM customers WHERE region = 'US')}, 0);
check('preserved side of a left join', q{
	SELECT o.id, c.id FROM remote_orders o LEFT JOIN customers c
		ON o.customer_id = c.id AND c.region = 'EU'}, 0);
check('full join', q{
	SELECT o.id, c.id FROM remote_orders o FULL JOIN (SELECT * FROM customers WHERE region = 'EU') c
		ON o.customer_id = c.id}, 0);
check('aggregate over the join', q{
	SELECT c.name, sum(o.amount), count(*) FROM customers c JOIN remote_orders o ON o.customer_id = c.id
	WHERE c.region = 'EU' GROUP BY c.name}, 1);
check('duplicate and NULL build keys', q{
	SELECT o.id, d.id FROM dup_customers d JOIN remote_orders o ON o.customer_id = d.id
	WHERE d.region = 'EU'}, 1);
check('NULL keys on both sides of a left join', q{
	SELECT d.id, o.id, o.customer_id FROM dup_customers d LEFT JOIN remote_orders o ON o.customer_id = d.id
	WHERE d.region = 'EU'}, 1);
check('empty build side', q{
	SELECT o.id FROM customers c JOIN remote_orders o ON o.customer_id = c.id
	WHERE c.region = 'nowhere'}, 1);
check('int4 build keys, int8 remote keys', q{
	SELECT o.id FROM customers c JOIN remote_orders o ON o.customer_big = c.id
	WHERE c.region = 'EU'}, 1);
check('a subquery in FROM', q{
	SELECT * FROM (SELECT o.id, c.name FROM customers c JOIN remote_orders o ON o.customer_id = c.id
	               WHERE c.region = 'EU') s}, 1);
# expression keys: both sides cast, the remote side probes its cast (of
# the column read as its declared type, where the column check holds)
{
	my ($off, $on, $sql) = semijoin_both_ways($local, q{
		SELECT o.id FROM customers c JOIN remote_orders o ON o.customer_id::numeric = c.id::numeric
		WHERE c.region = 'EU'});
	is($on, $off, 'keys compared as numeric: the same rows with the prefilter on and off');
	like($sql, qr/bloom_columns_agree\('\{integer\}'::text\[\], '\w+'::text, customer_id\)\) OR public\.bloom_contains_typed\(\$\d+::public\.bloom, \(?customer_id\)?::integer::numeric, 'numeric'::text/,
		'keys compared as numeric: the remote side probes its cast');
}
check('volatile build condition: declined', q{
	SELECT count(*) FROM customers c JOIN remote_orders o ON o.customer_id = c.id
	WHERE c.region = 'EU' AND c.id >= random() * -1}, 0);
check('build side as large as the probe side: declined', q{
	SELECT count(*) FROM customers c JOIN remote_orders o ON o.customer_id = c.id}, 0);
check('build side on the same server: declined', q{
	SELECT count(*) FROM remote_regions r JOIN remote_orders o ON o.customer_id = r.id
	WHERE r.region = 'R1'}, 0);
check('the setting off', q{
	SELECT o.id FROM customers c JOIN remote_orders o ON o.customer_id = c.id WHERE c.region = 'EU'},
	0, 'SET bloomfilter.semijoin_max_pass_rate = 0');

# The rewrite is the manual recipe: one InitPlan aggregating the build side.
my $plan = $local->safe_psql('postgres', q{EXPLAIN (VERBOSE, COSTS OFF)
	SELECT o.id FROM customers c JOIN remote_orders o ON o.customer_id = c.id WHERE c.region = 'EU'});
like($plan, qr/InitPlan 1/, 'the filter is an InitPlan');
like($plan, qr/bloom_agg\(c(ustomers)?(_\d+)?\.id, '?\d+'?(::bigint)?, '?[0-9.e-]+'?(::double precision)?, 'blocked'::text\)/,
	'the InitPlan aggregates the build keys with a capacity, an fpp and the blocked layout');

# The decision is reported with its numbers.
my ($ret, $out, $err) = $local->psql('postgres', q{
	SET bloomfilter.semijoin_log = notice;
	EXPLAIN SELECT o.id FROM customers c JOIN remote_orders o ON o.customer_id = c.id WHERE c.region = 'EU';
	EXPLAIN SELECT o.id FROM customers c JOIN remote_orders o ON o.customer_id = c.id});
like($err, qr/added semijoin prefilter on remote_orders\.customer_id from customers\.id/,
	'semijoin_log: the added filter is reported');
like($err, qr/build rows 200, keys 200;/, 'semijoin_log: with the build estimate');
like($err, qr/no semijoin prefilter on remote_orders\.customer_id from customers\.id: the filter would pass too many rows/,
	'semijoin_log: a declined filter is reported with the reason');

# A prepared statement under a generic plan: the filter is computed at each
# execution, so changed data is seen.
my $prepare = q{
	SET plan_cache_mode = force_generic_plan;
	PREPARE q(text) AS SELECT count(*) FROM customers c JOIN remote_orders o ON o.customer_id = c.id
		WHERE c.name = $1;};
my $exact = q{SET bloomfilter.semijoin_prefilter = off;
	SELECT count(*) FROM customers c JOIN remote_orders o ON o.customer_id = c.id WHERE c.name = 'customer 50';};
my $generic = $local->safe_psql('postgres', qq{
	$prepare
	EXECUTE q('customer 50');
	UPDATE customers SET name = 'customer 50' WHERE id IN (100, 150);
	EXECUTE q('customer 50');
	$exact
	UPDATE customers SET name = 'customer ' || id WHERE id IN (100, 150);
	$exact
});
my @g = split /\n/, $generic;
is(scalar(@g), 4, 'generic plan: four counts');
is($g[0], $g[3], 'generic plan: the first execution is the exact join');
is($g[1], $g[2], 'generic plan: after the data changed, the second execution is the exact join');
cmp_ok($g[1], '>', $g[0], 'generic plan: the change mattered');
like($local->safe_psql('postgres', "$prepare EXPLAIN (VERBOSE, COSTS OFF) EXECUTE q('customer 50')"),
	qr/Filter: \(c(_\d+)?\.name = \$1\).*$filtered/s,
	'generic plan: the prefilter is in the Remote SQL, built with the parameter');

# A foreign scan rescanned with changing parameters (here those of a
# lateral subquery) would send the filter on every rescan: the query is
# planned again without it.
my $lateral = q{
	SELECT c.id, s.n FROM customers c,
		LATERAL (SELECT count(*) n FROM customers c2 JOIN remote_orders o ON o.customer_id = c2.id
		         WHERE c2.region = 'EU' AND o.amount = c.id) s
	WHERE c.id < 3};
my ($loff, $lon, $lsql) = semijoin_both_ways($local, $lateral);
is($lon, $loff, 'parameterized rescans: the same rows');
like($lsql, qr/amount = \$\d+/, 'parameterized rescans: the foreign scan is parameterized');
unlike($lsql, qr/bloom_contains/, 'parameterized rescans: no prefilter');
($ret, $out, $err) = $local->psql('postgres', "SET bloomfilter.semijoin_log = notice; EXPLAIN $lateral");
like($err, qr/no semijoin prefilter on remote_orders\.customer_id from customers\.id: the plan rescans the foreign table with changing parameters/,
	'parameterized rescans: the log tells why the filter is not in the plan');
unlike($err, qr/added semijoin prefilter/, 'parameterized rescans: the log reports no filter added');

done_testing();
