-- Basic life of a bloom filter: build, add, probe, inspect.
SELECT bloom_info(bloom_empty(1000));
SELECT (bloom_info(bloom_empty(1000000, 0.01))).*;

-- bloom_empty sizing (doc/layouts.md): k = log2(1/p) rounded down or up, m
-- the fewest 64-bit words that keep 95% of filters at p, so at least the
-- optimal -n ln p / ln(2)^2 bits, and the expected rate at capacity,
-- (1 - (1 - 1/m)^(kn))^k, at most p
SELECT capacity, p AS fpp, i.nbits, i.nhashes, i.bytes,
       i.nbits % 64 = 0 AND i.nbits >= -capacity * ln(p) / ln(2)^2 AS m_rule,
       i.nhashes IN (greatest(1, floor(ln(1 / p) / ln(2))), greatest(1, ceil(ln(1 / p) / ln(2)))) AS k_rule,
       (1 - (1 - 1 / i.nbits::float8) ^ (i.nhashes * capacity)) ^ i.nhashes <= p AS mean_rate_ok
FROM (VALUES (1::bigint, 0.5::float8), (1, 0.01), (100, 0.01), (1000, 0.001),
             (100000, 0.01), (1000000, 0.01), (10000000, 0.05), (1000, 1e-9)) v(capacity, p),
     LATERAL bloom_info(bloom_empty(capacity, p)) i;
SELECT (bloom_info(bloom_empty_with(1000, 3))).nbits, (bloom_info(bloom_empty_with(1, 1))).bytes;

-- add and probe
CREATE TABLE t (f bloom);
INSERT INTO t VALUES (bloom_add(bloom_add(bloom_empty(100), 1), 2));
SELECT bloom_contains(f, 1), bloom_contains(f, 2), bloom_contains(f, 3) FROM t;
SELECT f @> 1 AS has1, 2 <@ f AS has2, f @> 4 AS has4 FROM t;
SELECT (bloom_info(f)).inserted, (bloom_info(f)).bits_set <= 2 * 7 AS bits_ok FROM t;

-- NULL is never a member; bloom_add(f, NULL) is f
SELECT bloom_contains(f, NULL::int) IS NULL AS null_probe FROM t;
SELECT bloom_add(f, NULL::int) = f AS unchanged, (bloom_info(bloom_add(f, NULL::int))).inserted FROM t;
SELECT bloom_add(NULL::bloom, 1) IS NULL AS null_filter;
SELECT bloom_add_all(bloom_empty(10), ARRAY[NULL, 5, NULL]::int[]) = bloom_add(bloom_empty(10), 5) AS nulls_skipped;
SELECT bloom_add_all(bloom_empty(10), NULL::int[]) = bloom_empty(10) AS null_array;

-- arguments are never modified in place
SELECT f AS before FROM t \gset
SELECT bloom_contains(bloom_add(f, 99), 99) FROM t;
SELECT f = :'before'::bloom AS untouched FROM t;
UPDATE t SET f = bloom_add(f, 3);
SELECT bloom_contains(f, 3), f <> :'before'::bloom AS changed FROM t;

-- bloom_add_all = repeated bloom_add
SELECT bloom_add_all(bloom_empty(100), ARRAY[10, 20, 30]) =
       bloom_add(bloom_add(bloom_add(bloom_empty(100), 10), 20), 30) AS add_all_same;
SELECT bloom_add_all(bloom_empty(100), ARRAY[[1,2],[3,4]]) @> 4 AS multidim;
SELECT bloom_add_all(bloom_empty(100), '{}'::int[]) = bloom_empty(100) AS empty_array;

-- no false negatives over many values
WITH s AS MATERIALIZED (
  SELECT bloom_add_all(bloom_empty(20000, 0.01), array(SELECT generate_series(1, 20000))) AS f)
SELECT count(*) AS missing FROM generate_series(1, 20000) g, s WHERE NOT bloom_contains(f, g);

-- equality: shape and bits, not the insert count
SELECT bloom_add(bloom_empty(100), 1) = bloom_add(bloom_add(bloom_empty(100), 1), 1) AS same_bits;
SELECT bloom_empty(100) = bloom_empty(200) AS diff_shape, bloom_empty(100) <> bloom_empty(200) AS ne;
SELECT bloom_empty_with(64, 3) = bloom_empty_with(64, 4) AS diff_k;

-- statistics
SELECT round(bloom_cardinality(f)) AS est, round(bloom_fpp(f)::numeric, 4) AS fpp
FROM (SELECT bloom_add_all(bloom_empty(10000, 0.01), array(SELECT generate_series(1, 5000))) f) s;
SELECT abs(bloom_cardinality(f) - 100000) < 2000 AS card_ok,
       abs(bloom_fpp(f) - 0.01) < 0.002 AS fpp_ok
FROM (SELECT bloom_add_all(bloom_empty(100000, 0.01), array(SELECT generate_series(1, 100000))) f) s;
SELECT bloom_cardinality(bloom_empty(10)), bloom_fpp(bloom_empty(10));
-- a full filter: every bit set, the count is unknowable
SELECT bloom_cardinality(f), bloom_fpp(f), (bloom_info(f)).fill
FROM (SELECT bloom_add_all(bloom_empty_with(64, 4), array(SELECT generate_series(1, 2000))) f) s;

-- works as a column: stored, compressed, read back
CREATE TABLE days (day date PRIMARY KEY, f bloom);
INSERT INTO days
SELECT d, bloom_add_all(bloom_empty(10000, 0.01), array(SELECT (extract(doy FROM d)::int * 100000 + g) FROM generate_series(1, 2000) g))
FROM generate_series('2026-01-01'::date, '2026-01-10', '1 day') d;
SELECT day FROM days WHERE f @> 500042 ORDER BY day;
SELECT count(*) FROM days WHERE f @> 500042;
DROP TABLE days;
DROP TABLE t;
