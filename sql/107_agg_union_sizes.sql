-- Unions of data-sized filters of different sizes (doc/aggregates.md,
-- section 3): an empty filter is the identity of union, a small filter is an
-- explicit list of its value hashes that adds its values to a large one at
-- the large one's size, lists merge and become a bit array past 240 values.

-- the issue's case: five days of the same 100,000 keys and one empty day
CREATE TABLE us_days AS
SELECT d, bloom_agg(k) AS f FROM generate_series(1, 5) d, generate_series(1, 100000) k GROUP BY d;
INSERT INTO us_days SELECT 6, bloom_agg(k) FROM generate_series(1, 100000) k WHERE false;
SELECT d, (bloom_info(f)).layout, (bloom_info(f)).nbits, (bloom_info(f)).inserted
FROM us_days ORDER BY d;
-- the union keeps the large size, finds every key, and stays at the rate
-- (measured over 10^5 non-members), whichever order the rows come in
CREATE TEMP TABLE us_union AS
SELECT bloom_union_agg(f ORDER BY d) AS up, bloom_union_agg(f ORDER BY d DESC) AS down FROM us_days;
SELECT (bloom_info(up)).layout, (bloom_info(up)).nbits, (bloom_info(up)).inserted,
       up = down AS order_free,
       up = (SELECT f FROM us_days WHERE d = 1) AS same_as_one_day
FROM us_union;
SELECT count(*) FILTER (WHERE NOT bloom_contains(up, k)) AS false_negatives
FROM us_union, generate_series(1, 100000) k;
SELECT count(*) FILTER (WHERE bloom_contains(up, k)) / 100000.0 BETWEEN 0.003 AND 0.01 AS fpp_at_most_001
FROM us_union, generate_series(1000001, 1100000) k;
-- the scalar forms: the empty day on either side is the identity
SELECT (bloom_info(a.f | e.f)).nbits AS big_or_empty, (bloom_info(e.f | a.f)).nbits AS empty_or_big,
       a.f | e.f = a.f AND e.f | a.f = a.f AS identity,
       (bloom_info(a.f | e.f)).inserted,
       (bloom_info(e.f | e.f)).layout AS empty_or_empty
FROM us_days a, us_days e WHERE a.d = 1 AND e.d = 6;
-- intersecting with the empty day gives an empty filter
SELECT (bloom_info(a.f & e.f)).layout, (bloom_info(a.f & e.f)).nbits,
       bloom_contains(a.f & e.f, 1) AS has1, (bloom_info(a.f & e.f)).inserted
FROM us_days a, us_days e WHERE a.d = 1 AND e.d = 6;
SELECT (bloom_info(bloom_intersect_agg(f))).layout, (bloom_info(bloom_intersect_agg(f))).nbits
FROM us_days;

-- a data-sized filter stored empty before lists existed: 64 bits, flag 1,
-- hash scheme 1
CREATE TEMP TABLE us_old AS SELECT
  ('\x010001014000000000000000000000000000000000000000000000000700000000000000'
   '0000000000000000ffffffffffffffff00000000000000000000000000000000')::bytea::bloom AS empty64;
SELECT (bloom_info(empty64)).layout, (bloom_info(empty64)).nbits, (bloom_info(empty64)).flags,
       get_byte(empty64::bytea, 2) AS scheme
FROM us_old;
-- it is the identity too, whatever its size, for filters that hash values
-- as it does (schemes 1 and 2; the days, of small integers, written as
-- scheme 2 stands for them)
CREATE FUNCTION pg_temp.scheme2(f bloom) RETURNS bloom
  LANGUAGE sql AS $$ SELECT set_byte(f::bytea, 2, 2)::bloom $$;
SELECT (bloom_info(pg_temp.scheme2(a.f) | o.empty64)).nbits AS big_or_old_empty,
       pg_temp.scheme2(a.f) | o.empty64 = pg_temp.scheme2(a.f)
         AND o.empty64 | pg_temp.scheme2(a.f) = pg_temp.scheme2(a.f) AS identity,
       (SELECT (bloom_info(bloom_union_agg(f))).nbits
        FROM (SELECT pg_temp.scheme2(f) f FROM us_days UNION ALL SELECT empty64 FROM us_old) s) AS union_agg_bits
FROM us_days a, us_old o WHERE a.d = 1;
-- a new (scheme 3) filter hashes some values otherwise: rebuild the old one
SELECT a.f | o.empty64 FROM us_days a, us_old o WHERE a.d = 1;
-- a list holds value hashes, not positions: a list of scheme 2 adds its
-- values to a stored scheme-1 bit array under scheme 1
SELECT get_byte(u::bytea, 2) AS scheme, (bloom_info(u)).nbits, (bloom_info(u)).inserted,
       (SELECT count(*) FROM generate_series(1, 5) g WHERE bloom_contains(u, g)) +
       (SELECT count(*) FROM generate_series(100, 102) g WHERE bloom_contains(u, g)) AS found
FROM (SELECT bloom_add_all(o.empty64, ARRAY[1, 2, 3, 4, 5])
               | pg_temp.scheme2((SELECT bloom_agg(g) FROM generate_series(100, 102) g)) u
      FROM us_old o) s;
-- ... but a small bit array with values (of the large one's hash scheme)
-- still folds a large one onto its size: 64 bits for 6 values, where
-- every probe matches
SELECT (bloom_info(u)).nbits, bloom_fpp(u) > 0.99 AS saturated
FROM (SELECT a.f | bloom_add_all(set_byte(o.empty64::bytea, 2, get_byte(a.f::bytea, 2))::bloom,
                                 ARRAY[1, 2, 3, 4, 5, 6]) u
      FROM us_days a, us_old o WHERE a.d = 1) s;

-- a small day (6 values) is a list, added to the large days at their size
INSERT INTO us_days SELECT 7, bloom_agg(k) FROM generate_series(200001, 200006) k;
SELECT (bloom_info(f)).* FROM us_days WHERE d = 7;
SELECT bloom_cardinality(f), bloom_fpp(f) = 6 / 2.0 ^ 64 AS fpp_is_6_over_2_64
FROM us_days WHERE d = 7;
CREATE TEMP TABLE us_union7 AS SELECT bloom_union_agg(f) u FROM us_days;
SELECT (bloom_info(u)).layout, (bloom_info(u)).nbits, (bloom_info(u)).inserted,
       u = (SELECT a.f | s.f FROM us_days a, us_days s WHERE a.d = 1 AND s.d = 7) AS same_as_scalar,
       (SELECT count(*) FROM generate_series(200001, 200006) k WHERE bloom_contains(u, k)) AS small_found,
       (SELECT count(*) FROM generate_series(1, 100000) k WHERE NOT bloom_contains(u, k)) AS false_negatives
FROM us_union7;
SELECT count(*) FILTER (WHERE bloom_contains(u, k)) / 100000.0 BETWEEN 0.003 AND 0.01 AS fpp_at_most_001
FROM us_union7, generate_series(1000001, 1100000) k;

-- lists: exact answers, 64 bits per value, 240 values at most
SELECT n, (bloom_info(f)).layout, (bloom_info(f)).nbits, (bloom_info(f)).bytes,
       (SELECT count(*) FROM generate_series(1, n) g WHERE bloom_contains(f, g)) AS members,
       (SELECT count(*) FROM generate_series(n + 1, n + 100000) g WHERE bloom_contains(f, g)) AS others
FROM (VALUES (1), (100), (240)) v(n), LATERAL (SELECT bloom_agg(g) f FROM generate_series(1, n) g) a;
-- one more: the bit array of 4,096 bits, at its rate (about 5e-4 for 241 values)
SELECT (bloom_info(f)).layout, (bloom_info(f)).nbits, (bloom_info(f)).bytes,
       (SELECT count(*) FROM generate_series(1, 241) g WHERE bloom_contains(f, g)) AS members,
       (SELECT count(*) FROM generate_series(242, 100241) g WHERE bloom_contains(f, g)) BETWEEN 10 AND 150 AS others_at_rate
FROM (SELECT bloom_agg(g) f FROM generate_series(1, 241) g) a;

-- list | list: the merged list, and past 240 values the bit array bloom_agg
-- makes of the same values (the same bits)
CREATE TEMP TABLE us_lists AS
SELECT (SELECT bloom_agg(g) FROM generate_series(1, 120) g) a,
       (SELECT bloom_agg(g) FROM generate_series(101, 240) g) b,
       (SELECT bloom_agg(g) FROM generate_series(241, 241) g) c;
SELECT (bloom_info(a | b)).layout, (bloom_info(a | b)).nbits, (bloom_info(a | b)).inserted,
       a | b = (SELECT bloom_agg(g) FROM generate_series(1, 240) g) AS same_as_agg,
       a | b = b | a AS commutes
FROM us_lists;
SELECT (bloom_info(a | b | c)).layout, (bloom_info(a | b | c)).nbits, (bloom_info(a | b | c)).inserted,
       a | b | c = (SELECT bloom_agg(g) FROM generate_series(1, 241) g) AS same_as_agg
FROM us_lists;
-- the aggregate of lists alone: the data-sized filter of their values
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g) FROM generate_series(1, 300) g) AS same_as_agg,
       (bloom_info(bloom_union_agg(f))).nbits
FROM (SELECT bloom_agg(g) f FROM generate_series(1, 300) g GROUP BY g % 3) s;

-- intersections: two lists exactly; a list and a bit array: the listed
-- values the bit array may hold, still a list
SELECT (bloom_info(a & b)).layout, (bloom_info(a & b)).nbits,
       (SELECT count(*) FROM generate_series(1, 300) g WHERE bloom_contains(a & b, g)) AS common
FROM us_lists;
SELECT (bloom_info(i)).layout, (bloom_info(i)).inserted,
       (SELECT count(*) FROM generate_series(95, 100) g WHERE bloom_contains(i, g)) AS common_found,
       (SELECT count(*) FROM generate_series(1, 94) g WHERE bloom_contains(i, g)) <= 5 AS few_others
FROM (SELECT l.a & (SELECT bloom_agg(g) FROM generate_series(95, 100094) g) i FROM us_lists l) s;
SELECT (bloom_info(bloom_intersect_agg(f))).layout,
       (SELECT count(*) FROM generate_series(1, 300) g WHERE bloom_contains(bloom_intersect_agg(f), g)) AS common
FROM (SELECT a f FROM us_lists UNION ALL SELECT b FROM us_lists
      UNION ALL SELECT f FROM us_days WHERE d = 1) s;

-- bloom_add and bloom_add_all on a list: the list grows, repeats count
-- only in inserted, and one value past 240 makes the bit array
SELECT (bloom_info(bloom_add(a, 7))).nbits AS repeat_bits, (bloom_info(bloom_add(a, 7))).inserted,
       (bloom_info(bloom_add(a, 1000))).nbits AS new_bits,
       bloom_contains(bloom_add(a, 1000), 1000) AS found,
       bloom_add(a, NULL::int) = a AS null_unchanged
FROM us_lists;
SELECT (bloom_info(f)).layout, (bloom_info(f)).nbits, f = (SELECT bloom_agg(g) FROM generate_series(1, 241) g) AS same_as_agg
FROM (SELECT bloom_add(a | b, 241) f FROM us_lists) s;
SELECT (bloom_info(f)).layout, (bloom_info(f)).nbits, (bloom_info(f)).inserted,
       f = (SELECT bloom_agg(g) FROM generate_series(1, 1000) g) AS same_as_agg
FROM (SELECT bloom_add_all(a, array_agg(g)) f FROM us_lists, generate_series(1, 1000) g GROUP BY a) s;
SELECT bloom_add_all(a, ARRAY[5, NULL, 500]) = a | (SELECT bloom_agg(500)) AS add_all_is_union
FROM us_lists;

-- the binary form of a list: the header (layout 3, flag 1, nbits 64 per
-- hash, k 0), then the values' hashes as bloom_hash gives them, ascending
-- as unsigned numbers, little-endian
CREATE TEMP TABLE us_small AS SELECT bloom_agg(v) f FROM (VALUES (1), (2), (3), (2)) t(v);
SELECT substr(f::bytea, 1, 2) AS version_layout, substr(f::bytea, 4, 57) AS rest_of_header,
       octet_length(f::bytea) AS bytes
FROM us_small;
SELECT substr(f::bytea, 61) =
       (SELECT string_agg((SELECT string_agg(decode(lpad(to_hex(get_byte(int8send(h), 7 - j)), 2, '0'), 'hex'),
                                             ''::bytea ORDER BY j)
                           FROM generate_series(0, 7) j), ''::bytea ORDER BY h::bit(64))
        FROM (SELECT bloom_hash(v, 0) h FROM generate_series(1, 3) v) x) AS lists_bloom_hash_ascending
FROM us_small;
-- text and binary round trips
SELECT f::text::bloom = f AS text_round_trip, f::bytea::bloom = f AS bytea_round_trip,
       octet_length(f::text) AS text_chars, f::text::bloom::text = f::text AS canonical
FROM us_small;

-- malformed lists: ERROR, never a crash
CREATE TEMP TABLE us_bytes AS SELECT f::bytea AS b FROM us_small;
-- hashes out of order, repeated
SELECT (substr(b, 1, 60) || substr(b, 69, 8) || substr(b, 61, 8) || substr(b, 77, 8))::bloom FROM us_bytes;
SELECT (substr(b, 1, 60) || substr(b, 61, 8) || substr(b, 61, 8) || substr(b, 77, 8))::bloom FROM us_bytes;
-- a length that does not match nbits
SELECT (substr(b, 1, 76))::bloom FROM us_bytes;
SELECT (b || '\x0000000000000000'::bytea)::bloom FROM us_bytes;
-- the data-sized flag missing, hash functions given, full_at set
SELECT set_byte(b, 3, 0)::bloom FROM us_bytes;
SELECT set_byte(b, 28, 7)::bloom FROM us_bytes;
SELECT set_byte(b, 44, 0)::bloom FROM us_bytes;
-- nbits not a whole number of hashes, and more than 240 hashes
SELECT set_byte(b, 4, 191)::bloom FROM us_bytes;
SELECT (overlay(b placing '\x403c000000000000'::bytea from 5 for 8) ||
        (SELECT string_agg(int8send(g), ''::bytea ORDER BY g) FROM generate_series(1, 238) g))::bloom
FROM us_bytes;
-- the same through the text form
SELECT translate(encode(substr(b, 1, 60) || substr(b, 69, 8) || substr(b, 61, 8) || substr(b, 77, 8),
                        'base64'), E'\n', '')::bloom
FROM us_bytes;

-- lists combine with data-sized filters of the same seed only
SELECT f | bloom_empty(100) FROM us_small;
SELECT bloom_union_agg(g) FROM (SELECT f FROM us_small UNION ALL SELECT bloom_empty(100)) s(g);
SELECT f | set_byte(f::bytea, 12, 9)::bloom FROM us_small;

-- multibloom: its parts stay bit arrays, and an empty data-sized value (no
-- rows) is the identity of union, whatever the sizes of the other's parts
CREATE TEMP TABLE us_mb AS
SELECT (SELECT multibloom_agg(g, -g) FROM generate_series(1, 2000) g) big,
       (SELECT multibloom_agg(g, -g) FROM generate_series(1, 2000) g WHERE false) empty;
SELECT (multibloom_info(big)).nbits AS big_bits, (multibloom_info(empty)).nbits AS empty_bits,
       (multibloom_info(big | empty)).nbits AS union_bits,
       big | empty = big AND empty | big = big AS identity,
       (multibloom_info(empty | big)).rows
FROM us_mb;
SELECT multibloom_union_agg(f) = (SELECT big FROM us_mb) AS union_agg_identity
FROM (SELECT empty f FROM us_mb UNION ALL SELECT big FROM us_mb UNION ALL SELECT empty FROM us_mb) s;

-- parallel plans give the serial results, lists, bit arrays and empty
-- filters mixed in every worker's share
CREATE TABLE us_par AS SELECT r, f FROM us_days, generate_series(1, 20) r;
INSERT INTO us_par SELECT 1000 + g, bloom_agg(k) FROM generate_series(1, 60) g,
  LATERAL generate_series(g * 10, g * 10 + g % 9) k GROUP BY g;
-- many lists, 40,000 values: the collected hashes spill at a small work_mem
CREATE TABLE us_many AS SELECT g, bloom_agg(k) f FROM generate_series(1, 40000) k, LATERAL (SELECT k % 200 g) x GROUP BY g;
ANALYZE us_par;
ANALYZE us_many;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE us_serial AS
SELECT bloom_union_agg(f) u, bloom_intersect_agg(f) i,
       (SELECT bloom_union_agg(f) FROM us_par WHERE r >= 1000) ul,
       (SELECT bloom_union_agg(f) FROM us_many) um FROM us_par;
SELECT (bloom_info(ul)).layout, (bloom_info(ul)).nbits, (bloom_info(ul)).inserted,
       (bloom_info(um)).nbits, um = (SELECT bloom_agg(k) FROM generate_series(1, 40000) k) AS many_same_as_agg
FROM us_serial;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(f), bloom_intersect_agg(f) FROM us_par;
SELECT bloom_union_agg(f) = (SELECT u FROM us_serial) AS union_same,
       (bloom_info(bloom_union_agg(f))).inserted = (SELECT (bloom_info(u)).inserted FROM us_serial) AS count_same,
       bloom_intersect_agg(f) = (SELECT i FROM us_serial) AS intersect_same,
       (bloom_info(bloom_union_agg(f))).nbits
FROM us_par;
SELECT bloom_union_agg(f) = (SELECT ul FROM us_serial) AS lists_same
FROM us_par WHERE r >= 1000;
-- the partial states past work_mem: the workers' collected hashes spill
SET work_mem = '64kB';
SELECT bloom_union_agg(f) = (SELECT um FROM us_serial) AS spilled_union_same FROM us_many;
RESET work_mem;
-- a small bloom_agg in parallel is the serial list
SELECT bloom_agg(r) = (SELECT bloom_agg(k) FROM generate_series(1, 20) k) AS small_agg_same,
       (bloom_info(bloom_agg(r))).layout
FROM us_par WHERE r <= 20;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

DROP TABLE us_days, us_par, us_many;
