# Helpers shared by the postgres_fdw tests (test/t/7xx_fdw_*.pl): a foreign
# server that lists the extension, the Remote SQL of a plan, and the checks
# every semijoin prefilter must pass.  Load with
#   use FindBin; use lib $FindBin::RealBin; use BloomFdw;
package BloomFdw;

use strict;
use warnings;
use Exporter 'import';
use Test::More;

our @EXPORT = qw(foreign_server_sql remote_sql check_prefilter
	semijoin_both_ways semijoin_remote_sql);

# SQL creating foreign server $name for $node's database postgres, with
# extensions 'bloomfilter' (so its functions and operators may ship) and any
# further options, and the current user's mapping.
sub foreign_server_sql
{
	my ($name, $node, %options) = @_;
	my $extra = join('', map { ", $_ '$options{$_}'" } sort keys %options);
	my ($host, $port) = ($node->host, $node->port);
	return qq{
	CREATE SERVER $name FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '$host', port '$port', dbname 'postgres', extensions 'bloomfilter'$extra);
	CREATE USER MAPPING FOR CURRENT_USER SERVER $name;
};
}

# The "Remote SQL:" lines of EXPLAIN VERBOSE for $query on $node: a list,
# or in scalar context one string with a line each.
sub remote_sql
{
	my ($node, $query) = @_;
	my $plan = $node->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) $query");
	my @lines = grep { /Remote SQL:/ } split(/\n/, $plan);
	return wantarray ? @lines : join("\n", @lines);
}

# A prefilter ($prefilter: SELECT id FROM $table ... WHERE <probe>) must
# return every row of the exact semijoin ($exact: a predicate on $table),
# and few others: fewer than a tenth of the table's $rows.  Five assertions,
# named after $what.  Returns the semijoin's and the prefilter's row counts.
sub check_prefilter
{
	my ($node, %a) = @_;
	my ($table, $prefilter, $exact, $what) = @a{qw(table prefilter exact what)};
	my $query = sub { $node->safe_psql('postgres', $_[0]) };

	my $exact_count = $query->("SELECT count(*) FROM $table WHERE $exact");
	my $prefilter_count = $query->("SELECT count(*) FROM ($prefilter) p");
	cmp_ok($exact_count, '>', 0, "$what: the semijoin is not empty");
	cmp_ok($prefilter_count, '>=', $exact_count, "$what: the prefilter returns at least the semijoin");
	cmp_ok($prefilter_count, '<', $a{rows} / 10, "$what: the prefilter returns far fewer rows than the table");
	is($query->("SELECT count(*) FROM $table WHERE $exact AND id NOT IN ($prefilter)"), 0,
		"$what: no row of the semijoin is missing from the prefilter (no false negatives)");
	is($query->("SELECT count(*) FROM $table WHERE id IN ($prefilter) AND $exact"), $exact_count,
		"$what: the prefilter plus the exact predicate is exactly the semijoin");
	return ($exact_count, $prefilter_count);
}

# The automatic semijoin prefilter (test/t/71x_*.pl): $query's full result
# on $node with bloomfilter.semijoin_prefilter off and on, each sorted (as
# lines of text), and the Remote SQL lines of its plan with it on.  $setup:
# statements run first in the same session (SET ROLE, settings).
sub semijoin_both_ways
{
	my ($node, $query, $setup) = @_;
	$setup //= '';
	my $off = $node->safe_psql('postgres',
		"$setup; SET bloomfilter.semijoin_prefilter = off; SELECT string_agg(q::text, E'\\n' ORDER BY q::text) FROM ($query) q");
	my $on = $node->safe_psql('postgres',
		"$setup; SET bloomfilter.semijoin_prefilter = on; SELECT string_agg(q::text, E'\\n' ORDER BY q::text) FROM ($query) q");
	return ($off, $on, semijoin_remote_sql($node, $query, $setup));
}

# The Remote SQL lines of $query's plan, the prefilter on, after $setup.
sub semijoin_remote_sql
{
	my ($node, $query, $setup) = @_;
	$setup //= '';
	my $plan = $node->safe_psql('postgres',
		"$setup; SET bloomfilter.semijoin_prefilter = on; EXPLAIN (VERBOSE, COSTS OFF) $query");
	return join("\n", grep { /Remote SQL:/ } split(/\n/, $plan));
}

1;
