-- Union and intersection ignore a NULL argument, as the aggregates skip NULL
-- rows: f(a, NULL) = f(NULL, a) = a, f(NULL, NULL) = NULL, for bloom_union,
-- bloom_intersect, | and &, and multibloom_union and its |.  A scalar fold
-- and the aggregate over the same filters, NULLs included, agree.
CREATE TEMP TABLE nulls_f (id int, f bloom, m multibloom);
INSERT INTO nulls_f VALUES
  (1, bloom_add_all(bloom_empty(1000), ARRAY[1, 2, 3]),
      multibloom_add(multibloom_add(multibloom_empty(2, 1000), 1, 'a'), 2, 'b')),
  (2, NULL, NULL),
  (3, bloom_add_all(bloom_empty(1000), ARRAY[3, 4, 5]),
      multibloom_add(multibloom_empty(2, 1000), 3, 'c')),
  (4, NULL, NULL);

-- one NULL: the other filter, unchanged (bits and insert count)
SELECT bloom_union(f, NULL) = f AS union_right, bloom_union(NULL, f) = f AS union_left,
       bloom_intersect(f, NULL) = f AS intersect_right, bloom_intersect(NULL, f) = f AS intersect_left,
       (f | NULL) = f AS or_right, (NULL | f) = f AS or_left,
       (f & NULL) = f AS and_right, (NULL & f) = f AS and_left,
       (bloom_info(bloom_union(f, NULL))).inserted AS inserted
FROM nulls_f WHERE id = 1;
SELECT multibloom_union(m, NULL) = m AS mb_union_right, multibloom_union(NULL, m) = m AS mb_union_left,
       (m | NULL) = m AS mb_or_right, (NULL | m) = m AS mb_or_left,
       (multibloom_info(multibloom_union(NULL, m))).rows AS mb_rows
FROM nulls_f WHERE id = 1;

-- two NULLs: NULL
SELECT bloom_union(NULL, NULL) IS NULL AS union_null, bloom_intersect(NULL, NULL) IS NULL AS intersect_null,
       (NULL::bloom | NULL::bloom) IS NULL AS or_null, (NULL::bloom & NULL::bloom) IS NULL AS and_null,
       multibloom_union(NULL, NULL) IS NULL AS mb_union_null,
       (NULL::multibloom | NULL::multibloom) IS NULL AS mb_or_null;

-- a NULL does not hide a shape error between two filters
SELECT bloom_union(bloom_union(bloom_empty(1000), NULL), bloom_empty(2000));

-- the probes of the result: the other filter's members
SELECT bloom_contains(f | NULL, 2) AS has2, bloom_contains(f | NULL, 4) AS has4,
       multibloom_contains(NULL | m, 2, 'b') AS mb_has
FROM nulls_f WHERE id = 1;

-- a scalar fold over the rows in order equals the aggregate, NULL rows included
WITH RECURSIVE fold(id, u, i, mu) AS (
  SELECT 0, NULL::bloom, NULL::bloom, NULL::multibloom
  UNION ALL
  SELECT n.id, fold.u | n.f, fold.i & n.f, fold.mu | n.m
  FROM fold JOIN nulls_f n ON n.id = fold.id + 1
)
SELECT u = (SELECT bloom_union_agg(f) FROM nulls_f) AS union_agrees,
       i = (SELECT bloom_intersect_agg(f) FROM nulls_f) AS intersect_agrees,
       mu = (SELECT multibloom_union_agg(m) FROM nulls_f) AS mb_union_agrees,
       (bloom_info(u)).inserted AS union_inserted
FROM fold WHERE id = 4;
-- ... and over NULLs only, both are NULL
SELECT bloom_union(NULL::bloom, NULL::bloom) IS NULL AND
       (SELECT bloom_union_agg(f) FROM nulls_f WHERE f IS NULL) IS NULL AS both_null;

-- a common use: keep a running filter in a column that starts out NULL
CREATE TEMP TABLE nulls_running (k int PRIMARY KEY, f bloom);
INSERT INTO nulls_running VALUES (1, NULL);
UPDATE nulls_running SET f = f | bloom_add(bloom_empty(1000), 7);
UPDATE nulls_running SET f = f | bloom_add(bloom_empty(1000), 8);
SELECT bloom_contains(f, 7) AS has7, bloom_contains(f, 8) AS has8, (bloom_info(f)).inserted
FROM nulls_running;

-- the functions are no longer STRICT; everything else about them is unchanged
SELECT p.oid::regprocedure AS function, p.proisstrict AS strict, p.provolatile, p.proparallel
FROM pg_proc p
WHERE p.oid IN ('bloom_union(bloom, bloom)'::regprocedure, 'bloom_intersect(bloom, bloom)'::regprocedure,
                'multibloom_union(multibloom, multibloom)'::regprocedure)
ORDER BY p.proname;
DROP TABLE nulls_f, nulls_running;
