-- The operator classes of multibloom: a total order (btree) and a hash that
-- agree with "=" (number of attributes, every part's shape and bits; not
-- the row count), so SELECT DISTINCT, GROUP BY, UNION, ORDER BY, joins and
-- indexes work on multibloom columns, through hashing and sorting alike.
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

CREATE TABLE mb_ord (id int, f multibloom);
INSERT INTO mb_ord
SELECT g, CASE g % 4
            -- three filters of two attributes; 1 and 0 give the same bits
            -- with different row counts, which "=" does not compare
            WHEN 0 THEN multibloom_add(multibloom_empty(2, 100), g % 3, 'x')
            WHEN 1 THEN multibloom_add(multibloom_add(multibloom_empty(2, 100), g % 3, 'x'), g % 3, 'x')
            -- two empty filters of one and of two attributes
            WHEN 2 THEN multibloom_empty((g / 4) % 2 + 1, 10)
            -- three of another shape, with a NULL attribute
            ELSE multibloom_add(multibloom_empty(2, 100, 0.1), g % 3, NULL::text)
          END
FROM generate_series(1, 120) g;
INSERT INTO mb_ord VALUES (0, NULL);
ANALYZE mb_ord;

-- the groups, in the order of the btree class: number of attributes, then
-- part by part (shape, then bits); NULL last
SELECT i.nattrs, i.nbits, i.bits_set, count(*) AS n
FROM mb_ord LEFT JOIN LATERAL multibloom_info(f) i ON true
GROUP BY f, i.nattrs, i.nbits, i.bits_set ORDER BY f;

-- hash aggregation
SET enable_sort = off;
SELECT plan_uses($q$SELECT DISTINCT f FROM mb_ord$q$, 'HashAggregate') AS hashaggregate;
SELECT count(*) AS distinct_hashed FROM (SELECT DISTINCT f FROM mb_ord) s;
SELECT count(*) AS groups_hashed, sum(n) AS rows FROM (SELECT count(*) n FROM mb_ord GROUP BY f) s;
SELECT plan_uses($q$SELECT f FROM mb_ord UNION SELECT f FROM mb_ord$q$, 'HashAggregate') AS hashaggregate;
SELECT count(*) AS union_hashed FROM (SELECT f FROM mb_ord UNION SELECT f FROM mb_ord) s;
SELECT count(*) AS except_hashed FROM (SELECT f FROM mb_ord EXCEPT SELECT f FROM mb_ord WHERE id % 4 = 1) s;
RESET enable_sort;

-- the same through sorting
SET enable_hashagg = off;
SELECT plan_uses($q$SELECT DISTINCT f FROM mb_ord$q$, 'Sort') AS sort;
SELECT count(*) AS distinct_sorted FROM (SELECT DISTINCT f FROM mb_ord) s;
SELECT count(*) AS groups_sorted, sum(n) AS rows FROM (SELECT count(*) n FROM mb_ord GROUP BY f) s;
SELECT plan_uses($q$SELECT f FROM mb_ord UNION SELECT f FROM mb_ord$q$, 'Sort') AS sort;
SELECT count(*) AS union_sorted FROM (SELECT f FROM mb_ord UNION SELECT f FROM mb_ord) s;
SELECT count(*) AS except_sorted FROM (SELECT f FROM mb_ord EXCEPT SELECT f FROM mb_ord WHERE id % 4 = 1) s;
RESET enable_hashagg;

-- every pair of 19 rows holding all eight filters: the operators agree
-- with multibloom_cmp and with each other, the order is antisymmetric, and
-- equal filters hash alike
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (a.f < b.f) <> (multibloom_cmp(a.f, b.f) < 0)
                           OR (a.f <= b.f) <> (multibloom_cmp(a.f, b.f) <= 0)
                           OR (a.f > b.f) <> (multibloom_cmp(a.f, b.f) > 0)
                           OR (a.f >= b.f) <> (multibloom_cmp(a.f, b.f) >= 0)
                           OR (a.f = b.f) <> (multibloom_cmp(a.f, b.f) = 0)
                           OR (a.f <> b.f) <> (multibloom_cmp(a.f, b.f) <> 0)) AS operator_mismatches,
       count(*) FILTER (WHERE multibloom_cmp(a.f, b.f) <> -multibloom_cmp(b.f, a.f)) AS not_antisymmetric,
       count(*) FILTER (WHERE a.f = b.f AND (hash_multibloom(a.f) <> hash_multibloom(b.f)
                                             OR hash_multibloom_extended(a.f, 7) <> hash_multibloom_extended(b.f, 7)))
         AS equal_but_hash_differs,
       count(*) FILTER (WHERE a.f <> b.f AND hash_multibloom_extended(a.f, 0) = hash_multibloom_extended(b.f, 0))
         AS hash_collisions
FROM mb_ord a, mb_ord b WHERE a.id BETWEEN 1 AND 19 AND b.id BETWEEN 1 AND 19;
-- the 32-bit hash is the low half of the extended hash with seed 0; the
-- seed changes the extended hash
SELECT count(*) FILTER (WHERE hash_multibloom(f)::bigint & 4294967295 <> hash_multibloom_extended(f, 0) & 4294967295) AS low_half_differs,
       count(*) FILTER (WHERE hash_multibloom_extended(f, 1) = hash_multibloom_extended(f, 0)) AS seed_ignored
FROM mb_ord WHERE f IS NOT NULL;

-- fewer attributes sort first, whatever the parts hold
SELECT multibloom_empty(1, 1000000) < multibloom_add(multibloom_empty(2, 10), 1, 2) AS nattrs_first,
       multibloom_cmp(multibloom_empty(2, 10), multibloom_empty(2, 10, 0.01)) AS same_filter;

-- the order and the hash do not change between releases (btree and hash
-- indexes, and hash partitions, rely on them)
SELECT multibloom_cmp(multibloom_add(multibloom_empty(2, 10), 1, 2), multibloom_add(multibloom_empty(2, 10), 2, 1)) AS cmp_12_21,
       hash_multibloom(multibloom_empty(1, 10)) AS hash_empty,
       hash_multibloom_extended(multibloom_add(multibloom_empty(2, 10), 1, 2), 0) AS hash_12,
       hash_multibloom_extended(multibloom_add(multibloom_empty(2, 10), 1, 2), 42) AS hash_12_seed_42;

-- joins on "=": hash join and merge join give the nested loop's answer
SELECT count(*) AS nested_loop FROM mb_ord a, mb_ord b WHERE multibloom_cmp(a.f, b.f) = 0;
SELECT count(*) AS hash_join FROM mb_ord a JOIN mb_ord b ON a.f = b.f;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT plan_uses($q$SELECT count(*) FROM mb_ord a JOIN mb_ord b ON a.f = b.f$q$, 'Merge Join') AS merge_join;
SELECT count(*) AS merge_join FROM mb_ord a JOIN mb_ord b ON a.f = b.f;
RESET enable_hashjoin;
RESET enable_nestloop;

-- btree and hash indexes find what a sequential scan finds
CREATE TABLE mb_ord_probe AS SELECT multibloom_add(multibloom_empty(2, 100), 2, 'x') AS f;
SELECT count(*) AS seqscan_found FROM mb_ord WHERE f = (SELECT f FROM mb_ord_probe);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE INDEX mb_ord_btree ON mb_ord (f);
SELECT count(*) AS btree_found FROM mb_ord WHERE f = (SELECT f FROM mb_ord_probe);
DROP INDEX mb_ord_btree;
CREATE INDEX mb_ord_hash ON mb_ord USING hash (f);
SELECT plan_uses($q$SELECT count(*) FROM mb_ord WHERE f = (SELECT f FROM mb_ord_probe)$q$, 'Index Scan using mb_ord_hash') AS index_scan;
SELECT count(*) AS hash_found FROM mb_ord WHERE f = (SELECT f FROM mb_ord_probe);
RESET enable_seqscan;
RESET enable_bitmapscan;

-- toasted filters (about 360 kB each) are detoasted to compare and hash
CREATE TABLE mb_ord_big AS
SELECT g, multibloom_add(multibloom_empty(2, 100000), g % 3, 'x') AS f FROM generate_series(1, 30) g;
SELECT count(DISTINCT f) AS big_distinct,
       (SELECT count(*) FROM (SELECT f FROM mb_ord_big GROUP BY f) s) AS big_groups,
       (SELECT count(*) FROM (SELECT f FROM mb_ord_big UNION SELECT f FROM mb_ord_big) s) AS big_union
FROM mb_ord_big;

DROP TABLE mb_ord, mb_ord_probe, mb_ord_big;
DROP FUNCTION plan_uses(text, text);
