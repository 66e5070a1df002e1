# The aggregates on a Citus cluster (a coordinator and two workers): the
# results equal those of one server, byte for byte (fixed shapes, and
# data-sized filters, which depend only on the set of values); every
# aggregate runs per shard and is combined on the coordinator
# (worker_partial_agg / coord_combine_agg: only states travel): the set
# operation aggregates as they are, bloom_agg and multibloom_agg through the
# rewrite into their hashed twins (bloomfilter.distributed_aggregates);
# with the rewrite off they are gathered as rows and still give the same
# bytes; per-day and per-shard summaries roll up with bloom_union_agg; and
# CREATE EXTENSION reaches the workers.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use BloomCitus;

skip_without_citus();
my ($coordinator, @workers) = citus_cluster(2);
sub sql { return $coordinator->safe_psql('postgres', $_[0]); }

# ---- CREATE EXTENSION on the coordinator reaches the workers ----

my $default = sql("SELECT default_version FROM pg_available_extensions WHERE name = 'bloomfilter'");
sql('CREATE EXTENSION bloomfilter');
for my $i (0 .. $#workers)
{
	is($workers[$i]->safe_psql('postgres',
			"SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'"),
		$default, 'CREATE EXTENSION on the coordinator created it on worker ' . ($i + 1));
}

# orders: distributed by id over 32 shards; orders_local: the same rows in
# a plain table of the coordinator, the single-server reference.
my $rows = q{SELECT g, (g * 7919) % 5000, CASE WHEN g % 3 = 0 THEN 'EU' ELSE 'US' END,
                    date '2024-01-01' + (g % 7), g % 100
             FROM generate_series(1, 20000) g};
sql(qq{
	CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, region text, day date, amount int);
	SELECT create_distributed_table('orders', 'id');
	INSERT INTO orders $rows;
	CREATE TABLE orders_local (id bigint PRIMARY KEY, customer_id int, region text, day date, amount int);
	INSERT INTO orders_local $rows;
});
is(sql(q{SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'orders'::regclass}), 32,
	'orders has 32 shards');
is(sql(q{SELECT count(DISTINCT nodeport) FROM pg_dist_shard_placement p
         JOIN pg_dist_shard s USING (shardid) WHERE logicalrelid = 'orders'::regclass}), 2,
	'its shards are on both workers');

# $expr over $from (orders on Citus, orders_local on one server): the same bytes.
sub same_as_single_server
{
	my ($expr, $what, $where) = @_;
	$where //= 'true';
	my $dist = sql("SELECT md5(($expr)::bytea) FROM orders WHERE $where");
	my $local = sql("SELECT md5(($expr)::bytea) FROM orders_local WHERE $where");
	isnt($local, '', "$what: a result on one server");
	is($dist, $local, "$what: Citus gives the single-server bytes");
	return;
}

# ---- bloom_agg and multibloom_agg: per shard, equal ----

# Each form, its hashed twin, and how many value hashes the shards compute.
my @forms = (
	[ 'bloom_agg(customer_id)',                          'data-sized bloom_agg',       'bloom_agg_hashed' ],
	[ 'bloom_agg(region)',                               'data-sized bloom_agg of text (a list)', 'bloom_agg_hashed' ],
	[ 'bloom_agg(customer_id, 10000, 0.01)',             'fixed-shape bloom_agg',      'bloom_agg_hashed' ],
	[ q{bloom_agg(customer_id, 10000, 0.01, 'blocked')}, 'blocked bloom_agg',          'bloom_agg_hashed' ],
	# the matrix layout's bits depend on the order of insertion: the
	# aggregate inserts the collected hashes in their order, whatever the
	# shards
	[ q{bloom_agg(customer_id, 10000, 0.01, 'matrix')},  'matrix bloom_agg',           'bloom_agg_hashed' ],
	[ 'multibloom_agg(customer_id, region)',             'data-sized multibloom_agg',  'multibloom_agg_hashed' ],
	[ 'multibloom_agg_fixed(10000, 0.01, customer_id, region)', 'fixed-shape multibloom_agg',
		'multibloom_agg_fixed_hashed' ],
	[ 'multibloom_agg_sized(10000, 0.01, customer_id, region)', 'sized multibloom_agg',
		'multibloom_agg_sized_hashed' ]);
for my $form (@forms)
{
	my ($expr, $what, $twin) = @$form;
	same_as_single_server($expr, $what);
	my @tasks = task_queries($coordinator, "SELECT $expr FROM orders");
	is(scalar(@tasks), 32, "$what: one task per shard");
	is(scalar(grep { /^SELECT bloomfilter_citus\.hll_add_agg\(/ && /public\.bloom_hash\(/ } @tasks),
		32, "$what: every shard hashes its values and returns its partial state (no row gather)")
	  or diag("a task: $tasks[0]");
	like($coordinator->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) SELECT $expr FROM orders"),
		qr/_agg_state_result\(bloomfilter_citus\.hll_union_agg\(/,
		"$what: the coordinator combines the states and makes the filter");
	# With the binary route off, Citus's worker_partial_agg moves the states as text.
	my $text_route = 'SET bloomfilter.citus_binary_states = off;';
	@tasks = task_queries($coordinator, "SELECT $expr FROM orders", $text_route);
	is(scalar(grep { /^SELECT (pg_catalog\.)?worker_partial_agg\('public\.$twin\(/ && /public\.bloom_hash\(/ } @tasks),
		32, "$what, binary route off: every shard builds a partial state for worker_partial_agg")
	  or diag("a task: $tasks[0]");
	is($coordinator->safe_psql('postgres', "$text_route SELECT md5(($expr)::bytea) FROM orders"),
		sql("SELECT md5(($expr)::bytea) FROM orders_local"),
		"$what, binary route off: the single-server bytes");
	# Without the rewrite Citus gathers the rows; the bytes are the same.
	my $off = $coordinator->safe_psql('postgres',
		"SET bloomfilter.distributed_aggregates = off; SELECT md5(($expr)::bytea) FROM orders");
	is($off, sql("SELECT md5(($expr)::bytea) FROM orders_local"),
		"$what: the row gather (rewrite off) gives the same bytes");
}
my @gather = task_queries($coordinator, 'SELECT bloom_agg(customer_id, 10000, 0.01) FROM orders',
	'SET bloomfilter.distributed_aggregates = off;');
is(scalar(grep { /^SELECT customer_id AS bloom_agg\b/ } @gather), 32,
	'with the rewrite off, each shard sends its values (a row gather)');

# Several aggregates, an expression over one, HAVING and a FILTER clause:
# the single-server result.
my $mixed = q{SELECT md5(bloom_agg(customer_id, 10000, 0.01)::bytea)
                  || md5(coalesce(bloom_agg(region) FILTER (WHERE amount < 10), bloom_empty(1, 0.5))::bytea)
                  || md5(multibloom_agg(customer_id, day)::bytea)
           FROM %s HAVING count(*) > 0};
is(sql(sprintf($mixed, 'orders')), sql(sprintf($mixed, 'orders_local')),
	'several aggregates, FILTER and HAVING: the single-server bytes');

# Over no row: the single-server results (the empty filter of the shape, the
# empty data-sized filter).
for my $expr ('bloom_agg(customer_id, 10000, 0.01)', 'bloom_agg(customer_id)',
	'multibloom_agg(customer_id, region)', 'multibloom_agg_fixed(10000, 0.01, customer_id, region)')
{
	is(sql("SELECT coalesce(md5(($expr)::bytea), 'null') FROM orders WHERE amount > 1000"),
		sql("SELECT coalesce(md5(($expr)::bytea), 'null') FROM orders_local WHERE amount > 1000"),
		"$expr over no row: the single-server result");
}

# Grouped by the distribution column, the whole aggregate runs on the shards.
my @tasks = task_queries($coordinator,
	'SELECT id, bloom_agg(customer_id, 100, 0.01) FROM orders GROUP BY id');
is(scalar(grep { /bloom_agg_state_result\(bloomfilter_citus\.hll_add_agg\(public\.bloom_hash\(customer_id, .*'100'::bigint, '0\.01'::double precision\).*GROUP BY id/ } @tasks),
	32, 'grouped by the distribution column: the whole aggregate runs on every shard');
my $by_id = q{SELECT md5(string_agg(id || ':' || md5(f::bytea), ',' ORDER BY id))
              FROM (SELECT id, bloom_agg(customer_id, 100, 0.01) AS f FROM %s GROUP BY id) s};
is(sql(sprintf($by_id, 'orders')), sql(sprintf($by_id, 'orders_local')),
	'grouped by the distribution column: the single-server filters');
my $by_day = q{SELECT md5(string_agg(day || ':' || md5(f::bytea) || ':' || md5(m::bytea), ',' ORDER BY day))
               FROM (SELECT day, bloom_agg(customer_id) AS f, multibloom_agg(customer_id, region) AS m
                     FROM %s GROUP BY day) s};
is(sql(sprintf($by_day, 'orders')), sql(sprintf($by_day, 'orders_local')),
	'grouped by another column: the single-server filters');

# A user without USAGE on the schema bloomfilter_citus (where the shards
# would name the route's aggregate) gets the text route, and the same bytes.
sql(q{
	CREATE ROLE plain_reader LOGIN;
	GRANT SELECT ON orders TO plain_reader;
	REVOKE USAGE ON SCHEMA bloomfilter_citus FROM PUBLIC;
});
my $as_reader = 'SET ROLE plain_reader;';
is(scalar(grep { /^SELECT (pg_catalog\.)?worker_partial_agg\('public\.bloom_agg_hashed\(/ }
		task_queries($coordinator, 'SELECT bloom_agg(customer_id, 10000, 0.01) FROM orders', $as_reader)),
	32, 'without USAGE on bloomfilter_citus: the text route (worker_partial_agg)');
is($coordinator->safe_psql('postgres',
		"$as_reader SELECT md5(bloom_agg(customer_id, 10000, 0.01)::bytea) FROM orders"),
	sql('SELECT md5(bloom_agg(customer_id, 10000, 0.01)::bytea) FROM orders_local'),
	'without USAGE on bloomfilter_citus: the single-server bytes');
sql('GRANT USAGE ON SCHEMA bloomfilter_citus TO PUBLIC');

# ---- what travels: each shard's state, in binary ----

# On a distributed table the rewrite runs each twin as
# bloomfilter_citus.hll_add_agg, which Citus splits by its name: each shard
# returns its state (the twin's state type, which has binary send and
# receive), Citus fetches it in the binary protocol, and the coordinator
# combines the states with bloomfilter_citus.hll_union_agg.  With
# bloomfilter.citus_binary_states off, Citus's worker_partial_agg moves
# each state as its type's text output: '~' and the seven-bit form (about
# 8/7 of its bytes; base64 would be 4/3).  Each task's query is run again
# on the worker holding its shard and what it returns is weighed; on the
# binary route Citus's EXPLAIN ANALYZE says how many bytes of tuple data the
# coordinator received: the states' binary size, not their text's (it
# cannot analyze worker_partial_agg's cstring column).
my %worker_by_port = map { $_->port => $_ } @workers;
my $text_route = 'SET bloomfilter.citus_binary_states = off;';

# [query, port] of each task of $query (EXPLAIN VERBOSE, every task shown).
sub tasks_with_nodes
{
	my ($query, $settings) = @_;
	my $plan = $coordinator->safe_psql('postgres',
		"SET citus.explain_all_tasks = on; $settings EXPLAIN (VERBOSE, COSTS OFF) $query");
	my @tasks;
	for my $line (split /\n/, $plan)
	{
		push @tasks, [] if $line =~ /->\s+Task\b/;
		next unless @tasks;
		$tasks[-1][0] = $1 if $line =~ /^\s*Query: (.*)$/;
		$tasks[-1][1] = $1 if $line =~ /^\s*Node: host=\S+ port=(\d+)/;
	}
	return @tasks;
}

# The states the shards send for $expr over $table, summed: [text bytes,
# binary bytes, base64 bytes, states in the '~' text form, states].
sub weigh_states
{
	my ($expr, $type, $table, $settings) = @_;
	my @sum = (0, 0, 0, 0, 0);
	for my $task (tasks_with_nodes("SELECT $expr FROM $table", $settings))
	{
		my ($query, $port) = @$task;
		my $row = $worker_by_port{$port}->safe_psql('postgres', qq{
			SELECT coalesce(sum(octet_length(w::text)), 0),
			       coalesce(sum(octet_length(${type}_send(w::text::$type))), 0),
			       coalesce(sum(octet_length(replace(encode(${type}_send(w::text::$type), 'base64'), E'\\n', ''))), 0),
			       count(*) FILTER (WHERE left(w::text, 1) = '~'), count(w)
			FROM ($query) q(w)});
		my @row = split /\|/, $row;
		$sum[$_] += $row[$_] for 0 .. 4;
	}
	return @sum;
}

# The bytes of tuple data the coordinator received for $query (Citus's
# EXPLAIN ANALYZE, rounded by pg_size_pretty).
sub received_bytes
{
	my ($query, $settings) = @_;
	my $plan = $coordinator->safe_psql('postgres',
		"$settings EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query");
	my ($n, $unit) = $plan =~ /Tuple data received from nodes: (\d+) (bytes|kB|MB)/
	  or die "no tuple data in $plan";
	return $n * { bytes => 1, kB => 1024, MB => 1048576 }->{$unit};
}

# dense: every shard sees most of the 2000 keys, so each partial filter is
# nearly as full as the whole one (the benchmark's case); sparse: three
# rows, so 29 or more of the 32 shards are empty.
my $dense_rows = 'SELECT g AS id, g % 2000 AS k, g % 7 AS a FROM generate_series(1, 128000) g';
my $sparse_rows = 'SELECT g AS id, g * 101 AS k, g AS a FROM generate_series(1, 3) g';
sql(qq{
	CREATE TABLE dense (id bigint, k int, a int);
	SELECT create_distributed_table('dense', 'id');
	INSERT INTO dense $dense_rows;
	CREATE TABLE dense_local AS $dense_rows;
	CREATE TABLE sparse (id bigint, k int, a int);
	SELECT create_distributed_table('sparse', 'id');
	INSERT INTO sparse $sparse_rows;
	CREATE TABLE sparse_local AS $sparse_rows;
});
my @layout_forms = (
	[ 'bloom_agg(k, 2000, 0.01)',                'classic',               'bloom_agg_state', 1 ],
	[ q{bloom_agg(k, 2000, 0.01, 'blocked')},    'blocked',               'bloom_agg_state', 1 ],
	[ q{bloom_agg(k, 2000, 0.01, 'matrix')},     'matrix',                'bloom_agg_state', 0 ],
	[ 'bloom_agg(k)',                            'data-sized',            'bloom_agg_state', 0 ],
	[ 'multibloom_agg_fixed(2000, 0.01, k, a)',  'fixed-shape multibloom', 'multibloom_agg_state', 1 ],
	[ 'multibloom_agg(k, a)',                    'data-sized multibloom', 'multibloom_agg_state', 0 ]);
for my $form (@layout_forms)
{
	my ($expr, $what, $type, $is_filter) = @$form;
	my $bytes = "SELECT coalesce(octet_length(x::bytea) || ':' || md5(x::bytea), 'null') FROM (SELECT $expr AS x FROM %s) s";
	for my $table ('dense', 'sparse')
	{
		my $local = sql(sprintf($bytes, "${table}_local"));
		isnt($local, 'null', "$what over $table: a filter on one server");
		is(sql(sprintf($bytes, $table)), $local, "$what over $table: the combined filter has the serial build's bytes");
		is($coordinator->safe_psql('postgres', $text_route . sprintf($bytes, $table)), $local,
			"$what over $table, binary route off: the serial build's bytes");
	}

	# the binary route: each state's flat form, byte for byte
	my ($text, $binary, $base64, $marked, $states) = weigh_states($expr, $type, 'dense', '');
	is($states, 32, "$what: 32 shards each send a state");
	my $received = received_bytes("SELECT $expr FROM dense", '');
	cmp_ok(abs($received - $binary), '<=', 0.01 * $binary + 512,
		"$what: the coordinator receives the states in binary ($received bytes; binary forms $binary, text $text)");
	if ($is_filter)
	{
		my ($filter) = split /:/, sql(sprintf($bytes, 'dense_local'));
		cmp_ok($received, '<=', 1.05 * 32 * $filter,
			"$what: within 1.05 x 32 filters ($received bytes, filter $filter)");
	}

	# the text route: the seven-bit form
	($text, $binary, $base64, $marked, $states) = weigh_states($expr, $type, 'dense', $text_route);
	is($marked, 32, "$what, binary route off: every state travels in the seven-bit text form");
	cmp_ok($text, '<=', 1.2 * $binary, "$what, binary route off: the text is at most 1.2 x the binary state ($text / $binary bytes)");
	cmp_ok($text, '<', 0.9 * $base64, "$what, binary route off: and well under base64 ($text / $base64 bytes)");

	for my $route ('', $text_route)
	{
		(undef, undef, undef, undef, $states) = weigh_states($expr, $type, 'sparse', $route);
		cmp_ok($states, '<=', 3, "$what over sparse ${route}: the empty shards send no state ($states states)");
	}
}

# Random statements over dense: the binary route (counted where it fired),
# the text route and one server give the same bytes.
my $seed = $ENV{CITUS_AGG_SEED} // int(rand(1 << 30));
srand($seed);
note("random statements: seed $seed (CITUS_AGG_SEED repeats them)");
my ($fired, $statements) = (0, 40);
for my $i (1 .. $statements)
{
	my $cap = 1 + int(rand(5000));
	my $fpp = (0.1, 0.01, 0.001)[ int(rand(3)) ];
	my $layout = ('classic', 'blocked', 'matrix')[ int(rand(3)) ];
	my $expr = (
		"bloom_agg(k, $cap, $fpp, '$layout')", 'bloom_agg(k)', 'bloom_agg(a * 1000 + k)',
		"multibloom_agg_fixed($cap, $fpp, k, a)", 'multibloom_agg(k, a)')[ int(rand(5)) ];
	my $mod = 1 + int(rand(50));
	my $where = "k % $mod = " . int(rand($mod)) . (rand() < 0.2 ? ' AND false' : '');
	my $group = rand() < 0.3 ? ' GROUP BY a ORDER BY a' : '';
	my $q = "SELECT string_agg(coalesce(md5(x::bytea), 'null'), ',') FROM (SELECT $expr AS x FROM %s WHERE $where$group) s";
	my $local = sql(sprintf($q, 'dense_local'));
	$fired++ if $coordinator->safe_psql('postgres', sprintf("EXPLAIN (VERBOSE, COSTS OFF) $q", 'dense'))
	  =~ /bloomfilter_citus\.hll_add_agg/;
	is(sql(sprintf($q, 'dense')), $local, "random $i ($expr WHERE $where$group): the single-server bytes");
	is($coordinator->safe_psql('postgres', $text_route . sprintf($q, 'dense')), $local,
		"random $i, binary route off: the single-server bytes");
}
is($fired, $statements, "the binary route fired in every random statement ($fired of $statements)");

# ---- per-day summaries: bloom_union_agg and friends run per shard ----

# One filter per (bucket, day), distributed by bucket, and the same on one server.
my $summary = q{SELECT (id %% 8)::int, day, bloom_agg(customer_id, 10000, 0.01), bloom_agg(customer_id),
                       multibloom_agg_fixed(10000, 0.01, customer_id, region)
                FROM %s GROUP BY 1, 2};
sql(sprintf(q{
	CREATE TABLE daily (bucket int, day date, f bloom, d bloom, m multibloom);
	SELECT create_distributed_table('daily', 'bucket');
	INSERT INTO daily %s;
	CREATE TABLE daily_local (bucket int, day date, f bloom, d bloom, m multibloom);
	INSERT INTO daily_local %s;
}, sprintf($summary, 'orders'), sprintf($summary, 'orders_local')));
is(sql('SELECT count(*) FROM daily'), 56, '56 per-day summaries (8 buckets x 7 days)');

for my $agg ('bloom_union_agg(f)', 'bloom_intersect_agg(f)', 'bloom_union_agg(d)', 'multibloom_union_agg(m)')
{
	@tasks = task_queries($coordinator, "SELECT $agg FROM daily");
	my ($name, $arg) = $agg =~ /^(\w+)\((\w)\)$/;
	my $type = $name =~ /^multi/ ? 'multibloom' : 'bloom';
	is(scalar(grep { /^SELECT worker_partial_agg\('public\.$name\(public\.$type\)'::regprocedure, $arg\)/ } @tasks),
		scalar(@tasks), "$agg: every shard computes a partial state (no row gather)");
	like($coordinator->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) SELECT $agg FROM daily"),
		qr/coord_combine_agg\(/, "$agg: the coordinator combines the states");
	is(sql("SELECT md5(${agg}::bytea) FROM daily"), sql("SELECT md5(${agg}::bytea) FROM daily_local"),
		"$agg: the single-server bytes");
}

# The roll-ups equal the filter of the whole table, and of each day.
is(sql('SELECT md5(bloom_union_agg(f)::bytea) FROM daily'),
	sql('SELECT md5(bloom_agg(customer_id, 10000, 0.01)::bytea) FROM orders_local'),
	'the roll-up of the fixed-shape summaries is the filter of the whole table');
is(sql('SELECT md5(multibloom_union_agg(m)::bytea) FROM daily'),
	sql('SELECT md5(multibloom_agg_fixed(10000, 0.01, customer_id, region)::bytea) FROM orders_local'),
	'the roll-up of the multibloom summaries is the filter of the whole table');
is(sql(q{WITH u AS (SELECT bloom_union_agg(d) AS f FROM daily)
         SELECT count(*) FROM orders_local, u WHERE NOT bloom_contains(f, customer_id)}), 0,
	'the roll-up of the data-sized summaries holds every value');
my $per_day = q{SELECT md5(string_agg(day || ':' || md5(f::bytea), ',' ORDER BY day))
                FROM (SELECT day, %s AS f FROM %s GROUP BY day) s};
is(sql(sprintf($per_day, 'bloom_union_agg(f)', 'daily')),
	sql(sprintf($per_day, 'bloom_agg(customer_id, 10000, 0.01)', 'orders_local')),
	'grouped by day (not the distribution column): each roll-up is the filter of its day');
@tasks = task_queries($coordinator, 'SELECT day, bloom_union_agg(f) FROM daily GROUP BY day');
is(scalar(grep { /worker_partial_agg\(.*GROUP BY day/ } @tasks), scalar(@tasks),
	'grouped by day: the shards compute partial states per day');
is(sql(sprintf($per_day, 'bloom_union_agg(d)', 'daily')),
	sql(sprintf($per_day, 'bloom_union_agg(d)', 'daily_local')),
	'grouped by day: the data-sized roll-ups are the single-server ones');
is(sql(q{SELECT coalesce(md5(bloom_union_agg(f)::bytea), 'null') FROM daily WHERE day > '2030-01-01'}),
	'null', 'bloom_union_agg over no row: NULL, as on one server');

# ---- per-shard summaries: bloom_agg computed where the data lives ----

# The route for a whole-table bloom_agg that moves one filter per shard.
sql(q{CREATE TABLE per_shard AS
	SELECT shardid, result::bloom AS f
	FROM run_command_on_shards('orders', $$SELECT bloom_agg(customer_id, 10000, 0.01) FROM %s$$)});
is(sql('SELECT count(*) FROM per_shard'), 32, 'one summary per shard');
is(sql('SELECT md5(bloom_union_agg(f)::bytea) FROM per_shard'),
	sql('SELECT md5(bloom_agg(customer_id, 10000, 0.01)::bytea) FROM orders_local'),
	'the roll-up of the per-shard summaries is the filter of the whole table');

# ---- beside the hll extension ----
#
# The binary route's aggregates are named hll_add_agg and hll_union_agg (in
# the schema bloomfilter_citus): Citus must still split the hll
# extension's own aggregates with the hll extension's functions, and its
# approximate count(DISTINCT) must still work.
SKIP:
{
	skip 'the hll extension is not installed for this PostgreSQL', 4
	  unless sql(q{SELECT count(*) FROM pg_available_extensions WHERE name = 'hll'}) eq '1';
	sql('CREATE EXTENSION hll');
	my $exact = sql('SELECT count(DISTINCT customer_id) FROM orders_local');
	my $hll = sql('SELECT round(hll_cardinality(hll_add_agg(hll_hash_integer(customer_id)))) FROM orders');
	ok(abs($hll - $exact) <= 0.05 * $exact, "hll_add_agg over a distributed table: $hll, the exact count $exact");
	is(sql('SELECT round(hll_cardinality(hll_union_agg(h))) FROM (SELECT id % 10 AS g, hll_add_agg(hll_hash_integer(customer_id)) AS h FROM orders GROUP BY 1) s'),
		$hll, 'hll_union_agg of grouped hll_add_agg: the same estimate');
	my $approx = sql('SET citus.count_distinct_error_rate = 0.005; SELECT count(DISTINCT customer_id) FROM orders');
	ok(abs($approx - $exact) <= 0.05 * $exact, "Citus's approximate count(DISTINCT) through hll: $approx, the exact count $exact");
	is(sql(q{SELECT md5(bloom_agg(customer_id, 10000, 0.01)::bytea) FROM orders}),
		sql(q{SELECT md5(bloom_agg(customer_id, 10000, 0.01)::bytea) FROM orders_local}),
		'bloom_agg beside hll: the filter of one server');
}

done_testing();
