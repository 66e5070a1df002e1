-- The direct hashing paths (int2, int4, int8, text under a deterministic
-- collation) must give exactly the opclass function's hash: bloom_hash
-- takes the same path as bloom_add and bloom_contains.  Beyond 32 bits,
-- where hashint8extended folds the high half into the low, bloom_hash (of
-- hash scheme 3) hashes all 64 bits instead: every such value differs
-- (014_bloom_scheme3 has the rest).
SELECT count(*) AS values_checked,
       count(*) FILTER (WHERE v BETWEEN -2147483648 AND 2147483647
                        AND bloom_hash(v, s) <> hashint8extended(v, s)) AS int8_mismatches,
       count(*) FILTER (WHERE v NOT BETWEEN -2147483648 AND 2147483647
                        AND bloom_hash(v, s) <> hashint8extended(v, s)) AS int8_widened,
       count(*) FILTER (WHERE bloom_hash((v % 2147483648)::int4, s) <> hashint4extended((v % 2147483648)::int4, s)) AS int4_mismatches,
       count(*) FILTER (WHERE bloom_hash(v::text, s) <> hashtextextended(v::text, s)) AS text_mismatches,
       count(*) FILTER (WHERE bloom_hash(md5(v::text) COLLATE "C", s) <> hashtextextended(md5(v::text), s)) AS text_c_mismatches,
       count(*) FILTER (WHERE bloom_hash(md5(v::text)::varchar, s) <> hashtextextended(md5(v::text), s)) AS varchar_mismatches
FROM (SELECT CASE WHEN g % 3 = 0 THEN hashint8extended(g, 7)       -- any int8
                  WHEN g % 3 = 1 THEN hashint8extended(g, 7) >> 40 -- small, both signs
                  ELSE g - 5000 END AS v,
             CASE WHEN g % 2 = 0 THEN 0 ELSE hashint8extended(g, 9) END AS s
      FROM generate_series(1, 10000) g) t;
-- every int2 value
SELECT count(*) FILTER (WHERE bloom_hash(v::int2, 42) <> hashint2extended(v::int2, 42)) AS int2_mismatches,
       count(*) FILTER (WHERE bloom_hash(v::int2, 42) <> bloom_hash(v::int8, 42)) AS int2_int8_disagree
FROM generate_series(-32768, 32767) v;
-- edge values: the same within 32 bits, widened beyond
SELECT v, bloom_hash(v, 0) = hashint8extended(v, 0) AS same
FROM unnest(ARRAY[0, -1, 1, 2147483647, -2147483648, 2147483648, -2147483649,
                   9223372036854775807, -9223372036854775808, 4294967295, -4294967296]::int8[]) v;
-- long and toasted text (compressed inline, and external) take the fmgr path
CREATE TEMP TABLE long_text (t text);
ALTER TABLE long_text ALTER t SET STORAGE external;
INSERT INTO long_text VALUES (repeat('abc', 100)), (repeat(md5('x'), 1000)), ('');
SELECT length(t), bloom_hash(t, 3) = hashtextextended(t, 3) AS same FROM long_text ORDER BY 1;
SELECT length(t), bloom_hash(t, 3) = hashtextextended(t, 3) AS same
FROM (SELECT repeat('0123456789', 100000)::text AS t) c;
-- a domain over int8 hashes as int8, so it finds int8 members
CREATE DOMAIN positive_int8 AS int8 CHECK (VALUE > 0);
SELECT bloom_hash(5::positive_int8, 1) = hashint8extended(5, 1) AS domain_same,
       bloom_contains(bloom_add(bloom_empty(10), 5::int4), 5::positive_int8) AS domain_found;
-- other types keep the opclass function
SELECT bloom_hash(1.50::numeric, 2) = hash_numeric_extended(1.5, 2) AS numeric_same,
       bloom_hash('2024-01-01'::date, 2) = hashint4extended(8766, 2) AS date_same,
       bloom_hash(NULL::int8) IS NULL AS null_is_null;
-- filters built through the direct path find values probed through it,
-- across int2/int4/int8, on both layouts
SELECT layout,
       count(*) FILTER (WHERE bloom_contains(f, g::int2)) AS found_int2,
       count(*) FILTER (WHERE bloom_contains(f, g::int4)) AS found_int4,
       count(*) FILTER (WHERE bloom_contains(f, g::int8)) AS found_int8
FROM (SELECT l AS layout, bloom_add_all(bloom_empty(1000, 0.01, l), array(SELECT generate_series(1, 1000)::int8)) AS f
      FROM unnest(ARRAY['classic', 'blocked']) l) t,
     generate_series(1, 1000) g
GROUP BY layout ORDER BY layout;

-- A constant filter has its header checked once per query, a stored one is
-- detoasted once per query: damaged values are still refused.
SELECT bloom_contains(set_byte(bloom_empty(10)::bytea, 0, 9)::bloom, 1);
SELECT count(*) FROM generate_series(1, 1000) g
WHERE bloom_contains(bloom_add_all(bloom_empty(100, 0.01, 'blocked'), ARRAY[1, 2, 3]), g);

-- a nondeterministic collation keeps the opclass function (which hashes
-- the collation's sort key), so equal strings under it hash alike
CREATE COLLATION case_insensitive (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT bloom_hash('Hello'::text COLLATE case_insensitive, 5) = bloom_hash('hELLO'::text COLLATE case_insensitive, 5) AS ci_equal_hash,
       bloom_hash('Hello'::text COLLATE case_insensitive, 5) = hashtextextended('Hello'::text COLLATE case_insensitive, 5) AS ci_same,
       bloom_hash('Hello'::text, 5) = bloom_hash('hELLO'::text, 5) AS default_equal_hash;
-- a type without a default hash operator class: an error naming the type
SELECT bloom_hash(point(1, 2));
