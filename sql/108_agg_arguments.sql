-- bloom_agg(value, capacity, fpp [, layout]): the arguments that shape the
-- filter must be the same for every row of a group, whatever the plan.
-- Rows that disagree, or give NULL, are an error: serially (whichever row
-- comes first), in parallel, and when partial states from different parts
-- of a plan meet in the combine function.
CREATE TABLE agg_args (id int, v bigint, cap bigint, fpp float8, layout text, grp int);
INSERT INTO agg_args
SELECT g, g, CASE WHEN g <= 5000 THEN 1000 ELSE 900 END, 0.01, 'classic', g % 4
FROM generate_series(1, 10000) g;
ANALYZE agg_args;

-- the same value on every row: accepted, the bits of the constant form
SELECT bloom_agg(v, 1000::bigint + 0 * id, fpp) = bloom_agg(v, 1000, 0.01) AS same_as_constant,
       bloom_agg(v, 1000::bigint + 0 * id, fpp, layout) = bloom_agg(v, 1000, 0.01) AS layout_same
FROM agg_args;

-- different capacities: an error whichever row comes first
SELECT bloom_agg(v, cap, 0.01) FROM agg_args;
SELECT bloom_agg(v, cap, 0.01 ORDER BY id DESC) FROM agg_args;
-- different rates, different layouts
SELECT bloom_agg(v, 1000, CASE WHEN id = 7000 THEN 0.02 ELSE 0.01 END) FROM agg_args;
SELECT bloom_agg(v, 1000, 0.01, CASE WHEN id = 7000 THEN 'blocked' ELSE 'classic' END) FROM agg_args;
SELECT bloom_agg(v, 1000, 0.01, CASE WHEN id = 7000 THEN 'no such layout' ELSE 'classic' END) FROM agg_args;
-- the same shape from different arguments is still a disagreement
SELECT bloom_empty(1000, 0.01) = bloom_empty(999, 0.01) AS same_shape;
SELECT bloom_agg(v, CASE WHEN id = 7000 THEN 999 ELSE 1000 END, 0.01) FROM agg_args;
-- a row whose value is NULL still gives the shape
SELECT bloom_agg(CASE WHEN id = 7000 THEN NULL ELSE v END, CASE WHEN id = 7000 THEN 999 ELSE 1000 END, 0.01)
FROM agg_args;

-- NULL arguments on a later row, not only on the first
SELECT bloom_agg(v, CASE WHEN id = 7000 THEN NULL ELSE 1000 END, 0.01) FROM agg_args;
SELECT bloom_agg(v, 1000, CASE WHEN id = 7000 THEN NULL ELSE 0.01 END) FROM agg_args;
SELECT bloom_agg(v, 1000, 0.01, CASE WHEN id = 7000 THEN NULL ELSE 'classic' END) FROM agg_args;
SELECT bloom_agg(v, CASE WHEN id = 1 THEN NULL ELSE 1000 END, 0.01 ORDER BY id) FROM agg_args;

-- per group: arguments that are the same within each group are fine
SELECT cap, (bloom_info(f)).nbits, (bloom_info(f)).inserted, f = bloom_add_all(bloom_empty(cap, 0.01), a) AS same
FROM (SELECT cap, bloom_agg(v, cap, 0.01) f, array_agg(v) a FROM agg_args GROUP BY cap) s
ORDER BY cap;

-- a window: the frame's rows must agree too
SELECT max((bloom_info(f)).inserted)
FROM (SELECT bloom_agg(v, cap, 0.01) OVER (ORDER BY id) f FROM agg_args WHERE id <= 5000) s;
SELECT max((bloom_info(f)).inserted)
FROM (SELECT bloom_agg(v, cap, 0.01) OVER (ORDER BY id) f FROM agg_args) s;

-- forced parallel plans: the same errors, the same results (which row a
-- worker sees first depends on the run, so the details are left out)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(v, cap, 0.01) FROM agg_args;
\set VERBOSITY terse
SELECT bloom_agg(v, cap, 0.01) FROM agg_args;
SELECT bloom_agg(v, cap, 0.01 ORDER BY id DESC) FROM agg_args;
SELECT bloom_agg(v, 1000, fpp, CASE WHEN id % 2 = 0 THEN 'blocked' ELSE 'classic' END) FROM agg_args;
SELECT bloom_agg(v, CASE WHEN id = 7000 THEN NULL ELSE 1000 END, 0.01) FROM agg_args;
\set VERBOSITY default
SELECT bloom_agg(v, 1000::bigint + 0 * id, fpp) = bloom_agg(v, 1000, 0.01) AS parallel_same
FROM agg_args;
SELECT bool_and(f = bloom_add_all(bloom_empty(cap, 0.01), a)) AS groups_same, count(*)
FROM (SELECT cap, bloom_agg(v, cap, 0.01) f, array_agg(v) a FROM agg_args GROUP BY cap) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- partial states that each agree with themselves but not with each other
-- meet in the combine function: partitionwise aggregation builds one
-- partial state per partition.  1000 and 1001 give the same shape, so
-- only the arguments tell them apart.
CREATE TABLE agg_args_parts (v bigint, cap bigint) PARTITION BY LIST (cap);
CREATE TABLE agg_args_p1 PARTITION OF agg_args_parts FOR VALUES IN (1000);
CREATE TABLE agg_args_p2 PARTITION OF agg_args_parts FOR VALUES IN (1001);
INSERT INTO agg_args_parts SELECT g, 1000 + g % 2 FROM generate_series(1, 2000) g;
ANALYZE agg_args_parts;
SET enable_partitionwise_aggregate = on;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT bloom_agg(v, cap, 0.01) FROM agg_args_parts;
SELECT bloom_agg(v, cap, 0.01) FROM agg_args_parts;
-- the same arguments in every partition combine to the serial bits
SELECT bloom_agg(v, 1000 + 0 * cap, 0.01) = bloom_add_all(bloom_empty(1000, 0.01), array_agg(v)) AS parts_same
FROM agg_args_parts;
RESET enable_partitionwise_aggregate;
RESET max_parallel_workers_per_gather;

DROP TABLE agg_args, agg_args_parts;
