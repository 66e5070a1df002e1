-- Measured false-positive rates against theory, (1 - e^{-kn/m})^k, for
-- sequential integers, random bigints and md5 text, at n = 10^5 and 10^6,
-- each probed with 10^6 values that were never added.  With 10^6 probes at
-- p ~ 0.01 the standard error is about 1% of the rate, so the 10% tolerance
-- is ten standard errors: a sound hash cannot fail it, a biased one cannot
-- pass it.
CREATE TEMP TABLE fpr (keys text, n int, f bloom, false_positives bigint);

INSERT INTO fpr (keys, n, f)
SELECT 'int4', n, bloom_add_all(bloom_empty(n, 0.01), array(SELECT g::int4 FROM generate_series(1, n) g))
FROM (VALUES (100000), (1000000)) v(n);
UPDATE fpr SET false_positives =
  (SELECT count(*) FROM generate_series(n + 1, n + 1000000) g WHERE bloom_contains(f, g::int4))
WHERE keys = 'int4';

INSERT INTO fpr (keys, n, f)
SELECT 'random int8', n, bloom_add_all(bloom_empty(n, 0.01), array(SELECT hashint8extended(g, 1) FROM generate_series(1, n) g))
FROM (VALUES (100000), (1000000)) v(n);
UPDATE fpr SET false_positives =
  (SELECT count(*) FROM generate_series(1, 1000000) g WHERE bloom_contains(f, hashint8extended(g, 2)))
WHERE keys = 'random int8';

INSERT INTO fpr (keys, n, f)
SELECT 'md5 text', n, bloom_add_all(bloom_empty(n, 0.01), array(SELECT md5(g::text) FROM generate_series(1, n) g))
FROM (VALUES (100000), (1000000)) v(n);
UPDATE fpr SET false_positives =
  (SELECT count(*) FROM generate_series(1, 1000000) g WHERE bloom_contains(f, md5('x' || g)))
WHERE keys = 'md5 text';

SELECT keys, n, i.nbits, i.nhashes,
       theory BETWEEN 0.008 AND 0.0101 AS sized_for_1pct,
       abs(false_positives / 1e6 / theory - 1) < 0.10 AS within_10pct_of_theory
FROM fpr, LATERAL bloom_info(f) i,
     LATERAL (SELECT (1 - exp(-i.nhashes::float8 * n / i.nbits)) ^ i.nhashes AS theory) t
ORDER BY keys, n;

-- no member is ever missed
SELECT count(*) AS missed FROM fpr, generate_series(1, 100000) g
WHERE n = 100000 AND NOT CASE keys WHEN 'int4' THEN bloom_contains(f, g)
                                  WHEN 'random int8' THEN bloom_contains(f, hashint8extended(g, 1))
                                  ELSE bloom_contains(f, md5(g::text)) END;

-- a filter at 10x its capacity degrades as theory says, no better, no worse
CREATE TEMP TABLE overfull AS
SELECT bloom_add_all(bloom_empty(10000, 0.01), array(SELECT generate_series(1, 100000))) AS f;
SELECT abs(fp / 1e5 / ((1 - exp(-i.nhashes::float8 * 100000 / i.nbits)) ^ i.nhashes) - 1) < 0.05 AS overfull_matches_theory
FROM overfull, LATERAL bloom_info(f) i,
     LATERAL (SELECT count(*) AS fp FROM generate_series(200001, 300000) g WHERE bloom_contains(f, g)) c;
