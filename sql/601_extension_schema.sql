-- CREATE EXTENSION bloomfilter SCHEMA <other>: every object lands in that
-- schema, and every family works through schema-qualified names with the
-- schema off the search_path, and through the search_path.  In a database
-- of its own: this one has the extension in public.
\set regress_db :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS regress_bloomfilter_schema;
RESET client_min_messages;
CREATE DATABASE regress_bloomfilter_schema;
\c regress_bloomfilter_schema
CREATE SCHEMA bf;
CREATE EXTENSION bloomfilter SCHEMA bf;
SELECT n.nspname AS extension_schema
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'bloomfilter';
-- every object with a schema is in bf (casts and event triggers have none),
-- but the aggregates Citus splits by their names, in a schema of their own
-- (bloomfilter_citus) where no other extension's functions of those names are
SELECT count(*) > 100 AS many_objects,
       count(*) FILTER (WHERE r.schema IS DISTINCT FROM 'bf' AND r.type NOT IN ('cast', 'event trigger')
                          AND coalesce(r.schema, r.identity) <> 'bloomfilter_citus') AS outside_bf,
       string_agg(r.identity, E'\n' ORDER BY r.identity)
         FILTER (WHERE coalesce(r.schema, r.identity) = 'bloomfilter_citus') AS citus_route
FROM pg_depend d, LATERAL pg_identify_object(d.classid, d.objid, 0) r
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter');

-- ---- schema-qualified names, bf not on the search_path ----
SET search_path = public;
SELECT bloom_empty(10);
CREATE TABLE keys (day int, k int);
INSERT INTO keys SELECT g % 3, g FROM generate_series(1, 300) g;

-- bloom: constructors, adding, probing, operators, statistics, I/O
SELECT bf.bloom_contains(bf.bloom_add(bf.bloom_empty(100), 42), 42) AS contains,
       bf.bloom_add_all(bf.bloom_empty_with(1000, 3), ARRAY['a', 'b']) OPERATOR(bf.@>) 'a'::text AS op_contains,
       7 OPERATOR(bf.<@) (bf.bloom_add(bf.bloom_empty(100), 7) OPERATOR(bf.|) bf.bloom_empty(100)) AS op_contained_by,
       (bf.bloom_add(bf.bloom_empty(100), 7) OPERATOR(bf.&) bf.bloom_add(bf.bloom_empty(100), 7))
         OPERATOR(bf.=) bf.bloom_add(bf.bloom_empty(100), 7) AS op_intersect_eq,
       bf.bloom_union(bf.bloom_empty(100), bf.bloom_empty(100)) OPERATOR(bf.<>) bf.bloom_empty(200) AS op_ne,
       bf.bloom_intersect(bf.bloom_empty(100), bf.bloom_empty(100)) OPERATOR(bf.<) bf.bloom_empty(200) AS op_lt;
SELECT round(bf.bloom_cardinality(f)) AS cardinality, bf.bloom_fpp(f) < 0.01 AS fpp_ok,
       i.layout, i.nbits, i.inserted
FROM (SELECT bf.bloom_add_all(bf.bloom_empty(1000), array(SELECT generate_series(1, 100))) f) s,
     LATERAL bf.bloom_info(f) i;
SELECT (bf.bloom_info(bf.bloom_empty(100, 0.01, 'blocked'))).layout AS blocked,
       bf.bloom_matrix_row_bits(bf.bloom_add(bf.bloom_empty_matrix(2, 64, 3, 1), 1)) AS matrix_row_bits,
       bf.bloom_hash(42) = bf.bloom_hash(42::bigint) AS hash_across_int_types;
SELECT f::text::bf.bloom OPERATOR(bf.=) f AS text_roundtrip,
       f::bytea::bf.bloom OPERATOR(bf.=) f AS bytea_roundtrip
FROM (SELECT bf.bloom_add(bf.bloom_empty(10), 1) f) s;

-- bloom aggregates
SELECT bf.bloom_contains(bf.bloom_agg(k), 5) AS agg,
       bf.bloom_contains(bf.bloom_agg(k, 1000, 0.01), 5) AS agg_fixed,
       bf.bloom_contains(bf.bloom_agg(k, 1000, 0.01, 'blocked'), 5) AS agg_layout
FROM keys;
SELECT bf.bloom_contains(bf.bloom_union_agg(f), 5) AS union_agg,
       bf.bloom_intersect_agg(f) OPERATOR(bf.=) bf.bloom_empty(1000) AS intersect_agg_empty
FROM (SELECT bf.bloom_agg(k, 1000, 0.01) f FROM keys WHERE k <= 30 GROUP BY day) s;

-- the operator classes are found by type, whatever the search_path
CREATE TEMP TABLE bloom_days AS SELECT day, bf.bloom_agg(k, 1000, 0.01) f FROM keys GROUP BY day;
INSERT INTO bloom_days SELECT day + 3, f FROM bloom_days;
SELECT count(DISTINCT f) AS distinct_filters,
       (SELECT count(*) FROM (SELECT f FROM bloom_days GROUP BY f) s) AS groups,
       (SELECT count(*) FROM (SELECT f FROM bloom_days UNION SELECT f FROM bloom_days) s) AS union_rows
FROM bloom_days;

-- multibloom
SELECT bf.multibloom_contains(f, 1, 'x'::text) AS contains,
       bf.multibloom_contains(f, NULL::int, 'x'::text) AS wildcard,
       bf.bloom_contains(bf.multibloom_attribute(f, 1), 1) AS attribute,
       (bf.multibloom_info(f)).nattrs,
       (f OPERATOR(bf.|) f) OPERATOR(bf.=) bf.multibloom_union(f, f) AS op_union_eq,
       f::text::bf.multibloom OPERATOR(bf.=) f AS text_roundtrip,
       f::bytea::bf.multibloom OPERATOR(bf.<>) bf.multibloom_empty(2, 100) AS bytea_ne
FROM (SELECT bf.multibloom_add(bf.multibloom_empty(2, 100), 1, 'x'::text) f) s;

-- multibloom aggregates
SELECT bf.multibloom_contains(bf.multibloom_agg(day, k), 1, 1) AS agg,
       bf.multibloom_contains(bf.multibloom_agg_fixed(1000, 0.01, day, k), 1, 1) AS agg_fixed,
       bf.multibloom_agg_fixed(1000, 0.01, day, k)
         OPERATOR(bf.=) bf.multibloom_agg_sized(1000, 0.01, day, k) AS deprecated_alias
FROM keys;
SELECT bf.multibloom_contains(bf.multibloom_union_agg(f), 2, 5) AS union_agg,
       count(DISTINCT f) AS distinct_filters
FROM (SELECT bf.multibloom_agg_fixed(1000, 0.01, day, k) f FROM keys GROUP BY day) s;

-- partition filters and summaries (their queries name the extension's
-- schema, so the caller's search_path does not matter)
CREATE TABLE parted (day int, k int) PARTITION BY LIST (day);
CREATE TABLE parted_0 PARTITION OF parted FOR VALUES IN (0);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES IN (1, 2);
INSERT INTO parted SELECT day, k FROM keys;
SELECT partition, bf.bloom_contains(filter, 3) AS has_3, bf.bloom_contains(filter, 4) AS has_4
FROM bf.bloom_partition_filters('parted', 'k', 1000) ORDER BY partition::text;
CREATE TABLE summary (day int PRIMARY KEY, filter bf.bloom);
SELECT bf.bloom_summary_refresh('summary', 'keys', 'day', 'k', 1000) AS buckets;
CREATE TRIGGER keep_summary AFTER INSERT ON keys REFERENCING NEW TABLE AS bloom_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION bf.bloom_summary_trigger('public.summary', 'day', 'k', 1000, 0.01);
INSERT INTO keys VALUES (1, 1000);
SELECT day, bf.bloom_contains(filter, 1000) AS has_1000, bf.bloom_contains(filter, 4) AS has_4
FROM summary ORDER BY day;

-- ---- the same families through the search_path ----
SET search_path = public, bf;
SELECT bloom_contains(bloom_add(bloom_empty(100), 42), 42) AS contains,
       bloom_add(bloom_empty(100), 7) @> 7 AS op_contains,
       7 <@ (bloom_add(bloom_empty(100), 7) | bloom_empty(100)) AS op_contained_by,
       (bloom_empty(100) & bloom_empty(100)) = bloom_empty(100) AS op_intersect_eq,
       (bloom_info(bloom_empty(100, 0.01, 'matrix'))).layout AS matrix,
       'AQADAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAD//////////wAAAAAAAAAAAAAAAAAAAAA='::bloom
         = bloom_empty_with(1, 1) AS text_input;
SELECT bloom_contains(bloom_agg(k), 5) AS agg FROM keys;
SELECT bloom_contains(bloom_union_agg(f), 5) AS union_agg, count(DISTINCT f) AS distinct_filters
FROM (SELECT bloom_agg(k, 1000, 0.01) f FROM keys GROUP BY day) s;
SELECT multibloom_contains(multibloom_agg(day, k), 1, 1) AS multibloom_agg,
       multibloom_contains(multibloom_agg_fixed(1000, 0.01, day, k), 1, 1) AS multibloom_agg_fixed,
       multibloom_contains(multibloom_union_agg(multibloom_add(multibloom_empty(2, 10), day, k)), 1, 1) AS union_agg
FROM keys;
SELECT count(*) AS partition_filters FROM bloom_partition_filters('parted', 'k', 1000);
SELECT bloom_summary_refresh('summary', 'keys', 'day', 'k', 1000) AS buckets;
DROP TABLE keys, parted, summary, bloom_days;

-- a schema whose name must be quoted, in the queries the partition and
-- summary functions build too
RESET search_path;
DROP EXTENSION bloomfilter;
CREATE SCHEMA "Bloom Filters";
CREATE EXTENSION bloomfilter SCHEMA "Bloom Filters";
CREATE TABLE keys (day int, k int) PARTITION BY LIST (day);
CREATE TABLE keys_0 PARTITION OF keys FOR VALUES IN (0);
CREATE TABLE keys_1 PARTITION OF keys FOR VALUES IN (1, 2);
INSERT INTO keys SELECT g % 3, g FROM generate_series(1, 300) g;
SELECT partition, "Bloom Filters".bloom_contains(filter, 4) AS has_4
FROM "Bloom Filters".bloom_partition_filters('keys', 'k', 1000) ORDER BY partition::text;
CREATE TABLE summary (day int PRIMARY KEY, filter "Bloom Filters".bloom);
SELECT "Bloom Filters".bloom_summary_refresh('summary', 'keys', 'day', 'k', 1000) AS buckets;
SELECT day, "Bloom Filters".bloom_contains(filter, 4) AS has_4 FROM summary ORDER BY day;
SELECT count(*) AS distinct_filters FROM (SELECT DISTINCT filter FROM summary) s;

\c :regress_db
DROP DATABASE regress_bloomfilter_schema;
