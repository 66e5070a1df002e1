# A transaction's own rows under summary pruning, with the documented
# configuration (shared_preload_libraries = 'bloomfilter': the shared buffer
# on, the hooks installed before the first statement):
# - sql/562_summary_own_rows.sql gives its expected output here too
#   (pg_regress runs it without preloading the library);
# - the session says it prunes (bloom_summaries.pruning_active);
# - logical replication's apply into a summarised table on the subscriber:
#   a subscriber's triggers that fire always see the rows applied before
#   them in the same transaction, and after the apply every read on the
#   subscriber finds the rows, with pruning as without;
# - issue 34's case 5 (a LATERAL lookup missing a row): a key once lost
#   while its writer's commit was in flight is found.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use File::Spec;

my $root = File::Spec->catdir($FindBin::RealBin, '..', '..');

my $pub = PostgreSQL::Test::Cluster->new('publisher');
$pub->init(allows_streaming => 'logical');
$pub->append_conf('postgresql.conf', "max_parallel_workers_per_gather = 0\n");
$pub->start;
my $sub = PostgreSQL::Test::Cluster->new('subscriber');
$sub->init;
$sub->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'bloomfilter'
max_parallel_workers_per_gather = 0
wal_level = replica
max_wal_senders = 2
});
$sub->start;

# 1. sql/562 against its expected output, as pg_regress runs it (psql
# reading the file from standard input), with the library preloaded.
$sub->safe_psql('postgres', 'CREATE DATABASE regress562');
$sub->safe_psql('regress562', 'CREATE EXTENSION bloomfilter');
my $sql = File::Spec->catfile($root, 'sql', '562_summary_own_rows.sql');
my $expected_file = File::Spec->catfile($root, 'expected', '562_summary_own_rows.out');
my $out;
IPC::Run::run(
	[ 'psql', '-X', '-a', '-q', '-d', $sub->connstr('regress562') ],
	'<', $sql, '>&', \$out);
my $expected = slurp_file($expected_file);
is($out, $expected, '562_summary_own_rows gives its expected output with the library preloaded');
is($sub->safe_psql('regress562', q{
	CREATE TABLE pa (k bigint) PARTITION BY HASH (k);
	CREATE TABLE pa_0 PARTITION OF pa FOR VALUES WITH (MODULUS 2, REMAINDER 0);
	CREATE TABLE pa_1 PARTITION OF pa FOR VALUES WITH (MODULUS 2, REMAINDER 1);
	SELECT bloom_summary_create('pa', 'k', 100, 0.01) \\g /dev/null
	SELECT pruning_active FROM bloom_summaries WHERE parent = 'pa'::regclass}),
	't', 'a session of a server with the library preloaded prunes');

# 2. Logical replication: the summary is on the subscriber's table.
my $schema = q{
	CREATE TABLE ev (day int NOT NULL, k bigint, note text) PARTITION BY RANGE (day);
	CREATE TABLE ev_1 PARTITION OF ev FOR VALUES FROM (1) TO (2);
	CREATE TABLE ev_2 PARTITION OF ev FOR VALUES FROM (2) TO (3);
	CREATE TABLE ev_3 PARTITION OF ev FOR VALUES FROM (3) TO (4);
};
$pub->safe_psql('postgres', $schema . q{
	INSERT INTO ev SELECT 1 + g % 3, g, 'before' FROM generate_series(1, 300) g;
	CREATE PUBLICATION evpub FOR TABLE ev;
});
$sub->safe_psql('postgres', 'CREATE EXTENSION bloomfilter;' . $schema . q{
	CREATE TABLE seen (k bigint, day int, n bigint);
	-- an AFTER ROW trigger whose name sorts before the summary's: it runs
	-- before the summary collects the row's key (names qualified: the
	-- apply runs with an empty search_path)
	CREATE FUNCTION count_own() RETURNS trigger LANGUAGE plpgsql AS $$
	DECLARE
		c bigint;
	BEGIN
		SELECT count(*) INTO c FROM public.ev WHERE k = NEW.k;
		INSERT INTO public.seen VALUES (NEW.k, NEW.day, c);
		RETURN NULL;
	END
	$$;
	CREATE TRIGGER a_count AFTER INSERT ON ev FOR EACH ROW EXECUTE FUNCTION count_own();
	ALTER TABLE ev ENABLE ALWAYS TRIGGER a_count;
	ALTER TABLE ev_1 ENABLE ALWAYS TRIGGER a_count;
	ALTER TABLE ev_2 ENABLE ALWAYS TRIGGER a_count;
	ALTER TABLE ev_3 ENABLE ALWAYS TRIGGER a_count;
});
$sub->safe_psql('postgres',
	"CREATE SUBSCRIPTION evsub CONNECTION '" . $pub->connstr . ' dbname=postgres'
	  . "' PUBLICATION evpub");
$pub->wait_for_catchup('evsub');
$sub->poll_query_until('postgres',
	q{SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate NOT IN ('r', 's')})
  or die 'the initial copy did not finish';
is($sub->safe_psql('postgres', 'SELECT count(*) FROM ev'), '300', 'the initial copy arrived');
$sub->safe_psql('postgres', q{
	SELECT bloom_summary_create('ev', 'k', 10000, 0.01);
	TRUNCATE seen;
});

# One transaction on the publisher: the key 5000 three times, in two
# partitions, then many keys; applied as one transaction on the subscriber.
$pub->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO ev VALUES (1, 5000, 'a'), (1, 5000, 'b'), (2, 5000, 'c');
	INSERT INTO ev SELECT 1 + g % 3, g, 'after' FROM generate_series(10001, 10300) g;
	COMMIT;
});
$pub->wait_for_catchup('evsub');
is($sub->safe_psql('postgres',
		q{SELECT string_agg(day || ':' || n, ' ' ORDER BY n) FROM seen WHERE k = 5000}),
	'1:1 1:2 2:3',
	'an always-firing trigger of the apply sees the rows applied before it');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM seen WHERE k > 10000 AND n <> 1}), '0',
	'and each row it was fired for');

# After the apply, every read on the subscriber finds the rows.
my $reads = q{
	SELECT (SELECT count(*) FROM ev WHERE k = 5000)
	    || ' ' || (SELECT count(*) FROM ev WHERE k IN (10001, 10150, 10300))
	    || ' ' || (SELECT count(*) FROM ev WHERE k = 77777)
	    || ' ' || (SELECT count(*) FROM (VALUES (10002::bigint), (10003), (99999)) v(k),
	                   LATERAL (SELECT 1 FROM ev x WHERE x.k = v.k OFFSET 0) s)
};
my $on = $sub->safe_psql('postgres', $reads);
my $off = $sub->safe_psql('postgres',
	"SET bloomfilter.enable_summary_pruning = off; $reads");
is($on, '3 3 0 2', 'the subscriber reads the applied rows');
is($on, $off, 'the same with pruning off');
like($sub->safe_psql('postgres', 'EXPLAIN (COSTS OFF) SELECT * FROM ev WHERE k = 10001'),
	qr/Skipped by Summary/, 'and the subscriber still skips partitions');
is($sub->safe_psql('postgres',
		q{SELECT bool_and(tgenabled = 'A') FROM pg_trigger WHERE tgname LIKE 'bloom_summary%'}),
	't', 'the summary trigger fires always (so in the apply too)');

# 3. Issue 34's case 5, a nested-loop lookup missing a row with no session
# open: the row's key was lost earlier, while its writer's commit was in
# flight (held here by synchronous replication to a standby that does not
# exist): a merge took its hash from the shared buffer, and a refresh whose
# snapshot did not see the writer rebuilt the partition's filter without
# it.  The key was then in no filter, delta or marker, and every later
# read missed the row, the guard of a LATERAL lookup as a constant.  The
# shared buffer's protocol (doc/summaries.md, "The shared buffer's
# invariant") now keeps the hash until every snapshot sees the writer and
# the merge, and a refresh unites every hash still buffered.
$sub->safe_psql('postgres', q{
	CREATE TABLE lk (id int, k1 date NOT NULL) PARTITION BY RANGE (k1);
	CREATE TABLE lk_a PARTITION OF lk FOR VALUES FROM ('2026-01-01') TO ('2026-02-01')
		PARTITION BY HASH (id);
	CREATE TABLE lk_a0 PARTITION OF lk_a FOR VALUES WITH (MODULUS 2, REMAINDER 0);
	CREATE TABLE lk_a1 PARTITION OF lk_a FOR VALUES WITH (MODULUS 2, REMAINDER 1);
	CREATE TABLE lk_d PARTITION OF lk DEFAULT;
	INSERT INTO lk VALUES (1, '2026-01-05'), (2, '2025-12-01');
	SELECT bloom_summary_create('lk', 'k1', 1000, 0.01);
});
$sub->safe_psql('postgres', q{INSERT INTO lk VALUES (3, '2026-01-06')});
$sub->safe_psql('postgres', q{ALTER SYSTEM SET synchronous_standby_names = 'nobody'; SELECT pg_reload_conf()});
my ($w_out, $w_err) = ('', '');
my $writer = IPC::Run::start(
	[ 'psql', '-X', '-At', '-d', $sub->connstr('postgres'), '-c',
	  q{INSERT INTO lk VALUES (4, '2026-01-07'), (5, '2025-11-30')} ],
	'>', \$w_out, '2>', \$w_err);
$sub->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'SyncRep'})
  or die 'the writer does not wait for its commit';
$sub->safe_psql('postgres', q{
	SET synchronous_commit = local;
	SELECT bloom_summary_merge();
});
$sub->safe_psql('postgres', q{
	SET synchronous_commit = local;
	SELECT bloom_summary_refresh('lk', 'k1');
});
$sub->safe_psql('postgres', q{ALTER SYSTEM RESET synchronous_standby_names; SELECT pg_reload_conf()});
$writer->finish;
like($w_out, qr/^INSERT 0 2$/m, 'the writer committed');
my $lookup = q{
	SELECT count(*) FROM (VALUES (date '2026-01-05'), (date '2025-12-01'), (date '2026-01-06'),
	                             (date '2026-01-07'), (date '2025-11-30'), (date '2026-03-01')) v(k),
	    LATERAL (SELECT id FROM lk x WHERE x.k1 = v.k OFFSET 0) s};
is($sub->safe_psql('postgres', "SET bloomfilter.enable_summary_pruning = off; $lookup"), '5',
	'the table holds five of the six dates');
{
	is($sub->safe_psql('postgres', $lookup), '5', 'the LATERAL lookup (the guard) finds them all');
	# one constant per scan: an IN list keeps a partition if any of its
	# values may be there
	is($sub->safe_psql('postgres', q{
			SELECT (SELECT count(*) FROM lk WHERE k1 = '2026-01-05')
			     + (SELECT count(*) FROM lk WHERE k1 = '2025-12-01')
			     + (SELECT count(*) FROM lk WHERE k1 = '2026-01-06')
			     + (SELECT count(*) FROM lk WHERE k1 = '2026-01-07')
			     + (SELECT count(*) FROM lk WHERE k1 = '2025-11-30')}),
		'5', 'constants find them all');
}

done_testing();
