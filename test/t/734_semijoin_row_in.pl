# The automatic semijoin prefilter on a row comparison with a sub-select:
# (a, b) IN (SELECT x, y FROM ...) and (a, b) = ANY (SELECT x, y FROM ...),
# the foreign table inside the sub-select (probed with the outer relation's
# key tuples) or outside it (probed with the sub-select's).  One filter of
# the key tuples (bloom_tuple_hash, probed by bloom_contains_tuple), built
# in the blocked layout.  Also expression keys within a composite key (a
# join and a row IN), shippable and not.  Every result equals the one with
# the rewrite off; NOT IN is left alone.
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
	CREATE TABLE orders (id int, customer_id int, zone text, amount int, big bigint);
	INSERT INTO orders
		SELECT g, g % 10000, CASE WHEN g % 997 = 0 THEN NULL ELSE 'z' || (g % 3) END,
			(g / 7) % 100, g % 10000 FROM generate_series(1, 50000) g;
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
	CREATE FOREIGN TABLE remote_orders (id int, customer_id int, zone text, amount int, big bigint)
		SERVER remote OPTIONS (table_name 'orders');
	-- 1% of the customers in region EU; some zones NULL, some rows twice
	CREATE TABLE customers (id int, region text, zone text, n int, big bigint);
	INSERT INTO customers SELECT g, CASE WHEN g % 100 = 0 THEN 'EU' ELSE 'US' END,
		CASE WHEN g % 700 = 0 THEN NULL ELSE 'z' || (g % 2) END, g % 100, g
		FROM generate_series(0, 9999) g;
	INSERT INTO customers SELECT * FROM customers WHERE id % 300 = 0;
	ANALYZE remote_orders, customers;
});

my $pair = qr/bloom_contains_tuple\(\$\d+::public\.bloom, '\{integer,pg_catalog\.text\}'::text\[\], '\w+'::text, customer_id, zone\)/;

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

# 1. A row IN with the foreign table inside: one filter of the pairs.
my $in = q{SELECT c.id, c.zone FROM customers c
	WHERE c.region = 'EU' AND (c.id, c.zone) IN (SELECT customer_id, zone FROM remote_orders WHERE amount > 10)};
check('row IN', $in, $pair);
cmp_ok(shipped($in), '<', 1000, 'row IN: few rows cross');
my $log = decisions($in);
like($log, qr/added semijoin prefilter on remote_orders\.\(customer_id, zone\) from customers\.\(id, zone\)/,
	'row IN: the composite filter is added');
is(scalar(() = $log =~ /semijoin prefilter on remote_orders\.\(customer_id, zone\)/g), 1,
	'row IN: one composite candidate');
my $plan = $local->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $in");
like($plan, qr/bloom_agg\(bloom_tuple_hash\(c(_\d+)?\.id, c(_\d+)?\.zone\), '?\d+'?(::bigint)?, '?[0-9.e-]+'?(::double precision)?, 'blocked'::text\)/,
	'row IN: the filter of the outer pairs, in the blocked layout');

# 2. The same as = ANY, and with the columns in another order.
check('row = ANY', q{SELECT c.id, c.zone FROM customers c
	WHERE c.region = 'EU' AND (c.id, c.zone) = ANY (SELECT customer_id, zone FROM remote_orders)}, $pair);
check('row IN, columns in another order', q{SELECT c.id, c.zone FROM customers c
	WHERE c.region = 'EU' AND (c.zone, c.id) IN (SELECT zone, customer_id FROM remote_orders)},
	qr/bloom_contains_tuple\(\$\d+::public\.bloom, '\{pg_catalog\.text,integer\}'::text\[\], '\w+'::text, zone, customer_id\)/);

# 3. Three columns of mixed types, an int8 outer key against an int4
# remote column and an int4 against an int8: integers hash alike.
my $three = q{SELECT c.id, c.zone, c.n FROM customers c
	WHERE c.region = 'EU' AND (c.big, c.zone, c.id) IN (SELECT customer_id, zone, big FROM remote_orders)};
check('row IN on three columns, mixed types', $three,
	qr/bloom_contains_tuple\(\$\d+::public\.bloom, '\{integer,pg_catalog\.text,bigint\}'::text\[\], '\w+'::text, customer_id, zone, big\)/);
cmp_ok(shipped($three), '<', 1000, 'row IN on three columns: few rows cross');

# 4. The foreign table outside: probed with the sub-select's pairs.
my $outside = q{SELECT o.id, o.amount FROM remote_orders o
	WHERE (o.customer_id, o.zone) IN (SELECT id, zone FROM customers WHERE region = 'EU')};
check('row IN, the foreign table outside', $outside, $pair);
cmp_ok(shipped($outside), '<', 1000, 'row IN, the foreign table outside: few rows cross');

# 5. Left alone: NOT IN, and a row IN whose sub-select is not one plain
# relation (an aggregate).
check('row NOT IN', q{SELECT c.id FROM customers c
	WHERE c.region = 'EU' AND (c.id, c.zone) NOT IN (SELECT customer_id, zone FROM remote_orders WHERE amount > 98)}, undef);
check('row IN over a grouped sub-select', q{SELECT c.id FROM customers c
	WHERE c.region = 'EU' AND (c.id, c.zone) IN (SELECT customer_id, min(zone) FROM remote_orders GROUP BY customer_id)}, undef);

# 6. Expressions inside composite keys: a shippable expression of the
# remote column is probed as the expression; one that postgres_fdw cannot
# ship leaves the composite to the other columns.
$local->safe_psql('postgres', q{CREATE FUNCTION local_upper(text) RETURNS text
	LANGUAGE sql IMMUTABLE AS 'SELECT upper($1)'});
my $expr_join = q{SELECT c.id, o.amount FROM customers c
	JOIN remote_orders o ON o.customer_id = c.id AND upper(o.zone) = upper(c.zone) WHERE c.region = 'EU'};
check('composite join key with an expression', $expr_join,
	qr/bloom_columns_agree\('\{pg_catalog\.text\}'::text\[\], '\w+'::text, zone\)\) OR public\.bloom_contains_tuple\(\$\d+::public\.bloom, '\{integer,pg_catalog\.text\}'::text\[\], '\w+'::text, customer_id, upper\(zone::text\)\)/);
cmp_ok(shipped($expr_join), '<', 1000, 'composite join key with an expression: few rows cross');
like(decisions($expr_join),
	qr/added semijoin prefilter on remote_orders\.\(customer_id, upper\(zone\)\) from customers\.\(id, upper\(zone\)\)/,
	'composite join key with an expression: the log names the expression');
check('row IN with an expression', q{SELECT c.id, c.zone FROM customers c
	WHERE c.region = 'EU' AND (c.id, upper(c.zone)) IN (SELECT customer_id, upper(zone) FROM remote_orders)},
	qr/bloom_columns_agree\('\{pg_catalog\.text\}'::text\[\], '\w+'::text, zone\)\) OR public\.bloom_contains_tuple\(\$\d+::public\.bloom, '\{integer,pg_catalog\.text\}'::text\[\], '\w+'::text, customer_id, upper\(zone::text\)\)/);
my $local_fn = q{SELECT c.id, o.amount FROM customers c
	JOIN remote_orders o ON o.customer_id = c.id AND local_upper(o.zone) = upper(c.zone) WHERE c.region = 'EU'};
my ($off, $on, $sql) = semijoin_both_ways($local, $local_fn);
is($on, $off, 'composite key with an unshippable expression: the same rows');
unlike($sql, qr/bloom_contains_tuple/, 'composite key with an unshippable expression: no tuple filter');
like($sql, qr/bloom_contains_typed\(\$\d+::public\.bloom, customer_id, 'integer'::text/,
	'composite key with an unshippable expression: the filter of the other column');

done_testing();
