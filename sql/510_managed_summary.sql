-- Managed summaries: bloom_summary_create, the writers' deltas, merges,
-- refreshes, partitions created, attached, detached and dropped, the
-- bloom_summaries view, and the multi-column form.
SET client_min_messages = warning;
CREATE TABLE ms (day int NOT NULL, k bigint, note text) PARTITION BY RANGE (day);
CREATE TABLE ms1 PARTITION OF ms FOR VALUES FROM (1) TO (2);
CREATE TABLE ms2 PARTITION OF ms FOR VALUES FROM (2) TO (3);
INSERT INTO ms SELECT 1 + g % 2, g FROM generate_series(1, 2000) g;
SELECT bloom_summary_create('ms', 'k', 10000) AS sid \gset
-- one trigger, cloned onto every leaf, firing always
SELECT tgrelid::regclass, tgenabled FROM pg_trigger WHERE tgname = bloom_summary_trigger_name(:sid) ORDER BY 1;
-- every existing key is in its leaf's filter, trusted
SELECT p.partition, p.trusted, p.refreshed_at IS NOT NULL AS refreshed,
       (SELECT bool_and(bloom_contains(p.filter, m.k)) FROM ms m WHERE m.tableoid = p.partition) AS all_keys
FROM bloom_summary_part p WHERE p.summary_id = :sid ORDER BY 1;
-- the other leaf's keys are mostly ruled out (1% false positives)
SELECT (SELECT count(*) FROM ms2 m WHERE bloom_contains(p.filter, m.k)) < 40 AS few_false_positives
FROM bloom_summary_part p WHERE p.summary_id = :sid AND p.partition = 'ms1'::regclass;
-- writers: one delta per transaction and leaf partition
INSERT INTO ms VALUES (1, 100001), (2, 100002), (2, 100003);
INSERT INTO ms1 VALUES (1, 100004);
BEGIN;
INSERT INTO ms VALUES (1, 100005);
INSERT INTO ms VALUES (1, 100006);
COMMIT;
SELECT partition, nkeys, (bloom_info(filter)).layout AS layout FROM bloom_summary_delta WHERE summary_id = :sid ORDER BY 1, 2;
-- a rolled-back writer leaves no delta
BEGIN; INSERT INTO ms VALUES (1, 100007); ROLLBACK;
SELECT count(*) AS deltas FROM bloom_summary_delta WHERE summary_id = :sid;
-- COPY, UPDATE of the key, an UPDATE that keeps it, a row moved across leaves
COPY ms (day, k) FROM STDIN;
2	100008
\.
UPDATE ms SET k = 100009 WHERE k = 100008;
UPDATE ms SET note = 'same key' WHERE k = 100009;
UPDATE ms SET day = 1 WHERE k = 100003;
-- INSERT ... ON CONFLICT DO UPDATE (on a leaf with a key)
CREATE UNIQUE INDEX ms1_k ON ms1 (k);
INSERT INTO ms1 VALUES (1, 100001) ON CONFLICT (k) DO UPDATE SET k = 100010;
SELECT partition, k, bool_or(bloom_contains(filter, k)) AS in_a_delta
FROM bloom_summary_delta, (VALUES ('ms1'::regclass, 100001), ('ms2', 100002), ('ms2', 100003), ('ms1', 100003),
                           ('ms1', 100004), ('ms1', 100005), ('ms1', 100006), ('ms2', 100008),
                           ('ms2', 100009), ('ms1', 100010), ('ms1', 100007)) AS v(leaf, k)
WHERE summary_id = :sid AND partition = leaf GROUP BY 1, 2 ORDER BY 1, 2;
-- the view
SELECT summary, partitions, trusted_partitions, untrusted_partitions, pending_deltas, pending_keys, bytes > 0 AS has_bytes
FROM bloom_summaries;
-- a merge unites the deltas into the leaves' fixed-shape filters
SELECT bloom_summary_merge('ms', 'k') AS merged;
SELECT count(*) AS deltas FROM bloom_summary_delta WHERE summary_id = :sid;
SELECT p.partition, p.trusted, (bloom_info(p.filter)).layout, (bloom_info(p.filter)).nbits,
       (SELECT bool_and(bloom_contains(p.filter, m.k)) FROM ms m WHERE m.tableoid = p.partition) AS all_keys
FROM bloom_summary_part p WHERE p.summary_id = :sid ORDER BY 1;
-- writers merge once deltas pass the threshold
SET bloomfilter.summary_merge_deltas = 3;
SET bloomfilter.summary_merge_check_every = 1;
INSERT INTO ms VALUES (2, 200001);
INSERT INTO ms VALUES (2, 200002);
INSERT INTO ms VALUES (2, 200003);
SELECT count(*) AS deltas_left FROM bloom_summary_delta WHERE summary_id = :sid;
SELECT bloom_contains(filter, 200001::bigint) AND bloom_contains(filter, 200003::bigint) AS merged_in
FROM bloom_summary_part WHERE summary_id = :sid AND partition = 'ms2'::regclass;
RESET bloomfilter.summary_merge_deltas;
RESET bloomfilter.summary_merge_check_every;
-- a writer's merge takes only the deltas it counted, by TID: the listed
-- deltas of the partition, not another partition's, not unlisted ones
SET bloomfilter.summary_merge_check_every = 1000000;
INSERT INTO ms VALUES (2, 200011);
INSERT INTO ms VALUES (2, 200012);
INSERT INTO ms VALUES (2, 200013);
INSERT INTO ms VALUES (1, 200014);
SELECT bloom_summary_merge_listed(:sid, 'ms2',
           ARRAY(SELECT ctid FROM bloom_summary_delta WHERE summary_id = :sid
                 AND (partition = 'ms1'::regclass OR NOT bloom_contains(filter, 200013::bigint)))) AS merged;
SELECT partition, bool_or(bloom_contains(filter, 200013::bigint)) AS has_200013,
       bool_or(bloom_contains(filter, 200014::bigint)) AS has_200014, count(*)
FROM bloom_summary_delta WHERE summary_id = :sid GROUP BY 1 ORDER BY 1;
SELECT bloom_contains(filter, 200011::bigint) AND bloom_contains(filter, 200012::bigint) AS merged_in
FROM bloom_summary_part WHERE summary_id = :sid AND partition = 'ms2'::regclass;
-- a writer that counts past the threshold merges every delta it counted,
-- of its partition only: ms1 has one delta, a second is not enough, the
-- third is
SET bloomfilter.summary_merge_deltas = 3;
SET bloomfilter.summary_merge_check_every = 1;
INSERT INTO ms VALUES (1, 200015);
SELECT partition, count(*) AS deltas FROM bloom_summary_delta WHERE summary_id = :sid GROUP BY 1 ORDER BY 1;
INSERT INTO ms VALUES (1, 200016);
SELECT partition, count(*) AS deltas FROM bloom_summary_delta WHERE summary_id = :sid GROUP BY 1 ORDER BY 1;
SELECT bool_and(bloom_contains(p.filter, v.k)) AS merged_in
FROM bloom_summary_part p, (VALUES (200014), (200015), (200016)) AS v(k)
WHERE p.summary_id = :sid AND p.partition = 'ms1'::regclass;
SELECT bloom_summary_merge('ms', 'k') AS merged_the_rest;
-- past the threshold a writer's merge takes every delta of the partition,
-- also those far behind the newest (100 deltas, a threshold of 3)
SET bloomfilter.summary_merge_check_every = 1000000;
DO $$ BEGIN FOR i IN 1..100 LOOP INSERT INTO ms VALUES (2, 500000 + i); COMMIT; END LOOP; END $$;
SELECT count(*) AS pending FROM bloom_summary_delta WHERE summary_id = :sid;
SET bloomfilter.summary_merge_check_every = 1;
INSERT INTO ms VALUES (2, 500101);
SELECT count(*) AS pending FROM bloom_summary_delta WHERE summary_id = :sid;
SELECT bool_and(bloom_contains(p.filter, g::bigint)) AS merged_in
FROM bloom_summary_part p, generate_series(500001, 500101) g
WHERE p.summary_id = :sid AND p.partition = 'ms2'::regclass;
RESET bloomfilter.summary_merge_deltas;
RESET bloomfilter.summary_merge_check_every;
-- a big statement writes a delta of the part's shape
INSERT INTO ms SELECT 2, g FROM generate_series(300001, 301000) g;
SELECT nkeys, (bloom_info(filter)).nbits = (bloom_info(bloom_empty(10000, 0.01))).nbits AS fixed_shape
FROM bloom_summary_delta WHERE summary_id = :sid;
-- partitions created, attached (with rows: summarised at once), detached, dropped
CREATE TABLE ms3 PARTITION OF ms FOR VALUES FROM (3) TO (4);
CREATE TABLE ms4 (LIKE ms);
INSERT INTO ms4 VALUES (4, 400001), (4, 400002);
ALTER TABLE ms ATTACH PARTITION ms4 FOR VALUES FROM (4) TO (5);
SELECT partition, trusted, bloom_contains(filter, 400001::bigint) AS has_400001
FROM bloom_summary_part WHERE summary_id = :sid ORDER BY 1;
INSERT INTO ms VALUES (3, 300);
ALTER TABLE ms DETACH PARTITION ms4;
DROP TABLE ms3;
SELECT partition FROM bloom_summary_part WHERE summary_id = :sid ORDER BY 1;
SELECT count(*) AS deltas_of_gone FROM bloom_summary_delta
WHERE summary_id = :sid AND partition NOT IN ('ms1'::regclass, 'ms2'::regclass);
SELECT count(*) AS triggers_on_detached FROM pg_trigger WHERE tgrelid = 'ms4'::regclass;
-- refresh: one leaf, then all
SELECT bloom_summary_refresh('ms', 'k', 'ms2');
SELECT count(*) AS deltas_of_ms2 FROM bloom_summary_delta WHERE summary_id = :sid AND partition = 'ms2'::regclass;
SELECT bloom_summary_refresh('ms', 'k');
SELECT count(*) AS deltas FROM bloom_summary_delta WHERE summary_id = :sid;
-- errors
\set VERBOSITY terse
SELECT bloom_summary_create('ms', 'k', 10000);
SELECT bloom_summary_create('ms1', 'k', 10000);
SELECT bloom_summary_create('ms', 'nope', 10000);
SELECT bloom_summary_create('ms', 'k', 0);
SELECT bloom_summary_refresh('ms', 'note');
SELECT bloom_summary_refresh('ms', 'k', 'ms4');
\set VERBOSITY default
-- multi-column summaries: multibloom filters
SELECT bloom_summary_create('ms', ARRAY['k', 'note']::name[], 1000) AS msid \gset
INSERT INTO ms VALUES (1, 7, 'seven');
SELECT multibloom_contains(mfilter, 7::bigint, 'seven'::text) AS delta_has_row
FROM bloom_summary_delta WHERE summary_id = :msid;
SELECT bloom_summary_merge('ms', ARRAY['k', 'note']::name[]) AS merged;
SELECT partition, trusted, multibloom_contains(mfilter, 7::bigint, 'seven'::text) AS has_row
FROM bloom_summary_part WHERE summary_id = :msid ORDER BY 1;
-- drop
SELECT bloom_summary_drop('ms', ARRAY['k', 'note']::name[]);
SELECT bloom_summary_drop('ms', 'k');
SELECT count(*) AS parts FROM bloom_summary_part;
SELECT count(*) AS triggers FROM pg_trigger WHERE tgname LIKE 'bloom_summary_%';
-- dropping the parent drops its summaries
SELECT bloom_summary_create('ms', 'k', 10000) > 0 AS created;
DROP TABLE ms, ms4;
SELECT count(*) AS defs FROM bloom_summary_def;
