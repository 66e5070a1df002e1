-- Skipped scans left out of the plan that runs (src/summaries/summary_leave_out.c):
-- outside EXPLAIN, the scans a summary rules out are removed from their
-- Append or MergeAppend instead of being replaced by empty nodes.  Every
-- query's rows equal those with the pruning off, in the same order where
-- the query orders them; the DEBUG1 line counts the scans left out.  Not
-- left out: under EXPLAIN, and below an Append that PostgreSQL prunes at
-- executor start (its pruning numbers the children).
SET client_min_messages = warning;
LOAD 'bloomfilter';
SET max_parallel_workers_per_gather = 0;

CREATE TABLE lo (day int NOT NULL, k bigint, v int) PARTITION BY RANGE (day);
SELECT format('CREATE TABLE lo_%s PARTITION OF lo FOR VALUES FROM (%s) TO (%s)', d, d, d + 1)
FROM generate_series(1, 8) d
\gexec
-- day d holds the keys 1000 d .. 1000 d + 49; key 7 is in days 2 and 6
INSERT INTO lo SELECT d, 1000 * d + i, i FROM generate_series(1, 8) d, generate_series(0, 49) i;
INSERT INTO lo VALUES (2, 7, 1), (6, 7, 2), (6, 7, 3);
CREATE INDEX lo_k_v ON lo (k, v);
VACUUM ANALYZE lo;
SELECT bloom_summary_create('lo', 'k', 200, 0.001) > 0 AS created;

-- rows with the pruning off, then on; the DEBUG1 line says how many scans
-- were left out
CREATE FUNCTION lo_rows(q text, pruning bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	PERFORM set_config('bloomfilter.enable_summary_pruning', pruning::text, true);
	EXECUTE format('SELECT coalesce(string_agg(x::text, '' ''), ''-'') FROM (%s) x', q) INTO r;
	RETURN r;
END
$$;
CREATE FUNCTION lo_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	off text := lo_rows(q, false);
	o text;
BEGIN
	SET LOCAL client_min_messages = debug1;
	o := lo_rows(q, true);
	SET LOCAL client_min_messages = warning;
	RETURN CASE WHEN o = off THEN 'same: ' || o ELSE 'DIFFERENT: off ' || off || ', on ' || o END;
END
$$;
-- whether the plan of q has a node named node
CREATE FUNCTION lo_has(q text, node text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line LIKE '%' || node || '%' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END
$$;

-- an Append: two of eight scans kept
SELECT lo_same('SELECT day, k, v FROM lo WHERE k = 7 ORDER BY 1, 3');
-- every scan skipped: an Append without children
SELECT lo_same('SELECT count(*) FROM lo WHERE k = 99999');
SELECT lo_same('SELECT day, v FROM lo WHERE k IN (7, 3010, 5049) ORDER BY 1, 2');
-- a MergeAppend, its order kept
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
SELECT lo_has('SELECT k, v FROM lo WHERE k = 7 ORDER BY k, v', 'Merge Append') AS merge_append;
SELECT lo_same('SELECT k, v FROM lo WHERE k = 7 ORDER BY k, v');
SELECT lo_same('SELECT k, v FROM lo WHERE k = 99999 ORDER BY k, v');
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_sort;

-- a Parallel Append over a non-partial leaf and partial ones
ALTER TABLE lo_3 SET (parallel_workers = 0);
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
SELECT lo_has('SELECT day, k, v FROM lo WHERE k = 7', 'Parallel Append') AS parallel_append;
SELECT lo_same('SELECT day, k, v FROM lo WHERE k = 7 ORDER BY 1, 3');
SELECT lo_same('SELECT day, k FROM lo WHERE k = 3001 OR k = 6049 ORDER BY 1, 2');
-- every child of the Parallel Append left out
SELECT lo_same('SELECT count(*) FROM lo WHERE k = 99999');
RESET parallel_leader_participation;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;
ALTER TABLE lo_3 RESET (parallel_workers);

-- a generic plan: the key a parameter, decided at each execution
SET plan_cache_mode = force_generic_plan;
PREPARE lo_q(bigint) AS SELECT count(*), sum(v) FROM lo WHERE k = $1;
SET client_min_messages = debug1;
EXECUTE lo_q(7);
EXECUTE lo_q(4020);
-- the day a parameter too: PostgreSQL prunes that Append at executor
-- start, its children are kept (no DEBUG1 line), the result the same
PREPARE lo_d(bigint, int) AS SELECT count(*) FROM lo WHERE k = $1 AND day >= $2;
EXECUTE lo_d(7, 3);
EXECUTE lo_d(7, 7);
-- under EXPLAIN the skipped scans are shown, none left out
EXPLAIN (COSTS OFF) EXECUTE lo_q(99999);
SET client_min_messages = warning;
RESET plan_cache_mode;

-- a UNION ALL of two parents, and a join: Appends below other nodes
SELECT lo_same('SELECT day, k FROM lo WHERE k = 7 UNION ALL SELECT day, k FROM lo WHERE k = 8049 ORDER BY 1, 2');
SELECT lo_same('SELECT a.day, b.day FROM lo a JOIN lo b ON a.v = b.v WHERE a.k = 7 AND b.k = 5001 ORDER BY 1, 2');
-- row locks: the left-out leaves' row marks stay, inactive
SELECT lo_same('SELECT day, k, v FROM lo WHERE k = 7 ORDER BY 1, 3 FOR UPDATE');

DROP TABLE lo;
