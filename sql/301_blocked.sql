-- The 'blocked' layout: every bit of a value inside one 512-bit block.

-- shape: a whole number of 512-bit blocks, more bits than classic for the
-- same rate, and a k chosen for the blocked rate
SELECT i.layout, i.nbits % 512 = 0 AS whole_blocks, i.nbits, i.nhashes,
       i.nbits > c.nbits AS more_bits_than_classic, i.inserted, i.bits_set
FROM bloom_info(bloom_empty(100000, 0.01, 'blocked')) i,
     bloom_info(bloom_empty(100000, 0.01)) c;
SELECT nbits, nhashes FROM bloom_info(bloom_empty(1, 0.01, 'blocked'));
SELECT nbits, nhashes FROM bloom_info(bloom_empty(100000, 0.001, 'blocked'));

-- every function works on it
CREATE TEMP TABLE b AS
SELECT bloom_add_all(bloom_empty(1000, 0.01, 'blocked'), array(SELECT generate_series(1, 1000))) AS f;
SELECT count(*) FILTER (WHERE bloom_contains(f, g)) AS members_found,
       count(*) FILTER (WHERE f @> g::int8) AS found_as_int8,
       count(*) FILTER (WHERE g::int2 <@ f) AS found_as_int2
FROM b, generate_series(1, 1000) g;
SELECT bloom_contains(bloom_add(bloom_empty(10, 0.01, 'blocked'), 'x'::text), 'x'::text) AS added_found,
       bloom_contains(bloom_empty(10, 0.01, 'blocked'), 'x'::text) AS empty_finds_nothing,
       bloom_contains(f, NULL::int) AS null_probe
FROM b;
SELECT abs(bloom_cardinality(f) - 1000) < 30 AS cardinality_close,
       bloom_fpp(f) BETWEEN 0.001 AND 0.02 AS fpp_plausible,
       (bloom_info(f)).layout
FROM b;

-- I/O round trips keep the layout and the bits
SELECT bloom_in(bloom_out(f)::cstring) = f AS text_round_trip,
       (f::bytea)::bloom = f AS bytea_round_trip,
       get_byte(f::bytea, 1) AS layout_byte
FROM b;

-- set operations between blocked filters of one shape
WITH p AS (
  SELECT bloom_add_all(bloom_empty(1000, 0.01, 'blocked'), array(SELECT generate_series(1, 500))) AS lo,
         bloom_add_all(bloom_empty(1000, 0.01, 'blocked'), array(SELECT generate_series(501, 1000))) AS hi
)
SELECT (lo | hi) = f AS union_is_filter_of_union,
       bloom_union(lo, hi) = (lo | hi) AS operator_agrees,
       (SELECT count(*) FROM generate_series(1, 1000) g WHERE bloom_contains(lo & hi, g)) < 100 AS intersection_small,
       (lo & lo) = lo AS intersect_idempotent
FROM p, b;
-- and not with a classic filter of the same size
SELECT bloom_union(bloom_empty(1000, 0.01, 'blocked'), bloom_empty_with(10240, 6));

-- a blocked header must describe whole blocks: 448 bits with a matching
-- payload of 7 words is a valid classic size but not a blocked one
SELECT overlay(set_byte(set_byte(bloom_empty(10, 0.01, 'blocked')::bytea, 4, 192), 5, 1)
               placing ''::bytea from 61 for 8)::bloom;
SELECT bloom_empty_with(512, 3) = bloom_empty(1, 0.01, 'blocked') AS classic_is_not_blocked;

-- Measured false-positive rates at capacity, for 1% and 0.1%, with keys
-- that were never added.  bloom_fpp of a blocked filter is the exact rate
-- of that filter (the mean over blocks of fill^k), so the measured rate
-- must agree with it within sampling error: with 10^6 probes at 1% the
-- standard error is 1% of the rate (tolerance 5%: five standard errors);
-- with 2*10^6 probes at 0.1% it is 2.2% (tolerance 12%: 5.4 standard
-- errors).  The rate must also meet the requested one within the same
-- margin: the sizing targets the requested rate, not a lower one.
CREATE TEMP TABLE rates (fpp float8, probes int, f bloom, false_positives bigint);
INSERT INTO rates (fpp, probes, f)
SELECT p, probes, bloom_add_all(bloom_empty(100000, p, 'blocked'),
                                array(SELECT hashint8extended(g, 1) FROM generate_series(1, 100000) g))
FROM (VALUES (0.01, 1000000), (0.001, 2000000)) v(p, probes);
UPDATE rates SET false_positives =
  (SELECT count(*) FROM generate_series(1, probes) g WHERE bloom_contains(f, hashint8extended(g, 2)));
SELECT fpp, tol,
       false_positives::float8 / probes <= fpp * (1 + tol) AS meets_requested_rate,
       abs(false_positives::float8 / probes / bloom_fpp(f) - 1) < tol AS agrees_with_fill,
       bloom_fpp(f) BETWEEN fpp * 0.85 AND fpp * 1.02 AS sized_for_rate
FROM rates, LATERAL (SELECT CASE WHEN fpp = 0.01 THEN 0.05 ELSE 0.12 END AS tol) t
ORDER BY fpp DESC;
-- text keys too, and no member is ever missed
CREATE TEMP TABLE t AS
SELECT bloom_add_all(bloom_empty(100000, 0.01, 'blocked'),
                     array(SELECT md5(g::text) FROM generate_series(1, 100000) g)) AS f;
SELECT (SELECT count(*) FROM generate_series(1, 100000) g WHERE NOT bloom_contains(f, md5(g::text))) AS missed,
       abs((SELECT count(*) FROM generate_series(1, 1000000) g WHERE bloom_contains(f, md5('x' || g)))::float8
           / 1e6 / bloom_fpp(f) - 1) < 0.05 AS text_rate_agrees
FROM t;

-- the fixed-shape aggregate builds the same blocked filter as bloom_add_all
SELECT a = (SELECT f FROM b) AS agg_equals_add_all, (bloom_info(a)).layout
FROM (SELECT bloom_agg(g, 1000, 0.01, 'blocked') AS a FROM generate_series(1, 1000) g) t;
