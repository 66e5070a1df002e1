# Semijoin prefiltering through postgres_fdw between two servers: the probe
# bloom_contains(<filter>, remote column) must run on the remote server,
# with the filter arriving as a query parameter (an InitPlan) or as a
# literal, and the prefilter must return a superset of the exact semijoin.
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

# The remote server holds the big table.
$remote->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE orders (id int PRIMARY KEY, customer_id int, customer_name text, amount numeric);
	INSERT INTO orders
		SELECT g, g % 5000, 'customer ' || (g % 5000), g % 100
		FROM generate_series(1, 50000) g;
	ANALYZE orders;
});

# The local server holds the small selection and sees the remote table.
$local->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
} . foreign_server_sql('remote', $remote) . q{
	CREATE FOREIGN TABLE remote_orders (id int, customer_id int, customer_name text, amount numeric)
		SERVER remote OPTIONS (table_name 'orders');
	CREATE TABLE customers (id int PRIMARY KEY, name text, region text);
	INSERT INTO customers
		SELECT g, 'customer ' || g, CASE WHEN g % 50 = 0 THEN 'EU' ELSE 'US' END
		FROM generate_series(0, 9999) g;
	ANALYZE customers;
});

sub plan_of
{
	my ($query) = @_;
	return $local->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $query");
}

sub rows_of
{
	my ($query) = @_;
	return $local->safe_psql('postgres', $query);
}

my $eu_filter = q{(SELECT bloom_add_all(bloom_empty(1000, 0.01), array_agg(id)) FROM customers WHERE region = 'EU')};
my $eu_name_filter = q{(SELECT bloom_add_all(bloom_empty(1000, 0.01), array_agg(name)) FROM customers WHERE region = 'EU')};
my $exact = q{customer_id IN (SELECT id FROM customers WHERE region = 'EU')};

# 1. The filter as a parameter (an InitPlan sub-select).
my $prefilter = "SELECT id FROM remote_orders o WHERE bloom_contains($eu_filter, o.customer_id)";
like(remote_sql($local, $prefilter),
	qr/WHERE \(public\.bloom_contains\(\$1::public\.bloom, customer_id\)\)/,
	'InitPlan filter: the probe is in the Remote SQL, the filter is parameter $1');
my ($scan_part) = split(/InitPlan/, plan_of($prefilter));
unlike($scan_part, qr/^\s*Filter:/m, 'InitPlan filter: the foreign scan filters nothing locally');

my ($exact_count, $prefilter_count) = check_prefilter($local,
	table => 'remote_orders', rows => 50000, prefilter => $prefilter, exact => $exact,
	what => 'InitPlan filter');

# The usual form: the filter from bloom_agg, sized to the selection.
my $agg_prefilter = q{SELECT id FROM remote_orders o WHERE bloom_contains((SELECT bloom_agg(id) FROM customers WHERE region = 'EU'), o.customer_id)};
like(remote_sql($local, $agg_prefilter),
	qr/WHERE \(public\.bloom_contains\(\$1::public\.bloom, customer_id\)\)/,
	'bloom_agg filter: the probe is in the Remote SQL');
is(rows_of("SELECT count(*) FROM ($agg_prefilter) p JOIN remote_orders o USING (id) WHERE o.$exact"),
	$exact_count, 'bloom_agg filter: prefilter plus exact predicate is the semijoin');
# bloom_agg(value) meets fpp 0.01: allow twice that share of the other rows
cmp_ok(rows_of("SELECT count(*) FROM ($agg_prefilter) p"), '<', $exact_count + 0.02 * (50000 - $exact_count),
	'bloom_agg filter: false positives within twice its rate');

# 2. The filter as a literal (a constant folded at plan time).
my $literal_ids = rows_of("SELECT string_agg(id::text, ',') FROM customers WHERE region = 'EU'");
my $literal = "SELECT id FROM remote_orders o WHERE bloom_contains(bloom_add_all(bloom_empty(1000), '{$literal_ids}'::int[]), o.customer_id)";
like(remote_sql($local, $literal),
	qr/WHERE \(public\.bloom_contains\('[A-Za-z0-9+\/=]+'::public\.bloom, customer_id\)\)/,
	'literal filter: deparsed as a bloom literal in the Remote SQL');
is(rows_of("SELECT count(*) FROM ($literal) p"), $prefilter_count,
	'literal and parameter give the same rows');

# 3. Operators ship too.
like(remote_sql($local, "SELECT id FROM remote_orders o WHERE $eu_filter @> o.customer_id"),
	qr/\(\$1::public\.bloom OPERATOR\(public\.\@>\) customer_id\)/, 'operator @> ships');
like(remote_sql($local, "SELECT id FROM remote_orders o WHERE o.customer_id <@ $eu_filter"),
	qr/\(customer_id OPERATOR\(public\.<\@\) \$1::public\.bloom\)/, 'operator <@ ships');

# 4. Text keys: the probe's input collation is the remote column's (the
# default collation), which postgres_fdw accepts.
my $text_prefilter = "SELECT id FROM remote_orders o WHERE bloom_contains($eu_name_filter, o.customer_name)";
like(remote_sql($local, $text_prefilter),
	qr/WHERE \(public\.bloom_contains\(\$1::public\.bloom, customer_name\)\)/,
	'text key under the default collation: the probe ships');
is(rows_of("SELECT count(*) FROM ($text_prefilter) p JOIN remote_orders o USING (id) WHERE o.$exact"),
	$exact_count, 'text key: prefilter plus exact predicate is the semijoin');

# An explicit collation cannot be assumed to mean the same remotely, so
# postgres_fdw keeps that probe local; the answer is still right.
my $collated = "SELECT id FROM remote_orders o WHERE bloom_contains($eu_name_filter, o.customer_name COLLATE \"C\")";
unlike(remote_sql($local, $collated), qr/bloom_contains/, 'explicit COLLATE: the probe stays local');
is(rows_of("SELECT count(*) FROM ($collated) p"), rows_of("SELECT count(*) FROM ($text_prefilter) p"),
	'explicit COLLATE "C": same rows (deterministic collations hash alike)');

# 5. A join above the prefilter: only candidate rows cross, the join is exact.
my $join = "SELECT count(*) FROM customers c JOIN remote_orders o ON o.customer_id = c.id
	WHERE c.region = 'EU' AND bloom_contains($eu_filter, o.customer_id)";
like(remote_sql($local, $join), qr/bloom_contains\(\$1::public\.bloom, customer_id\)/,
	'join: the prefilter is pushed into the remote scan');
is(rows_of($join), rows_of("SELECT count(*) FROM customers c JOIN remote_orders o ON o.customer_id = c.id WHERE c.region = 'EU'"),
	'join with prefilter equals the join without it');

# 6. An empty selection: an empty filter passes nothing.
is(rows_of("SELECT count(*) FROM remote_orders o WHERE bloom_contains((SELECT bloom_add_all(bloom_empty(10), array_agg(id)) FROM customers WHERE region = 'nowhere'), o.customer_id)"),
	0, 'a NULL or empty filter passes nothing');

# 7. Without the extension listed, nothing ships (and results still agree).
$local->safe_psql('postgres', q{ALTER SERVER remote OPTIONS (DROP extensions)});
unlike(remote_sql($local, $prefilter), qr/bloom_contains/, 'without extensions option the probe stays local');
is(rows_of("SELECT count(*) FROM ($prefilter) p"), $prefilter_count, 'local evaluation gives the same rows');
$local->safe_psql('postgres', q{ALTER SERVER remote OPTIONS (ADD extensions 'bloomfilter')});

done_testing();
