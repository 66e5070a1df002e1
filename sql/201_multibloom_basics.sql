-- multibloom: rows, wildcards, NULLs, hashing, projection, union, I/O
CREATE TABLE mb_rows AS
SELECT g AS customer_id, (ARRAY['north','south','east','west'])[g % 4 + 1] AS region
FROM generate_series(1, 1000) g;
CREATE TABLE mb_f AS
SELECT multibloom_agg_fixed(1000, 0.01, customer_id, region) AS f FROM mb_rows;

-- every stored row is found, whole or by any subset of its attributes
SELECT count(*) AS rows,
       count(*) FILTER (WHERE multibloom_contains(f, customer_id, region)) AS whole,
       count(*) FILTER (WHERE multibloom_contains(f, customer_id, NULL)) AS first_only,
       count(*) FILTER (WHERE multibloom_contains(f, NULL, region)) AS second_only,
       count(*) FILTER (WHERE multibloom_contains(f, NULL::int, NULL::text)) AS all_wildcards
FROM mb_rows, mb_f;

-- absent values are rejected (1,000 probes at 1%: about 10 false positives; 25 is 4.7 standard deviations away)
SELECT count(*) FILTER (WHERE multibloom_contains(f, customer_id + 1000, region)) < 25 AS absent_customer,
       count(*) FILTER (WHERE multibloom_contains(f, customer_id + 1000, NULL)) < 25 AS absent_customer_wildcard,
       count(*) FILTER (WHERE multibloom_contains(f, NULL, 'nowhere' || customer_id)) < 25 AS absent_region
FROM mb_rows, mb_f;

-- a small filter: add, probe, order matters, NULL attributes
SELECT multibloom_contains(f, 1, 'a') AS row_1_a,
       multibloom_contains(f, 2, 'b') AS row_2_b,
       multibloom_contains(f, 1, 'b') AS cross_1_b,
       multibloom_contains(f, 2, 'a') AS cross_2_a,
       multibloom_contains(f, 1, NULL) AS wild_1,
       multibloom_contains(f, NULL, 'b') AS wild_b,
       multibloom_contains(f, NULL, 'c') AS wild_c
FROM (SELECT multibloom_add(multibloom_add(multibloom_empty(2, 100), 1, 'a'), 2, 'b') AS f) s;

-- (a, b) and (b, a) are different rows
SELECT multibloom_contains(f, 1, 2) AS ab, multibloom_contains(f, 2, 1) AS ba,
       multibloom_contains(f, NULL, 1) AS wild_second_is_1
FROM (SELECT multibloom_add(multibloom_empty(2, 100), 1, 2) AS f) s;

-- a row with a NULL attribute: its other attributes are found by wildcard
-- probes; it never matches a whole-row probe
SELECT multibloom_contains(f, 7, NULL) AS wild_7,
       multibloom_contains(f, NULL, 'x') AS wild_x,
       multibloom_contains(f, 7, 'x') AS whole_7_x,
       (multibloom_info(f)).rows AS rows,
       (multibloom_info(f)).inserted AS inserted
FROM (SELECT multibloom_add(multibloom_empty(2, 100), 7, NULL::text) AS f) s;

-- an empty filter matches nothing, not even all wildcards; NULL filter gives NULL
SELECT multibloom_contains(multibloom_empty(2, 10), NULL::int, NULL::int) AS empty_all_wild,
       multibloom_contains(NULL::multibloom, 1, 2) IS NULL AS null_filter,
       multibloom_add(NULL::multibloom, 1, 2) IS NULL AS null_add;

-- hashing follows "=": integer widths, numeric scale, collations
SELECT multibloom_contains(f, 42::int8, 1.00::numeric, 'Abc'::text COLLATE "C") AS cross_type,
       multibloom_contains(f, 42::int2, 1::numeric, 'Abc') AS cross_type_2,
       multibloom_contains(f, 43, 1.0, 'Abc') AS other_int
FROM (SELECT multibloom_add(multibloom_empty(3, 100), 42::int4, 1.0::numeric, 'Abc') AS f) s;

-- each attribute is hashed with its own collation: a nondeterministic one
-- for the first, the default (deterministic) one for the second
CREATE COLLATION mb_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT multibloom_contains(f, 'APPLE' COLLATE mb_ci, 'Pear') AS ci_first,
       multibloom_contains(f, 'apple' COLLATE mb_ci, 'PEAR') AS c_second
FROM (SELECT multibloom_add(multibloom_empty(2, 100), 'Apple' COLLATE mb_ci, 'Pear'::text) AS f) s;
SELECT multibloom_contains(f, 'APPLE' COLLATE mb_ci, 'Pear') AS agg_ci_first,
       multibloom_contains(f, 'apple' COLLATE mb_ci, 'PEAR') AS agg_c_second
FROM (SELECT multibloom_agg(x COLLATE mb_ci, y) AS f FROM (VALUES ('Apple', 'Pear')) v(x, y)) s;
DROP COLLATION mb_ci;

-- the VARIADIC array form is the same row
SELECT multibloom_add(multibloom_empty(3, 100), VARIADIC ARRAY[1, 2, 3])
       = multibloom_add(multibloom_empty(3, 100), 1, 2, 3) AS same_row,
       multibloom_contains(multibloom_add(multibloom_empty(3, 100), 1, 2, 3), VARIADIC ARRAY[1, NULL, 3]) AS array_wildcard;

-- attribute projection: a bloom filter usable by bloom_contains
SELECT count(*) FILTER (WHERE bloom_contains(multibloom_attribute(f, 1), customer_id)) AS customers,
       count(*) FILTER (WHERE bloom_contains(multibloom_attribute(f, 1), customer_id::int8)) AS customers_int8,
       count(*) FILTER (WHERE multibloom_attribute(f, 2) @> region) AS regions
FROM mb_rows, mb_f;
SELECT layout, nbits, nhashes, seed, inserted FROM bloom_info((SELECT multibloom_attribute(f, 2) FROM mb_f));
-- projections are bloom values like any other: they unite, and projecting
-- a union is uniting the projections
SELECT multibloom_attribute(a, 1) | multibloom_attribute(b, 1) = multibloom_attribute(a | b, 1) AS projection_of_union,
       bloom_contains(multibloom_attribute(a, 1), 5) AS found,
       bloom_contains(multibloom_attribute(a, 1), 6) AS not_found,
       bloom_contains(multibloom_attribute(a, 2), 5) AS other_attribute
FROM (SELECT multibloom_add(multibloom_empty(2, 10), 5, 50) AS a,
             multibloom_add(multibloom_empty(2, 10), 6, 60) AS b) s;

-- info: one record, arrays with one element per part (attributes, then verification)
SELECT format_version, nattrs, flags, rows, bytes, nbits, nhashes, seed, inserted
FROM multibloom_info((SELECT f FROM mb_f));
-- full parts: each rate is its fill^k, sized for 1% at the mean fill (a
-- given fill moves it by about 4%)
SELECT row_fpp < 0.011 AS row_fpp_ok, fpp[1] < 0.011 AS attr_fpp_ok,
       round(estimated_count[1]) AS est_customers, round(estimated_count[3]) AS est_rows
FROM multibloom_info((SELECT f FROM mb_f));

-- union: part by part; | is the same; equality compares every part
SELECT multibloom_union(a, b) = ab AS union_ok, (a | b) = ab AS operator_ok,
       a = b AS a_eq_b, a <> b AS a_ne_b, (a | a) = a AS idempotent,
       (multibloom_info(a | b)).rows AS rows
FROM (SELECT multibloom_add(multibloom_empty(2, 100), 1, 'x') AS a,
             multibloom_add(multibloom_empty(2, 100), 2, 'y') AS b,
             multibloom_add(multibloom_add(multibloom_empty(2, 100), 1, 'x'), 2, 'y') AS ab) s;
-- unions do not create rows: (1, y) is still rejected
SELECT multibloom_contains(a | b, 1, 'y') AS cross_after_union
FROM (SELECT multibloom_add(multibloom_empty(2, 100), 1, 'x') AS a,
             multibloom_add(multibloom_empty(2, 100), 2, 'y') AS b) s;

-- arguments are never modified in place
SELECT (multibloom_info(f)).rows AS before,
       (multibloom_info(multibloom_add(f, 1, 1))).rows AS added,
       (multibloom_info(f)).rows AS after
FROM (SELECT multibloom_empty(2, 10) AS f) s;

-- text I/O, bytea casts, binary COPY
SELECT multibloom_empty(1, 1, 0.5)::text;
SELECT f::text::multibloom = f AS text_round_trip,
       f::bytea::multibloom = f AS bytea_round_trip,
       length(f::text) <= 1.4 * length(f::bytea) AS text_compact,
       (f::text::multibloom)::text = f::text AS canonical
FROM mb_f;
SELECT encode(multibloom_add(multibloom_empty(1, 1, 0.5), 1)::bytea, 'hex');
CREATE TEMP TABLE mb_copy (f multibloom);
\getenv abs_builddir PG_ABS_BUILDDIR
\set mb_bin :abs_builddir '/results/201_multibloom_copy.bin'
COPY (SELECT f FROM mb_f) TO :'mb_bin' WITH (FORMAT binary);
COPY mb_copy FROM :'mb_bin' WITH (FORMAT binary);
SELECT c.f = m.f AS binary_copy_round_trip FROM mb_copy c, mb_f m;

-- a stored, toasted filter is probed like an inline one
CREATE TABLE mb_stored (id int, f multibloom);
INSERT INTO mb_stored SELECT 1, multibloom_agg_fixed(50000, 0.01, customer_id, region) FROM mb_rows;
SELECT count(*) FILTER (WHERE multibloom_contains(s.f, r.customer_id, r.region)) AS found
FROM mb_rows r, mb_stored s;

DROP TABLE mb_rows, mb_f, mb_stored;
