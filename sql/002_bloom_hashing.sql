-- The hashing rule: a value is hashed by its type's default hash opclass, so
-- membership agrees with SQL "=" for that type.
CREATE TEMP TABLE h AS
SELECT bloom_add_all(bloom_empty(1000), ARRAY[42, -7, 2147483647]) AS i4,
       bloom_add_all(bloom_empty(1000), ARRAY[1.0, 2.50, -3]::numeric[]) AS num,
       bloom_add_all(bloom_empty(1000), ARRAY[-0.0, 1.5, 'NaN']::float8[]) AS f8,
       bloom_add_all(bloom_empty(1000), ARRAY['apple', 'Banana']::text[]) AS txt;

-- integers across int2, int4, int8
SELECT bloom_contains(i4, 42::int2) AS i2, bloom_contains(i4, 42::int4) AS i4,
       bloom_contains(i4, 42::int8) AS i8, bloom_contains(i4, -7::int8) AS neg,
       bloom_contains(i4, 2147483647::int8) AS max4, bloom_contains(i4, 43::int8) AS absent
FROM h;
SELECT bloom_contains(bloom_add(bloom_empty(100), 5::int8), 5::int2) AS from_int8;
-- a bigint beyond int4 range is not confused with its low 32 bits
SELECT bloom_contains(bloom_add(bloom_empty(100), 4294967338::int8), 42) AS low_bits;

-- numeric: scale does not matter, as for "="
SELECT bloom_contains(num, 1.000::numeric) AS one, bloom_contains(num, 2.5::numeric) AS twofive,
       bloom_contains(num, -3.00::numeric) AS minus3, bloom_contains(num, 1.0001::numeric) AS absent
FROM h;

-- float8: -0 = 0, NaN = NaN; float4 and float8 hash alike
SELECT bloom_contains(f8, 0::float8) AS zero, bloom_contains(f8, 'NaN'::float8) AS nan,
       bloom_contains(f8, 1.5::float4) AS f4, bloom_contains(f8, 2.5::float8) AS absent
FROM h;

-- text: exact bytes under a deterministic collation
SELECT bloom_contains(txt, 'apple'::text) AS apple, bloom_contains(txt, 'Apple'::text) AS upper,
       bloom_contains(txt, 'apple'::varchar) AS varchar, bloom_contains(txt, 'Banana'::name::text) AS name
FROM h;
SELECT bloom_contains(txt, 'apple'::text COLLATE "C") AS c_collation FROM h;

-- a nondeterministic collation: values equal under it are found
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT 'Apple' = 'apple'::text COLLATE ci AS equal_under_ci;
SELECT bloom_contains(bloom_add(bloom_empty(100), 'apple'::text COLLATE ci), 'APPLE'::text COLLATE ci) AS ci_found;
SELECT bloom_contains(bloom_add(bloom_empty(100), 'apple'::text COLLATE ci), 'pear'::text COLLATE ci) AS ci_absent;
CREATE TEMP TABLE people (name text COLLATE ci);
INSERT INTO people VALUES ('Zoë'), ('Émile');
SELECT bloom_contains(bloom_add_all(bloom_empty(100), array(SELECT name FROM people)), 'ZOË'::text COLLATE ci) AS array_ci;
-- char(n) under a nondeterministic collation: its equality ignores trailing
-- spaces, and so does the hash, on every major the hash PostgreSQL 17 gives
SELECT 'ab'::bpchar COLLATE ci = 'AB  '::char(4) AS bpchar_equal_under_ci;
SELECT bloom_contains(bloom_add(bloom_empty(100), 'ab'::bpchar COLLATE ci), 'AB  '::char(4) COLLATE ci) AS bpchar_ci_found,
       bloom_contains(bloom_add(bloom_empty(100), 'ab  '::char(4) COLLATE ci), 'Ab'::bpchar COLLATE ci) AS bpchar_ci_padded,
       bloom_contains(bloom_add(bloom_empty(100), 'ab  '::char(4) COLLATE ci), 'abc'::bpchar COLLATE ci) AS bpchar_ci_absent,
       bloom_contains((SELECT bloom_agg(k, 100, 0.01) FROM (VALUES ('ab'::char(4) COLLATE ci), ('cd')) v(k)),
                      'AB'::bpchar COLLATE ci) AS bpchar_ci_agg;
SELECT bloom_hash('k1  '::char(4) COLLATE ci, 7) = bloom_hash('k1'::bpchar COLLATE ci, 7) AS bpchar_ci_same_hash,
       bloom_hash('k1  '::char(4) COLLATE ci, 7) AS bpchar_ci_hash_of_17;

-- other hashable types: uuid, date, timestamptz, bool, bytea, arrays, records, enums, domains
SELECT bloom_contains(bloom_add(bloom_empty(10), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
                      'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid) AS uuid;
SELECT bloom_contains(bloom_add(bloom_empty(10), '2026-11-23'::date), '2026-11-23'::date) AS date,
       bloom_contains(bloom_add(bloom_empty(10), '2026-11-23 10:00+00'::timestamptz),
                      '2026-11-23 11:00+01'::timestamptz) AS tstz;
SELECT bloom_contains(bloom_add(bloom_empty(10), true), true) AS bool_t,
       bloom_contains(bloom_add(bloom_empty(10), '\x0102'::bytea), '\x0102'::bytea) AS bytea;
SELECT bloom_contains(bloom_add(bloom_empty(10), ARRAY[1, 2]), ARRAY[1, 2]) AS arr,
       bloom_contains(bloom_add(bloom_empty(10), ARRAY[1, 2]), ARRAY[2, 1]) AS arr_order;
CREATE TYPE pair AS (a int, b text);
SELECT bloom_contains(bloom_add(bloom_empty(10), ROW(1, 'x')::pair), ROW(1, 'x')::pair) AS rec,
       bloom_contains(bloom_add(bloom_empty(10), ROW(1, 'x')::pair), ROW(1, 'y')::pair) AS rec_absent;
-- an anonymous record has no hash function the filter could look up
SELECT bloom_add(bloom_empty(10), ROW(1, 'x'::text));
CREATE TYPE mood AS ENUM ('sad', 'happy');
SELECT bloom_contains(bloom_add(bloom_empty(10), 'happy'::mood), 'happy'::mood) AS enum_found,
       bloom_contains(bloom_add(bloom_empty(10), 'happy'::mood), 'sad'::mood) AS enum_absent;
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
SELECT bloom_contains(bloom_add(bloom_empty(10), 7::posint), 7) AS domain_value;

-- a type without a hash opclass is an error naming the type
SELECT bloom_add(bloom_empty(10), point(1, 2));
SELECT bloom_add_all(bloom_empty(10), ARRAY[point(1, 2)]);
-- an untyped literal needs a cast
SELECT bloom_contains(bloom_empty(10), 'abc');

-- hashing a toasted (compressed or external) value hashes the value
CREATE TEMP TABLE big (id int, v text);
ALTER TABLE big ALTER COLUMN v SET STORAGE external;
INSERT INTO big VALUES (1, repeat('x', 100000)), (2, repeat('y', 3000));
ALTER TABLE big ALTER COLUMN v SET STORAGE extended;
INSERT INTO big VALUES (3, repeat('x', 100000)), (4, repeat('z', 5000) || repeat('w', 5000));
SELECT id, bloom_contains(bloom_add_all(bloom_empty(10),
         ARRAY[repeat('x', 100000), repeat('y', 3000), repeat('z', 5000) || repeat('w', 5000)]), v) AS found
FROM big ORDER BY id;
SELECT (SELECT bloom_add(bloom_empty(10), v) FROM big WHERE id = 1) =
       (SELECT bloom_add(bloom_empty(10), v) FROM big WHERE id = 3) AS external_eq_compressed;

-- filters with different seeds are independent; a seed is kept through I/O
SELECT (bloom_info(bloom_empty(10))).seed;
