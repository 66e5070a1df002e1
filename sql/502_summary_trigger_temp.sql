-- bloom_summary_trigger resolves its summary table name in the session that
-- writes to the source table.  A temporary table of the same name there must
-- not take the keys away from the shared summary: the trigger refuses it.
CREATE TABLE st_src (day int, k int);
CREATE TABLE st_summary (day int PRIMARY KEY, filter bloom);
CREATE TRIGGER st_keep AFTER INSERT ON st_src REFERENCING NEW TABLE AS bloom_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION bloom_summary_trigger('st_summary', 'day', 'k', 1000, 0.01);
INSERT INTO st_src VALUES (1, 42);
SELECT day, bloom_contains(filter, 42) FROM st_summary;
-- a session shadows the summary with a temporary table of the same name
CREATE TEMP TABLE st_summary (day int PRIMARY KEY, filter bloom);
INSERT INTO st_src VALUES (1, 43);
SELECT count(*) AS diverted FROM pg_temp.st_summary;
SELECT bloom_contains(filter, 43) AS in_shared FROM public.st_summary;
DROP TABLE pg_temp.st_summary;
-- a schema-qualified name is not affected by the session's tables
DROP TRIGGER st_keep ON st_src;
CREATE TRIGGER st_keep AFTER INSERT ON st_src REFERENCING NEW TABLE AS bloom_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION bloom_summary_trigger('public.st_summary', 'day', 'k', 1000, 0.01);
CREATE TEMP TABLE st_summary (day int PRIMARY KEY, filter bloom);
INSERT INTO st_src VALUES (1, 44);
SELECT count(*) AS diverted FROM pg_temp.st_summary;
SELECT bloom_contains(filter, 44) AS in_shared FROM public.st_summary;
DROP TABLE pg_temp.st_summary;
DROP TABLE st_src, st_summary;
