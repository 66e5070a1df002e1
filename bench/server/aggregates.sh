#!/bin/bash
# bench/server/aggregates.sh: the aggregates against count(*) and
# hll_add_agg (not a test).  On a throwaway cluster, builds a table of ROWS
# distinct bigint values and prints, serially and with 2 parallel workers,
# the best of REPEAT runs of count(*), hll_add_agg(hll_hash_bigint(k))
# (postgresql-15-hll), bloom_agg(k, ROWS, 0.01) and bloom_agg(k), the
# ratios of these times measured in this run, then the size and the
# measured false-positive rate of the data-sized filter (aggregates.sql).
# Recorded in bench/results/aggregates-results.md.  Run as root (the server
# runs as postgres) or as the user the server should run as:
#
#   bench/server/aggregates.sh                 # 10^7 rows
#   ROWS=1000000 bench/server/aggregates.sh    # quicker
#   BIG=1 bench/server/aggregates.sh           # also bloom_agg over 10^8 distinct values
#
# Environment: PGBIN (default: the bindir of PG_CONFIG, else of pg_config
# in PATH), PORT (default 5519), REPEAT (timed runs per query, the best is
# reported; default 3).
set -eu

ROWS=${ROWS:-10000000}
PORT=${PORT:-5519}
REPEAT=${REPEAT:-3}
BIG=${BIG:-0}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin)

cluster_workdir
start_cluster bench "$PORT" listen_addresses= shared_buffers=1GB \
	max_worker_processes=8 max_parallel_workers=8 jit=off

psql_q() { psql_on bench -d postgres "$@"; }

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
psql_q -v rows="$ROWS" -f - <"$HERE/aggregates.sql"

if [ "$BIG" = 1 ]; then
	echo
	echo "10^8 distinct values (serial, default work_mem):"
	psql_q -v rows=100000000 -c '\timing on' -f - <"$HERE/aggregates.sql"
fi
