-- Managed summaries: the ways rows can arrive without the summary seeing
-- them.  Each either keeps the summary complete or makes the leaf
-- untrusted (never pruned) until bloom_summary_refresh.
SET client_min_messages = warning;
CREATE TABLE bp (day int NOT NULL, k bigint) PARTITION BY LIST (day);
CREATE TABLE bp1 PARTITION OF bp FOR VALUES IN (1);
CREATE TABLE bp2 PARTITION OF bp FOR VALUES IN (2);
SELECT bloom_summary_create('bp', 'k', 1000) AS sid \gset
CREATE FUNCTION bp_state() RETURNS TABLE (leaf regclass, trusted boolean, tgenabled "char")
LANGUAGE sql AS $$
	SELECT p.partition, p.trusted, t.tgenabled FROM bloom_summary_part p
	LEFT JOIN pg_trigger t ON t.tgrelid = p.partition AND t.tgname LIKE 'bloom_summary_%'
	ORDER BY 1 $$;
-- is the key in the leaf's filter or in one of its deltas?
CREATE FUNCTION bp_has(leaf regclass, key bigint) RETURNS boolean
LANGUAGE sql AS $$
	SELECT coalesce(bool_or(bloom_contains(f, key)), false) FROM (
		SELECT filter FROM bloom_summary_part WHERE partition = leaf
		UNION ALL SELECT filter FROM bloom_summary_delta WHERE partition = leaf) s(f) $$;
SELECT * FROM bp_state();

-- session_replication_role = replica (pg_restore, logical replication's
-- apply): the trigger fires always
SET session_replication_role = replica;
INSERT INTO bp VALUES (1, 11);
RESET session_replication_role;
SELECT bp_has('bp1', 11) AS replica_write_seen;

-- MERGE fires the row triggers of its actions
MERGE INTO bp USING (VALUES (1, 11), (2, 22)) AS v(day, k) ON bp.k = v.k
WHEN MATCHED THEN UPDATE SET k = 12
WHEN NOT MATCHED THEN INSERT VALUES (v.day, v.k);
SELECT bp_has('bp1', 12) AS merge_update_seen, bp_has('bp2', 22) AS merge_insert_seen;

-- TRUNCATE only removes rows: the filter keeps keys, false positives only
TRUNCATE bp1;
SELECT * FROM bp_state();

-- a trigger disabled on a leaf (ALTER TABLE ... DISABLE TRIGGER ALL, as
-- pg_restore --disable-triggers does): that leaf is untrusted at once
ALTER TABLE bp1 DISABLE TRIGGER ALL;
SELECT * FROM bp_state();
INSERT INTO bp VALUES (1, 13);
SELECT bp_has('bp1', 13) AS write_while_disabled_seen;
-- enabling it again (for the origin role only) does not restore trust
ALTER TABLE bp1 ENABLE TRIGGER ALL;
SELECT * FROM bp_state();
-- a refresh fires the trigger always again, recounts the leaf and trusts it
SELECT bloom_summary_refresh('bp', 'k');
SELECT * FROM bp_state();
SELECT bp_has('bp1', 13) AS seen_after_refresh;

-- DISABLE TRIGGER USER, and the trigger by name, on the parent
ALTER TABLE bp DISABLE TRIGGER USER;
SELECT * FROM bp_state();
SELECT bloom_summary_refresh('bp', 'k');
DO $$ BEGIN EXECUTE format('ALTER TABLE bp2 DISABLE TRIGGER %I', bloom_summary_trigger_name(
	(SELECT summary_id FROM bloom_summary_def))); END $$;
SELECT * FROM bp_state();
-- ENABLE REPLICA: fires only under the replica role: untrusted too
DO $$ BEGIN EXECUTE format('ALTER TABLE bp2 ENABLE REPLICA TRIGGER %I', bloom_summary_trigger_name(
	(SELECT summary_id FROM bloom_summary_def))); END $$;
SELECT * FROM bp_state();
SELECT bloom_summary_refresh('bp', 'k');

-- DROP TRIGGER by hand: every leaf untrusted; a refresh creates it again
DO $$ BEGIN EXECUTE format('DROP TRIGGER %I ON bp', bloom_summary_trigger_name(
	(SELECT summary_id FROM bloom_summary_def))); END $$;
SELECT * FROM bp_state();
INSERT INTO bp VALUES (2, 23);
SELECT bloom_summary_refresh('bp', 'k');
SELECT * FROM bp_state();
SELECT bp_has('bp2', 23) AS seen_after_refresh;

-- a refresh concurrent with a writer: the writer's delta, not visible to
-- the refresh's snapshot, is kept (here: written in the same transaction
-- after the refresh)
BEGIN;
SELECT bloom_summary_refresh('bp', 'k', 'bp2');
INSERT INTO bp VALUES (2, 24);
COMMIT;
SELECT bp_has('bp2', 24) AS write_after_refresh_seen;

-- a non-superuser owner: the catalog's row security lets the owner
-- refresh; row security on the partition itself, which the refresh is
-- subject to (FORCE), hides rows: that filter is not trusted
CREATE ROLE regress_bp_owner;
ALTER TABLE bp OWNER TO regress_bp_owner;
ALTER TABLE bp1 OWNER TO regress_bp_owner;
ALTER TABLE bp2 OWNER TO regress_bp_owner;
SET ROLE regress_bp_owner;
INSERT INTO bp VALUES (2, 25);
ALTER TABLE bp2 ENABLE ROW LEVEL SECURITY;
ALTER TABLE bp2 FORCE ROW LEVEL SECURITY;
SELECT bloom_summary_refresh('bp', 'k');
RESET ROLE;
SELECT * FROM bp_state();
SET ROLE regress_bp_owner;
ALTER TABLE bp2 NO FORCE ROW LEVEL SECURITY;
SELECT bloom_summary_refresh('bp', 'k');
RESET ROLE;
SELECT * FROM bp_state();
SELECT bp_has('bp2', 25) AS seen;
-- another role may neither change nor read the summary
CREATE ROLE regress_bp_other;
SET ROLE regress_bp_other;
\set VERBOSITY terse
SELECT bloom_summary_refresh('bp', 'k');
UPDATE bloom_summary_part SET trusted = true;
SELECT count(*) AS visible_parts FROM bloom_summary_part;
SELECT count(*) AS listed FROM bloom_summaries;
\set VERBOSITY default
RESET ROLE;
ALTER TABLE bp OWNER TO CURRENT_USER;
ALTER TABLE bp1 OWNER TO CURRENT_USER;
ALTER TABLE bp2 OWNER TO CURRENT_USER;
ALTER TABLE bp2 DISABLE ROW LEVEL SECURITY;
DROP ROLE regress_bp_owner, regress_bp_other;

-- a key column rewritten to another type changes the hashes: the writer
-- refuses to mix them within a transaction; a refresh recounts
-- (documented: ALTER COLUMN TYPE needs a refresh)

-- a foreign partition is never trusted
CREATE FOREIGN DATA WRAPPER bp_fdw;
CREATE SERVER bp_server FOREIGN DATA WRAPPER bp_fdw;
CREATE FOREIGN TABLE bp3 PARTITION OF bp FOR VALUES IN (3) SERVER bp_server;
SELECT * FROM bp_state();
SELECT bloom_summary_refresh('bp', 'k');
SELECT * FROM bp_state();
DROP FOREIGN TABLE bp3;
DROP SERVER bp_server;
DROP FOREIGN DATA WRAPPER bp_fdw;

SELECT bloom_summary_drop('bp', 'k');
DROP TABLE bp;
DROP FUNCTION bp_state(), bp_has(regclass, bigint);
