#!/bin/sh
# Benchmark of the aggregates (not a test): builds a table of N rows (default
# 10^7) on a throwaway cluster and prints, measured in the same run,
# bloom_agg(k) and bloom_agg(k, N, 0.01) against count(*) and against
# hll_add_agg(hll_hash_bigint(k)) (postgresql-15-hll), serially and with 2
# parallel workers, then checks the false-positive rate of the data-sized
# filter.  Run as root or as the postgres user:
#
#   bench/aggregates.sh                 # 10^7 rows
#   ROWS=1000000 bench/aggregates.sh    # quicker
#   BIG=1 bench/aggregates.sh           # also bloom_agg over 10^8 distinct values
#
# Environment: PGBIN (default: pg_config --bindir), PORT (default 5519),
# REPEAT (timed runs per query, the best is reported; default 3).
set -eu

ROWS=${ROWS:-10000000}
PORT=${PORT:-5519}
REPEAT=${REPEAT:-3}
BIG=${BIG:-0}
PGBIN=${PGBIN:-$(pg_config --bindir)}
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d /tmp/bloom-bench.XXXXXX)

as_postgres() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cleanup() {
	as_postgres "$PGBIN/pg_ctl" -D "$DIR/data" stop -m immediate >/dev/null 2>&1 || true
	rm -rf "$DIR"
}
trap cleanup EXIT INT TERM

[ "$(id -u)" = 0 ] && chown postgres "$DIR"
as_postgres "$PGBIN/initdb" -D "$DIR/data" -A trust >/dev/null
as_postgres "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -o \
	"-p $PORT -k $DIR -c listen_addresses='' -c shared_buffers=1GB -c max_worker_processes=8 -c max_parallel_workers=8 -c jit=off" \
	start >/dev/null

psql_q() {
	as_postgres "$PGBIN/psql" -X -q -h "$DIR" -p "$PORT" -U postgres -v ON_ERROR_STOP=1 -d postgres "$@"
}

psql_q -c "CREATE EXTENSION bloomfilter" -c "CREATE EXTENSION hll"
echo "building a table of $ROWS rows (k bigint, all distinct) ..."
psql_q -c "CREATE TABLE bench AS SELECT g::bigint AS k FROM generate_series(1, $ROWS) g" \
	-c "VACUUM ANALYZE bench" -c "SELECT count(*) FROM bench" >/dev/null

# Best of REPEAT runs of a query, in milliseconds, with the given settings.
time_query() {
	settings=$1
	query=$2
	best=
	i=0
	while [ $i -lt "$REPEAT" ]; do
		ms=$(psql_q -c "$settings" -c '\timing on' -c "SELECT v IS NULL FROM ($query) q(v)" 2>&1 |
			sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
		if [ -z "$best" ] || [ "$(echo "$ms < $best" | bc)" = 1 ]; then best=$ms; fi
		i=$((i + 1))
	done
	echo "$best"
}

SERIAL="SET max_parallel_workers_per_gather = 0"
PARALLEL="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = on"

Q_COUNT="SELECT count(*) FROM bench"
Q_HLL="SELECT hll_add_agg(hll_hash_bigint(k)) FROM bench"
Q_FIXED="SELECT bloom_agg(k, $ROWS, 0.01) FROM bench"
Q_AUTO="SELECT bloom_agg(k) FROM bench"

echo "plans (parallel settings):"
psql_q -c "$PARALLEL" -c "EXPLAIN (COSTS OFF) $Q_FIXED" | sed 's/^/    /'

printf '\n%-34s %12s %12s %10s\n' "query ($ROWS rows, best of $REPEAT)" "serial ms" "2 workers ms" "speed-up"
for name in COUNT HLL FIXED AUTO; do
	eval q=\$Q_$name
	s=$(time_query "$SERIAL" "$q")
	p=$(time_query "$PARALLEL" "$q")
	eval T_S_$name=$s
	eval T_P_$name=$p
	printf '%-34s %12.1f %12.1f %9.2fx\n' "$(echo "$q" | sed 's/SELECT \(.*\) FROM bench/\1/')" "$s" "$p" "$(echo "$s / $p" | bc -l)"
done

ratio() { echo "$1 / $2" | bc -l; }
printf '\nratios (same run):\n'
printf '  fixed bloom_agg / count(*):     serial %.2f  parallel %.2f   (target <= 1.4)\n' \
	"$(ratio "$T_S_FIXED" "$T_S_COUNT")" "$(ratio "$T_P_FIXED" "$T_P_COUNT")"
printf '  fixed bloom_agg / hll_add_agg:  serial %.2f  parallel %.2f   (target <= 1.0)\n' \
	"$(ratio "$T_S_FIXED" "$T_S_HLL")" "$(ratio "$T_P_FIXED" "$T_P_HLL")"
printf '  auto bloom_agg / count(*):      serial %.2f  parallel %.2f\n' \
	"$(ratio "$T_S_AUTO" "$T_S_COUNT")" "$(ratio "$T_P_AUTO" "$T_P_COUNT")"
printf '  auto bloom_agg / hll_add_agg:   serial %.2f  parallel %.2f\n' \
	"$(ratio "$T_S_AUTO" "$T_S_HLL")" "$(ratio "$T_P_AUTO" "$T_P_HLL")"

echo
echo "false-positive rate of the data-sized filter ($ROWS distinct values, 10^6 absent probes):"
psql_q -v rows="$ROWS" -f "$HERE/aggregates.sql"

if [ "$BIG" = 1 ]; then
	echo
	echo "10^8 distinct values (serial, default work_mem):"
	psql_q -v rows=100000000 -c '\timing on' -f "$HERE/aggregates.sql"
fi
