-- The operator classes of bloom: a total order (btree) and a hash that
-- agree with "=" (shape, hash scheme and bits; not the insert count), so
-- SELECT DISTINCT, GROUP BY, UNION, ORDER BY, joins and indexes work on
-- filter columns, through hashing and through sorting alike.
-- Which plan the planner chose, told the same way on every supported major
-- (their EXPLAIN texts differ in details such as Merge Append and InitPlan
-- labels): true if a line of the plan contains node.
CREATE FUNCTION plan_uses(query text, node text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF strpos(line, node) > 0 THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END
$$;

CREATE TABLE ord (id int, f bloom);
INSERT INTO ord
SELECT g, CASE g % 4
            -- three classic filters; 1 and 0 give the same bits with
            -- different insert counts, which "=" does not compare
            WHEN 0 THEN bloom_add(bloom_empty(100), g % 3)
            WHEN 1 THEN bloom_add(bloom_add(bloom_empty(100), g % 3), g % 3)
            -- two empty filters that differ only in their number of hashes
            WHEN 2 THEN bloom_empty_with(64, (g / 4) % 2 + 1)
            -- three blocked filters
            ELSE bloom_add(bloom_empty(100, 0.01, 'blocked'), g % 3)
          END
FROM generate_series(1, 120) g;
INSERT INTO ord VALUES (0, NULL);
ANALYZE ord;

-- the groups, in the order of the btree class: shape first (layout,
-- hash scheme, bits, hashes, seed, rows, locators), then the bits; NULL last
SELECT i.layout, i.nbits, i.nhashes, i.bits_set, count(*) AS n
FROM ord LEFT JOIN LATERAL bloom_info(f) i ON true
GROUP BY f, i.layout, i.nbits, i.nhashes, i.bits_set ORDER BY f;

-- hash aggregation
SET enable_sort = off;
SELECT plan_uses($q$SELECT DISTINCT f FROM ord$q$, 'HashAggregate') AS hashaggregate;
SELECT count(*) AS distinct_hashed FROM (SELECT DISTINCT f FROM ord) s;
SELECT count(*) AS groups_hashed, sum(n) AS rows FROM (SELECT count(*) n FROM ord GROUP BY f) s;
SELECT plan_uses($q$SELECT f FROM ord UNION SELECT f FROM ord$q$, 'HashAggregate') AS hashaggregate;
SELECT count(*) AS union_hashed FROM (SELECT f FROM ord UNION SELECT f FROM ord) s;
SELECT count(*) AS intersect_hashed FROM (SELECT f FROM ord INTERSECT SELECT f FROM ord WHERE id % 4 = 1) s;
SELECT count(*) AS except_hashed FROM (SELECT f FROM ord EXCEPT SELECT f FROM ord WHERE id % 4 = 1) s;
RESET enable_sort;

-- the same through sorting
SET enable_hashagg = off;
SELECT plan_uses($q$SELECT DISTINCT f FROM ord$q$, 'Sort') AS sort;
SELECT count(*) AS distinct_sorted FROM (SELECT DISTINCT f FROM ord) s;
SELECT count(*) AS groups_sorted, sum(n) AS rows FROM (SELECT count(*) n FROM ord GROUP BY f) s;
SELECT plan_uses($q$SELECT f FROM ord UNION SELECT f FROM ord$q$, 'Sort') AS sort;
SELECT count(*) AS union_sorted FROM (SELECT f FROM ord UNION SELECT f FROM ord) s;
SELECT count(*) AS intersect_sorted FROM (SELECT f FROM ord INTERSECT SELECT f FROM ord WHERE id % 4 = 1) s;
SELECT count(*) AS except_sorted FROM (SELECT f FROM ord EXCEPT SELECT f FROM ord WHERE id % 4 = 1) s;
RESET enable_hashagg;

-- every pair of 19 rows holding all eight filters: the operators agree
-- with bloom_cmp and with each other, the order is antisymmetric, and
-- equal filters hash alike
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (a.f < b.f) <> (bloom_cmp(a.f, b.f) < 0)
                           OR (a.f <= b.f) <> (bloom_cmp(a.f, b.f) <= 0)
                           OR (a.f > b.f) <> (bloom_cmp(a.f, b.f) > 0)
                           OR (a.f >= b.f) <> (bloom_cmp(a.f, b.f) >= 0)
                           OR (a.f = b.f) <> (bloom_cmp(a.f, b.f) = 0)
                           OR (a.f <> b.f) <> (bloom_cmp(a.f, b.f) <> 0)) AS operator_mismatches,
       count(*) FILTER (WHERE bloom_cmp(a.f, b.f) <> -bloom_cmp(b.f, a.f)) AS not_antisymmetric,
       count(*) FILTER (WHERE a.f = b.f AND (hash_bloom(a.f) <> hash_bloom(b.f)
                                             OR hash_bloom_extended(a.f, 7) <> hash_bloom_extended(b.f, 7)))
         AS equal_but_hash_differs,
       count(*) FILTER (WHERE a.f <> b.f AND hash_bloom_extended(a.f, 0) = hash_bloom_extended(b.f, 0))
         AS hash_collisions
FROM ord a, ord b WHERE a.id BETWEEN 1 AND 19 AND b.id BETWEEN 1 AND 19;
-- the 32-bit hash is the low half of the extended hash with seed 0; the
-- seed changes the extended hash
SELECT count(*) FILTER (WHERE hash_bloom(f)::bigint & 4294967295 <> hash_bloom_extended(f, 0) & 4294967295) AS low_half_differs,
       count(*) FILTER (WHERE hash_bloom_extended(f, 1) = hash_bloom_extended(f, 0)) AS seed_ignored
FROM ord WHERE f IS NOT NULL;

-- a filter is compared by its shape before its bits: an empty filter of
-- more bits sorts after a full one of fewer, and different shapes are never
-- equal, not even with the same bits
SELECT bloom_empty_with(128, 1) > bloom_add_all(bloom_empty_with(64, 1), array(SELECT generate_series(1, 1000))) AS shape_first,
       bloom_empty_with(64, 1) = bloom_empty_with(64, 2) AS same_bits_other_k,
       bloom_cmp(bloom_empty(100), bloom_empty(100, 0.01, 'classic')) AS same_filter;

-- the order and the hash do not change between releases (btree and hash
-- indexes, and hash partitions, rely on them)
SELECT bloom_cmp(bloom_add(bloom_empty_with(64, 3), 1), bloom_add(bloom_empty_with(64, 3), 2)) AS cmp_1_2,
       hash_bloom(bloom_empty_with(64, 3)) AS hash_empty,
       hash_bloom_extended(bloom_add(bloom_empty_with(64, 3), 1), 0) AS hash_1,
       hash_bloom_extended(bloom_add(bloom_empty_with(64, 3), 1), 42) AS hash_1_seed_42;

-- joins on "=": hash join and merge join give the nested loop's answer
SELECT count(*) AS nested_loop FROM ord a, ord b WHERE bloom_cmp(a.f, b.f) = 0;
SELECT plan_uses($q$SELECT count(*) FROM ord a JOIN ord b ON a.f = b.f$q$, 'Hash Join') AS hash_join;
SELECT count(*) AS hash_join FROM ord a JOIN ord b ON a.f = b.f;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT plan_uses($q$SELECT count(*) FROM ord a JOIN ord b ON a.f = b.f$q$, 'Merge Join') AS merge_join;
SELECT count(*) AS merge_join FROM ord a JOIN ord b ON a.f = b.f;
RESET enable_hashjoin;
RESET enable_nestloop;
SELECT count(*) AS hashed_in FROM ord WHERE f IN (SELECT f FROM ord WHERE id % 4 = 1);

-- btree and hash indexes find what a sequential scan finds
CREATE TABLE ord_probe AS SELECT bloom_add(bloom_empty(100), 2) AS f;
SELECT count(*) AS seqscan_found FROM ord WHERE f = (SELECT f FROM ord_probe);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE INDEX ord_btree ON ord (f);
SELECT plan_uses($q$SELECT count(*) FROM ord WHERE f = (SELECT f FROM ord_probe)$q$, 'Index Only Scan using ord_btree') AS index_only_scan;
SELECT count(*) AS btree_found FROM ord WHERE f = (SELECT f FROM ord_probe);
SELECT count(*) AS btree_range FROM ord WHERE f >= (SELECT f FROM ord_probe) AND f <= (SELECT f FROM ord_probe);
DROP INDEX ord_btree;
CREATE INDEX ord_hash ON ord USING hash (f);
SELECT plan_uses($q$SELECT count(*) FROM ord WHERE f = (SELECT f FROM ord_probe)$q$, 'Index Scan using ord_hash') AS index_scan;
SELECT count(*) AS hash_found FROM ord WHERE f = (SELECT f FROM ord_probe);
RESET enable_seqscan;
RESET enable_bitmapscan;

-- toasted filters (about 120 kB each) are detoasted to compare and hash
CREATE TABLE ord_big AS
SELECT g, bloom_add(bloom_empty(100000), g % 3) AS f FROM generate_series(1, 30) g;
SELECT count(DISTINCT f) AS big_distinct,
       (SELECT count(*) FROM (SELECT f FROM ord_big GROUP BY f) s) AS big_groups,
       (SELECT count(*) FROM (SELECT f FROM ord_big UNION SELECT f FROM ord_big) s) AS big_union
FROM ord_big;
SET enable_hashagg = off;
SELECT count(*) AS big_groups_sorted FROM (SELECT f FROM ord_big GROUP BY f) s;
RESET enable_hashagg;

DROP TABLE ord, ord_probe, ord_big;
DROP FUNCTION plan_uses(text, text);
