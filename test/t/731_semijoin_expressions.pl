# The automatic semijoin prefilter on expression keys: the filter is built
# over the build side's expression and probed over the foreign side's
# expression when postgres_fdw ships it (immutable, built in or of an
# extension the server lists); otherwise the rewrite declines, with the
# reason in its log.  Every result equals the one with the rewrite off.
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
	CREATE TABLE orders (id int, customer_id bigint, email text, ts timestamp, tstz timestamptz, note text);
	INSERT INTO orders
		SELECT g, g % 10000, 'user' || (g % 10000) || '@example.com',
			timestamp '2024-01-01' + (g % 1000) * interval '1 day' + (g % 86400) * interval '1 second',
			timestamptz '2024-01-01 00:00+00' + (g % 1000) * interval '1 day',
			'order ' || g
		FROM generate_series(1, 50000) g;
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
	CREATE FOREIGN TABLE orders (id int, customer_id bigint, email text, ts timestamp, tstz timestamptz, note text)
		SERVER remote OPTIONS (table_name 'orders');
	-- e-mail addresses in mixed case; 1% of the customers in region EU
	CREATE TABLE customers (id int, email text, region text);
	INSERT INTO customers
		SELECT g, CASE WHEN g % 2 = 0 THEN 'USER' ELSE 'User' END || g || '@Example.com',
			CASE WHEN g % 100 = 0 THEN 'EU' ELSE 'US' END
		FROM generate_series(0, 9999) g;
	-- ten days
	CREATE TABLE days (day timestamp, daytz timestamptz, dday date, label text);
	INSERT INTO days SELECT timestamp '2024-01-01' + g * interval '100 days',
		timestamptz '2024-01-01 00:00+00' + g * interval '100 days', date '2024-01-01' + g * 100,
		'day ' || g FROM generate_series(0, 9) g;
	-- immutable, but not built in nor of an extension the server lists
	CREATE FUNCTION norm(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT lower($1)';
	ANALYZE orders, customers, days;
});

sub decisions
{
	my ($query) = @_;
	my ($ret, $out, $err) = $local->psql('postgres',
		"SET bloomfilter.semijoin_log = notice; EXPLAIN $query");
	return $err;
}

sub shipped
{
	my ($query) = @_;
	my $plan = $local->safe_psql('postgres', "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query");
	my ($rows) = $plan =~ /Foreign Scan on (?:public\.)?orders o \(actual rows=(\d+)/;
	return $rows // -1;
}

# $query: the same rows with the rewrite on and off; the filter in the
# Remote SQL (matching $probe) or not (if $probe is undef).
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

# 1. An expression of the build side: lower(c.email).
my $lower = q{SELECT c.id, o.id, o.note FROM customers c JOIN orders o ON lower(c.email) = o.email WHERE c.region = 'EU'};
check('lower() of the build side', $lower,
	qr/bloom_contains_typed\(\$\d+::public\.bloom, email, 'pg_catalog\.text'::text/);
like(decisions($lower), qr/added semijoin prefilter on orders\.email from customers\.lower\(email\)/,
	'lower() of the build side: the log names the expression');
cmp_ok(shipped($lower), '<', 1000, 'lower() of the build side: few rows cross');

# 2. A cast of the build side: c.id::bigint against the remote bigint.
check('cast of the build side', q{SELECT c.id, o.id FROM customers c JOIN orders o ON o.customer_id = c.id::bigint WHERE c.region = 'EU'},
	qr/bloom_contains_typed\(\$\d+::public\.bloom, customer_id, 'bigint'::text/);

# 3. An expression of the foreign side: o.ts::date, immutable and built in:
# probed remotely.
my $cast = q{SELECT d.label, o.id FROM days d JOIN orders o ON o.ts::date = d.dday};
check('a cast of the foreign side', $cast,
	qr/NOT public\.bloom_columns_agree\('\{"timestamp without time zone"\}'::text\[\], '\w+'::text, ts\)\) OR public\.bloom_contains_typed\(\$\d+::public\.bloom, ts::timestamp without time zone::date, 'pg_catalog\.date'::text/);
cmp_ok(shipped($cast), '<', 1000, 'a cast of the foreign side: few rows cross');

# date_trunc('day', o.ts): immutable and built in, but its text argument
# has the default collation, which some majors of postgres_fdw do not
# ship; the plan is asked: the filter is in the Remote SQL, or declined as
# kept local.
my $trunc = q{SELECT d.label, o.id FROM days d JOIN orders o ON date_trunc('day', o.ts) = d.day};
my ($off, $on, $sql) = semijoin_both_ways($local, $trunc);
isnt($off, '', 'date_trunc() of the foreign side: the query returns rows');
is($on, $off, 'date_trunc() of the foreign side: the same rows with the rewrite on and off');
if ($sql =~ /bloom_contains/)
{
	like($sql, qr/bloom_contains_typed\(\$\d+::public\.bloom, date_trunc\('day'::text, ts\), 'timestamp without time zone'::text/,
		'date_trunc() of the foreign side: the filter is in the Remote SQL');
}
else
{
	like(decisions($trunc), qr/no semijoin prefilter on orders\.date_trunc\('day'::text, ts\) from days\.day: postgres_fdw does not ship a probe/,
		'date_trunc() of the foreign side: declined as kept local');
}

# 4. Not shipped: a function of no listed extension, and a stable one
# (date_trunc of a timestamptz depends on the time zone).
my $norm = q{SELECT c.id, o.id FROM customers c JOIN orders o ON norm(o.email) = lower(c.email) WHERE c.region = 'EU'};
check('a function postgres_fdw does not ship', $norm, undef);
like(decisions($norm), qr/no semijoin prefilter on orders\.norm\(email\) from customers\.lower\(email\): the key expression uses a function, operator or type that postgres_fdw does not ship/,
	'a function postgres_fdw does not ship: the reason is logged');
my $stable = q{SELECT d.label, o.id FROM days d JOIN orders o ON date_trunc('day', o.tstz) = d.daytz};
check('a stable expression', $stable, undef);
like(decisions($stable), qr/no semijoin prefilter on orders\.date_trunc\('day'::text, tstz\) from days\.daytz: the key expression is not immutable/,
	'a stable expression: the reason is logged');

# 5. An expression on both sides, and one over two columns of the foreign table.
check('expressions on both sides', q{SELECT c.id, o.id FROM customers c JOIN orders o ON upper(o.email) = upper(c.email) WHERE c.region = 'EU'},
	qr/bloom_columns_agree\('\{pg_catalog\.text\}'::text\[\], '\w+'::text, email\)\) OR public\.bloom_contains_typed\(\$\d+::public\.bloom, upper\(email::text\)/);
# over two columns, the expression has no statistics: the rule cannot count its keys
my $two = q{SELECT c.id, o.id FROM customers c JOIN orders o ON o.customer_id + o.id = c.id::bigint WHERE c.region = 'EU'};
check('two columns in one expression', $two, undef);
like(decisions($two), qr/no semijoin prefilter on orders\.\(customer_id \+ id\) from customers\.\(id\)::bigint: the foreign key column has no statistics/,
	'two columns in one expression: declined for want of statistics');

done_testing();
