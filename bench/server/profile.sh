#!/bin/bash
# bench/server/profile.sh: where the time of a serial probe scan and of
# bloom_agg goes.  On a throwaway cluster with a table of PROF_ROWS random
# bigints and filters of 10^5 and 10^7 keys (both layouts), it samples the
# backend with perf's cpu-clock event (a software event: it works where the
# hardware counters are not exposed, as in most VMs) while it runs each
# query three times, and prints the times and the top symbols of: count(*),
# the trivial predicate, the probe scan with each of the four filters, and
# bloom_agg(k, PROF_ROWS, 0.01) in both layouts.  Discussed in
# doc/performance.md (where the time goes).
#
# Run as root (perf attaches to the backend; the server runs as postgres),
# extension installed.
# Settings: PROF_ROWS (5000000) rows of random bigints, PROF_PORT (5532),
# PROF_DIR (/tmp/bloomfilter-profile; emptied), PROF_TOP (15) symbols per
# query, PGBIN or PG_CONFIG (the installation; default: pg_config in PATH).
set -euo pipefail
ROWS=${PROF_ROWS:-5000000}
PORT=${PROF_PORT:-5532}
DIR=${PROF_DIR:-/tmp/bloomfilter-profile}
TOP=${PROF_TOP:-15}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin)

cluster_workdir "$DIR"
start_cluster bench "$PORT" listen_addresses= shared_buffers=1GB jit=off \
	work_mem=1GB autovacuum=off max_parallel_workers_per_gather=0
PSQL=(psql_on bench -d postgres)

"${PSQL[@]}" <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION pg_prewarm;
CREATE TABLE t AS SELECT hashint8extended(g, 1) AS k FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE t;
CREATE TABLE filters AS
SELECT n || '_' || layout AS name,
       (SELECT bloom_agg(hashint8extended(g, 1), n, 0.01, layout)
        FROM generate_series($ROWS / 2 + 1, $ROWS / 2 + n) g) AS f
FROM (VALUES (100000), (10000000)) s(n), (VALUES ('classic'), ('blocked')) l(layout);
SELECT pg_prewarm('t');
SQL

# profile LABEL SQL: run SQL three times in one backend under perf record
profile() {
	local label=$1 sql=$2 pidfile=$WORK_DIR/pid data=$WORK_DIR/perf.data
	rm -f "$pidfile"
	{
		echo "SELECT pg_backend_pid() \\g $pidfile"
		echo "SELECT pg_sleep(1);"
		echo '\timing on'
		for _ in 1 2 3; do echo "$sql;"; done
	} | "${PSQL[@]}" -tA >"$WORK_DIR/out" &
	local client=$!
	while [ ! -s "$pidfile" ]; do sleep 0.1; done
	perf record -q -e cpu-clock -F 2000 -o "$data" -p "$(cat "$pidfile")" 2>/dev/null &
	local rec=$!
	wait $client
	wait $rec || true
	echo "## $label: $sql"
	grep '^Time:' "$WORK_DIR/out" | sed 's/^/# /'
	perf report -i "$data" --no-children --sort dso,symbol --stdio 2>/dev/null |
		grep -v '^#' | grep -v '^$' | sed 's/  *-  *-  *$//' | head -"$TOP" || true
	echo
}

profile "count(*)" "SELECT count(*) FROM t"
profile "trivial predicate" "SELECT count(*) FROM t WHERE hashint8(k) <> 0"
for f in 100000_classic 100000_blocked 10000000_classic 10000000_blocked; do
	profile "probe $f" "SELECT count(*) FROM t WHERE bloom_contains((SELECT f FROM filters WHERE name = '$f'), k)"
done
profile "bloom_agg(k, n, 0.01)" "SELECT bloom_fpp(bloom_agg(k, $ROWS, 0.01)) FROM t"
profile "bloom_agg(k, n, 0.01, 'blocked')" "SELECT bloom_fpp(bloom_agg(k, $ROWS, 0.01, 'blocked')) FROM t"
