-- Pruning by managed summaries (src/summaries/summary_prune.c): which scans
-- EXPLAIN shows skipped, and that every query returns the rows of the plan
-- without the summary (bloomfilter.enable_summary_pruning = off), for
-- constants, parameters of generic and custom plans, IN lists, arrays,
-- NULL keys, keys absent everywhere, values of other types, multibloom
-- summaries, run-time partition pruning, partitionwise joins, parallel
-- appends, untrusted partitions, and writers' deltas.
SET client_min_messages = warning;
LOAD 'bloomfilter';
SET max_parallel_workers_per_gather = 0;

CREATE TABLE sp (day int NOT NULL, user_id bigint, tenant int, name text)
    PARTITION BY RANGE (day);
SELECT format('CREATE TABLE sp_%s PARTITION OF sp FOR VALUES FROM (%s) TO (%s)', d, d, d + 1)
FROM generate_series(1, 8) d
\gexec
-- users 1..8000 each in one day; every 50th also in a second day; some NULL
INSERT INTO sp
SELECT 1 + g % 8, CASE WHEN g % 97 = 0 THEN NULL ELSE g END, g % 7, 'n' || (g % 300)
FROM generate_series(1, 8000) g
UNION ALL
SELECT 1 + (g + 3) % 8, g, g % 7, 'n' || (g % 300)
FROM generate_series(50, 8000, 50) g;
ANALYZE sp;
SELECT bloom_summary_create('sp', 'user_id', 2000, 0.01) > 0 AS created;
SELECT bloom_summary_create('sp', ARRAY['tenant', 'name']::name[], 2000, 0.01) > 0 AS created;
SELECT count(*) AS parts, bool_and(trusted) AS trusted FROM bloom_summary_part;

-- The plan of a query as EXPLAIN (COSTS OFF) shows it, and the number of
-- scans skipped and kept.
CREATE FUNCTION plan_of(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		RETURN NEXT line;
	END LOOP;
END
$$;
CREATE FUNCTION skipped(query text) RETURNS int LANGUAGE sql AS $$
	SELECT count(*)::int FROM plan_of(query) l WHERE l ~ '^ *Skipped by Summary:'
$$;
CREATE FUNCTION scanned(query text) RETURNS int LANGUAGE sql AS $$
	SELECT count(*)::int FROM plan_of(query) l WHERE l ~ '(Seq|Index|Bitmap Heap|Index Only) Scan'
$$;
-- The rows of a query (sorted text), with pruning on or off.
CREATE FUNCTION rows_of(query text, pruning boolean) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	result text[];
BEGIN
	PERFORM set_config('bloomfilter.enable_summary_pruning', pruning::text, true);
	EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', query)
		INTO result;
	PERFORM set_config('bloomfilter.enable_summary_pruning', 'on', true);
	RETURN result;
END
$$;
CREATE FUNCTION same_rows(query text) RETURNS boolean LANGUAGE sql AS $$
	SELECT rows_of(query, true) = rows_of(query, false)
$$;

-- Constants: a key in one day, in two days, absent everywhere.
SELECT * FROM plan_of('SELECT * FROM sp WHERE user_id = 42');
SELECT * FROM sp WHERE user_id = 42;
SELECT skipped(q), scanned(q), same_rows(q)
FROM (VALUES ('SELECT * FROM sp WHERE user_id = 100'),
             ('SELECT * FROM sp WHERE user_id = 123456789'),
             ('SELECT * FROM sp WHERE user_id IN (1, 2, 3)'),
             ('SELECT * FROM sp WHERE user_id = ANY (''{5, 6}''::bigint[])'),
             ('SELECT * FROM sp WHERE user_id = ANY (ARRAY[7, NULL]::bigint[])'),
             ('SELECT * FROM sp WHERE user_id IN (NULL)'),
             ('SELECT * FROM sp WHERE user_id = 42::int'),
             ('SELECT * FROM sp WHERE user_id = 42::smallint'),
             ('SELECT * FROM sp WHERE user_id = ''42'''),
             ('SELECT * FROM sp WHERE user_id = 42.0'),
             ('SELECT * FROM sp WHERE user_id > 7990'),
             ('SELECT * FROM sp_3 WHERE user_id = 42'),
             ('SELECT * FROM sp_4 WHERE user_id = 42')) v(q);

-- Row locks: pruned too (locking gives the transaction an id: the
-- statements after it in the same transaction prune nothing).
SELECT skipped(q), scanned(q), same_rows(q)
FROM (VALUES ('SELECT * FROM sp WHERE user_id = 42 FOR UPDATE')) v(q);

-- Several summaries: a multibloom of (tenant, name), all columns or some.
SELECT skipped(q), scanned(q), same_rows(q)
FROM (VALUES ('SELECT * FROM sp WHERE tenant = 3 AND name = ''n17'''),
             ('SELECT * FROM sp WHERE tenant = 3 AND name = ''nothing'''),
             ('SELECT * FROM sp WHERE name = ''nothing'''),
             ('SELECT * FROM sp WHERE tenant = 99'),
             ('SELECT * FROM sp WHERE tenant IN (98, 99) AND name IN (''n1'', ''x'')'),
             ('SELECT * FROM sp WHERE tenant = 1 AND user_id = 8')) v(q);

-- Random keys, IN lists and arrays: the same rows as without pruning, and
-- pruning happened.
SELECT setseed(0.56);
CREATE TEMP TABLE random_queries AS
SELECT format('SELECT * FROM sp WHERE user_id = %s', (random() * 9000)::int) AS q
FROM generate_series(1, 40)
UNION ALL
SELECT format('SELECT * FROM sp WHERE user_id IN (%s, %s, %s)', (random() * 9000)::int,
              (random() * 9000)::int, (random() * 9000)::int)
FROM generate_series(1, 20)
UNION ALL
SELECT format('SELECT * FROM sp WHERE user_id = ANY (''{%s,%s}''::bigint[]) AND day > %s',
              (random() * 9000)::int, (random() * 9000)::int, (random() * 4)::int)
FROM generate_series(1, 20)
UNION ALL
SELECT format('SELECT * FROM sp WHERE tenant = %s AND name = ''n%s''', (random() * 8)::int,
              (random() * 320)::int)
FROM generate_series(1, 20);
SELECT count(*) AS queries, count(*) FILTER (WHERE same_rows(q)) AS same,
       sum(skipped(q)) > 300 AS many_skipped
FROM random_queries;

-- A delta of the multibloom summary (written here by hand) is read too.
SELECT skipped('SELECT * FROM sp WHERE tenant = 99 AND name = ''zz''') AS skipped_before_delta;
INSERT INTO bloom_summary_delta (summary_id, partition, mfilter, nkeys)
SELECT summary_id, 'sp_2'::regclass, multibloom_agg_fixed(capacity, fpp, 99, 'zz'::text), 1
FROM bloom_summary_def WHERE key_columns = '{tenant,name}' GROUP BY summary_id;
SELECT * FROM plan_of('SELECT * FROM sp WHERE tenant = 99 AND name = ''zz''') l
WHERE l NOT LIKE '%Skipped by Summary%';
SELECT bloom_summary_drop('sp', ARRAY['tenant', 'name']::name[]);

-- Index scans, bitmap scans and index-only scans are skipped alike.
CREATE INDEX sp_user ON sp (user_id);
VACUUM ANALYZE sp;
SET enable_seqscan = off;
SELECT skipped(q), same_rows(q), (SELECT string_agg(DISTINCT substring(l FROM '->  (Index Only Scan|Index Scan|Bitmap Heap Scan)'), ', ')
                                  FROM plan_of(q) l) AS kept_scans
FROM (VALUES ('SELECT * FROM sp WHERE user_id = 100'),
             ('SELECT user_id FROM sp WHERE user_id = 100'),
             ('SELECT * FROM sp WHERE user_id = ANY (''{5, 6, 123456789}''::bigint[])')) v(q);
SET enable_indexscan = off;
SELECT skipped(q), same_rows(q), (SELECT string_agg(DISTINCT substring(l FROM '->  (Index Only Scan|Index Scan|Bitmap Heap Scan)'), ', ')
                                  FROM plan_of(q) l) AS kept_scans
FROM (VALUES ('SELECT * FROM sp WHERE user_id = 100'),
             ('SELECT * FROM sp WHERE user_id IN (5, 6, 123456789)')) v(q);
SELECT count(*) AS queries, count(*) FILTER (WHERE same_rows(q)) AS same FROM random_queries;
RESET enable_indexscan;
SELECT count(*) AS queries, count(*) FILTER (WHERE same_rows(q)) AS same FROM random_queries;
RESET enable_seqscan;
DROP INDEX sp_user;

-- Prepared statements, generic and custom plans, before and after writers
-- add keys: never stale.
PREPARE by_user(bigint) AS SELECT * FROM sp WHERE user_id = $1 ORDER BY day;
PREPARE by_users(bigint[]) AS SELECT * FROM sp WHERE user_id = ANY ($1) ORDER BY day, user_id;
PREPARE by_user_day(bigint, int) AS SELECT * FROM sp WHERE user_id = $1 AND day >= $2 ORDER BY day;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE by_user(42);
EXECUTE by_user(42);
EXECUTE by_user(NULL);
EXECUTE by_users('{42, 43, NULL}');
EXECUTE by_users('{}');
-- run-time pruning at executor start, and the summary
EXPLAIN (COSTS OFF) EXECUTE by_user_day(42, 6);
EXPLAIN (COSTS OFF) EXECUTE by_user_day(42, 1);
INSERT INTO sp VALUES (7, 42, 0, 'late');
EXECUTE by_user(42);
EXECUTE by_users('{42, 43, NULL}');
EXECUTE by_user_day(42, 6);
SET plan_cache_mode = force_custom_plan;
EXECUTE by_user(42);
INSERT INTO sp VALUES (8, 42, 0, 'later');
EXECUTE by_user(42);
EXPLAIN (COSTS OFF) EXECUTE by_user(42);
RESET plan_cache_mode;

-- A writer's own rows are found in its transaction (its keys reach the
-- summary when it commits: a transaction holding such keys prunes
-- nothing); a rolled-back writer's keys vanish with it.  A transaction
-- that wrote only to another table prunes as any other.
BEGIN;
CREATE TEMP TABLE elsewhere (x int);
INSERT INTO elsewhere VALUES (1);
SELECT skipped('SELECT * FROM sp WHERE user_id = 777777') AS skipped_after_other_write;
ROLLBACK;
BEGIN;
INSERT INTO sp VALUES (1, 777777, 0, 'gone');
SELECT skipped('SELECT * FROM sp WHERE user_id = 777777') AS skipped_in_writer;
SELECT * FROM sp WHERE user_id = 777777;
ROLLBACK;
SELECT skipped('SELECT * FROM sp WHERE user_id = 777777') AS skipped_after_rollback;

-- PL/pgSQL: cached plans with parameters.
CREATE FUNCTION days_of(u bigint) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	result int[];
BEGIN
	SELECT array_agg(day ORDER BY day) INTO result FROM sp WHERE user_id = u;
	RETURN result;
END
$$;
SELECT days_of(555), days_of(555) = (SELECT array_agg(day ORDER BY day) FROM sp WHERE user_id = 555);
INSERT INTO sp VALUES (2, 555, 0, 'plpgsql');
SELECT days_of(555);

-- Untrusted partitions are scanned whatever their filter says.
UPDATE bloom_summary_part SET trusted = false WHERE partition = 'sp_5'::regclass;
SELECT * FROM plan_of('SELECT * FROM sp WHERE user_id = 42');
UPDATE bloom_summary_part SET trusted = true WHERE partition = 'sp_5'::regclass;
SELECT skipped('SELECT * FROM sp WHERE user_id = 42') AS skipped_trusted_again;

-- Pruning off: nothing skipped, in new and cached plans alike.
SET bloomfilter.enable_summary_pruning = off;
SELECT skipped('SELECT * FROM sp WHERE user_id = 42') AS skipped_off;
SET plan_cache_mode = force_generic_plan;
SELECT count(*) AS skipped_cached_off FROM plan_of('EXECUTE by_user(42)') l WHERE l LIKE '%Skipped%';
RESET plan_cache_mode;
RESET bloomfilter.enable_summary_pruning;

-- Joins: constants reaching the table through a join, outer joins, a
-- sub-select, a scrollable cursor.
CREATE TABLE users (id bigint PRIMARY KEY, label text);
INSERT INTO users SELECT g, 'u' || g FROM generate_series(1, 100) g;
ANALYZE users;
SELECT skipped(q), same_rows(q)
FROM (VALUES ('SELECT u.label, e.day FROM users u JOIN sp e ON e.user_id = u.id WHERE u.id = 42'),
             ('SELECT u.label, e.day FROM users u LEFT JOIN sp e ON e.user_id = u.id AND e.user_id = 42 WHERE u.id < 45'),
             ('SELECT u.label, (SELECT count(*) FROM sp e WHERE e.user_id = 42) FROM users u WHERE u.id < 3'),
             ('SELECT u.label, e.day FROM users u FULL JOIN (SELECT * FROM sp WHERE user_id IN (42, 4242)) e ON e.user_id = u.id WHERE coalesce(u.id, e.user_id) > 40 AND coalesce(u.id, e.user_id) < 44')) v(q);
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT day, user_id FROM sp WHERE user_id = 42 ORDER BY day;
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
COMMIT;

-- Partitionwise join: each pair of partitions joined apart.
CREATE TABLE sp2 (day int NOT NULL, user_id bigint, note text) PARTITION BY RANGE (day);
SELECT format('CREATE TABLE sp2_%s PARTITION OF sp2 FOR VALUES FROM (%s) TO (%s)', d, d, d + 1)
FROM generate_series(1, 8) d
\gexec
INSERT INTO sp2 SELECT day, user_id, 'note' FROM sp;
ANALYZE sp2;
SET enable_partitionwise_join = on;
SELECT * FROM plan_of('SELECT a.day, b.note FROM sp a JOIN sp2 b ON a.day = b.day AND a.user_id = b.user_id WHERE a.user_id = 42');
SELECT same_rows('SELECT a.day, b.note FROM sp a JOIN sp2 b ON a.day = b.day AND a.user_id = b.user_id WHERE a.user_id = 42') AS same,
       same_rows('SELECT a.day, b.note FROM sp a RIGHT JOIN sp2 b ON a.day = b.day AND a.user_id = b.user_id AND a.user_id = 42 WHERE b.user_id BETWEEN 40 AND 44') AS same_outer;
RESET enable_partitionwise_join;

-- Parallel append: the workers run the leader's decisions.
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
SELECT count(*) FILTER (WHERE l LIKE '%Parallel Append%') AS parallel_append,
       count(*) FILTER (WHERE l ~ '^ *Skipped by Summary:') AS skipped
FROM plan_of('SELECT * FROM sp WHERE user_id = 42') l;
SELECT * FROM sp WHERE user_id = 42 ORDER BY day;
SELECT count(*) AS queries, count(*) FILTER (WHERE same_rows(q)) AS same FROM random_queries;
RESET parallel_leader_participation;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;

-- Several levels of partitions: the summary of the top table prunes the
-- leaves of a query on any level.
CREATE TABLE ml (region int NOT NULL, day int NOT NULL, user_id bigint) PARTITION BY LIST (region);
CREATE TABLE ml_1 PARTITION OF ml FOR VALUES IN (1) PARTITION BY RANGE (day);
CREATE TABLE ml_1_a PARTITION OF ml_1 FOR VALUES FROM (1) TO (5);
CREATE TABLE ml_1_b PARTITION OF ml_1 FOR VALUES FROM (5) TO (9);
CREATE TABLE ml_2 PARTITION OF ml FOR VALUES IN (2);
INSERT INTO ml SELECT 1 + g % 2, 1 + g % 8, g FROM generate_series(1, 3000) g;
SELECT bloom_summary_create('ml', 'user_id', 2000, 0.01) > 0 AS created;
SELECT skipped(q), scanned(q), same_rows(q)
FROM (VALUES ('SELECT * FROM ml WHERE user_id = 7'),
             ('SELECT * FROM ml_1 WHERE user_id = 7'),
             ('SELECT * FROM ml_1_b WHERE user_id = 8'),
             ('SELECT * FROM ml_1_a WHERE user_id = 8')) v(q);

-- A dropped summary prunes nothing, in cached plans too.
SET plan_cache_mode = force_generic_plan;
SELECT bloom_summary_drop('sp', 'user_id');
SELECT count(*) AS skipped_dropped FROM plan_of('EXECUTE by_user(42)') l WHERE l LIKE '%Skipped%';
EXECUTE by_user(42);
RESET plan_cache_mode;

-- The configuration pruning needs: this session loaded the library with
-- LOAD, not at its start, so its statements planned before were not
-- pruned.  bloom_summary_create says so, and bloom_summaries tells.
SET client_min_messages = notice;
CREATE TABLE cfg (day int NOT NULL, k bigint) PARTITION BY RANGE (day);
CREATE TABLE cfg_1 PARTITION OF cfg FOR VALUES FROM (1) TO (2);
SELECT bloom_summary_create('cfg', 'k', 100, 0.01) > 0 AS created;
SELECT summary, pruning_active FROM bloom_summaries WHERE parent = 'cfg'::regclass;
SET bloomfilter.enable_summary_pruning = off;
SELECT bloom_summary_drop('cfg', 'k');
SELECT bloom_summary_create('cfg', 'k', 100, 0.01) > 0 AS created_pruning_off;
RESET bloomfilter.enable_summary_pruning;
SET client_min_messages = warning;
DROP TABLE cfg;

-- A leaf's summaries are kept per backend with its ancestors, and made
-- again when the definitions change or the leaf's columns do: a summary
-- made after the first plan prunes at once, a renamed key column is no
-- longer the summary's key, and is again once renamed back.
SELECT skipped('SELECT * FROM sp WHERE user_id = 4242') AS skipped_no_summary;
SELECT bloom_summary_create('sp', 'user_id', 2000, 0.01) > 0 AS created;
SELECT skipped('SELECT * FROM sp WHERE user_id = 4242') AS skipped_new_summary;
SELECT same_rows('SELECT * FROM sp WHERE user_id = 4242') AS same_new_summary;
ALTER TABLE sp RENAME COLUMN user_id TO uid;
SELECT skipped('SELECT * FROM sp WHERE uid = 4242') AS skipped_renamed;
SELECT same_rows('SELECT * FROM sp WHERE uid = 4242') AS same_renamed;
ALTER TABLE sp RENAME COLUMN uid TO user_id;
SELECT skipped('SELECT * FROM sp WHERE user_id = 4242') AS skipped_back;
SELECT same_rows('SELECT * FROM sp WHERE user_id = 4242') AS same_back;
