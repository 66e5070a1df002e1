-- multibloom_union and multibloom_union_agg of data-sized filters of
-- different sizes: each part folds onto the smaller size, whichever argument
-- comes first, and no value of either input is lost.  (Uniting the larger
-- first used to divide by zero in the folding.)
CREATE TEMP TABLE mbf (name text, f multibloom);
INSERT INTO mbf SELECT 'small', multibloom_agg(g, -g) FROM generate_series(1, 3) g;
INSERT INTO mbf SELECT 'large', multibloom_agg(g, -g) FROM generate_series(101, 120) g;
SELECT name, (multibloom_info(f)).nbits FROM mbf ORDER BY name;
-- both orders give the same filter, of the small one's size
SELECT multibloom_union(l.f, s.f) = multibloom_union(s.f, l.f) AS same_both_orders,
       (multibloom_info(multibloom_union(l.f, s.f))).nbits AS united_nbits
FROM mbf l, mbf s WHERE l.name = 'large' AND s.name = 'small';
-- no false negatives: every row of both inputs is found, in both orders
SELECT count(*) FILTER (WHERE NOT multibloom_contains(u.lf, g, -g)) AS missed_large_first,
       count(*) FILTER (WHERE NOT multibloom_contains(u.sf, g, -g)) AS missed_small_first
FROM (SELECT multibloom_union(l.f, s.f) lf, multibloom_union(s.f, l.f) sf
      FROM mbf l, mbf s WHERE l.name = 'large' AND s.name = 'small') u,
     (SELECT generate_series(1, 3) g UNION ALL SELECT generate_series(101, 120)) v;
-- the aggregate: the large filter first, then the small one
WITH a AS (SELECT multibloom_union_agg(f ORDER BY name) u FROM mbf)
SELECT (SELECT count(*) FROM generate_series(1, 3) g WHERE NOT multibloom_contains(a.u, g, -g)) +
       (SELECT count(*) FROM generate_series(101, 120) g WHERE NOT multibloom_contains(a.u, g, -g)) AS missed,
       (multibloom_info(a.u)).nbits
FROM a;
-- fixed-size filters of different sizes still do not unite
SELECT multibloom_union(multibloom_empty(2, 10), multibloom_empty(2, 1000));
