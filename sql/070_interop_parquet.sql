-- Parquet split-block filters (doc/interop.md): the specification's bits
-- for known values, import and export with and without the Thrift
-- BloomFilterHeader, the specification's sizing, the mapping of SQL types
-- to physical types, probes (bloom_contains, @>, the batched scan), set
-- operations and statistics.
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- Known answers: bitsets computed from the specification's algorithm
-- (XXH64 seed 0 of the plain encoding, block from the high half, eight
-- salted bits from the low half) by an implementation apart from this one.
SELECT bloom_export(bloom_add_all(bloom_import(('\x' || repeat('00', 64))::bytea, 'parquet'),
                                  ARRAY[1, 2, 3]::bigint[]), 'parquet')
     = '\x00000000000000000000000000000000000000000000000000000000000000000000180804000402020400020000260040004004000002884000002020090000'::bytea
  AS int64_1_2_3;
SELECT bloom_export(bloom_add(bloom_import(('\x' || repeat('00', 32))::bytea, 'parquet'), 'héllo'::text), 'parquet')
     = '\x0000040000080000080000000000040000400000000400000200000080000000'::bytea AS byte_array_hello;
SELECT bloom_export(bloom_add(bloom_import(('\x' || repeat('00', 32))::bytea, 'parquet'), 42), 'parquet')
     = '\x0000001000100000000000081000000020000000001000000000002000000040'::bytea AS int32_42;
-- type=int64 makes an integer INT64: the bits of 42::bigint, not of 42::int
SELECT bloom_export(bloom_add(bloom_import(('\x' || repeat('00', 32))::bytea, 'parquet', 'type=int64'), 42), 'parquet')
     = bloom_export(bloom_add(bloom_import(('\x' || repeat('00', 32))::bytea, 'parquet'), 42::bigint), 'parquet')
  AS int64_option;

-- The header: Thrift compact BloomFilterHeader {numBytes, BLOCK, XXHASH, UNCOMPRESSED}.
SELECT substr(bloom_export(bloom_empty(1000, 0.01, 'parquet'), 'parquet_header'), 1, 17) AS header;
SELECT length(bloom_export(bloom_empty(1000, 0.01, 'parquet'), 'parquet')) AS bytes_1000_001,
       length(bloom_export(bloom_empty(1000000, 0.01, 'parquet'), 'parquet')) AS bytes_1e6_001,
       length(bloom_export(bloom_empty(1, 0.5, 'parquet'), 'parquet')) AS bytes_min;
SELECT (bloom_info(f)).layout, (bloom_info(f)).nbits, (bloom_info(f)).nhashes
FROM (SELECT bloom_empty(1000, 0.01, 'parquet') f) s;

-- A filter of the values 1..1000 (bigint: INT64), built by bloom_agg.
CREATE TABLE pq_t (id int, k bigint, k4 int, t text, d float8, u uuid, day date, ts timestamp);
INSERT INTO pq_t
SELECT g, g * 7919, g * 31, 'v' || g, g / 4.0,
       ('00000000-0000-0000-0000-' || lpad(to_hex(g), 12, '0'))::uuid,
       date '2024-01-01' + g, timestamp '2024-01-01' + g * interval '1 second'
FROM generate_series(1, 20000) g;
ANALYZE pq_t;
CREATE TABLE pq_f AS
SELECT bloom_agg(k, 1000, 0.01, 'parquet') AS fk, bloom_agg(k4, 1000, 0.01, 'parquet') AS fk4,
       bloom_agg(t, 1000, 0.01, 'parquet') AS ft, bloom_agg(d, 1000, 0.01, 'parquet') AS fd,
       bloom_agg(u, 1000, 0.01, 'parquet') AS fu, bloom_agg(day, 1000, 0.01, 'parquet') AS fday,
       bloom_agg(ts, 1000, 0.01, 'parquet') AS fts
FROM pq_t WHERE id <= 1000;

-- Every member answers true, and non-members at about the rate.
SELECT count(*) FILTER (WHERE id <= 1000 AND bloom_contains(fk, k)) AS k_members,
       count(*) FILTER (WHERE id > 1000 AND bloom_contains(fk, k)) < 300 AS k_few_false,
       count(*) FILTER (WHERE id <= 1000 AND bloom_contains(fk4, k4)) AS k4_members,
       count(*) FILTER (WHERE id <= 1000 AND bloom_contains(ft, t)) AS t_members,
       count(*) FILTER (WHERE id <= 1000 AND bloom_contains(fd, d)) AS d_members,
       count(*) FILTER (WHERE id <= 1000 AND bloom_contains(fu, u)) AS u_members,
       count(*) FILTER (WHERE id <= 1000 AND bloom_contains(fday, day)) AS day_members,
       count(*) FILTER (WHERE id <= 1000 AND fts @> ts) AS ts_members,
       count(*) FILTER (WHERE id > 1000 AND bloom_contains(ft, t)) < 300 AS t_few_false
FROM pq_t, pq_f;
-- A date is INT32 days since 1970: as the integer 19723 + n; a timestamp
-- INT64 microseconds since 1970.
SELECT bloom_contains(fday, (date '2024-01-01' - date '1970-01-01') + 5) AS date_as_days,
       bloom_contains(fts, (extract(epoch FROM timestamp '2024-01-01 00:00:05') * 1000000)::bigint) AS ts_as_micros
FROM pq_f;
-- timestamp_unit=millis: the same filter probed as milliseconds
SELECT bloom_contains(bloom_add(bloom_empty(10, 0.01, 'parquet', 'timestamp_unit=millis'),
                                timestamp '2024-01-01 00:00:05.123'),
                      1704067205123::bigint) AS millis;

-- Import of the export is the filter, bit for bit, in both forms.
SELECT bloom_import(bloom_export(fk, 'parquet'), 'parquet') = fk AS round_trip,
       bloom_import(bloom_export(fk, 'parquet_header'), 'parquet_header') = fk AS round_trip_header,
       bloom_export(bloom_import(bloom_export(ft, 'parquet_header'), 'parquet_header'), 'parquet_header')
         = bloom_export(ft, 'parquet_header') AS bytes_round_trip
FROM pq_f;

-- Statistics: the estimated count and rate of a filter of 1000 values.
SELECT round(bloom_cardinality(fk)::numeric, -2) AS about_1000,
       bloom_fpp(fk) BETWEEN 0.001 AND 0.02 AS fpp_near_target
FROM pq_f;

-- Set operations of two filters of one shape; mixing formats is an error.
SELECT bloom_contains(bloom_union(a, b), 5::bigint) AND bloom_contains(bloom_union(a, b), 6::bigint) AS union_holds_both,
       bloom_contains(bloom_intersect(a, b), 5::bigint) AS intersect_drops
FROM (SELECT bloom_add(bloom_empty(100, 0.001, 'parquet'), 5::bigint) a,
             bloom_add(bloom_empty(100, 0.001, 'parquet'), 6::bigint) b) s;
SELECT bloom_union(bloom_empty(100, 0.01, 'parquet'), bloom_empty(100, 0.01));
SELECT bloom_union(bloom_empty(100, 0.01, 'parquet'), bloom_empty(100000, 0.01, 'parquet'));

-- The batched scan returns the rows of the plain scan.
CREATE FUNCTION pq_rows(query text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE r text[];
BEGIN
	EXECUTE format('SELECT coalesce(array_agg(q::text), ''{}'') FROM (%s) q', query) INTO r;
	RETURN r;
END $$;
CREATE FUNCTION pq_uses_batch(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text; found boolean := false;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		found := found OR line LIKE '%Custom Scan (BloomBatchScan)%';
	END LOOP;
	RETURN found;
END $$;
CREATE FUNCTION pq_check(query text, OUT batch boolean, OUT same_rows boolean, OUT nrows int)
LANGUAGE plpgsql AS $$
DECLARE with_batch text[]; without text[];
BEGIN
	batch := pq_uses_batch(query);
	with_batch := pq_rows(query);
	PERFORM set_config('bloomfilter.enable_batch_scan', 'off', true);
	without := pq_rows(query);
	PERFORM set_config('bloomfilter.enable_batch_scan', 'on', true);
	same_rows := with_batch = without;
	nrows := cardinality(with_batch);
END $$;
SELECT * FROM pq_check($$SELECT id FROM pq_t WHERE bloom_contains((SELECT fk FROM pq_f), k)$$);
SELECT * FROM pq_check($$SELECT id FROM pq_t WHERE (SELECT ft FROM pq_f) @> t$$);
