-- The shapes of bloom_empty(capacity, fpp, layout), pinned so that clients
-- can check their own implementation of the rules of doc/layouts.md
-- ("Sizing"), and the promise behind them: a filter holding its capacity
-- answers wrongly at rate fpp or less, for at least 95% of filters.

-- the shapes
SELECT v.layout, capacity, v.fpp, i.nbits, i.nhashes, i."rows", i.locators, i.bytes
FROM (VALUES ('classic', 1::bigint, 0.1::float8), ('classic', 10, 0.1), ('classic', 20, 0.01),
             ('classic', 1000, 0.01), ('classic', 100, 1e-9), ('classic', 1000000, 0.01),
             ('blocked', 1, 0.01), ('blocked', 1, 1e-9), ('blocked', 10, 1e-6),
             ('blocked', 1000, 1e-6), ('blocked', 100000, 0.01), ('blocked', 10000000, 0.01),
             ('matrix', 1, 0.5), ('matrix', 10, 1e-6), ('matrix', 1000, 1e-6),
             ('matrix', 3000, 0.001), ('matrix', 100000, 0.01)) v(layout, capacity, fpp),
     LATERAL bloom_info(bloom_empty(capacity, fpp, layout)) i
ORDER BY v.layout, capacity, v.fpp;

-- one value in a blocked filter: one block, k = ceil(log2(1/fpp))
SELECT v.fpp, i.nbits, i.nhashes, i.nhashes = ceil(ln(1 / v.fpp) / ln(2)) AS k_rule
FROM (VALUES (0.5::float8), (0.1), (0.01), (1e-6), (1e-9)) v(fpp),
     LATERAL bloom_info(bloom_empty(1, v.fpp, 'blocked')) i
ORDER BY v.fpp DESC;

-- values: full-range 64-bit ids, from PostgreSQL's own 64-bit hash of g
CREATE FUNCTION pg_temp.ids(first int, n int) RETURNS bigint[]
  LANGUAGE sql AS $$ SELECT array_agg(hashint8extended(g, 42)) FROM generate_series(first, first + n - 1) g $$;

-- measured at capacity with 200,000 probes never added: at most the rate,
-- give or take three standard deviations of the count
SELECT layout, capacity, fpp, fp <= fpp * 200000 + 3 * sqrt(fpp * 200000) AS at_most_fpp,
       abs(fp - bloom_fpp(f) * 200000) <= 4 * sqrt(bloom_fpp(f) * 200000) + 2 AS fpp_tells
FROM (VALUES ('classic', 1000::bigint, 0.01::float8), ('blocked', 1000, 0.01), ('matrix', 1000, 0.01),
             ('classic', 100, 0.1), ('blocked', 100, 0.1), ('matrix', 100, 0.1),
             ('classic', 20000, 0.001), ('blocked', 20000, 0.001), ('matrix', 20000, 0.001)) v(layout, capacity, fpp),
     LATERAL (SELECT bloom_add_all(bloom_empty(capacity, fpp, layout), pg_temp.ids(1, capacity::int)) AS f OFFSET 0) b,
     LATERAL (SELECT count(*) AS fp FROM generate_series(10000001, 10200000) g
              WHERE bloom_contains(f, hashint8extended(g, 42))) c
ORDER BY layout, capacity;

-- rates too low to sample: each filter's rate as its bits stand
-- (bloom_fpp), over 100 filters of different values.  At most 5% of them,
-- with room for chance, above the rate: 10.  Under the sizing of 1.1, 86% of
-- the filters of bloom_empty(10, 1e-6, 'matrix') were above it (18 times it
-- on average), 31% of bloom_empty(1000, 1e-6, 'blocked') and 19% of
-- bloom_empty(100, 1e-9) (bench/results/rate-grid-results.md).
SELECT layout, capacity, fpp, count(*) FILTER (WHERE bloom_fpp(f) > fpp) <= 10 AS at_most_5pct_over,
       avg(bloom_fpp(f)) <= fpp AS mean_at_most_fpp
FROM (VALUES ('classic', 100::bigint, 1e-9::float8), ('blocked', 1000, 1e-6),
             ('matrix', 10, 1e-6), ('matrix', 30, 1e-9)) v(layout, capacity, fpp),
     generate_series(0, 99) s,
     LATERAL (SELECT bloom_add_all(bloom_empty(capacity, fpp, layout),
                                   pg_temp.ids(1000000 + s * 2000, capacity::int)) AS f OFFSET 0) b
GROUP BY layout, capacity, fpp
ORDER BY layout, capacity;

-- what the data-sized flag means on a blocked or matrix filter (doc/layouts.md):
-- bloom_agg(value) sets it only on classic filters and lists, but a client
-- may write it.  An empty such filter is the identity of union with the
-- data-sized filters of its seed; a list of theirs adds its values to one
-- holding values; it never folds: other sizes do not unite, as without it.
CREATE FUNCTION pg_temp.datasized(f bloom) RETURNS bloom
  LANGUAGE sql AS $$ SELECT overlay(f::bytea PLACING '\x01'::bytea FROM 4)::bloom $$;
CREATE TEMP TABLE five AS SELECT bloom_agg(g) AS list FROM generate_series(1, 5) g;
SELECT (bloom_info(f)).layout, (bloom_info(f)).flags,
       (bloom_info(f | list)).layout AS union_layout, f | list = list AS empty_is_identity,
       (bloom_info(bloom_add(f, 9) | list)).layout AS holding_union_layout,
       bloom_contains(bloom_add(f, 9) | list, 3) AND bloom_contains(bloom_add(f, 9) | list, 9) AS list_added
FROM (VALUES (pg_temp.datasized(bloom_empty(100, 0.01, 'blocked'))),
             (pg_temp.datasized(bloom_empty(100, 0.01, 'matrix')))) v(f), five
ORDER BY 1;
SELECT pg_temp.datasized(bloom_add(bloom_empty(100, 0.01, 'blocked'), 1))
       | pg_temp.datasized(bloom_add(bloom_empty(200, 0.01, 'blocked'), 2));
SELECT bloom_contains(pg_temp.datasized(bloom_add(bloom_empty(100, 0.01, 'matrix'), 1))
                      | bloom_add(bloom_empty(100, 0.01, 'matrix'), 2), 2) AS same_shape_unites,
       (bloom_info(pg_temp.datasized(bloom_add(bloom_empty(100, 0.01, 'matrix'), 1))
                   | bloom_add(bloom_empty(100, 0.01, 'matrix'), 2))).flags AS flag_kept_only_if_both;
