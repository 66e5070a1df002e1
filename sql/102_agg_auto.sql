-- bloom_agg(value) sized to the data: at most 0.01 false positives for any
-- number of distinct values, in memory bounded by work_mem.

-- no rows: the smallest auto-sized filter (one word, 7 hashes), empty, not NULL
SELECT (bloom_info(f)).*, bloom_contains(f, 1) AS has1
FROM (SELECT bloom_agg(g) f FROM generate_series(1, 10) g WHERE false) s;
SELECT bloom_agg(NULL::int) = bloom_agg(g) FILTER (WHERE false) AS only_nulls_same_as_none,
       (bloom_info(bloom_agg(NULL::int))).inserted
FROM generate_series(1, 10) g;

-- sizes: the fewest power-of-two words whose rate with 7 hashes is <= 0.01
-- (9.593 bits per distinct value at least)
SELECT n, i.nbits, i.nhashes, i.flags, i.inserted,
       i.nbits >= 9.593 * n AS enough, i.nbits / 2 < 9.593 * n OR i.nbits = 64 AS tight,
       (1 - exp(-7.0 * n / i.nbits)) ^ 7 <= 0.01 AS rate_ok
FROM (VALUES (1), (6), (7), (100), (1000), (54000), (55000), (200000)) v(n),
     LATERAL (SELECT bloom_agg(g) f FROM generate_series(1, n) g) a,
     LATERAL bloom_info(a.f) i;

-- duplicates do not inflate the size: the same bits as the distinct values
SELECT (SELECT bloom_agg(g % 1000) FROM generate_series(1, 100000) g)
     = (SELECT bloom_agg(g) FROM generate_series(0, 999) g) AS duplicates_free,
       (SELECT (bloom_info(bloom_agg(g % 1000))).inserted FROM generate_series(1, 100000) g) AS inserted;

-- the same bits as bloom_add on the auto-sized empty filter of that shape
SELECT bloom_agg(g) = bloom_add_all(bloom_empty_with(16384, 7), array_agg(g)) AS same_bits
FROM generate_series(1, 1000) g;

-- work_mem bounds the collector: a tiny work_mem spills sorted runs to
-- temporary files and gives exactly the same filter
CREATE TABLE agg_auto AS SELECT (g::bigint * 7919 % 150000) k FROM generate_series(1, 300000) g;
CREATE TEMP TABLE agg_auto_mem AS SELECT bloom_agg(k) f FROM agg_auto;
SET work_mem = '64kB';
SELECT (SELECT bloom_agg(k) FROM agg_auto) = f AS spilled_same,
       (bloom_info(f)).nbits, (bloom_info(f)).inserted
FROM agg_auto_mem;
RESET work_mem;
SELECT bool_and(bloom_contains(f, k)) AS no_false_negative FROM agg_auto_mem, agg_auto;
-- measured false-positive rate on 200000 absent values
SELECT count(*) FILTER (WHERE bloom_contains(f, g::bigint)) / 200000.0 < 0.01 AS fpp_ok
FROM agg_auto_mem, generate_series(1000000, 1199999) g;
-- bloom_cardinality estimates the distinct count
SELECT abs(bloom_cardinality(f) - 150000) / 150000 < 0.03 AS cardinality_ok FROM agg_auto_mem;

-- text and NULLs
CREATE TEMP TABLE agg_text AS
SELECT bloom_agg(CASE WHEN g % 3 = 0 THEN NULL ELSE 'v' || g END) f FROM generate_series(1, 3000) g;
SELECT bool_and(bloom_contains(f, 'v' || g)) AS text_found, min((bloom_info(f)).inserted) AS inserted
FROM agg_text, generate_series(1, 3000) g WHERE g % 3 <> 0;

-- GROUP BY with 100000 groups: each group's state starts tiny
SET enable_sort = off;
EXPLAIN (COSTS OFF)
SELECT g % 100000, bloom_agg(g) FROM generate_series(1, 300000) g GROUP BY 1;
SELECT count(*) AS groups, min((bloom_info(f)).nbits) AS min_bits, max((bloom_info(f)).nbits) AS max_bits,
       sum((bloom_info(f)).inserted) AS inserted,
       bool_and(bloom_contains(f, grp + 100000) AND bloom_contains(f, grp + 200000)) AS all_found
FROM (SELECT g % 100000 AS grp, bloom_agg(g) f FROM generate_series(1, 300000) g GROUP BY 1) s;
-- the same with a small work_mem (the hash aggregate spills)
SET work_mem = '1MB';
SELECT count(*) AS groups, sum((bloom_info(f)).inserted) AS inserted
FROM (SELECT g % 100000 AS grp, bloom_agg(g) f FROM generate_series(1, 300000) g GROUP BY 1) s;
RESET work_mem;
RESET enable_sort;

-- ten million distinct values (spills at the default work_mem): the rate holds
CREATE TEMP TABLE agg_big AS SELECT bloom_agg(g) f FROM generate_series(1, 10000000) g;
SELECT i.nbits, i.nhashes, i.inserted, i.fpp < 0.01 AS fill_fpp_ok
FROM agg_big, LATERAL bloom_info(f) i;
SELECT count(*) FILTER (WHERE NOT bloom_contains(f, g)) AS false_negatives
FROM agg_big, generate_series(1, 10000000, 997) g;
SELECT count(*) FILTER (WHERE bloom_contains(f, g)) / 200000.0 < 0.01 AS fpp_ok
FROM agg_big, generate_series(20000001, 20200000) g;

-- auto-sized filters of different sizes unite: the larger folds onto the smaller
CREATE TEMP TABLE agg_parts AS
SELECT p, bloom_agg(g) f FROM generate_series(1, 20000) g,
       LATERAL (SELECT CASE WHEN g <= 100 THEN 1 WHEN g <= 2000 THEN 2 ELSE 3 END p) x
GROUP BY p;
SELECT p, (bloom_info(f)).nbits FROM agg_parts ORDER BY p;
SELECT (bloom_info(a.f | b.f)).nbits AS union_bits, (bloom_info(a.f | b.f)).flags,
       (bloom_info(a.f | b.f)).inserted,
       a.f | b.f = b.f | a.f AS commutes,
       bloom_contains(a.f | b.f, 50) AND bloom_contains(a.f | b.f, 1500) AS found
FROM agg_parts a, agg_parts b WHERE a.p = 1 AND b.p = 2;
-- the result has the smaller size and holds every value: its rate, from its
-- fill, is far above 0.01 when the parts differ a lot (doc/aggregates.md)
SELECT (bloom_info(bloom_union_agg(f))).nbits AS rollup_bits,
       round((bloom_info(bloom_union_agg(f))).fpp::numeric, 2) AS rollup_fpp
FROM agg_parts WHERE p >= 2;
-- parts of similar size: union of two halves
SELECT (bloom_info(u)).nbits, bloom_fpp(u) < 0.2 AS fpp_moderate
FROM (SELECT bloom_agg(g) FILTER (WHERE g <= 50000) | bloom_agg(g) FILTER (WHERE g > 50000) u
      FROM generate_series(1, 100000) g) s;
SELECT bool_and(bloom_contains(u, g)) AS rollup_found
FROM (SELECT bloom_union_agg(f) u FROM agg_parts) r, generate_series(1, 20000) g;
-- intersection folds the same way and keeps the common values
SELECT (bloom_info(b.f & c.f)).nbits AS intersect_bits,
       bloom_contains(a.f & a.f, 7) AS self_found
FROM agg_parts a, agg_parts b, agg_parts c WHERE a.p = 1 AND b.p = 2 AND c.p = 3;
-- an auto-sized and a fixed filter do not fold
SELECT a.f | bloom_empty(100) FROM agg_parts a WHERE a.p = 1;

DROP TABLE agg_auto;
