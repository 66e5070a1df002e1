# Managed summaries: merges (by writers and by bloom_summary_merge) and
# refreshes (bloom_summary_refresh of one partition and of all) run while
# six sessions insert into two partitions and update keys.  Afterwards
# every key of every row is in its partition's filter or in one of its
# deltas, and after a last merge in the filter alone; every partition is
# trusted.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('summary_merge_refresh');
$node->init;
$node->append_conf('postgresql.conf', qq{
max_connections = 30
bloomfilter.summary_merge_deltas = 8
bloomfilter.summary_merge_check_every = 3
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION bloomfilter;
CREATE TABLE ev (day int NOT NULL, user_id bigint, payload text) PARTITION BY LIST (day);
CREATE TABLE ev1 PARTITION OF ev FOR VALUES IN (1);
CREATE TABLE ev2 PARTITION OF ev FOR VALUES IN (2);
INSERT INTO ev SELECT 1 + g % 2, g FROM generate_series(1, 5000) g;
SELECT bloom_summary_create('ev', 'user_id', 50000, 0.01);
});

my $missing = q{
	SELECT count(*) FROM ev e
	WHERE NOT EXISTS (SELECT 1 FROM bloom_summary_part p
	                  WHERE p.partition = e.tableoid AND bloom_contains(p.filter, e.user_id))
	  AND NOT EXISTS (SELECT 1 FROM bloom_summary_delta x
	                  WHERE x.partition = e.tableoid AND bloom_contains(x.filter, e.user_id))};

$node->pgbench(
	"--no-vacuum --client=8 --jobs=2 --transactions=150",
	0,
	[qr{processed: 1200/1200}],
	[qr{^$}],
	'writers, merges and refreshes at once',
	{
		'insert@4' => q{
\set v random(10000, 1000000000000)
\set d random(1, 2)
INSERT INTO ev VALUES (:d, :v, 'x');
},
		'batch@1' => q{
\set v random(10000, 1000000000)
\set d random(1, 2)
INSERT INTO ev SELECT :d, :v + g FROM generate_series(1, 300) g;
},
		'update@1' => q{
\set v random(1, 5000)
\set w random(10000, 1000000000000)
UPDATE ev SET user_id = :w WHERE user_id = :v;
},
		'merge@1' => q{
SELECT bloom_summary_merge();
},
		'refresh_one@1' => q{
\set d random(1, 2)
SELECT bloom_summary_refresh('ev', 'user_id', ('ev' || :d)::regclass);
},
		'refresh_all@1' => q{
SELECT bloom_summary_refresh('ev', 'user_id');
},
	});

is($node->safe_psql('postgres', $missing), '0', 'every key is in its partition\'s filter or deltas');
is($node->safe_psql('postgres', 'SELECT bool_and(trusted) FROM bloom_summary_part'), 't',
	'every partition is trusted');
$node->safe_psql('postgres', 'SELECT bloom_summary_merge()');
is($node->safe_psql('postgres', 'SELECT count(*) FROM bloom_summary_delta'), '0', 'a last merge leaves no delta');
is( $node->safe_psql('postgres', q{
	SELECT count(*) FROM ev e
	WHERE NOT EXISTS (SELECT 1 FROM bloom_summary_part p
	                  WHERE p.partition = e.tableoid AND bloom_contains(p.filter, e.user_id))}),
	'0', 'every key is in its partition\'s filter');

$node->stop;
done_testing();
