# Managed summaries through pg_dump and pg_restore.  The catalog is dumped
# as extension configuration, its regclass columns as names, so the rows
# find the restored partitions (whose OIDs differ).  A restore re-creates
# the summary's trigger after the data (CREATE TRIGGER, then ENABLE
# ALWAYS): the partitions come back untrusted, and bloom_summary_refresh
# trusts them again.  A data-only restore with --disable-triggers leaves
# them untrusted too.  Then writers reach the restored summary.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('summary_dump');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE ev (day int NOT NULL, user_id bigint) PARTITION BY LIST (day);
CREATE TABLE ev1 PARTITION OF ev FOR VALUES IN (1);
CREATE TABLE ev2 PARTITION OF ev FOR VALUES IN (2);
INSERT INTO ev SELECT 1 + g % 2, g FROM generate_series(1, 2000) g;
SELECT bloom_summary_create('ev', 'user_id', 10000, 0.01);
INSERT INTO ev VALUES (1, 100001), (2, 100002);
});

my $missing = q{
	SELECT count(*) FROM ev e
	WHERE NOT EXISTS (SELECT 1 FROM bloom_summary_part p
	                  WHERE p.partition = e.tableoid AND bloom_contains(p.filter, e.user_id))
	  AND NOT EXISTS (SELECT 1 FROM bloom_summary_delta x
	                  WHERE x.partition = e.tableoid AND bloom_contains(x.filter, e.user_id))};
my $state = q{SELECT string_agg(partition::text || ':' || trusted, ',' ORDER BY partition::text)
	FROM bloom_summary_part};

my $dump = $node->basedir . '/ev.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ], 'pg_dump');

# 1. a whole restore into a new database
$node->safe_psql('postgres', 'CREATE DATABASE r1');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('r1'), $dump ], 'pg_restore');
is($node->safe_psql('r1', 'SELECT summary, partitions, pending_deltas FROM bloom_summaries'),
	'ev(user_id)|2|2', 'the summary, its partitions and its deltas come back');
is($node->safe_psql('r1', $state), 'ev1:false,ev2:false', 'restored partitions are untrusted');
is($node->safe_psql('r1', $missing), '0', 'the restored filters and deltas hold every key');
is($node->safe_psql('r1', q{SELECT string_agg(tgrelid::regclass::text || ':' || tgenabled::text, ',' ORDER BY tgrelid::regclass::text)
	FROM pg_trigger WHERE tgname LIKE 'bloom_summary_%'}), 'ev:A,ev1:A,ev2:A', 'the trigger fires always again');
$node->safe_psql('r1', q{SELECT bloom_summary_refresh('ev', 'user_id')});
is($node->safe_psql('r1', $state), 'ev1:true,ev2:true', 'a refresh trusts them again');
$node->safe_psql('r1', 'INSERT INTO ev VALUES (1, 200001)');
is($node->safe_psql('r1', $missing), '0', 'writers reach the restored summary');

# 2. schema first, then the data with --disable-triggers
$node->safe_psql('postgres', 'CREATE DATABASE r2');
$node->command_ok([ 'pg_restore', '--schema-only', '-d', $node->connstr('r2'), $dump ], 'pg_restore --schema-only');
$node->command_ok([ 'pg_restore', '--data-only', '--disable-triggers', '-d', $node->connstr('r2'), $dump ],
	'pg_restore --data-only --disable-triggers');
is($node->safe_psql('r2', $state), 'ev1:false,ev2:false', 'after --disable-triggers the partitions are untrusted');
is($node->safe_psql('r2', $missing), '0', 'the restored filters and deltas hold every key');
$node->safe_psql('r2', q{SELECT bloom_summary_refresh('ev', 'user_id')});
is($node->safe_psql('r2', $state), 'ev1:true,ev2:true', 'a refresh trusts them again');
is($node->safe_psql('r2', q{SELECT string_agg(DISTINCT tgenabled::text, ',') FROM pg_trigger WHERE tgname LIKE 'bloom_summary_%'}),
	'A', 'and makes the trigger fire always');

$node->stop;
done_testing();
