# The Citus repartition prefilter beyond one column of two tables, on a
# coordinator and two workers: a join on several columns gets one filter
# of the build side's key tuples (bloom_contains(<filter>,
# bloom_tuple_hash(...)) in the moved side's map queries), an expression
# beside a column equality is part of that key, and a join of three tables
# gives each moved side the filters of its selective partners.  What Citus
# does not plan as a repartition join is left alone: joins on expressions
# alone and EXISTS (refused by Citus 13.2 with or without the rewrite), IN
# sub-selects (run as intermediate results), co-located and reference
# pairs.  Every result equals the one with bloomfilter.citus_repartition
# off.
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

sql(q{
	CREATE EXTENSION bloomfilter;
	-- fact: by id; 60000 rows, (cust, region) pairs, a text code per customer;
	-- some rows with a NULL region
	CREATE TABLE fact (id bigint, cust int, region int, code text, amount int);
	SELECT create_distributed_table('fact', 'id', shard_count => 8);
	INSERT INTO fact SELECT g, g % 20000, CASE WHEN g % 97 = 0 THEN NULL ELSE g % 7 END,
		'c' || (g % 20000), g % 11 FROM generate_series(1, 60000) g;
	-- pairs: by grp, not co-located with fact; grp = 3 keeps 1%, each pair of
	-- its 40000 rows once or twice (duplicates), some with a NULL region
	CREATE TABLE pairs (id int, region int, grp int, code text, region8 bigint);
	SELECT create_distributed_table('pairs', 'grp', colocate_with => 'none', shard_count => 8);
	INSERT INTO pairs SELECT g % 20000, CASE WHEN g % 89 = 0 THEN NULL ELSE g % 7 END, g % 100,
		'C' || (g % 20000), g % 7 FROM generate_series(0, 39999) g;
	INSERT INTO pairs SELECT id, region, grp, code, region8 FROM pairs WHERE id % 3 = 0;
	-- regions: 7 rows by name
	CREATE TABLE regions (id int, name text);
	SELECT create_distributed_table('regions', 'name', colocate_with => 'none', shard_count => 8);
	INSERT INTO regions SELECT g, 'r' || g FROM generate_series(0, 6) g;
	-- the same as a reference table
	CREATE TABLE region_ref (id int, name text);
	SELECT create_reference_table('region_ref');
	INSERT INTO region_ref SELECT * FROM regions;
	-- co-located with fact on id
	CREATE TABLE fact_notes (id bigint, flag int);
	SELECT create_distributed_table('fact_notes', 'id', colocate_with => 'fact');
	INSERT INTO fact_notes SELECT g, g % 100 FROM generate_series(1, 60000, 3) g;
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

my $filter = qr/bloom_contains\(''[A-Za-z0-9+\/=]+''::public\.bloom, /;

# The map queries of a table's shards.
sub maps_of
{
	my ($table, @maps) = @_;
	return grep { /FROM \(?public\.${table}_\d+ / } @maps;
}

# ---- joins that get filters ----
#
# [name, settings, query, {table => [probes its 8 map queries hold]},
#  expected DEBUG lines]
my @rewritten = (
	[ 'two columns', '',
	  'SELECT count(*), sum(f.amount), count(f.region) FROM fact f JOIN pairs p ON f.cust = p.id AND f.region = p.region WHERE p.grp = 3',
	  { fact => [ qr/${filter}public\.bloom_tuple_hash\(cust, region\)\)/ ] },
	  [ qr/fact\.\(cust, region\) probed with the keys of pairs/ ] ],
	[ 'two columns written in the other order, comma join', '',
	  'SELECT count(*), sum(f.amount) FROM fact f, pairs p WHERE p.region = f.region AND p.id = f.cust AND p.grp = 3',
	  { fact => [ qr/${filter}public\.bloom_tuple_hash\(region, cust\)\)/ ] },
	  [ qr/fact\.\(region, cust\) probed with the keys of pairs/ ] ],
	[ 'three columns of mixed types', '',
	  "SELECT count(*), sum(f.amount) FROM fact f JOIN pairs p ON f.cust = p.id AND f.region = p.region AND 'C' || f.cust = p.code WHERE p.grp = 3",
	  { fact => [ qr/${filter}public\.bloom_tuple_hash\(cust, region, \(''C''::text OPERATOR\(pg_catalog\.\|\|\) \(cust\)::text\)\)\)/ ] },
	  [ qr/fact\.\(cust, region, \('C'::text \|\| cust\)\) probed with the keys of pairs/ ] ],
	[ 'an expression key beside a column equality', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN pairs p ON f.cust = p.id AND upper(f.code) = p.code WHERE p.grp = 3',
	  { fact => [ qr/${filter}public\.bloom_tuple_hash\(cust, upper\(code\)\)\)/ ] },
	  [ qr/fact\.\(cust, upper\(code\)\) probed with the keys of pairs/ ] ],
	[ 'a cast key beside a column equality', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN pairs p ON f.cust = p.id AND f.region::bigint = p.region8 WHERE p.grp = 3',
	  { fact => [ qr/${filter}public\.bloom_tuple_hash\(cust, \(region\)::bigint\)\)/ ] },
	  [ qr/fact\.\(cust, \(region\)::bigint\) probed with the keys of pairs/ ] ],
	[ 'two columns, the build side is fact', '',
	  'SELECT count(*), max(p.code) FROM pairs p JOIN fact f ON f.cust = p.id AND f.region = p.region WHERE f.id < 600',
	  { pairs => [ qr/${filter}public\.bloom_tuple_hash\(id, region\)\)/ ] },
	  [ qr/pairs\.\(id, region\) probed with the keys of fact/ ] ],
	[ 'three tables, fact filtered by both partners', '',
	  "SELECT count(*), sum(f.amount) FROM fact f JOIN pairs p ON f.cust = p.id JOIN regions r ON f.region = r.id WHERE p.grp = 3 AND r.name = 'r3'",
	  { fact => [ qr/${filter}cust\)/, qr/${filter}region\)/ ] },
	  [ qr/fact\.cust probed with the keys of pairs/, qr/fact\.region probed with the keys of regions/ ] ],
	# pairs, restricted by the filter of regions, builds the filter of fact
	[ 'three tables in a chain, the middle one filtered', '',
	  "SELECT count(*), sum(f.amount) FROM fact f JOIN pairs p ON f.cust = p.id JOIN regions r ON p.region = r.id WHERE r.name = 'r3'",
	  { pairs => [ qr/${filter}region\)/ ], fact => [ qr/${filter}cust\)/ ] },
	  [ qr/pairs\.region probed with the keys of regions/, qr/fact\.cust probed with the keys of pairs/ ] ],
	[ 'three tables, one pair co-located (no filter there)', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN fact_notes n ON f.id = n.id JOIN pairs p ON f.cust = p.id AND f.region = p.region WHERE p.grp = 3 AND n.flag < 50',
	  { fact => [ qr/${filter}public\.bloom_tuple_hash\(f\.cust, f\.region\)\)/ ] },
	  [ qr/fact\.\(cust, region\) probed with the keys of pairs/ ] ],
	[ 'three tables, one a reference table (no filter from it)', '',
	  "SELECT count(*), sum(f.amount) FROM fact f JOIN pairs p ON f.cust = p.id JOIN region_ref r ON f.region = r.id WHERE p.grp = 3 AND r.name = 'r3'",
	  { fact => [ qr/${filter}f\.cust\)/ ] },
	  [ qr/fact\.cust probed with the keys of pairs/ ] ],
);
for my $case (@rewritten)
{
	my ($name, $settings, $query, $probes, $lines) = @$case;
	my $result = same_as_off($settings, $query, $name);
	unlike($result, qr/^0\|/, "$name: the join is not empty");
	my @maps = map_queries($settings, $query);
	my $nfilters = 0;
	for my $table (sort keys %$probes)
	{
		my @mine = maps_of($table, @maps);
		is(scalar(@mine), 8, "$name: $table has 8 map queries");
		for my $probe (@{ $probes->{$table} })
		{
			is(scalar(grep { /$probe/ } @mine), 8, "$name: every map query of $table probes $probe");
		}
		my @counts = map { my @m = /bloom_contains/g; scalar(@m) } @mine;
		is_deeply(\@counts, [ (scalar(@{ $probes->{$table} })) x 8 ], "$name: and no other filter there");
		$nfilters += 8 * scalar(@{ $probes->{$table} });
	}
	my $all = 0;
	$all += () = /bloom_contains/g for @maps;
	is($all, $nfilters, "$name: no other map query probes a filter");
	my @off_maps = map_queries("$settings $off", $query);
	is(scalar(grep { /bloom_contains/ } @off_maps), 0, "$name: none without the rewrite");
	my $said = decisions($settings, $query);
	like($said, $_, "$name: the rewrite says $_") for @$lines;
	# distinct lines: a statement planned again under the snapshot it runs
	# with (a transaction of Citus's maintenance daemon committed in
	# between) says each of them twice
	my %probes = map { $_ => 1 } grep { /probed with the keys/ } split /\n/, $said;
	is(scalar(keys %probes), scalar(@$lines), "$name: and nothing else is probed");
}

# ---- joins left alone ----

my @alone = (
	[ 'two columns, the build side keeps all its rows', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN pairs p ON f.cust = p.id AND f.region = p.region WHERE p.grp >= 0' ],
	[ 'two columns, co-located on one of them', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN fact_notes n ON f.id = n.id AND f.amount = n.flag WHERE n.flag = 3' ],
	[ 'single: an equality on the probe side\'s distribution column keeps it in place', $single,
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN pairs p ON f.id = p.region8 AND f.cust = p.id WHERE p.grp = 3' ],
	[ 'a reference table with a composite key', '',
	  "SELECT count(*), sum(f.amount) FROM fact f JOIN region_ref r ON f.region = r.id AND f.code = r.name WHERE r.name = 'r3'" ],
	[ 'three tables, no restriction on a pair\'s tables', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN pairs p ON f.cust = p.id JOIN fact_notes n ON f.id = n.id' ],
	[ 'an IN sub-select of two columns (an intermediate result)', '',
	  'SELECT count(*), sum(f.amount) FROM fact f WHERE (f.cust, f.region) IN (SELECT id, region FROM pairs WHERE grp = 3)' ],
	[ 'an IN sub-select with single repartition joins on (an intermediate result)', $single,
	  'SELECT count(*), sum(f.amount) FROM fact f WHERE f.cust IN (SELECT id FROM pairs WHERE grp = 3)' ],
	[ 'a join with a DISTINCT sub-select (an intermediate result)', '',
	  'SELECT count(*), sum(f.amount) FROM fact f JOIN (SELECT DISTINCT id FROM pairs WHERE grp = 3) p ON f.cust = p.id' ],
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

# Joins Citus 13.2 refuses whatever the rewrite does: distributed tables
# joined on expressions alone, and correlated EXISTS / NOT EXISTS (and IN)
# sub-selects of tables not co-located, with single repartition joins on
# too.  The rewrite adds nothing and the error is Citus's own.
for my $query (
	'SELECT count(*) FROM fact f JOIN pairs p ON f.cust::bigint = p.region8 WHERE p.grp = 3',
	'SELECT count(*) FROM fact f JOIN pairs p ON upper(f.code) = p.code WHERE p.grp = 3',
	'SELECT count(*) FROM fact f WHERE EXISTS (SELECT 1 FROM pairs p WHERE p.id = f.cust AND p.region = f.region AND p.grp = 3)',
	'SELECT count(*) FROM fact f WHERE NOT EXISTS (SELECT 1 FROM pairs p WHERE p.id = f.cust AND p.grp = 3)',
	'SELECT count(*) FROM fact f WHERE f.cust IN (SELECT p.id FROM pairs p WHERE p.grp = 3 AND p.region = f.region)')
{
	for my $settings ('', $single)
	{
		my ($ret_on, undef, $err_on) = $coordinator->psql('postgres', "$repartition $settings $query");
		my ($ret_off, undef, $err_off) = $coordinator->psql('postgres', "$repartition $settings $off $query");
		isnt($ret_on, 0, "refused by Citus with the rewrite ($settings): $query");
		like($err_on, qr/complex joins are only supported/, 'refused: Citus\'s own error');
		is($err_on, $err_off, 'refused: the same error without the rewrite');
		unlike(decisions($settings, $query), qr/probed with the keys/, 'refused: nothing is probed');
	}
}

# NULLs and duplicates: the composite filter drops fact's rows with a NULL
# region (they match nothing) and keeps every matching pair once per
# duplicate, as the plain join does.
my $nulls = sql("$repartition SELECT count(*) FROM fact f JOIN pairs p ON f.cust = p.id AND f.region = p.region WHERE p.grp = 3 AND p.id % 3 = 0");
my $nulls_off = sql("$repartition $off SELECT count(*) FROM fact f JOIN pairs p ON f.cust = p.id AND f.region = p.region WHERE p.grp = 3 AND p.id % 3 = 0");
is($nulls, $nulls_off, 'duplicates of the build side: the counts without the rewrite');
cmp_ok($nulls, '>', 0, 'duplicates of the build side: the join is not empty');
is(sql(q{SELECT count(*) FROM pairs WHERE grp = 3 AND region IS NULL}) > 0 ? 1 : 0, 1,
	'the build side selects a pair with a NULL region');

# A prepared composite join sees the build side's changes.
my $join = 'SELECT count(*), sum(f.amount) FROM fact f JOIN pairs p ON f.cust = p.id AND f.region = p.region WHERE p.grp = 77';
my $before = sql("$repartition $off $join");
my @prepared = split /\n/, sql(qq{
	$repartition
	PREPARE p AS $join;
	EXECUTE p; EXECUTE p; EXECUTE p; EXECUTE p; EXECUTE p; EXECUTE p;
	INSERT INTO pairs SELECT g, g % 7, 77, 'C' || g, g % 7 FROM generate_series(1, 100) g;
	EXECUTE p;
});
my $after = sql("$repartition $off $join");
isnt($after, $before, 'prepared: the build side\'s change changes the result');
is_deeply(\@prepared, [ ($before) x 6, $after ], 'prepared: the results without the rewrite, before and after the change');

done_testing();
