-- Spark's sketch BloomFilter (doc/interop.md), versions 1 and 2.  No Spark
-- runs here: the vectors below were computed from Spark's published source
-- (BloomFilterImpl, BloomFilterImplV2, Murmur3_x86_32, XXH64, BitArray) by
-- an implementation apart from this one, whose XXH64 gives the value
-- Spark's documentation shows for xxhash64('Spark', array(123), 2).
SET client_min_messages = warning;

CREATE TABLE spark_vectors (name text PRIMARY KEY, bytes bytea);
INSERT INTO spark_vectors VALUES
-- version 1, create(100, 0.03), putLong(xxhash64(x)) for x = 1L, 2L, 3L:
-- what bloom_filter_agg(xxhash64(col)) holds
('v1_longs', '\x00000001000000050000000c000000000000000000080000000800000400000100000000000000000000000000000000000000220000000000000000000000000000000000000000100000010080000000000000000000002000000001000000008000000000100000040020'),
-- the same of the ints 1, 2, 3 (xxhash64 of an int reads 4 bytes)
('v1_ints', '\x00000001000000050000000c000002000000000000000000000021000000400000000080000020000000000020000008000000000001000000000000000000400000000008000400000000004020000000000000000000000000000000000000000000004000000000000000'),
-- the same of the strings 'a', 'héllo' (UTF-8)
('v1_text', '\x00000001000000050000000c000100000000000000000000810000000000000000000000000000000020004000000000000000000000000000000800000000000000000010000000000000000002000000000000000000000000000400000800000000000000000000000000'),
-- version 2, seed 7, putLong(x) for x = 1, 2, 3 directly
('v2_raw', '\x0000000200000005000000070000000c000002000000000000000000020000000000000000000000200000000000000000000000080000000000200000000000000000000000008002080000000000000000000000020000000000008000002000200000000200000000000020000800');

SELECT name, (bloom_info(bloom_import(bytes, 'spark'))).layout, (bloom_info(bloom_import(bytes, 'spark'))).nbits,
       (bloom_info(bloom_import(bytes, 'spark'))).nhashes
FROM spark_vectors ORDER BY name;

-- Probes: values go through Spark SQL's xxhash64 (seed 42) by default.
SELECT bloom_contains(f, 1::bigint) AND bloom_contains(f, 2::bigint) AND bloom_contains(f, 3::bigint) AS longs,
       bloom_contains(f, 4::bigint) OR bloom_contains(f, 1) AS others
FROM (SELECT bloom_import(bytes, 'spark') f FROM spark_vectors WHERE name = 'v1_longs') s;
SELECT bloom_contains(f, 1) AND bloom_contains(f, 2) AND bloom_contains(f, 3) AS ints
FROM (SELECT bloom_import(bytes, 'spark') f FROM spark_vectors WHERE name = 'v1_ints') s;
SELECT bloom_contains(f, 'a'::text) AND bloom_contains(f, 'héllo'::text) AS texts,
       bloom_contains(f, 'b'::text) AS other
FROM (SELECT bloom_import(bytes, 'spark') f FROM spark_vectors WHERE name = 'v1_text') s;
SELECT bloom_contains(f, 1::bigint) AND bloom_contains(f, 2) AND bloom_contains(f, 3::smallint) AS raw_longs,
       bloom_contains(f, 4::bigint) AS other
FROM (SELECT bloom_import(bytes, 'spark', 'hash=none') f FROM spark_vectors WHERE name = 'v2_raw') s;

-- Built here, written as Spark writes them.
SELECT bloom_export(bloom_add_all(bloom_empty(100, 0.03, 'spark'), ARRAY[1, 2, 3]::bigint[]), 'spark')
     = (SELECT bytes FROM spark_vectors WHERE name = 'v1_longs') AS v1_longs,
       bloom_export(bloom_add_all(bloom_empty(100, 0.03, 'spark'), ARRAY[1, 2, 3]), 'spark')
     = (SELECT bytes FROM spark_vectors WHERE name = 'v1_ints') AS v1_ints,
       bloom_export(bloom_add_all(bloom_empty(100, 0.03, 'spark'), ARRAY['a', 'héllo']), 'spark')
     = (SELECT bytes FROM spark_vectors WHERE name = 'v1_text') AS v1_text,
       bloom_export(bloom_add_all(bloom_empty(100, 0.03, 'spark2', 'seed=7,hash=none'), ARRAY[1, 2, 3]::bigint[]), 'spark')
     = (SELECT bytes FROM spark_vectors WHERE name = 'v2_raw') AS v2_raw,
       bloom_export(bloom_add_all(bloom_empty(100, 0.03, 'spark', 'version=2, seed=7, hash=none'), ARRAY[1, 2, 3]::bigint[]), 'spark')
     = (SELECT bytes FROM spark_vectors WHERE name = 'v2_raw') AS version_option;

-- bloom_agg in both versions; import of the export is the filter, bit for bit.
CREATE TABLE sp_t AS SELECT g AS id, g * 7919::bigint AS k, 'v' || g AS t FROM generate_series(1, 20000) g;
CREATE TABLE sp_f AS
SELECT bloom_agg(k, 1000, 0.01, 'spark') AS f1, bloom_agg(k, 1000, 0.01, 'spark2') AS f2,
       bloom_agg(t, 1000, 0.01, 'spark') AS ft
FROM sp_t WHERE id <= 1000;
SELECT count(*) FILTER (WHERE id <= 1000 AND bloom_contains(f1, k)) AS f1_members,
       count(*) FILTER (WHERE id <= 1000 AND bloom_contains(f2, k)) AS f2_members,
       count(*) FILTER (WHERE id <= 1000 AND ft @> t) AS ft_members,
       count(*) FILTER (WHERE id > 1000 AND bloom_contains(f1, k)) BETWEEN 50 AND 400 AS f1_rate
FROM sp_t, sp_f;
SELECT bloom_import(bloom_export(f1, 'spark'), 'spark') = f1 AS v1_round_trip,
       bloom_import(bloom_export(f2, 'spark'), 'spark') = f2 AS v2_round_trip,
       round(bloom_cardinality(f1)::numeric, -2) AS about_1000,
       bloom_fpp(f2) BETWEEN 0.003 AND 0.03 AS fpp_near_target
FROM sp_f;

-- Set operations of one shape; versions and formats do not mix.
SELECT bloom_contains(bloom_union(a, b), 5::bigint) AND bloom_contains(bloom_union(a, b), 6::bigint) AS union_both,
       bloom_contains(bloom_intersect(a, b), 5::bigint) AS intersect_drops
FROM (SELECT bloom_add(bloom_empty(100, 0.001, 'spark'), 5::bigint) a,
             bloom_add(bloom_empty(100, 0.001, 'spark'), 6::bigint) b) s;
SELECT bloom_intersect(bloom_empty(100, 0.01, 'spark'), bloom_empty(100, 0.01, 'spark2'));
SELECT bloom_union(bloom_empty(100, 0.01, 'spark'), bloom_empty(100, 0.01, 'guava'));

-- bloom_agg with options: version 2, its seed, values put directly.
SELECT bloom_export(bloom_agg(g::bigint, 100, 0.03, 'spark', 'version=2,seed=7,hash=none'), 'spark')
     = (SELECT bytes FROM spark_vectors WHERE name = 'v2_raw') AS agg_v2_raw
FROM generate_series(1, 3) g;
-- over no rows: the empty filter of its constant arguments
SELECT bloom_export(bloom_agg(g::bigint, 100, 0.03, 'spark2', 'seed=7'), 'spark') AS agg_empty
FROM generate_series(1, 3) g WHERE false;
SELECT bloom_agg(g::bigint, 100, 0.03, 'spark', CASE WHEN g = 2 THEN 'hash=none' ELSE '' END)
FROM generate_series(1, 3) g;
SELECT bloom_agg(g::bigint, 100, 0.03, 'classic', '') FROM generate_series(1, 3) g;
