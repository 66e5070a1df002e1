# The automatic semijoin prefilter never changes a result (doc/semijoin.md,
# "Which value each side hashes"): the filter is shipped, or its build
# pushed to a server, only where the value the local side hashes (the join
# operator's input, after every cast the local executor applies) is
# proven the value the remote side hashes; elsewhere it is declined, with
# the reason in the log, or the remote side passes every row.  Five kinds
# of schemas that once changed results or failed:
#
#   1. keys over relations that are not tables (functions, VALUES,
#      sub-selects, CTEs): declined, never an error;
#   2. a foreign build side whose column is declared text over a remote
#      uuid: built locally, not by a bloom_agg pushed to its server;
#   3. an implicit cast on a foreign build key (int8 -> numeric), which
#      postgres_fdw drops when it writes SQL: built locally;
#   4. char(8) declared over a remote text, compared as text (an implicit
#      cast of the probe column): the cast is shipped explicitly and the
#      remote side checks the column's real type;
#   5. expression keys over columns declared with another type than the
#      remote ones: the same check, every column the expression reads.
#
# Every assertion compares the result with the rewrite on to the result
# with it off, and says whether the filter fired.  Three servers: the
# local one, "ra" (the probe sides) and "rb" (foreign build sides).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomFdw;

my $ra = PostgreSQL::Test::Cluster->new('ra');
$ra->init;
$ra->start;
my $rb = PostgreSQL::Test::Cluster->new('rb');
$rb->init;
$rb->start;
my $local = PostgreSQL::Test::Cluster->new('local');
$local->init;
$local->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'");
$local->start;

my $rows = 4000;

# The probe sides: 400 distinct keys in every column (g % 400); half the
# text keys carry trailing spaces.
$ra->safe_psql('postgres', qq{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE pt AS SELECT g,
		'k' || g % 400 || CASE WHEN g % 2 = 0 THEN '  ' ELSE '' END AS kpad,
		('k' || g % 400)::char(8) AS kch,
		('K' || g % 400 || CASE WHEN g % 2 = 0 THEN ' ' ELSE '' END)::varchar(12) AS vpad,
		md5((g % 400)::text)::uuid AS u,
		md5((g % 400)::text)::uuid::text AS utext,
		(g % 400)::numeric AS n,
		(g % 400)::int4 AS i4,
		(g % 400)::int2 AS i2,
		(g % 200)::int4 AS z,
		((g % 400) / 4.0)::numeric(10,2) AS n2,
		CASE WHEN g % 2 = 0 THEN 'Key' ELSE 'KEY' END || g % 400 AS nm
	FROM generate_series(1, $rows) g;
	ANALYZE pt;
});

# The foreign build sides: 20 keys of 400, 40 rows.
$rb->safe_psql('postgres', qq{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE bt AS SELECT g, (g % 20)::int8 AS i, md5((g % 20)::text)::uuid AS u,
		(g % 20)::int4 AS i2
	FROM generate_series(1, 40) g;
	ANALYZE bt;
	CREATE TABLE bu AS SELECT g, md5((g % 400)::text)::uuid AS u FROM generate_series(1, $rows) g;
	ANALYZE bu;
});

# A chain: ra's foreign table over rb's uuid column, declared text there
# as here.
$ra->safe_psql('postgres', q{CREATE EXTENSION postgres_fdw;} . foreign_server_sql('rb', $rb) . q{
	CREATE FOREIGN TABLE ft_bu (g int, u text) SERVER rb OPTIONS (table_name 'bu');
});

$local->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
	ALTER DATABASE postgres SET bloomfilter.semijoin_min_rows_saved = 1000;
} . foreign_server_sql('ra', $ra) . foreign_server_sql('rb', $rb) . q{
	-- class 4: char(8) declared over a remote text with trailing spaces;
	-- and over a remote char(8) (the types agree)
	CREATE FOREIGN TABLE f_ch (g int, k char(8) OPTIONS (column_name 'kpad'), z int)
		SERVER ra OPTIONS (table_name 'pt');
	CREATE FOREIGN TABLE f_chok (g int, k char(8) OPTIONS (column_name 'kch'), z int)
		SERVER ra OPTIONS (table_name 'pt');
	-- class 5: char(8) over a remote varchar; text over a remote uuid
	CREATE FOREIGN TABLE f_vc (g int, k char(8) OPTIONS (column_name 'vpad'))
		SERVER ra OPTIONS (table_name 'pt');
	CREATE FOREIGN TABLE f_u (g int, u text) SERVER ra OPTIONS (table_name 'pt');
	-- class 5: numeric(10,1) over a remote numeric(10,2) (read rounded)
	CREATE FOREIGN TABLE f_n (g int, n numeric(10,1) OPTIONS (column_name 'n2'))
		SERVER ra OPTIONS (table_name 'pt');
	CREATE TABLE ln1 AS SELECT ((g / 4.0)::numeric(10,2))::numeric(10,1) AS n
		FROM generate_series(0, 19) g;
	-- class 5: a nondeterministic collation declared over the remote default
	CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
	CREATE FOREIGN TABLE f_ci (g int, k text OPTIONS (column_name 'nm') COLLATE ci)
		SERVER ra OPTIONS (table_name 'pt');
	CREATE TABLE lci (k text COLLATE ci);
	INSERT INTO lci SELECT 'KEY' || g FROM generate_series(0, 19) g;
	-- classes 2 and 3: probe sides on ra, foreign build sides on rb
	CREATE FOREIGN TABLE fp (g int, n numeric, utext text, i2 int2, i4 int4) SERVER ra OPTIONS (table_name 'pt');
	CREATE FOREIGN TABLE fb (g int, i int8, u text, i2 int2) SERVER rb OPTIONS (table_name 'bt');
	-- a chain: over ra's foreign table ft_bu, over rb's uuid
	CREATE FOREIGN TABLE f_chain (g int, u text) SERVER ra OPTIONS (table_name 'ft_bu');
	-- local build sides
	CREATE TABLE l (k text, z int);
	INSERT INTO l SELECT 'k' || g, g % 200 FROM generate_series(0, 19) g;
	CREATE TABLE lu (u text);
	INSERT INTO lu SELECT upper(md5(g::text)::uuid::text) FROM generate_series(0, 19) g;
	CREATE TABLE ln (n numeric);
	INSERT INTO ln SELECT g FROM generate_series(0, 19) g;
	ANALYZE f_ch, f_chok, f_vc, f_u, f_n, f_ci, fp, fb, f_chain, l, lu, ln, ln1, lci;
});

# The rows of $query (sorted lines), or its error, after $setup.
sub result
{
	my ($query, $setup) = @_;
	my ($ret, $out, $err) = $local->psql('postgres',
		"$setup; SELECT string_agg(q::text, E'\\n' ORDER BY q::text) FROM ($query) q");
	return $ret == 0 ? $out : "ERROR: $err";
}

# The semijoin log of planning $query, and its Remote SQL lines.
sub decisions
{
	my ($query, $setup) = @_;
	$setup //= '';
	my ($ret, $out, $err) = $local->psql('postgres',
		"$setup; SET bloomfilter.semijoin_log = notice; EXPLAIN (VERBOSE, COSTS OFF) $query");
	my $sql = join("\n", grep { /Remote SQL:/ } split(/\n/, $out));
	return ($ret == 0 ? $err : "ERROR: $err", $sql);
}

# $query: the same rows (not none) with the rewrite on and off; then the
# filter fired (the log says "added", the Remote SQL matches $probe) or,
# if $probe is undef, was declined (matching $why in the log).
sub check
{
	my ($what, $query, $probe, $why) = @_;
	my $off = result($query, 'SET bloomfilter.semijoin_prefilter = off');
	my $on = result($query, 'SET bloomfilter.semijoin_prefilter = on');
	isnt($off, '', "$what: the query returns rows");
	is($on, $off, "$what: the same rows with the rewrite on and off");
	my ($log, $sql) = decisions($query);
	if (defined $probe)
	{
		like($log, qr/added semijoin prefilter/, "$what: the filter fired");
		like($sql, $probe, "$what: the Remote SQL holds the probe");
	}
	else
	{
		unlike($log, qr/added semijoin prefilter/, "$what: the filter was declined");
		like($log, $why, "$what: the log gives the reason") if defined $why;
	}
}

# Rows a foreign scan of $query on $alias fetched, the rewrite on.
sub fetched
{
	my ($query, $alias) = @_;
	my $plan = $local->safe_psql('postgres',
		"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query");
	my ($n) = $plan =~ /Foreign Scan on \S+ $alias \(actual rows=([\d.]+)/;
	return defined $n ? int($n) : -1;
}

# The checked probe of an expression: the columns' gate before it.
my $gated = qr/bloom_columns_agree\(.*bloom_contains_typed/;

# ---------------------------------------------------------------------
# 1. Keys over relations that are not tables: declined, never an error.
# ---------------------------------------------------------------------
my $not_table = qr/not a table/;
check('1. generate_series, abs(s.id)',
	'SELECT count(*) FROM generate_series(0, 20) s(id) JOIN fp f ON f.i4 = abs(s.id)',
	undef, $not_table);
check('1. VALUES, abs(v.id)',
	'SELECT f.g FROM (VALUES (1), (-2), (3)) v(id) JOIN fp f ON f.i4 = abs(v.id)',
	undef, $not_table);
check('1. a sub-select in FROM, abs(s.id)',
	'SELECT f.g FROM (SELECT z - 5 AS id FROM l) s JOIN fp f ON f.i4 = abs(s.id)',
	undef, $not_table);
check('1. a CTE, abs(c.id)',
	'WITH c AS MATERIALIZED (SELECT z - 5 AS id FROM l) SELECT f.g FROM c JOIN fp f ON f.i4 = abs(c.id)',
	undef, $not_table);
# a column of a join's alias is its table's column: filtered
check('1. a join in FROM, abs(j.id)',
	'SELECT f.g FROM (l JOIN ln ON ln.n = l.z) j(k, id) JOIN fp f ON f.i4 = abs(j.id)',
	qr/bloom_contains_typed/);
check('1. generate_series, IN',
	'SELECT f.g FROM fp f WHERE f.i4 IN (SELECT abs(s.id) FROM generate_series(-5, 5) s(id))',
	undef);

# ---------------------------------------------------------------------
# 2 and 3. Foreign build sides: the filter is built locally.
# ---------------------------------------------------------------------
# The build's scan on rb must not run bloom_agg: it fetches the keys.
sub built_locally
{
	my ($what, $query) = @_;
	my ($log, $sql) = decisions($query);
	unlike($sql, qr/bloom_agg/, "$what: bloom_agg is not pushed to the build side's server");
}

my $q = 'SELECT fp.g FROM fp JOIN fb ON fp.utext = fb.u';
check('2. text over a remote uuid, foreign build', $q, qr/bloom_contains_typed/);
built_locally('2. text over a remote uuid, foreign build', $q);
$q = 'SELECT fp.g FROM fp JOIN fb ON fp.n = fb.i';
check('3. numeric = int8 (fb.i::numeric), foreign build', $q, qr/bloom_contains_typed/);
built_locally('3. numeric = int8 (fb.i::numeric), foreign build', $q);
cmp_ok(fetched($q, 'fp'), '<', $rows / 4, '3. the filter built locally prunes');
$q = 'SELECT fp.g FROM fp JOIN fb ON (fb.i2 + 1) = (fp.i2 + 1)';
check('3. (i2 + 1) = (i2 + 1), foreign build', $q, qr/bloom_contains_typed/);
built_locally('3. (i2 + 1) = (i2 + 1), foreign build', $q);
$q = 'SELECT fp.g FROM fp WHERE fp.utext IN (SELECT u FROM fb WHERE g < 30)';
check('2. IN, foreign build', $q, qr/bloom_contains_typed/);
built_locally('2. IN, foreign build', $q);
# the sub-select's column through the parser's cast (i::numeric)
$q = 'SELECT fp.g FROM fp WHERE fp.n IN (SELECT i FROM fb WHERE g < 30)';
check('3. IN over a cast of the sub-select\'s column, foreign build', $q, qr/bloom_contains_typed/);
built_locally('3. IN over a cast of the sub-select\'s column, foreign build', $q);
$q = 'SELECT fp.g FROM fp WHERE EXISTS (SELECT 1 FROM fb WHERE fb.i = fp.n)';
check('3. EXISTS, foreign build', $q, qr/bloom_contains_typed/);
$q = 'SELECT fp.g FROM fp JOIN fb ON fp.n = fb.i AND fp.utext = fb.u';
check('2+3. composite key, foreign build', $q, qr/bloom_contains_tuple/);
built_locally('2+3. composite key, foreign build', $q);

# ---------------------------------------------------------------------
# 4. char(8) declared over a remote text: f.k = l.k is f.k::text = l.k.
# ---------------------------------------------------------------------
my %form = (
	'JOIN' => 'SELECT f.g, f.k FROM l JOIN %s f ON f.k = l.k',
	'LEFT JOIN' => 'SELECT l.k, f.g FROM l LEFT JOIN %s f ON f.k = l.k',
	'IN' => 'SELECT f.g FROM %s f WHERE f.k IN (SELECT k FROM l)',
	'EXISTS' => 'SELECT f.g FROM %s f WHERE EXISTS (SELECT 1 FROM l WHERE l.k = f.k)',
	'IN, the foreign table inside' => 'SELECT l.k FROM l WHERE l.k IN (SELECT k FROM %s f WHERE f.g > 10)',
	'composite key' => 'SELECT f.g FROM l JOIN %s f ON f.k = l.k AND f.z = l.z',
	'row comparison' => 'SELECT f.g FROM %s f WHERE (f.k, f.z) IN (SELECT k, z FROM l)',
);
for my $name (sort keys %form)
{
	check("4. char(8) over text, $name", sprintf($form{$name}, 'f_ch'),
		$name =~ /composite|row/ ? qr/bloom_columns_agree\(.*bloom_contains_tuple/ : $gated);
	check("4. char(8) over char(8), $name", sprintf($form{$name}, 'f_chok'),
		$name =~ /composite|row/ ? qr/bloom_contains_tuple/ : $gated);
}
# where the types agree the remote side prunes; elsewhere it passes all
$q = sprintf($form{JOIN}, 'f_chok');
cmp_ok(fetched($q, 'f'), '<', $rows / 4, '4. char(8) over char(8): the remote side prunes');
$q = sprintf($form{JOIN}, 'f_ch');
is(fetched($q, 'f'), $rows, '4. char(8) over text: the remote side passes every row');

# prepared statements, in both plan-cache modes, the build side changed
# between executions; a cursor; a transaction
for my $mode (qw(force_generic_plan force_custom_plan))
{
	my $sql = sub {
		my ($switch) = @_;
		my ($ret, $out, $err) = $local->psql('postgres', qq{
			SET plan_cache_mode = $mode;
			SET bloomfilter.semijoin_prefilter = $switch;
			BEGIN;
			PREPARE p(int) AS SELECT count(*), sum(f.g) FROM l JOIN f_ch f ON f.k = l.k WHERE l.z < \$1;
			EXECUTE p(100);
			INSERT INTO l VALUES ('k300', 300);
			EXECUTE p(1000);
			EXECUTE p(5);
			ROLLBACK;
		});
		return $ret == 0 ? $out : "ERROR: $err";
	};
	my $off = $sql->('off');
	is($sql->('on'), $off, "4. prepared ($mode), data changed: the same rows on and off");
}
{
	my $cursor = sub {
		my ($switch) = @_;
		my ($ret, $out, $err) = $local->psql('postgres', qq{
			SET bloomfilter.semijoin_prefilter = $switch;
			BEGIN;
			DECLARE c CURSOR FOR SELECT f.g, f.k FROM l JOIN f_ch f ON f.k = l.k ORDER BY f.g;
			FETCH 5 FROM c;
			FETCH ALL FROM c;
			COMMIT;
		});
		return $ret == 0 ? $out : "ERROR: $err";
	};
	my $off = $cursor->('off');
	isnt($off, '', '4. cursor: rows');
	is($cursor->('on'), $off, '4. cursor in a transaction: the same rows on and off');
}

# ---------------------------------------------------------------------
# 5. Expression keys over columns declared with another type.
# ---------------------------------------------------------------------
check('5. lower(k), char(8) over a remote varchar',
	'SELECT f.g FROM l JOIN f_vc f ON lower(f.k) = l.k', $gated);
is(fetched('SELECT f.g FROM l JOIN f_vc f ON lower(f.k) = l.k', 'f'), $rows,
	'5. lower(k), char(8) over varchar: the remote side passes every row');
check('5. upper(u::text), text over a remote uuid',
	'SELECT f.g FROM lu JOIN f_u f ON upper(f.u::text) = lu.u', $gated);
check('5. upper(u), text over a remote uuid, IN',
	'SELECT f.g FROM f_u f WHERE upper(f.u) IN (SELECT u FROM lu)', $gated);
# the remote side would compute n2 + 0 on 0.25 where the local side read 0.3
check('5. n + 0, numeric(10,1) over a remote numeric(10,2)',
	'SELECT f.g FROM ln1 JOIN f_n f ON f.n + 0 = ln1.n', $gated);
# the remote column check holds for deterministic collations only
check('5. lower(k) under a nondeterministic collation',
	'SELECT f.g FROM lci JOIN f_ci f ON lower(f.k) = lci.k', undef, qr/nondeterministic collation/);
check('5. upper(u) through a chain of servers, text over text over uuid',
	'SELECT f.g FROM lu JOIN f_chain f ON upper(f.u) = lu.u', $gated);
is(fetched('SELECT f.g FROM lu JOIN f_chain f ON upper(f.u) = lu.u', 'f'), $rows,
	'5. through a chain: the middle server passes every row');
check('5. lower(k) over a char(8) that agrees',
	'SELECT f.g FROM l JOIN f_chok f ON lower(f.k) = l.k', $gated);
cmp_ok(fetched('SELECT f.g FROM l JOIN f_chok f ON lower(f.k) = l.k', 'f'), '<', $rows / 4,
	'5. lower(k) over a char(8) that agrees: the remote side prunes');
check('5. composite with an expression over a mismatched column',
	'SELECT f.g FROM l JOIN f_vc f ON lower(f.k) = l.k AND f.g = l.z', qr/bloom_contains/);
check('5. i4 + 1 = n, the build key cast',
	'SELECT fp.g FROM ln JOIN fp ON fp.i4 + 1 = ln.n', qr/bloom_contains_typed/);

done_testing();
