# Managed summaries: eight sessions insert single rows into one partition
# at the same time, with writers merging the deltas as they go.  No key
# is lost (each is in the partition's filter or in one of its deltas), and
# no session ever waits for a lock: with log_lock_waits and a 10 ms
# deadlock_timeout any wait of 10 ms or more is logged, and the log has
# none; pg_locks is sampled for ungranted locks during the run.  Waits to
# extend a table are any inserter's, summary or not, and are not counted.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('summary_writers');
$node->init;
$node->append_conf('postgresql.conf', qq{
max_connections = 30
log_lock_waits = on
deadlock_timeout = 10ms
bloomfilter.summary_merge_deltas = 16
bloomfilter.summary_merge_check_every = 2
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE ev (day int NOT NULL, user_id bigint, payload text) PARTITION BY LIST (day);
CREATE TABLE ev1 PARTITION OF ev FOR VALUES IN (1);
CREATE TABLE ev2 PARTITION OF ev FOR VALUES IN (2);
SELECT bloom_summary_create('ev', 'user_id', 100000, 0.01);
CREATE TABLE waits (locktype text, relation regclass, mode text);
});

my $clients = 8;
my $transactions = $ENV{BLOOM_SUMMARY_TX} // 400;	# per client
my $log_offset = -s $node->logfile;

# a sampler of ungranted locks, running while the writers do
my $sampler = $node->background_psql('postgres');
$sampler->query_until(qr/sampling/, q{
\echo sampling
DO $$
BEGIN
	FOR i IN 1..400 LOOP
		INSERT INTO waits SELECT locktype, relation::regclass, mode FROM pg_locks WHERE NOT granted;
		INSERT INTO waits VALUES ('sample', NULL, NULL);
		PERFORM pg_sleep(0.01);
	END LOOP;
END $$;
});

$node->pgbench(
	"--no-vacuum --client=$clients --jobs=2 --transactions=$transactions",
	0,
	[qr{processed: @{[ $clients * $transactions ]}/@{[ $clients * $transactions ]}}],
	[qr{^$}],
	'eight sessions insert single rows into one partition',
	{
		'insert' => q{
\set v random(1, 1000000000000)
INSERT INTO ev VALUES (1, :v, 'x');
},
	});
$sampler->quit;

is($node->safe_psql('postgres', 'SELECT count(*) FROM ev1'),
	$clients * $transactions, 'every row is there');
is( $node->safe_psql('postgres', q{
	SELECT count(*) FROM ev1 e
	WHERE NOT EXISTS (SELECT 1 FROM bloom_summary_part p
	                  WHERE p.partition = 'ev1'::regclass AND bloom_contains(p.filter, e.user_id))
	  AND NOT EXISTS (SELECT 1 FROM bloom_summary_delta x
	                  WHERE x.partition = 'ev1'::regclass AND bloom_contains(x.filter, e.user_id))}),
	'0', 'no key is lost');
ok( $node->safe_psql('postgres', q{
	SELECT pending_deltas < 8 * 400 FROM bloom_summaries}) eq 't',
	'writers merged deltas as they went');
is($node->safe_psql('postgres', q{SELECT trusted FROM bloom_summary_part WHERE partition = 'ev1'::regclass}),
	't', 'the partition stays trusted');

my $log = slurp_file($node->logfile, $log_offset);
# waits to extend a table (the partition or the delta table, on a loaded
# machine) are any inserter's, with or without a summary
my @waits = grep { !/on extension of relation/ } ($log =~ /(still waiting for [^\n]*)/g);
is(join("\n", @waits), '', 'no session waited for a lock but to extend a table (log_lock_waits, deadlock_timeout 10ms)');
# waits to extend a table (the partition or the delta table) are any
# inserter's, with or without a summary; no other lock may be waited for
is($node->safe_psql('postgres', q{SELECT string_agg(DISTINCT locktype || ' ' || coalesce(relation::text, '') || ' ' || mode, ', ')
	FROM waits WHERE locktype NOT IN ('sample', 'extend')}),
	'', 'no ungranted lock was seen in pg_locks, but to extend a table');
ok($node->safe_psql('postgres', q{SELECT count(*) FROM waits WHERE locktype = 'sample'}) > 100, 'the sampler ran');

$node->stop;
done_testing();
