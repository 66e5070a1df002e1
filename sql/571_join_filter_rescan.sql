-- Runtime join filters after a rescan (doc/join_filters.md, "When a
-- filter may drop rows"): a probe must not test rows against a filter
-- that is not the complete filter of the build its join is about to use.
--
-- Both cases below force one order of events in PostgreSQL's hash join:
--   1. a scan in which the filter drops every outer row, so that the join
--      sees an empty outer side and keeps hj_OuterNotEmpty false;
--   2. a rescan of the join that must rebuild its hash table;
--   3. because of 1, the join fetches its first outer row BEFORE it
--      rebuilds (its empty-outer check), while the filter still holds
--      what step 1 left in it.
-- A probe that tested that fetch against the filter would drop rows that
-- join under the new build.  Each count below is also compared with the
-- setting off, and the right count is written out.
SET client_min_messages = warning;
LOAD 'bloomfilter';
SET max_parallel_workers_per_gather = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET enable_memoize = off;
-- small tables: every hash join gets its filter
SET bloomfilter.join_filter_min_outer_rows = 0;
SET bloomfilter.join_filter_max_build_ratio = 100;

-- jr_fact: ids 1..30000; ids up to 2000 have keys 1..2000, the others
-- negative keys, which no row of another table has
CREATE TABLE jr_fact (id int, k int);
INSERT INTO jr_fact SELECT g, CASE WHEN g <= 2000 THEN g ELSE -g END
FROM generate_series(1, 30000) g;
-- jr_dim: v = 1 holds one key no fact row has; v = 2 holds keys 1..50
CREATE TABLE jr_dim (k int, v int);
INSERT INTO jr_dim VALUES (100000, 1);
INSERT INTO jr_dim SELECT g, 2 FROM generate_series(1, 50) g;
-- jr_big: keys 1..4000, a hash table that spills at 64kB of work_mem
CREATE TABLE jr_big (k int);
INSERT INTO jr_big SELECT g FROM generate_series(1, 4000) g;
ANALYZE jr_fact, jr_dim, jr_big;

CREATE FUNCTION jr_counts(q text, filter boolean) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	PERFORM set_config('bloomfilter.join_filter', filter::text, true);
	EXECUTE format('SELECT string_agg(x::text, '' '' ORDER BY n) FROM (%s) x', q) INTO r;
	RETURN r;
END $$;

-- the counts with the filters on, and whether they equal those without
CREATE FUNCTION jr_check(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r_on text := jr_counts(q, true);
	r_off text := jr_counts(q, false);
BEGIN
	RETURN r_on || CASE WHEN r_on = r_off THEN ', same' ELSE ', DIFFERENT: off gives ' || r_off END;
END $$;

-- where the filters go, and whether the join spilled
CREATE FUNCTION jr_plan(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	SET LOCAL bloomfilter.join_filter = on;
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		CONTINUE WHEN line !~ 'JoinFilter|Hash Join|Batches|Runtime Filter Rows';
		line := regexp_replace(line, 'Buckets:.*Batches: ([0-9]+).*', 'Batches: \1');
		line := regexp_replace(line, 'Batches: ([2-9]|[0-9]{2,})$', 'Batches: several');
		line := regexp_replace(line, ' *\(actual.*\)', '');
		RETURN NEXT line;
	END LOOP;
END $$;

-- 1. The build side has a parameter (d.v = o.x), so each rescan rebuilds
-- the hash table lazily, when the join next runs.  Row n = 1 (v = 1): the
-- join's first run fetches an outer row before any build, which passes
-- untested, so the join has seen an outer row.  Row n = 2 (v = 1): the
-- filter holds key 100000 only and drops every fact row; the join sees an
-- empty outer side.  Row n = 3 (v = 2): the join fetches its first outer
-- row before it rebuilds for v = 2 (keys 1..50).  That row, tested against
-- the filter of v = 1, would be dropped, and so would every row after it
-- until one passed: fact rows 1..50 join, 50 is the right count.  What
-- keeps it: after its rescan the probe trusts no filter until the next
-- build is complete (the generation rule).
SELECT * FROM jr_plan($$SELECT n, (SELECT count(*) FROM jr_fact f JOIN jr_dim d ON f.k = d.k WHERE d.v = o.x)
	FROM (VALUES (1, 1), (2, 1), (3, 2)) o(n, x)$$);
SELECT jr_check($$SELECT n, (SELECT count(*) FROM jr_fact f JOIN jr_dim d ON f.k = d.k WHERE d.v = o.x)
	FROM (VALUES (1, 1), (2, 1), (3, 2), (4, 2), (5, 1), (6, 2)) o(n, x)$$);

-- 2. The build side has no parameter but the join spills (several
-- batches): a rescan makes the join rescan its Hash node at once, which
-- empties the filter, and rebuild.  Row n = 1: as in 1, an outer row
-- fetched before any build.  Row n = 2: the outer side is the ten ids
-- above 29990, whose keys join nothing, and the filter drops them all (so
-- few rows that no false positive of the filter lets one through); the
-- join sees an empty outer side.  Row n = 3: the join fetches its first outer
-- row before it rebuilds, while the filter is empty and incomplete; tested
-- against it, every fact row would be dropped: 2000 is the right count.
-- What keeps it: the probe trusts only a complete filter (the "complete"
-- check).
SET work_mem = '64kB';
SELECT * FROM jr_plan($$SELECT n, (SELECT count(*) FROM jr_fact f JOIN jr_big b ON f.k = b.k WHERE f.id > o.x)
	FROM (VALUES (1, 29990), (2, 29990), (3, 0)) o(n, x)$$);
SELECT jr_check($$SELECT n, (SELECT count(*) FROM jr_fact f JOIN jr_big b ON f.k = b.k WHERE f.id > o.x)
	FROM (VALUES (1, 29990), (2, 29990), (3, 0), (4, 1000), (5, 29990), (6, 1500)) o(n, x)$$);
RESET work_mem;

-- the same join in one batch reuses its hash table and its filter on a
-- rescan: no early fetch, and the filter is still right
SELECT jr_check($$SELECT n, (SELECT count(*) FROM jr_fact f JOIN jr_big b ON f.k = b.k WHERE f.id > o.x)
	FROM (VALUES (1, 29990), (2, 29990), (3, 0), (4, 1000), (5, 29990), (6, 1500)) o(n, x)$$);
