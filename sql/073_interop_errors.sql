-- Bad input to the foreign formats (doc/interop.md): each is an error that
-- names what is wrong, never a crash, and never a filter that answers false.
SET client_min_messages = warning;
\set VERBOSITY default

-- Unknown format and options.
SELECT bloom_import('\x00'::bytea, 'orc');
SELECT bloom_export(bloom_empty(10, 0.01, 'parquet'), 'avro');
SELECT bloom_import(('\x' || repeat('00', 32))::bytea, 'parquet', 'colour=red');
SELECT bloom_import(('\x' || repeat('00', 32))::bytea, 'parquet', 'type=int96');
SELECT bloom_import(('\x' || repeat('00', 32))::bytea, 'parquet', 'funnel=long');
SELECT bloom_import(('\x' || repeat('00', 32))::bytea, 'parquet', 'type');
SELECT bloom_import(('\x' || repeat('00', 32))::bytea, 'parquet', 'type=int32,type=int64');
SELECT bloom_import('\x0104000000010800002000028000'::bytea, 'guava', 'funnel=utf16');
SELECT bloom_import('\x00000001000000050000000100000000000000ff'::bytea, 'spark', 'version=2');
SELECT bloom_empty(10, 0.01, 'spark', 'seed=7');
SELECT bloom_empty(10, 0.01, 'spark2', 'seed=x');
SELECT bloom_empty(10, 0.01, 'classic', 'hash=none');
SELECT bloom_empty(10, 0.01, 'csv');

-- Parquet: sizes, truncation, a header that disagrees with its bitset.
SELECT bloom_import(''::bytea, 'parquet');
SELECT bloom_import(('\x' || repeat('00', 48))::bytea, 'parquet');
SELECT bloom_import(('\x1580011c1c00001c1c00001c1c000000' || repeat('00', 32))::bytea, 'parquet_header');
SELECT bloom_import('\x15'::bytea, 'parquet_header');
SELECT bloom_import('\x1580011c1c0000'::bytea, 'parquet_header');
SELECT bloom_import(('\x1540' || '2c1c0000' || '1c1c0000' || '1c1c000000' || repeat('00', 32))::bytea, 'parquet_header');
SELECT bloom_import(('\x1540' || '1c1c0000' || '1c2c0000' || '1c1c000000' || repeat('00', 32))::bytea, 'parquet_header');
SELECT bloom_import(('\x1540' || '1c1c0000' || '1c1c000000' || repeat('00', 32))::bytea, 'parquet_header');
-- A filter as it sits in a file (its header, then the bitset) given as
-- 'parquet': the hint names 'parquet_header'.  Bytes that only begin like a
-- header (field 1, then no algorithm) get none.
SELECT bloom_import(bloom_export(bloom_empty(10, 0.01, 'parquet'), 'parquet_header'), 'parquet');
SELECT bloom_import(('\x1500' || repeat('00', 47))::bytea, 'parquet');

-- Guava: unknown strategy, truncated words, trailing bytes, absurd sizes.
SELECT bloom_import('\x0204000000010000000000000000'::bytea, 'guava');
SELECT bloom_import('\x01040000000100000000000000'::bytea, 'guava');
SELECT bloom_import('\x010400000001000000000000000000'::bytea, 'guava');
SELECT bloom_import('\x01047fffffff00000000000000'::bytea, 'guava');
SELECT bloom_import('\x01000000000100000000000000ff'::bytea, 'guava');
SELECT bloom_import('\x01ff000000010000000000000000'::bytea, 'guava');
SELECT bloom_import('\x0104000000000000000000000000'::bytea, 'guava');
SELECT bloom_import('\x01'::bytea, 'guava');

-- Spark: unknown version, truncated, sizes.
SELECT bloom_import('\x00000003000000050000000100000000000000ff'::bytea, 'spark');
SELECT bloom_import('\x000000010000000500000002000000000000000f'::bytea, 'spark');
SELECT bloom_import('\x00000002000000050000000100000000000000ff'::bytea, 'spark');
SELECT bloom_import('\x0000000100000005'::bytea, 'spark');
SELECT bloom_import('\x00000001fffffffb0000000100000000000000ff'::bytea, 'spark');

-- Export of another layout, and probes of types the format has no encoding for.
SELECT bloom_export(bloom_empty(10, 0.01), 'parquet');
SELECT bloom_export(bloom_empty(10, 0.01, 'guava'), 'spark');
SELECT bloom_contains(bloom_empty(10, 0.01, 'parquet'), 1.5::numeric);
SELECT bloom_contains(bloom_empty(10, 0.01, 'parquet', 'type=double'), 1);
SELECT bloom_contains(bloom_empty(10, 0.01, 'guava'), now()::timestamp);
SELECT bloom_contains(bloom_empty(10, 0.01, 'spark'), gen_random_uuid());
SELECT bloom_contains(bloom_empty(10, 0.01, 'parquet'), 'infinity'::date);
SELECT bloom_contains(bloom_empty(10, 0.01, 'parquet', 'type=int32'), 1::bigint << 40);
SELECT bloom_contains(bloom_empty(10, 0.01, 'parquet', 'timestamp_unit=nanos'), timestamp '3000-01-01');
-- bloom_agg_hashed takes stored-scheme hashes: no foreign layout.
SELECT bloom_agg_hashed(bloom_hash(g, 0), 100, 0.01, 'parquet') FROM generate_series(1, 3) g;

-- A damaged stored filter of a foreign layout is refused like any other:
-- the foreign scheme with a native layout, a native scheme with a foreign
-- layout, unknown bits of the value encoding.
SELECT ('\x01' || '04' || '03' || '00' || substr(encode(bloom_send(bloom_empty(10, 0.01, 'parquet')), 'hex'), 9))::bytea::bloom;
SELECT ('\x01' || '00' || '10' || '00' || substr(encode(bloom_send(bloom_empty(10, 0.01)), 'hex'), 9))::bytea::bloom;
SELECT (substr(bloom_send(bloom_empty(10, 0.01, 'parquet')), 1, 12) || '\x00000000ff000000'::bytea
        || substr(bloom_send(bloom_empty(10, 0.01, 'parquet')), 21))::bloom;
