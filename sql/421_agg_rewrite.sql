-- bloomfilter.distributed_aggregates: the planner rewrites bloom_agg and
-- multibloom_agg into their hashed twins (doc/aggregates.md, "On Citus: the
-- rewrite").  With the setting on it rewrites every statement, so each form
-- is compared here with the plain plan, without Citus.
LOAD 'bloomfilter';
SET bloomfilter.distributed_aggregates = on;

CREATE TABLE rw (g int, i int, t text COLLATE "C", n numeric, d date, u text);
INSERT INTO rw
SELECT x % 5, CASE WHEN x % 17 = 0 THEN NULL ELSE x END,
       'v' || (x % 300), (x % 250) / 7.0, DATE '2024-01-01' + x % 90,
       CASE WHEN x % 11 = 0 THEN NULL ELSE upper('w' || x % 40) END
FROM generate_series(1, 3000) x;
INSERT INTO rw VALUES (9, NULL, NULL, NULL, NULL, NULL);
ANALYZE rw;

-- Runs q under off and under on: its rows (as text, in order) must be the
-- same, and the plan under on must call a hashed twin (or must not, for the
-- calls the rewrite leaves alone).
CREATE FUNCTION rw_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	plain text;
	rewritten text;
	nrows bigint;
	line text;
	twin boolean := false;
	setting text := current_setting('bloomfilter.distributed_aggregates');
BEGIN
	PERFORM set_config('bloomfilter.distributed_aggregates', 'off', false);
	EXECUTE format('SELECT string_agg(r::text, E''\n'' ORDER BY r::text), count(*) FROM (%s) r', q)
		INTO plain, nrows;
	PERFORM set_config('bloomfilter.distributed_aggregates', 'on', false);
	EXECUTE format('SELECT string_agg(r::text, E''\n'' ORDER BY r::text) FROM (%s) r', q)
		INTO rewritten;
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
		twin := twin OR line LIKE '%\_hashed(%';
	END LOOP;
	PERFORM set_config('bloomfilter.distributed_aggregates', setting, false);
	RETURN format('%s, %s rows, %s',
				  CASE WHEN plain IS NOT DISTINCT FROM rewritten THEN 'same' ELSE 'DIFFERENT' END,
				  nrows, CASE WHEN twin THEN 'rewritten' ELSE 'left alone' END);
END $$;

-- The rewritten calls, as EXPLAIN shows them.  A fixed shape of constants
-- is wrapped in COALESCE with the empty filter of that shape (what the
-- aggregate returns over no rows, which Citus's combine cannot know).
EXPLAIN (VERBOSE, COSTS OFF)
SELECT bloom_agg(i), bloom_agg(t, 20, 0.1), bloom_agg(n, 20, 0.1, 'blocked') FROM rw;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT multibloom_agg(i, t), multibloom_agg_fixed(4, 0.5, i), multibloom_agg_sized(4, 0.5, d) FROM rw;
-- grouped: no COALESCE (every group has a row), except under FILTER
EXPLAIN (VERBOSE, COSTS OFF)
SELECT g, bloom_agg(i, 20, 0.1), bloom_agg(i, 20, 0.1) FILTER (WHERE i > 2990) FROM rw GROUP BY g;

-- every form, several types, NULLs: the same rows as the plain plan
SELECT rw_check('SELECT bloom_agg(i) FROM rw');
SELECT rw_check('SELECT bloom_agg(t), bloom_agg(n), bloom_agg(d), bloom_agg(u) FROM rw');
SELECT rw_check('SELECT bloom_agg(i, 1000, 0.01), bloom_agg(t, 1000, 0.01), bloom_agg(n::float8, 500, 0.02) FROM rw');
SELECT rw_check($$SELECT bloom_agg(i, 1000, 0.01, 'blocked'), bloom_agg(t, 1000, 0.01, 'matrix'), bloom_agg(d, 100, 0.1, 'classic') FROM rw$$);
SELECT rw_check('SELECT multibloom_agg(i), multibloom_agg(i, t, n), multibloom_agg(u, d, g, i) FROM rw');
SELECT rw_check('SELECT multibloom_agg_fixed(1000, 0.01, i, t), multibloom_agg_sized(500, 0.05, n, u, d) FROM rw');
-- a value of a type cast in place, a domain, an expression, a constant
CREATE DOMAIN rw_dom AS int CHECK (VALUE > 0);
SELECT rw_check('SELECT bloom_agg(i::int8), bloom_agg(i::rw_dom), bloom_agg(i * 2 + 1, 200, 0.1), bloom_agg(42::int2) FROM rw');
-- collations: the call's for bloom_agg, each value's own for multibloom_agg
SELECT rw_check($$SELECT bloom_agg(t COLLATE "POSIX"), bloom_agg(u, 100, 0.1), multibloom_agg(t, u COLLATE "C", 'x'::text) FROM rw$$);
-- no rows: the empty filter of the shape (COALESCE), or the empty data-sized one
SELECT rw_check('SELECT bloom_agg(i), bloom_agg(i, 100, 0.01), bloom_agg(t, 100, 0.01, ''blocked''), multibloom_agg(i, t), multibloom_agg_fixed(100, 0.01, i, t) FROM rw WHERE false');
SELECT rw_check('SELECT g, bloom_agg(i), bloom_agg(i, 100, 0.01), multibloom_agg_fixed(100, 0.01, i) FROM rw WHERE false GROUP BY g');
SELECT bloom_agg(i, 100, 0.01) = bloom_empty(100, 0.01) AS empty_fixed,
       multibloom_agg_fixed(100, 0.01, i, t) = multibloom_empty(2, 100, 0.01) AS empty_multi
FROM rw WHERE false;
-- only NULL values
SELECT rw_check('SELECT bloom_agg(i), bloom_agg(i, 100, 0.01), multibloom_agg(i, t) FROM rw WHERE g = 9');
-- grouped, FILTER, HAVING, ORDER BY an aggregate
SELECT rw_check('SELECT g, bloom_agg(i), bloom_agg(t, 100, 0.01), multibloom_agg(i, n) FROM rw GROUP BY g');
SELECT rw_check('SELECT g, bloom_agg(i, 100, 0.01) FILTER (WHERE i > 2990), bloom_agg(t) FILTER (WHERE g > 100) FROM rw GROUP BY g');
SELECT rw_check('SELECT g FROM rw GROUP BY g HAVING bloom_contains(bloom_agg(i, 1000, 0.01), 7)');
SELECT rw_check('SELECT g, bloom_agg(t, 100, 0.01) AS f FROM rw GROUP BY g ORDER BY bloom_agg(t, 100, 0.01), g');
SELECT rw_check('SELECT g, bloom_agg(i) FROM rw GROUP BY ROLLUP (g)');
-- sub-selects, CTEs, an aggregate of the outer level inside a sub-select
SELECT rw_check('SELECT g, (SELECT bloom_agg(i, 100, 0.01) FROM rw r2 WHERE r2.g = r1.g) FROM (SELECT DISTINCT g FROM rw) r1');
SELECT rw_check('WITH f AS (SELECT g, bloom_agg(t) AS f FROM rw GROUP BY g) SELECT g, bloom_contains(f, ''v3''::text) FROM f');
SELECT rw_check('SELECT s.f, x.b FROM (SELECT multibloom_agg(i, t) AS f FROM rw) s, LATERAL (SELECT bloom_agg(r.i + length(s.f::text), 100, 0.01) AS b FROM rw r) x');
SELECT rw_check('SELECT (SELECT bloom_agg(r1.i, 64, 0.1) FROM rw r2 LIMIT 1) FROM rw r1');
SELECT rw_check('SELECT g FROM rw WHERE i IN (SELECT max(i) FROM rw) OR bloom_contains((SELECT bloom_agg(i) FROM rw WHERE g = 1), i)');
-- a bloom_agg whose result is aggregated again
SELECT rw_check('SELECT bloom_union_agg(f) FROM (SELECT bloom_agg(i, 100, 0.01) f FROM rw GROUP BY g) s');

-- left alone: DISTINCT or ORDER BY inside, an explicit VARIADIC array, an
-- untyped literal; non-constant shapes are rewritten without COALESCE
SELECT rw_check('SELECT bloom_agg(DISTINCT i) FROM rw');
SELECT rw_check('SELECT bloom_agg(i ORDER BY i) FROM rw');
SELECT rw_check('SELECT multibloom_agg(VARIADIC ARRAY[i, g]) FROM rw');
SELECT rw_check($$SELECT multibloom_agg('x', i) FROM rw$$);
-- (DISTINCT and ORDER BY, left alone above, are not shown: since
-- PostgreSQL 16 their plan sorts below the aggregate)
EXPLAIN (VERBOSE, COSTS OFF)
SELECT multibloom_agg(VARIADIC ARRAY[i, g]), multibloom_agg('x', i), bloom_agg(i, g::bigint, 0.1) FROM rw;
SELECT rw_check('SELECT g, bloom_agg(i, g::bigint + 10, 0.1) FROM rw GROUP BY g');
-- errors stay the same errors
SET bloomfilter.distributed_aggregates = off;
SELECT bloom_agg(i, 0, 0.1) FROM rw;
SELECT bloom_agg(i, 10, 0.1, 'nosuch') FROM rw;
SELECT bloom_agg(i, g::bigint, 0.1) FROM rw;
SET bloomfilter.distributed_aggregates = on;
SELECT bloom_agg(i, 0, 0.1) FROM rw;
SELECT bloom_agg(i, 10, 0.1, 'nosuch') FROM rw;
SELECT bloom_agg(i, g::bigint, 0.1) FROM rw;
-- an invalid constant shape is not wrapped: planning does not fail
EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(i, 0, 0.1), multibloom_agg_fixed(10, 1.5, i) FROM rw;
-- the fallbacks over no rows are what the aggregates give there
SET bloomfilter.distributed_aggregates = off;
SELECT multibloom_agg_hashed_empty(2) = (SELECT multibloom_agg(i, t) FROM rw WHERE false) AS same_2,
       multibloom_agg_hashed_empty(1) = (SELECT multibloom_agg(d) FROM rw WHERE false) AS same_1,
       multibloom_agg_hashed_empty(2) = (SELECT multibloom_agg(i) FROM rw WHERE false) AS same_other,
       bloom_agg_hashed_empty(20, 0.1) = (SELECT bloom_agg(i, 20, 0.1) FROM rw WHERE false) AS same_fixed,
       multibloom_agg_hashed_empty(2, 20, 0.1) = (SELECT multibloom_agg_fixed(20, 0.1, i, t) FROM rw WHERE false) AS same_multi_fixed;
SELECT multibloom_agg_hashed_empty(0);
SELECT multibloom_agg_hashed_empty(33);
SELECT multibloom_agg_hashed_empty(0, 20, 0.1);
SELECT bloom_agg_hashed_empty(0, 0.1);
SELECT bloom_agg_hashed_empty(20, 1.5);
SELECT bloom_agg_hashed_empty(20, 0.1, 'nosuch');
SET bloomfilter.distributed_aggregates = on;

-- prepared statements: custom plans (the parameters are the constants of
-- the COALESCE) and the generic plan (no COALESCE: like the aggregate, the
-- twin cannot build a shape it does not know over no rows)
SET bloomfilter.distributed_aggregates = off;
CREATE TEMP TABLE rw_expected AS
SELECT g, bloom_agg(i, 100, 0.01) AS f, multibloom_agg(i, t) AS m FROM rw GROUP BY g;
SET bloomfilter.distributed_aggregates = on;
PREPARE rw_prep(bigint, float8) AS
SELECT g, bloom_agg(i, $1, $2) AS f, multibloom_agg(i, t) AS m FROM rw GROUP BY g;
PREPARE rw_none(bigint, float8) AS SELECT bloom_agg(i, $1, $2) FROM rw WHERE false;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE rw_none(20, 0.1);
CREATE TEMP TABLE rw_got AS EXECUTE rw_none(20, 0.1);
SELECT bloom_agg = bloom_empty(20, 0.1) AS custom_plan_empty FROM rw_got;
DROP TABLE rw_got;
CREATE TEMP TABLE rw_got AS EXECUTE rw_prep(100, 0.01);
SELECT count(*) AS groups, bool_and(e.f IS NOT DISTINCT FROM r.f AND e.m IS NOT DISTINCT FROM r.m) AS custom_plan_same
FROM rw_expected e JOIN rw_got r USING (g);
DROP TABLE rw_got;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE rw_prep(100, 0.01);
CREATE TEMP TABLE rw_got AS EXECUTE rw_prep(100, 0.01);
SELECT count(*) AS groups, bool_and(e.f IS NOT DISTINCT FROM r.f AND e.m IS NOT DISTINCT FROM r.m) AS generic_plan_same
FROM rw_expected e JOIN rw_got r USING (g);
DROP TABLE rw_got;
CREATE TEMP TABLE rw_got AS EXECUTE rw_none(20, 0.1);
SELECT bloom_agg IS NULL AS generic_plan_null_like_plain FROM rw_got;
DROP TABLE rw_got;
SET bloomfilter.distributed_aggregates = off;
CREATE TEMP TABLE rw_got AS EXECUTE rw_none(20, 0.1);
SELECT bloom_agg IS NULL AS generic_plan_null FROM rw_got;
SET bloomfilter.distributed_aggregates = on;
DROP TABLE rw_got;
RESET plan_cache_mode;
DEALLOCATE rw_prep;
DEALLOCATE rw_none;

-- a parallel plan: partial aggregates of the twins, combined
CREATE TABLE rw_big AS SELECT x % 7 AS g, x AS i, 'k' || x AS t FROM generate_series(1, 200000) x;
ANALYZE rw_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(i, 100000, 0.01), multibloom_agg(i, t) FROM rw_big;
SET bloomfilter.distributed_aggregates = off;
CREATE TEMP TABLE rw_par_plain AS
SELECT bloom_agg(i, 100000, 0.01) AS f, bloom_agg(t) AS a, multibloom_agg(i, t) AS m,
       multibloom_agg_fixed(100000, 0.01, t, i) AS mf FROM rw_big;
CREATE TEMP TABLE rw_par_groups AS
SELECT g, bloom_agg(i, 100000, 0.01) AS f, bloom_agg(t) AS a FROM rw_big GROUP BY g;
SET bloomfilter.distributed_aggregates = on;
CREATE TEMP TABLE rw_par_twin AS
SELECT bloom_agg(i, 100000, 0.01) AS f, bloom_agg(t) AS a, multibloom_agg(i, t) AS m,
       multibloom_agg_fixed(100000, 0.01, t, i) AS mf FROM rw_big;
SELECT p.f::bytea = w.f::bytea AS fixed_same, p.a::bytea = w.a::bytea AS datasized_same, p.m::bytea = w.m::bytea AS multi_same,
       p.mf::bytea = w.mf::bytea AS multi_fixed_same, (bloom_info(w.f)).inserted
FROM rw_par_plain p, rw_par_twin w;
SELECT count(*) AS groups, bool_and(p.f::bytea = w.f::bytea AND p.a::bytea = w.a::bytea) AS groups_same
FROM rw_par_groups p JOIN (SELECT g, bloom_agg(i, 100000, 0.01) AS f, bloom_agg(t) AS a
                           FROM rw_big GROUP BY g) w USING (g);
SELECT rw_check('SELECT g, bloom_agg(i, 100000, 0.01), bloom_agg(t) FROM rw_big GROUP BY g');
DROP TABLE rw_par_plain, rw_par_groups, rw_par_twin;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- off and auto (no Citus here) leave every statement alone
SET bloomfilter.distributed_aggregates = auto;
EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(i), multibloom_agg(i, t) FROM rw;
SET bloomfilter.distributed_aggregates = off;
EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(i), multibloom_agg(i, t) FROM rw;
SET bloomfilter.distributed_aggregates = on;
DROP TABLE rw, rw_big, rw_expected;
DROP FUNCTION rw_check(text);
DROP DOMAIN rw_dom;

-- DROP and CREATE EXTENSION in the same session, in another schema: the
-- aggregates are looked up again.  In a database of its own.
\set regress_db :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS regress_bloomfilter_rewrite;
RESET client_min_messages;
CREATE DATABASE regress_bloomfilter_rewrite;
\c regress_bloomfilter_rewrite
LOAD 'bloomfilter';
SET bloomfilter.distributed_aggregates = on;
CREATE TABLE k (i int);
-- not installed: nothing to rewrite
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(i) FROM k;
CREATE EXTENSION bloomfilter;
EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(i) FROM k;
DROP EXTENSION bloomfilter;
CREATE SCHEMA other;
CREATE EXTENSION bloomfilter SCHEMA other;
EXPLAIN (VERBOSE, COSTS OFF) SELECT other.bloom_agg(i) FROM k;
BEGIN;
DROP EXTENSION bloomfilter;
CREATE EXTENSION bloomfilter;
EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_agg(i) FROM k;
ROLLBACK;
EXPLAIN (VERBOSE, COSTS OFF) SELECT other.bloom_agg(i) FROM k;
\c :regress_db
DROP DATABASE regress_bloomfilter_rewrite;
