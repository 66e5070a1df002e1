-- Runtime join filters (src/joinfilter/, doc/join_filters.md): a hash
-- join's build-side keys in a filter that drops outer rows before they
-- reach the join.  Each query returns the same rows with
-- bloomfilter.join_filter on and off (jf_same), and EXPLAIN shows where the
-- filters were built and applied, and what they removed.
SET client_min_messages = warning;
LOAD 'bloomfilter';
SET max_parallel_workers_per_gather = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET enable_memoize = off;
-- the sections before 15 test where the filters go and that they never
-- change a result; their hash tables are small, so the rule on the hash
-- table's size (section 15) is off until then
SET bloomfilter.join_filter_min_hash_bytes = 0;

CREATE TABLE jf_fact (id int, k int, s text, v text);
INSERT INTO jf_fact
SELECT g, CASE WHEN g % 101 = 0 THEN NULL ELSE g % 10000 END,
       CASE WHEN (g / 10000) % 2 = 0 THEN 'key' ELSE 'KEY' END || (g % 10000),
       'v' || g
FROM generate_series(1, 60000) g;
CREATE TABLE jf_dim (k bigint, n numeric, s text, tier text);
INSERT INTO jf_dim
SELECT g, g, 'key' || g, CASE WHEN g % 500 = 0 THEN 'gold' WHEN g % 3 = 0 THEN 'silver' ELSE 'plain' END
FROM generate_series(1, 10000) g;
INSERT INTO jf_dim VALUES (NULL, NULL, NULL, 'gold');
ANALYZE jf_fact, jf_dim;

-- the rows of a query with the setting on or off, sorted, as text
CREATE FUNCTION jf_rows(q text, filter boolean) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	r text[];
	was text := current_setting('bloomfilter.join_filter');
BEGIN
	PERFORM set_config('bloomfilter.join_filter', filter::text, false);
	EXECUTE format('SELECT coalesce(array_agg(x::text ORDER BY x::text), ''{}'') FROM (%s) x', q)
		INTO r;
	PERFORM set_config('bloomfilter.join_filter', was, false);
	RETURN r;
END $$;

-- "N rows, same" if the rows are the same either way
CREATE FUNCTION jf_same(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r_on text[] := jf_rows(q, true);
	r_off text[] := jf_rows(q, false);
BEGIN
	RETURN format('%s rows, %s', cardinality(r_off),
				  CASE WHEN r_on = r_off THEN 'same' ELSE 'DIFFERENT' END);
END $$;

-- EXPLAIN ANALYZE with the filters on, without the lines that vary by
-- major or run
CREATE FUNCTION jf_plan(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	SET LOCAL bloomfilter.join_filter = on;
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
		-- PostgreSQL 18 shows rows per loop with two decimals: whole
		-- numbers as before, a fraction (of several loops) not at all
		line := regexp_replace(line, 'rows=([0-9]+)\.00 ', 'rows=\1 ');
		line := regexp_replace(line, 'rows=[0-9.]+ (loops=([2-9]|[1-9][0-9]+)\))', '\1');
		IF line ~ 'Buckets:' THEN
			line := regexp_replace(line, 'Buckets:.*Batches: ([0-9]+).*',
								   'Batches: ' || CASE WHEN (regexp_match(line, 'Batches: ([0-9]+)'))[1]::int > 1
												  THEN 'several' ELSE '1' END);
		END IF;
		CONTINUE WHEN line ~ 'Memory Usage|Peak Memory';
		RETURN NEXT line;
	END LOOP;
END $$;

-- only the lines of the filters: where built, where applied, what removed
CREATE FUNCTION jf_filters(q text) RETURNS SETOF text
LANGUAGE sql AS $$
	SELECT l FROM jf_plan(q) l
	WHERE l ~ 'JoinFilter|Runtime Filter|Batches|Join  |Join \(|Semi|Anti'
$$;

-- 1. inner join, cross-type keys (int4 = int8)
SELECT * FROM jf_plan($$SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'gold'$$);
SELECT jf_same($$SELECT f.id, d.k FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'gold'$$);
-- the setting off: no filter
SET bloomfilter.join_filter = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'gold';
RESET bloomfilter.join_filter;

-- 2. semi joins: IN and EXISTS
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f WHERE f.k IN (SELECT k FROM jf_dim WHERE tier = 'gold')$$);
SELECT jf_same($$SELECT f.id FROM jf_fact f WHERE f.k IN (SELECT k FROM jf_dim WHERE tier = 'gold')$$);
SELECT jf_same($$SELECT f.id FROM jf_fact f WHERE EXISTS (SELECT FROM jf_dim d WHERE d.k = f.k AND d.tier = 'gold')$$);

-- 3. right join: the build side is preserved, the outer side filtered
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f RIGHT JOIN (SELECT * FROM jf_dim WHERE tier = 'gold') d ON f.k = d.k$$);
SELECT jf_same($$SELECT f.id, d.k FROM jf_fact f RIGHT JOIN (SELECT * FROM jf_dim WHERE tier = 'gold') d ON f.k = d.k$$);

-- 4. left, full and anti joins keep unmatched outer rows: declined
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f LEFT JOIN (SELECT * FROM jf_dim WHERE tier = 'gold') d ON f.k = d.k$$);
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f FULL JOIN (SELECT * FROM jf_dim WHERE tier = 'gold') d ON f.k = d.k$$);
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f WHERE NOT EXISTS (SELECT FROM jf_dim d WHERE d.k = f.k AND d.tier = 'gold')$$);
SELECT jf_same($$SELECT f.id, d.k FROM jf_fact f LEFT JOIN (SELECT * FROM jf_dim WHERE tier = 'gold') d ON f.k = d.k$$);
SELECT jf_same($$SELECT f.id FROM jf_fact f WHERE NOT EXISTS (SELECT FROM jf_dim d WHERE d.k = f.k AND d.tier = 'gold')$$);

-- 5. a star join, the fact table outer in both joins: the filter of the
-- upper join's dimension goes down through the lower join to the fact scan
SET join_collapse_limit = 1;
SELECT * FROM jf_filters($$SELECT count(*) FROM (jf_fact f JOIN jf_dim d1 ON f.k = d1.k)
	JOIN jf_dim d2 ON f.id = d2.k WHERE d1.tier <> 'plain' AND d2.tier = 'gold'$$);
SELECT jf_same($$SELECT f.id, d1.k, d2.k FROM (jf_fact f JOIN jf_dim d1 ON f.k = d1.k)
	JOIN jf_dim d2 ON f.id = d2.k WHERE d1.tier <> 'plain' AND d2.tier = 'gold'$$);
-- a volatile function in the lower join: the upper filter stays above it
SELECT * FROM jf_filters($$SELECT count(*) FROM (jf_fact f JOIN jf_dim d1 ON f.k = d1.k AND f.id > random() * d1.k * 0 - 1)
	JOIN jf_dim d2 ON f.id = d2.k WHERE d1.tier <> 'plain' AND d2.tier = 'gold'$$);
SELECT jf_same($$SELECT f.id, d1.k, d2.k FROM (jf_fact f JOIN jf_dim d1 ON f.k = d1.k AND f.id > random() * d1.k * 0 - 1)
	JOIN jf_dim d2 ON f.id = d2.k WHERE d1.tier <> 'plain' AND d2.tier = 'gold'$$);
RESET join_collapse_limit;

-- 6. a join that spills: several batches, the same rows
SET work_mem = '64kB';
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'silver'$$);
SELECT jf_same($$SELECT f.id, d.k FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'silver'$$);
RESET work_mem;

-- 7. NULL keys on both sides join nothing; the filter passes them on
SELECT jf_same($$SELECT f.id, d.k FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'gold' OR f.k IS NULL$$);
SELECT jf_same($$SELECT f.id FROM jf_fact f WHERE f.k IN (SELECT k FROM jf_dim WHERE tier = 'gold' OR k IS NULL)$$);

-- 8. an empty build side, an empty outer side
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'none'$$);
SELECT jf_same($$SELECT f.id FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'none'$$);
SELECT jf_same($$SELECT f.id FROM jf_fact f RIGHT JOIN (SELECT * FROM jf_dim WHERE tier = 'gold') d ON f.k = d.k WHERE f.id < 0 OR f.id IS NULL$$);
SELECT jf_same($$SELECT f.id FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'gold' AND f.id < 0$$);

-- 9. other key types: numeric = int (the outer key is a cast, not a
-- column: declined), text in C and in a nondeterministic collation
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.n WHERE d.tier = 'gold'$$);
SELECT jf_same($$SELECT f.id, d.n FROM jf_fact f JOIN jf_dim d ON f.k = d.n WHERE d.tier = 'gold'$$);
SELECT jf_same($$SELECT f.id, d.s FROM jf_fact f JOIN jf_dim d ON f.s = d.s COLLATE "C" WHERE d.tier = 'gold'$$);
CREATE COLLATION jf_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.s = d.s COLLATE jf_ci WHERE d.tier = 'gold'$$);
-- 'KEY500' and 'key500' are equal under jf_ci: the filter keeps both
SELECT jf_same($$SELECT f.id, f.s, d.s FROM jf_fact f JOIN jf_dim d ON f.s = d.s COLLATE jf_ci WHERE d.tier = 'gold'$$);
SET bloomfilter.join_filter = on;
SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.s = d.s COLLATE jf_ci WHERE d.tier = 'gold' AND f.s LIKE 'KEY%';
RESET bloomfilter.join_filter;

-- 10. a partitioned outer side: a probe on each leaf of the Append
CREATE TABLE jf_part (id int, k int) PARTITION BY RANGE (id);
CREATE TABLE jf_part_1 PARTITION OF jf_part FOR VALUES FROM (0) TO (20000);
CREATE TABLE jf_part_2 PARTITION OF jf_part FOR VALUES FROM (20000) TO (40000);
CREATE TABLE jf_part_3 PARTITION OF jf_part FOR VALUES FROM (40000) TO (60001);
INSERT INTO jf_part SELECT id, k FROM jf_fact;
ANALYZE jf_part;
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_part p JOIN jf_dim d ON p.k = d.k WHERE d.tier = 'gold'$$);
SELECT jf_same($$SELECT p.id, d.k FROM jf_part p JOIN jf_dim d ON p.k = d.k WHERE d.tier = 'gold'$$);

-- 11. rescans: the hash join in a subplan or LATERAL, its build side with
-- a changing parameter (rebuilt each time) or without (kept)
SELECT jf_same($$SELECT o.x, (SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k
	WHERE d.tier = 'gold' AND d.k > o.x) FROM (VALUES (0), (3000), (6000), (9000), (0)) o(x)$$);
SELECT jf_same($$SELECT o.x, (SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k
	WHERE d.tier = 'gold' AND f.id > o.x) FROM (VALUES (0), (30000), (50000), (0)) o(x)$$);
SELECT jf_same($$SELECT o.x, s.c FROM (VALUES (1000), (2000), (5000), (1000)) o(x),
	LATERAL (SELECT count(*) c FROM jf_fact f JOIN jf_dim d ON f.k = d.k
	         WHERE d.tier <> 'plain' AND d.k % o.x = 0) s$$);
SET work_mem = '64kB';
SELECT jf_same($$SELECT o.x, (SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k
	WHERE d.tier = 'silver' AND d.k > o.x) FROM (VALUES (0), (3000), (9000), (0)) o(x)$$);
SELECT jf_same($$SELECT o.x, (SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k
	WHERE d.tier = 'silver' AND f.id > o.x) FROM (VALUES (0), (30000), (0)) o(x)$$);
RESET work_mem;
SELECT * FROM jf_filters($$SELECT o.x, (SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k
	WHERE d.tier = 'gold' AND d.k > o.x) FROM (VALUES (0), (3000), (6000)) o(x)$$);
-- an empty build (no keys below 1), then a rebuild: the same counts.  The
-- join fetches no outer row before this rebuild (its first run found the
-- outer side non-empty); 571_join_filter_rescan forces the order in which
-- it does, and a stale filter would drop rows
SET bloomfilter.join_filter = on;
SELECT o.x, (SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.k < o.x)
FROM (VALUES (1), (10001)) o(x);
RESET bloomfilter.join_filter;
SELECT jf_same($$SELECT o.x, (SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.k < o.x)
FROM (VALUES (1), (10001)) o(x)$$);

-- 12. a prepared statement, custom and generic plans
SET bloomfilter.join_filter = on;
PREPARE jf_p(text, int) AS
	SELECT count(*), sum(f.id) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = $1 AND d.k > $2;
SET plan_cache_mode = force_custom_plan;
EXECUTE jf_p('gold', 0);
EXECUTE jf_p('gold', 5000);
SET plan_cache_mode = force_generic_plan;
EXECUTE jf_p('gold', 0);
EXECUTE jf_p('gold', 5000);
EXECUTE jf_p('silver', 9000);
EXPLAIN (COSTS OFF) EXECUTE jf_p('gold', 0);
SET bloomfilter.join_filter = off;
EXECUTE jf_p('gold', 0);
EXECUTE jf_p('gold', 5000);
EXECUTE jf_p('silver', 9000);
RESET plan_cache_mode;
DEALLOCATE jf_p;

-- 13. cursors: two open at once, FETCH backward, WHERE CURRENT OF with FOR UPDATE
SET bloomfilter.join_filter = on;
BEGIN;
DECLARE jf_c1 SCROLL CURSOR FOR
	SELECT f.id, d.k FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'gold' ORDER BY f.id;
DECLARE jf_c2 CURSOR FOR
	SELECT f.id, d.k FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'gold' AND d.k > 8000 ORDER BY f.id;
FETCH 3 FROM jf_c1;
FETCH 2 FROM jf_c2;
FETCH BACKWARD 2 FROM jf_c1;
FETCH 2 FROM jf_c2;
FETCH LAST FROM jf_c1;
CLOSE jf_c1;
CLOSE jf_c2;
DECLARE jf_c3 CURSOR FOR
	SELECT f.id, f.v FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'gold' FOR UPDATE OF f;
FETCH 1 FROM jf_c3;
UPDATE jf_fact SET v = 'updated' WHERE CURRENT OF jf_c3;
FETCH 1 FROM jf_c3;
UPDATE jf_fact SET v = 'updated' WHERE CURRENT OF jf_c3;
SELECT count(*) FROM jf_fact WHERE v = 'updated';
ROLLBACK;
RESET bloomfilter.join_filter;

-- 14. the run-time rule: a filter that passes nearly every row is switched off
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f JOIN (SELECT * FROM jf_dim LIMIT 4900) d ON f.k = d.k$$);
-- the plan-time rule: a build side not much smaller than the outer side
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE f.id < 3000$$);
SET bloomfilter.join_filter_max_build_ratio = 10;
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE f.id < 3000$$);
RESET bloomfilter.join_filter_max_build_ratio;

-- 15. the plan-time rule on the hash table's size: a hash table estimated
-- below bloomfilter.join_filter_min_hash_bytes (1MB) and in one batch, of
-- a join expected to keep more than 30% of its outer rows, gets no filter
RESET bloomfilter.join_filter_min_hash_bytes;
-- 'silver' keeps a third of jf_fact's rows against a hash table of about
-- 160 kB: declined
SET bloomfilter.join_filter = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'silver';
RESET bloomfilter.join_filter;
SELECT jf_same($$SELECT f.id, d.k FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'silver'$$);
-- 'gold' keeps 0.2% of them: kept, a small hash table or not
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'gold'$$);
-- a semi join keeping a third: declined
SET bloomfilter.join_filter = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM jf_fact f WHERE f.k IN (SELECT k FROM jf_dim WHERE tier = 'silver');
RESET bloomfilter.join_filter;
SELECT jf_same($$SELECT f.id FROM jf_fact f WHERE f.k IN (SELECT k FROM jf_dim WHERE tier = 'silver')$$);
-- the same join, its hash table counted as large (above a 16 kB limit): kept
SET bloomfilter.join_filter_min_hash_bytes = '16kB';
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'silver'$$);
SELECT jf_same($$SELECT f.id, d.k FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'silver'$$);
RESET bloomfilter.join_filter_min_hash_bytes;
-- a join that spills (several batches) is not in cache: kept
SET work_mem = '64kB';
SELECT * FROM jf_filters($$SELECT count(*) FROM jf_fact f JOIN jf_dim d ON f.k = d.k WHERE d.tier = 'silver'$$);
RESET work_mem;
SHOW bloomfilter.join_filter_min_hash_bytes;
