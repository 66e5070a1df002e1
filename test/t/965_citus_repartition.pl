# The Bloom prefilter of Citus repartition joins, on a coordinator and two
# workers: joins of two distributed tables that are not co-located on the
# join key (dual, and single with citus.enable_single_hash_repartition_joins)
# get bloom_contains(<keys of the selective side>, key) in the map queries of
# the other side, and nowhere else; joins Citus pushes down whole
# (co-located, reference tables), joins whose build side keeps everything,
# outer joins and sub-selects are left alone.  Every result equals the one
# with bloomfilter.citus_repartition off, and a filter is never reused after
# the build side's rows change (prepared statements, PL/pgSQL, a SQL
# function called once per row).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCitus;

skip_without_citus();
my ($coordinator, @workers) = citus_cluster(2);
sub sql { return $coordinator->safe_psql('postgres', $_[0]); }

my $repartition = 'SET citus.enable_repartition_joins = on;';
my $single = 'SET citus.enable_single_hash_repartition_joins = on;';
my $off = 'SET bloomfilter.citus_repartition = off;';

# 8 shards a table (not the cluster's 32): 8 map and 8 merge tasks a side
# keep a repartition join to about a second on a small machine.
sql(q{
	CREATE EXTENSION bloomfilter;
	-- fact: by id; 60000 rows, 20000 customers, a text code per customer
	CREATE TABLE fact (id bigint, cust int, code text, amount int);
	SELECT create_distributed_table('fact', 'id', shard_count => 8);
	INSERT INTO fact SELECT g, g % 20000, 'c' || (g % 20000), g % 7 FROM generate_series(1, 60000) g;
	-- dim: by id, not co-located with fact; grp picks 1% of it
	CREATE TABLE dim (id int, grp int, code text);
	SELECT create_distributed_table('dim', 'id', colocate_with => 'none', shard_count => 8);
	INSERT INTO dim SELECT g, g % 100, 'c' || g FROM generate_series(0, 29999) g;
	-- dim_by_grp: the same rows, distributed by grp
	CREATE TABLE dim_by_grp (id int, grp int, code text);
	SELECT create_distributed_table('dim_by_grp', 'grp', colocate_with => 'none', shard_count => 8);
	INSERT INTO dim_by_grp SELECT * FROM dim;
	-- co-located with fact on id
	CREATE TABLE fact_notes (id bigint, flag int);
	SELECT create_distributed_table('fact_notes', 'id', colocate_with => 'fact');
	INSERT INTO fact_notes SELECT g, g % 100 FROM generate_series(1, 60000, 3) g;
	-- a reference table
	CREATE TABLE dim_ref (id int, grp int);
	SELECT create_reference_table('dim_ref');
	INSERT INTO dim_ref SELECT id, grp FROM dim;
});

# The map queries of a statement: the SQL inside each
# worker_partition_query_result call, from citus.log_remote_commands.
sub map_queries
{
	my ($settings, $query) = @_;
	my ($ret, $stdout, $stderr) = $coordinator->psql('postgres',
		"$repartition $settings SET citus.log_remote_commands = on; SET client_min_messages = log; $query");
	die "map_queries: $stderr" if $ret != 0;
	my @maps;
	while ($stderr =~ /worker_partition_query_result\('[^']*','((?:[^']|'')*)'/g)
	{
		push @maps, $1;
	}
	return @maps;
}

# The DEBUG lines of the rewrite for a statement.
sub decisions
{
	my ($settings, $query) = @_;
	my ($ret, $stdout, $stderr) = $coordinator->psql('postgres',
		"$repartition $settings SET client_min_messages = debug1; $query");
	return join("\n", grep { /bloomfilter: Citus repartition/ } split /\n/, $stderr);
}

sub same_as_off
{
	my ($settings, $query, $name) = @_;
	my $on = sql("$repartition $settings $query");
	my $plain = sql("$repartition $settings $off $query");
	is($on, $plain, "$name: the result equals the one without the rewrite");
	return $on;
}

my $probe = qr/bloom_contains\(''[A-Za-z0-9+\/=]+''::public\.bloom, /;

# ---- repartition joins that get the filter ----

my @rewritten = (
	[ 'dual, JOIN ... ON', '',
	  'SELECT count(*), sum(f.amount), min(d.code) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = 3',
	  'fact', 'cust' ],
	[ 'dual, comma join, text key', '',
	  "SELECT count(*), sum(f.amount) FROM fact f, dim_by_grp d WHERE f.code = d.code AND d.grp = 42",
	  'fact', 'code' ],
	[ 'single (the probe side is moved to dim\'s shards)', $single,
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN dim d ON f.cust = d.id WHERE d.grp = 3',
	  'fact', 'cust' ],
	[ 'dual, restrictions on both sides (the more selective builds)', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN dim_by_grp d ON d.id = f.cust WHERE d.grp = 3 AND f.amount < 6',
	  'fact', 'cust' ],
	[ 'dual, the build side is fact', '',
	  'SELECT count(*), max(d.code) FROM dim_by_grp d JOIN fact f ON d.id = f.cust WHERE f.id < 300',
	  'dim_by_grp', 'id' ],
);
for my $case (@rewritten)
{
	my ($name, $settings, $query, $probed, $column) = @$case;
	my $result = same_as_off($settings, $query, $name);
	unlike($result, qr/^0\|/, "$name: the join is not empty");
	my @maps = map_queries($settings, $query);
	my @filtered = grep { /FROM public\.${probed}_\d+ \w+ WHERE .*$probe$column\)/ } @maps;
	is(scalar(@filtered), 8, "$name: every map query of $probed probes the filter");
	is(scalar(grep { /bloom_contains/ } @maps), 8, "$name: no other map query does");
	my @off_maps = map_queries("$settings $off", $query);
	is(scalar(grep { /bloom_contains/ } @off_maps), 0, "$name: none without the rewrite");
	like(decisions($settings, $query), qr/$probed\.$column probed with the keys of/,
		"$name: the rewrite says what it probed");
}

# ---- joins left alone ----

my @alone = (
	[ 'co-located on the join key', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN fact_notes n ON f.id = n.id WHERE n.flag = 3' ],
	[ 'a reference table', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN dim_ref r ON f.cust = r.id WHERE r.grp = 3' ],
	[ 'the build side keeps all its rows', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp >= 0' ],
	[ 'no restriction on either side', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN dim_by_grp d ON f.cust = d.id' ],
	[ 'single: the probe side stays in place', $single,
	  'SELECT count(*), sum(d.grp) FROM dim d JOIN fact f ON f.cust = d.id WHERE f.id < 300' ],
	[ 'an IN sub-select (planned as an intermediate result)', '',
	  'SELECT count(*), sum(f.amount) FROM fact f WHERE f.cust IN (SELECT id FROM dim_by_grp WHERE grp = 3)' ],
	[ 'an outer join with a reference table', '',
	  'SELECT count(*), count(r.id) FROM fact f LEFT JOIN dim_ref r ON f.cust = r.id AND r.grp = 3 WHERE f.amount = 1' ],
	[ 'the setting off', $off,
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = 3' ],
);
for my $case (@alone)
{
	my ($name, $settings, $query) = @$case;
	same_as_off($settings, $query, $name);
	my @maps = map_queries($settings, $query);
	is(scalar(grep { /bloom_contains/ } @maps), 0, "$name: no map query probes a filter");
	my @tasks = task_queries($coordinator, $query, "$repartition $settings");
	is(scalar(grep { /bloom_contains/ } @tasks), 0, "$name: no task query probes a filter");
	unlike(decisions($settings, $query), qr/probed with the keys/, "$name: nothing is probed");
}
like(decisions('', 'SELECT count(*) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp >= 0'),
	qr/dim_by_grp keeps 1\.0000 of its rows/, 'the build side keeping everything is measured, then declined');

# Outer joins of two distributed tables that are not co-located: Citus
# 13.2 refuses them whatever the setting; the rewrite does not change that.
for my $query (
	'SELECT count(*) FROM fact f LEFT JOIN dim_by_grp d ON f.cust = d.id AND d.grp = 3 WHERE f.amount = 1',
	'SELECT count(*) FROM dim_by_grp d LEFT JOIN fact f ON f.cust = d.id WHERE d.grp = 3')
{
	my ($ret_on, undef, $err_on) = $coordinator->psql('postgres', "$repartition $query");
	my ($ret_off, undef, $err_off) = $coordinator->psql('postgres', "$repartition $off $query");
	isnt($ret_on, 0, "outer join refused by Citus with the rewrite: $query");
	like($err_on, qr/complex joins are only supported/, 'outer join: Citus\'s own error');
	is($err_on, $err_off, 'outer join: the same error without the rewrite');
}

# ---- never a stale filter ----

my $join = 'SELECT count(*), sum(f.amount) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = 77';
my $plain_count = sub { sql("$repartition $off $join") };
my $before = $plain_count->();
my @prepared = split /\n/, sql(qq{
	$repartition
	PREPARE p AS $join;
	EXECUTE p; EXECUTE p; EXECUTE p; EXECUTE p; EXECUTE p; EXECUTE p;
	INSERT INTO dim_by_grp SELECT g, 77, 'c' || g FROM generate_series(30000, 30099) g;
	INSERT INTO fact SELECT 100000 + g, 30000 + g, 'x', 1 FROM generate_series(0, 99) g;
	EXECUTE p;
	BEGIN;
	INSERT INTO dim_by_grp SELECT g, 77, 'c' || g FROM generate_series(0, 199) g;
	EXECUTE p;
	SET LOCAL bloomfilter.citus_repartition = off;
	EXECUTE p;
	ROLLBACK;
	EXECUTE p;
});
my $after = $plain_count->();
isnt($after, $before, 'prepared: the build side\'s change changes the result');
is_deeply([ @prepared[0 .. 5] ], [ ($before) x 6 ], 'prepared: six executions (custom and generic) before the change');
is($prepared[6], $after, 'prepared: after the build side changed, the new result');
is($prepared[7], $prepared[8], 'prepared: inside a transaction that changed the build side, the result without the rewrite');
isnt($prepared[7], $after, 'prepared: and it sees that change');
is($prepared[9], $after, 'prepared: after the rollback, the committed result again');

# A parameter in the build side's restriction: each custom plan builds with
# its value; the results follow the parameter.
my @param = split /\n/, sql(qq{$repartition
	PREPARE pp(int) AS SELECT count(*), sum(f.amount) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = \$1;
	EXECUTE pp(3); EXECUTE pp(4); EXECUTE pp(3); EXECUTE pp(4); EXECUTE pp(3); EXECUTE pp(4); EXECUTE pp(5)});
my @param_off = map { sql("$repartition $off SELECT count(*), sum(f.amount) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = $_") }
	(3, 4, 3, 4, 3, 4, 5);
is_deeply(\@param, \@param_off, 'a parameter in the restriction: seven executions, the results without the rewrite');
# The plan cache's modes: through the custom plans into its choice of a
# generic one (the sixth execution on), and custom plans forced: eight
# executions each, the results without the rewrite.  (The list of the
# filters built was once read after the memory that held it was freed:
# the sixth execution crashed the server.)  A generic plan has no value
# for the restriction, so nothing is built: Citus's own error, with or
# without the rewrite.
my $eight = join(' ', map { "EXECUTE pm($_);" } (3, 4, 3, 4, 3, 4, 5, 4));
for my $mode ('auto', 'force_custom_plan')
{
	my $prepare = qq{$repartition SET plan_cache_mode = $mode;
		PREPARE pm(int) AS SELECT count(*), sum(f.amount) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = \$1;};
	my @on = split /\n/, sql("$prepare $eight");
	my @plain = split /\n/, sql("$off $prepare $eight");
	is(scalar(@on), 8, "plan_cache_mode $mode: eight results");
	is_deeply(\@on, \@plain, "plan_cache_mode $mode: the results without the rewrite");
}
my @generic = map {
	my ($ret, $stdout, $stderr) = $coordinator->psql('postgres', qq{$repartition $_ SET plan_cache_mode = force_generic_plan;
		PREPARE pm(int) AS SELECT count(*), sum(f.amount) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = \$1;
		EXECUTE pm(3);});
	$stderr =~ /(ERROR:.*)/ ? $1 : "no error ($ret): $stdout";
} ('', $off);
like($generic[0], qr/could not create distributed plan/, 'a generic plan: Citus refuses it');
is($generic[0], $generic[1], 'a generic plan: the same error without the rewrite');

# Planned and run under one snapshot when nothing happens in between: the
# filter is built once.
unlike(decisions('', 'SELECT count(*) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = 3'),
	qr/planned again/, 'a statement alone is not planned again');
unlike(decisions('', 'PREPARE pr(int) AS SELECT count(*) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = $1; EXECUTE pr(3); EXECUTE pr(4)'),
	qr/planned again/, 'a prepared statement is not planned again at its start');
like(decisions('', 'PREPARE pq(int) AS SELECT count(*) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = $1; EXECUTE pq(3)'),
	qr/fact\.cust probed with the keys of dim_by_grp/, 'a parameter in the restriction: the custom plan builds with its value');

sql(qq{
	CREATE FUNCTION count_77() RETURNS text LANGUAGE plpgsql AS \$\$
	DECLARE r text;
	BEGIN
		SELECT count(*) || '|' || sum(f.amount) INTO r FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = 77;
		RETURN r;
	END \$\$;
	CREATE FUNCTION add_77(g int) RETURNS int LANGUAGE sql AS
		\$\$ INSERT INTO dim_by_grp VALUES (g, 77, 'c' || g) RETURNING 1 \$\$;
	CREATE FUNCTION count_77_sql() RETURNS text LANGUAGE sql AS
		\$\$ SELECT count(*) || '|' || sum(f.amount) FROM fact f JOIN dim_by_grp d ON f.cust = d.id WHERE d.grp = 77 \$\$;
});
my $plpgsql = sql(qq{$repartition
	SELECT string_agg(format('%s=%s', add_77(g), count_77()), ',' ORDER BY g) FROM generate_series(10, 12) g});
my $plpgsql_off = sql(qq{$repartition $off SELECT string_agg(count_77(), ',') FROM generate_series(1, 1)});
is((split /,/, $plpgsql)[2], "1=$plpgsql_off", 'PL/pgSQL: its saved plan is replanned after each change of the build side');
isnt((split /,/, $plpgsql)[0], (split /,/, $plpgsql)[2], 'PL/pgSQL: the results differ along the way');

# Each call of count_77_sql() in one statement must see the rows added by
# the calls before it: the counts of fresh statements after each insert.
# (With the rewrite off, Citus 13.2 reuses the function's plan and its
# counts lag one call behind here, so the plain plan is no reference.)
my @sql_fn = split /\n/, sql(qq{$repartition
	SELECT add_77(g) || '|' || count_77_sql() FROM generate_series(13, 15) g ORDER BY g});
sql('DELETE FROM dim_by_grp WHERE id BETWEEN 13 AND 15 AND grp = 77');
my @fresh = map { sql("INSERT INTO dim_by_grp VALUES ($_, 77, 'c$_')"); '1|' . $plain_count->() } 13 .. 15;
is_deeply(\@sql_fn, \@fresh,
	'a SQL function called once per row: a new plan each call, each seeing the rows added before it');
isnt($sql_fn[0], $sql_fn[2], 'a SQL function called once per row: the results change along the way');

done_testing();
