# Filters built remotely: bloom_agg over a foreign table is pushed down to
# the remote server, so a filter crosses the network instead of the rows;
# per-shard filters of a sharded table are built on each shard and rolled
# up with bloom_union_agg.
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
	$shard->safe_psql('postgres', qq{
		CREATE EXTENSION bloomfilter;
		CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, customer_name text NOT NULL);
		-- shard 1 holds the even customers, shard 2 the odd ones
		INSERT INTO orders SELECT g, c, 'customer ' || c
			FROM generate_series(1, 10000) g, LATERAL (SELECT (g % 1500) * 2 + $i - 1 AS c) x;
		ANALYZE orders;
	});
	push @shards, $shard;
}
my $coord = PostgreSQL::Test::Cluster->new('coordinator');
$coord->init;
$coord->start;

my $setup = q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
	CREATE TABLE orders (id int, customer_id int NOT NULL, customer_name text NOT NULL)
		PARTITION BY LIST ((customer_id % 2));
};
for my $i (1 .. 2)
{
	my $rem = $i - 1;
	$setup .= foreign_server_sql("shard$i", $shards[$i - 1]) . qq{
	CREATE FOREIGN TABLE orders_s$i PARTITION OF orders FOR VALUES IN ($rem)
		SERVER shard$i OPTIONS (table_name 'orders');
	};
}
$setup .= q{
	-- a local copy of all rows, to compare with
	CREATE TABLE orders_copy AS SELECT * FROM orders;
	CREATE TABLE customers (id int PRIMARY KEY, name text);
	INSERT INTO customers SELECT g, 'customer ' || g FROM generate_series(0, 5999) g;
	ANALYZE customers;
};
$coord->safe_psql('postgres', $setup);

sub query { return $coord->safe_psql('postgres', $_[0]); }

is(query('SELECT count(*) FROM orders_copy'), 20000, 'the shards hold 20000 rows');

# 1. bloom_agg over one foreign table: the aggregate runs remotely.
like(remote_sql($coord, 'SELECT bloom_agg(customer_id, 5000, 0.01) FROM orders_s1'),
	qr/Remote SQL: SELECT public\.bloom_agg\(customer_id, 5000::bigint, 0\.01::double precision\) FROM public\.orders/,
	'bloom_agg(value, capacity, fpp) is pushed down');
like(remote_sql($coord, 'SELECT bloom_agg(customer_id) FROM orders_s1'),
	qr/Remote SQL: SELECT public\.bloom_agg\(customer_id\) FROM public\.orders/,
	'bloom_agg(value) is pushed down');
like(remote_sql($coord, 'SELECT bloom_agg(customer_name, 5000, 0.01) FROM orders_s1'),
	qr/Remote SQL: SELECT public\.bloom_agg\(customer_name, 5000::bigint/,
	'bloom_agg over a text column (default collation) is pushed down');
like(remote_sql($coord, "SELECT bloom_agg(customer_id, 5000, 0.01) FROM orders_s1 WHERE customer_name LIKE 'customer 1%'"),
	qr/Remote SQL: SELECT public\.bloom_agg\(customer_id, 5000::bigint, 0\.01::double precision\) FROM public\.orders WHERE/,
	'with a remote WHERE clause too');

is(query(q{SELECT (SELECT bloom_agg(customer_id, 5000, 0.01) FROM orders_s1)
	= (SELECT bloom_agg(customer_id, 5000, 0.01) FROM orders_copy WHERE customer_id % 2 = 0)}),
	't', 'the remote filter has the bits of the same filter built locally');
is(query(q{SELECT (SELECT bloom_agg(customer_name, 5000, 0.01) FROM orders_s1)
	= (SELECT bloom_agg(customer_name, 5000, 0.01) FROM orders_copy WHERE customer_id % 2 = 0)}),
	't', 'text keys hash alike on both servers');

# 2. Per-shard filters built remotely, rolled up.
like(remote_sql($coord, q{SELECT bloom_union_agg(f) FROM (
		SELECT bloom_agg(customer_id, 5000, 0.01) AS f FROM orders_s1
		UNION ALL SELECT bloom_agg(customer_id, 5000, 0.01) FROM orders_s2) s}),
	qr/SELECT public\.bloom_agg.*\n.*SELECT public\.bloom_agg/,
	'UNION ALL of per-shard aggregates: both pushed down');
my $whole = q{(SELECT bloom_agg(customer_id, 5000, 0.01) FROM orders_copy)};
is(query(qq{SELECT bloom_union_agg(f) = $whole FROM (
		SELECT bloom_agg(customer_id, 5000, 0.01) AS f FROM orders_s1
		UNION ALL SELECT bloom_agg(customer_id, 5000, 0.01) FROM orders_s2) s}),
	't', 'the union of the shard filters is the filter of the whole table');
is(query(q{SELECT count(*) FROM bloom_partition_filters('orders', 'customer_id', 5000, 0.01)}),
	2, 'bloom_partition_filters: one filter per shard');
is(query(qq{SELECT bloom_union_agg(filter) = $whole
	FROM bloom_partition_filters('orders', 'customer_id', 5000, 0.01)}),
	't', 'bloom_partition_filters rolled up is the filter of the whole table');

# 3. The filter travels the other way: which local customers have orders
# somewhere?  Built on the shards, probed locally.
my $remote_filter = q{(SELECT bloom_union_agg(filter) FROM bloom_partition_filters('orders', 'customer_id', 5000, 0.01))};
my $candidates = query(qq{SELECT count(*) FROM customers WHERE bloom_contains($remote_filter, id)});
my $exact = query(q{SELECT count(*) FROM customers WHERE id IN (SELECT customer_id FROM orders)});
is($exact, 3000, 'customers with orders');
cmp_ok($candidates, '>=', $exact, 'remote filter: no customer with orders is missed');
cmp_ok($candidates, '<=', $exact * 1.05, 'remote filter: few false positives');

# 4. The same filter used to prefilter another remote scan: a round trip
# of filters, never of rows.
like(remote_sql($coord, qq{SELECT count(*) FROM orders_s2 o WHERE bloom_contains($remote_filter, o.customer_id)}),
	qr/bloom_contains\(\$1::public\.bloom, customer_id\)/,
	'a remotely built filter prefilters another remote scan');

done_testing();
