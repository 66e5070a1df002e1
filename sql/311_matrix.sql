-- The 'matrix' layout (M-BMBF): construction, insertion, full_at, set
-- operations, I/O and every error.

-- explicit shape: r rows of m bits, k hashes, s locators
SELECT layout, nbits, nhashes, "rows", locators, full_at, inserted, bits_set, fpp, bytes
FROM bloom_info(bloom_empty_matrix(8, 1024, 5, 2));
SELECT bloom_matrix_row_bits(bloom_empty_matrix(4, 100, 3, 2));
-- rows need not be word-aligned, and rows may equal locators
SELECT nbits, "rows", locators FROM bloom_info(bloom_empty_matrix(3, 100, 3, 3));

-- shape errors
SELECT bloom_empty_matrix(0, 1024, 5, 1);
SELECT bloom_empty_matrix(8, 0, 5, 2);
SELECT bloom_empty_matrix(8, -5, 5, 2);
SELECT bloom_empty_matrix(8, 1024, 0, 2);
SELECT bloom_empty_matrix(8, 1024, 65, 2);
SELECT bloom_empty_matrix(8, 1024, 5, 0);
SELECT bloom_empty_matrix(2, 1024, 5, 3);
SELECT bloom_empty_matrix(130, 64, 5, 65);
SELECT bloom_empty_matrix(2147483647, 9223372036854775807, 5, 1);
SELECT bloom_empty_matrix(1024, 8388608, 5, 2);
SELECT bloom_empty_matrix(NULL, 1024, 5, 2) IS NULL AS strict;

-- one value goes into one row: k bits in one row, the others empty
SELECT bloom_matrix_row_bits(bloom_add(bloom_empty_matrix(8, 1024, 5, 2), 42)) AS one_value;
SELECT f @> 42 AS has42, 42 <@ f AS has42_too, f @> 43 AS has43,
       bloom_contains(f, 42::int8) AS int8_probe,
       (bloom_info(f)).inserted
FROM (SELECT bloom_add(bloom_empty_matrix(8, 1024, 5, 2), 42) AS f) s;
-- adding a present value sets nothing, but counts
SELECT bloom_add(bloom_add(bloom_empty_matrix(8, 1024, 5, 2), 42), 42) =
       bloom_add(bloom_empty_matrix(8, 1024, 5, 2), 42) AS same_bits,
       (bloom_info(bloom_add(bloom_add(bloom_empty_matrix(8, 1024, 5, 2), 42), 42))).inserted;
SELECT bloom_add(bloom_empty_matrix(8, 1024, 5, 2), NULL::int) = bloom_empty_matrix(8, 1024, 5, 2) AS null_unchanged;
SELECT bloom_contains(bloom_empty_matrix(8, 1024, 5, 2), NULL::int) IS NULL AS null_probe;

-- a filter filled past full: full_at is where the first value met only full
-- candidates; no member is lost; rows stop near half full until then
CREATE TEMP TABLE m AS
SELECT bloom_add_all(bloom_empty_matrix(8, 2048, 4, 2), array(SELECT generate_series(1, 4000))) AS f;
SELECT i.inserted, i.full_at, i.full_at BETWEEN 3000 AND 4000 AS full_at_plausible,
       i.bits_set = (SELECT sum(b) FROM unnest(bloom_matrix_row_bits(f)) b) AS counters_match
FROM m, LATERAL bloom_info(f) i;
SELECT count(*) AS missed FROM m, generate_series(1, 4000) g WHERE NOT bloom_contains(f, g);
-- the first full_at values: the filter just before and after it
SELECT (bloom_info(bloom_add_all(bloom_empty_matrix(8, 2048, 4, 2),
                                 array(SELECT generate_series(1, (bloom_info(f)).full_at::int))))).full_at IS NULL AS not_yet,
       (bloom_info(bloom_add_all(bloom_empty_matrix(8, 2048, 4, 2),
                                 array(SELECT generate_series(1, (bloom_info(f)).full_at::int + 1))))).full_at = (bloom_info(f)).full_at AS then_full
FROM m;
-- bloom_add_all = repeated bloom_add, also for matrix
SELECT bloom_add_all(bloom_empty_matrix(4, 256, 3, 2), ARRAY[1, 2, 3]) =
       bloom_add(bloom_add(bloom_add(bloom_empty_matrix(4, 256, 3, 2), 1), 2), 3) AS add_all_same;
-- arguments are not modified in place
SELECT f AS before FROM m \gset
SELECT bloom_contains(bloom_add(f, 99999), 99999) FROM m;
SELECT f = :'before'::bloom AS untouched FROM m;

-- bloom_empty(capacity, fpp, 'matrix') (doc/layouts.md): s = 2 locators;
-- r = 8 rows from 4096 values, 4 from 2048, else 2; rows of whole words, at
-- least the optimal classic filter for n/r values at p/s; k at most
-- ceil(log2(s/p)) + 1.  The exact shapes: 302_layout_sizing.
SELECT capacity, p, i.layout, i."rows", i.locators, i.nbits, i.nhashes,
       i."rows" = CASE WHEN capacity >= 4096 THEN 8 WHEN capacity >= 2048 THEN 4 ELSE 2 END AS rows_rule,
       i.nbits % (64 * i."rows") = 0
         AND i.nbits >= -capacity * ln(p / 2) / ln(2)^2 AS m_rule,
       i.nhashes <= ceil(ln(2 / p) / ln(2)) + 1 AS k_rule
FROM (VALUES (1::bigint, 0.5::float8), (1000, 0.01), (3000, 0.001), (100000, 0.01), (1000000, 0.001)) v(capacity, p),
     LATERAL bloom_info(bloom_empty(capacity, p, 'matrix')) i;
-- measured at capacity, with 10^6 probes never added, the rate meets the request
CREATE TEMP TABLE sized AS
SELECT p, bloom_add_all(bloom_empty(100000, p, 'matrix'), array(SELECT generate_series(1, 100000))) AS f
FROM (VALUES (0.01::float8), (0.05)) v(p);
SELECT p, fp / 1e6 <= p AS meets_request, (bloom_info(f)).full_at IS NULL AS never_full,
       abs(bloom_fpp(f) / (fp / 1e6) - 1) < 0.1 AS estimate_within_10pct
FROM sized, LATERAL (SELECT count(*) AS fp FROM generate_series(1000001, 2000000) g WHERE bloom_contains(f, g)) c
ORDER BY p;
-- bloom_cardinality models longest bit match, which stores values with
-- fewer than k new bits (the classic estimate read 0.88 and 0.86 here)
SELECT p, round((bloom_cardinality(f) / 100000)::numeric, 2) AS estimate_ratio
FROM sized ORDER BY p;
SELECT bloom_empty(1000, 1e-30, 'matrix');
SELECT bloom_empty(0, 0.01, 'matrix');
SELECT bloom_empty(1000, 0.01, 'square');

-- union: bitwise OR, counters rebuilt, inserted added, full_at the earlier
-- of the parts; intersection: AND, full_at NULL
CREATE TEMP TABLE parts AS
SELECT bloom_add_all(bloom_empty_matrix(8, 2048, 4, 2), array(SELECT generate_series(1, 4000))) AS a,
       bloom_add_all(bloom_empty_matrix(8, 2048, 4, 2), array(SELECT generate_series(5001, 5100))) AS b;
SELECT (bloom_info(a)).full_at IS NOT NULL AS a_full, (bloom_info(b)).full_at IS NULL AS b_not_full,
       (bloom_info(a | b)).full_at = (bloom_info(a)).full_at AS union_full_at,
       (bloom_info(b | a)).full_at = (bloom_info(a)).full_at AS commutes,
       (bloom_info(a | b)).inserted AS union_inserted,
       a | b = b | a AS union_commutes,
       (bloom_info(a | b)).bits_set = (SELECT sum(x) FROM unnest(bloom_matrix_row_bits(a | b)) x) AS union_counters,
       (bloom_info(a & b)).full_at IS NULL AS intersect_not_full,
       (bloom_info(a & b)).inserted AS intersect_inserted,
       (bloom_info(a & b)).bits_set = (SELECT sum(x) FROM unnest(bloom_matrix_row_bits(a & b)) x) AS intersect_counters,
       ((a | b) & b) = b AS absorption
FROM parts;
SELECT count(*) AS union_missed FROM parts, generate_series(1, 4000) g
WHERE NOT bloom_contains(a | b, g) OR NOT bloom_contains(a | b, g + 5000) AND g <= 100;
-- incompatible shapes
SELECT bloom_empty_matrix(8, 1024, 5, 2) | bloom_empty_matrix(8, 1024, 5, 4);
SELECT bloom_empty_matrix(8, 1024, 5, 2) & bloom_empty_matrix(4, 2048, 5, 2);
SELECT bloom_empty_matrix(1, 1024, 5, 1) | bloom_empty_with(1024, 5);
SELECT bloom_empty_matrix(8, 1024, 5, 2) = bloom_empty_matrix(8, 1024, 5, 4) AS diff_locators;

-- I/O: text and binary round trips keep bits, full_at and the counters
SELECT bloom_in(bloom_out(f)::cstring) = f AS text_round_trip,
       (bloom_info(bloom_in(bloom_out(f)::cstring))).full_at = (bloom_info(f)).full_at AS text_full_at,
       bloom_matrix_row_bits(bloom_in(bloom_out(f)::cstring)) = bloom_matrix_row_bits(f) AS text_counters,
       (f::bytea)::bloom = f AS bytea_round_trip,
       bloom_matrix_row_bits((f::bytea)::bloom) = bloom_matrix_row_bits(f) AS bytea_counters,
       length(f::bytea) AS wire_bytes, (bloom_info(f)).bytes AS memory_bytes
FROM m;
SELECT bloom_out(bloom_add(bloom_empty_matrix(2, 64, 2, 2), 1));
CREATE TEMP TABLE stored (f bloom);
INSERT INTO stored SELECT f FROM m;
SELECT s.f = m.f AS stored_same, bloom_matrix_row_bits(s.f) = bloom_matrix_row_bits(m.f) AS stored_counters
FROM stored s, m;

-- hostile binary input (header: rows at byte 32, locators 36, full_at 44, inserted 20)
SELECT bloom_add(bloom_empty_matrix(2, 64, 2, 2), 1)::bytea AS good \gset
SELECT :'good'::bytea::bloom @> 1 AS good_ok;
SELECT overlay(:'good'::bytea placing '\x01000000'::bytea from 33)::bloom;   -- 1 row, 2 locators
SELECT overlay(:'good'::bytea placing '\x00000000'::bytea from 37)::bloom;   -- 0 locators
SELECT overlay(:'good'::bytea placing '\x00000000'::bytea from 33)::bloom;   -- 0 rows
SELECT overlay(:'good'::bytea placing '\x41000000'::bytea from 37)::bloom;   -- 65 locators
SELECT overlay(:'good'::bytea placing '\x0100000000000000'::bytea from 45)::bloom;  -- full_at 1 = inserted
SELECT overlay(:'good'::bytea placing '\xfeffffffffffffff'::bytea from 45)::bloom;  -- full_at -2
SELECT (bloom_info(overlay(:'good'::bytea placing '\x0000000000000000'::bytea from 45)::bloom)).full_at AS full_at_zero_ok;
SELECT overlay(:'good'::bytea placing '\x03'::bytea from 5)::bloom;          -- nbits 3 not 2 x row_bits
SELECT substring(:'good'::bytea from 1 for 68)::bloom;                      -- payload cut short
SELECT bloom_in('AQICAA==');

-- bloom_matrix_row_bits needs a matrix
SELECT bloom_matrix_row_bits(bloom_empty(100));

-- before full_at the rows stay balanced and at most half full (+ k bits)
SELECT max(b) <= 1024 + 4 AS at_most_half, max(b) - min(b) < 50 AS balanced
FROM unnest(bloom_matrix_row_bits(bloom_add_all(bloom_empty_matrix(8, 2048, 4, 2),
                                                array(SELECT generate_series(1, 3416))))) b;
