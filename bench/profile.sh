#!/bin/bash
# bench/profile.sh: where the time of a serial probe scan and of bloom_agg
# goes.  Samples the backend with perf's cpu-clock event (a software event:
# it works where the hardware counters are not exposed, as in most VMs) on a
# throwaway cluster, and prints the top symbols of each query.
#
# Run as root (the server runs as postgres), extension installed.
# Settings: PROF_ROWS (5000000) rows of random bigints, PROF_PORT (5532),
# PROF_DIR (/tmp/bloomfilter-profile), PROF_TOP (15) symbols per query.
set -euo pipefail
ROWS=${PROF_ROWS:-5000000}
PORT=${PROF_PORT:-5532}
DIR=${PROF_DIR:-/tmp/bloomfilter-profile}
TOP=${PROF_TOP:-15}
BIN=$(pg_config --bindir)
as_pg() { runuser -u postgres -- "$@"; }
PSQL=(as_pg "$BIN/psql" -X -q -h "$DIR" -p "$PORT" -d postgres -v ON_ERROR_STOP=1)

rm -rf "$DIR"
mkdir -p "$DIR"
chown postgres "$DIR"
as_pg "$BIN/initdb" -D "$DIR/data" -A trust >/dev/null
cleanup() {
	as_pg "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$DIR"
}
trap cleanup EXIT
as_pg "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -o \
	"-p $PORT -k $DIR -c listen_addresses='' -c shared_buffers=1GB -c jit=off \
	 -c work_mem=1GB -c autovacuum=off -c max_parallel_workers_per_gather=0" start >/dev/null

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
	local label=$1 sql=$2 pidfile=$DIR/pid data=$DIR/perf.data
	rm -f "$pidfile"
	{
		echo "SELECT pg_backend_pid() \\g $pidfile"
		echo "SELECT pg_sleep(1);"
		echo '\timing on'
		for _ in 1 2 3; do echo "$sql;"; done
	} | "${PSQL[@]}" -tA >"$DIR/out" &
	local client=$!
	while [ ! -s "$pidfile" ]; do sleep 0.1; done
	perf record -q -e cpu-clock -F 2000 -o "$data" -p "$(cat "$pidfile")" 2>/dev/null &
	local rec=$!
	wait $client
	wait $rec || true
	echo "## $label: $sql"
	grep '^Time:' "$DIR/out" | sed 's/^/# /'
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
