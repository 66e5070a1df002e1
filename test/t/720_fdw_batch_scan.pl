# The batched probe scan on the remote side of a semijoin: postgres_fdw
# ships bloom_contains($1::bloom, column) with the filter as a bind
# parameter, and the remote server runs it with the batched scan.  The
# remote server does not preload the library: the planner loads it on the
# first probe it plans (the probe's selectivity estimate calls into it,
# before any scan path is built), and the scan is there from that first
# query on.  The remote plans are read from auto_explain's log.
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
# auto_explain (contrib) logs the plans the remote sessions run; an
# installation without it (a server built without contrib) skips the
# checks of those logs, and the plan is then checked by EXPLAIN EXECUTE
# of the Remote SQL alone.
my $auto_explain = -f $remote->config_data('--pkglibdir') . '/auto_explain.so';
$remote->append_conf('postgresql.conf', "max_parallel_workers_per_gather = 0\n");
$remote->append_conf('postgresql.conf', q{
session_preload_libraries = 'auto_explain'
auto_explain.log_min_duration = 0
auto_explain.log_analyze = on
auto_explain.log_timing = off
}) if $auto_explain;
$remote->start;
my $local = PostgreSQL::Test::Cluster->new('local');
$local->init;
$local->start;

$remote->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE events (id int, key bigint, payload text);
	INSERT INTO events
		SELECT g, (g * 7919) % 200003, 'event ' || g FROM generate_series(1, 200000) g;
	ANALYZE events;
});
$local->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE EXTENSION postgres_fdw;
} . foreign_server_sql('remote', $remote) . q{
	CREATE FOREIGN TABLE remote_events (id int, key bigint, payload text)
		SERVER remote OPTIONS (table_name 'events');
	CREATE TABLE wanted (key bigint);
	INSERT INTO wanted SELECT (g * 7919) % 200003 FROM generate_series(1, 200000, 40) g;
	ANALYZE wanted;
});

is($remote->safe_psql('postgres', 'SHOW shared_preload_libraries'), '',
	'the remote server does not preload bloomfilter');

my $filter = q{(SELECT bloom_agg(key, 10000, 0.01, 'blocked') FROM wanted)};
my $prefilter = "SELECT id FROM remote_events e WHERE bloom_contains($filter, e.key)";
my $exact = q{key IN (SELECT key FROM wanted)};
like(remote_sql($local, $prefilter),
	qr/WHERE \(public\.bloom_contains\(\$1::public\.bloom, key\)\)/,
	'the probe ships with the filter as parameter $1');

# The Remote SQL as the remote server receives it, run there with the
# filter bound to $1: the batched scan, in a generic plan (the parameter
# kept) and in a custom one (its value folded in).
my ($remote_query) = remote_sql($local, $prefilter) =~ /Remote SQL: (.*)$/;
my $wanted_filter = $local->safe_psql('postgres', "SELECT $filter");
for my $mode ('force_generic_plan', 'force_custom_plan')
{
	my $plan = $remote->safe_psql('postgres', qq{
		SET plan_cache_mode = $mode;
		PREPARE remote_probe(public.bloom) AS $remote_query;
		EXPLAIN (COSTS OFF) EXECUTE remote_probe('$wanted_filter');
	});
	like($plan, qr/Custom Scan \(BloomBatchScan\) on events/,
		"Remote SQL run with a bound filter ($mode): the batched scan");
}

# The remote plan of the first query of a fresh remote session.
my $log_offset = -s $remote->logfile;
my ($exact_count, $prefilter_count) = check_prefilter($local,
	table => 'remote_events', rows => 200000, prefilter => $prefilter, exact => $exact,
	what => 'batched remote scan');
my $log = slurp_file($remote->logfile, $log_offset);
SKIP:
{
skip 'auto_explain is not installed: no remote plans in the log', 3 unless $auto_explain;
like($log, qr/Custom Scan \(BloomBatchScan\) on public\.events|Custom Scan \(BloomBatchScan\) on events/,
	'the remote server scans with the batched probe scan from its first query');
like($log, qr/Bloom Filter: public\.bloom_contains\(<constant filter, \d+ bytes>, key\)/,
	'the remote scan probes the filter it received (bound: a constant of the plan), shown by its size');
my @removed = $log =~ /Rows Removed by Bloom Filter: (\d+)/g;
ok(@removed && (grep { $_ == 200000 - $prefilter_count } @removed),
	'the remote scan removed the rows the prefilter did not return');
}

# The operator form, and a larger filter (10^5 keys, a blocked filter of
# about 120 kB) shipped the same way.
my $big_filter = q{(SELECT bloom_agg(key, 100000, 0.01) FROM wanted)};
$log_offset = -s $remote->logfile;
is($local->safe_psql('postgres',
		"SELECT count(*) FROM remote_events e WHERE $big_filter @> e.key AND e.$exact"),
	$exact_count, 'operator form: the prefilter keeps every row of the semijoin');
$log = slurp_file($remote->logfile, $log_offset);
SKIP:
{
skip 'auto_explain is not installed: no remote plans in the log', 1 unless $auto_explain;
like($log, qr/Custom Scan \(BloomBatchScan\) on events.*\n.*Bloom Filter: \(<constant filter, \d+ bytes> OPERATOR\(public\.\@>\) key\)/,
	'operator form: batched on the remote server');
}

# The setting, given before the library is loaded (a placeholder then),
# switches the scan off in the sessions that load it; the rows are the same.
$remote->safe_psql('postgres', 'ALTER DATABASE postgres SET bloomfilter.enable_batch_scan = off');
$local->safe_psql('postgres', 'SELECT postgres_fdw_disconnect_all()');
$log_offset = -s $remote->logfile;
is($local->safe_psql('postgres', "SELECT count(*) FROM ($prefilter) p"), $prefilter_count,
	'with the setting off: the same rows');
$log = slurp_file($remote->logfile, $log_offset);
SKIP:
{
skip 'auto_explain is not installed: no remote plans in the log', 2 unless $auto_explain;
unlike($log, qr/BloomBatchScan/, 'with the setting off: no batched scan');
like($log, qr/Seq Scan on .*events/, 'with the setting off: the plain sequential scan');
}
$remote->safe_psql('postgres', 'ALTER DATABASE postgres RESET bloomfilter.enable_batch_scan');

done_testing();
