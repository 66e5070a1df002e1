-- The batched probe scan (src/scan/batch_scan.c): where the planner uses it,
-- what EXPLAIN shows, and that it returns the rows of the plain sequential
-- scan, in the same order, for every layout and kind of filter.
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE scan_t (id int, k bigint, k4 int, t text, n numeric);
INSERT INTO scan_t
SELECT g, CASE WHEN g % 97 = 0 THEN NULL ELSE (g * 7919) % 30011 END,
       (g * 7919) % 30011, 'v' || (g % 5003), (g % 1009) / 10.0
FROM generate_series(1, 20000) g;
ANALYZE scan_t;

-- Filters of every layout, holding the keys of rows 1..3000 (or of a few).
CREATE TABLE scan_f (name text PRIMARY KEY, f bloom);
INSERT INTO scan_f
SELECT 'classic', bloom_agg(k, 3000, 0.01) FROM scan_t WHERE id <= 3000
UNION ALL SELECT 'blocked', bloom_agg(k, 3000, 0.01, 'blocked') FROM scan_t WHERE id <= 3000
UNION ALL SELECT 'matrix', bloom_add_all(bloom_empty_matrix(4, 16384, 3, 2), array_agg(k)) FROM scan_t WHERE id <= 3000
UNION ALL SELECT 'datasized', bloom_agg(k) FROM scan_t WHERE id <= 3000
UNION ALL SELECT 'explicit', bloom_agg(k) FROM scan_t WHERE id <= 100
UNION ALL SELECT 'explicit_empty', bloom_agg(k) FROM scan_t WHERE false
UNION ALL SELECT 'empty', bloom_empty(1000)
UNION ALL SELECT 'text', bloom_agg(t, 3000, 0.01) FROM scan_t WHERE id <= 300
UNION ALL SELECT 'numeric', bloom_agg(n::numeric(10, 3), 3000, 0.01) FROM scan_t WHERE id <= 300;
SELECT name, (bloom_info(f)).layout FROM scan_f ORDER BY name;

-- EXPLAIN (COSTS OFF) of a query, the same on every supported major: the
-- value of an InitPlan is shown as $N up to PostgreSQL 16 and as
-- (InitPlan N).col1 from 17; both become initplan.N here.
CREATE FUNCTION scan_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE lines text[]; m text[]; line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		lines := lines || line;
	END LOOP;
	FOREACH line IN ARRAY lines LOOP
		FOR m IN SELECT regexp_matches(line, 'InitPlan (\d+) \(returns \$(\d+)\)', 'g') LOOP
			lines := (SELECT array_agg(regexp_replace(l, '\$' || m[2] || '(?!\d)', 'initplan.' || m[1], 'g'))
			          FROM unnest(lines) l);
		END LOOP;
	END LOOP;
	FOREACH line IN ARRAY lines LOOP
		line := regexp_replace(line, '\(InitPlan (\d+)\)\.col1', 'initplan.\1', 'g');
		line := regexp_replace(line, 'InitPlan (\d+) \(returns initplan\.\d+\)', 'InitPlan \1');
		CONTINUE WHEN line ~ '^\s*Params Evaluated:';
		RETURN NEXT line;
	END LOOP;
END $$;

-- scan_check(query): whether the plan uses the batched scan, and whether
-- the query returns the same rows in the same order with it switched off
-- (bloomfilter.enable_batch_scan), and how many.
CREATE FUNCTION scan_uses_batch(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text; found boolean := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		found := found OR line LIKE '%Custom Scan (BloomBatchScan)%';
	END LOOP;
	RETURN found;
END $$;
CREATE FUNCTION scan_rows(query text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE r text[];
BEGIN
	EXECUTE format('SELECT coalesce(array_agg(q::text), ''{}'') FROM (%s) q', query) INTO r;
	RETURN r;
END $$;
CREATE FUNCTION scan_check(query text, OUT batch boolean, OUT plain_after_off boolean,
                           OUT same_rows boolean, OUT nrows int) LANGUAGE plpgsql AS $$
DECLARE with_batch text[]; without text[];
BEGIN
	batch := scan_uses_batch(query);
	with_batch := scan_rows(query);
	PERFORM set_config('bloomfilter.enable_batch_scan', 'off', true);
	plain_after_off := NOT scan_uses_batch(query);
	without := scan_rows(query);
	PERFORM set_config('bloomfilter.enable_batch_scan', 'on', true);
	same_rows := with_batch = without;
	nrows := cardinality(with_batch);
END $$;

-- The plan: the node, the probe it took over, the other quals as its Filter.
SELECT scan_explain($q$SELECT id FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'blocked'), k)$q$);
SELECT scan_explain($q$SELECT id, t FROM scan_t WHERE (SELECT f FROM scan_f WHERE name = 'classic') @> k AND t LIKE 'v1%'$q$);
SELECT scan_explain($q$SELECT id FROM scan_t WHERE k <@ (SELECT f FROM scan_f WHERE name = 'classic') AND id > 10$q$);
SELECT scan_explain($q$SELECT id FROM scan_t WHERE bloom_contains(bloom_add_all(bloom_empty_with(64, 1), ARRAY[1, 2, 3]), k4)$q$);
-- the setting switches it off
SET bloomfilter.enable_batch_scan = off;
SELECT scan_explain($q$SELECT id FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'blocked'), k)$q$);
RESET bloomfilter.enable_batch_scan;
SHOW bloomfilter.enable_batch_scan;

-- Same rows, same order, for every layout, the function and both operators.
SELECT name, c.*
FROM scan_f, LATERAL scan_check(format(
	'SELECT id, k FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = %L), k)', name)) c
WHERE name NOT IN ('text', 'numeric') ORDER BY name;
SELECT name, c.*
FROM scan_f, LATERAL scan_check(format(
	'SELECT * FROM scan_t WHERE (SELECT f FROM scan_f WHERE name = %L) @> k AND id %% 3 = 0', name)) c
WHERE name IN ('classic', 'explicit') ORDER BY name;
SELECT c.* FROM scan_check(
	'SELECT id, upper(t) FROM scan_t WHERE k <@ (SELECT f FROM scan_f WHERE name = ''matrix'') ORDER BY id DESC') c;
-- members are always found (the rows 1..3000 whose key is not NULL), an
-- explicit list answers exactly, and an empty filter passes nothing
SELECT name, count(*) FILTER (WHERE id <= 3000) AS members_found,
       count(*) FILTER (WHERE id <= 3000 AND k IS NULL) AS null_keys_passed
FROM scan_f CROSS JOIN LATERAL (
	SELECT id, k FROM scan_t WHERE bloom_contains(scan_f.f, k)) s
WHERE name NOT IN ('text', 'numeric') GROUP BY name ORDER BY name;
SELECT count(*) AS explicit_exact FROM scan_t
WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'explicit'), k)
  AND k NOT IN (SELECT k FROM scan_t WHERE id <= 100 AND k IS NOT NULL);
SELECT count(*) AS empty_passes FROM scan_t
WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'empty'), k);

-- Other key types: text and numeric (hashed through their opclass
-- functions), and an int4 column probed by a filter of int8 keys.
SELECT c.* FROM scan_check(
	'SELECT id, t FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = ''text''), t)') c;
SELECT c.* FROM scan_check(
	'SELECT id, n FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = ''numeric''), n)') c;
SELECT c.* FROM scan_check(
	'SELECT id FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = ''classic''), k4)') c;

-- A NULL filter passes nothing (bloom_contains is strict; a NULL
-- constant is folded away by the planner, a NULL from a subquery reaches
-- the scan); NULL keys never pass.
SELECT c.* FROM scan_check('SELECT id FROM scan_t WHERE bloom_contains(NULL::bloom, k)') c;
SELECT c.* FROM scan_check(
	'SELECT id FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = ''none''), k)') c;
SELECT count(*) AS null_keys FROM scan_t
WHERE bloom_contains((SELECT bloom_agg(k) FROM scan_t), k) AND k IS NULL;

-- The filter is evaluated when the scan has its first row, as the plain
-- scan first calls the probe then: over an empty table its InitPlan never
-- runs (here it would divide by zero), and a NULL filter never needs the
-- key's hash function (point has none).
CREATE TABLE scan_empty (k bigint, p point);
SELECT scan_uses_batch($q$SELECT * FROM scan_empty
	WHERE bloom_contains((SELECT f FROM scan_f WHERE 1 / (random() * 0)::int = 1), k)$q$) AS batch;
SELECT count(*) FROM scan_empty
WHERE bloom_contains((SELECT f FROM scan_f WHERE 1 / (random() * 0)::int = 1), k);
INSERT INTO scan_empty VALUES (1, '(0,0)');
SELECT count(*) FROM scan_empty
WHERE bloom_contains((SELECT f FROM scan_f WHERE 1 / (random() * 0)::int = 1), k);
SELECT c.* FROM scan_check($q$SELECT * FROM scan_empty WHERE bloom_contains((SELECT NULL::bloom), p)$q$) c;
SELECT count(*) FROM scan_empty WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'classic'), p);
DROP TABLE scan_empty;

-- EXPLAIN ANALYZE counts the rows the filter removed, apart from the
-- rows the other quals removed.
CREATE FUNCTION scan_counts(query text, OUT node text, OUT actual_rows float8,
                            OUT removed_by_filter float8, OUT removed_by_bloom_filter float8)
LANGUAGE plpgsql AS $$
DECLARE plan jsonb; scan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) ' || query INTO plan;
	scan := jsonb_path_query_first(plan, 'strict $.**?(@."Node Type" == "Custom Scan")');
	node := scan ->> 'Custom Plan Provider';
	actual_rows := (scan ->> 'Actual Rows')::float8;
	removed_by_filter := (scan ->> 'Rows Removed by Filter')::float8;
	removed_by_bloom_filter := (scan ->> 'Rows Removed by Bloom Filter')::float8;
END $$;
SELECT * FROM scan_counts($q$SELECT id FROM scan_t
	WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'explicit'), k) AND id > 50$q$);
SELECT count(*) AS explicit_members FROM scan_t WHERE id <= 100 AND k IS NOT NULL;

-- A LIMIT stops early; a cursor reads it in pieces.
SELECT c.* FROM scan_check(
	'SELECT id FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = ''blocked''), k) LIMIT 7') c;
BEGIN;
DECLARE scan_cur CURSOR FOR
	SELECT id FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'explicit'), k);
FETCH 3 FROM scan_cur;
FETCH 2 FROM scan_cur;
CLOSE scan_cur;
COMMIT;

-- Rescans: the filter is a parameter that changes with the outer row
-- (a correlated subquery), so each rescan probes the new filter.
SELECT name, (SELECT count(*) FROM scan_t WHERE bloom_contains(scan_f.f, k)) AS passed,
       (SELECT count(*) FROM scan_t WHERE bloom_contains(scan_f.f, k) IS TRUE
           AND id > 0 AND NOT (k IS NULL)) AS plain_passed
FROM scan_f WHERE name NOT IN ('text', 'numeric') ORDER BY name;
SELECT scan_explain($q$SELECT name, (SELECT count(*) FROM scan_t WHERE bloom_contains(scan_f.f, k)) FROM scan_f$q$);

-- A bind parameter, in a generic plan (as the remote side of a semijoin
-- runs it) and in a custom one.
PREPARE scan_p(bloom) AS SELECT id FROM scan_t WHERE bloom_contains($1, k) AND id < 2000;
SET plan_cache_mode = force_generic_plan;
SELECT scan_explain($q$EXECUTE scan_p(NULL)$q$);
SELECT f AS blocked_filter FROM scan_f WHERE name = 'blocked' \gset
CREATE TEMP TABLE scan_p_generic AS EXECUTE scan_p(:'blocked_filter');
SET plan_cache_mode = force_custom_plan;
SELECT scan_explain($q$EXECUTE scan_p(bloom_empty_with(64, 1))$q$);
CREATE TEMP TABLE scan_p_custom AS EXECUTE scan_p(:'blocked_filter');
RESET plan_cache_mode;
SELECT (SELECT array_agg(id) FROM scan_p_generic) = (SELECT array_agg(id) FROM scan_p_custom) AS same,
       (SELECT count(*) FROM scan_p_generic) AS nrows,
       (SELECT count(*) FROM scan_t WHERE id < 2000 AND bloom_contains((SELECT f FROM scan_f WHERE name = 'blocked'), k)) AS expected;
DEALLOCATE scan_p;

-- Row locks and writes keep the plain scan (EvalPlanQual may re-run it),
-- and give the same rows.
SELECT scan_explain($q$SELECT id FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'explicit'), k) FOR UPDATE$q$);
SELECT array_agg(id) = (SELECT array_agg(id) FROM scan_t
                        WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'explicit'), k)) AS same
FROM (SELECT id FROM scan_t
      WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'explicit'), k) FOR UPDATE) s;
SELECT scan_explain($q$UPDATE scan_t SET t = t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'explicit'), k)$q$);

-- Not offered: a filter that depends on the row, a key that is an
-- expression, a volatile filter.
SELECT scan_explain($q$SELECT id FROM scan_t WHERE bloom_contains(bloom_add(bloom_empty_with(64, 1), id), k)$q$);
SELECT scan_explain($q$SELECT id FROM scan_t WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'classic'), k + 1)$q$);
SELECT scan_explain($q$SELECT id FROM scan_t WHERE bloom_contains(CASE WHEN random() < 2 THEN bloom_empty_with(64, 1) END, k)$q$);

-- Above a security barrier the barrier's quals run first: a probe written
-- on a security_barrier view keeps the plain scan, one inside it is taken.
CREATE VIEW scan_barrier WITH (security_barrier) AS SELECT * FROM scan_t WHERE id % 2 = 0;
SELECT scan_uses_batch($q$SELECT id FROM scan_barrier
	WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'explicit'), k)$q$) AS probe_above_barrier;
SELECT c.* FROM scan_check($q$SELECT id FROM scan_barrier
	WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'explicit'), k)$q$) c;
CREATE VIEW scan_barrier_probe WITH (security_barrier) AS SELECT * FROM scan_t
	WHERE bloom_contains((SELECT f FROM scan_f WHERE name = 'explicit'), k);
SELECT scan_uses_batch('SELECT id FROM scan_barrier_probe WHERE id % 2 = 0') AS probe_in_barrier;
DROP VIEW scan_barrier, scan_barrier_probe;

-- The extension in another schema, off the search_path: still recognized.
CREATE SCHEMA scan_other;
CREATE TABLE scan_other.t AS SELECT * FROM scan_t WHERE id <= 1000;
SET search_path = scan_other;
SELECT scan_explain($q$SELECT id FROM t WHERE public.bloom_contains((SELECT f FROM public.scan_f WHERE name = 'explicit'), k)$q$);
RESET search_path;

-- A multi-attribute filter's attribute filter, and a partitioned table
-- (each partition gets its own batched scan).
CREATE TABLE scan_parts (id int, k bigint) PARTITION BY RANGE (id);
CREATE TABLE scan_parts_1 PARTITION OF scan_parts FOR VALUES FROM (0) TO (10000);
CREATE TABLE scan_parts_2 PARTITION OF scan_parts FOR VALUES FROM (10000) TO (30000);
INSERT INTO scan_parts SELECT id, k FROM scan_t;
ANALYZE scan_parts;
SELECT scan_explain($q$SELECT id FROM scan_parts
WHERE bloom_contains(multibloom_attribute((SELECT multibloom_agg(k, id) FROM scan_t WHERE id <= 50), 1), k)$q$);
SELECT c.* FROM scan_check($$SELECT id FROM scan_parts
	WHERE bloom_contains(multibloom_attribute((SELECT multibloom_agg(k, id) FROM scan_t WHERE id <= 50), 1), k)$$) c;

DROP SCHEMA scan_other CASCADE;
DROP TABLE scan_parts, scan_t, scan_f;
DROP FUNCTION scan_check(text), scan_rows(text), scan_uses_batch(text), scan_explain(text),
	scan_counts(text);
