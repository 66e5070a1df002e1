# Probes on a Citus cluster (a coordinator and two workers): the semijoin
# prefilter between a distributed table and a local or a reference table
# (the filter is computed once, as a distributed subplan, and reaches every
# shard as an intermediate result, where the probe runs), multibloom probes
# on whole rows and on one attribute, and a worker that stops in the middle
# of a query: an error, never a filter or a count made of part of the
# shards.
use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCitus;

skip_without_citus();
my ($coordinator, @workers) = citus_cluster(2);
sub sql { return $coordinator->safe_psql('postgres', $_[0]); }

my $rows = q{SELECT g, (g * 7919) % 5000, CASE WHEN g % 3 = 0 THEN 'EU' ELSE 'US' END, g % 100
             FROM generate_series(1, 20000) g};
sql(qq{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, region text, amount int);
	SELECT create_distributed_table('orders', 'id');
	INSERT INTO orders $rows;
	CREATE TABLE orders_local (id bigint PRIMARY KEY, customer_id int, region text, amount int);
	INSERT INTO orders_local $rows;
	-- the selection: a plain table of the coordinator, and a reference table
	CREATE TABLE customers_local (id int PRIMARY KEY, segment text);
	INSERT INTO customers_local
		SELECT g, CASE WHEN g % 50 = 0 THEN 'gold' ELSE 'basic' END FROM generate_series(0, 4999) g;
	CREATE TABLE customers_ref (id int PRIMARY KEY, segment text);
	SELECT create_reference_table('customers_ref');
	INSERT INTO customers_ref SELECT * FROM customers_local;
});

# ---- the semijoin prefilter ----

for my $case ([ 'customers_local', 'a local table' ], [ 'customers_ref', 'a reference table' ])
{
	my ($customers, $what) = @$case;
	my $filter = "(SELECT bloom_agg(id) FROM $customers WHERE segment = 'gold')";
	my $prefilter = "SELECT count(*) FROM %s o WHERE bloom_contains($filter, o.customer_id)";
	my $plan = sql('EXPLAIN (VERBOSE, COSTS OFF) ' . sprintf($prefilter, 'orders'));
	like($plan, qr/Distributed Subplan/, "prefilter by $what: the filter is computed once, as a subplan");
	my @tasks = task_queries($coordinator, sprintf($prefilter, 'orders'));
	is(scalar(grep { /bloom_contains\(\(SELECT intermediate_result\.bloom_agg FROM read_intermediate_result\(/ } @tasks),
		32, "prefilter by $what: every shard probes the filter it receives");

	my $exact = sql("SELECT count(*) FROM orders_local WHERE customer_id IN (SELECT id FROM $customers WHERE segment = 'gold')");
	my $count = sql(sprintf($prefilter, 'orders'));
	cmp_ok($exact, '>', 0, "prefilter by $what: the semijoin is not empty");
	cmp_ok($count, '>=', $exact, "prefilter by $what: at least the semijoin");
	cmp_ok($count, '<', 2 * $exact, "prefilter by $what: few rows beyond it");
	is($count, sql(sprintf($prefilter, 'orders_local')), "prefilter by $what: the single-server count");
	is(sql(qq{SELECT count(*) FROM orders o
	          WHERE customer_id IN (SELECT id FROM $customers WHERE segment = 'gold')
	            AND NOT bloom_contains($filter, o.customer_id)}), 0,
		"prefilter by $what: no row of the semijoin is dropped");
	is(sql(qq{SELECT count(*) FROM orders o JOIN $customers c ON c.id = o.customer_id
	          WHERE c.segment = 'gold' AND bloom_contains($filter, o.customer_id)}), $exact,
		"prefilter by $what: with the join, exactly the semijoin");
}

# ---- multibloom probes ----

my $mfilter = q{(SELECT multibloom_agg(customer_id, region) FROM orders_local WHERE amount = 7)};
for my $case ([ 'customer_id, region', 'a whole row' ], [ 'customer_id, NULL', 'one attribute (NULL wildcard)' ])
{
	my ($args, $what) = @$case;
	my $probe = "SELECT count(*) FROM %s o WHERE multibloom_contains($mfilter, $args)";
	my @tasks = task_queries($coordinator, sprintf($probe, 'orders'));
	is(scalar(grep { /multibloom_contains\(/ } @tasks), 32, "multibloom probe of $what: on every shard");
	my $count = sql(sprintf($probe, 'orders'));
	is($count, sql(sprintf($probe, 'orders_local')), "multibloom probe of $what: the single-server count");
	cmp_ok($count, '>=', sql('SELECT count(*) FROM orders_local WHERE amount = 7'),
		"multibloom probe of $what: at least the rows it was built from");
}
is(sql(qq{SELECT count(*) FROM orders o, orders_local l
          WHERE l.amount = 7 AND o.id = l.id AND NOT multibloom_contains($mfilter, o.customer_id, o.region)}),
	0, 'multibloom probe: no row it was built from is dropped');

# ---- a worker stops in the middle of a query ----

# The shards that hold ids divisible by 1000 sleep 2 seconds a row before
# they answer; worker 2 is stopped while they sleep.  The coordinator must
# report an error, not a result built from the shards of worker 1.
my $slow = q{SELECT bloom_union_agg(f) IS NOT NULL FROM
	(SELECT id, bloom_agg(customer_id, 1000, 0.01) AS f FROM orders
	 WHERE CASE WHEN id %% 1000 = 0 THEN pg_sleep(%s) IS NOT NULL ELSE false END GROUP BY id) s};
my ($stdout, $stderr) = ('', '');
my $psql = IPC::Run::start(
	[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $coordinator->connstr('postgres'),
	  '-c', sprintf($slow, 2) ],
	'>', \$stdout, '2>', \$stderr);
sleep 1;
$workers[1]->stop('immediate');
$psql->finish;
isnt($psql->result, 0, 'worker stopped mid-query: the query fails');
like($stderr, qr/ERROR/, 'worker stopped mid-query: an error is reported');
is($stdout, '', 'worker stopped mid-query: no result');
$workers[1]->start;
is(sql(sprintf($slow, 0)), 't', 'the worker back: the query answers');

# Managed summaries and Citus: a distributed partitioned table is refused
# with a clear error (its rows are in the shards, where the summary's
# trigger does not fire), and Citus itself refuses to distribute a table
# that has a summary (it has a trigger).
sql(q{CREATE TABLE ev (tenant int, trace bigint, day date) PARTITION BY RANGE (day);
	CREATE TABLE ev_1 PARTITION OF ev FOR VALUES FROM ('2026-01-01') TO ('2026-01-02');
	SELECT create_distributed_table('ev', 'tenant', shard_count => 4);
	CREATE TABLE ev_local (LIKE ev) PARTITION BY RANGE (day);
	CREATE TABLE ev_local_1 PARTITION OF ev_local FOR VALUES FROM ('2026-01-01') TO ('2026-01-02');});
my ($ret, $out, $err) = $coordinator->psql('postgres', q{SELECT bloom_summary_create('ev', 'trace', 1000, 0.01)});
like($err, qr/ERROR:  bloom summaries of Citus tables are not supported: ev is a Citus table/,
	'a summary of a distributed table: refused, with the reason');
is(sql(q{SELECT count(*) FROM bloom_summaries}), '0', 'a summary of a distributed table: nothing is left behind');
sql(q{SELECT bloom_summary_create('ev_local', 'trace', 1000, 0.01)});
($ret, $out, $err) = $coordinator->psql('postgres', q{SELECT create_distributed_table('ev_local', 'tenant')});
like($err, qr/ERROR:  cannot distribute relation "ev_local" because it has triggers/,
	'a summarised table: Citus refuses to distribute it');

done_testing();
