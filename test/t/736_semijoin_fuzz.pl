# The automatic semijoin prefilter never changes a result (issue 33): the
# differential fuzzer test/fuzz/differential/semijoin_fuzz.py, run against a
# local server and two remote servers, makes random schemas (declared types
# over other remote types, nondeterministic collations, partitioned foreign
# tables, foreign build sides) and random statements, and runs each with
# bloomfilter.semijoin_prefilter on and off.  Asserted: no result differs,
# no error appears only with the rewrite on, and the rewrite fired often
# enough for that to mean something.
#
# BLOOM_FUZZ_SECONDS (default 120) is the time budget; BLOOM_FUZZ_SEED fixes
# the seed (printed at the start, so that a failure can be replayed);
# BLOOM_FUZZ_MIN_FIRED (default 200) the least number of statements whose
# plan must hold the filter.  A failure prints each finding with its schema,
# settings and statement, and the command that replays it.
use strict;
use warnings;
use File::Spec;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomFdw;
use BloomFuzz;

# Debian's interpreter: a python3 earlier in PATH may lack Debian's psycopg2.
my $python = '/usr/bin/python3';
my $fuzzer = File::Spec->rel2abs(($ENV{TESTDIR} // '.') . '/test/fuzz/differential/semijoin_fuzz.py');
my $seconds = $ENV{BLOOM_FUZZ_SECONDS} // 120;
my $seed = $ENV{BLOOM_FUZZ_SEED} // int(rand(1_000_000_000));
my $min_fired = $ENV{BLOOM_FUZZ_MIN_FIRED} // 200;

plan skip_all => "python3-psycopg2 is not installed: the semijoin fuzzer does not run"
  unless -x $python && system($python, '-c', 'import psycopg2') == 0;

# autovacuum off: the fuzzer's statistics are those of its own ANALYZE, so
# that a seed replays the same plans.
my %nodes;
for my $name (qw(local a b))
{
	my $node = PostgreSQL::Test::Cluster->new("fuzz_$name");
	$node->init;
	$node->append_conf('postgresql.conf', "autovacuum = off\n");
	$node->append_conf('postgresql.conf', "session_preload_libraries = 'bloomfilter'\n")
	  if $name eq 'local';
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION bloomfilter');
	$nodes{$name} = $node;
}
my $local = $nodes{local};
$local->safe_psql('postgres', 'CREATE EXTENSION postgres_fdw;'
	  . foreign_server_sql('a', $nodes{a}) . foreign_server_sql('b', $nodes{b}));

sub dsn
{
	my ($node) = @_;
	return sprintf('host=%s port=%d dbname=postgres', $node->host, $node->port);
}

my @cmd = ($python, $fuzzer, '--local', dsn($local),
	'--remote', 'a=' . dsn($nodes{a}), '--remote', 'b=' . dsn($nodes{b}),
	'--seconds', $seconds, '--seed', $seed);
my ($out, $s) = run_fuzzer('semijoin fuzz', $seconds, $seed, @cmd);
my %s = %$s;
cmp_ok($s{fired} // 0, '>=', $min_fired,
	"the rewrite fired in at least $min_fired statements (of " . ($s{queries} // 0) . ')');
is($s{differences} // -1, 0, 'no result differs between the rewrite on and off');
is($s{errors_on_only} // -1, 0, 'no error appears only with the rewrite on');
if (($s{differences} // 1) || ($s{errors_on_only} // 1))
{
	# the findings, each with its schema, settings and statement (not the
	# table of statements by form)
	diag(join("\n", grep { /^#/ && !/^#   (form|mode|build) / } split /\n/, $out));
	diag("replay one: $python test/fuzz/differential/semijoin_fuzz.py --local ... --remote a=... "
		  . "--remote b=... --seed $seed --round R --query Q");
}

$_->stop for values %nodes;
done_testing();
