# Clients: the programs in test/clients/ check every claim of doc/clients.md
# with psycopg2 and node-postgres, and check doc/format.md with a decoder
# written from that page alone, against a server with the extension.  Each
# line a program prints ("ok - ..." or "not ok - ...") becomes one assertion
# here.  A client is skipped, with a message, only when its package is not
# installed (python3-psycopg2 from Debian; pg and pg-copy-streams, which
# scripts/test installs into test/clients/node_modules with `npm ci`).
use strict;
use warnings;
use File::Spec;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $dir = File::Spec->rel2abs(($ENV{TESTDIR} // '.') . '/test/clients');
# Debian's interpreter: a python3 earlier in PATH may lack Debian's psycopg2.
my $python = '/usr/bin/python3';
my ($node_bin) = grep { -x } map { "$_/node" } split(/:/, $ENV{PATH}), '/usr/bin';

my $node = PostgreSQL::Test::Cluster->new('clients');
$node->init;
$node->start;
# The clients connect as an ordinary role, as an application would.
$node->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE ROLE app LOGIN;
});

# run_client(LABEL, MINIMUM, COMMAND...): runs a client program in
# test/clients, one assertion per check it prints, then asserts that it
# exited 0 and made at least MINIMUM checks (so that a program that stops
# early, or checks nothing, fails).
sub run_client
{
	my ($label, $minimum, @cmd) = @_;
	my ($out, $err) = ('', '');
	local $ENV{PGHOST} = $node->host;
	local $ENV{PGPORT} = $node->port;
	local $ENV{PGDATABASE} = 'postgres';
	local $ENV{PGUSER} = 'app';
	my $ok = IPC::Run::run(\@cmd, '>', \$out, '2>', \$err,
		init => sub { chdir $dir or die "chdir $dir: $!" },
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	note("$label stderr:\n$err") if $err ne '';
	my $checks = 0;
	for my $line (split /\n/, $out)
	{
		if ($line =~ /^(not )?ok - (.*)$/)
		{
			$checks++;
			ok(!defined $1, "$label: $2");
		}
		elsif ($line =~ /^#/)
		{
			note("$label $line");
		}
	}
	ok($ok, "$label exits 0") or diag("stdout:\n$out\nstderr:\n$err");
	cmp_ok($checks, '>=', $minimum, "$label makes at least $minimum checks");
}

SKIP:
{
	skip "python3-psycopg2 is not installed: the psycopg2 and format checks do not run", 1
	  unless -x $python && system($python, '-c', 'import psycopg2') == 0;
	run_client('psycopg2', 25, $python, 'check_psycopg2.py');
	run_client('format', 128, $python, 'check_format.py');
}

SKIP:
{
	skip "node is not installed: the node-postgres checks do not run", 1
	  unless defined $node_bin;
	skip "pg or pg-copy-streams is not in $dir/node_modules (npm ci there): "
	  . "the node-postgres checks do not run", 1
	  unless -d "$dir/node_modules/pg" && -d "$dir/node_modules/pg-copy-streams";
	run_client('node-postgres', 25, $node_bin, 'check_node.js');
}

$node->stop;
done_testing();
