-- The summary targets of bench/server/run.sh, on a cluster with the
-- library preloaded (:parts partitions of the large table, 0: none).
--
-- events365: 365 daily partitions, 100 users a day, a managed summary;
-- plain365: the same without a summary.  e_many: :parts partitions of 10
-- rows each, a managed summary.  planning_ms(q) is EXPLAIN's planning
-- time; exec_ms(k, mode) times one execution of a generic plan over
-- e_many for key k (plan_cache_mode = force_generic_plan), the summary's
-- pruning 'on' or 'off'; 'floor' also fixes the partition key to a
-- parameter that no partition holds (-1), so that PostgreSQL's own
-- executor-start pruning removes every partition: the floor of a generic
-- plan's start over :parts partitions (its locks, the Append's initial
-- pruning), which the summary's decision adds to.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
CREATE TABLE events365 (day date NOT NULL, user_id bigint NOT NULL) PARTITION BY RANGE (day);
CREATE TABLE plain365 (LIKE events365) PARTITION BY RANGE (day);
SELECT format('CREATE TABLE %s_%s PARTITION OF %s FOR VALUES FROM (%L) TO (%L)',
              t, to_char(d, 'YYYYMMDD'), t, d, d + 1)
FROM (VALUES ('events365'), ('plain365')) p(t),
     generate_series(date '2025-01-01', date '2025-12-31', interval '1 day') g(d0),
     LATERAL (SELECT d0::date AS d) x
\gexec
INSERT INTO events365 SELECT date '2025-01-01' + (u % 365), u FROM generate_series(1, 36500) u;
INSERT INTO plain365 SELECT * FROM events365;
ANALYZE events365, plain365;
SELECT bloom_summary_create('events365', 'user_id', 200, 0.01) IS NOT NULL AS summarised;

CREATE TABLE e_many (p int NOT NULL, user_id bigint NOT NULL) PARTITION BY RANGE (p);
SELECT format('CREATE TABLE e_many_%s PARTITION OF e_many FOR VALUES FROM (%s) TO (%s)', i, i, i + 1)
FROM generate_series(0, :parts - 1) i
\gexec
INSERT INTO e_many SELECT g / 10, g FROM generate_series(0, 10 * :parts - 1) g;
ANALYZE e_many;
SELECT bloom_summary_create('e_many', 'user_id', 20, 0.01) IS NOT NULL AS summarised WHERE :parts > 0;
SELECT count(*) AS parts, count(*) FILTER (WHERE trusted) AS trusted
FROM bloom_summary_part WHERE partition::text LIKE 'e_many%';

\ir planning_ms.sql
-- One statement per mode, so that each keeps its own cached generic plan,
-- made under its own setting (a plan made with the pruning off asks
-- nothing when run with it on).
CREATE FUNCTION exec_ms(k bigint, mode text, part int DEFAULT -1) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	n bigint;
BEGIN
	PERFORM set_config('bloomfilter.enable_summary_pruning', (mode = 'on')::text, true);
	t0 := clock_timestamp();
	IF mode = 'on' THEN
		SELECT count(*) INTO n FROM e_many WHERE user_id = k;
	ELSIF mode = 'off' THEN
		SELECT count(*) INTO n FROM e_many WHERE user_id = k;
	ELSE	-- the floor: no partition holds p = part (-1), a parameter
		SELECT count(*) INTO n FROM e_many WHERE user_id = k AND p = part;
	END IF;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END
$$;

-- The backend's own CPU time (user + system, in ms, 10 ms ticks) from
-- /proc/self/stat (Linux, superuser): on a shared machine the wall-clock
-- medians above grow with the load of others, the CPU time of one backend
-- much less.  exec_cpu_ms(mode, n): per execution, over n executions.
CREATE FUNCTION cpu_ms() RETURNS float8 LANGUAGE sql AS $$
	SELECT ((f[12])::bigint + (f[13])::bigint) * 10.0
	FROM (SELECT string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ') AS f) s
$$;
CREATE FUNCTION exec_cpu_ms(mode text, n int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0 float8 := cpu_ms();
	x float8;
BEGIN
	FOR i IN 1..n LOOP
		x := exec_ms(-1000 - i, mode);
	END LOOP;
	RETURN (cpu_ms() - t0) / n;
END
$$;
