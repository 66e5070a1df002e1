-- Materialized summaries: one filter per day of a table partitioned by
-- day, kept current by a statement-level trigger, rolled up, and used to
-- skip the partitions that cannot hold a key.
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

CREATE TABLE events (day date NOT NULL, user_id bigint, payload text) PARTITION BY RANGE (day);
CREATE TABLE events_d1 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2024-01-02');
CREATE TABLE events_d2 PARTITION OF events FOR VALUES FROM ('2024-01-02') TO ('2024-01-03');
CREATE TABLE events_d3 PARTITION OF events FOR VALUES FROM ('2024-01-03') TO ('2024-01-04');
CREATE TABLE events_d4 PARTITION OF events FOR VALUES FROM ('2024-01-04') TO ('2024-01-05');
-- day d holds users d*1000 .. d*1000+999 (with repeats), nothing else
INSERT INTO events
SELECT date '2024-01-01' + d - 1, d * 1000 + g % 1000, 'e' || g
FROM generate_series(1, 4) d, generate_series(1, 3000) g;

-- the summary: one filter per day, all of one shape
CREATE TABLE events_summary (day date PRIMARY KEY, filter bloom NOT NULL);
SELECT bloom_summary_refresh('events_summary', 'events', 'day', 'user_id', 5000, 0.01) AS days_summarized;
SELECT day, (bloom_info(filter)).nbits, round(bloom_cardinality(filter)) AS users
FROM events_summary ORDER BY day;

-- the days that can hold a user: exactly the day that does (no false
-- negative; a false positive would show up as a second day)
SELECT u, array_agg(day ORDER BY day) AS days
FROM (VALUES (1042::bigint), (2999), (3000), (4500)) v(u)
LEFT JOIN events_summary ON filter @> u
GROUP BY u ORDER BY u;
SELECT count(*) AS days_for_absent_user FROM events_summary WHERE filter @> 777777::bigint;
-- the key's type need only hash like the column's: int4 probes an int8 filter
SELECT day FROM events_summary WHERE filter @> 1042;

-- Skipping partitions: each day the summary lists is scanned through a
-- lateral sub-select (OFFSET 0 keeps it a parameterized scan), whose
-- Append prunes at run time to that day's partition; the partitions of
-- the other days are never executed.
-- (The plan's lines as every supported major prints them: PostgreSQL 18
-- shows fractional row counts, "rows=3.00".)
CREATE FUNCTION explain_analyze(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query
	LOOP
		RETURN NEXT regexp_replace(line, 'rows=(\d+)\.\d+', 'rows=\1', 'g');
	END LOOP;
END
$$;
SELECT explain_analyze($q$
SELECT e.* FROM events_summary s
CROSS JOIN LATERAL (SELECT * FROM events e WHERE e.day = s.day AND e.user_id = 2042 OFFSET 0) e
WHERE s.filter @> 2042::bigint$q$) AS "QUERY PLAN";
DROP FUNCTION explain_analyze(text);
SELECT count(*) FROM events_summary s
CROSS JOIN LATERAL (SELECT * FROM events e WHERE e.day = s.day AND e.user_id = 2042 OFFSET 0) e
WHERE s.filter @> 2042::bigint;
-- (day = ANY (ARRAY(SELECT day FROM summary ...))) gives the same rows but
-- does not prune: run-time pruning needs one value per comparison)

-- Incremental maintenance: one upsert per day per statement.
CREATE TRIGGER events_summary_insert AFTER INSERT ON events
	REFERENCING NEW TABLE AS bloom_new_rows FOR EACH STATEMENT
	EXECUTE FUNCTION bloom_summary_trigger('events_summary', 'day', 'user_id', 5000, 0.01);
CREATE TRIGGER events_summary_update AFTER UPDATE ON events
	REFERENCING NEW TABLE AS bloom_new_rows FOR EACH STATEMENT
	EXECUTE FUNCTION bloom_summary_trigger('events_summary', 'day', 'user_id', 5000, 0.01);

-- new users on two days in one statement, NULL keys ignored
INSERT INTO events VALUES
	('2024-01-02', 90001, 'new'), ('2024-01-04', 90002, 'new'),
	('2024-01-04', 90003, 'new'), ('2024-01-03', NULL, 'anonymous');
-- a user moved by an UPDATE is found on its new day
UPDATE events SET user_id = 90004 WHERE day = '2024-01-01' AND user_id = 1001;
SELECT u, array_agg(day ORDER BY day) AS days
FROM (VALUES (90001::bigint), (90002), (90003), (90004)) v(u)
LEFT JOIN events_summary ON filter @> u
GROUP BY u ORDER BY u;

-- COPY goes through the same trigger
COPY events FROM stdin;
2024-01-03	90005	copied
2024-01-03	90006	copied
\.
SELECT day FROM events_summary WHERE filter @> 90006::bigint;

-- The maintained summary has the same bits as one rebuilt from scratch,
-- except for keys that left (a filter cannot forget: user 1001 stays as a
-- harmless false positive until the next refresh).
CREATE TABLE rebuilt (day date PRIMARY KEY, filter bloom NOT NULL);
SELECT bloom_summary_refresh('rebuilt', 'events', 'day', 'user_id', 5000, 0.01) AS days_rebuilt;
SELECT s.day, s.filter = r.filter AS same_bits, bloom_contains(s.filter, 1001) AS has_1001
FROM events_summary s JOIN rebuilt r USING (day) ORDER BY s.day;
-- One filter per partition (here the same as per day): what a rebuild gives.
SELECT p.partition, p.filter = r.filter AS same_as_rebuilt
FROM bloom_partition_filters('events', 'user_id', 5000, 0.01) p
JOIN rebuilt r ON r.day = date '2024-01-01' + right(p.partition::text, 1)::int - 1
ORDER BY 1;

UPDATE rebuilt SET filter = bloom_add(filter, 1001::bigint) WHERE day = '2024-01-01';
SELECT bool_and(s.filter = r.filter) AS same_after_adding_the_departed_key
FROM events_summary s JOIN rebuilt r USING (day);

-- Roll-up: one filter for the whole table (plus the departed key).
SELECT bloom_union_agg(filter)
       = bloom_add((SELECT bloom_agg(user_id, 5000, 0.01) FROM events), 1001::bigint) AS rollup_is_whole_table
FROM events_summary;
SELECT bloom_contains(bloom_union_agg(filter), 3500) AS rollup_has_3500,
       bloom_contains(bloom_union_agg(filter), 777777) AS rollup_has_777777
FROM events_summary;

-- Misuse is refused.
INSERT INTO events VALUES (NULL, 1, 'no day');	-- not routed: no partition
CREATE TABLE plain_events (day date, user_id bigint);
CREATE TRIGGER bad_level AFTER INSERT ON plain_events
	FOR EACH ROW EXECUTE FUNCTION bloom_summary_trigger('events_summary', 'day', 'user_id', 5000, 0.01);
INSERT INTO plain_events VALUES ('2024-01-01', 1);
DROP TRIGGER bad_level ON plain_events;
CREATE TRIGGER null_bucket AFTER INSERT ON plain_events
	REFERENCING NEW TABLE AS bloom_new_rows FOR EACH STATEMENT
	EXECUTE FUNCTION bloom_summary_trigger('events_summary', 'day', 'user_id', 5000, 0.01);
INSERT INTO plain_events VALUES (NULL, 1);
SELECT bloom_summary_refresh('rebuilt', 'events', 'day', 'user_id', 0, 0.01);
SELECT * FROM bloom_partition_filters('events', 'user_id', 5000, 1.5);
SELECT * FROM bloom_partition_filters('events', 'no_such_column', 5000, 0.01);

DROP TABLE events, events_summary, rebuilt, plain_events;
