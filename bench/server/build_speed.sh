#!/bin/bash
# bench/server/build_speed.sh: the cost of building the filter the
# automatic semijoin prefilter ships, against count(*) and hll_add_agg over
# the same rows (not a test).
#
# For each key type (int4, int8, text) a table of ROWS distinct keys, one
# column, is aggregated serially by:
#
#   count      count(*): the baseline the ratios are taken against
#   floor      count(k): an aggregate whose transition is a trivial C
#              function of the key, the executor's own cost per row
#   hll        hll_add_agg(hll_hash_<type>(k)) (postgresql-15-hll)
#   classic    bloom_agg(k, CAP, FPP): the form the rewrite built up to
#              1.1
#   blocked    bloom_agg(k, CAP, FPP, 'blocked'): the form it builds now
#              (src/semijoin/semijoin_rewrite.c)
#
# with CAP = 1.25 ROWS (the rewrite's capacity margin) and FPP (0.01).  The
# queries run interleaved: each of ROUNDS rounds runs every query once, in
# one session, after an untimed scan of each table; the median of each
# query is kept, and the ratios are of the medians, for the backend's CPU
# time and for the wall time.  Recorded in
# bench/results/build-speed-results.md.
#
#   bash bench/server/build_speed.sh                      # 10^7 rows, 7 rounds
#   ROWS=1000000 ROUNDS=3 bash bench/server/build_speed.sh
#   FPP=0.0001 bash bench/server/build_speed.sh           # the rewrite's lowest rate
#   TYPES="int4 text" bash bench/server/build_speed.sh    # some key types only
#   BASE_PG_CONFIG=/other/bin/pg_config bash bench/server/build_speed.sh
#
# With BASE_PG_CONFIG, a second cluster (PORT + 1) runs the same queries
# with the library installed there (the code before a change): each round
# runs every query on one cluster and then on the other, in turn first, and
# a last table gives each query's CPU and wall time on this library over
# the base's.
#
# The CPU time is read from /proc/self/schedstat by the backend
# (pg_read_file, as the superuser): Linux only.
# Needs PostgreSQL binaries, this extension and hll installed (PGBIN or
# PG_CONFIG picks the installation).  Starts a throwaway cluster on PORT
# (5591), as the postgres OS user when run as root, and removes it on exit.
set -euo pipefail

ROWS=${ROWS:-10000000}
ROUNDS=${ROUNDS:-7}
FPP=${FPP:-0.01}
PORT=${PORT:-5591}
TYPES=${TYPES:-"int4 int8 text"}
CAP=$(awk -v n="$ROWS" 'BEGIN { printf "%d", n * 1.25 }')
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin 2>/dev/null || echo /usr/lib/postgresql/15/bin)

BASE_PG_CONFIG=${BASE_PG_CONFIG:-}
NODES=node
cluster_workdir
WORK=$WORK_DIR
SETTINGS=(listen_addresses= shared_buffers=2GB work_mem=1GB
	max_parallel_workers_per_gather=0 jit=off autovacuum=off)
start_cluster node "$PORT" "${SETTINGS[@]}"
if [ -n "$BASE_PG_CONFIG" ]; then
	PGBIN=$("$BASE_PG_CONFIG" --bindir) start_cluster base "$((PORT + 1))" "${SETTINGS[@]}"
	NODES="node base"
fi

for n in $NODES; do
echo "loading $ROWS rows per type on $n" >&2
psql_on "$n" >/dev/null <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION hll;
CREATE EXTENSION pg_prewarm;
CREATE TABLE b_int4 AS SELECT g::int4 AS k FROM generate_series(1, $ROWS) g;
CREATE TABLE b_int8 AS SELECT g::int8 AS k FROM generate_series(1, $ROWS) g;
CREATE TABLE b_text AS SELECT 'customer-' || g AS k FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE b_int4, b_int8, b_text;
SELECT pg_prewarm('b_int4') + pg_prewarm('b_int8') + pg_prewarm('b_text') > 0 AS prewarmed;
SQL
done

hll_hash() {
	case $1 in
		int4) echo hll_hash_integer ;;
		int8) echo hll_hash_bigint ;;
		text) echo hll_hash_text ;;
	esac
}

# label|query for the table of one key type; every query returns one row.
queries() {
	local t=b_$1
	echo "count|SELECT count(*) FROM $t"
	echo "floor|SELECT count(k) FROM $t"
	echo "hll|SELECT hll_add_agg($(hll_hash "$1")(k)) IS NULL FROM $t"
	echo "classic|SELECT bloom_agg(k, $CAP, $FPP) IS NULL FROM $t"
	echo "blocked|SELECT bloom_agg(k, $CAP, $FPP, 'blocked') IS NULL FROM $t"
}

# Every query of every type, ROUNDS interleaved rounds: "type label wall_ms
# cpu_ms" lines (label suffixed "@base" on the base cluster).  The CPU time
# is the backend's time on a CPU (/proc/self/schedstat, in ns): on a
# machine shared with other work it leaves out the time the backend waited
# for a CPU, which the wall time (psql's \timing) counts.
measure() {
	local script=$WORK/queries.sql type round order n
	local cpu="split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint"
	{
		for type in $TYPES; do echo "SELECT count(*) FROM b_$type;"; done
		for type in $TYPES; do
			queries "$type" | while IFS='|' read -r label query; do
				echo "SELECT $cpu AS cpu0 \\gset"
				printf '%s\n' '\timing on'
				echo "$query;"
				printf '%s\n' '\timing off'
				echo "SELECT '@@ $type $label' || :'tag' || ' ' || ($cpu - :cpu0) / 1e6;"
			done
		done
	} >"$script"
	chown postgres "$script" 2>/dev/null || true
	for round in $(seq "$ROUNDS"); do
		order=$NODES
		[ $((round % 2)) = 1 ] || order=$(echo "$NODES" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }')
		for n in $order; do
			if [ "$n" = node ]; then tag=""; else tag="@$n"; fi
			psql_on "$n" -At -v tag="$tag" -f "$script"
		done
	done | awk '
		/^Time: / { wall = $2 + 0; next }
		/^@@ / { print $2, $3, wall, $4 + 0 }'
}

# The medians of each query and their ratios, as markdown tables: the
# backend's CPU time, then the wall time; with a base cluster the same for
# it, and this library's medians over the base's.
report() {
	sort -k1,1 -k2,2 | awk -v rows="$ROWS" -v rounds="$ROUNDS" -v cap="$CAP" -v fpp="$FPP" '
		{ key = $1 " " $2; c = ++n[key]; wall[key, c] = $3; cpu[key, c] = $4; seen[key] = 1 }
		function median(a, key,   c, i, j, v, t) {
			c = n[key]
			for (i = 1; i <= c; i++) v[i] = a[key, i]
			for (i = 2; i <= c; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
			return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
		}
		function table(a, what, tag,   i, ty, c, f, h, cl, bl) {
			printf "### %s%s: medians of %d interleaved rounds (ms)\n\n", what, tag == "" ? "" : " (" substr(tag, 2) " library)", rounds
			print "| type | count(*) | floor count(k) | hll_add_agg | bloom_agg classic | bloom_agg blocked | floor / count | classic / count | blocked / count | classic / hll | blocked / hll | classic ns/row over floor | blocked ns/row over floor |"
			print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
			for (i = 1; i <= 3; i++) {
				ty = types[i]
				if (!((ty " count" tag) in seen)) continue
				c = median(a, ty " count" tag); f = median(a, ty " floor" tag); h = median(a, ty " hll" tag)
				cl = median(a, ty " classic" tag); bl = median(a, ty " blocked" tag)
				printf "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f |\n",
					ty, c, f, h, cl, bl, f / c, cl / c, bl / c, cl / h, bl / h,
					(cl - f) * 1e6 / rows, (bl - f) * 1e6 / rows
			}
			print ""
		}
		function versus(   i, j, ty, lb, k) {
			print "### this library / the base library: medians of each query"
			print ""
			print "| type | query | CPU this | CPU base | CPU ratio | wall this | wall base | wall ratio |"
			print "|---|---|---:|---:|---:|---:|---:|---:|"
			for (i = 1; i <= 3; i++) for (j = 1; j <= 5; j++) {
				ty = types[i]; lb = labels[j]; k = ty " " lb
				if (!((k "@base") in seen) || !(k in seen)) continue
				printf "| %s | %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f |\n", ty, lb,
					median(cpu, k), median(cpu, k "@base"), median(cpu, k) / median(cpu, k "@base"),
					median(wall, k), median(wall, k "@base"), median(wall, k) / median(wall, k "@base")
			}
			print ""
		}
		END {
			split("int4 int8 text", types, " ")
			split("count floor hll classic blocked", labels, " ")
			printf "## %d rows, capacity %d, fpp %s\n\n", rows, cap, fpp
			table(cpu, "backend CPU time", "")
			table(wall, "wall time", "")
			for (k in seen) if (k ~ /@base$/) based = 1
			if (based) {
				table(cpu, "backend CPU time", "@base")
				table(wall, "wall time", "@base")
				versus()
			}
		}'
}

echo "running $ROUNDS rounds" >&2
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
measure | report
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
