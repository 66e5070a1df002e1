-- Pruning by managed summaries under an OR (src/summaries/summary_prune.c,
-- bool_fixing_sources): "k = 5 OR k = 6" prunes as "k IN (5, 6)" does, and
-- so does an OR whose arms are equalities, IN lists, = ANY, nested ORs or
-- ANDs holding one of those, all of one value type.  An OR with an arm
-- that does not fix the key (another column, a range, a value computed per
-- row or of another type) prunes nothing.  A NULL arm (k = NULL, folded by
-- the planner into a null constant) passes no row and is left out.  Every
-- query returns the rows of the plan without the summary
-- (bloomfilter.enable_summary_pruning = off).
SET client_min_messages = warning;
LOAD 'bloomfilter';
SET max_parallel_workers_per_gather = 0;

CREATE TABLE so (day int NOT NULL, user_id bigint, tenant int, name text)
    PARTITION BY RANGE (day);
SELECT format('CREATE TABLE so_%s PARTITION OF so FOR VALUES FROM (%s) TO (%s)', d, d, d + 1)
FROM generate_series(1, 8) d
\gexec
-- users 1..8000 each in one day; every 50th also in a second day; some NULL
INSERT INTO so
SELECT 1 + g % 8, CASE WHEN g % 97 = 0 THEN NULL ELSE g END, g % 7, 'n' || (g % 300)
FROM generate_series(1, 8000) g
UNION ALL
SELECT 1 + (g + 3) % 8, g, g % 7, 'n' || (g % 300)
FROM generate_series(50, 8000, 50) g;
ANALYZE so;
SELECT bloom_summary_create('so', 'user_id', 2000, 0.01) > 0 AS created;
SELECT bloom_summary_create('so', ARRAY['tenant', 'name']::name[], 2000, 0.01) > 0 AS created;

CREATE FUNCTION so_plan(query text, analyzed boolean DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE CASE WHEN analyzed
	                         THEN 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) '
	                         ELSE 'EXPLAIN (COSTS OFF) ' END || query LOOP
		RETURN NEXT line;
	END LOOP;
END
$$;
-- scans skipped and read (EXPLAIN ANALYZE: decided with the values given)
CREATE FUNCTION so_skipped(query text) RETURNS int LANGUAGE sql AS $$
	SELECT count(*)::int FROM so_plan(query, true) l WHERE l ~ '^ *Skipped by Summary:'
$$;
CREATE FUNCTION so_scanned(query text) RETURNS int LANGUAGE sql AS $$
	SELECT count(*)::int FROM so_plan(query, true) l
	WHERE l ~ '(Seq|Index|Bitmap Heap|Index Only) Scan' AND l !~ 'never executed'
$$;
CREATE FUNCTION so_rows(query text, pruning boolean) RETURNS text[] LANGUAGE plpgsql AS $$
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
CREATE FUNCTION so_same(query text) RETURNS boolean LANGUAGE sql AS $$
	SELECT so_rows(query, true) = so_rows(query, false)
$$;

-- Two keys: 42 (day 3) and 100 (days 5 and 8): the OR reads what IN reads.
SELECT * FROM so_plan('SELECT * FROM so WHERE user_id = 42 OR user_id = 100');
SELECT * FROM so WHERE user_id = 42 OR user_id = 100 ORDER BY day;

-- The shapes, on sequential scans, then bitmap and index scans (PostgreSQL
-- 18 turns an OR into = ANY for an index scan: the same partitions skipped).
-- A NULL constant in an arm or in an IN list is equal to nothing.
CREATE TABLE so_shapes (n int, q text);
INSERT INTO so_shapes VALUES
    -- pruned as IN
    (1, 'SELECT * FROM so WHERE user_id IN (42, 100)'),
    (2, 'SELECT * FROM so WHERE user_id = 42 OR user_id = 100'),
    (3, 'SELECT * FROM so WHERE user_id = 100 OR 42 = user_id'),
    (4, 'SELECT * FROM so WHERE user_id = 42 OR (user_id = 100 OR user_id = 123456789)'),
    (5, 'SELECT * FROM so WHERE user_id = 42::bigint OR user_id IN (100, 7)'),
    (6, 'SELECT * FROM so WHERE user_id = ANY (''{42, 7}''::bigint[]) OR user_id = 100::bigint'),
    (7, 'SELECT * FROM so WHERE user_id = 42 OR user_id = NULL'),
    (8, 'SELECT * FROM so WHERE user_id = 42::bigint OR user_id IN (NULL, 100)'),
    (9, 'SELECT * FROM so WHERE (user_id = 42 AND tenant = 0) OR (tenant = 2 AND user_id = 100)'),
    (10, 'SELECT * FROM so WHERE user_id = 42::int OR user_id = 100::int'),
    (11, 'SELECT * FROM so WHERE user_id = 123456789 OR user_id = 987654321'),
    (12, 'SELECT * FROM so WHERE (user_id = 42 OR user_id = 100) AND day > 4'),
    (13, 'SELECT * FROM so WHERE (user_id = 42 OR user_id = 100) AND (tenant = 0 OR name = ''n100'')'),
    -- (the planner turns NOT (a <> b) into a = b)
    (14, 'SELECT * FROM so WHERE user_id = 42 OR NOT (user_id <> 100)'),
    -- read everywhere: an arm that does not fix user_id
    (20, 'SELECT * FROM so WHERE user_id = 42 OR tenant = 2'),
    (21, 'SELECT * FROM so WHERE user_id = 42 OR user_id > 7990'),
    (22, 'SELECT * FROM so WHERE user_id = 42 OR user_id IS NULL'),
    -- values of two types: 42 is an integer, the IN list's values bigint
    (23, 'SELECT * FROM so WHERE user_id = 42::int OR user_id = 100::bigint'),
    (24, 'SELECT * FROM so WHERE user_id = 42 OR user_id IN (100, 7)'),
    (30, 'SELECT * FROM so WHERE user_id = 42 OR user_id = 100.0'),
    (25, 'SELECT * FROM so WHERE user_id = 42 OR user_id = (random() * 0)::bigint'),
    (26, 'SELECT * FROM so WHERE user_id = 42 OR user_id = tenant'),
    (28, 'SELECT * FROM so WHERE user_id = 42 OR (user_id > 7990 AND tenant = 1)'),
    (29, 'SELECT * FROM so WHERE user_id = 42 OR user_id <> ALL (''{1, 2}''::bigint[])'),
    -- the multibloom summary on (tenant, name): the columns the OR fixes
    (40, 'SELECT * FROM so WHERE (tenant = 3 AND name = ''n17'') OR (tenant = 4 AND name = ''n18'')'),
    (41, 'SELECT * FROM so WHERE tenant = 3 AND (name = ''n17'' OR name = ''nothing'')'),
    (42, 'SELECT * FROM so WHERE (tenant = 3 AND name = ''absent'') OR (tenant = 4 AND name = ''gone'')'),
    (43, 'SELECT * FROM so WHERE tenant = 3 OR name = ''n17''');
SELECT n, so_skipped(q) AS skipped, so_scanned(q) AS scanned, so_same(q) AS same
FROM so_shapes ORDER BY n;
CREATE INDEX so_user ON so (user_id);
CREATE INDEX so_tenant ON so (tenant, name);
SET enable_seqscan = off;
SET enable_indexscan = off;
SELECT n, so_skipped(q) AS skipped, so_same(q) AS same
FROM so_shapes WHERE n IN (2, 4, 5, 7, 9, 20, 23, 24, 40) ORDER BY n;
RESET enable_indexscan;
SET enable_bitmapscan = off;
SELECT n, so_skipped(q) AS skipped, so_same(q) AS same
FROM so_shapes WHERE n IN (2, 4, 5, 7, 9, 20, 23, 24, 40) ORDER BY n;
RESET enable_bitmapscan;
RESET enable_seqscan;
DROP INDEX so_user, so_tenant;

-- Prepared statements: parameters of generic and custom plans, a NULL
-- parameter (equal to nothing), arrays, and parameters of two types.
PREPARE two_keys(bigint, bigint) AS SELECT * FROM so WHERE user_id = $1 OR user_id = $2;
PREPARE key_or_list(bigint, bigint[]) AS SELECT * FROM so WHERE user_id = $1 OR user_id = ANY ($2);
PREPARE two_types(int, bigint) AS SELECT * FROM so WHERE user_id = $1 OR user_id = $2;
SET plan_cache_mode = force_generic_plan;
SELECT so_skipped('EXECUTE two_keys(42, 100)') AS generic_two_keys,
       so_skipped('EXECUTE two_keys(42, NULL)') AS generic_one_null,
       so_skipped('EXECUTE two_keys(NULL, NULL)') AS generic_both_null,
       so_skipped('EXECUTE key_or_list(42, ''{100, 7}'')') AS generic_list,
       so_skipped('EXECUTE two_types(42, 100)') AS generic_two_types;
EXECUTE two_keys(42, 100);
EXECUTE key_or_list(42, '{100, 7}');
-- a key written after planning is found by the same generic plan
INSERT INTO so VALUES (6, 555555, 0, 'late');
EXECUTE two_keys(42, 555555);
SET plan_cache_mode = force_custom_plan;
SELECT so_skipped('EXECUTE two_keys(42, 100)') AS custom_two_keys,
       so_skipped('EXECUTE two_types(42, 100)') AS custom_two_types;
RESET plan_cache_mode;
SELECT so_same(format('SELECT * FROM so WHERE user_id = %s OR user_id = %s', a, b)) AS same
FROM (VALUES (42, 100), (42, 555555), (1, 2)) v(a, b);

-- An executor parameter in an arm (LATERAL): guarded, decided per row.
CREATE TABLE so_outer (uid bigint);
INSERT INTO so_outer VALUES (42), (100), (123456789), (NULL);
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) FILTER (WHERE l LIKE '%Guarded by Summary%') AS guarded
FROM so_plan('SELECT o.uid, x.* FROM so_outer o, LATERAL (SELECT day FROM so e '
             'WHERE e.user_id = o.uid OR e.user_id = 7::bigint OFFSET 0) x') l;
SELECT sum(substring(l FROM 'Scans Skipped by Summary: (\d+) of')::int) AS skipped_starts,
       sum(substring(l FROM 'Scans Skipped by Summary: \d+ of (\d+)')::int) AS starts
FROM so_plan('SELECT o.uid, x.* FROM so_outer o, LATERAL (SELECT day FROM so e '
             'WHERE e.user_id = o.uid OR e.user_id = 7::bigint OFFSET 0) x', true) l;
SELECT so_same('SELECT o.uid, x.* FROM so_outer o, LATERAL (SELECT day FROM so e '
               'WHERE e.user_id = o.uid OR e.user_id = 7::bigint OFFSET 0) x') AS same_lateral;
RESET enable_mergejoin;
RESET enable_hashjoin;

-- An untrusted partition is read; pruning off reads all.
UPDATE bloom_summary_part SET trusted = false WHERE partition = 'so_4'::regclass;
SELECT so_skipped('SELECT * FROM so WHERE user_id = 42 OR user_id = 100') AS skipped_untrusted;
UPDATE bloom_summary_part SET trusted = true WHERE partition = 'so_4'::regclass;
SET bloomfilter.enable_summary_pruning = off;
SELECT so_skipped('SELECT * FROM so WHERE user_id = 42 OR user_id = 100') AS skipped_off;
RESET bloomfilter.enable_summary_pruning;

DROP TABLE so, so_shapes, so_outer;
DROP FUNCTION so_plan, so_skipped, so_scanned, so_rows, so_same;
