# Eight clients update one summary row at the same time, with bloom_add,
# with bloom_union (the | operator) and with SELECT ... FOR UPDATE followed
# by an UPDATE from the client.  Row locks serialise the updates: no value
# is lost, every value written is found afterwards, and the filter's insert
# count equals the number of committed writes.  The last part shows the
# pattern that does lose values: reading the filter, then writing back a
# filter computed from that stale copy without a lock.  Then the same for a
# multibloom row, with multibloom_add and multibloom_union.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('concurrency');
$node->init;
$node->append_conf('postgresql.conf', 'max_connections = 30');
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE summary (id int PRIMARY KEY, f bloom NOT NULL);
INSERT INTO summary VALUES (1, bloom_empty(20000, 0.01));
CREATE TABLE written (v bigint NOT NULL, how text NOT NULL);
});

my $clients = 8;
my $transactions = $ENV{BLOOM_CONCURRENCY_TX} // 150;	# per client

$node->pgbench(
	"--no-vacuum --client=$clients --jobs=2 --transactions=$transactions",
	0,
	[qr{processed: @{[ $clients * $transactions ]}/@{[ $clients * $transactions ]}}],
	[qr{^$}],
	'eight clients update the same row',
	{
		'bloom_add@2' => q{
\set v random(1, 1000000000000)
BEGIN;
UPDATE summary SET f = bloom_add(f, :v::bigint) WHERE id = 1;
INSERT INTO written VALUES (:v, 'add');
COMMIT;
},
		'bloom_union@2' => q{
\set v random(1, 1000000000000)
BEGIN;
UPDATE summary SET f = f | bloom_add(bloom_empty(20000, 0.01), :v::bigint) WHERE id = 1;
INSERT INTO written VALUES (:v, 'union');
COMMIT;
},
		'bloom_lock@1' => q{
\set v random(1, 1000000000000)
BEGIN;
SELECT quote_literal(f::text) AS cur FROM summary WHERE id = 1 FOR UPDATE \gset
UPDATE summary SET f = bloom_add(:cur::bloom, :v::bigint) WHERE id = 1;
INSERT INTO written VALUES (:v, 'select for update');
COMMIT;
},
	});

my $result = $node->safe_psql('postgres', q{
SELECT (SELECT count(*) FROM written),
       (SELECT count(DISTINCT how) FROM written),
       (SELECT (bloom_info(f)).inserted FROM summary),
       (SELECT count(*) FROM written, summary WHERE NOT bloom_contains(f, v))
});
my ($written, $kinds, $inserted, $missing) = split /\|/, $result;
is($written, $clients * $transactions, 'every transaction committed its value');
is($kinds, 3, 'all three update patterns ran');
is($inserted, $written, 'insert count equals committed writes: no update was lost');
is($missing, 0, 'every value written is found');

# The unsafe pattern: read, then write back from the stale copy without a
# lock.  A concurrent update between the two is overwritten.
my $stale = $node->safe_psql('postgres', 'SELECT f FROM summary WHERE id = 1');
$node->safe_psql('postgres', "UPDATE summary SET f = bloom_add(f, 'other'::text) WHERE id = 1");
$node->safe_psql('postgres',
	"UPDATE summary SET f = bloom_add('$stale'::bloom, 'mine'::text) WHERE id = 1");
is( $node->safe_psql('postgres',
		"SELECT bloom_contains(f, 'mine'::text), bloom_contains(f, 'other'::text) FROM summary"),
	't|f',
	'read-then-write from a stale copy loses the concurrent value (documented hazard)');

# ---- eight clients adding rows to one multibloom summary row ----
$node->safe_psql('postgres', q{
CREATE TABLE mb_summary (id int PRIMARY KEY, f multibloom NOT NULL);
INSERT INTO mb_summary VALUES (1, multibloom_empty(2, 5000, 0.01));
CREATE TABLE mb_written (a bigint NOT NULL, b text NOT NULL, how text NOT NULL);
});
my $mb_transactions = $ENV{BLOOM_CONCURRENCY_TX} // 60;	# per client
$node->pgbench(
	"--no-vacuum --client=$clients --jobs=2 --transactions=$mb_transactions",
	0,
	[qr{processed: @{[ $clients * $mb_transactions ]}/@{[ $clients * $mb_transactions ]}}],
	[qr{^$}],
	'eight clients update the same multibloom row',
	{
		'multibloom_add@2' => q{
\set v random(1, 1000000000000)
BEGIN;
UPDATE mb_summary SET f = multibloom_add(f, :v::bigint, 'k' || :v) WHERE id = 1;
INSERT INTO mb_written VALUES (:v, 'k' || :v, 'add');
COMMIT;
},
		'multibloom_union@1' => q{
\set v random(1, 1000000000000)
BEGIN;
UPDATE mb_summary SET f = multibloom_union(f, multibloom_add(multibloom_empty(2, 5000, 0.01), :v::bigint, 'k' || :v)) WHERE id = 1;
INSERT INTO mb_written VALUES (:v, 'k' || :v, 'union');
COMMIT;
},
	});
my ($mb_written, $mb_rows, $mb_missing) = split /\|/, $node->safe_psql('postgres', q{
SELECT (SELECT count(*) FROM mb_written),
       (SELECT (multibloom_info(f)).rows FROM mb_summary),
       (SELECT count(*) FROM mb_written, mb_summary WHERE NOT multibloom_contains(f, a, b))
});
is($mb_written, $clients * $mb_transactions, 'multibloom: every transaction committed its row');
is($mb_rows, $mb_written, 'multibloom: row count equals committed writes: no update was lost');
is($mb_missing, 0, 'multibloom: every row written is found');

$node->stop;
done_testing();
