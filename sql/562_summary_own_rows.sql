-- A transaction's own rows under summary pruning
-- (src/summaries/summary_own_writes.c): from the start of a statement that
-- may write a summarised table, that statement and everything it runs (RI
-- checks, BEFORE and AFTER row triggers of any name, volatile functions)
-- and the rest of the transaction prune nothing on that table, since the
-- keys of its rows reach the summary only at commit.  Each check asserts
-- the values PostgreSQL gives without the summary
-- (bloomfilter.enable_summary_pruning = off); the first section shows the
-- same statements do skip partitions once the rows are committed.
SET client_min_messages = warning;
LOAD 'bloomfilter';
SET max_parallel_workers_per_gather = 0;

CREATE FUNCTION own_skipped(query text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	line text;
	n int := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		n := n + (line ~ '^ *Skipped by Summary:')::int;
	END LOOP;
	RETURN n;
END
$$;

-- 1. A self-referencing foreign key on a hash-partitioned table: the RI
-- check runs before the summary's trigger collects the new key.
CREATE TABLE fkn (k bigint PRIMARY KEY, parent bigint REFERENCES fkn (k))
    PARTITION BY HASH (k);
SELECT format('CREATE TABLE fkn_%s PARTITION OF fkn FOR VALUES WITH (MODULUS 4, REMAINDER %s)', r, r)
FROM generate_series(0, 3) r
\gexec
INSERT INTO fkn SELECT g, NULL FROM generate_series(1, 40) g;
SELECT bloom_summary_create('fkn', 'k', 1000, 0.01) > 0 AS created;
-- pruning is on for this table: a key of no row skips its partitions
SELECT own_skipped('SELECT * FROM fkn WHERE k = 1001') AS skipped_before;
INSERT INTO fkn VALUES (1001, 1001);
INSERT INTO fkn VALUES (2002, 2001), (2001, NULL);
INSERT INTO fkn VALUES (3003, 3002), (3002, 3001), (3001, 3003);
BEGIN;
INSERT INTO fkn VALUES (4001, NULL);
INSERT INTO fkn VALUES (4002, 4001);
COMMIT;
SELECT k, parent FROM fkn WHERE k > 1000 ORDER BY k;
-- committed: the keys are in the summary, a reader finds them
SELECT own_skipped('SELECT * FROM fkn WHERE k = 2001') AS skipped_after,
       (SELECT count(*) FROM fkn WHERE k = 2001) AS found;
-- a row without its parent is still refused
INSERT INTO fkn VALUES (5002, 5001);

-- 2. Rows written earlier in the same statement, seen by a volatile
-- function the statement calls.
CREATE TABLE ss (a int, k bigint, cnt bigint, PRIMARY KEY (k, a)) PARTITION BY HASH (k);
SELECT format('CREATE TABLE ss_%s PARTITION OF ss FOR VALUES WITH (MODULUS 4, REMAINDER %s)', r, r)
FROM generate_series(0, 3) r
\gexec
INSERT INTO ss SELECT g, g, 0 FROM generate_series(1, 40) g;
SELECT bloom_summary_create('ss', 'k', 1000, 0.01) > 0 AS created;
CREATE FUNCTION ss_cnt(key bigint) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	RETURN (SELECT count(*) FROM ss WHERE k = key);
END
$$;
SELECT own_skipped('SELECT * FROM ss WHERE k = 5000') AS skipped_before;
INSERT INTO ss SELECT g, 5000, ss_cnt(5000) FROM generate_series(1, 3) g;
SELECT cnt FROM ss WHERE k = 5000 ORDER BY a;
-- ON CONFLICT
INSERT INTO ss SELECT g, 6000, ss_cnt(6000) FROM generate_series(1, 3) g
ON CONFLICT (k, a) DO NOTHING;
INSERT INTO ss SELECT g, 6000, 0 FROM generate_series(1, 4) g
ON CONFLICT (k, a) DO UPDATE SET cnt = ss_cnt(6000) + 100;
SELECT a, cnt FROM ss WHERE k = 6000 ORDER BY a;
-- MERGE
MERGE INTO ss USING generate_series(1, 3) g ON false
WHEN NOT MATCHED THEN INSERT VALUES (g, 7000, ss_cnt(7000));
SELECT cnt FROM ss WHERE k = 7000 ORDER BY a;
-- a writable CTE, and the outer query's function after it
WITH w AS (INSERT INTO ss SELECT g, 8000, ss_cnt(8000) FROM generate_series(1, 3) g RETURNING cnt)
SELECT array_agg(cnt ORDER BY cnt) AS cte_counts FROM w;
WITH w AS (INSERT INTO ss VALUES (1, 8100, 0) RETURNING k)
SELECT ss_cnt(k) AS outer_count FROM w;
-- a function that writes, called by a SELECT, then a later read of the same
-- transaction
CREATE FUNCTION ss_put(key bigint) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	INSERT INTO ss VALUES (1, key, 0);
	RETURN ss_cnt(key);
END
$$;
BEGIN;
SELECT ss_put(8200) AS put_then_count;
SELECT count(*) AS later_in_transaction FROM ss WHERE k = 8200;
ROLLBACK;

-- 3. A BEFORE ROW trigger that counts earlier rows of the same key, and
-- COPY, which writes without an executor start of its own.
CREATE TABLE sb (a int, k bigint, cnt bigint) PARTITION BY HASH (k);
SELECT format('CREATE TABLE sb_%s PARTITION OF sb FOR VALUES WITH (MODULUS 4, REMAINDER %s)', r, r)
FROM generate_series(0, 3) r
\gexec
INSERT INTO sb SELECT g, g, 0 FROM generate_series(1, 40) g;
SELECT bloom_summary_create('sb', 'k', 1000, 0.01) > 0 AS created;
CREATE FUNCTION sb_count_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.cnt := (SELECT count(*) FROM sb WHERE k = NEW.k);
	RETURN NEW;
END
$$;
CREATE TRIGGER sb_before BEFORE INSERT ON sb FOR EACH ROW EXECUTE FUNCTION sb_count_before();
SELECT own_skipped('SELECT * FROM sb WHERE k = 5000') AS skipped_before;
INSERT INTO sb VALUES (1, 5000, NULL), (2, 5000, NULL), (3, 5000, NULL);
SELECT cnt FROM sb WHERE k = 5000 ORDER BY a;
COPY sb (a, k) FROM stdin;
1	6000
2	6000
3	6000
\.
SELECT cnt FROM sb WHERE k = 6000 ORDER BY a;

-- 4. An AFTER ROW trigger whose name sorts before the summary's trigger:
-- it runs before the summary collects the row's key.
CREATE TABLE sa (a int, k bigint) PARTITION BY HASH (k);
SELECT format('CREATE TABLE sa_%s PARTITION OF sa FOR VALUES WITH (MODULUS 4, REMAINDER %s)', r, r)
FROM generate_series(0, 3) r
\gexec
INSERT INTO sa SELECT g, g FROM generate_series(1, 40) g;
SELECT bloom_summary_create('sa', 'k', 1000, 0.01) > 0 AS created;
CREATE TABLE sa_log (a int, seen bigint);
CREATE FUNCTION sa_count_after() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	SELECT count(*) INTO n FROM sa WHERE k = NEW.k;
	INSERT INTO sa_log VALUES (NEW.a, n);
	RETURN NULL;
END
$$;
CREATE TRIGGER "a_sa_after" AFTER INSERT ON sa FOR EACH ROW EXECUTE FUNCTION sa_count_after();
SELECT 'a_sa_after' < min(tgname) AS sorts_first FROM pg_trigger
WHERE tgrelid = 'sa'::regclass AND tgname LIKE 'bloom_summary%';
INSERT INTO sa VALUES (1, 5000), (2, 5000), (3, 5000);
SELECT a, seen FROM sa_log ORDER BY a;

-- 5. An UPDATE moving rows into a partition whose filter lacks the key.
CREATE TABLE sm (p int, k bigint, seen bigint) PARTITION BY LIST (p);
CREATE TABLE sm_1 PARTITION OF sm FOR VALUES IN (1);
CREATE TABLE sm_2 PARTITION OF sm FOR VALUES IN (2);
CREATE TABLE sm_3 PARTITION OF sm FOR VALUES IN (3);
INSERT INTO sm VALUES (1, 9000, NULL), (1, 9000, NULL), (3, 1, NULL);
SELECT bloom_summary_create('sm', 'k', 1000, 0.01) > 0 AS created;
CREATE FUNCTION sm_in_2(key bigint) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	RETURN (SELECT count(*) FROM sm WHERE k = key AND p = 2);
END
$$;
SELECT own_skipped('SELECT * FROM sm WHERE k = 9000') AS skipped_before;
UPDATE sm SET p = 2, seen = sm_in_2(9000) WHERE p = 1;
SELECT seen FROM sm WHERE k = 9000 ORDER BY seen;

-- 6. The rest of the transaction: a read after the write, in the same
-- transaction, finds the row; a table the transaction did not write keeps
-- its pruning.
BEGIN;
INSERT INTO ss VALUES (1, 9100, 0);
SELECT count(*) AS own_row FROM ss WHERE k = 9100;
SELECT own_skipped('SELECT * FROM ss WHERE k = 9100') AS skipped_own,
       own_skipped('SELECT * FROM sa WHERE k = 9100') AS skipped_other;
SAVEPOINT s;
INSERT INTO sa VALUES (1, 9100);
ROLLBACK TO SAVEPOINT s;
SELECT own_skipped('SELECT * FROM sa WHERE k = 9100') AS skipped_after_rollback_to;
COMMIT;
-- and after the commit, the summary holds the key: partitions are skipped again
SELECT own_skipped('SELECT * FROM ss WHERE k = 9100') AS skipped_committed,
       (SELECT count(*) FROM ss WHERE k = 9100) AS found;

-- Every read above, without the summary, for comparison.
SET bloomfilter.enable_summary_pruning = off;
SELECT (SELECT count(*) FROM fkn WHERE k > 1000) AS fkn_rows,
       (SELECT array_agg(cnt ORDER BY k, a) FROM ss WHERE k >= 5000) AS ss_counts,
       (SELECT array_agg(cnt ORDER BY k, a) FROM sb WHERE k >= 5000) AS sb_counts,
       (SELECT array_agg(seen ORDER BY a) FROM sa_log) AS sa_seen,
       (SELECT array_agg(seen ORDER BY seen) FROM sm WHERE k = 9000) AS sm_seen;
RESET bloomfilter.enable_summary_pruning;
SELECT (SELECT count(*) FROM fkn WHERE k > 1000) AS fkn_rows,
       (SELECT array_agg(cnt ORDER BY k, a) FROM ss WHERE k >= 5000) AS ss_counts,
       (SELECT array_agg(cnt ORDER BY k, a) FROM sb WHERE k >= 5000) AS sb_counts,
       (SELECT array_agg(seen ORDER BY a) FROM sa_log) AS sa_seen,
       (SELECT array_agg(seen ORDER BY seen) FROM sm WHERE k = 9000) AS sm_seen;

DROP TABLE fkn, ss, sb, sa, sa_log, sm;
DROP FUNCTION own_skipped(text), ss_cnt(bigint), ss_put(bigint), sb_count_before(),
    sa_count_after(), sm_in_2(bigint);
