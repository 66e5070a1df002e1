-- Parallel aggregation: partial states are combined, serialized and
-- deserialized, and the result has the same bits as the serial plan.
CREATE TABLE agg_par (k bigint, t text, grp int);
INSERT INTO agg_par
SELECT g % 120000, 'text ' || (g % 5000), g % 3 FROM generate_series(1, 240000) g;
INSERT INTO agg_par VALUES (NULL, NULL, 0);
ANALYZE agg_par;

-- serial results first
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE agg_serial AS
SELECT bloom_agg(k) AS auto_k, bloom_agg(t) AS auto_t,
       bloom_agg(k, 200000, 0.01) AS fixed_k, bloom_agg(t, 10000, 0.001, 'classic') AS fixed_t,
       (SELECT bloom_union_agg(f) FROM (SELECT bloom_agg(k, 200000, 0.01) f FROM agg_par GROUP BY grp) s) AS union_k,
       (SELECT bloom_intersect_agg(f) FROM (SELECT bloom_agg(t, 10000, 0.01) f FROM agg_par GROUP BY grp) s) AS intersect_t
FROM agg_par;
CREATE TEMP TABLE agg_serial_groups AS SELECT grp, bloom_agg(k) f FROM agg_par GROUP BY grp;

-- forced parallel plans
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = on;

EXPLAIN (COSTS OFF) SELECT bloom_agg(k), bloom_agg(k, 200000, 0.01) FROM agg_par;
SELECT p.auto_k = s.auto_k AS auto_k_same, p.auto_t = s.auto_t AS auto_t_same,
       p.fixed_k = s.fixed_k AS fixed_k_same, p.fixed_t = s.fixed_t AS fixed_t_same,
       (bloom_info(p.auto_k)).inserted = (bloom_info(s.auto_k)).inserted AS auto_count_same,
       (bloom_info(p.fixed_k)).inserted = (bloom_info(s.fixed_k)).inserted AS fixed_count_same,
       (bloom_info(p.auto_k)).inserted AS inserted
FROM (SELECT bloom_agg(k) AS auto_k, bloom_agg(t) AS auto_t,
             bloom_agg(k, 200000, 0.01) AS fixed_k, bloom_agg(t, 10000, 0.001, 'classic') AS fixed_t
      FROM agg_par) p, agg_serial s;

-- partial states past work_mem: the workers spill, the states travel as
-- their distinct hashes, the leader spills again, still the same bits
SET work_mem = '64kB';
SELECT bloom_agg(k) = (SELECT auto_k FROM agg_serial) AS spilled_parallel_same FROM agg_par;
RESET work_mem;

-- set-operation aggregates over a parallel scan of stored filters
CREATE TABLE agg_par_filters AS
SELECT g AS id, bloom_agg(k, 200000, 0.01) AS f, bloom_agg(t, 10000, 0.01) AS ft
FROM agg_par, LATERAL (SELECT grp AS g) x GROUP BY g;
INSERT INTO agg_par_filters
SELECT 100 + g, f, ft FROM agg_par_filters, generate_series(1, 200) g;
INSERT INTO agg_par_filters VALUES (999, NULL, NULL);
ANALYZE agg_par_filters;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(f), bloom_intersect_agg(ft) FROM agg_par_filters;
SELECT bloom_union_agg(f) = (SELECT union_k FROM agg_serial) AS union_same,
       bloom_intersect_agg(ft) = (SELECT intersect_t FROM agg_serial) AS intersect_same
FROM agg_par_filters;

-- no rows in a parallel plan: the data-sized form is the empty filter
SELECT (bloom_info(bloom_agg(k))).nbits AS empty_bits, (bloom_info(bloom_agg(k))).inserted
FROM agg_par WHERE k < 0;

-- GROUP BY in parallel (partial hash aggregation per group)
EXPLAIN (COSTS OFF) SELECT grp, bloom_agg(k) FROM agg_par GROUP BY grp;
SELECT bool_and(p.f = s.f) AS groups_same, count(*) AS groups
FROM (SELECT grp, bloom_agg(k) f FROM agg_par GROUP BY grp) p
JOIN agg_serial_groups s USING (grp);

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
DROP TABLE agg_par, agg_par_filters;
