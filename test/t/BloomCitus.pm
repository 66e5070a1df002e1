# Helpers shared by the Citus tests (test/t/96x_citus_*.pl): a cluster of a
# coordinator and workers on this machine, each with
# shared_preload_libraries = 'citus,bloomfilter' (so the coordinator's
# planner hooks are there from a session's first statement, as the README
# asks), and what the tests read from its plans.  A test file skips itself
# whole when Citus is not installed in the PostgreSQL under test
# (scripts/test builds it where it can; see scripts/citus.sh).  Load with
#   use FindBin; use lib $FindBin::RealBin; use BloomCitus;
package BloomCitus;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(skip_without_citus citus_cluster task_queries);

# Skips the whole test file (plan skip_all) unless citus.so is installed.
sub skip_without_citus
{
	my $libdir = `pg_config --pkglibdir`;
	chomp $libdir;
	my $version = `pg_config --version`;
	chomp $version;
	plan skip_all => "Citus is not installed for $version (no $libdir/citus.so): "
	  . 'the Citus tests are skipped (scripts/citus.sh builds it for PostgreSQL 15 and 17, which Citus 13.2 supports)'
	  unless -f "$libdir/citus.so";
	return;
}

# A coordinator and $nworkers workers, Citus created on each and the
# workers registered; the coordinator is in the metadata too (group 0), so
# local tables join distributed ones.  Returns ($coordinator, @workers).
sub citus_cluster
{
	my ($nworkers) = @_;
	my @nodes;
	for my $name ('coordinator', map { "worker$_" } 1 .. $nworkers)
	{
		my $node = PostgreSQL::Test::Cluster->new($name);
		$node->init;
		# Citus connects between nodes over TCP, as in production.
		$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'citus,bloomfilter'
listen_addresses = '127.0.0.1'
max_connections = 100
max_worker_processes = 16
citus.shard_count = 32
});
		$node->start;
		$node->safe_psql('postgres', 'CREATE EXTENSION citus');
		push @nodes, $node;
	}
	my ($coordinator, @workers) = @nodes;
	$coordinator->safe_psql('postgres',
		"SELECT citus_set_coordinator_host('127.0.0.1', " . $coordinator->port . ')');
	$coordinator->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $_->port . ')')
	  for @workers;
	return ($coordinator, @workers);
}

# The queries Citus sends to the shards for $query (EXPLAIN VERBOSE, every
# task shown), after the SET statements in $settings if given: a list of
# "Query: ..." texts.
sub task_queries
{
	my ($node, $query, $settings) = @_;
	$settings //= '';
	my $plan = $node->safe_psql('postgres',
		"SET citus.explain_all_tasks = on; $settings EXPLAIN (VERBOSE, COSTS OFF) $query");
	return map { /^\s*Query: (.*)$/ ? ($1) : () } split(/\n/, $plan);
}

1;
