-- Benchmark data (bench/server/run.sh sets :rows, :mid (10^7) and :big
-- (10^8), the numbers of keys of the filters).
--
-- Row g of each table has key hashint8extended(g, 1) (random bigints) or
-- md5(g::text).  A filter of n keys holds the keys of g in
-- [rows/2 + 1, rows/2 + n]: the 10^5-key filter matches 1% of the rows,
-- the 10^7- and 10^8-key filters half of them.  The semijoin's inner
-- tables hold exactly the keys of the filter of the same size.
\set ON_ERROR_STOP on
SET jit = off;
SET max_parallel_workers_per_gather = 2;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
CREATE EXTENSION IF NOT EXISTS bloom;
CREATE EXTENSION IF NOT EXISTS pg_prewarm;
CREATE EXTENSION IF NOT EXISTS hll;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;

CREATE TABLE t_int AS SELECT hashint8extended(g, 1) AS k FROM generate_series(1, :rows) g;
CREATE TABLE t_text AS SELECT md5(g::text) AS k FROM generate_series(1, :rows) g;
CREATE TABLE small_int_1e5 AS
  SELECT hashint8extended(g, 1) AS k FROM generate_series(:rows / 2 + 1, :rows / 2 + 100000) g;
CREATE TABLE small_text_1e5 AS
  SELECT md5(g::text) AS k FROM generate_series(:rows / 2 + 1, :rows / 2 + 100000) g;
CREATE TABLE small_int_1e7 AS
  SELECT hashint8extended(g, 1) AS k FROM generate_series(:rows / 2 + 1, :rows / 2 + :mid) g;
CREATE TABLE small_text_1e7 AS
  SELECT md5(g::text) AS k FROM generate_series(:rows / 2 + 1, :rows / 2 + :mid) g;
-- point lookups: 10 present in the table and in the 10^7-key filter, 10 in neither
CREATE TABLE lookup_int AS
  SELECT hashint8extended(g, 1) AS v FROM generate_series(:rows / 2 + 1, :rows / 2 + 10) g
  UNION ALL SELECT hashint8extended(g, 1) FROM generate_series(3 * :rows, 3 * :rows + 9) g;
CREATE TABLE lookup_text AS
  SELECT md5(g::text) AS v FROM generate_series(:rows / 2 + 1, :rows / 2 + 10) g
  UNION ALL SELECT md5(g::text) FROM generate_series(3 * :rows, 3 * :rows + 9) g;
VACUUM ANALYZE t_int, t_text, small_int_1e5, small_text_1e5, small_int_1e7, small_text_1e7,
  lookup_int, lookup_text;

-- Filters: built by the fixed-shape aggregate when this build has it (over
-- a set-returning function in the target list, which is not materialized),
-- else by bloom_add_all in chunks of 4*10^6 keys.
CREATE FUNCTION bench_build(kind text, first bigint, n bigint, layout text) RETURNS bloom
LANGUAGE plpgsql AS $$
DECLARE
  f bloom := bloom_empty(n, 0.01, layout);
  chunk bigint := 4000000;
  s bigint := first;
  key text := CASE kind WHEN 'int' THEN 'hashint8extended(g, 1)' ELSE 'md5(g::text)' END;
BEGIN
  IF to_regprocedure('bloom_agg(anyelement, bigint, float8, text)') IS NOT NULL THEN
    EXECUTE format('SELECT bloom_agg(%s, $1, 0.01, $2) FROM (SELECT generate_series($3, $4) AS g) s', key)
      INTO f USING n, layout, first, first + n - 1;
    RETURN f;
  END IF;
  WHILE s < first + n LOOP
    EXECUTE format('SELECT bloom_add_all($1, ARRAY(SELECT %s FROM generate_series($2, $3) g))', key)
      INTO f USING f, s, least(s + chunk, first + n) - 1;
    s := s + chunk;
  END LOOP;
  RETURN f;
END $$;

CREATE TABLE filters (name text PRIMARY KEY, f bloom);
INSERT INTO filters
SELECT kind || '_' || label || '_' || layout, bench_build(kind, :rows / 2 + 1, n, layout)
FROM (VALUES ('1e5', 100000), ('1e7', :mid)) s(label, n),
     (VALUES ('int'), ('text')) k(kind),
     (VALUES ('classic'), ('blocked')) l(layout);
-- the filter a remote server receives in the batched-scan targets
-- (bench/server/run.sh)
INSERT INTO filters
SELECT 'int_1e6_' || layout, bench_build('int', :rows / 2 + 1, 1000000, layout)
FROM (VALUES ('classic'), ('blocked')) l(layout);
-- (BENCH_BIG=0 leaves the largest filters out)
INSERT INTO filters
SELECT 'int_1e8_' || layout, bench_build('int', :rows / 2 + 1, :big, layout)
FROM (VALUES ('classic'), ('blocked')) l(layout) WHERE :big > 0;
SELECT name, i.nbits, i.nhashes, pg_size_pretty(i.bytes::bigint) AS size,
       round(i.fill::numeric, 3) AS fill, i.fpp
FROM filters, LATERAL bloom_info(f) i ORDER BY name;
