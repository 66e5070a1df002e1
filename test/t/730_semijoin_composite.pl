# The automatic semijoin prefilter on composite keys: an equijoin on
# several columns with a foreign table gets one filter of the build side's
# key tuples (bloom_agg over bloom_tuple_hash), probed remotely with every
# key column (bloom_contains_tuple).  2 and 3 columns, mixed types, NULLs,
# duplicates, an outer join, a declared type that differs from the remote
# one (the remote side then passes every row), and the distinct count of
# the tuples from extended statistics.  Every result equals the one with
# the rewrite off.
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
# 200 stores x 100 days x 3 rows; a few rows with a NULL day
$remote->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE sales (store_id int, day date, region text, amount int, note text);
	INSERT INTO sales
		SELECT s, date '2020-01-01' + d, 'r' || (s % 7), r, 'note ' || s || '/' || d
		FROM generate_series(1, 200) s, generate_series(0, 99) d, generate_series(1, 3) r;
	INSERT INTO sales SELECT s, NULL, 'r' || (s % 7), 0, 'no day' FROM generate_series(1, 200) s;
	ANALYZE sales;
});

my $local = PostgreSQL::Test::Cluster->new('local');
$local->init;
$local->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'");
$local->start;
$local->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
} . foreign_server_sql('remote', $remote) . q{
	CREATE FOREIGN TABLE sales (store_id int, day date, region text, amount int, note text)
		SERVER remote OPTIONS (table_name 'sales');
	-- the same table, its day declared as text: read as the text of the date
	CREATE FOREIGN TABLE sales_text_day (store_id int, day text, region text, amount int, note text)
		SERVER remote OPTIONS (table_name 'sales');
	-- 1% of the (store, day) pairs, some twice, a few with NULLs; store_id
	-- a bigint (the remote's is an int)
	CREATE TABLE picks (store_id bigint, day date, region text, tag text);
	INSERT INTO picks
		SELECT s, date '2020-01-01' + (s * 37 + k * 11) % 100, 'r' || (s % 7), 'pick ' || k
		FROM generate_series(1, 200) s, generate_series(0, 0) k;
	INSERT INTO picks SELECT store_id, day, region, 'again' FROM picks WHERE store_id % 10 = 0;
	INSERT INTO picks VALUES (5, NULL, 'r5', 'null day'), (NULL, date '2020-01-02', 'r0', 'null store');
	-- 5,000 visits of 200 (store, day) pairs: day follows store
	CREATE TABLE visits (store_id int, day date, n int);
	INSERT INTO visits SELECT g % 200 + 1, date '2020-01-01' + (g % 200) % 100, g
		FROM generate_series(1, 5000) g;
	ANALYZE sales, sales_text_day, picks, visits;
});

my $tuple_probe = qr/bloom_contains_tuple\(\$\d+::public\.bloom, '\{integer,pg_catalog\.date\}'::text\[\], '\w+'::text, store_id, day\)/;

# The rows the foreign scan of $query received.
sub shipped
{
	my ($query, $setup) = @_;
	$setup //= '';
	my $plan = $local->safe_psql('postgres',
		"$setup; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query");
	my ($rows) = $plan =~ /Foreign Scan on (?:public\.)?\w+ s \(actual rows=(\d+)/;
	return $rows // -1;
}

sub decisions
{
	my ($query) = @_;
	my ($ret, $out, $err) = $local->psql('postgres',
		"SET bloomfilter.semijoin_log = notice; EXPLAIN $query");
	return $err;
}

sub check
{
	my ($what, $query, $setup) = @_;
	my ($off, $on, $sql) = semijoin_both_ways($local, $query, $setup);
	isnt($off, '', "$what: the query returns rows");
	is($on, $off, "$what: the same rows with the rewrite on and off");
	return $sql;
}

# 1. Two columns, store_id bigint locally against the remote's int.
my $two = q{SELECT p.tag, s.amount, s.note FROM picks p
	JOIN sales s ON s.store_id = p.store_id AND s.day = p.day};
my $sql = check('two columns', $two);
like($sql, $tuple_probe, 'two columns: one filter of both columns in the Remote SQL');
unlike($sql, qr/bloom_contains_typed/, 'two columns: no single-column filter beside it');
my $rows = shipped($two);
# 200 pairs x 3 rows match; the per-column filters would pass 20,000 and more
cmp_ok($rows, '>=', 600, 'two columns: every matching row crosses');
cmp_ok($rows, '<', 1200, 'two columns: few others cross');
my $log = decisions($two);
like($log, qr/added semijoin prefilter on sales\.\(store_id, day\) from picks\.\(store_id, day\)/,
	'two columns: the log names the composite key');
# every store and every day occurs among the picks: each column alone passes all
like($log, qr/no semijoin prefilter on sales\.store_id from picks\.store_id: the filter would pass too many rows/,
	'two columns: a filter of one column would pass every row');

# 2. Three columns, the third a text; written in the other order.
my $three = q{SELECT p.tag, s.amount FROM sales s, picks p
	WHERE p.day = s.day AND s.region = p.region AND p.store_id = s.store_id};
$sql = check('three columns', $three);
like($sql, qr/bloom_contains_tuple\(\$\d+::public\.bloom, '\{pg_catalog\.date,pg_catalog\.text,integer\}'::text\[\], '\w+'::text, day, region, store_id\)/,
	'three columns: one filter of the three columns');
$rows = shipped($three);
cmp_ok($rows, '<', 1200, 'three columns: few rows cross');

# 3. NULLs: a NULL in a key column matches nothing, on either side; the
# outer join keeps the picks without a partner.
check('NULLs, inner join', q{SELECT p.tag, s.note FROM picks p
	JOIN sales s ON s.store_id = p.store_id AND s.day = p.day WHERE p.day IS NULL OR p.store_id < 50});
my $outer = q{SELECT p.tag, p.store_id, s.note FROM picks p
	LEFT JOIN sales s ON s.store_id = p.store_id AND s.day = p.day};
$sql = check('NULLs, outer join', $outer);
like($sql, $tuple_probe, 'outer join: the nullable side is filtered');
like($local->safe_psql('postgres', "SELECT count(*) FROM ($outer) q WHERE q.note IS NULL"), qr/^2$/,
	'outer join: the picks with a NULL key keep their row');

# 4. Duplicates: every pair of "again" picks joins twice.
check('duplicates', q{SELECT p.tag, s.amount FROM picks p
	JOIN sales s ON s.store_id = p.store_id AND s.day = p.day WHERE p.tag = 'again'});

# 5. A declared type that differs: day declared text over a remote date.
# The probe ships, and the remote side passes every row (a remote date
# hashes otherwise than its text); the result is the join's.
my $text_day = q{SELECT p.tag, s.amount FROM picks p
	JOIN sales_text_day s ON s.store_id = p.store_id AND s.day = p.day::text};
check('declared type differs', $text_day);
$rows = shipped($text_day);
is($rows, 60200, 'declared type differs: the remote side passes every row');

# 6. The tuples' distinct count: from extended statistics where they cover
# the columns (visits has 200 pairs; the columns alone say 200 x 100).
my $visits = q{SELECT v.n, s.amount FROM visits v
	JOIN sales s ON s.store_id = v.store_id AND s.day = v.day WHERE v.n < 2500};
my ($keys_plain) = decisions($visits) =~ /sales\.\(store_id, day\) from visits\.\(store_id, day\).*?build rows \d+, keys (\d+)/s;
$local->safe_psql('postgres', 'CREATE STATISTICS visits_pairs (ndistinct) ON store_id, day FROM visits; ANALYZE visits');
my ($keys_stats) = decisions($visits) =~ /sales\.\(store_id, day\) from visits\.\(store_id, day\).*?build rows \d+, keys (\d+)/s;
# the columns alone: 200 x 100, capped by the planner at a tenth of the rows
cmp_ok($keys_plain // 0, '>', 400, 'distinct tuples: the columns\' product without extended statistics');
cmp_ok($keys_stats // 1e9, '<=', 250, 'distinct tuples: from the ndistinct statistics');
check('extended statistics', $visits);

# 7. The functions themselves: the tuple hash agrees across integer widths,
# differs with the order, is NULL with a NULL; the probe of a tuple.
is($local->safe_psql('postgres', q{SELECT bloom_tuple_hash(5, date '2020-01-02') = bloom_tuple_hash(5::bigint, date '2020-01-02'),
	bloom_tuple_hash(1, 2) = bloom_tuple_hash(2, 1), bloom_tuple_hash(1, NULL::int) IS NULL}),
	't|f|t', 'bloom_tuple_hash: integer widths alike, order matters, NULL');
is($local->safe_psql('postgres', q{WITH f AS (SELECT bloom_agg(bloom_tuple_hash(store_id, day), 1000, 0.0001) f FROM picks)
	SELECT bloom_contains_tuple(f, '{integer,pg_catalog.date}', 'UTF8', 1::int, day),
	       bloom_contains_tuple(f, '{integer,pg_catalog.date}', 'UTF8', 1::int, day + 1),
	       bloom_contains_tuple(f, '{integer,pg_catalog.date}', 'UTF8', 1::int, NULL::date) IS NULL,
	       bloom_contains_tuple(f, '{numeric,pg_catalog.date}', 'UTF8', 1::int, day + 1)
	FROM f, picks WHERE store_id = 1}),
	't|f|t|t', 'bloom_contains_tuple: members, non-members, NULL, a type that differs passes');
# the same probe of the layout the rewrite builds (blocked)
is($local->safe_psql('postgres', q{WITH f AS (SELECT bloom_agg(bloom_tuple_hash(store_id, day), 1000, 0.0001, 'blocked') f FROM picks)
	SELECT bloom_contains_tuple(f, '{integer,pg_catalog.date}', 'UTF8', 1::int, day),
	       bloom_contains_tuple(f, '{integer,pg_catalog.date}', 'UTF8', 1::int, day + 1),
	       bloom_contains_tuple(f, '{integer,pg_catalog.date}', 'UTF8', 1::int, NULL::date) IS NULL
	FROM f, picks WHERE store_id = 1}),
	't|f|t', 'bloom_contains_tuple on a blocked filter: members, non-members, NULL');
my $build = $local->safe_psql('postgres', qq{EXPLAIN (VERBOSE, COSTS OFF) $visits});
like($build, qr/bloom_agg\(bloom_tuple_hash\(v(_\d+)?\.store_id, v(_\d+)?\.day\), '?\d+'?(::bigint)?, '?[0-9.e-]+'?(::double precision)?, 'blocked'::text\)/,
	'the composite filter is built in the blocked layout');
my ($ret, $out, $err) = $local->psql('postgres', q{SELECT bloom_tuple_hash(VARIADIC ARRAY[1, 2])});
like($err, qr/separate values/, 'bloom_tuple_hash: a VARIADIC array is refused');

done_testing();
