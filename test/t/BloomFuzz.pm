# What the TAP wrappers of the differential fuzzers (test/t/736_*, 750_*)
# share: running a fuzzer under a time budget and reading the SUMMARY line
# it prints last ("SUMMARY queries=N fired=N differences=N ...").  Each
# wrapper sets up its servers and asserts its own shares.  Load with
#   use FindBin; use lib $FindBin::RealBin; use BloomFuzz;
package BloomFuzz;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(run_fuzzer);

# Runs @cmd (a fuzzer given --seconds $seconds --seed $seed), asserts that
# it exits 0, prints its summary and ran statements; returns its output and
# the summary's fields as a hash reference.
sub run_fuzzer
{
	my ($what, $seconds, $seed, @cmd) = @_;
	diag("$what: seed $seed, $seconds s (BLOOM_FUZZ_SEED=$seed replays it)");
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run(\@cmd, '>', \$out, '2>', \$err,
		IPC::Run::timeout($seconds + $PostgreSQL::Test::Utils::timeout_default));
	note($out);
	note("stderr:\n$err") if $err ne '';

	ok($ok, 'the fuzzer exits 0') or diag("stderr:\n$err");
	my %s;
	if ($out =~ /^SUMMARY (.*)$/m)
	{
		%s = map { split /=/ } split ' ', $1;
	}
	ok(%s, 'the fuzzer prints its summary');
	cmp_ok($s{queries} // 0, '>', 0, 'statements were run');
	return ($out, \%s);
}

1;
