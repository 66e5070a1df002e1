# Managed summaries under a differential fuzzer
# (test/fuzz/differential/summary_fuzz.py): random partitioned tables with a
# summary, writes of every kind, merges, refreshes, readers holding
# snapshots, a commit held in flight, and crashes; every read compared with
# bloomfilter.enable_summary_pruning on and off in the same transaction.
#
# The run is split into BLOOM_FUZZ_CRASHES + 1 segments (default 2 crashes);
# between two segments the server stops with an immediate shutdown (a
# crash: the shared buffer is lost) and starts again, and the next segment
# first checks that every committed row is there and found with pruning on.
#
# Before the fuzzer, the shrunk sequences of issue 34's cases it found
# (test/fuzz/differential/summary_cases/*.trace) are replayed, one test
# each.  Asserted: no wrong result, no spurious error (an error that does not
# occur with pruning off), no statement of the fuzzer's that fails with
# pruning off too, no committed row missing after a crash, and that the
# path fired: at least BLOOM_FUZZ_MIN_SKIPS reads skipped a partition, some
# of them reads under an OR (k = 5 OR k = 6 and its kin) but none under an
# OR with an arm that fixes nothing, some rounds were concurrent and some
# commits were held in flight.
#
# Environment: BLOOM_FUZZ_SECONDS (default 120) the budget of all segments
# together; BLOOM_FUZZ_SEED the seed (printed; segment i runs seed + i);
# BLOOM_FUZZ_CRASHES; BLOOM_FUZZ_MIN_SKIPS (default 100);
# BLOOM_FUZZ_RESULTS a file the summed statistics are written to (JSON).
use strict;
use warnings;
use File::Spec;
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# Debian's interpreter: a python3 earlier in PATH may lack Debian's psycopg2.
my $python = '/usr/bin/python3';
plan skip_all => 'python3-psycopg2 is not installed: the summary fuzzer does not run'
  unless -x $python && system($python, '-c', 'import psycopg2') == 0;

my $dir = File::Spec->rel2abs(($ENV{TESTDIR} // '.') . '/test/fuzz/differential');
my $fuzzer = "$dir/summary_fuzz.py";
my $seconds = $ENV{BLOOM_FUZZ_SECONDS} // 120;
my $seed = $ENV{BLOOM_FUZZ_SEED} // int(rand(2**31));
my $crashes = $ENV{BLOOM_FUZZ_CRASHES} // 2;
my $min_skips = $ENV{BLOOM_FUZZ_MIN_SKIPS} // 100;
diag("summary fuzz seed $seed (replay: BLOOM_FUZZ_SEED=$seed), $seconds s, $crashes crashes");

my $node = PostgreSQL::Test::Cluster->new('summary_fuzz');
# allows_streaming: max_wal_senders above 0, without which a COMMIT never
# waits for a synchronous standby.
$node->init(allows_streaming => 1);
# synchronous_standby_names names a standby that never comes: a session
# with synchronous_commit = on (the fuzzer's held writer) waits in COMMIT
# after its commit record until it is cancelled; every other session
# commits with synchronous_commit = local.
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'bloomfilter'
synchronous_standby_names = 'nobody'
synchronous_commit = local
bloomfilter.summary_buffer_keys = 1024
max_connections = 40
fsync = off
});
$node->start;

# First the shrunk sequences of issue 34's cases the fuzzer found
# (summary_cases/*.trace), each replayed in a new database: a failure of
# one of them names its case.
for my $trace (sort glob("$dir/summary_cases/*.trace"))
{
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ $python, "$dir/summary_replay.py",
		'--dsn', 'host=' . $node->host . ' port=' . $node->port, '--trace', $trace ],
		'>', \$out, '2>', \$err, IPC::Run::timeout(120));
	my $name = (File::Spec->splitpath($trace))[2];
	ok($ok && $out =~ /: no failure$/m, "replay of $name: pruning on and off agree")
	  or diag("$out\n$err");
}

my $state = $node->basedir . '/fuzz_state.json';
my $findings = $node->basedir . '/fuzz_findings.txt';
note("findings, with all their statements: $findings");
my %total;
my $segments = $crashes + 1;
for my $segment (0 .. $crashes)
{
	if ($segment > 0)
	{
		$node->stop('immediate');
		$node->start;
	}
	my ($out, $err) = ('', '');
	my @cmd = ($python, $fuzzer,
		'--dsn', 'host=' . $node->host . ' port=' . $node->port . ' dbname=postgres',
		'--seconds', $seconds / $segments, '--seed', $seed + $segment,
		'--state', $state, '--findings', $findings);
	my $ok = IPC::Run::run(\@cmd, '>', \$out, '2>', \$err,
		IPC::Run::timeout($seconds + 600));
	note($out);
	diag("fuzzer stderr:\n$err") if $err ne '';
	ok($ok, "segment $segment: the fuzzer ran (seed " . ($seed + $segment) . ")");
	my ($json) = $out =~ /^STATS (.*)$/m;
	my $stats = defined $json ? decode_json($json) : {};
	for my $k (keys %$stats)
	{
		next if $k eq 'seed' || ref $stats->{$k};
		$total{$k} += $stats->{$k};
	}
	for my $case (keys %{ $stats->{findings_by_case} // {} })
	{
		$total{"case $case"} += $stats->{findings_by_case}{$case};
	}
	# the first findings with their statements, for the log
	my @blocks = $out =~ /^(FINDING .*?)(?=^FINDING |^STATS )/msg;
	diag(substr(join('', @blocks[0 .. ($#blocks < 5 ? $#blocks : 5)]), 0, 20000)) if @blocks;
}

diag(join(', ', map { "$_=$total{$_}" } sort keys %total));
if (my $file = $ENV{BLOOM_FUZZ_RESULTS})
{
	open(my $fh, '>', $file) or die "$file: $!";
	print $fh JSON::PP->new->canonical->encode({ %total, seed => $seed, seconds => $seconds });
	close $fh;
}

is($total{wrong_results} // 0, 0, 'no read differs with summary pruning on and off');
is($total{spurious_errors} // 0, 0, 'no write fails with pruning on that succeeds with it off');
is($total{invalid_statements} // 0, 0, 'no statement of the fuzzer fails with pruning off too');
is($total{crash_rows_missing} // 0, 0, 'no committed row is missing after a crash');
is($total{crash_checks} // 0, $crashes, "each of the $crashes restarts was checked");
cmp_ok($total{reads_skipped} // 0, '>=', $min_skips, "at least $min_skips reads skipped a partition");
cmp_ok($total{or_reads_skipped} // 0, '>=', 1, 'some reads under an OR skipped a partition');
is($total{or_other_reads_skipped} // 0, 0, 'no read under an OR with an arm that fixes nothing skipped a partition');
cmp_ok($total{concurrent_rounds} // 0, '>=', 1, 'some rounds ran sessions concurrently');
cmp_ok($total{held_commits} // 0, '>=', 1, 'some commits were held in flight');

$node->stop;
done_testing();
