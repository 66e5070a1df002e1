-- bloom_agg(value, capacity, fpp, 'matrix') in parallel plans.  The matrix
-- layout places a value in the candidate row that needs the fewest new
-- bits, given the values inserted before it; filters built apart and ORed
-- hold more bits than one filter of the same values, so a parallel plan
-- that united the workers' filters read 1.04 to 1.10 times the true count
-- and answered wrongly 1.3 to 1.7 times as often as the serial filter.
-- The aggregate collects the distinct value hashes instead, and its final
-- function inserts them into one filter in ascending order of the hash:
-- every plan gives the serial plan's filter, whatever the row order.
CREATE TABLE agg_pm (k bigint, t text, grp int);
INSERT INTO agg_pm
SELECT g * 7919 % 1000003, 'value ' || g, g % 3 FROM generate_series(1, 100000) g;
-- every fourth value twice, and a NULL: the insert count is the rows'
INSERT INTO agg_pm SELECT k, t, grp FROM agg_pm WHERE k % 4 = 0;
INSERT INTO agg_pm VALUES (NULL, NULL, 0);
ANALYZE agg_pm;

-- The rate measured over 200,000 values never added (the table's are >= 0).
CREATE FUNCTION pg_temp.rate(f bloom) RETURNS float8 LANGUAGE sql AS
$$ SELECT count(*) FILTER (WHERE bloom_contains(f, -g::bigint)) / 200000.0
   FROM generate_series(1, 200000) g $$;
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE detail text;
BEGIN
	EXECUTE q;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' (' || nullif(detail, '') || ')', '');
END $$;

-- The serial filter: the estimate within 3% of the 100,000 distinct values,
-- the rate under the requested 0.01, every value found, every row counted.
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE pm_serial AS
SELECT bloom_agg(k, 100000, 0.01, 'matrix') AS f, bloom_agg(t, 100000, 0.01, 'matrix') AS ft,
       -- 75,000 distinct values in a filter for 1,000: full early
       bloom_agg(k, 1000, 0.01, 'matrix') FILTER (WHERE k % 4 <> 0) AS full_f
FROM agg_pm;
CREATE TEMP TABLE pm_serial_rate AS SELECT pg_temp.rate(f) AS rate FROM pm_serial;
SELECT abs(bloom_cardinality(f) / 100000 - 1) < 0.03 AS estimate_ok,
       (SELECT rate FROM pm_serial_rate) BETWEEN 0.0005 AND 0.01 AS rate_ok,
       (SELECT count(*) FROM agg_pm WHERE NOT bloom_contains(f, k) OR NOT bloom_contains(ft, t)) AS false_negatives,
       (bloom_info(f)).inserted AS inserted, (bloom_info(ft)).inserted AS text_inserted
FROM pm_serial;

-- What the filter is: bloom_add_all over the values in ascending order of
-- their hash as an unsigned 64-bit number (the negative bigints last), so
-- another row order gives the same bytes.  Duplicates add no bits; full_at
-- counts the distinct values before the first that met only full rows.
SELECT f = bloom_add_all(bloom_empty(100000, 0.01, 'matrix'),
                         ARRAY(SELECT k FROM agg_pm WHERE k IS NOT NULL
                               ORDER BY bloom_hash(k, 0) < 0, bloom_hash(k, 0))) AS hash_order,
       f = (SELECT bloom_agg(k, 100000, 0.01, 'matrix')
            FROM (SELECT k FROM agg_pm ORDER BY k DESC) s) AS other_row_order_same,
       full_f = bloom_add_all(bloom_empty(1000, 0.01, 'matrix'),
                              ARRAY(SELECT k FROM agg_pm WHERE k % 4 <> 0
                                    ORDER BY bloom_hash(k, 0) < 0, bloom_hash(k, 0))) AS full_hash_order,
       (bloom_info(full_f)).full_at BETWEEN 1 AND 10000 AS full_early
FROM pm_serial;

-- Parallel plans: 2 and 6 workers, the leader taking part or not.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
CREATE TEMP TABLE pm_parallel (plan text, launched int, f bloom, ft bloom, full_f bloom, hashed bloom);
-- A CREATE TABLE AS may run in parallel (an INSERT ... SELECT may not), and
-- under EXPLAIN ANALYZE it fills the table: the workers launched are those
-- of the run that built the filters (0 if it ran serially).
CREATE FUNCTION pg_temp.build(plan text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE run jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) CREATE TEMP TABLE pm_one AS
	         SELECT bloom_agg(k, 100000, 0.01, ''matrix'') AS f, bloom_agg(t, 100000, 0.01, ''matrix'') AS ft,
	                bloom_agg(k, 1000, 0.01, ''matrix'') FILTER (WHERE k % 4 <> 0) AS full_f,
	                bloom_agg_hashed(bloom_hash(k, 0), 100000, 0.01, ''matrix'') AS hashed
	         FROM agg_pm' INTO run;
	INSERT INTO pm_parallel
	SELECT plan, coalesce((jsonb_path_query_first(run, 'strict $.**."Workers Launched"'))::int, 0), *
	FROM pm_one;
	DROP TABLE pm_one;
END $$;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(k, 100000, 0.01, 'matrix') FROM agg_pm;
SET parallel_leader_participation = on;
DO $$ BEGIN PERFORM pg_temp.build('2 workers'); END $$;
SET parallel_leader_participation = off;
DO $$ BEGIN PERFORM pg_temp.build('2 workers, leader off'); END $$;
SET max_parallel_workers_per_gather = 6;
ALTER TABLE agg_pm SET (parallel_workers = 6);
SET parallel_leader_participation = on;
DO $$ BEGIN PERFORM pg_temp.build('6 workers'); END $$;
SET parallel_leader_participation = off;
DO $$ BEGIN PERFORM pg_temp.build('6 workers, leader off'); END $$;
ALTER TABLE agg_pm RESET (parallel_workers);

-- Each: the serial bytes, so the estimate within 3% of the truth (ORed
-- filters read 4% to 10% high) and the measured rate the serial one's
-- within sampling error (4 standard deviations of the difference of two
-- measured rates: about 0.0009 here, where ORed filters were 0.0015 to
-- 0.0035 above).
SELECT plan, launched >= 2 AS in_parallel, p.f = s.f AS same_as_serial, p.ft = s.ft AS text_same,
       p.full_f = s.full_f AS full_same, p.hashed = s.f AS hashed_twin_same,
       abs(bloom_cardinality(p.f) / 100000 - 1) < 0.03 AS estimate_ok,
       abs(pg_temp.rate(p.f) - r.rate) <= 4 * sqrt(2 * r.rate / 200000) AS rate_as_serial,
       (bloom_info(p.f)).inserted AS inserted
FROM pm_parallel p, pm_serial s, pm_serial_rate r ORDER BY plan;

-- Partial states past work_mem: workers spill their hashes, the leader
-- reads them back into a temporary file; the same bytes.
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = on;
SET work_mem = '64kB';
CREATE TEMP TABLE pm_spilled AS SELECT bloom_agg(k, 100000, 0.01, 'matrix') AS f FROM agg_pm;
RESET work_mem;
SELECT f = (SELECT f FROM pm_serial) AS spilled_same FROM pm_spilled;

-- GROUP BY: one filter per group, each the serial plan's.
CREATE TEMP TABLE pm_groups AS
SELECT grp, bloom_agg(k, 50000, 0.01, 'matrix') AS f FROM agg_pm GROUP BY grp;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FILTER (WHERE p.f = s.f) AS groups_same, count(*) AS groups
FROM pm_groups p JOIN (SELECT grp, bloom_agg(k, 50000, 0.01, 'matrix') AS f FROM agg_pm GROUP BY grp) s USING (grp);

-- Partial aggregation per partition, without workers: the same bytes.
CREATE TABLE agg_pm_parts (k bigint, grp int) PARTITION BY LIST (grp);
CREATE TABLE agg_pm_p0 PARTITION OF agg_pm_parts FOR VALUES IN (0);
CREATE TABLE agg_pm_p1 PARTITION OF agg_pm_parts FOR VALUES IN (1);
CREATE TABLE agg_pm_p2 PARTITION OF agg_pm_parts FOR VALUES IN (2);
INSERT INTO agg_pm_parts SELECT k, grp FROM agg_pm;
ANALYZE agg_pm_parts;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT bloom_agg(k, 100000, 0.01, 'matrix') FROM agg_pm_parts;
SELECT bloom_agg(k, 100000, 0.01, 'matrix') = (SELECT f FROM pm_serial) AS partitionwise_same
FROM agg_pm_parts;
RESET enable_partitionwise_aggregate;
DROP TABLE agg_pm_parts;

-- Partial states combined by hand, as a distributed database combines the
-- hashed twin's per shard: the single-server bytes, also through the text form.
CREATE AGGREGATE pm_state(bigint, bigint, float8, text) (
	SFUNC = bloom_agg_hashed_fixed_trans, STYPE = bloom_agg_state, COMBINEFUNC = bloom_agg_state_combine);
CREATE AGGREGATE pm_filter_of_states(bloom_agg_state) (
	SFUNC = bloom_agg_state_combine, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_hashed_fixed_final);
CREATE TEMP TABLE pm_states AS
SELECT grp, pm_state(bloom_hash(k, 0), 100000, 0.01, 'matrix') AS s FROM agg_pm GROUP BY grp;
SELECT pm_filter_of_states(s) = (SELECT f FROM pm_serial) AS states_same,
       pm_filter_of_states(s::text::bloom_agg_state) = (SELECT f FROM pm_serial) AS text_states_same
FROM pm_states;

-- Damaged states: an ERROR each.
CREATE FUNCTION pg_temp.damaged(b bytea) RETURNS text LANGUAGE sql AS
$$ SELECT pg_temp.err(format('SELECT pm_filter_of_states(%L::bloom_agg_state)',
                             replace(encode(b, 'base64'), E'\n', ''))) $$;
-- After the format byte: the kind ('M'), 3 zero bytes, the layout, the
-- capacity, the fpp, has_layout, 7 zero bytes; then 'M   ', the row count
-- and the packed hashes.
\x on
SELECT pg_temp.damaged(substr(b, 1, length(b) - 3)) AS cut,
       pg_temp.damaged(set_byte(b, 5, 0)) AS classic_layout,
       pg_temp.damaged(set_byte(b, 1, ascii('F'))) AS as_filter,
       pg_temp.damaged(set_byte(b, 33, ascii('S'))) AS head,
       pg_temp.damaged(overlay(b PLACING '\x0100000000000000'::bytea FROM 38 FOR 8)) AS fewer_rows
FROM (SELECT bloom_agg_state_send(s) AS b FROM pm_states WHERE grp = 1) x;
\x off
SELECT get_byte(b, 1) = ascii('M') AND get_byte(b, 5) + get_byte(b, 8) = 2
       AND get_byte(b, 33) = ascii('M') AS layout_as_described
FROM (SELECT bloom_agg_state_send(s) AS b FROM pm_states WHERE grp = 1) x;

-- A filter of 8 MB or more is allocated apart (with huge pages where the
-- system offers them), with room for the row counters after its bits.
SELECT f = bloom_add_all(bloom_empty(10000000, 0.01, 'matrix'),
                         ARRAY(SELECT k FROM agg_pm WHERE k < 10000
                               ORDER BY bloom_hash(k, 0) < 0, bloom_hash(k, 0))) AS large_hash_order,
       f::bytea::bloom = f AS large_reads_back, (bloom_info(f)).bytes >= 8 * 1024 * 1024 AS large
FROM (SELECT bloom_agg(k, 10000000, 0.01, 'matrix') AS f FROM agg_pm WHERE k < 10000) x;

-- A window aggregate calls the final function once per frame and goes on.
SELECT count(*) FILTER (WHERE a.f = (SELECT bloom_agg(b.k, 100, 0.01, 'matrix') FROM agg_pm b WHERE b.k <= a.k))
         AS frames_same,
       count(*) AS frames
FROM (SELECT k, bloom_agg(k, 100, 0.01, 'matrix') OVER (ORDER BY k) AS f FROM agg_pm WHERE k < 300) a;

DROP AGGREGATE pm_state(bigint, bigint, float8, text);
DROP AGGREGATE pm_filter_of_states(bloom_agg_state);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
DROP TABLE agg_pm;
