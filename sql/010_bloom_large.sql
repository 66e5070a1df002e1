-- Filters beyond 2^32 bits keep working (positions are 64-bit throughout).
CREATE TEMP TABLE large AS
SELECT bloom_add_all(bloom_empty_with(5000000000, 3), array(SELECT generate_series(1, 1000))) AS f;
SELECT i.nbits, i.bytes, i.bits_set, i.inserted FROM large, LATERAL bloom_info(f) i;
SELECT count(*) FILTER (WHERE bloom_contains(f, g)) AS found FROM large, generate_series(1, 1000) g;
SELECT count(*) FILTER (WHERE bloom_contains(f, g)) AS false_positives FROM large, generate_series(1001, 101000) g;
-- bits past 2^32 are used: bytes past byte 2^29 of the bit array are not all zero
SELECT length(btrim(substring(f::bytea FROM 60 + 1 + 536870912), '\x00'::bytea)) > 0 AS upper_bits_used
FROM large;
-- the largest filter: just under 1 GB
SELECT (bloom_info(bloom_empty_with(8589934016, 1))).bytes;
DROP TABLE large;
