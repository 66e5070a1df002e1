# The automatic semijoin prefilter and partitioned tables whose partitions
# are foreign tables: the rule "not when both sides are on one server"
# decided leaf by leaf.  Two partitioned tables with every partition on one
# server, joined partition by partition (enable_partitionwise_join), are
# joined remotely by postgres_fdw, pair by pair: no filter, the plan as
# without the rewrite (FOR UPDATE too).  Without partitionwise joins the
# join is local and the filter pays.  With some leaves on another server,
# only the leaves joined locally count as saved.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomFdw;

my @remotes;
for my $name (qw(remote1 remote2))
{
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
	push @remotes, $node;
}
my ($remote1, $remote2) = @remotes;
# fprt1: 60,000 rows over a; fprt2: the same keys, c = 'x' on 1% of them.
my $tables = q{
	CREATE TABLE fprt1_p1 (a int, b int, c text);
	CREATE TABLE fprt1_p2 (a int, b int, c text);
	CREATE TABLE fprt2_p1 (a int, b int, c text);
	CREATE TABLE fprt2_p2 (a int, b int, c text);
	INSERT INTO fprt1_p1 SELECT g, g % 97, 'row ' || g FROM generate_series(0, 29999) g;
	INSERT INTO fprt1_p2 SELECT g, g % 97, 'row ' || g FROM generate_series(30000, 59999) g;
	INSERT INTO fprt2_p1 SELECT g, g % 89, CASE WHEN g % 100 = 0 THEN 'x' ELSE 'y' END
		FROM generate_series(0, 29999) g;
	INSERT INTO fprt2_p2 SELECT g, g % 89, CASE WHEN g % 100 = 0 THEN 'x' ELSE 'y' END
		FROM generate_series(30000, 59999) g;
	ANALYZE;
};
$_->safe_psql('postgres', $tables) for @remotes;

my $local = PostgreSQL::Test::Cluster->new('local');
$local->init;
$local->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'");
$local->start;
my $parts = '';
for my $t (qw(fprt1 fprt2 mprt1))
{
	$parts .= qq{CREATE TABLE $t (a int, b int, c text) PARTITION BY RANGE (a);\n};
}
$local->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
} . foreign_server_sql('remote1', $remote1) . foreign_server_sql('remote2', $remote2) . $parts . q{
	CREATE FOREIGN TABLE fprt1_p1 PARTITION OF fprt1 FOR VALUES FROM (0) TO (30000)
		SERVER remote1 OPTIONS (table_name 'fprt1_p1');
	CREATE FOREIGN TABLE fprt1_p2 PARTITION OF fprt1 FOR VALUES FROM (30000) TO (60000)
		SERVER remote1 OPTIONS (table_name 'fprt1_p2');
	CREATE FOREIGN TABLE fprt2_p1 PARTITION OF fprt2 FOR VALUES FROM (0) TO (30000)
		SERVER remote1 OPTIONS (table_name 'fprt2_p1');
	CREATE FOREIGN TABLE fprt2_p2 PARTITION OF fprt2 FOR VALUES FROM (30000) TO (60000)
		SERVER remote1 OPTIONS (table_name 'fprt2_p2');
	-- the same rows as fprt1, its second partition on the other server
	CREATE FOREIGN TABLE mprt1_p1 PARTITION OF mprt1 FOR VALUES FROM (0) TO (30000)
		SERVER remote1 OPTIONS (table_name 'fprt1_p1');
	CREATE FOREIGN TABLE mprt1_p2 PARTITION OF mprt1 FOR VALUES FROM (30000) TO (60000)
		SERVER remote2 OPTIONS (table_name 'fprt1_p2');
	ANALYZE fprt1, fprt2, mprt1;
	-- remote estimates let postgres_fdw cost (and choose) the remote joins
	ALTER SERVER remote1 OPTIONS (ADD use_remote_estimate 'true');
});

my $pwj = 'SET enable_partitionwise_join = on';
my $join = q{SELECT t1.a, t1.c, t2.b FROM fprt1 t1 JOIN fprt2 t2 ON t1.a = t2.a WHERE t2.c = 'x'};

# The plan of $query with the rewrite on and off (EXPLAIN VERBOSE).
sub plans
{
	my ($query, $setup) = @_;
	my @plans = map {
		$local->safe_psql('postgres',
			"$setup; SET bloomfilter.semijoin_prefilter = $_; EXPLAIN (VERBOSE, COSTS OFF) $query")
	} qw(on off);
	return @plans;
}

# The decisions the rewrite reports for $query.
sub decisions
{
	my ($query, $setup) = @_;
	my ($ret, $out, $err) = $local->psql('postgres',
		"$setup; SET bloomfilter.semijoin_log = notice; EXPLAIN $query");
	return $err;
}

# 1. Every partition on one server, joined pair by pair: left alone.
my ($off, $on, $sql) = semijoin_both_ways($local, $join, $pwj);
isnt($off, '', 'same server, partitionwise: the query returns rows');
is($on, $off, 'same server, partitionwise: the same rows with the rewrite on and off');
unlike($sql, qr/bloom_contains/, 'same server, partitionwise: no filter in the Remote SQL');
is(scalar(() = $sql =~ /INNER JOIN/g), 2, 'same server, partitionwise: each pair joined remotely')
	or diag($sql);
my ($plan_on, $plan_off) = plans($join, $pwj);
unlike($plan_on, qr/InitPlan/, 'same server, partitionwise: no InitPlan');
is($plan_on, $plan_off, 'same server, partitionwise: the plan of the rewrite off');
like(decisions($join, $pwj), qr/no semijoin prefilter on fprt1\.a from fprt2\.a: both sides are on the same server/,
	'same server, partitionwise: the log gives the reason');

my $locked = "$join ORDER BY 1 FOR UPDATE OF t1";
($plan_on, $plan_off) = plans($locked, $pwj);
is($plan_on, $plan_off, 'same server, FOR UPDATE OF t1: the plan of the rewrite off');
unlike($plan_on, qr/bloom_contains/, 'same server, FOR UPDATE OF t1: no filter');
is($local->safe_psql('postgres', "$pwj; BEGIN; $locked; COMMIT"),
	$local->safe_psql('postgres', "$pwj; SET bloomfilter.semijoin_prefilter = off; BEGIN; $locked; COMMIT"),
	'same server, FOR UPDATE OF t1: the same rows');

# 2. The same tables without partitionwise joins: the join is local (an
# Append joined with an Append), and fprt1's rows cross unless filtered.
($off, $on, $sql) = semijoin_both_ways($local, $join, 'SET enable_partitionwise_join = off');
is($on, $off, 'same server, no partitionwise join: the same rows');
is(scalar(() = $sql =~ /bloom_contains_typed\(\$\d+::public\.bloom, a, 'integer'::text/g), 2,
	'same server, no partitionwise join: both partitions of fprt1 receive the filter');

# 3. Mixed: mprt1's first partition shares fprt2's server, its second is
# elsewhere.  mprt1 is filtered (its second partition's rows are saved);
# fprt2, whose every leaf is on a server mprt1 reads, is not.
my $mixed = q{SELECT t1.a, t1.c, t2.b FROM mprt1 t1 JOIN fprt2 t2 ON t1.a = t2.a WHERE t2.c = 'x'};
($off, $on, $sql) = semijoin_both_ways($local, $mixed, $pwj);
isnt($off, '', 'mixed servers: the query returns rows');
is($on, $off, 'mixed servers: the same rows with the rewrite on and off');
like($sql, qr/bloom_contains_typed/, 'mixed servers: the filter is in the Remote SQL');
my $log = decisions($mixed, $pwj);
like($log, qr/added semijoin prefilter on mprt1\.a from fprt2\.a/, 'mixed servers: mprt1 filtered');
like($log, qr/no semijoin prefilter on fprt2\.a from mprt1\.a: both sides are on the same server/,
	'mixed servers: fprt2 left alone, leaf by leaf');
my ($saved) = $log =~ /added semijoin prefilter on mprt1\.a.*?saves (\d+) rows/s;
# half of mprt1's 60,000 rows are joined locally; 99% of them are saved
cmp_ok($saved, '>', 25000, 'mixed servers: the local leaf\'s rows are counted as saved');
cmp_ok($saved, '<', 31000, 'mixed servers: the remotely joined leaf\'s rows are not');
my $shipped = $local->safe_psql('postgres', "$pwj; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $mixed");
my ($rows) = $shipped =~ /Foreign Scan on public\.mprt1_p2 t1_2 \(actual rows=(\d+)/;
($rows) = $shipped =~ /Foreign Scan on mprt1_p2 t1_2 \(actual rows=(\d+)/ unless defined $rows;
ok(defined $rows && $rows < 3000, 'mixed servers: the other server ships only candidates')
	or diag($shipped);

done_testing();
