# The runtime join filters never change a result (issue 36, item 1): the
# differential fuzzer test/fuzz/differential/joinfilter_fuzz.py makes
# random schemas and statements of every join type, spilling joins,
# rescans, prepared statements and cursors, and runs each with
# bloomfilter.join_filter on and off.  Asserted: no result differs, no
# error appears only with the filters on, and the filters were applied in
# a large share of the statements (BLOOM_FUZZ_MIN_FIRED_SHARE, default
# 0.4) for that to mean something.
#
# BLOOM_FUZZ_SECONDS (default 60) is the time budget; BLOOM_FUZZ_SEED fixes
# the seed (printed at the start, so that a failure can be replayed).
use strict;
use warnings;
use File::Spec;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomFuzz;

# Debian's interpreter: a python3 earlier in PATH may lack Debian's psycopg2.
my $python = '/usr/bin/python3';
my $fuzzer = File::Spec->rel2abs(($ENV{TESTDIR} // '.') . '/test/fuzz/differential/joinfilter_fuzz.py');
my $seconds = $ENV{BLOOM_FUZZ_SECONDS} // 60;
my $seed = $ENV{BLOOM_FUZZ_SEED} // int(rand(1_000_000_000));
my $min_share = $ENV{BLOOM_FUZZ_MIN_FIRED_SHARE} // 0.4;

plan skip_all => "python3-psycopg2 is not installed: the join filter fuzzer does not run"
  unless -x $python && system($python, '-c', 'import psycopg2') == 0;

# autovacuum off: the fuzzer's statistics are those of its own ANALYZE, so
# that a seed replays the same plans.
my $node = PostgreSQL::Test::Cluster->new('joinfilter_fuzz');
$node->init;
$node->append_conf('postgresql.conf',
	"autovacuum = off\nshared_preload_libraries = 'bloomfilter'\nmax_worker_processes = 8\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');

my $dsn = sprintf('host=%s port=%d dbname=postgres', $node->host, $node->port);
my @cmd = ($python, $fuzzer, '--dsn', $dsn, '--seconds', $seconds, '--seed', $seed);
my ($out, $s) = run_fuzzer('join filter fuzz', $seconds, $seed, @cmd);
my %s = %$s;
cmp_ok($s{fired} // 0, '>=', $min_share * ($s{queries} // 0),
	"the filters were applied in at least a share $min_share of the statements ("
	  . ($s{fired} // 0) . ' of ' . ($s{queries} // 0) . ')');
is($s{differences} // -1, 0, 'no result differs between the filters on and off');
is($s{errors_on_only} // -1, 0, 'no error appears only with the filters on');
if (($s{differences} // 1) || ($s{errors_on_only} // 1))
{
	diag(join("\n", grep { /^#/ } split /\n/, $out));
	diag("replay one: $python test/fuzz/differential/joinfilter_fuzz.py --dsn ... --seed $seed --round R");
}

$node->stop;
done_testing();
