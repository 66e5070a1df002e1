-- Size limits: every requested size is checked before anything is allocated.
-- A filter holds at most 8589934016 bits (just under 1 GB, the largest
-- PostgreSQL value); 2^31 and 2^32 bits fit, 2^33 and 2^63 do not.
\set VERBOSITY terse
-- 2^31 and 2^32 bits work (256 MB and 512 MB filters)
SELECT nbits, bytes, bits_set FROM bloom_info(bloom_empty_with(2147483648, 1));
SELECT nbits, bytes, bits_set FROM bloom_info(bloom_empty_with(4294967296, 2));
-- one bit past the largest, 2^33, 2^63 - 1: rejected, nothing allocated
SELECT bloom_empty_with(8589934017, 1);
SELECT bloom_empty_with(8589934592, 1);
SELECT bloom_empty_with(9223372036854775807, 1);
-- 2^63 does not fit a bigint; -2^63 and 0 are not sizes
SELECT bloom_empty_with(9223372036854775808, 1);
SELECT bloom_empty_with(-9223372036854775808, 1);
SELECT bloom_empty_with(0, 1);
-- hash function counts
SELECT bloom_empty_with(64, 0);
SELECT bloom_empty_with(64, 65);
SELECT bloom_empty_with(64, -2147483648);
SELECT (bloom_info(bloom_empty_with(64, 64))).nhashes;
-- sizing from a capacity: too many values, or too small a rate
SELECT bloom_empty(1000000000, 0.01);
SELECT bloom_empty(9223372036854775807, 0.5);
SELECT bloom_empty(1, 1e-300);
SELECT bloom_empty(100, 'NaN');
SELECT bloom_empty(100, '-Infinity');
SELECT bloom_empty(0);
SELECT bloom_empty(-9223372036854775808);
-- headers claiming huge sizes are rejected by their length before allocation:
-- the header of bloom_empty_with(64, 1) with nbits 2^32, 2^63 and 2^64 - 1
SELECT ('\x010001000000000001000000' || substring(bloom_empty_with(64, 1)::bytea FROM 13))::bloom;
SELECT ('\x010001000000000000000080' || substring(bloom_empty_with(64, 1)::bytea FROM 13))::bloom;
SELECT ('\x01000100ffffffffffffffff' || substring(bloom_empty_with(64, 1)::bytea FROM 13))::bloom;
-- the same through text input
SELECT translate(encode('\x010001000000000000000080'::bytea
                        || substring(bloom_empty_with(64, 1)::bytea FROM 13), 'base64'),
                 E'\n', '')::bloom;
