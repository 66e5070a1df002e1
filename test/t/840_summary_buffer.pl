# Managed summaries with the shared buffer (the library preloaded): small
# transactions' keys go to shared memory, vouched for by marker rows.
# Checked here, each against the same queries with pruning off:
#   - single-row writers leave one marker and no delta row; a key only in
#     the buffer keeps its partition, an absent key is skipped;
#   - a rolled-back writer, PREPARE TRANSACTION (delta rows), the buffer
#     switched off (delta rows), a buffer too full to take more (delta
#     rows while an old snapshot keeps merged keys in it);
#   - eight concurrent writers with a small buffer, merging as they go: no
#     key lost (every key found through a generic plan and through a
#     nested loop's guard), no lock wait;
#   - a refresh while keys are buffered keeps them;
#   - a reader checking committed keys while writers, merges and
#     refreshes run at once never finds one skipped;
#   - a writer held after its commit reached clog (synchronous replication
#     to a standby that never comes): a later writer writes its own marker,
#     and a merge, a settle and a refresh meanwhile lose none of its keys;
#   - a hot standby never skips a partition whose keys are buffered on the
#     primary;
#   - a crash loses the buffer: the partitions it held keys of are not
#     skipped until bloom_summary_merge() refreshes them;
#   - a dropped leaf's buffered keys are discarded, not before its drop
#     commits;
#   - only an owner may take a partition's buffered keys.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('summary_buffer');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'bloomfilter'
bloomfilter.summary_buffer_partitions = 8
bloomfilter.summary_buffer_keys = 512
max_prepared_transactions = 4
max_connections = 40
log_lock_waits = on
deadlock_timeout = 10ms
track_functions = 'all'
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE ev (day int NOT NULL, user_id bigint, payload text) PARTITION BY LIST (day);
CREATE TABLE ev1 PARTITION OF ev FOR VALUES IN (1);
CREATE TABLE ev2 PARTITION OF ev FOR VALUES IN (2);
CREATE TABLE ev3 PARTITION OF ev FOR VALUES IN (3);
INSERT INTO ev SELECT 1 + g % 3, g, 'old' FROM generate_series(1, 3000) g;
SELECT bloom_summary_create('ev', 'user_id', 20000, 0.01);
-- How many keys a generic plan of "user_id = $1" (decided at executor
-- start) finds fewer rows of than a query the summary cannot prune.
CREATE FUNCTION keys_lost(keys bigint[]) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	k bigint;
	lost bigint := 0;
	n bigint;
	m bigint;
BEGIN
	SET LOCAL plan_cache_mode = force_generic_plan;
	FOREACH k IN ARRAY keys LOOP
		SELECT count(*) INTO n FROM ev WHERE user_id = k;
		SELECT count(*) INTO m FROM ev WHERE user_id + 0 = k;
		IF n <> m THEN
			lost := lost + 1;
		END IF;
	END LOOP;
	RETURN lost;
END $$;
});

sub sql { return $node->safe_psql('postgres', $_[0]); }

sub skipped
{
	my ($n, $key, $db) = @_;
	my $cond = $key =~ /^\d+$/ ? "user_id = $key" : $key;
	my $plan = $n->safe_psql($db // 'postgres',
		"EXPLAIN (COSTS OFF) SELECT * FROM ev WHERE day = 2 AND $cond");
	return $plan =~ /BloomSummarySkipped/ ? 1 : 0;
}

isnt(sql(q{SELECT bloom_summary_buffer_epoch()}), '', 'the preloaded server has a buffer epoch');

# ---- single-row writers ----
sql("INSERT INTO ev VALUES (2, 1000000 + $_, 'new')") for 1 .. 20;
is(sql(q{SELECT count(*) FILTER (WHERE buffer_epoch IS NULL) || '/' || count(*) FILTER (WHERE buffer_epoch IS NOT NULL)
       FROM bloom_summary_delta WHERE partition = 'ev2'::regclass}),
	'0/1', 'twenty single-row writers: no delta row, one marker');
is(sql(q{SELECT buffered_keys || '/' || pending_deltas FROM bloom_summaries}), '20/0',
	'the view counts 20 buffered keys');
is(skipped($node, 1000005), 0, 'a key only in the buffer keeps its partition');
is(skipped($node, 7777777), 1, 'an absent key is skipped');
is(skipped($node, 'user_id IN (7777771, 7777772, 7777773, 7777774, 7777775, 7777776)'), 1,
	'six absent keys: skipped');
is(skipped($node, 'user_id IN (7777771, 7777772, 7777773, 1000017, 7777775, 7777776)'), 0,
	'six keys, one of them buffered: kept');
is(sql(q{SELECT keys_lost(ARRAY(SELECT user_id FROM ev))}), '0',
	'every key found through a generic plan');

# a rolled-back writer: its keys may stay buffered, its rows are gone
sql(q{BEGIN; INSERT INTO ev VALUES (2, 2000001, 'gone'); ROLLBACK;});
is(sql(q{SELECT count(*) FROM ev WHERE user_id = 2000001}), '0', 'a rolled-back row is not there');
is(sql(q{SELECT keys_lost(ARRAY[2000001, 1000001, 1000020]::bigint[])}), '0',
	'answers equal after a rollback');

# PREPARE TRANSACTION writes a delta row: a prepared transaction may outlive the buffer
sql(q{BEGIN; INSERT INTO ev VALUES (2, 3000001, 'prep'); PREPARE TRANSACTION 'p1';});
sql(q{COMMIT PREPARED 'p1'});
is(sql(q{SELECT count(*) FROM bloom_summary_delta WHERE partition = 'ev2'::regclass AND buffer_epoch IS NULL AND nkeys = 1}),
	'1', 'a prepared transaction writes a delta row');
is(skipped($node, 3000001), 0, 'its key keeps the partition');

# the buffer switched off: delta rows
sql(q{SET bloomfilter.summary_buffer = off; INSERT INTO ev VALUES (3, 4000001, 'off');});
is(sql(q{SELECT count(*) FROM bloom_summary_delta WHERE partition = 'ev3'::regclass}),
	'1', 'with bloomfilter.summary_buffer off a writer writes a delta row');

# a merge unites the buffer and retires the markers
sql(q{SELECT bloom_summary_merge()});
is(sql(q{SELECT count(*) FROM bloom_summary_delta}), '0', 'a merge leaves no delta and no marker');
is(sql(q{SELECT bool_and(bloom_contains(filter, k)) FROM bloom_summary_part,
              unnest(ARRAY[1000001, 1000020, 3000001]::bigint[]) k WHERE partition = 'ev2'::regclass}),
	't', 'the merged filter holds the buffered keys');
is(sql(q{SELECT keys_lost(ARRAY(SELECT user_id FROM ev))}), '0', 'every key found after the merge');

# ---- a full buffer: an old snapshot keeps merged keys in it ----
my $old = $node->background_psql('postgres');
$old->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM ev1;});
sql("INSERT INTO ev VALUES (1, 5000000 + $_, 'full')") for 1 .. 700;
cmp_ok(sql(q{SELECT count(*) FROM bloom_summary_delta WHERE partition = 'ev1'::regclass AND buffer_epoch IS NULL}),
	'>', 0, 'past a full buffer writers write delta rows');
$old->query_safe('COMMIT');
$old->quit;
is(sql(q{SELECT keys_lost(ARRAY(SELECT user_id FROM ev WHERE day = 1))}), '0',
	'every key found with keys in the buffer, merged and in delta rows');

# ---- a refresh while keys are buffered ----
sql("INSERT INTO ev VALUES (3, 6000000 + $_, 'r')") for 1 .. 10;
sql(q{SELECT bloom_summary_refresh('ev', 'user_id', 'ev3')});
sql("INSERT INTO ev VALUES (3, 6000100 + $_, 'r')") for 1 .. 10;
is(sql(q{SELECT keys_lost(ARRAY(SELECT user_id FROM ev WHERE day = 3))}), '0',
	'keys buffered before and after a refresh are found');

# ---- a leaf leaving the summary frees its keys in the buffer ----
sql(q{CREATE TABLE ev4 PARTITION OF ev FOR VALUES IN (4)});
my $ev4 = sql(q{SELECT 'ev4'::regclass::oid});
sql("INSERT INTO ev VALUES (4, 6200000 + $_, 'gone')") for 1 .. 3;
is(sql("SELECT bloom_summary_buffered_keys(1, $ev4)"), '3', 'a new leaf has 3 keys buffered');
sql(q{BEGIN; DROP TABLE ev4; ROLLBACK;});
is(sql("SELECT bloom_summary_buffered_keys(1, $ev4)"), '3', 'a DROP TABLE rolled back keeps them');
sql(q{DROP TABLE ev4});
is(sql("SELECT bloom_summary_buffered_keys(1, $ev4)"), '0', 'DROP TABLE discards them');

# ---- eight concurrent writers, a small buffer, merging as they go ----
my $log_offset = -s $node->logfile;
my $clients = 8;
my $transactions = $ENV{BLOOM_SUMMARY_TX} // 300;
$node->pgbench(
	"--no-vacuum --client=$clients --jobs=2 --transactions=$transactions",
	0,
	[qr{processed: @{[ $clients * $transactions ]}/@{[ $clients * $transactions ]}}],
	[qr{^$}],
	'eight sessions insert single rows into one partition through the buffer',
	{
		'insert' => q{
\set v random(10000000, 1000000000000)
INSERT INTO ev VALUES (2, :v, 'x');
},
	});
is(sql(q{SELECT keys_lost(ARRAY(SELECT user_id FROM ev WHERE day = 2))}), '0',
	'no key of the eight writers is lost (generic plans)');
is(sql(q{
	SET bloomfilter.enable_summary_pruning = on;
	SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;
	SELECT count(*) FROM (SELECT user_id FROM ev WHERE day = 2) k
	WHERE EXISTS (SELECT 1 FROM ev e WHERE e.day = 2 AND e.user_id = k.user_id)}),
	sql(q{SELECT count(*) FROM ev WHERE day = 2}),
	'no key of the eight writers is lost (a nested loop\'s guard)');
cmp_ok(sql(q{SELECT count(*) FROM bloom_summary_delta WHERE buffer_epoch IS NOT NULL}), '<=', 2 * $clients,
	'a handful of markers for 2,400 transactions');
my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/still waiting for/, 'no writer waited for a lock');

# ---- readers during writes, merges and refreshes ----
# Six writers, a reader that checks committed keys of ev2 while they
# write (a key read from the leaf itself, then looked up through the
# parent by a generic plan, at executor start: an error if the summary
# skips it), a merger and a refresher of ev2, all at once.
sql(q{
CREATE FUNCTION check_keys(n int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	k bigint;
	c bigint;
BEGIN
	SET LOCAL plan_cache_mode = force_generic_plan;
	FOR i IN 1..n LOOP
		SELECT user_id INTO k FROM ev2 ORDER BY random() LIMIT 1;
		SELECT count(*) INTO c FROM ev WHERE user_id = k;
		IF c = 0 THEN
			RAISE EXCEPTION 'key % of ev2 not found through the summary', k;
		END IF;
	END LOOP;
END $$;
});
$node->pgbench(
	"--no-vacuum --client=9 --jobs=3 --time=" . ($ENV{BLOOM_SUMMARY_SECONDS} // 8),
	0,
	[qr{processed: [1-9]}],
	[qr{^$}],
	'writers, a reader, merges and refreshes at once: no error',
	{
		'writer@60' => q{
\set v random(10000000, 1000000000000)
INSERT INTO ev VALUES (2, :v, 'x');
},
		'reader@25' => q{
SELECT check_keys(5);
},
		'merger@10' => q{
SELECT bloom_summary_merge();
},
		'refresher@5' => q{
SELECT bloom_summary_refresh('ev', 'user_id', 'ev2');
},
	});
is(sql(q{SELECT keys_lost(ARRAY(SELECT user_id FROM ev WHERE day = 2))}), '0',
	'no key lost after writes, merges and refreshes at once');
is(sql(q{SELECT count(*) FILTER (WHERE calls > 0) FROM pg_stat_user_functions
         WHERE funcname IN ('check_keys', 'bloom_summary_merge', 'bloom_summary_refresh')}), '3',
	'the reader, the merger and the refresher all ran');
note(sql(q{SELECT string_agg(funcname || ': ' || calls, ', ' ORDER BY funcname) FROM pg_stat_user_functions
           WHERE funcname IN ('check_keys', 'bloom_summary_merge', 'bloom_summary_refresh')}));

# ---- commits in flight: recorded in clog, held by synchronous replication ----
# synchronous_standby_names names a standby that never comes, and only the
# held session asks for a synchronous commit: its commit is in clog and
# waits, still in the proc array, invisible to every snapshot (issue 34,
# case 4).  Its transaction writes a key into ev3, whose slot has a
# committed marker, and one into ev1, whose slot has none.
sql(q{SELECT bloom_summary_merge()});
sql(q{INSERT INTO ev VALUES (3, 9500001, 'marker')});
sql(q{ALTER SYSTEM SET synchronous_standby_names = 'bloomfilter_no_such_standby'});
sql(q{ALTER SYSTEM SET synchronous_commit = off});
$node->reload;
my $held = $node->background_psql('postgres');
$held->query_safe(q{SET synchronous_commit = on});
$held->query_until(qr/held/, qq{\\echo held\nINSERT INTO ev VALUES (3, 9500002, 'held'), (1, 9500003, 'held');\n});
ok($node->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'SyncRep'}),
	'a writer is held after its commit reached clog');
is(sql(q{SELECT count(*) FROM ev WHERE user_id IN (9500002, 9500003)}), '0', 'its rows are not visible yet');
# a marker in clog but in the proc array vouches for nothing yet
sql(q{INSERT INTO ev VALUES (1, 9500004, 'after')});
is(sql(q{SELECT count(*) FROM ev WHERE user_id = 9500004}), '1',
	'a writer after it does not rely on its marker: its key is found');
# a merge takes the held writer's hashes and retires ev3's marker; a
# settle; a refresh of ev3 whose snapshot does not see the writer
sql(q{SELECT bloom_summary_merge()});
sql(q{SELECT sum(buffered_keys) FROM bloom_summaries});
sql(q{SELECT bloom_summary_refresh('ev', 'user_id', 'ev3')});
sql(q{ALTER SYSTEM RESET synchronous_standby_names});
$node->reload;
ok($node->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM pg_stat_activity WHERE wait_event = 'SyncRep'}),
	'the writer is released');
$held->query_safe(q{SELECT 1});
$held->quit;
sql(q{ALTER SYSTEM RESET synchronous_commit});
$node->reload;
is(sql(q{SELECT count(*) FROM ev WHERE user_id + 0 IN (9500002, 9500003)}), '2', 'its rows are visible');
is(sql(q{SELECT keys_lost(ARRAY[9500001, 9500002, 9500003, 9500004]::bigint[])}), '0',
	'no key of a writer held in flight is lost to the merge, the settle or the refresh');
is(sql(q{SELECT count(*) FROM ev WHERE user_id = 9500002}), '1', 'its key in the refreshed leaf is found');

# ---- a hot standby never reads the primary's buffer ----
sql(q{SELECT bloom_summary_merge()});
$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('summary_buffer_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->start;
sql("INSERT INTO ev VALUES (2, 8000000 + $_, 'standby')") for 1 .. 5;
$node->wait_for_catchup($standby);
is($standby->safe_psql('postgres', q{SELECT bloom_summary_buffer_epoch() IS NULL}), 't',
	'a standby has no buffer epoch');
is(skipped($standby, 8000003), 0, 'the standby does not skip a partition whose keys are buffered on the primary');
is(skipped($standby, 7777777), 0, '... not even for an absent key');
is(skipped($node, 7777778), 1, 'the primary skips it for an absent key');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM ev WHERE day = 2 AND user_id = 8000003}), '1',
	'the standby finds the row');
$standby->stop;

# ---- a database copied with keys in the buffer: its markers are of another epoch ----
sql("INSERT INTO ev VALUES (2, 8100001, 'template')");
sql('CREATE DATABASE copied TEMPLATE postgres');
is(skipped($node, 8100001, 'copied'), 0,
	'in a copy of the database a partition whose keys were buffered is not skipped');
is($node->safe_psql('copied', q{SELECT count(*) FROM ev WHERE day = 2 AND user_id = 8100001}), '1',
	'... and the row is found there');
is($node->safe_psql('copied', q{SELECT untrusted_partitions FROM bloom_summaries}), '1',
	'... where the view counts it untrusted');
is(skipped($node, 8100001), 0, 'the original still finds it in the buffer');

# ---- a crash loses the buffer ----
sql(q{SELECT bloom_summary_merge()});
sql("INSERT INTO ev VALUES (1, 9000000 + $_, 'crash')") for 1 .. 5;
$node->stop('immediate');
$node->start;
is(sql(q{SELECT untrusted_partitions FROM bloom_summaries}), '1',
	'after a crash the partition whose buffered keys were lost is untrusted');
is(sql(q{SELECT count(*) FROM ev WHERE day = 1 AND user_id = 9000003}), '1', 'the row written before the crash is found');
is(sql(q{EXPLAIN (COSTS OFF) SELECT * FROM ev WHERE day = 1 AND user_id = 7777777}) =~ /BloomSummarySkipped/ ? 1 : 0,
	0, 'that partition is not skipped');
is(sql(q{SELECT keys_lost(ARRAY(SELECT user_id FROM ev WHERE day = 1))}), '0', 'no key lost after the crash');
sql(q{SELECT bloom_summary_merge()});
is(sql(q{SELECT untrusted_partitions || '/' || trusted_partitions FROM bloom_summaries}), '0/3',
	'bloom_summary_merge() refreshes it');
is(sql(q{EXPLAIN (COSTS OFF) SELECT * FROM ev WHERE day = 1 AND user_id = 7777777}) =~ /BloomSummarySkipped/ ? 1 : 0,
	1, 'it is skipped again for an absent key');
is(sql(q{SELECT keys_lost(ARRAY(SELECT user_id FROM ev WHERE day = 1))}), '0', 'and every key is found');

# ---- privileges ----
sql(q{CREATE ROLE stranger});
my ($rc, $out, $err);
($rc, $out, $err) = $node->psql('postgres', q{
	SET ROLE stranger;
	SELECT bloom_summary_unite_buffered(bloom_empty(100, 0.01), 1, 'ev1'::regclass)});
like($err, qr/must be owner of table/, 'a stranger may not unite a partition\'s buffered keys');

done_testing();
