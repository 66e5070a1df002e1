-- bloom_union_agg and bloom_intersect_agg: OR and AND of all non-null
-- filters, with the compatibility rules of bloom_union and bloom_intersect.
CREATE TABLE agg_days (day int, f bloom);
INSERT INTO agg_days
SELECT d, bloom_agg(v, 10000, 0.01)
FROM generate_series(1, 5) d, generate_series(d * 100, d * 100 + 999) v GROUP BY d;
INSERT INTO agg_days VALUES (6, NULL);

-- the union is the filter of every value, the insert counts add up
SELECT bloom_union_agg(f) = (SELECT bloom_agg(v, 10000, 0.01) FROM generate_series(100, 1499) v) AS union_bits,
       (bloom_info(bloom_union_agg(f))).inserted AS union_inserted
FROM agg_days;
SELECT bloom_union_agg(f) = (SELECT f FROM agg_days WHERE day = 1) | (SELECT f FROM agg_days WHERE day = 2)
       AS union_is_or
FROM agg_days WHERE day <= 2;

-- the intersection is the AND; it contains every common value (500..1099)
SELECT bloom_intersect_agg(f) = (SELECT bloom_intersect(a.f, bloom_intersect(b.f, c.f))
                                 FROM agg_days a, agg_days b, agg_days c
                                 WHERE a.day = 1 AND b.day = 2 AND c.day = 3) AS intersect_is_and,
       (bloom_info(bloom_intersect_agg(f))).inserted AS intersect_inserted
FROM agg_days WHERE day <= 3;
SELECT bool_and(bloom_contains(i, v)) AS common_found,
       count(*) FILTER (WHERE bloom_contains(i, v + 10000)) AS others_found
FROM (SELECT bloom_intersect_agg(f) i FROM agg_days) s, generate_series(500, 1099) v;

-- one filter: itself; only NULLs or no rows: NULL
SELECT bloom_union_agg(f) = (SELECT f FROM agg_days WHERE day = 3) AS single_union,
       bloom_intersect_agg(f) = (SELECT f FROM agg_days WHERE day = 3) AS single_intersect
FROM agg_days WHERE day = 3;
SELECT bloom_union_agg(f) IS NULL AS union_null, bloom_intersect_agg(f) IS NULL AS intersect_null
FROM agg_days WHERE day = 6;
SELECT bloom_union_agg(f) IS NULL AS union_none FROM agg_days WHERE false;

-- incompatible shapes: the scalar errors
SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty(100)), (bloom_empty(1000))) v(f);
SELECT bloom_intersect_agg(f) FROM (VALUES (bloom_empty(100, 0.01)), (bloom_empty(100, 0.001))) v(f);

-- auto-sized filters of different sizes fold to the smallest, in any order
CREATE TABLE agg_auto_parts AS
SELECT n, bloom_agg(v) f FROM generate_series(1, 3) n, generate_series(1, n * n * 1000) v GROUP BY n;
SELECT n, (bloom_info(f)).nbits FROM agg_auto_parts ORDER BY n;
SELECT (SELECT bloom_union_agg(f ORDER BY n) FROM agg_auto_parts)
     = (SELECT bloom_union_agg(f ORDER BY n DESC) FROM agg_auto_parts) AS order_free,
       (SELECT (bloom_info(bloom_union_agg(f))).nbits FROM agg_auto_parts) AS union_bits,
       (SELECT (bloom_info(bloom_union_agg(f))).flags FROM agg_auto_parts) AS union_flags,
       (SELECT (bloom_info(bloom_union_agg(f))).inserted FROM agg_auto_parts) AS union_inserted;
SELECT bool_and(bloom_contains(u, v)) AS all_found
FROM (SELECT bloom_union_agg(f) u FROM agg_auto_parts) s, generate_series(1, 9000) v;
-- the folded union of n = 1 with itself is the n = 1 filter
SELECT bloom_union_agg(f) = (SELECT f FROM agg_auto_parts WHERE n = 1) AS idempotent
FROM agg_auto_parts, generate_series(1, 2) WHERE n = 1;
-- intersection of nested sets: every value of the smallest is found
SELECT (bloom_info(i)).nbits,
       (SELECT bool_and(bloom_contains(i, v)) FROM generate_series(1, 1000) v) AS smallest_found
FROM (SELECT bloom_intersect_agg(f ORDER BY n DESC) i FROM agg_auto_parts) s;
-- auto-sized and fixed filters do not mix
SELECT bloom_union_agg(f) FROM (SELECT f FROM agg_auto_parts WHERE n = 1
                                UNION ALL SELECT bloom_empty(100)) v;

DROP TABLE agg_days, agg_auto_parts;
