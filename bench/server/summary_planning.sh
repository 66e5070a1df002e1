#!/bin/bash
# bench/server/summary_planning.sh: the planning time that summary pruning
# adds to a query on a summarised table (not a test).
#
# A table of 365 daily partitions (ROWS rows) with a managed summary of
# user_id; `EXPLAIN (SUMMARY ON) SELECT * FROM events WHERE user_id = k`,
# its "Planning Time", with bloomfilter.enable_summary_pruning on and off in
# turn.  With BASE_PG_CONFIG, a second cluster runs the same with the
# library installed there (the code before a change): each of ROUNDS rounds
# takes PLANS samples on one cluster and then on the other, so that the
# machine's load falls on both alike.  Printed: per library, the medians
# with pruning off and on and their difference (the planning added).
#
#   bash bench/server/summary_planning.sh
#   BASE_PG_CONFIG=/old/bin/pg_config bash bench/server/summary_planning.sh
#
# Options (environment): PG_CONFIG or PGBIN (this library's installation),
# BASE_PG_CONFIG, ROWS (rows of the table, 300000), ROUNDS (10), PLANS
# (samples per round and cluster, half with pruning on, 60).  JIT is off
# (its compile time is not planning).  Run as root (the servers run as the
# postgres OS user) or as the user the servers should run as.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
ROWS=${ROWS:-300000}
ROUNDS=${ROUNDS:-10}
PLANS=${PLANS:-60}

cluster_workdir
LIBS=(this)
export PGBIN
PGBIN=$(default_pgbin)
start_cluster this "" listen_addresses= shared_preload_libraries=bloomfilter autovacuum=off jit=off
if [ -n "${BASE_PG_CONFIG:-}" ]; then
	PGBIN=$("$BASE_PG_CONFIG" --bindir)
	start_cluster base "" listen_addresses= shared_preload_libraries=bloomfilter autovacuum=off jit=off
	LIBS+=(base)
fi

USERS=$((ROWS / 3))
for lib in "${LIBS[@]}"; do
	psql_on "$lib" <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE events (day date NOT NULL, user_id bigint NOT NULL, payload text)
	PARTITION BY RANGE (day);
SELECT format('CREATE TABLE events_%s PARTITION OF events FOR VALUES FROM (%L) TO (%L)',
              to_char(d, 'YYYYMMDD'), d, d + 1)
FROM generate_series(date '2025-01-01', date '2025-12-31', interval '1 day') g(d0),
     LATERAL (SELECT d0::date AS d) x
\gexec
INSERT INTO events
SELECT date '2025-01-01' + ((u::bigint * 7919 + j * 131) % 365)::int, u, 'p'
FROM generate_series(1, $USERS) u, generate_series(0, u % 3) j;
ANALYZE events;
SELECT bloom_summary_create('events', 'user_id', 2000, 0.01) > 0 AS created;
\i $HERE/planning_ms.sql
CREATE TABLE samples (pruning boolean, ms float8);
SQL
done >/dev/null

for _ in $(seq 1 "$ROUNDS"); do
	for lib in "${LIBS[@]}"; do
		psql_on "$lib" -c "INSERT INTO samples
			SELECT i % 2 = 0, planning_ms(CASE WHEN set_config('bloomfilter.enable_summary_pruning',
			                                                   (i % 2 = 0)::text, false) IS NULL
			                                   THEN '' ELSE 'SELECT * FROM events WHERE user_id = ' || i END)
			FROM generate_series(1, $PLANS) i"
	done
done

echo "Planning time of SELECT * FROM events WHERE user_id = k, 365 summarised partitions,"
echo "$ROUNDS rounds of $PLANS samples per library, medians (ms):"
printf '%-6s %10s %10s %10s %8s\n' library off on added samples
for lib in "${LIBS[@]}"; do
	psql_on "$lib" -At -F ' ' -c "
		SELECT round(off::numeric, 3), round(\"on\"::numeric, 3), round((\"on\" - off)::numeric, 3), n
		FROM (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE NOT pruning) AS off,
		             percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE pruning) AS \"on\",
		             count(*) AS n
		      FROM samples) s" |
		while read -r off on added n; do
			printf '%-6s %10s %10s %10s %8s\n' "$lib" "$off" "$on" "+$added" "$n"
		done
done
