-- Hash scheme 3: the value hash keeps all 64 bits of bigint and of every
-- type whose extended hash reuses hashint8extended (timestamp, timestamptz,
-- time, timetz, pg_lsn, xid8, interval's span), and of arrays, ranges,
-- multiranges and records of them, where the extended hash folds the high
-- 32 bits into the low 32 and any two values collided with probability
-- 2^-32.  Values within 32 bits keep their hash.  Stored filters of schemes
-- 1 and 2 answer, grow and unite exactly as the previous version made them
-- do (results recorded from it), and do not combine with scheme 3.
SET timezone = 'UTC';
CREATE FUNCTION pg_temp.scheme_of(f bloom) RETURNS int
  LANGUAGE sql AS $$ SELECT get_byte(f::bytea, 2) $$;
-- the same filter under another scheme (schemes 2 and 3 place bits alike)
CREATE FUNCTION pg_temp.scheme_as(f bloom, s int) RETURNS bloom
  LANGUAGE sql AS $$ SELECT set_byte(f::bytea, 2, s)::bloom $$;
-- a bigint whose hashint8extended equals v's (v >= 0): the high half one
-- more, the low half changed so that their xor stays
CREATE FUNCTION pg_temp.partner(v int8) RETURNS int8
  LANGUAGE sql AS $$ SELECT (((v >> 32) + 1) << 32) | ((v & 4294967295) # (v >> 32) # ((v >> 32) + 1)) $$;
-- v microseconds as an interval, exactly; the timestamp v microseconds
-- after 2000-01-01
CREATE FUNCTION pg_temp.us_interval(v int8) RETURNS interval
  LANGUAGE sql AS $$ SELECT (v::text || ' microseconds')::interval $$;
CREATE FUNCTION pg_temp.ts(v int8) RETURNS timestamp
  LANGUAGE sql AS $$ SELECT '2000-01-01'::timestamp + pg_temp.us_interval(v) $$;
CREATE FUNCTION pg_temp.us(t timestamp) RETURNS int8
  LANGUAGE sql AS $$ SELECT (extract(epoch FROM t - '2000-01-01'::timestamp) * 1000000)::int8 $$;
CREATE TYPE scheme3_pair AS (id int8, tag text);
CREATE DOMAIN scheme3_id AS int8;

-- The issue's pair: one hash under hashint8extended, two under scheme 3
SELECT hashint8extended(5, 0) = hashint8extended(4294967300, 0) AS old_hashes_equal,
       bloom_hash(5::bigint, 0) = bloom_hash(4294967300::bigint, 0) AS hashes_equal,
       bloom_agg(5::bigint) @> 4294967300::bigint AS found_in_list,
       bloom_add(bloom_empty(10, 1e-9), 5::bigint) @> 4294967300::bigint AS found_in_bits,
       pg_temp.scheme_of(bloom_agg(5::bigint)) AS scheme;

-- Pairs of values that the old hash could not tell apart, one per type:
-- old_equal is the type's own extended hash, the rest scheme 3
CREATE TEMP TABLE pair_checks (type text, old_equal bool, hashes_equal bool,
                               found_in_list bool, found_in_bits bool);
CREATE FUNCTION pg_temp.check_pair(type text, a anyelement, b anyelement, old_equal bool)
  RETURNS void LANGUAGE sql AS $$
  INSERT INTO pair_checks SELECT type, old_equal, bloom_hash(a, 7) = bloom_hash(b, 7),
    (SELECT bloom_agg(x) FROM (VALUES (a)) v(x)) @> b,
    bloom_add(bloom_empty(10, 1e-9), a) @> b $$;
SELECT pg_temp.check_pair('bigint', 5::int8, 4294967300::int8,
  hashint8extended(5, 7) = hashint8extended(4294967300, 7));
SELECT pg_temp.check_pair('bigint 2^40', 1099511627783::int8, pg_temp.partner(1099511627783),
  hashint8extended(1099511627783, 7) = hashint8extended(pg_temp.partner(1099511627783), 7));
SELECT pg_temp.check_pair('domain over bigint', 5::scheme3_id, 4294967300::scheme3_id,
  hashint8extended(5, 7) = hashint8extended(4294967300, 7));
SELECT pg_temp.check_pair('timestamp', a, b, timestamp_hash_extended(a, 7) = timestamp_hash_extended(b, 7))
FROM (SELECT '2024-06-01 12:00'::timestamp a) s,
     LATERAL (SELECT pg_temp.ts(pg_temp.partner(pg_temp.us(a))) b) t;
SELECT pg_temp.check_pair('timestamptz', a::timestamptz, b::timestamptz,
  timestamp_hash_extended(a, 7) = timestamp_hash_extended(b, 7))
FROM (SELECT '2024-06-01 12:00'::timestamp a) s,
     LATERAL (SELECT pg_temp.ts(pg_temp.partner(pg_temp.us(a))) b) t;
SELECT pg_temp.check_pair('time', '00:00:00.000005'::time, '01:11:34.9673'::time,
  time_hash_extended('00:00:00.000005', 7) = time_hash_extended('01:11:34.9673', 7));
SELECT pg_temp.check_pair('timetz', '00:00:00.000005+02'::timetz, '01:11:34.9673+02'::timetz,
  timetz_hash_extended('00:00:00.000005+02', 7) = timetz_hash_extended('01:11:34.9673+02', 7));
SELECT pg_temp.check_pair('interval', '5 microseconds'::interval, '4294967300 microseconds'::interval,
  interval_hash_extended('5 microseconds', 7) = interval_hash_extended('4294967300 microseconds', 7));
SELECT pg_temp.check_pair('pg_lsn', '0/5'::pg_lsn, '1/4'::pg_lsn,
  pg_lsn_hash_extended('0/5', 7) = pg_lsn_hash_extended('1/4', 7));
-- (xid8's opclass uses hashint8extended; PostgreSQL 18 names it hashxid8extended)
SELECT pg_temp.check_pair('xid8', '5'::xid8, '4294967300'::xid8,
  hashint8extended(5, 7) = hashint8extended(4294967300, 7));
SELECT pg_temp.check_pair('bigint[]', ARRAY[1, 5]::int8[], ARRAY[1, 4294967300]::int8[],
  hash_array_extended(ARRAY[1, 5]::int8[], 7) = hash_array_extended(ARRAY[1, 4294967300]::int8[], 7));
SELECT pg_temp.check_pair('timestamp[]', ARRAY[a], ARRAY[b],
  hash_array_extended(ARRAY[a], 7) = hash_array_extended(ARRAY[b], 7))
FROM (SELECT '2024-06-01 12:00'::timestamp a) s,
     LATERAL (SELECT pg_temp.ts(pg_temp.partner(pg_temp.us(a))) b) t;
SELECT pg_temp.check_pair('int8range', int8range(5, 10), int8range(4294967300, 4294967307),
  hash_range_extended(int8range(5, 10), 7) = hash_range_extended(int8range(4294967300, 4294967307), 7));
SELECT pg_temp.check_pair('int8multirange', int8multirange(int8range(5, 10)),
  int8multirange(int8range(4294967300, 4294967307)),
  hash_multirange_extended(int8multirange(int8range(5, 10)), 7)
    = hash_multirange_extended(int8multirange(int8range(4294967300, 4294967307)), 7));
SELECT pg_temp.check_pair('tsrange', tsrange(a, c), tsrange(b, d),
  hash_range_extended(tsrange(a, c), 7) = hash_range_extended(tsrange(b, d), 7))
FROM (SELECT '2024-06-01 12:00'::timestamp a, '2024-06-02 12:00'::timestamp c) s,
     LATERAL (SELECT pg_temp.ts(pg_temp.partner(pg_temp.us(a))) b,
                     pg_temp.ts(pg_temp.partner(pg_temp.us(c))) d) t;
SELECT pg_temp.check_pair('composite', ROW(5, 'x')::scheme3_pair, ROW(4294967300, 'x')::scheme3_pair,
  hash_record_extended(ROW(5, 'x')::scheme3_pair, 7) = hash_record_extended(ROW(4294967300, 'x')::scheme3_pair, 7));
SELECT * FROM pair_checks ORDER BY type;
-- money has no hash operator class: it cannot be added at all
SELECT bloom_hash(5::money, 0);

-- Within 32 bits (for an interval, a span within 32 bits; for the
-- containers, elements within 32 bits) scheme 3 is the type's own extended
-- hash: no mismatch among 2,000 values per type, any seed.  Beyond, every
-- value hashes otherwise.
CREATE TEMP TABLE small_v AS
SELECT hashint8extended(g, 3) % 2147483000 AS v,
       CASE WHEN g % 2 = 0 THEN 0 ELSE hashint8extended(g, 4) END AS s
FROM generate_series(1, 2000) g;
SELECT count(*) AS values_checked,
       count(*) FILTER (WHERE bloom_hash(v, s) <> hashint8extended(v, s)) AS bigint_,
       count(*) FILTER (WHERE bloom_hash(pg_temp.ts(v), s) <> timestamp_hash_extended(pg_temp.ts(v), s)) AS timestamp_,
       count(*) FILTER (WHERE bloom_hash(pg_temp.ts(v)::timestamptz, s)
                              <> timestamp_hash_extended(pg_temp.ts(v), s)) AS timestamptz_,
       count(*) FILTER (WHERE bloom_hash('00:00'::time + pg_temp.us_interval(abs(v)), s)
                              <> time_hash_extended('00:00'::time + pg_temp.us_interval(abs(v)), s)) AS time_,
       count(*) FILTER (WHERE bloom_hash(('00:00'::time + pg_temp.us_interval(abs(v)))::timetz, s)
                              <> timetz_hash_extended(('00:00'::time + pg_temp.us_interval(abs(v)))::timetz, s)) AS timetz_,
       count(*) FILTER (WHERE bloom_hash(pg_temp.us_interval(v), s)
                              <> interval_hash_extended(pg_temp.us_interval(v), s)) AS interval_,
       count(*) FILTER (WHERE bloom_hash(format('0/%s', to_hex(abs(v)))::pg_lsn, s)
                              <> pg_lsn_hash_extended(format('0/%s', to_hex(abs(v)))::pg_lsn, s)) AS pg_lsn_,
       count(*) FILTER (WHERE bloom_hash(abs(v)::text::xid8, s) <> hashint8extended(abs(v), s)) AS xid8_,
       count(*) FILTER (WHERE bloom_hash(ARRAY[v, NULL, v + 1], s) <> hash_array_extended(ARRAY[v, NULL, v + 1], s)) AS array_,
       count(*) FILTER (WHERE bloom_hash(int8range(v, v + 10), s) <> hash_range_extended(int8range(v, v + 10), s)) AS range_,
       count(*) FILTER (WHERE bloom_hash(int8multirange(int8range(v, v + 1), int8range(v + 5, NULL)), s)
                              <> hash_multirange_extended(int8multirange(int8range(v, v + 1), int8range(v + 5, NULL)), s)) AS multirange_,
       count(*) FILTER (WHERE bloom_hash(ROW(v, v::text)::scheme3_pair, s)
                              <> hash_record_extended(ROW(v, v::text)::scheme3_pair, s)) AS record_
FROM small_v;
CREATE TEMP TABLE wide_v AS
SELECT CASE WHEN g % 2 = 0 THEN hashint8extended(g, 5) ELSE hashint8extended(g, 5) % 1000000000000000 END AS v,
       CASE WHEN g % 3 = 0 THEN 0 ELSE hashint8extended(g, 6) END AS s
FROM generate_series(1, 2000) g;
SELECT count(*) AS values_checked,
       count(*) FILTER (WHERE bloom_hash(v, s) = hashint8extended(v, s)) AS bigint_,
       count(*) FILTER (WHERE bloom_hash(pg_temp.ts(v), s) = timestamp_hash_extended(pg_temp.ts(v), s)) AS timestamp_,
       count(*) FILTER (WHERE bloom_hash(pg_temp.us_interval(v), s)
                              = interval_hash_extended(pg_temp.us_interval(v), s)) AS interval_,
       count(*) FILTER (WHERE bloom_hash(ARRAY[v], s) = hash_array_extended(ARRAY[v], s)) AS array_
FROM wide_v WHERE abs(v) > 2147483647 AND abs(v) < 200000000000000000;
-- ... and it is a function of the 64-bit quantity alone, the same for
-- every type that holds it: bigint, timestamp, timestamptz, interval,
-- pg_lsn, xid8 (and time, within a day)
SELECT count(*) AS values_checked,
       count(*) FILTER (WHERE bloom_hash(pg_temp.ts(v), s) <> bloom_hash(v, s)) AS timestamp_,
       count(*) FILTER (WHERE bloom_hash(pg_temp.ts(v)::timestamptz, s) <> bloom_hash(v, s)) AS timestamptz_,
       count(*) FILTER (WHERE bloom_hash(pg_temp.us_interval(v), s) <> bloom_hash(v, s)) AS interval_,
       count(*) FILTER (WHERE bloom_hash(format('%s/%s', to_hex(v >> 32), to_hex(v & 4294967295))::pg_lsn, s)
                              <> bloom_hash(v, s)) AS pg_lsn_,
       count(*) FILTER (WHERE bloom_hash(v::text::xid8, s) <> bloom_hash(v, s)) AS xid8_,
       count(*) FILTER (WHERE v < 86400000000
                        AND bloom_hash('00:00'::time + pg_temp.us_interval(v), s) <> bloom_hash(v, s)) AS time_
FROM wide_v WHERE v > 2147483647 AND v < 200000000000000000;
-- pinned: scheme 3's hashes of wide bigints (doc/format.md's wide hash,
-- reproduced by test/clients/bloomformat.py)
SELECT v, s, bloom_hash(v, s)
FROM unnest(ARRAY[4294967296, -4294967297, 9223372036854775807, -9223372036854775808, 4294967300]::int8[]) v,
     unnest(ARRAY[0, 7]::int8[]) s ORDER BY v, s;
-- an interval span beyond 64 bits: the old hash kept only its low 64 bits
-- (178 million years and that less 2^64 microseconds: one old hash); and
-- intervals equal under "=" hash alike
SELECT interval_hash_extended(a, 0) = interval_hash_extended(b, 0) AS old_hashes_equal,
       bloom_hash(a, 0) = bloom_hash(b, 0) AS hashes_equal,
       a = b AS equal
FROM (SELECT '178000000 years'::interval a,
             '178000000 years'::interval - '213503982 days'::interval - '28909.551616 seconds'::interval b) s;
SELECT bloom_hash('1 month'::interval, 3) = bloom_hash('30 days'::interval, 3) AS month_is_30_days,
       bloom_hash('1 day'::interval, 3) = bloom_hash('24 hours'::interval, 3) AS day_is_24_hours,
       bloom_hash('178000000 years'::interval, 3) = bloom_hash('2136000000 months'::interval, 3) AS years_are_months,
       bloom_hash('1 day'::interval, 3) <> bloom_hash('1 day 1 microsecond'::interval, 3) AS microsecond_apart;

-- Values equal under the type's hash operator family hash alike: int2,
-- int4 and int8 (within 32 bits: a bigint beyond cannot equal an int4),
-- numeric scales, text under a nondeterministic collation
CREATE COLLATION scheme3_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT count(*) FILTER (WHERE bloom_hash(v::int2, 9) <> bloom_hash(v::int4, 9)
                           OR bloom_hash(v::int4, 9) <> bloom_hash(v::int8, 9)) AS int2_int4_int8_disagree,
       count(*) FILTER (WHERE bloom_hash(v::numeric, 9) <> bloom_hash(round(v::numeric, 3), 9)) AS numeric_scales_disagree
FROM generate_series(-32768, 32767, 7) v;
SELECT 'Hello' = 'hELLO' COLLATE scheme3_ci AS equal,
       bloom_hash('Hello'::text COLLATE scheme3_ci, 1) = bloom_hash('hELLO'::text COLLATE scheme3_ci, 1) AS ci_equal,
       bloom_hash(ARRAY['Abc']::text[] COLLATE scheme3_ci, 1) = bloom_hash(ARRAY['aBC']::text[] COLLATE scheme3_ci, 1) AS ci_array_equal;
-- cross-type probes: an int4 filter found by int8 and int2, an int8
-- filter by int4; a bigint beyond 32 bits is not an int4 and not found
WITH f AS (SELECT bloom_add_all(bloom_empty(1000, 1e-6), array(SELECT generate_series(-500, 499)::int4)) AS i4,
                  bloom_add_all(bloom_empty(1000, 1e-6), array(SELECT generate_series(-500, 499)::int8)) AS i8,
                  bloom_agg(g::int4) AS list4
           FROM generate_series(-120, 119) g)
SELECT (SELECT count(*) FROM generate_series(-500, 499) g WHERE bloom_contains(i4, g::int8)) AS int4_by_int8,
       (SELECT count(*) FROM generate_series(-500, 499) g WHERE bloom_contains(i4, g::int2)) AS int4_by_int2,
       (SELECT count(*) FROM generate_series(-500, 499) g WHERE bloom_contains(i8, g::int4)) AS int8_by_int4,
       (SELECT count(*) FROM generate_series(-120, 119) g WHERE bloom_contains(list4, g::int8)) AS list_by_int8,
       (SELECT count(*) FROM generate_series(-500, 499) g
        WHERE bloom_contains(i4, g::int8 + 4294967296) OR bloom_contains(list4, g::int8 + 4294967296)) AS wide_found
FROM f;

-- Full-range bigints (snowflake ids, stored hashes): 10^6 of them in a
-- filter for (10^6, 1e-6), 10^6 others probed.  Scheme 3 meets the rate
-- (about 1 false positive; the bound is a 10^-6 accident); the same
-- values hashed through 32 bits (a scheme-2 filter) match about n / 2^32
-- = 2.3e-4 of the probes, as the issue measured
CREATE TEMP TABLE rate_members AS SELECT hashint8extended(g, 1) AS v FROM generate_series(1, 1000000) g;
CREATE TEMP TABLE rate_probes AS SELECT hashint8extended(g, 2) AS v FROM generate_series(1, 1000000) g;
CREATE TEMP TABLE rate_filters AS
SELECT (SELECT bloom_agg(v, 1000000, 1e-6) FROM rate_members) AS new_f,
       bloom_add_all(pg_temp.scheme_as(bloom_empty(1000000, 1e-6), 2),
                     (SELECT array_agg(v) FROM rate_members)) AS old_f,
       (SELECT bloom_agg(v) FROM rate_members) AS sized_f;
SELECT count(*) FILTER (WHERE bloom_contains(new_f, v)) <= 8 AS scheme3_at_rate,
       count(*) FILTER (WHERE bloom_contains(old_f, v)) > 100 AS through_32_bits_floor,
       count(*) FILTER (WHERE bloom_contains(sized_f, v))
         <= 1.25 * 1000000 * (SELECT bloom_fpp(sized_f) FROM rate_filters) AS datasized_at_reported
FROM rate_filters, rate_probes;
SELECT (SELECT count(*) FROM rate_members WHERE NOT bloom_contains(new_f, v)) AS new_missed,
       (SELECT count(*) FROM rate_members WHERE NOT bloom_contains(sized_f, v)) AS sized_missed
FROM rate_filters;
-- timestamps over 40 years: 2*10^5 in a filter for (2*10^5, 1e-6), 10^6 probes
CREATE TEMP TABLE ts_rate AS
SELECT (SELECT bloom_agg(pg_temp.ts(abs(hashint8extended(g, 7)) % 1262304000000000), 200000, 1e-6)
        FROM generate_series(1, 200000) g) AS new_f;
SELECT count(*) FILTER (WHERE bloom_contains(new_f, pg_temp.ts(abs(hashint8extended(g, 8)) % 1262304000000000))) <= 8
         AS timestamps_at_rate
FROM ts_rate, generate_series(1, 1000000) g;

-- The value hash of schemes 1 and 2 is still each type's own extended
-- hash, for every value: lists of scheme 2 holding those hashes find every
-- value (the list of scheme 3 holding the same hashes does not)
CREATE TEMP TABLE old_lists AS
SELECT type, pg_temp.scheme_as(l, 2) AS list2, l AS list3, vals FROM (
  SELECT 'bigint' AS type, bloom_agg_hashed(hashint8extended(v, 0)) AS l, array_agg(v::text) AS vals
  FROM (SELECT v FROM wide_v LIMIT 200) s
  UNION ALL
  SELECT 'timestamp', bloom_agg_hashed(timestamp_hash_extended(pg_temp.ts(v / 100), 0)), array_agg(pg_temp.ts(v / 100)::text)
  FROM (SELECT v FROM wide_v LIMIT 200) s
  UNION ALL
  SELECT 'interval', bloom_agg_hashed(interval_hash_extended(pg_temp.us_interval(v), 0)),
         array_agg((pg_temp.us_interval(v))::text)
  FROM (SELECT v FROM wide_v LIMIT 200) s
  UNION ALL
  SELECT 'bigint[]', bloom_agg_hashed(hash_array_extended(ARRAY[v, 1], 0)), array_agg(ARRAY[v, 1]::text)
  FROM (SELECT v FROM wide_v LIMIT 200) s
  UNION ALL
  SELECT 'int8range', bloom_agg_hashed(hash_range_extended(int8range(v, NULL), 0)), array_agg(int8range(v, NULL)::text)
  FROM (SELECT v FROM wide_v LIMIT 200) s) t;
SELECT type, pg_temp.scheme_of(list2) AS scheme, cardinality(vals) AS values_,
       (SELECT count(*) FROM unnest(vals) x WHERE CASE type
          WHEN 'bigint' THEN bloom_contains(list2, x::int8)
          WHEN 'timestamp' THEN bloom_contains(list2, x::timestamp)
          WHEN 'interval' THEN bloom_contains(list2, x::interval)
          WHEN 'bigint[]' THEN bloom_contains(list2, x::int8[])
          ELSE bloom_contains(list2, x::int8range) END) AS found_scheme2,
       (SELECT count(*) FROM unnest(vals) x WHERE CASE type
          WHEN 'bigint' THEN bloom_contains(list3, x::int8)
          WHEN 'timestamp' THEN bloom_contains(list3, x::timestamp)
          WHEN 'interval' THEN bloom_contains(list3, x::interval)
          WHEN 'bigint[]' THEN bloom_contains(list3, x::int8[])
          ELSE bloom_contains(list3, x::int8range) END) AS found_scheme3
FROM old_lists ORDER BY type;

-- Stored filters of schemes 1 and 2 holding wide values, as the previous
-- version wrote them (its text), and what it answered, added and united:
-- the same bytes and answers today.  The old hash's collisions stay: a
-- stored filter still finds a member's partner.
CREATE TEMP TABLE stored AS SELECT name, txt::bloom AS f FROM (VALUES
 ('bits1',
  'AQABAEACAAAAAAAAAAAAAAAAAAAIAAAAAAAAABQAAAAAAAAAAAAAAAAAAAD//////////wAAAAAA'
  'AAAAAcAIAKSEEKhAQRCCGCBQgATACApEAEGLgQJwQACBIQgIFoKgKQaCCDDABxIAGRKA1QAAC5Lw'
  'AQAhYABwAREFgghEKaGAAIYh'),
 ('bits2',
  'AQACAEACAAAAAAAAAAAAAAAAAAAIAAAAAAAAABQAAAAAAAAAAAAAAAAAAAD//////////wAAAAAA'
  'AAAAFECBImkAAUElYUgAhAAkBBIIUCiAIukgGEBLEBGIUADDCwAACAUEEDIFCArAQECBARAghEoC'
  'CQpAgAAEI1IgBJIAo4QBiIEA'),
 ('blocked2',
  'AQECAAACAAAAAAAAAAAAAAAAAAAIAAAAAAAAAA0AAAAAAAAAAAAAAAAAAAD//////////wAAAAAA'
  'AAAAICAMSoAAEEICQCgAQAAQARBIAAAEMAAASAREhCIBCIBQcEAAAAAIAUAgBGEAAmAIogBAEAAI'
  'KACEikkQPsiBKg=='),
 ('datasized2',
  'AQACAQAQAAAAAAAAAAAAAAAAAAAsAQAAAAAAAAcAAAAAAAAAAAAAAAAAAAD//////////wAAAAAA'
  'AAAAiMCe8EoUAS+T45tz0x8PlD4ntq6X1SQDKD4UFwZBBjlYICvzBKjwA4W2kNFF1bQLBXMxLRGC'
  'AGQ1MstMPa2N41EKbTMwkiY9Cg0XTHh9mAFoK7jCwMHSwDRANQNPnR2aq9GFCUVhAmegxhooBooQ'
  'VM1ASZEzBIZhaKFTIwSoSoWEHgRxzSKgABb8ZrTQpBWjGwQdkDqsoC8EBoa7SUJKRKDfWis0h7iF'
  'sQOJrpMfRMAvgdIDChKu/ySMITokwSSpXDJqA1WoamgHZAwWRDUY2UOUiOBD5UDfMRmZpI71xrUa'
  '0EH2eswkqT7zISEOR5GkQWkFSKKXQuGhMDA4kWrRDtQhhkUY+o6AypzAmQlTwTEoQny0ZIImVAyE'
  'IEFKhHSwRup0zLGxKPHgKQAe5BhBKZkKhCy40gcbECM2RFCcBBQaa5EADwnREsUajvGiGjmDXNUQ'
  'YF4lYQWQAIYTtAFgoAaRGrqQoCHnvT12AS+SqFBEJuGiIiUtBwBWWS4asCU4QIcFBAZEQaPJRGVM'
  'BPolwBqCaL1cDcnBjOAAUQgHQO5jAgkAQHGgcQHHCQPggkEXOp1kBlSzSnKPrKqCmhqhoegHT0Oj'
  'DDB6WyM64IJ5vrne0EQAemZacWW0ekKGmEYQFcAFMLhnBxKFBkdIxMnVSk4ecoqkUUxUotgtl6Wz'
  'AOo='),
 ('list2',
  'AQMCAcABAAAAAAAAAAAAAAAAAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAD//////////wAAAAAA'
  'AAAAtz8kpV9+cBuvwL7vviWoOWMYvBHMczNX+vt4d9qb+2B8xbWwBpUsgROWO/pK8JWB/6gZ+28N'
  'icQ='),
 ('list2arr',
  'AQMCAcABAAAAAAAAAAAAAAAAAAAHAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAD//////////wAAAAAA'
  'AAAADed2bnomMX6xyy5SH4WslbXgv4d3zByX8By/KWptO7YBgHfqagG1uqDkC7x3uu7DOHCMluP7'
  'a8g='),
 ('list2range',
  'AQMCAYABAAAAAAAAAAAAAAAAAAAHAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAD//////////wAAAAAA'
  'AAAA3GS8MviSKjaEp12PAT7xSDMyCWnyAu92KL2lBYJABIl0AP77D+M01zkteBUWMpL8'),
 ('list2ts',
  'AQMCAQAFAAAAAAAAAAAAAAAAAAAUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAD//////////wAAAAAA'
  'AAAAmx2IdsVZkwNmtF/+kxi8BXSC6B11d6QfT0ERXRUXsyjapAi8M+c6KtObh1wS9FIsVo49mPPE'
  'pkC+Q3zGcSEKVvgI1kt6u/hhjFUyAKGSDIBI6D51xEzvi7EYWVu+YXKOzrwI5qM9DY9WZ5H/RdO4'
  'n+TePRPq8Nqk5P1y7V4dR6r3KVAIVAfasY/2amtiHOzB7h0R+0oqoclw5lQ1tJqC4A=='),
 ('matrix2',
  'AQICAAACAAAAAAAAAAAAAAAAAAAIAAAAAAAAAAsAAAAIAAAAAgAAAAAAAAD//////////wAAAAAA'
  'AAAAAgCAI3ACAAIAAAAAAAAAANmvPjQPcQThLES4AVAEYsgAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
  'AAAAAAAAAAAAAA==')
) AS v(name, txt);
SELECT name, pg_temp.scheme_of(f) AS scheme, (bloom_info(f)).layout, (bloom_info(f)).inserted
FROM stored ORDER BY name;
CREATE TEMP TABLE w(v int8);
INSERT INTO w VALUES (4294967300), (-4294967296), (1099511627783), (9223372036854775807),
  (-9223372036854775808), (123456789012345), (5), (-7);
CREATE TEMP TABLE p(i serial, v int8);
INSERT INTO p(v) SELECT v FROM w ORDER BY v;
INSERT INTO p(v) SELECT pg_temp.partner(v) FROM w WHERE v >= 0 ORDER BY v;
INSERT INTO p(v) SELECT hashint8extended(g, 11) FROM generate_series(1, 200) g;
CREATE TEMP TABLE ts AS
SELECT '2024-03-01'::timestamp + g * interval '1 hour 7 minutes 3.000001 seconds' AS t
FROM generate_series(1, 20) g;
CREATE TEMP TABLE then_probes (name text, answers text) ;
INSERT INTO then_probes VALUES
 ('bits1',
  '1111111111111000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000'),
 ('bits2',
  '1111111111111000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000'),
 ('blocked2',
  '1111111111111000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000'),
 ('datasized2',
  '0000000000000000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000010000000000000000000'),
 ('list2',
  '1111111111111000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000'),
 ('matrix2',
  '1111111111111000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000');
SELECT name, string_agg(CASE WHEN bloom_contains(f, p.v) THEN '1' ELSE '0' END, '' ORDER BY p.i)
         = (SELECT answers FROM then_probes t WHERE t.name = s.name) AS same_answers,
       count(*) FILTER (WHERE bloom_contains(f, p.v) AND p.i BETWEEN 9 AND 13) AS partners_found
FROM stored s, p WHERE s.name IN (SELECT name FROM then_probes) GROUP BY name ORDER BY name;
SELECT string_agg(CASE WHEN bloom_contains(f, t) THEN '1' ELSE '0' END, '' ORDER BY t)
         = '1101010101010101010101010101010101010100' AS same_timestamp_answers
FROM stored, (SELECT t FROM ts UNION ALL SELECT t + interval '4294.967296 seconds' FROM ts) x
WHERE name = 'list2ts';
SELECT name,
       md5(bloom_add(f, 1099511627776::int8)::bytea) = then_add AS same_add,
       md5(bloom_add_all(f, ARRAY[8589934592, 42, -1099511627776]::int8[])::bytea) = then_add_all AS same_add_all,
       pg_temp.scheme_of(bloom_add(f, 1099511627776::int8)) AS scheme_after_add
FROM stored JOIN (VALUES
 ('bits1', '6e4fd69cf463020e439082783e596543', '7b9f2b22c7e4cb930946d7a5568dff36'),
 ('bits2', 'd59fa627680b2ad74e2fb30f97f4f269', '00fe532e21ad2e7397ce91f0db8b84b3'),
 ('blocked2', '1652941b08401477d6c4e1323114916c', 'bf1f147af11cac85a7265ffb6016ee91'),
 ('datasized2', 'c8f194643deb4e3e2f22ac9a7dae7c58', '1d32a60c9fb8d69f9cd7910a2b5e601c'),
 ('list2', '96952a2ddf67cf96664d4c88c7fd8868', '65635dd4989b8e73c7d22ab269d6e216'),
 ('matrix2', 'dd92c7e806eb6cdf2661bbb35b4d0c2b', 'b304be30e5485783f79ec915280d7ea5')) AS t(tname, then_add, then_add_all) ON tname = name ORDER BY name;
SELECT md5(bloom_add(f, '2030-01-01 00:00:00.5'::timestamp)::bytea) = 'eea73d619baf0c36f460e4c7e6c7dc24' AS same_timestamp_add
FROM stored WHERE name = 'list2ts';
SELECT md5((a.f | b.f)::bytea) = 'bccc080ee03dbfe7b4c0b818d7bbafe1' AS list_bits_union,
       md5(bloom_union(a.f, c.f)::bytea) = 'c239eda0f159bd34232ad2b930ccf1ad' AS lists_union,
       md5((a.f & b.f)::bytea) = '6ad5c8c8eb690948e8e71881fe4fd1ea' AS list_bits_intersection
FROM stored a, stored b, stored c WHERE a.name = 'list2' AND b.name = 'datasized2' AND c.name = 'list2ts';
SELECT md5(bloom_union_agg(f)::bytea) = '3710b437c884830ac92311e006e14174' AS same_union_agg
FROM stored WHERE name IN ('list2', 'list2ts', 'datasized2');
SELECT md5((f | bloom_add(f, 77::int8))::bytea) = '4c65e4d1886cef9c79e1adedb665e000' AS same_bits_union
FROM stored WHERE name = 'bits2';
SELECT string_agg(CASE WHEN bloom_contains(f, ARRAY[v, v + 1]) THEN '1' ELSE '0' END, '' ORDER BY v) = '1111111'
         AS same_array_answers
FROM stored, w WHERE name = 'list2arr' AND v < 9000000000000000000;
SELECT string_agg(CASE WHEN bloom_contains(f, int8range(v, v + 10)) THEN '1' ELSE '0' END, '' ORDER BY v) = '1111111'
         AS same_range_answers
FROM stored, w WHERE name = 'list2range' AND v < 9000000000000000000;
-- a stored scheme-2 multibloom of (bigint, timestamp) rows
CREATE TEMP TABLE stored_mb AS SELECT
  'AQIBADoAAAAAAAAAAAAAAAAAAACEAAAAAAAAAIQAAAAAAAAAhAAAAAAAAAABAAIBQAIAAAAAAAAB'
  'AAAAAAAAADoAAAAAAAAABwAAAAAAAAAAAAAAAAAAAP//////////AAAAAAAAAABBXN5DlS31hGgZ'
  'iAvVN6Zsi7Nuq/QwK5DnBpwY9XZs7N+6hMbQvcrOL8aCJy66dI5RbXjBecdDBmwaYnhOlDKc0q4D'
  'UDwh17cBAAIBQAIAAAAAAAACAAAAAAAAADoAAAAAAAAABwAAAAAAAAAAAAAAAAAAAP//////////'
  'AAAAAAAAAADoyOr03CV1IkDo7UAHTLULhMOWKlnLsxgag9sYZxQ+btlc6gzhbh2nQi4qCYLMJAwD'
  'PbjPepI99S8lc70CFdz9Bf7ePf/Kpk8BAAIBQAIAAAAAAAAAAAAAAAAAADoAAAAAAAAABwAAAAAA'
  'AAAAAAAAAAAAAP//////////AAAAAAAAAABPtVX9pFijd7g170Av0uIq4uluH4nhuz0Zi8Xeua9a'
  '5vF4nR2IgUDV/FnDNS4k4hwpTi2B5iFMPdrZu9xNXo5pFXMdsnRwAo8='::multibloom AS m;
SELECT string_agg(CASE WHEN multibloom_contains(m, p.v, '2024-01-01'::timestamp + p.v % 100000 * interval '1 second')
                  THEN '1' ELSE '0' END, '' ORDER BY p.i)
         = '1111111110001000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000000000000000000'
  '0000000000000000000000000000000000000000000000000000000000000' AS same_multibloom_answers,
       (SELECT md5(multibloom_add(m, 1099511627776::int8, '2031-01-01'::timestamp)::bytea) FROM stored_mb)
         = 'e34fe47f85c5488cc32f394086c23a68' AS same_multibloom_add
FROM stored_mb, p;

-- Scheme 3 does not combine with schemes 1 and 2: lists, bit arrays, empty
-- filters and multiblooms alike; the error says to rebuild the older one
SELECT (SELECT f FROM stored WHERE name = 'list2') | (SELECT bloom_agg(v) FROM w);
SELECT f | pg_temp.scheme_as(f, 3) FROM stored WHERE name = 'bits2';
SELECT f & pg_temp.scheme_as(f, 3) FROM stored WHERE name = 'datasized2';
SELECT bloom_union_agg(f) FROM (SELECT f FROM stored WHERE name = 'list2'
                                UNION ALL SELECT bloom_agg(v) FROM w) s;
SELECT bloom_intersect_agg(f) FROM (SELECT bloom_agg(v) AS f FROM w
                                    UNION ALL SELECT f FROM stored WHERE name = 'datasized2') s;
SELECT pg_temp.scheme_as(bloom_agg(v), 2) | bloom_agg(v) FROM w WHERE false;
SELECT multibloom_union(m, (SELECT multibloom_agg(v, '2024-01-01'::timestamp) FROM w)) FROM stored_mb;
-- a multibloom's parts share one scheme
SELECT set_byte(multibloom_empty(1, 10)::bytea, 38, 2)::multibloom;
-- schemes 1 and 2 keep combining where they did: a list of scheme 2 into a
-- data-sized bit array of scheme 1 (64 bits, stored empty by the first
-- release), at its size and under its scheme
SELECT pg_temp.scheme_of(u) AS scheme, (bloom_info(u)).nbits,
       (SELECT count(*) FROM w WHERE bloom_contains(u, v)) AS found
FROM (SELECT bloom_add_all(('\x010001014000000000000000000000000000000000000000000000000700000000000000'
                            '0000000000000000ffffffffffffffff00000000000000000000000000000000')::bytea::bloom,
                           ARRAY[1, 2]) | (SELECT f FROM stored WHERE name = 'list2') AS u) s;

-- The hashed twins (bloom_hash per row, as the Citus rewrite feeds them)
-- give the aggregates' exact bytes for full-range bigints and timestamps:
-- lists, data-sized bit arrays, fixed shapes, multibloom
CREATE TEMP TABLE twins AS
SELECT g, hashint8extended(g, 21) AS v, pg_temp.ts(abs(hashint8extended(g, 22)) % 1262304000000000) AS t
FROM generate_series(1, 3000) g;
SELECT (SELECT bloom_agg(v) = bloom_agg_hashed(bloom_hash(v, 0)) FROM twins WHERE g <= 200) AS list_bigint,
       (SELECT bloom_agg(t) = bloom_agg_hashed(bloom_hash(t, 0)) FROM twins WHERE g <= 200) AS list_timestamp,
       (SELECT bloom_agg(v) = bloom_agg_hashed(bloom_hash(v, 0)) FROM twins) AS bits_bigint,
       (SELECT bloom_agg(t) = bloom_agg_hashed(bloom_hash(t, 0)) FROM twins) AS bits_timestamp,
       (SELECT bloom_agg(v, 3000, 1e-6) = bloom_agg_hashed(bloom_hash(v, 0), 3000, 1e-6) FROM twins) AS fixed_bigint,
       (SELECT bloom_agg(t, 3000, 0.001, 'blocked') = bloom_agg_hashed(bloom_hash(t, 0), 3000, 0.001, 'blocked')
        FROM twins) AS fixed_timestamp,
       (SELECT multibloom_agg(v, t) = multibloom_agg_hashed(ARRAY[bloom_hash(v, 1), bloom_hash(t, 2)])
        FROM twins) AS multibloom_,
       (SELECT multibloom_agg_fixed(3000, 0.01, v, t)
               = multibloom_agg_fixed_hashed(3000, 0.01, ARRAY[bloom_hash(v, 1), bloom_hash(t, 2)])
        FROM twins) AS multibloom_fixed;
SELECT (SELECT count(*) FROM twins WHERE NOT bloom_contains(f, v)) AS bigint_missed,
       pg_temp.scheme_of(f) AS scheme
FROM (SELECT bloom_agg(v) AS f FROM twins) s;

-- The batched scan hashes keys under the filter's own scheme: the rows of
-- the plain scan, for a new filter and for a stored scheme-2 one
-- (keys: members, their partners under the old hash, full-range others)
CREATE TEMP TABLE scan_w AS
SELECT g, CASE g % 10 WHEN 0 THEN pg_temp.partner(g) WHEN 1 THEN g ELSE hashint8extended(g, 1) END AS k
FROM generate_series(1, 20000) g;
ANALYZE scan_w;
INSERT INTO stored SELECT 'scan2', bloom_add_all(pg_temp.scheme_as(bloom_empty(1000, 1e-9), 2),
  array(SELECT g FROM generate_series(1, 1000) g));
INSERT INTO stored SELECT 'scan3', bloom_add_all(bloom_empty(1000, 1e-9), array(SELECT g FROM generate_series(1, 1000) g));
CREATE FUNCTION pg_temp.scan_rows(name text) RETURNS int[] LANGUAGE sql AS $$
  SELECT array_agg(g ORDER BY g) FROM scan_w WHERE bloom_contains((SELECT f FROM stored s WHERE s.name = scan_rows.name), k) $$;
CREATE FUNCTION pg_temp.uses_batch_scan(query text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line LIKE '%BloomBatchScan%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;
SET bloomfilter.enable_batch_scan = on;
SELECT pg_temp.uses_batch_scan($q$SELECT g FROM scan_w WHERE bloom_contains((SELECT f FROM stored WHERE name = 'scan2'), k)$q$) AS batched;
CREATE TEMP TABLE scan_on AS SELECT name, pg_temp.scan_rows(name) AS rows_ FROM (VALUES ('scan2'), ('scan3')) v(name);
SET bloomfilter.enable_batch_scan = off;
SELECT name, cardinality(rows_) AS rows_found, rows_ = pg_temp.scan_rows(name) AS same_rows,
       (SELECT count(*) FROM unnest(rows_) g WHERE g % 10 = 0) AS partners_found
FROM scan_on ORDER BY name;
RESET bloomfilter.enable_batch_scan;
