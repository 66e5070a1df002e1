# Pruning by managed summaries across servers and sessions:
# - a foreign partition (postgres_fdw) is never skipped while its part row
#   is not trusted, whatever its filter says; once trusted, a key its
#   filter rules out is answered without any remote round trip (the remote
#   server is stopped and the query still runs);
# - eight clients insert keys and read them back at once through generic
#   plans and through scans rescanned with the key as a parameter (the
#   guard): no key is ever missed, while deltas pile up and merges run;
# - every cached plan returns what the plan without pruning returns.
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
$local->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'bloomfilter'
max_connections = 30
max_parallel_workers_per_gather = 0
});
$local->start;

$remote->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE events3 (day int NOT NULL, user_id bigint, note text);
	INSERT INTO events3 SELECT 3, g, 'remote' FROM generate_series(100001, 101000) g;
});
$local->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
} . foreign_server_sql('remote', $remote) . q{
	CREATE TABLE ev (day int NOT NULL, user_id bigint, note text) PARTITION BY RANGE (day);
	CREATE TABLE ev_1 PARTITION OF ev FOR VALUES FROM (1) TO (2);
	CREATE TABLE ev_2 PARTITION OF ev FOR VALUES FROM (2) TO (3);
	CREATE FOREIGN TABLE ev_3 PARTITION OF ev FOR VALUES FROM (3) TO (4)
		SERVER remote OPTIONS (table_name 'events3');
	INSERT INTO ev SELECT 1 + g % 2, g, 'local' FROM generate_series(1, 2000) g;
	SELECT bloom_summary_create('ev', 'user_id', 100000, 0.01);
});

# The plan's lines naming a skipped or a foreign scan, and the rows with
# pruning on and off.
sub plan_lines
{
	my ($query, $setup) = @_;
	$setup //= '';
	return join("\n", grep { /Skipped|Foreign Scan|Seq Scan/ }
		split /\n/, $local->safe_psql('postgres', "$setup EXPLAIN (COSTS OFF) $query"));
}

sub both_ways
{
	my ($query) = @_;
	my $on = $local->safe_psql('postgres', "SELECT * FROM ($query) q ORDER BY 1, 2");
	my $off = $local->safe_psql('postgres',
		"SET bloomfilter.enable_summary_pruning = off; SELECT * FROM ($query) q ORDER BY 1, 2");
	return ($on, $off);
}

is($local->safe_psql('postgres', q{
	SELECT string_agg(partition::text || ':' || trusted, ' ' ORDER BY partition::text)
	FROM bloom_summary_part}),
	'ev_1:true ev_2:true ev_3:false', 'the foreign partition starts untrusted');

my $remote_key = 'SELECT * FROM ev WHERE user_id = 100500';
my $absent_key = 'SELECT * FROM ev WHERE user_id = 999999999';
like(plan_lines($remote_key), qr/Skipped by Summary.*\n.*Skipped by Summary.*\n.*Foreign Scan on ev_3/s,
	'local partitions are skipped, the untrusted foreign one is scanned');
like(plan_lines($absent_key), qr/Foreign Scan on ev_3/,
	'an untrusted foreign partition is scanned even for a key its filter rules out');
my ($on, $off) = both_ways($remote_key);
is($on, "3|100500|remote", 'the remote row is found');
is($on, $off, 'the same rows with pruning off');

# Trust the foreign partition's filter, built from the remote rows.
$local->safe_psql('postgres', q{
	UPDATE bloom_summary_part p SET trusted = true,
		filter = (SELECT bloom_agg(user_id, 100000, 0.01) FROM ev_3)
	WHERE partition = 'ev_3'::regclass;
});
like(plan_lines($absent_key), qr/Skipped by Summary: user_id\z/,
	'a trusted foreign partition is skipped for a key its filter rules out');
unlike(plan_lines($absent_key), qr/Foreign Scan/, 'no foreign scan left');
like(plan_lines($remote_key), qr/Foreign Scan on ev_3/,
	'a trusted foreign partition holding the key is scanned');
($on, $off) = both_ways($remote_key);
is($on, $off, 'the same rows with pruning off, foreign partition trusted');

# No remote round trip for a skipped foreign partition: the query runs with
# the remote server down.
$local->safe_psql('postgres', 'SELECT count(*) FROM ev_3');	# the connection is cached per session only
$remote->stop;
is($local->safe_psql('postgres', "SELECT count(*) FROM ($absent_key) q"), '0',
	'a key ruled out everywhere is answered with the remote server down');
my ($ret, $stdout, $stderr) = $local->psql('postgres', "SELECT count(*) FROM ($remote_key) q");
isnt($ret, 0, 'a key the foreign filter may hold needs the remote server');
$remote->start;

# Untrusted again: scanned again, in a cached plan too.
$local->safe_psql('postgres',
	q{UPDATE bloom_summary_part SET trusted = false WHERE partition = 'ev_3'::regclass});
like(plan_lines('EXECUTE q(999999999)',
		'SET plan_cache_mode = force_generic_plan; PREPARE q(bigint) AS SELECT * FROM ev WHERE user_id = $1;'),
	qr/Foreign Scan on ev_3/, 'untrusted again: scanned through a generic plan');

# Eight clients insert keys and read each back at once through generic
# plans; a read that misses its key is recorded.
# (local partitions only: the foreign one is detached first)
$local->safe_psql('postgres', q{
	ALTER TABLE ev DETACH PARTITION ev_3;
	CREATE TABLE missed (user_id bigint, day int);
});
my $clients = 8;
my $transactions = 150;
$ENV{PGOPTIONS} = '-c plan_cache_mode=force_generic_plan';
$local->pgbench(
	"--no-vacuum --client=$clients --jobs=2 --transactions=$transactions --protocol=prepared",
	0,
	[qr{processed: @{[ $clients * $transactions ]}/@{[ $clients * $transactions ]}}],
	[qr{^$}],
	'eight clients write and read keys through generic plans',
	{
		'write_read' => q{
\set v random(1000000, 1000000000000)
\set d random(1, 2)
INSERT INTO ev VALUES (:d, :v, 'client');
SELECT count(*) AS found FROM ev WHERE user_id = :v \gset
\if :found = 0
INSERT INTO missed VALUES (:v, :d);
\endif
SELECT count(*) AS found_any FROM ev WHERE user_id = ANY (ARRAY[:v, 1]::bigint[]) \gset
\if :found_any < 2
INSERT INTO missed VALUES (:v, -:d);
\endif
SELECT count(*) AS found_rescan FROM (VALUES (:v::bigint), (1::bigint)) o(k),
	LATERAL (SELECT 1 FROM ev e WHERE e.user_id = o.k OFFSET 0) x \gset
\if :found_rescan < 2
INSERT INTO missed VALUES (:v, 100 + :d);
\endif
}
	});
delete $ENV{PGOPTIONS};
is($local->safe_psql('postgres', 'SELECT count(*) FROM missed'), '0',
	'no client missed a key it had written');
is($local->safe_psql('postgres', q{
	SELECT count(*) FROM ev WHERE note = 'client'}), $clients * $transactions,
	'every client row is there');

# Every key, through one generic plan, after the writers: found.
$local->safe_psql('postgres', q{
	CREATE FUNCTION count_of(k bigint) RETURNS bigint LANGUAGE plpgsql AS $$
	DECLARE n bigint;
	BEGIN
		SELECT count(*) INTO n FROM ev WHERE user_id = k;
		RETURN n;
	END $$;
});
is($local->safe_psql('postgres', q{
	SET plan_cache_mode = force_generic_plan;
	SELECT count(*) FROM ev WHERE count_of(user_id) = 0 AND user_id IS NOT NULL}), '0',
	'every key is found through a generic plan');
my $skipped = $local->safe_psql('postgres', q{
	SET plan_cache_mode = force_generic_plan;
	PREPARE r(bigint) AS SELECT * FROM ev WHERE user_id = $1;
	EXPLAIN (COSTS OFF) EXECUTE r(1);
});
like($skipped, qr/Skipped by Summary/, 'and pruning still happens after the writers');
my $guarded = $local->safe_psql('postgres', q{
	EXPLAIN (COSTS OFF) SELECT * FROM (VALUES (1::bigint), (2::bigint)) o(k),
		LATERAL (SELECT 1 FROM ev e WHERE e.user_id = o.k OFFSET 0) x;
});
like($guarded, qr/Guarded by Summary/, 'the writers\' reads at each rescan were guarded');

done_testing();
