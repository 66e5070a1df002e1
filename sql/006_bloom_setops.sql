-- Union and intersection.
CREATE TEMP TABLE s AS
SELECT bloom_add_all(bloom_empty(1000), ARRAY[1, 2, 3]) AS a,
       bloom_add_all(bloom_empty(1000), ARRAY[3, 4, 5]) AS b;
SELECT bloom_contains(a | b, 1) AS u1, bloom_contains(a | b, 4) AS u4,
       bloom_contains(bloom_union(a, b), 5) AS u5, bloom_contains(a | b, 6) AS u6 FROM s;
SELECT bloom_contains(a & b, 3) AS i3, bloom_contains(a & b, 1) AS i1,
       bloom_contains(bloom_intersect(a, b), 5) AS i5 FROM s;
-- union is the filter of the union of the sets
SELECT (a | b) = bloom_add_all(bloom_empty(1000), ARRAY[1, 2, 3, 4, 5]) AS union_exact FROM s;
SELECT (a | b) = (b | a) AS commutes, (a & b) = (b & a) AS commutes_and,
       (a | a) = a AS idempotent, (a & bloom_empty(1000)) = bloom_empty(1000) AS and_empty FROM s;
SELECT (bloom_info(a | b)).inserted AS union_inserted, (bloom_info(a & b)).inserted AS intersect_inserted FROM s;
-- arguments untouched
SELECT a = bloom_add_all(bloom_empty(1000), ARRAY[1, 2, 3]) AS a_untouched FROM s, LATERAL (SELECT a | b) x;

-- incompatible shapes: an error that names both shapes
SELECT bloom_union(bloom_empty(1000), bloom_empty(2000));
SELECT bloom_empty(1000) & bloom_empty(1000, 0.001);
SELECT bloom_empty_with(1024, 3) | bloom_empty_with(1024, 4);
SELECT bloom_union(NULL, bloom_empty(10)) = bloom_empty(10) AS null_ignored;
