# Sharding: a partitioned table whose partitions are foreign tables on two
# servers.  The prefilter must reach every shard as part of its Remote SQL,
# and the results must agree with the exact semijoin.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomFdw;

my @shards;
for my $i (1 .. 2)
{
	my $shard = PostgreSQL::Test::Cluster->new("shard$i");
	$shard->init;
	$shard->start;
	$shard->safe_psql('postgres', q{
		CREATE EXTENSION bloomfilter;
		CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, note text);
	});
	push @shards, $shard;
}
my $coord = PostgreSQL::Test::Cluster->new('coordinator');
$coord->init;
$coord->start;

my $setup = q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
	CREATE TABLE orders (id int, customer_id int NOT NULL, note text)
		PARTITION BY HASH (customer_id);
};
for my $i (1 .. 2)
{
	my $rem = $i - 1;
	$setup .= foreign_server_sql("shard$i", $shards[$i - 1], batch_size => 500) . qq{
	CREATE FOREIGN TABLE orders_s$i PARTITION OF orders
		FOR VALUES WITH (MODULUS 2, REMAINDER $rem)
		SERVER shard$i OPTIONS (table_name 'orders');
	};
}
$setup .= q{
	-- rows are routed to the shards by the partitioned table
	INSERT INTO orders SELECT g, g % 3000, 'order ' || g FROM generate_series(1, 20000) g;
	CREATE TABLE customers (id int PRIMARY KEY, region text);
	INSERT INTO customers SELECT g, CASE WHEN g % 40 = 0 THEN 'EU' ELSE 'US' END
		FROM generate_series(0, 5999) g;
	ANALYZE customers;
};
$coord->safe_psql('postgres', $setup);
$_->safe_psql('postgres', 'ANALYZE orders') for @shards;

my $c1 = $shards[0]->safe_psql('postgres', 'SELECT count(*) FROM orders');
my $c2 = $shards[1]->safe_psql('postgres', 'SELECT count(*) FROM orders');
cmp_ok($c1, '>', 0, 'shard 1 holds rows');
cmp_ok($c2, '>', 0, 'shard 2 holds rows');
is($c1 + $c2, 20000, 'the shards hold all rows');

sub query { return $coord->safe_psql('postgres', $_[0]); }

my $filter = q{(SELECT bloom_add_all(bloom_empty(1000), array_agg(id)) FROM customers WHERE region = 'EU')};
my $prefilter = "SELECT id FROM orders o WHERE bloom_contains($filter, o.customer_id)";
my $exact = q{customer_id IN (SELECT id FROM customers WHERE region = 'EU')};

my @remote = remote_sql($coord, $prefilter);
is(scalar(@remote), 2, 'one remote scan per shard');
is(scalar(grep { /public\.bloom_contains\(\$1::public\.bloom, customer_id\)/ } @remote), 2,
	'the prefilter reaches every shard as a parameter');

my ($exact_count, $prefilter_count) = check_prefilter($coord,
	table => 'orders', rows => 20000, prefilter => $prefilter, exact => $exact,
	what => 'across shards');

# Both shards at once: asynchronous foreign scans under the Append.
query(q{ALTER SERVER shard1 OPTIONS (ADD async_capable 'true');
        ALTER SERVER shard2 OPTIONS (ADD async_capable 'true')});
like(query("EXPLAIN (VERBOSE, COSTS OFF) $prefilter"), qr/Async Foreign Scan.*Async Foreign Scan/s,
	'async: the shards are probed concurrently');
is(query("SELECT count(*) FROM ($prefilter) p"), $prefilter_count, 'async: same rows');

# Partition pruning still applies next to the prefilter.
my @pruned = remote_sql($coord, "$prefilter AND o.customer_id = 40");
is(scalar(@pruned), 1, 'an equality on the partition key probes one shard only');

done_testing();
