-- The batched probe scan (src/scan/batch_scan.c) does what the plain sequential
-- scan does: positioned UPDATE and DELETE through every kind of cursor,
-- backward fetches, and the order in which a row meets its quals (an error
-- or a side effect the plain scan avoids must not happen), each compared
-- with bloomfilter.enable_batch_scan = off.
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- 1000 rows with distinct keys; a filter of the keys of the rows whose id
-- ends in 3 (100 keys, and a few false positives), so that every batch of
-- the scan has rows that pass and rows that do not.  p is NULL up to id 50;
-- point has no hash function.
CREATE TABLE cur_orig AS
SELECT g AS id, (g * 37) % 1000 AS k, 0 AS v, CASE WHEN g > 50 THEN point(g, g) END AS p
FROM generate_series(1, 1000) g;
CREATE TABLE cur_t (LIKE cur_orig);
CREATE TABLE cur_parts (id int, k int, v int) PARTITION BY RANGE (id);
CREATE TABLE cur_parts_1 PARTITION OF cur_parts FOR VALUES FROM (0) TO (500);
CREATE TABLE cur_parts_2 PARTITION OF cur_parts FOR VALUES FROM (500) TO (1001);
CREATE TABLE cur_f AS SELECT bloom_agg(k, 100, 0.01) AS f FROM cur_orig WHERE id % 10 = 3;
-- The filter, fixed for a scan and shown by name in EXPLAIN.  Its cost
-- puts the probe (2 operators a row, as a Param filter's is 1) after quals
-- of one operator and before those of three.
CREATE FUNCTION cur_filter() RETURNS bloom LANGUAGE sql STABLE COST 1 AS 'SELECT f FROM cur_f';
SELECT count(*) AS members, count(*) FILTER (WHERE bloom_contains(cur_filter(), k)) AS passed
FROM cur_orig;

-- The tables as loaded: the same rows at the same places in every run.
CREATE FUNCTION cur_reset() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE cur_t, cur_parts;
	INSERT INTO cur_t SELECT * FROM cur_orig ORDER BY id;
	INSERT INTO cur_parts SELECT id, k, v FROM cur_orig ORDER BY id;
	ANALYZE cur_t, cur_parts;
END $$;

-- What the statements did to the tables: the rows deleted and updated.
CREATE FUNCTION cur_digest() RETURNS text LANGUAGE sql AS $$
	SELECT format('cur_t: deleted %s, updated %s; cur_parts: deleted %s, updated %s',
		(SELECT coalesce(string_agg(id::text, ' ' ORDER BY id), '-') FROM cur_orig o
		 WHERE NOT EXISTS (SELECT FROM cur_t t WHERE t.id = o.id)),
		(SELECT coalesce(string_agg(id || '=' || v, ' ' ORDER BY id), '-') FROM cur_t WHERE v <> 0),
		(SELECT coalesce(string_agg(id::text, ' ' ORDER BY id), '-') FROM cur_orig o
		 WHERE NOT EXISTS (SELECT FROM cur_parts t WHERE t.id = o.id)),
		(SELECT coalesce(string_agg(id || '=' || v, ' ' ORDER BY id), '-') FROM cur_parts WHERE v <> 0))
$$;

-- A long list of ids (or id=value pairs) shown by its ends.
CREATE FUNCTION cur_short(list text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT regexp_replace(list, '((?:[0-9=]+ ){3})(?:[0-9=]+ ){3,}((?:[0-9=]+ ){2}[0-9=]+)',
	                      '\1... \2', 'g')
$$;

-- The plan's nodes, from the top ("Custom Scan (BloomBatchScan) on cur_t").
CREATE FUNCTION cur_plan(statement text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; nodes text[];
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || statement LOOP
		CONTINUE WHEN line !~ '^\s*(->  )?[A-Z][A-Za-z ]+( \(\w+\))?( on \w+)?$';
		nodes := nodes || regexp_replace(line, '^\s*(->  )?', '');
	END LOOP;
	RETURN array_to_string(nodes, ' > ');
END $$;

-- cur_run(batch, steps): resets the tables, sets the batched scan on or
-- off, and runs the statements, returning for each what it gave: the ids a
-- FETCH returned, the rows an UPDATE or DELETE affected, the error, and for
-- a DECLARE the cursor's plan; then what the tables hold.
CREATE FUNCTION cur_run(batch boolean, steps text[],
                        OUT step text, OUT result text, OUT plan text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE r record; n bigint;
BEGIN
	PERFORM cur_reset();
	PERFORM set_config('bloomfilter.enable_batch_scan', CASE WHEN batch THEN 'on' ELSE 'off' END, true);
	FOREACH step IN ARRAY steps LOOP
		result := NULL;
		plan := NULL;
		BEGIN
			IF step ~ '^DECLARE' THEN
				plan := cur_plan(step);
				EXECUTE step;
			ELSIF step ~ '^FETCH' THEN
				FOR r IN EXECUTE step LOOP
					result := concat_ws(' ', result, r.id);
				END LOOP;
				result := coalesce(result, '-');
			ELSE
				EXECUTE step;
				GET DIAGNOSTICS n = ROW_COUNT;
				result := n;
			END IF;
		EXCEPTION WHEN OTHERS THEN
			result := 'ERROR: ' || SQLERRM;
		END;
		RETURN NEXT;
	END LOOP;
	step := 'tables after';
	result := cur_digest();
	plan := NULL;
	RETURN NEXT;
END $$;

-- Each step run with the batched scan and without: what it gave with the
-- batched scan, whether that is what it gave without, and the plans.
CREATE FUNCTION cur_compare(steps text[], OUT step text, OUT batched text, OUT same boolean,
                            OUT plan_batched text, OUT plan_plain text)
RETURNS SETOF record LANGUAGE sql AS $$
	SELECT b.step, cur_short(b.result), b.result IS NOT DISTINCT FROM p.result, b.plan, p.plan
	FROM (SELECT *, row_number() OVER () AS i FROM cur_run(true, steps)) b
	JOIN (SELECT *, row_number() OVER () AS i FROM cur_run(false, steps)) p USING (i)
	ORDER BY i
$$;

-- The issue's case: a cursor, a positioned DELETE.
SELECT * FROM cur_compare(ARRAY[
	'DECLARE c CURSOR FOR SELECT id, k FROM cur_t WHERE bloom_contains(bloom_add(bloom_empty(10), 5), k)',
	'FETCH c',
	'DELETE FROM cur_t WHERE CURRENT OF c',
	'CLOSE c']);

-- Every kind of cursor: positioned UPDATE and DELETE while fetching
-- forward, across batches, and after the end (no current row).
SELECT * FROM cur_compare(ARRAY[
	'DECLARE c CURSOR FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k)',
	'FETCH 2 FROM c',
	'UPDATE cur_t SET v = v + 1 WHERE CURRENT OF c',
	'FETCH 40 FROM c',
	'DELETE FROM cur_t WHERE CURRENT OF c',
	'UPDATE cur_t SET v = v + 1 WHERE CURRENT OF c',
	'FETCH FORWARD ALL FROM c',
	'DELETE FROM cur_t WHERE CURRENT OF c',
	'CLOSE c',
	'DECLARE c NO SCROLL CURSOR FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k)',
	'FETCH 5 FROM c',
	'DELETE FROM cur_t WHERE CURRENT OF c',
	'FETCH BACKWARD 1 FROM c',
	'CLOSE c',
	'DECLARE c INSENSITIVE CURSOR FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k)',
	'FETCH 6 FROM c',
	'UPDATE cur_t SET v = v + 10 WHERE CURRENT OF c',
	'CLOSE c',
	'DECLARE c CURSOR WITH HOLD FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k)',
	'FETCH 7 FROM c',
	'UPDATE cur_t SET v = v + 100 WHERE CURRENT OF c',
	'CLOSE c',
	'DECLARE c CURSOR FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k) FOR UPDATE',
	'FETCH 8 FROM c',
	'DELETE FROM cur_t WHERE CURRENT OF c',
	'CLOSE c',
	'DECLARE c CURSOR FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k) LIMIT 20',
	'FETCH 9 FROM c',
	'UPDATE cur_t SET v = v + 1000 WHERE CURRENT OF c',
	'CLOSE c']);

-- Scrolling: SCROLL cursors, and a cursor declared without SCROLL or NO
-- SCROLL, which may fetch backward where the plan can run backward.  The
-- quals before the probe (id > 100), and after it (v = 0), remove rows on
-- the way in both directions.
SELECT * FROM cur_compare(ARRAY[
	'DECLARE c SCROLL CURSOR FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k)',
	'FETCH 7 FROM c',
	'FETCH BACKWARD 3 FROM c',
	'UPDATE cur_t SET v = v + 1 WHERE CURRENT OF c',
	'FETCH ABSOLUTE 40 FROM c',
	'DELETE FROM cur_t WHERE CURRENT OF c',
	'FETCH ABSOLUTE 38 FROM c',
	'FETCH LAST FROM c',
	'FETCH PRIOR FROM c',
	'UPDATE cur_t SET v = v + 1 WHERE CURRENT OF c',
	'FETCH ABSOLUTE -5 FROM c',
	'FETCH RELATIVE 0 FROM c',
	'DELETE FROM cur_t WHERE CURRENT OF c',
	'FETCH RELATIVE -30 FROM c',
	'UPDATE cur_t SET v = v + 1 WHERE CURRENT OF c',
	'FETCH FIRST FROM c',
	'FETCH BACKWARD 1 FROM c',
	'UPDATE cur_t SET v = v + 1 WHERE CURRENT OF c',
	'FETCH 3 FROM c',
	'MOVE FORWARD ALL IN c',
	'FETCH BACKWARD 4 FROM c',
	'DELETE FROM cur_t WHERE CURRENT OF c',
	'FETCH BACKWARD ALL FROM c',
	'FETCH ALL FROM c',
	'CLOSE c',
	'DECLARE c CURSOR FOR SELECT id, k, v FROM cur_t WHERE id > 100 AND bloom_contains(cur_filter(), k) AND v = 0',
	'FETCH 33 FROM c',
	'FETCH BACKWARD 2 FROM c',
	'UPDATE cur_t SET v = v + 7 WHERE CURRENT OF c',
	'FETCH 3 FROM c',
	'FETCH PRIOR FROM c',
	'DELETE FROM cur_t WHERE CURRENT OF c',
	'FETCH ABSOLUTE 2 FROM c',
	'FETCH LAST FROM c',
	'UPDATE cur_t SET v = v + 7 WHERE CURRENT OF c',
	'CLOSE c',
	'DECLARE c SCROLL CURSOR WITH HOLD FOR SELECT id, k, v FROM cur_t WHERE id > 100 AND bloom_contains(cur_filter(), k)',
	'FETCH RELATIVE 12 FROM c',
	'FETCH RELATIVE -11 FROM c',
	'DELETE FROM cur_t WHERE CURRENT OF c',
	'CLOSE c']);

-- A partitioned table: an Append of two batched scans.  The row deleted is
-- the second partition's, not the last row the first partition's scan read.
SELECT * FROM cur_compare(ARRAY[
	'DECLARE c SCROLL CURSOR FOR SELECT id, k, v FROM cur_parts WHERE bloom_contains(cur_filter(), k)',
	'FETCH 60 FROM c',
	'DELETE FROM cur_parts WHERE CURRENT OF c',
	'FETCH BACKWARD 12 FROM c',
	'UPDATE cur_parts SET v = v + 1 WHERE CURRENT OF c',
	'FETCH LAST FROM c',
	'UPDATE cur_parts SET v = v + 1 WHERE CURRENT OF c',
	'CLOSE c']);

-- A WITH HOLD cursor after its transaction: the rows it holds, forward and
-- backward, and no positioned update (as without the batched scan).
CREATE TABLE cur_held (batch boolean, step text, result text);
SELECT cur_reset();
SET bloomfilter.enable_batch_scan = on;
SELECT cur_plan('DECLARE h CURSOR WITH HOLD FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k)');
BEGIN;
DECLARE h CURSOR WITH HOLD FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k);
FETCH 3 FROM h;
UPDATE cur_t SET v = v + 1 WHERE CURRENT OF h;
COMMIT;
FETCH 2 FROM h;
FETCH BACKWARD 3 FROM h;
UPDATE cur_t SET v = v + 1 WHERE CURRENT OF h;
FETCH ABSOLUTE 50 FROM h;
CLOSE h;
INSERT INTO cur_held SELECT true, 'tables after', cur_digest();
SELECT cur_reset();
SET bloomfilter.enable_batch_scan = off;
SELECT cur_plan('DECLARE h CURSOR WITH HOLD FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k)');
BEGIN;
DECLARE h CURSOR WITH HOLD FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k);
FETCH 3 FROM h;
UPDATE cur_t SET v = v + 1 WHERE CURRENT OF h;
COMMIT;
FETCH 2 FROM h;
FETCH BACKWARD 3 FROM h;
UPDATE cur_t SET v = v + 1 WHERE CURRENT OF h;
FETCH ABSOLUTE 50 FROM h;
CLOSE h;
INSERT INTO cur_held SELECT false, 'tables after', cur_digest();
RESET bloomfilter.enable_batch_scan;
SELECT b.step, cur_short(b.result) AS batched, b.result = p.result AS same
FROM cur_held b JOIN cur_held p ON p.step = b.step AND NOT p.batch WHERE b.batch ORDER BY b.step;

-- PL/pgSQL cursors: FOR loops over bound cursors of each scroll option,
-- updating and deleting the current row; a SCROLL cursor moved around; an
-- unbound cursor opened on a query string.  TRUNCATE in cur_reset makes
-- the cursors' cached plans be planned again with the setting of the run.
CREATE FUNCTION cur_plpgsql(batch boolean) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	c_default CURSOR FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k);
	c_no_scroll NO SCROLL CURSOR FOR SELECT id, k, v FROM cur_t WHERE id > 500 AND bloom_contains(cur_filter(), k);
	c_scroll SCROLL CURSOR (lo int) FOR SELECT id, k, v FROM cur_t WHERE id > lo AND bloom_contains(cur_filter(), k);
	c_ref refcursor;
	r record;
	n bigint;
	done bigint := 0;
	seen text;
BEGIN
	PERFORM cur_reset();
	PERFORM set_config('bloomfilter.enable_batch_scan', CASE WHEN batch THEN 'on' ELSE 'off' END, true);
	FOR r IN c_default LOOP
		IF r.id % 3 = 0 THEN
			UPDATE cur_t SET v = v + 1 WHERE CURRENT OF c_default;
		ELSIF r.id % 3 = 1 THEN
			DELETE FROM cur_t WHERE CURRENT OF c_default;
		END IF;
		GET DIAGNOSTICS n = ROW_COUNT;
		done := done + n;
	END LOOP;
	RETURN NEXT 'default loop: rows changed ' || done;
	done := 0;
	FOR r IN c_no_scroll LOOP
		UPDATE cur_t SET v = v + 10 WHERE CURRENT OF c_no_scroll;
		GET DIAGNOSTICS n = ROW_COUNT;
		done := done + n;
	END LOOP;
	RETURN NEXT 'no scroll loop: rows changed ' || done;
	OPEN c_scroll(200);
	seen := '';
	FETCH LAST FROM c_scroll INTO r;
	seen := seen || ' last ' || r.id;
	UPDATE cur_t SET v = v + 100 WHERE CURRENT OF c_scroll;
	FETCH PRIOR FROM c_scroll INTO r;
	seen := seen || ' prior ' || r.id;
	DELETE FROM cur_t WHERE CURRENT OF c_scroll;
	FETCH ABSOLUTE 5 FROM c_scroll INTO r;
	seen := seen || ' absolute 5 ' || r.id;
	UPDATE cur_t SET v = v + 100 WHERE CURRENT OF c_scroll;
	MOVE RELATIVE 30 FROM c_scroll;
	FETCH RELATIVE -2 FROM c_scroll INTO r;
	seen := seen || ' relative -2 ' || r.id;
	DELETE FROM cur_t WHERE CURRENT OF c_scroll;
	FETCH BACKWARD FROM c_scroll INTO r;
	seen := seen || ' backward ' || r.id;
	CLOSE c_scroll;
	RETURN NEXT 'scroll cursor:' || seen;
	OPEN c_ref SCROLL FOR EXECUTE
		'SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k) AND v = 0';
	seen := '';
	MOVE ABSOLUTE 8 FROM c_ref;
	FETCH PRIOR FROM c_ref INTO r;
	seen := seen || ' prior ' || r.id;
	UPDATE cur_t SET v = v + 1000 WHERE CURRENT OF c_ref;
	FETCH RELATIVE 3 FROM c_ref INTO r;
	seen := seen || ' relative 3 ' || r.id;
	DELETE FROM cur_t WHERE CURRENT OF c_ref;
	CLOSE c_ref;
	RETURN NEXT 'refcursor:' || seen;
	RETURN NEXT cur_digest();
END $$;
SELECT cur_short(b) AS batched, b = p AS same
FROM unnest(ARRAY(SELECT cur_plpgsql(true)), ARRAY(SELECT cur_plpgsql(false))) u(b, p);
-- the plans of those cursors: a bound cursor is planned as DECLARE with
-- its scroll option
SELECT cur_plan('DECLARE c CURSOR FOR SELECT id, k, v FROM cur_t WHERE bloom_contains(cur_filter(), k)') AS default_cursor,
       cur_plan('DECLARE c NO SCROLL CURSOR FOR SELECT id, k, v FROM cur_t WHERE id > 500 AND bloom_contains(cur_filter(), k)') AS no_scroll,
       cur_plan('DECLARE c SCROLL CURSOR FOR SELECT id, k, v FROM cur_t WHERE id > 200 AND bloom_contains(cur_filter(), k)') AS scroll;

-- ---------------------------------------------------------------------
-- The order of the quals.  The plain scan tests a row's quals in the
-- planner's order: those placed before the probe (cheaper, or as cheap and
-- written first) run on each row before the probe meets it.
SELECT cur_reset();

-- cur_check(query): the plan's nodes, and the rows (in order) or the error,
-- with the batched scan and without.
CREATE FUNCTION cur_check(query text, OUT plan_batched text, OUT plan_plain text,
                          OUT result text, OUT same boolean) LANGUAGE plpgsql AS $$
DECLARE plain_result text;
BEGIN
	plan_batched := cur_plan(query);
	result := cur_rows(query);
	PERFORM set_config('bloomfilter.enable_batch_scan', 'off', true);
	plan_plain := cur_plan(query);
	plain_result := cur_rows(query);
	PERFORM set_config('bloomfilter.enable_batch_scan', 'on', true);
	same := result IS NOT DISTINCT FROM plain_result;
END $$;
CREATE FUNCTION cur_rows(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	EXECUTE format('SELECT count(*) || '' rows: '' || coalesce(md5(string_agg(q::text, '','')), ''-'') FROM (%s) q', query) INTO r;
	RETURN r;
EXCEPTION WHEN OTHERS THEN
	RETURN 'ERROR: ' || SQLERRM;
END $$;

-- Where the probe would need the key type's hash function (point has
-- none), the plain scan fails only on a row that reaches the probe with a
-- key: none here (id < 0), none with a key (p is NULL up to id 50), then
-- one (id 51).
SELECT * FROM cur_check('SELECT id FROM cur_t WHERE id < 0 AND bloom_contains(cur_filter(), p)');
SELECT * FROM cur_check('SELECT id FROM cur_t WHERE id <= 50 AND bloom_contains(cur_filter(), p)');
SELECT * FROM cur_check('SELECT id FROM cur_t WHERE id <= 51 AND bloom_contains(cur_filter(), p)');
-- a filter whose InitPlan fails is evaluated only for a row that reaches
-- the probe
SELECT * FROM cur_check($q$SELECT id FROM cur_t
	WHERE id < 0 AND bloom_contains((SELECT f FROM cur_f WHERE 1 / (random() * 0)::int = 1), k)$q$);
SELECT * FROM cur_check($q$SELECT id FROM cur_t
	WHERE id < 3 AND bloom_contains((SELECT f FROM cur_f WHERE 1 / (random() * 0)::int = 1), k)$q$);
-- EXPLAIN ANALYZE: the qual before the probe, the one after it as the
-- Filter, and the rows each removed (row counts left out: their format
-- changed in PostgreSQL 18)
CREATE FUNCTION cur_explain_analyze(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || query LOOP
		RETURN NEXT regexp_replace(line, ' \(actual rows=[0-9.]+ loops=[0-9]+\)', '');
	END LOOP;
END $$;
SELECT cur_explain_analyze('SELECT id FROM cur_t WHERE id <= 500 AND bloom_contains(cur_filter(), k) AND v + id > 10');
SELECT cur_explain_analyze('SELECT id FROM cur_t WHERE id <= 500 AND bloom_contains(cur_filter(), k)');

-- Two probes: the batched scan takes the one the plain scan tests first
-- (a sub-select's filter costs less than cur_filter()) and tests the other
-- after it, as its Filter.
SELECT * FROM cur_check('SELECT id FROM cur_t WHERE bloom_contains(cur_filter(), k) AND bloom_contains((SELECT f FROM cur_f), k)');
SELECT l FROM cur_explain_analyze('SELECT id FROM cur_t WHERE bloom_contains(cur_filter(), k) AND bloom_contains((SELECT f FROM cur_f), k)') l
WHERE l ~ '^\s*(Custom Scan|Filter)';

-- A qual that may fail on some rows (a division, here in a function of
-- one operator's cost, so placed before the probe) is tested by the plain
-- scan on every row; the batched scan, which would have to test it ahead
-- of the rows it returns, is not used, and the statement fails alike, or,
-- with a LIMIT, does not.  Guarded by a cheaper qual, it fails nowhere.
-- Placed after the probe (three operators), the batched scan runs it after
-- the probe on the rows returned, as the plain scan does.
CREATE FUNCTION cur_risky(id int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE COST 1 AS $$
BEGIN
	RETURN 1000 / (id - 40) <> 0;
END $$;
SELECT bloom_contains(cur_filter(), k) AS row_40_passes FROM cur_orig WHERE id = 40;
SELECT * FROM cur_check('SELECT id FROM cur_t WHERE cur_risky(id) AND bloom_contains(cur_filter(), k)');
SELECT * FROM cur_check('SELECT id FROM cur_t WHERE cur_risky(id) AND bloom_contains(cur_filter(), k) LIMIT 2');
SELECT * FROM cur_check('SELECT id FROM cur_t WHERE id <> 40 AND cur_risky(id) AND bloom_contains(cur_filter(), k)');
SELECT * FROM cur_check('SELECT id FROM cur_t WHERE id <> 40 AND bloom_contains(cur_filter(), k) AND 1000 / (id - 40) <> 0');
SELECT * FROM cur_check('SELECT id FROM cur_t WHERE bloom_contains(cur_filter(), k) AND cur_risky(id)');
SELECT * FROM cur_check('SELECT id FROM cur_t WHERE bloom_contains(cur_filter(), k) AND id / (id - 43) = 0 LIMIT 3');

-- Side effects: a volatile qual before the probe runs on every row the
-- plain scan reads (the batched scan is not used); after the probe, on the
-- rows the probe passed, also with a LIMIT that stops the scan early.
CREATE SEQUENCE cur_calls;
CREATE FUNCTION cur_count(id int) RETURNS boolean LANGUAGE sql VOLATILE COST 1 AS
	'SELECT nextval(''cur_calls'') > 0';
CREATE FUNCTION cur_calls_of(query text, batch boolean) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE before bigint;
BEGIN
	PERFORM set_config('bloomfilter.enable_batch_scan', CASE WHEN batch THEN 'on' ELSE 'off' END, true);
	before := nextval('cur_calls');
	EXECUTE query;
	PERFORM set_config('bloomfilter.enable_batch_scan', 'on', true);
	RETURN nextval('cur_calls') - before - 1;
END $$;
SELECT q, cur_plan(q) AS plan, cur_calls_of(q, true) AS calls_batched, cur_calls_of(q, false) AS calls_plain
FROM unnest(ARRAY[
	'SELECT count(*) FROM cur_t WHERE cur_count(id) AND bloom_contains(cur_filter(), k)',
	'SELECT count(*) FROM cur_t WHERE bloom_contains(cur_filter(), k) AND cur_count(id)',
	'SELECT id FROM cur_t WHERE id > 100 AND bloom_contains(cur_filter(), k) AND cur_count(id) LIMIT 3']) q;

-- EXPLAIN ANALYZE: the rows removed by the quals before and after the
-- probe ("Rows Removed by Filter") and by the probe add up to the rows the
-- plain scan's Filter removed.
CREATE FUNCTION cur_removed(query text, batch boolean,
                            OUT node text, OUT by_filter float8, OUT by_bloom_filter float8)
LANGUAGE plpgsql AS $$
DECLARE plan jsonb; scan jsonb;
BEGIN
	PERFORM set_config('bloomfilter.enable_batch_scan', CASE WHEN batch THEN 'on' ELSE 'off' END, true);
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) ' || query INTO plan;
	PERFORM set_config('bloomfilter.enable_batch_scan', 'on', true);
	scan := jsonb_path_query_first(plan, 'strict $.**?(@."Relation Name" == "cur_t")');
	node := coalesce(scan ->> 'Custom Plan Provider', scan ->> 'Node Type');
	by_filter := coalesce((scan ->> 'Rows Removed by Filter')::float8, 0);
	by_bloom_filter := coalesce((scan ->> 'Rows Removed by Bloom Filter')::float8, 0);
END $$;
SELECT b.*, p.*, b.by_filter + b.by_bloom_filter = p.by_filter AS same_total
FROM (VALUES ('SELECT id FROM cur_t WHERE id <= 500 AND bloom_contains(cur_filter(), k)'),
             ('SELECT id FROM cur_t WHERE id <= 500 AND bloom_contains(cur_filter(), k) AND v + id > 10')) q(query),
     LATERAL cur_removed(query, true) b,
     LATERAL cur_removed(query, false) p;

DROP TABLE cur_t, cur_parts, cur_orig, cur_f, cur_held;
DROP SEQUENCE cur_calls;
DROP FUNCTION cur_filter(), cur_reset(), cur_digest(), cur_short(text), cur_plan(text), cur_run(boolean, text[]),
	cur_compare(text[]), cur_plpgsql(boolean), cur_check(text), cur_rows(text), cur_risky(int),
	cur_count(int), cur_calls_of(text, boolean), cur_removed(text, boolean), cur_explain_analyze(text);
