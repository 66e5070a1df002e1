-- Guava's BloomFilter (doc/interop.md): filters Guava 31 wrote with
-- writeTo (BloomFilter.create(funnel, n, fpp), then put) are read and
-- probed as mightContain answers, and the same filters built here are
-- written byte for byte as Guava wrote them: both strategies, every funnel.
SET client_min_messages = warning;

-- create(longFunnel(), 100, 0.01), put 1, 2, 3 (MURMUR128_MITZ_64)
CREATE TABLE gv (name text PRIMARY KEY, bytes bytea);
INSERT INTO gv VALUES
('longs', '\x01070000000f000001000001004000004000000000004000000000000000000000001000000000000000000002001000000000002400000001000000000000000000000000000001000000000000000400200000000000000002004000000000000000000000000000040000000000000004008000000000000000801000'),
-- create(integerFunnel(), 10, 0.05), put 42
('int', '\x0104000000010800002000028000'),
-- create(stringFunnel(UTF_8), 10, 0.05), put "héllo"
('string', '\x0104000000010000000002108400'),
-- create(unencodedCharsFunnel(), 10, 0.05), put "héllo" and U+1F600 (a surrogate pair)
('chars', '\x0104000000014000040400000040'),
-- create(byteArrayFunnel(), 10, 0.05), put {de ad be ef}
('bytes', '\x0104000000014000044000040000'),
-- create(longFunnel(), 50, 0.02, MURMUR128_MITZ_32), put 1, -5, 2^40
('mitz32', '\x0006000000072002000000000080000000000000410001000004200000004000002000010000000000000000000000002801021000001000000002000000');

SELECT name, (bloom_info(bloom_import(bytes, 'guava'))).layout, (bloom_info(bloom_import(bytes, 'guava'))).nbits,
       (bloom_info(bloom_import(bytes, 'guava'))).nhashes
FROM gv ORDER BY name;

-- Members answer true, as mightContain does; the funnel follows the SQL type.
SELECT bloom_contains(f, 1::bigint) AND bloom_contains(f, 2::bigint) AND bloom_contains(f, 3::bigint) AS longs,
       bloom_contains(f, 4::bigint) OR bloom_contains(f, 5::bigint) AS longs_4_5
FROM (SELECT bloom_import(bytes, 'guava') f FROM gv WHERE name = 'longs') s;
SELECT bloom_contains(bloom_import(bytes, 'guava'), 42) AS int_42,
       bloom_contains(bloom_import(bytes, 'guava'), 43) AS int_43,
       bloom_contains(bloom_import(bytes, 'guava', 'funnel=long'), 42) AS as_long
FROM gv WHERE name = 'int';
SELECT bloom_contains(bloom_import(bytes, 'guava'), 'héllo'::text) AS string_hello,
       bloom_contains(bloom_import(bytes, 'guava'), 'hello'::text) AS string_other
FROM gv WHERE name = 'string';
SELECT bloom_contains(bloom_import(bytes, 'guava', 'funnel=unencoded_chars'), 'héllo😀'::text) AS chars,
       bloom_contains(bloom_import(bytes, 'guava'), 'héllo😀'::text) AS as_utf8
FROM gv WHERE name = 'chars';
SELECT bloom_contains(bloom_import(bytes, 'guava'), '\xdeadbeef'::bytea) AS bytes,
       bloom_contains(bloom_import(bytes, 'guava'), '\xdeadbeee'::bytea) AS other_bytes
FROM gv WHERE name = 'bytes';
SELECT bloom_contains(f, 1::bigint) AND bloom_contains(f, -5::bigint) AND bloom_contains(f, (1::bigint << 40)) AS mitz32
FROM (SELECT bloom_import(bytes, 'guava') f FROM gv WHERE name = 'mitz32') s;

-- Built here, written as Guava wrote them: Guava's sizing, bits and bytes.
SELECT bloom_export(bloom_add_all(bloom_empty(100, 0.01, 'guava'), ARRAY[1, 2, 3]::bigint[]), 'guava')
     = (SELECT bytes FROM gv WHERE name = 'longs') AS longs,
       bloom_export(bloom_add(bloom_empty(10, 0.05, 'guava'), 42), 'guava')
     = (SELECT bytes FROM gv WHERE name = 'int') AS int,
       bloom_export(bloom_add(bloom_empty(10, 0.05, 'guava'), 'héllo'::text), 'guava')
     = (SELECT bytes FROM gv WHERE name = 'string') AS string,
       bloom_export(bloom_add(bloom_empty(10, 0.05, 'guava', 'funnel=unencoded_chars'), 'héllo😀'::text), 'guava')
     = (SELECT bytes FROM gv WHERE name = 'chars') AS chars,
       bloom_export(bloom_add(bloom_empty(10, 0.05, 'guava'), '\xdeadbeef'::bytea), 'guava')
     = (SELECT bytes FROM gv WHERE name = 'bytes') AS bytes,
       bloom_export(bloom_add_all(bloom_empty(50, 0.02, 'guava32'), ARRAY[1, -5, 1::bigint << 40]), 'guava')
     = (SELECT bytes FROM gv WHERE name = 'mitz32') AS mitz32;

-- bloom_agg in the layout; import of the export is the filter, bit for bit.
CREATE TABLE gv_t AS SELECT g AS id, g * 7919::bigint AS k, 'v' || g AS t FROM generate_series(1, 20000) g;
CREATE TABLE gv_f AS
SELECT bloom_agg(k, 1000, 0.01, 'guava') AS f64, bloom_agg(k, 1000, 0.01, 'guava32') AS f32,
       bloom_agg(t, 1000, 0.01, 'guava') AS ft
FROM gv_t WHERE id <= 1000;
SELECT count(*) FILTER (WHERE id <= 1000 AND bloom_contains(f64, k)) AS f64_members,
       count(*) FILTER (WHERE id <= 1000 AND bloom_contains(f32, k)) AS f32_members,
       count(*) FILTER (WHERE id <= 1000 AND ft @> t) AS ft_members,
       count(*) FILTER (WHERE id > 1000 AND bloom_contains(f64, k)) BETWEEN 50 AND 400 AS f64_rate
FROM gv_t, gv_f;
SELECT bloom_import(bloom_export(f64, 'guava'), 'guava') = f64 AS f64_round_trip,
       bloom_import(bloom_export(f32, 'guava'), 'guava') = f32 AS f32_round_trip,
       bloom_import(bloom_export(ft, 'guava'), 'guava') = ft AS ft_round_trip,
       round(bloom_cardinality(f64)::numeric, -2) AS about_1000,
       bloom_fpp(f64) BETWEEN 0.003 AND 0.03 AS fpp_near_target
FROM gv_f;

-- Set operations of one shape; MITZ_32 and MITZ_64 do not mix.
SELECT bloom_contains(u, 5::bigint) AND bloom_contains(u, 6::bigint) AS union_both,
       bloom_contains(bloom_intersect(a, b), 5::bigint) AS intersect_drops
FROM (SELECT a, b, bloom_union(a, b) u
      FROM (SELECT bloom_add(bloom_empty(100, 0.001, 'guava'), 5::bigint) a,
                   bloom_add(bloom_empty(100, 0.001, 'guava'), 6::bigint) b) s) s2;
SELECT bloom_union(bloom_empty(100, 0.01, 'guava'), bloom_empty(100, 0.01, 'guava32'));
-- Two funnels are two ways of hashing: they do not mix either.
SELECT bloom_union(bloom_empty(100, 0.01, 'guava'), bloom_empty(100, 0.01, 'guava', 'funnel=long'));

-- bloom_agg with options: Guava's unencoded chars, an integer as a long.
SELECT bloom_export(bloom_agg(v, 10, 0.05, 'guava', 'funnel=unencoded_chars'), 'guava')
     = (SELECT bytes FROM gv WHERE name = 'chars') AS agg_chars
FROM (VALUES ('héllo😀'::text), (NULL)) v(v);
SELECT bloom_export(bloom_agg(v, 100, 0.01, 'guava', 'funnel=long'), 'guava')
     = (SELECT bytes FROM gv WHERE name = 'longs') AS agg_int_as_long
FROM (VALUES (1), (2), (3)) v(v);
