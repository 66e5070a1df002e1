-- Partial states of the data-sized aggregates (bloom_agg(value),
-- multibloom_agg): packed (about 6 bytes per distinct hash here, instead
-- of 8), read back within work_mem (the rest straight into temporary
-- files), merged in place, and the same bits as a serial plan whatever
-- the memory.  Partitionwise aggregation serializes, deserializes and
-- combines one partial state per partition in one process, so what the
-- states cost can be read, deterministically, from EXPLAIN ANALYZE.
CREATE TABLE pstate (k bigint, t text, a int, grp int, part int) PARTITION BY LIST (part);
CREATE TABLE pstate_0 PARTITION OF pstate FOR VALUES IN (0);
CREATE TABLE pstate_1 PARTITION OF pstate FOR VALUES IN (1);
CREATE TABLE pstate_2 PARTITION OF pstate FOR VALUES IN (2);
CREATE TABLE pstate_3 PARTITION OF pstate FOR VALUES IN (3);
-- 800,000 distinct values in 4 groups x 4 partitions; then every value of
-- the first 200,000 again, in another partition (states share values), and
-- rows with NULLs (multibloom records whose first word is 0)
INSERT INTO pstate
SELECT g, 'v' || g, g % 1000, g % 4, (g / 4) % 4 FROM generate_series(1, 800000) g;
INSERT INTO pstate
SELECT g, 'v' || g, g % 1000, g % 4, (g / 4 + 1) % 4 FROM generate_series(1, 200000) g;
INSERT INTO pstate
SELECT NULL, 'n' || g, CASE WHEN g % 2 = 0 THEN g END, g % 4, g % 4 FROM generate_series(1, 2000) g;
ANALYZE pstate;

-- serial results, not partitionwise
CREATE TEMP TABLE pstate_serial AS
SELECT grp, bloom_agg(k) AS fk, bloom_agg(t) AS ft, multibloom_agg(a, k) AS mb
FROM pstate GROUP BY grp;
CREATE TEMP TABLE pstate_serial_d AS
SELECT coalesce(a % 10, -1) AS d, bloom_agg(k) AS fk FROM pstate GROUP BY 1;
CREATE TEMP TABLE pstate_serial_all AS
SELECT bloom_agg(k) AS fk, multibloom_agg(a, t) AS mb FROM pstate;

CREATE FUNCTION pg_temp.plan_of(query text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  p json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query INTO p;
  RETURN (p -> 0 -> 'Plan')::jsonb;
END $$;

SET enable_partitionwise_aggregate = on;
SET max_parallel_workers_per_gather = 0;

-- the size of a partial state: the Sort below the Finalize GroupAggregate
-- holds the 16 states (200,000 rows of each group in 4 partitions): about
-- 6.3 bytes per distinct hash packed, 8 unpacked
SET work_mem = '64MB';
EXPLAIN (COSTS OFF) SELECT grp, bloom_agg(k) FROM pstate GROUP BY grp;
SELECT p ->> 'Node Type' AS node, p -> 'Plans' -> 0 ->> 'Sort Method' AS sort_method,
       round((p -> 'Plans' -> 0 ->> 'Sort Space Used')::numeric * 1024 / 1000000, 1) BETWEEN 5.5 AND 6.8
         AS packed_bytes_per_hash
FROM pg_temp.plan_of('SELECT grp, bloom_agg(k) FROM pstate GROUP BY grp') p;

-- the same bits as the serial plan: states in memory, states spilled
-- (runs that share values), and states read back into temporary files
SELECT bool_and(p.fk = s.fk) AS fk_same, bool_and(p.ft = s.ft) AS ft_same, bool_and(p.mb = s.mb) AS mb_same,
       sum((bloom_info(p.fk)).inserted) AS inserted
FROM (SELECT grp, bloom_agg(k) fk, bloom_agg(t) ft, multibloom_agg(a, k) mb FROM pstate GROUP BY grp) p
JOIN pstate_serial s USING (grp);
SET work_mem = '64kB';
SELECT bool_and(p.fk = s.fk) AS fk_same_64kb, bool_and(p.ft = s.ft) AS ft_same_64kb,
       bool_and(p.mb = s.mb) AS mb_same_64kb
FROM (SELECT grp, bloom_agg(k) fk, bloom_agg(t) ft, multibloom_agg(a, k) mb FROM pstate GROUP BY grp) p
JOIN pstate_serial s USING (grp);
EXPLAIN (COSTS OFF) SELECT bloom_agg(k) FROM pstate;
SELECT bloom_agg(k) = (SELECT fk FROM pstate_serial_all) AS all_same_64kb,
       multibloom_agg(a, t) = (SELECT mb FROM pstate_serial_all) AS mb_all_same_64kb
FROM pstate;

-- the states of ten groups, read back by a hash aggregate: within about
-- work_mem, as the deserialized states are merged and given back (without
-- that, more than 10 MB here at work_mem = 1MB)
SET work_mem = '1MB';
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT coalesce(a % 10, -1), bloom_agg(k) FROM pstate GROUP BY 1;
SELECT p ->> 'Node Type' AS node, p ->> 'Partial Mode' AS mode,
       (p ->> 'Peak Memory Usage')::int <= 3 * 1024 AS within_3_work_mem
FROM pg_temp.plan_of('SELECT coalesce(a % 10, -1), bloom_agg(k) FROM pstate GROUP BY 1') p;
SELECT count(*) AS groups, bool_and(p.fk = s.fk) AS groups_same
FROM (SELECT coalesce(a % 10, -1) AS d, bloom_agg(k) fk FROM pstate GROUP BY 1) p
JOIN pstate_serial_d s USING (d);
RESET enable_sort;
RESET work_mem;

-- forced parallel plans at a tiny work_mem: text and multibloom states
RESET enable_partitionwise_aggregate;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET work_mem = '64kB';
SELECT bool_and(p.ft = s.ft) AS parallel_ft_same, bool_and(p.mb = s.mb) AS parallel_mb_same
FROM (SELECT grp, bloom_agg(t) ft, multibloom_agg(a, k) mb FROM pstate GROUP BY grp) p
JOIN pstate_serial s USING (grp);
RESET work_mem;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

DROP TABLE pstate;
