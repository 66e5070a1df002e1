-- bloom_agg(value, capacity, fpp, layout) for every layout: the bits of
-- bloom_add_all on bloom_empty of that layout, serial and parallel.
CREATE TABLE agg_layouts (k bigint);
INSERT INTO agg_layouts SELECT g * 7919 % 60000 FROM generate_series(1, 60000) g;
INSERT INTO agg_layouts VALUES (NULL);
ANALYZE agg_layouts;

SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE agg_layouts_serial AS
SELECT bloom_agg(k, 60000, 0.01, 'blocked') AS blocked,
       bloom_agg(k, 60000, 0.01, 'matrix') AS matrix,
       bloom_add_all(bloom_empty(60000, 0.01, 'blocked'), array_agg(k)) AS blocked_add_all,
       -- 'matrix': over the values in ascending order of their hash (unsigned)
       bloom_add_all(bloom_empty(60000, 0.01, 'matrix'),
                     array_agg(k ORDER BY bloom_hash(k, 0) < 0, bloom_hash(k, 0))) AS matrix_add_all
FROM agg_layouts;
-- same bits and insert count as bloom_add_all
SELECT blocked = blocked_add_all AS blocked_same, matrix = matrix_add_all AS matrix_same,
       (bloom_info(blocked)).layout AS blocked_layout, (bloom_info(matrix)).layout AS matrix_layout,
       (bloom_info(blocked)).inserted AS blocked_inserted, (bloom_info(matrix)).inserted AS matrix_inserted
FROM agg_layouts_serial;
-- no rows: the empty filter of the layout
SELECT bloom_agg(k, 60000, 0.01, 'blocked') = bloom_empty(60000, 0.01, 'blocked') AS blocked_empty,
       bloom_agg(k, 60000, 0.01, 'matrix') = bloom_empty(60000, 0.01, 'matrix') AS matrix_empty
FROM agg_layouts WHERE false;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(k, 60000, 0.01, 'blocked') FROM agg_layouts;
-- 'blocked' sets bits independently of the order: the same bits in parallel.
-- 'matrix' places a value by the fill of its candidate rows, so the
-- aggregate collects the values' hashes and builds one filter at the end:
-- the same bits in parallel too (sql/114_agg_parallel_matrix.sql).
SELECT p.blocked = s.blocked AS blocked_parallel_same,
       p.matrix = s.matrix AS matrix_parallel_same,
       (SELECT count(*) FROM agg_layouts WHERE NOT bloom_contains(p.matrix, k)) AS matrix_false_negatives,
       bloom_fpp(p.matrix) < 0.02 AS matrix_fpp_ok
FROM (SELECT bloom_agg(k, 60000, 0.01, 'blocked') AS blocked, bloom_agg(k, 60000, 0.01, 'matrix') AS matrix
      FROM agg_layouts) p, agg_layouts_serial s;
-- filters of one layout and shape from different partitions unite
SELECT bloom_union_agg(f) = (SELECT blocked FROM agg_layouts_serial) AS blocked_partitions_unite
FROM (SELECT bloom_agg(k, 60000, 0.01, 'blocked') f FROM agg_layouts GROUP BY k % 4) g;

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE agg_layouts;
