-- bloom_agg(value, capacity, fpp [, layout]): the shape of bloom_empty, the
-- bits of bloom_add_all, so per-partition results unite.
CREATE TABLE agg_fixed (grp int, i int, t text, n numeric);
INSERT INTO agg_fixed
SELECT g % 7, g, 'value ' || g, (g / 4.0)::numeric
FROM generate_series(1, 5000) g;
INSERT INTO agg_fixed VALUES (1, NULL, NULL, NULL), (2, NULL, NULL, NULL);

-- bit-identical to bloom_add_all(bloom_empty(...), array_agg(...)), same insert count
SELECT bloom_agg(i, 5000, 0.01) = bloom_add_all(bloom_empty(5000, 0.01), array_agg(i)) AS int_same,
       bloom_agg(t, 1000, 0.05) = bloom_add_all(bloom_empty(1000, 0.05), array_agg(t)) AS text_same,
       bloom_agg(n, 20000, 0.001) = bloom_add_all(bloom_empty(20000, 0.001), array_agg(n)) AS numeric_same,
       (bloom_info(bloom_agg(i, 5000, 0.01))).inserted AS agg_inserted,
       (bloom_info(bloom_add_all(bloom_empty(5000, 0.01), array_agg(i)))).inserted AS add_all_inserted
FROM agg_fixed;

-- the layout form: 'classic' is the 3-argument form
SELECT bloom_agg(i, 5000, 0.01, 'classic') = bloom_agg(i, 5000, 0.01) AS classic_same,
       bloom_agg(i, 5000, 0.01, 'classic') = bloom_add_all(bloom_empty(5000, 0.01, 'classic'), array_agg(i)) AS layout_same
FROM agg_fixed;

-- same shape as bloom_empty; every value found; NULLs skipped
SELECT i.nbits = e.nbits AND i.nhashes = e.nhashes AS shape_same, i.inserted, i.flags
FROM (SELECT bloom_agg(i, 5000, 0.01) f FROM agg_fixed) a,
     LATERAL bloom_info(a.f) i, LATERAL bloom_info(bloom_empty(5000, 0.01)) e;
SELECT bool_and(bloom_contains(f, i)) AS all_found
FROM (SELECT bloom_agg(i, 5000, 0.01) f FROM agg_fixed) a, agg_fixed WHERE i IS NOT NULL;

-- hashing follows the type's equality: int4 values probed as int8 and numeric scales
SELECT bloom_contains(bloom_agg(i, 100, 0.01), 42::int8) AS int8_probe,
       bloom_contains(bloom_agg(n, 100, 0.01), 10.500::numeric) AS numeric_scale
FROM agg_fixed WHERE i <= 50;

-- collation of the input: nondeterministic collations follow their equality
CREATE COLLATION agg_nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT bloom_contains(bloom_agg(t COLLATE agg_nocase, 100, 0.01), 'VALUE 7'::text COLLATE agg_nocase) AS nocase,
       bloom_contains(bloom_agg(t COLLATE "C", 100, 0.01), 'VALUE 7'::text COLLATE "C") AS c_collation
FROM agg_fixed WHERE i <= 50;

-- GROUP BY: per-group filters of one shape unite to the filter of the whole
SELECT bloom_union_agg(f) = (SELECT bloom_agg(i, 5000, 0.01) FROM agg_fixed) AS union_of_groups,
       count(*) AS groups, sum((bloom_info(f)).inserted) AS inserted
FROM (SELECT grp, bloom_agg(i, 5000, 0.01) f FROM agg_fixed GROUP BY grp) g;

-- a group of NULLs only: the empty filter of the shape (transition ran)
SELECT bloom_agg(i, 5000, 0.01) = bloom_empty(5000, 0.01) AS empty_of_shape
FROM agg_fixed WHERE i IS NULL;

-- no rows at all: constant arguments still give the empty filter of the shape
SELECT bloom_agg(i, 5000, 0.01) = bloom_empty(5000, 0.01) AS empty_3,
       bloom_agg(i, 5000, 0.01, 'classic') = bloom_empty(5000, 0.01, 'classic') AS empty_4
FROM agg_fixed WHERE false;
-- ... non-constant arguments over no rows cannot give a shape: NULL
SELECT bloom_agg(i, i::bigint, 0.01) IS NULL AS null_without_shape FROM agg_fixed WHERE false;

-- errors
SELECT bloom_agg(i, 0, 0.01) FROM agg_fixed;
SELECT bloom_agg(i, 100, 1.5) FROM agg_fixed;
SELECT bloom_agg(i, NULL, 0.01) FROM agg_fixed;
SELECT bloom_agg(i, 100, NULL) FROM agg_fixed;
SELECT bloom_agg(i, 100, 0.01, 'no such layout') FROM agg_fixed;
SELECT bloom_agg(i, 100, 0.01, NULL) FROM agg_fixed;
SELECT bloom_agg(x, 100, 0.01) FROM (VALUES (point(1, 2))) v(x);
-- the shape comes from each group's first row; different shapes do not unite
SELECT bloom_union_agg(f ORDER BY grp) FROM (SELECT grp, bloom_agg(i, grp + 100, 0.01) f FROM agg_fixed GROUP BY grp) g;

-- window use: a running filter
SELECT i, bloom_contains(bloom_agg(i, 100, 0.01) OVER (ORDER BY i), 3) AS has3,
       (bloom_info(bloom_agg(i, 100, 0.01) OVER (ORDER BY i))).inserted
FROM agg_fixed WHERE i <= 4 ORDER BY i;

DROP TABLE agg_fixed;
DROP COLLATION agg_nocase;
