-- GROUP BY under hash aggregation: the data-sized states of all groups share
-- work_mem (a group spills its hashes instead of growing once the groups
-- together hold more), so the hash table stays near work_mem instead of
-- growing to one work_mem per group.
SET work_mem = '1MB';
SET enable_sort = off;
CREATE FUNCTION agg_peak_memory_kb(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || query INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Peak Memory Usage')::bigint;
END $$;
-- 100 groups of 10000 distinct values: about 128 kB of hashes each if every
-- group grew alone (12.5 MB in all)
SELECT agg_peak_memory_kb('SELECT g % 100, bloom_agg(g) FROM generate_series(1, 1000000) g GROUP BY 1') < 4096
       AS hash_table_near_work_mem;
-- and the groups' filters are exactly those of the groups' values
SELECT count(*) AS groups,
       bool_and(f = (SELECT bloom_agg(v) FROM generate_series(1, 1000000) v WHERE v % 100 = s.grp)) AS same_bits
FROM (SELECT g % 100 AS grp, bloom_agg(g) f FROM generate_series(1, 1000000) g GROUP BY 1) s
WHERE grp IN (0, 37, 99);
DROP FUNCTION agg_peak_memory_kb(text);
RESET enable_sort;
RESET work_mem;
