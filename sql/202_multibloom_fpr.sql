-- multibloom: false-positive rates.  Hashing is deterministic, so counts
-- are fixed; the bounds say what must hold for any good hash.
CREATE TABLE mb_pairs AS
SELECT g AS a, g + 1000000 AS b FROM generate_series(1, 5000) g;
CREATE TABLE mb_pf AS SELECT multibloom_agg_fixed(5000, 0.01, a, b) AS f FROM mb_pairs;

-- 50,000 cross-combinations (a_i, b_j), i <> j: every value occurs, never
-- together.  The attribute filters alone (the "without verification" case,
-- a plain per-dimension filter set) pass every one; with the verification
-- filter about 1% pass.  500 expected, standard deviation 22: the bounds
-- 0.7% .. 1.3% are more than 6 deviations away from chance.
CREATE TABLE mb_cross AS
SELECT i % 5000 + 1 AS a,
       (i % 5000 + 1 + (i / 5000) * 37) % 5000 + 1 + 1000000 AS b
FROM generate_series(0, 49999) i;
SELECT count(*) AS probes, count(DISTINCT (a, b)) AS distinct_probes,
       count(*) FILTER (WHERE b - 1000000 = a) AS stored_rows
FROM mb_cross;
SELECT round(count(*) FILTER (WHERE bloom_contains(multibloom_attribute(f, 1), a)
                               AND bloom_contains(multibloom_attribute(f, 2), b))::numeric
             / count(*), 3) AS rate_without_verification,
       count(*) FILTER (WHERE multibloom_contains(f, a, b))::float8 / count(*) BETWEEN 0.007 AND 0.013
         AS rate_with_verification_near_1pct
FROM mb_cross, mb_pf;

-- subset (wildcard) probes of absent values: each at its attribute's rate
SELECT count(*) FILTER (WHERE multibloom_contains(f, g, NULL))::float8 / count(*) < 0.013 AS absent_a,
       count(*) FILTER (WHERE multibloom_contains(f, NULL, g))::float8 / count(*) < 0.013 AS absent_b,
       count(*) FILTER (WHERE multibloom_contains(f, g, g + 1))::float8 / count(*) < 0.013 AS absent_row
FROM generate_series(2000001, 2050000) g, mb_pf;

-- the auto-sized aggregate meets the target too
SELECT count(*) FILTER (WHERE multibloom_contains(f, a, b))::float8 / count(*) BETWEEN 0.005 AND 0.013
         AS auto_rate_near_1pct
FROM mb_cross, (SELECT multibloom_agg(a, b) AS f FROM mb_pairs) s;

-- three attributes: rows (g, g%50, g%7) against probes that swap the last one
-- (two-sided: within 30% of the verification filter's own estimate, itself
-- near the 1% target: sized for the mean fill, a given fill is within about
-- 3% of it; about 200 expected hits, so 30% is 4 deviations)
SELECT count(*) FILTER (WHERE multibloom_contains(f, g, g % 50, (g + 1) % 7))::float8 / count(*)
         BETWEEN 0.7 * min((multibloom_info(f)).fpp[4]) AND 1.3 * min((multibloom_info(f)).fpp[4])
         AND min((multibloom_info(f)).fpp[4]) <= 0.0105
         AS three_attr_cross_rate,
       count(*) FILTER (WHERE multibloom_contains(f, g, g % 50, g % 7)) = count(*) AS all_members
FROM generate_series(1, 20000) g,
     (SELECT multibloom_agg(g, g % 50, g % 7) AS f FROM generate_series(1, 20000) g) s;

DROP TABLE mb_pairs, mb_pf, mb_cross;
