-- The batched probe scan under a parallel sequential scan: each process
-- reads its share of the table through the shared parallel scan, and
-- together they return exactly the rows of the serial scan.
SET client_min_messages = warning;
CREATE TABLE scanp_t (id int, k bigint, t text);
INSERT INTO scanp_t
SELECT g, CASE WHEN g % 101 = 0 THEN NULL ELSE (g * 7919) % 100003 END, 'r' || g
FROM generate_series(1, 100000) g;
ANALYZE scanp_t;
CREATE TABLE scanp_f AS
SELECT bloom_agg(k, 20000, 0.01, 'blocked') AS blocked, bloom_agg(k) AS datasized,
       (SELECT bloom_agg(k) FROM scanp_t WHERE id <= 50) AS explicit
FROM scanp_t WHERE id <= 20000;

-- The queries, and the custom scan node of each one's plan.
CREATE TABLE scanp_q (name text, query text);
INSERT INTO scanp_q VALUES
 ('blocked', 'SELECT id FROM scanp_t WHERE bloom_contains((SELECT blocked FROM scanp_f), k)'),
 ('datasized', $$SELECT id FROM scanp_t WHERE (SELECT datasized FROM scanp_f) @> k AND t LIKE '%7%'$$),
 ('explicit', 'SELECT id FROM scanp_t WHERE k <@ (SELECT explicit FROM scanp_f)'),
 -- a qual tested before the probe, in each process
 ('qual_first', 'SELECT id FROM scanp_t WHERE id > 15000 AND bloom_contains((SELECT blocked FROM scanp_f), k)');
CREATE FUNCTION scanp_node(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE plan jsonb; node jsonb;
BEGIN
	EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || query INTO plan;
	node := jsonb_path_query_first(plan, 'strict $.**?(@."Node Type" == "Custom Scan")');
	RETURN CASE WHEN (node ->> 'Parallel Aware')::boolean THEN 'Parallel ' ELSE '' END
		|| (node ->> 'Node Type') || ' (' || (node ->> 'Custom Plan Provider') || ')';
END $$;

-- Each query's rows, serial (mode s) then parallel (mode p), kept by
-- top-level CREATE TABLE AS statements (which may run in parallel).
\set mode s
SET max_parallel_workers_per_gather = 0;
SELECT name, scanp_node(query) FROM scanp_q ORDER BY name;
SELECT format('CREATE TEMP TABLE scanp_%s_%s AS %s',
              :'mode', name, query) FROM scanp_q ORDER BY name \gexec

-- forced parallel plans
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
\set mode p
SELECT name, scanp_node(query) FROM scanp_q ORDER BY name;
SELECT format('CREATE TEMP TABLE scanp_%s_%s AS %s',
              :'mode', name, query) FROM scanp_q ORDER BY name \gexec

CREATE FUNCTION scanp_ids(t regclass) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE r int[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %s', t) INTO r;
	RETURN r;
END $$;
SELECT name, cardinality(scanp_ids(format('scanp_s_%s', name)::regclass)) AS nrows,
       scanp_ids(format('scanp_s_%s', name)::regclass) = scanp_ids(format('scanp_p_%s', name)::regclass) AS same_rows
FROM scanp_q ORDER BY name;

-- The parallel plan's counts in EXPLAIN ANALYZE add up the workers': the
-- rows removed by the filter and the rows returned make the table (each
-- count is shown per process, rounded, hence the tolerance).
CREATE FUNCTION scanp_counts(query text, OUT loops float8, OUT returned float8, OUT removed float8)
LANGUAGE plpgsql AS $$
DECLARE plan jsonb; node jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) ' || query INTO plan;
	node := jsonb_path_query_first(plan, 'strict $.**?(@."Node Type" == "Custom Scan")');
	loops := (node ->> 'Actual Loops')::float8;
	returned := (node ->> 'Actual Rows')::float8 * loops;
	removed := (node ->> 'Rows Removed by Bloom Filter')::float8 * loops;
END $$;
SELECT abs(returned + removed - 100000) <= loops AS all_rows_counted,
       abs(returned - (SELECT count(*) FROM scanp_s_blocked)) <= loops AS returned_as_serial
FROM scanp_counts('SELECT count(*) FROM scanp_t WHERE bloom_contains((SELECT blocked FROM scanp_f), k)');

-- Rescans, with parallel plans enabled: a correlated subquery scans the
-- table once per outer row, each time from the start.
SELECT g, (SELECT count(*) FROM scanp_t WHERE bloom_contains((SELECT blocked FROM scanp_f), k) AND id > g)
FROM generate_series(0, 50000, 25000) g;

RESET max_parallel_workers_per_gather;
DROP TABLE scanp_t, scanp_f, scanp_q;
DROP FUNCTION scanp_counts(text), scanp_node(text), scanp_ids(regclass);
