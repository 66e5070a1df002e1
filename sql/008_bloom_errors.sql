-- Parameters out of range: each an error saying what was expected.
SELECT bloom_empty(0);
SELECT bloom_empty(-5, 0.01);
SELECT bloom_empty(100, 0);
SELECT bloom_empty(100, 1);
SELECT bloom_empty(100, -0.5);
SELECT bloom_empty(100, 1.5);
SELECT bloom_empty(100, 'NaN');
SELECT bloom_empty(100, 'Infinity');
SELECT bloom_empty(100, 1e-300);
SELECT bloom_empty(9223372036854775807, 0.01);
SELECT bloom_empty(7500000000, 0.01);
SELECT bloom_empty(100, 0.01, 'round');
SELECT bloom_empty_with(0, 3);
SELECT bloom_empty_with(-1, 3);
SELECT bloom_empty_with(8589934017, 3);
SELECT bloom_empty_with(9223372036854775807, 3);
SELECT bloom_empty_with(100, 0);
SELECT bloom_empty_with(100, -3);
SELECT bloom_empty_with(100, 65);
SELECT bloom_empty_with(100, 2147483647);
-- the boundaries themselves work
SELECT (bloom_info(bloom_empty_with(100, 64))).nhashes;
SELECT (bloom_info(bloom_empty(1, 0.999999))).nbits;
