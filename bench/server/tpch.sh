#!/bin/bash
# bench/server/tpch.sh: the runtime join filters (doc/join_filters.md) on a
# TPC-H-like suite: the 22 queries, bloomfilter.join_filter off and on, on a
# throwaway cluster with the library preloaded.  Issue 36's first target (no
# query slower than 1.03x with the feature on); its output is recorded in
# bench/results/tpch-results.md.
#
# Data: bench/server/tpch/gen.sql, the eight tables at scale factor
# BENCH_SF, generated in SQL from hashes of the row numbers (deterministic;
# lineitem about 6 * 10^6 * BENCH_SF rows), primary keys, an index on
# lineitem(l_partkey), ANALYZE; then pg_prewarm of every table.
# Queries: bench/server/tpch/qNN.sql, written from the TPC-H specification's
# definitions with its validation parameters (Q11's fraction 0.0001 / SF;
# Q15's view as a WITH query).
#
# Measured, in BENCH_ROUNDS interleaved rounds (each round runs every query
# off and then on, each run in a new session, so that a slowdown of the
# machine hits both alike): the best and the median time of each, the ratio
# on/off of the best times (and of the medians beside), whether the results
# are equal (md5 of the output's lines, sorted, in every run: a run whose
# md5 differs from the first run's off is reported), and how many runtime
# filters the plan has with the setting on (EXPLAIN's "Builds Runtime
# Filter" and "Applies Runtime Filter" lines).  Then a summary line: the
# worst ratio, the queries over 1.03x, and how many queries got a filter.
#
# Run as root (the server runs as the postgres OS user) or as the user the
# server should run as.  Needs the extension installed (make install) and
# contrib's pg_prewarm in that installation.  At BENCH_SF=1: about 2.5 GB of
# disk, a few minutes of loading and about 10 minutes of queries on 2 cores.
#
# Options (environment):
#   PG_CONFIG       the installation to run (default: pg_config in PATH;
#                   PGBIN, a bindir, also works)
#   BENCH_SF        scale factor (1; 0.3 is a quick run)
#   BENCH_ROUNDS    interleaved rounds (3)
#   BENCH_QUERIES   the queries to run, e.g. "3 5 17" (all 22)
#   BENCH_WORK_MEM  work_mem of every query (64MB)
#   BENCH_TIMEOUT   statement_timeout of every query (10min)
#   BENCH_PORT      the server's port (5542)
#   BENCH_DIR       the cluster's directory (/tmp/bloomfilter-tpch; emptied)
#   BENCH_KEEP=1    leave the cluster running at exit
#
#   bash bench/server/tpch.sh
#   BENCH_SF=0.3 BENCH_QUERIES="3 5" bash bench/server/tpch.sh
set -euo pipefail

SF=${BENCH_SF:-1}
ROUNDS=${BENCH_ROUNDS:-3}
QUERIES=${BENCH_QUERIES:-$(seq 1 22)}
WORK_MEM=${BENCH_WORK_MEM:-64MB}
TIMEOUT=${BENCH_TIMEOUT:-10min}
PORT=${BENCH_PORT:-5542}
DIR=${BENCH_DIR:-/tmp/bloomfilter-tpch}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
QDIR=$HERE/tpch
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin)
CLUSTER_KEEP=${BENCH_KEEP:+1}

cluster_workdir "$DIR"
start_cluster bench "$PORT" listen_addresses= shared_preload_libraries=bloomfilter \
	shared_buffers=4GB jit=off autovacuum=off max_parallel_workers_per_gather=0 \
	max_wal_size=8GB checkpoint_timeout=1h
PSQL=(psql_on bench -d postgres -v sf="$SF")
RUNS=$WORK_DIR/runs.txt
: >"$RUNS"

echo "# TPC-H-like suite, scale factor $SF, $ROUNDS interleaved rounds, work_mem $WORK_MEM, no parallel workers"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $("$PGBIN/postgres" --version)"
start=$(date +%s)
"${PSQL[@]}" -q -f "$QDIR/gen.sql"
"${PSQL[@]}" -qtA <<'SQL' | sed 's/^/# prewarmed blocks: /'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION pg_prewarm;
SELECT sum(pg_prewarm(c.oid)) FROM pg_class c
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'i') AND c.relname NOT LIKE 'bloom%';
SQL
"${PSQL[@]}" -tA -F ' ' -c "SELECT relname, reltuples::bigint FROM pg_class WHERE relkind = 'r'
	AND relnamespace = 'public'::regnamespace AND relname NOT LIKE 'bloom%' ORDER BY reltuples" | tr '\n' ' ' | sed 's/^/# rows: /; s/ $/\n/'
echo "# set-up took $(($(date +%s) - start)) s"

SETTINGS="SET work_mem = '$WORK_MEM'; SET statement_timeout = '$TIMEOUT';"
ON="SET bloomfilter.join_filter = on;"
OFF="SET bloomfilter.join_filter = off;"

# one run of query $1 in a new session with settings $2: "ms md5"
run_query() {
	local out ms
	out=$({ echo "$SETTINGS $2"; echo '\timing on'; cat "$QDIR/q$1.sql"; } | "${PSQL[@]}" -qtA)
	ms=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | tail -1)
	echo "${ms:-NaN} $(grep -v '^Time: ' <<<"$out" | sort | md5sum | cut -c1-12)"
}

# the filters of query $1's plan with the setting on: "built applied"
count_filters() {
	local plan
	plan=$({ echo "$SETTINGS $ON"; echo 'EXPLAIN (COSTS OFF)'; cat "$QDIR/q$1.sql"; } | "${PSQL[@]}" -qtA)
	echo "$(grep -c 'Builds Runtime Filter' <<<"$plan") $(grep -c 'Applies Runtime Filter' <<<"$plan")"
}

declare -A FILTERS
for q in $QUERIES; do
	q=$(printf '%02d' "$q")
	FILTERS[$q]=$(count_filters "$q")
done

echo "## $ROUNDS rounds: each query off, then on, each run in a new session"
for r in $(seq "$ROUNDS"); do
	for q in $QUERIES; do
		q=$(printf '%02d' "$q")
		echo "$q off $(run_query "$q" "$OFF")" >>"$RUNS"
		echo "$q on $(run_query "$q" "$ON")" >>"$RUNS"
	done
	echo "# round $r done at $(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg)"
done

# the table: per query, best and median off and on, the ratios, the
# results' agreement, the filters of the plan
echo "| query | off best / median ms | on best / median ms | on/off (best) | (medians) | results | filters built / applied |"
echo "|---|---|---|---|---|---|---|"
for q in $QUERIES; do
	q=$(printf '%02d' "$q")
	awk -v q="$q" -v f="${FILTERS[$q]}" '
		function stats(mode,   n, i, j, t, v) {
			n = 0
			for (i = 1; i <= cnt; i++) if (m[i] == mode) v[++n] = ms[i]
			for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
			best[mode] = v[1]; med[mode] = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		$1 == q { cnt++; m[cnt] = $2; ms[cnt] = $3; h[cnt] = $4; if (ref == "" && $2 == "off") ref = $4 }
		END {
			same = "same"
			for (i = 1; i <= cnt; i++) if (h[i] != ref) same = "DIFFERENT"
			stats("off"); stats("on")
			split(f, fs, " ")
			printf "| Q%s | %.0f / %.0f | %.0f / %.0f | **%.3f** | %.3f | %s | %d / %d |\n", q, best["off"], med["off"],
				best["on"], med["on"], best["on"] / best["off"], med["on"] / med["off"], same, fs[1], fs[2]
		}' "$RUNS"
done | tee "$WORK_DIR/table.txt"
awk -F'|' '{ gsub(/[* ]/, "", $5); r = $5 + 0; split($8, f, "/"); q = $2; gsub(/ /, "", q)
		if (r > worst) { worst = r; wq = q }
		if (r > 1.03) slow = slow " " q
		if (f[1] + 0 > 0) { nf++; fq = fq " " q }
		else { if (nn == 0 || r < lo) lo = r; if (nn == 0 || r > hi) hi = r; nn++ }
		if ($7 ~ /DIFFERENT/) diff = diff " " q
		n++ }
	END { printf "# summary: worst ratio on/off %.3f (%s); over 1.03x:%s; %d of %d queries got a filter:%s; results differ:%s\n",
		worst, wq, slow == "" ? " none" : slow, nf, n, fq, diff == "" ? " none" : diff
		# without a filter in the plan, on and off differ only by the setting: their spread is the noise
		if (nn) printf "# the %d queries without a filter (no filter in the plan): on/off %.3f to %.3f\n", nn, lo, hi }' "$WORK_DIR/table.txt"
echo "# total $(($(date +%s) - start)) s"
