# The automatic semijoin prefilter is a planner hook: it works where the
# library is loaded (shared_preload_libraries, session_preload_libraries, or
# loaded earlier in the session), it calls the planner hook installed before
# it, and it does nothing in a database without the extension.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Spec;
use FindBin;
use lib $FindBin::RealBin;
use BloomFdw;

# Another module's planner hook: a NOTICE each time it plans.
# (absolute: the server loads the module from its own directory)
my $dir = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir);
my $hook_c = "$dir/chain_hook.c";
open(my $fh, '>', $hook_c) or die;
print $fh <<'C';
#include "postgres.h"
#include "fmgr.h"
#include "optimizer/planner.h"

PG_MODULE_MAGIC;

void		_PG_init(void);
static planner_hook_type prev_hook = NULL;

static PlannedStmt *
chain_hook(Query *parse, const char *query_string, int options, ParamListInfo params)
{
	elog(NOTICE, "chain_hook planned a query");
	if (prev_hook)
		return prev_hook(parse, query_string, options, params);
	return standard_planner(parse, query_string, options, params);
}

void
_PG_init(void)
{
	prev_hook = planner_hook;
	planner_hook = chain_hook;
}
C
close($fh);
my $includedir = `pg_config --includedir-server`;
chomp $includedir;
my $cc = `pg_config --cc`;
chomp $cc;
system("$cc -shared -fPIC -I'$includedir' -o '$dir/chain_hook.so' '$hook_c'") == 0
	or die "cannot build the test module";

my $remote = PostgreSQL::Test::Cluster->new('remote');
$remote->init;
$remote->start;
$remote->safe_psql('postgres', q{
	CREATE EXTENSION bloomfilter;
	CREATE TABLE orders (id int, customer_id int);
	INSERT INTO orders SELECT g, g % 5000 FROM generate_series(1, 50000) g;
	ANALYZE orders;
});

my $schema = q{
	CREATE EXTENSION postgres_fdw;
} . foreign_server_sql('remote', $remote) . q{
	CREATE FOREIGN TABLE remote_orders (id int, customer_id int)
		SERVER remote OPTIONS (table_name 'orders');
	CREATE TABLE customers (id int, region text);
	INSERT INTO customers SELECT g, CASE WHEN g % 50 = 0 THEN 'EU' ELSE 'US' END
		FROM generate_series(0, 9999) g;
	ANALYZE customers, remote_orders;
};
my $join = q{SELECT count(*) FROM customers c JOIN remote_orders o ON o.customer_id = c.id
	WHERE c.region = 'EU'};
my $filtered = qr/bloom_contains_typed\(\$\d+::public\.bloom, customer_id, 'integer'::text, ''::text, '\w+'::text\)/;

sub plan_of
{
	my ($node, $db, $before) = @_;
	$before //= '';
	my ($ret, $out, $err) = $node->psql($db, "$before EXPLAIN (VERBOSE, COSTS OFF) $join");
	die "EXPLAIN failed: $err" if $ret != 0;
	return ($out, $err);
}

# 1. Preloaded at server start after the other module: both hooks run.
my $preloaded = PostgreSQL::Test::Cluster->new('preloaded');
$preloaded->init;
$preloaded->append_conf('postgresql.conf',
	"shared_preload_libraries = '$dir/chain_hook.so, bloomfilter'");
$preloaded->start;
$preloaded->safe_psql('postgres', "CREATE EXTENSION bloomfilter; $schema");
my ($plan, $notices) = plan_of($preloaded, 'postgres');
like($plan, $filtered, 'shared_preload_libraries: the prefilter is added');
like($notices, qr/chain_hook planned a query/, 'shared_preload_libraries: the hook installed before still runs');
is($preloaded->safe_psql('postgres', $join), '1000', 'shared_preload_libraries: the join is exact');

# The same server with the module loaded before ours in each session.
$preloaded->append_conf('postgresql.conf',
	"shared_preload_libraries = 'bloomfilter'\nsession_preload_libraries = '$dir/chain_hook.so'");
$preloaded->restart;
($plan, $notices) = plan_of($preloaded, 'postgres');
like($plan, $filtered, 'loaded first: the prefilter is added');
like($notices, qr/chain_hook planned a query/, 'loaded first: the other hook runs too');

# 2. Without preloading: a plain join loads nothing, so no prefilter until
# the library is loaded in the session.
my $plain = PostgreSQL::Test::Cluster->new('plain');
$plain->init;
$plain->start;
$plain->safe_psql('postgres', "CREATE EXTENSION bloomfilter; $schema");
($plan) = plan_of($plain, 'postgres');
unlike($plan, qr/bloom_contains/, 'not preloaded: no prefilter in a new session');
($plan) = plan_of($plain, 'postgres', 'SELECT bloom_empty(10) IS NOT NULL;');
like($plan, $filtered, 'not preloaded: a call of an extension function loads the hook for the session');
($plan) = plan_of($plain, 'postgres', "LOAD 'bloomfilter';");
like($plan, $filtered, "not preloaded: LOAD 'bloomfilter' loads the hook");
$plain->safe_psql('postgres', "ALTER DATABASE postgres SET session_preload_libraries = 'bloomfilter'");
($plan) = plan_of($plain, 'postgres');
like($plan, $filtered, 'session_preload_libraries (ALTER DATABASE): the prefilter is added');

# 3. A database without the extension: the hook (preloaded) does nothing.
$plain->safe_psql('postgres', 'CREATE DATABASE noext');
$plain->safe_psql('noext', $schema);
$plain->safe_psql('noext', "ALTER DATABASE noext SET session_preload_libraries = 'bloomfilter'");
($plan) = plan_of($plain, 'noext');
unlike($plan, qr/bloom_contains/, 'no extension in the database: no prefilter');
is($plain->safe_psql('noext', $join), '1000', 'no extension in the database: the join runs');

# 4. The extension dropped and created again in another schema, in the
# same session: found there, by name, whatever the search_path.
$remote->safe_psql('postgres', q{
	DROP EXTENSION bloomfilter;
	CREATE SCHEMA bf;
	CREATE EXTENSION bloomfilter SCHEMA bf;
});
($plan) = plan_of($plain, 'postgres', qq{
	EXPLAIN (VERBOSE, COSTS OFF) $join;
	DROP EXTENSION bloomfilter;
	CREATE SCHEMA bf;
	CREATE EXTENSION bloomfilter SCHEMA bf;
	SET search_path = public;});
like($plan, qr/public\.bloom_contains_typed\(\$\d+::public\.bloom, customer_id,.*bf\.bloom_contains_typed\(\$\d+::bf\.bloom, customer_id,/s,
	'extension moved to another schema in the session: the prefilter names its new schema');
is($plain->safe_psql('postgres', $join), '1000', 'extension in another schema: the join is exact');

done_testing();
