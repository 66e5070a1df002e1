# The automatic semijoin prefilter with the foreign table inside an IN or
# EXISTS sub-select: the sub-select's table is the probe side, the outer
# relation the build side, and the filter goes into the sub-select's WHERE.
# Also joins through the USING column of a nested join.  Every result
# equals the one with the rewrite off; anti joins are left alone.
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
$remote->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE orders (id int, customer_id int, zone text, amount int, note text);
	INSERT INTO orders
		SELECT g, g % 10000, 'z' || (g % 3), (g / 7) % 100, 'order ' || g FROM generate_series(1, 50000) g;
	ANALYZE orders;
});

my $local = PostgreSQL::Test::Cluster->new('local');
$local->init;
$local->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'");
$local->start;
$local->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
} . foreign_server_sql('remote', $remote) . q{
	CREATE FOREIGN TABLE remote_orders (id int, customer_id int, zone text, amount int, note text)
		SERVER remote OPTIONS (table_name 'orders');
	-- the same table, its customer column named as the customers' key
	CREATE FOREIGN TABLE orders_by_customer (order_id int OPTIONS (column_name 'id'),
			id int OPTIONS (column_name 'customer_id'), amount int)
		SERVER remote OPTIONS (table_name 'orders');
	-- 1% of the customers in region EU
	CREATE TABLE customers (id int, region text, zone text, name text);
	INSERT INTO customers SELECT g, CASE WHEN g % 100 = 0 THEN 'EU' ELSE 'US' END, 'z' || (g % 2),
		'customer ' || g FROM generate_series(0, 9999) g;
	CREATE TABLE addresses (id int, city text);
	INSERT INTO addresses SELECT g, 'city ' || (g % 50) FROM generate_series(0, 9999, 2) g;
	ANALYZE remote_orders, orders_by_customer, customers, addresses;
});

my $typed = qr/bloom_contains_typed\(\$\d+::public\.bloom, customer_id, 'integer'::text/;

sub decisions
{
	my ($query) = @_;
	my ($ret, $out, $err) = $local->psql('postgres',
		"SET bloomfilter.semijoin_log = notice; EXPLAIN $query");
	return $err;
}

# The rows the foreign scan of $query received.
sub shipped
{
	my ($query) = @_;
	my $plan = $local->safe_psql('postgres', "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query");
	my ($rows) = $plan =~ /Foreign Scan on \S+ \w+ \(actual rows=(\d+)/;
	return $rows // -1;
}

sub check
{
	my ($what, $query, $probe) = @_;
	my ($off, $on, $sql) = semijoin_both_ways($local, $query);
	isnt($off, '', "$what: the query returns rows");
	is($on, $off, "$what: the same rows with the rewrite on and off");
	if (defined $probe)
	{
		like($sql, $probe, "$what: the filter is in the Remote SQL");
	}
	else
	{
		unlike($sql, qr/bloom_contains/, "$what: no filter");
	}
}

# 1. IN with the foreign table inside.
my $in = q{SELECT c.id, c.name FROM customers c
	WHERE c.region = 'EU' AND c.id IN (SELECT customer_id FROM remote_orders WHERE amount > 10)};
check('IN', $in, $typed);
cmp_ok(shipped($in), '<', 1000, 'IN: few rows cross');
like(decisions($in), qr/added semijoin prefilter on remote_orders\.customer_id from customers\.id/,
	'IN: the log reports the filter');

# 2. EXISTS, correlated on one column, and on two (one filter of both).
my $exists = q{SELECT c.id, c.name FROM customers c
	WHERE c.region = 'EU' AND EXISTS (SELECT 1 FROM remote_orders o WHERE o.customer_id = c.id AND o.amount > 10)};
check('EXISTS', $exists, $typed);
cmp_ok(shipped($exists), '<', 1000, 'EXISTS: few rows cross');
my $exists2 = q{SELECT c.id, c.zone FROM customers c
	WHERE c.region = 'EU' AND EXISTS (SELECT 1 FROM remote_orders o WHERE o.customer_id = c.id AND o.zone = c.zone)};
check('EXISTS on two columns', $exists2,
	qr/bloom_contains_tuple\(\$\d+::public\.bloom, '\{integer,pg_catalog\.text\}'::text\[\], '\w+'::text, customer_id, zone\)/);
my $log = decisions($exists2);
is(scalar(() = $log =~ /semijoin prefilter on remote_orders\.\(customer_id, zone\)/g), 1,
	'EXISTS on two columns: one composite candidate');

# 3. Inside an inner join's sub-select, with the build relation joined.
check('IN beside a join', q{SELECT c.id, a.city FROM customers c JOIN addresses a ON a.id = c.id
	WHERE c.region = 'EU' AND c.id IN (SELECT customer_id FROM remote_orders)}, $typed);

# 4. Anti joins: left alone.
check('NOT EXISTS', q{SELECT c.id FROM customers c
	WHERE c.region = 'EU' AND NOT EXISTS (SELECT 1 FROM remote_orders o WHERE o.customer_id = c.id AND o.amount > 98)}, undef);
check('NOT IN', q{SELECT c.id FROM customers c
	WHERE c.region = 'EU' AND c.id NOT IN (SELECT customer_id FROM remote_orders WHERE amount > 98)}, undef);

# 5. USING columns of nested joins: the key is the join's own column,
# resolved to the customers' id.
my $using = q{SELECT id, a.city, o.amount FROM customers c JOIN addresses a USING (id)
	JOIN orders_by_customer o USING (id) WHERE c.region = 'EU'};
check('USING of a nested join', $using, $typed);
cmp_ok(shipped($using), '<', 1000, 'USING of a nested join: few rows cross');
my $using_left = q{SELECT id, a.city, o.amount FROM (customers c JOIN addresses a USING (id))
	LEFT JOIN orders_by_customer o USING (id) WHERE c.region = 'EU'};
check('USING of a nested join, outer', $using_left, $typed);
# a FULL join's merged column is of both sides: no key
check('USING of a nested full join', q{SELECT id, o.amount FROM (customers c FULL JOIN addresses a USING (id))
	JOIN orders_by_customer o USING (id) WHERE a.city = 'city 4'}, undef);

done_testing();
