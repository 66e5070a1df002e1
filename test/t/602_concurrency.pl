# Eight clients update one summary row at the same time, with bloom_add,
# with bloom_union (the | operator) and with SELECT ... FOR UPDATE followed
# by an UPDATE from the client.  Row locks serialise the updates: no value
# is lost, every value written is found afterwards, and the filter's insert
# count equals the number of committed writes.  The last part shows the
# pattern that does lose values: reading the filter, then writing back a
# filter computed from that stale copy without a lock.
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
		'602_add@2' => q{
\set v random(1, 1000000000000)
BEGIN;
UPDATE summary SET f = bloom_add(f, :v::bigint) WHERE id = 1;
INSERT INTO written VALUES (:v, 'add');
COMMIT;
},
		'602_union@2' => q{
\set v random(1, 1000000000000)
BEGIN;
UPDATE summary SET f = f | bloom_add(bloom_empty(20000, 0.01), :v::bigint) WHERE id = 1;
INSERT INTO written VALUES (:v, 'union');
COMMIT;
},
		'602_lock@1' => q{
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

$node->stop;
done_testing();
