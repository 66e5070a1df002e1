-- Golden filters: text written by format version 1 of the first release.
-- Stored filters must stay readable and keep answering the same way in
-- every later version: if this test fails, a change broke existing data
-- (the format, the hash scheme, or PostgreSQL's hashing of these types).
CREATE TEMP TABLE golden AS
SELECT name, txt, txt::bloom AS f FROM (VALUES
 ('int8 1,2,3 in 256 bits, k=3',
  'AQABAAABAAAAAAAAAAAAAAAAAAADAAAAAAAAAAMAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAEAAAAEAAAgBAIAAAAAAAAAAkAAAAAAAAAAAAIAAAAA='),
 ('text alpha,beta in 100 bits, k=4',
  'AQABAGQAAAAAAAAAAAAAAAAAAAACAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAEJAIBAAAIAAAAIAAAAAAA=='),
 ('numeric 1.5,2.25 in bloom_empty(20, 0.01)',
  'AQABAMAAAAAAAAAAAAAAAAAAAAACAAAAAAAAAAcAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAACAACQAAIAAAgEAAAgQAARAAAIAEAAAkA')) AS v(name, txt);
-- the header fields as written
SELECT name, i.layout, i.nbits, i.nhashes, i.seed, i.inserted, i.bits_set,
       i.format_version, i.flags
FROM golden, LATERAL bloom_info(f) i ORDER BY name;
-- text and binary round trips keep every byte
SELECT name, f::text = txt AS text_same,
       (f::bytea)::bloom::bytea = f::bytea AS bytea_same
FROM golden ORDER BY name;
-- today's hashing rebuilds exactly the stored bits, adding to stored empty
-- filters of hash scheme 1 (new filters use scheme 2: 012_bloom_hash_scheme.sql);
-- an empty filter is the same under both schemes but for that header byte.
-- The numeric filter was made by bloom_empty(20, 0.01), whose shape then was
-- 192 bits and k = 7 (the sizing of new filters has changed since).
CREATE FUNCTION pg_temp.scheme1(f bloom) RETURNS bloom
  LANGUAGE sql AS $$ SELECT overlay(f::bytea PLACING '\x01'::bytea FROM 3)::bloom $$;
SELECT
 (SELECT f FROM golden WHERE name LIKE 'int8%')
   = bloom_add_all(pg_temp.scheme1(bloom_empty_with(256, 3)), ARRAY[1, 2, 3]::int8[]) AS int8_same,
 (SELECT f FROM golden WHERE name LIKE 'int8%')
   = bloom_add_all(pg_temp.scheme1(bloom_empty_with(256, 3)), ARRAY[1, 2, 3]::int4[]) AS int4_same,
 (SELECT f FROM golden WHERE name LIKE 'text%')
   = bloom_add_all(pg_temp.scheme1(bloom_empty_with(100, 4)), ARRAY['alpha', 'beta']) AS text_same,
 (SELECT f FROM golden WHERE name LIKE 'numeric%')
   = bloom_add_all(pg_temp.scheme1(bloom_empty_with(192, 7)), ARRAY[1.50, 2.250]) AS numeric_same;
-- members are found; the exact bytes of the smallest example (doc/format.md,
-- scheme 1)
SELECT bloom_contains(f, 1) AND bloom_contains(f, 2::int2) AND bloom_contains(f, 3::int8) AS ints_found
FROM golden WHERE name LIKE 'int8%';
SELECT bloom_contains(f, 'alpha'::text) AND bloom_contains(f, 'beta'::text) AS texts_found
FROM golden WHERE name LIKE 'text%';
SELECT bloom_contains(f, 1.500) AND bloom_contains(f, 2.25) AS numerics_found
FROM golden WHERE name LIKE 'numeric%';
SELECT encode(bloom_add(pg_temp.scheme1(bloom_empty_with(128, 2)), 1::int8)::bytea, 'hex')
  = '0100010080000000000000000000000000000000010000000000000002000000'
    '000000000000000000000000ffffffffffffffff000000000000000000000000'
    '000000000004000000000800' AS doc_example_bytes;
