-- Guards in parallel plans (src/summaries/summary_prune.c): a guard takes a
-- plan_node_id no other node of the plan has (above the highest of the
-- tree, children of Appends included), since parallel query gathers the
-- workers' counts by plan_node_id: a guard sharing the id of a scan would
-- report the scan's removed rows as its own skipped starts.  The workers'
-- counts equal those of the same query run without them.
SET client_min_messages = warning;
LOAD 'bloomfilter';
SET max_parallel_workers_per_gather = 0;

CREATE TABLE gi (day int NOT NULL, user_id bigint, name text) PARTITION BY RANGE (day);
SELECT format('CREATE TABLE gi_%s PARTITION OF gi FOR VALUES FROM (%s) TO (%s)', d, d, d + 1)
FROM generate_series(1, 4) d
\gexec
-- users 1..400 each in one day, ten rows each, nine of them named 'x'
INSERT INTO gi SELECT 1 + u % 4, u, CASE WHEN i = 0 THEN 'n' ELSE 'x' END
FROM generate_series(1, 400) u, generate_series(0, 9) i;
CREATE INDEX gi_user ON gi (user_id);
VACUUM ANALYZE gi;
SELECT bloom_summary_create('gi', 'user_id', 2000, 0.01) > 0 AS created;

-- the outer side: 150 keys, each in one partition
-- (not a temporary table: parallel query below)
CREATE TABLE gi_keys AS SELECT g::bigint AS uid FROM generate_series(1, 150) g;
ANALYZE gi_keys;
ALTER TABLE gi_keys SET (parallel_workers = 2);

-- per plan: Gather nodes, guards, and the starts skipped / made by all guards
CREATE FUNCTION gi_guards(OUT gathers int, OUT guarded int, OUT skipped_starts int, OUT starts int,
                          OUT removed_rows int)
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	gathers := 0; guarded := 0; skipped_starts := 0; starts := 0; removed_rows := 0;
	FOR line IN EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
		SELECT k.uid, e.day FROM gi_keys k JOIN gi e ON e.user_id = k.uid AND e.name <> 'x'
	LOOP
		gathers := gathers + (line LIKE '%Gather%')::int;
		guarded := guarded + (line LIKE '%Guarded by Summary%')::int;
		skipped_starts := skipped_starts
			+ coalesce(substring(line FROM 'Scans Skipped by Summary: (\d+) of')::int, 0);
		starts := starts
			+ coalesce(substring(line FROM 'Scans Skipped by Summary: \d+ of (\d+)')::int, 0);
		removed_rows := removed_rows
			+ coalesce(substring(line FROM 'Rows Removed by Filter: (\d+)')::int, 0);
	END LOOP;
	RETURN;
END
$$;

SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_memoize = off;
CREATE TABLE gi_serial AS SELECT * FROM gi_guards();
SELECT gathers, guarded, skipped_starts, starts, removed_rows > 0 AS removes_rows FROM gi_serial;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
CREATE TABLE gi_parallel AS SELECT * FROM gi_guards();
SELECT p.gathers, p.guarded,
       p.skipped_starts = s.skipped_starts AS same_skipped,
       p.starts = s.starts AS same_starts,
       p.removed_rows = s.removed_rows AS same_removed
FROM gi_parallel p, gi_serial s;
RESET parallel_leader_participation;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET enable_memoize;
RESET enable_mergejoin;
RESET enable_hashjoin;

DROP TABLE gi, gi_keys, gi_serial, gi_parallel;
DROP FUNCTION gi_guards;
