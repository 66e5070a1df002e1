#!/bin/bash
# bench/server/summary_reads.sh: pruning by a managed summary
# (doc/summaries.md, "How queries use a summary").  365 daily partitions,
# ROWS rows (10^7), each user in 1 to 3 days.  For KEYS random users:
# `SELECT * FROM events WHERE user_id = $1` through one generic plan
# (PL/pgSQL, plan_cache_mode = force_generic_plan) with the summary's
# pruning off and on, interleaved (the order alternates per key), with JIT
# as the server has it and then off for both; the ratio of the total times; the partitions read per key against the days holding
# it (the rest are the filters' false positives, about 365 x fpp).  Then
# the planning time of queries the summary leaves alone (a plain table, and
# a partitioned table of 365 partitions without a summary), the setting on
# and off, interleaved, medians.  Results:
# bench/results/summary-reads-results.md.
#
#   bash bench/server/summary_reads.sh
#   ROWS=1000000 KEYS=20 bash bench/server/summary_reads.sh
#
# Environment: ROWS (10000000), KEYS (20), REPS (runs per key and mode, 2;
# the ratio of the sums of each key's fastest run is reported beside the
# ratio of the totals: on a loaded machine the short pruned queries suffer
# most from scheduling delays), PLANS (planning samples per
# mode, 301), FPP (0.01), PGBIN or PG_CONFIG (the installation; default:
# pg_config in PATH), OUT (the results file).  Starts a throwaway cluster
# (as the postgres OS user when run as root) and removes it on exit.
set -euo pipefail

ROWS=${ROWS:-10000000}
KEYS=${KEYS:-20}
REPS=${REPS:-2}			# timed runs per key and mode
PLANS=${PLANS:-301}
FPP=${FPP:-0.01}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${OUT:-$HERE/../results/summary-reads-results.md}
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin)

cluster_workdir
start_cluster bench "" listen_addresses= shared_buffers=1GB work_mem=64MB \
	max_parallel_workers_per_gather=0 shared_preload_libraries=bloomfilter

# Users 1..U, each in 1 + u % 3 days (spread over the year), 5 rows a day:
# ROWS rows in all.
LOAD_START=$(cut -d' ' -f1 /proc/loadavg)
USERS=$((ROWS / 10))
echo "loading $ROWS rows of $USERS users into 365 partitions" >&2
T0=$(date +%s)
psql_on bench <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE events (day date NOT NULL, user_id bigint NOT NULL, payload text)
	PARTITION BY RANGE (day);
SELECT format('CREATE TABLE events_%s PARTITION OF events FOR VALUES FROM (%L) TO (%L)',
              to_char(d, 'YYYYMMDD'), d, d + 1)
FROM generate_series(date '2025-01-01', date '2025-12-31', interval '1 day') g(d0),
     LATERAL (SELECT d0::date AS d) x
\gexec
INSERT INTO events
SELECT date '2025-01-01' + ((u::bigint * 7919 + j * 131) % 365)::int, u, 'payload of ' || u
FROM generate_series(1, $USERS) u, generate_series(0, u % 3) j, generate_series(1, 5) r;
ANALYZE events;
-- the same partitions, empty and without a summary: planning left alone
CREATE TABLE other (day date NOT NULL, user_id bigint NOT NULL, payload text)
	PARTITION BY RANGE (day);
SELECT format('CREATE TABLE other_%s PARTITION OF other FOR VALUES FROM (%L) TO (%L)',
              to_char(d, 'YYYYMMDD'), d, d + 1)
FROM generate_series(date '2025-01-01', date '2025-12-31', interval '1 day') g(d0),
     LATERAL (SELECT d0::date AS d) x
\gexec
CREATE TABLE plain (id int PRIMARY KEY, v text);
INSERT INTO plain SELECT g, 'v' FROM generate_series(1, 1000) g;
ANALYZE plain, other;
SQL
T1=$(date +%s)
# capacity: the distinct users of the busiest day, with headroom
CAPACITY=$(psql_on bench -At -c "SELECT (max(n) * 1.2)::bigint FROM (SELECT count(DISTINCT user_id) n FROM events GROUP BY day) s")
psql_on bench -At -c "SELECT bloom_summary_create('events', 'user_id', $CAPACITY, $FPP)" >/dev/null
T2=$(date +%s)
ACTUAL_ROWS=$(psql_on bench -At -c "SELECT count(*) FROM events")
SUMMARY=$(psql_on bench -At -F ' ' -c "SELECT count(*), pg_size_pretty(sum(pg_column_size(filter))::bigint), bool_and(trusted) FROM bloom_summary_part")

psql_on bench <<'SQL'
-- Two functions, so that each has its own cached plan, made (and made
-- again after any invalidation, such as autovacuum's ANALYZE) under its
-- own setting: timed_off's plan is the plan without summary pruning.
CREATE FUNCTION timed_on(k bigint, jit boolean) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	n bigint;
BEGIN
	PERFORM set_config('bloomfilter.enable_summary_pruning', 'on', true);
	PERFORM set_config('jit', jit::text, true);
	t0 := clock_timestamp();
	SELECT count(*) INTO n FROM (SELECT * FROM events WHERE user_id = k) s;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END
$$;
CREATE FUNCTION timed_off(k bigint, jit boolean) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	n bigint;
BEGIN
	PERFORM set_config('bloomfilter.enable_summary_pruning', 'off', true);
	PERFORM set_config('jit', jit::text, true);
	t0 := clock_timestamp();
	SELECT count(*) INTO n FROM (SELECT * FROM events WHERE user_id = k) s;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END
$$;
-- jit: the server's setting (on: the planner's choice for the plan of all
-- partitions, which a pruned plan lowers to what its remaining cost
-- passes), or off for both
CREATE FUNCTION timed(k bigint, pruning boolean, jit boolean DEFAULT true) RETURNS float8 LANGUAGE sql AS $$
	SELECT CASE WHEN pruning THEN timed_on(k, jit) ELSE timed_off(k, jit) END
$$;
-- partitions read for key k: the scans EXPLAIN ANALYZE shows executed
CREATE FUNCTION scans_read(k bigint) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	line text;
	n int := 0;
BEGIN
	FOR line IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE q(%s)', k) LOOP
		IF line ~ 'Seq Scan on' THEN
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END
$$;
SQL
psql_on bench -f "$HERE/planning_ms.sql" >/dev/null

# The keys, their days, the times off/on (order alternating), the scans.
RESULT=$(psql_on bench -At -F ' ' <<SQL
SET plan_cache_mode = force_generic_plan;
PREPARE q(bigint) AS SELECT * FROM events WHERE user_id = \$1;
SELECT setseed(0.365);
CREATE TEMP TABLE keys AS SELECT i, 1 + (random() * ($USERS - 1))::bigint AS k FROM generate_series(1, $KEYS) i;
-- warm both paths (buffers, the filters' per-backend cache)
SELECT sum(timed(k, true)) + sum(timed(k, false)) >= 0 FROM keys WHERE i <= 2;
-- one SELECT, no write: a transaction that wrote prunes nothing; jit as
-- the server has it, then off for both
CREATE TEMP TABLE runs AS
SELECT jit, i, k, rep, t[1] AS off_ms, t[2] AS on_ms
FROM (VALUES (true), (false)) j(jit), keys, generate_series(1, $REPS) rep,
     LATERAL (SELECT CASE WHEN (i + rep) % 2 = 0
                          THEN ARRAY[timed(k, false, jit), timed(k, true, jit)]
                          ELSE (SELECT ARRAY[b, a] FROM (SELECT timed(k, true, jit) AS a) x,
                                       LATERAL (SELECT timed(k, false, jit) AS b) y) END AS t) s;
WITH best AS (SELECT jit, k, min(off_ms) AS off_ms, min(on_ms) AS on_ms FROM runs GROUP BY jit, k)
SELECT CASE WHEN jit THEN 'ratio' ELSE 'ratio_nojit' END, round((sum(off_ms) / sum(on_ms))::numeric, 1),
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY off_ms)::numeric, 2),
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY on_ms)::numeric, 3),
       (SELECT round((sum(b.off_ms) / sum(b.on_ms))::numeric, 1) FROM best b WHERE b.jit = r.jit)
FROM runs r GROUP BY jit;
SELECT 'scans', sum(days), sum(read), max(read - days), sum(read - days), count(*) FILTER (WHERE read < days)
FROM (SELECT k, (SELECT count(DISTINCT day) FROM events WHERE user_id = k) AS days, scans_read(k) AS read
      FROM keys) s;
SQL
)
RATIO=$(awk '$1 == "ratio" { print $2 }' <<<"$RESULT")
MED_OFF=$(awk '$1 == "ratio" { print $3 }' <<<"$RESULT")
MED_ON=$(awk '$1 == "ratio" { print $4 }' <<<"$RESULT")
RATIO_BEST=$(awk '$1 == "ratio" { print $5 }' <<<"$RESULT")
NJ_RATIO=$(awk '$1 == "ratio_nojit" { print $2 }' <<<"$RESULT")
NJ_MED_OFF=$(awk '$1 == "ratio_nojit" { print $3 }' <<<"$RESULT")
NJ_MED_ON=$(awk '$1 == "ratio_nojit" { print $4 }' <<<"$RESULT")
NJ_RATIO_BEST=$(awk '$1 == "ratio_nojit" { print $5 }' <<<"$RESULT")
read -r _ DAYS READ MAX_FP SUM_FP UNDER < <(awk '$1 == "scans"' <<<"$RESULT")

# Planning time of queries left alone, interleaved on/off, medians.
PLAN=$(psql_on bench -At -F ' ' <<SQL
CREATE TEMP TABLE p AS
SELECT w.what, (i + pr) % 2 = 0 AS pruning,
       planning_ms(CASE WHEN set_config('bloomfilter.enable_summary_pruning', ((i + pr) % 2 = 0)::text, false) IS NULL
                        THEN NULL ELSE w.query END) AS ms
FROM generate_series(1, $PLANS) i, generate_series(0, 1) pr,
     (VALUES ('plain', 'SELECT * FROM plain WHERE id = 42'),
             ('other', 'SELECT * FROM other WHERE user_id = 42'),
             ('events', 'SELECT * FROM events WHERE user_id = 42')) w(what, query);
SELECT what, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE NOT pruning)::numeric, 4),
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE pruning)::numeric, 4)
FROM p GROUP BY what ORDER BY what;
SQL
)
plan_row() { awk -v w="$1" '$1 == w { printf "| %s | %s | %s | %+.4f |\n", w, $2, $3, $3 - $2 }' <<<"$PLAN"; }

mkdir -p "$(dirname "$OUT")"
{
	echo "# Pruning by a managed summary: reads"
	echo
	echo "bench/server/summary_reads.sh, $(date -u +%Y-%m-%d), PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}'), $(nproc) cores (shared, load average $LOAD_START at the start, $(cut -d' ' -f1 /proc/loadavg) at the end)."
	echo "$ACTUAL_ROWS rows in 365 daily partitions, $USERS users each in 1 to 3 days; summary: capacity $CAPACITY, fpp $FPP ($SUMMARY: part rows, filter bytes, all trusted); load $((T1 - T0)) s, summary created in $((T2 - T1)) s."
	echo
	echo "\`SELECT * FROM events WHERE user_id = \$1\`, one generic plan, $KEYS random users, $REPS runs each, pruning off and on interleaved; JIT as the server has it (the default: the planner's choice for the plan of all partitions, lowered by a pruned plan to what its remaining cost passes), then \`jit = off\` for both:"
	echo
	echo "| | pruning off | pruning on | pruning off, jit off | pruning on, jit off |"
	echo "|---|---|---|---|---|"
	echo "| median time per query (ms) | $MED_OFF | $MED_ON | $NJ_MED_OFF | $NJ_MED_ON |"
	echo "| total time ratio off / on | | **${RATIO}x** | | ${NJ_RATIO}x |"
	echo "| ratio of the sums of each key's fastest run | | **${RATIO_BEST}x** | | ${NJ_RATIO_BEST}x |"
	echo
	echo "Partitions read, over the $KEYS keys: $READ, of which $DAYS hold the key and $SUM_FP are false positives (at most $MAX_FP for one key; expected about $(awk -v f="$FPP" 'BEGIN { printf "%.1f", 365 * f }') per key at fpp $FPP); keys with a holding day skipped: $UNDER (must be 0)."
	echo
	echo "Planning time (ms, median of $PLANS, interleaved) with the setting off and on:"
	echo
	echo "| query | off | on | added |"
	echo "|---|---|---|---|"
	plan_row plain
	plan_row other
	plan_row events
	echo
	echo "plain: \`SELECT * FROM plain WHERE id = 42\` (no partition); other: the same query on 365 partitions without a summary; events: the summarised table (the candidates are found at planning; the decision is at executor start, not in this time)."
} | tee "$OUT"
