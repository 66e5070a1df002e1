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
#   classic    bloom_agg(k, CAP, FPP): the form the rewrite builds
#              (src/planner/semijoin_rewrite.c)
#   blocked    bloom_agg(k, CAP, FPP, 'blocked')
#
# with CAP = 1.25 ROWS (the rewrite's capacity margin) and FPP (0.01).  The
# queries run interleaved: each of ROUNDS rounds runs every query once, in
# one session, after an untimed scan of each table; the median of each
# query is kept, and the ratios are of the medians.  Recorded in
# bench/results/build-speed-results.md.
#
#   bash bench/server/build_speed.sh                      # 10^7 rows, 7 rounds
#   ROWS=1000000 ROUNDS=3 bash bench/server/build_speed.sh
#   FPP=0.0001 bash bench/server/build_speed.sh           # the rewrite's lowest rate
#
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

cluster_workdir
WORK=$WORK_DIR
start_cluster node "$PORT" listen_addresses= shared_buffers=2GB work_mem=1GB \
	max_parallel_workers_per_gather=0 jit=off autovacuum=off

echo "loading $ROWS rows per type" >&2
psql_on node >/dev/null <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION hll;
CREATE EXTENSION pg_prewarm;
CREATE TABLE b_int4 AS SELECT g::int4 AS k FROM generate_series(1, $ROWS) g;
CREATE TABLE b_int8 AS SELECT g::int8 AS k FROM generate_series(1, $ROWS) g;
CREATE TABLE b_text AS SELECT 'customer-' || g AS k FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE b_int4, b_int8, b_text;
SELECT pg_prewarm('b_int4') + pg_prewarm('b_int8') + pg_prewarm('b_text') > 0 AS prewarmed;
SQL

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

# Every query of every type, ROUNDS interleaved rounds: "type label ms" lines.
measure() {
	local script=$WORK/queries.sql type
	{
		for type in $TYPES; do echo "SELECT count(*) FROM b_$type;"; done
		echo '\timing on'
		for type in $TYPES; do
			queries "$type" | while IFS='|' read -r label query; do
				echo "\\echo $type $label"
				echo "$query;"
			done
		done
	} >"$script"
	chown postgres "$script" 2>/dev/null || true
	for _ in $(seq "$ROUNDS"); do
		psql_on node -At -f "$script"
	done | awk '
		/^Time: / { if (label != "") print label, $2 + 0; next }
		/^(int4|int8|text) / { label = $1 " " $2; next }'
}

# The median of each query and the ratios, as a markdown table.
report() {
	sort -k1,1 -k2,2 -k3,3n | awk -v rows="$ROWS" -v rounds="$ROUNDS" -v cap="$CAP" -v fpp="$FPP" '
		{ key = $1 " " $2; t[key, ++n[key]] = $3; if (!(key in seen)) { seen[key] = 1; keys[++k] = key } }
		function median(key,   c) { c = n[key]; return c % 2 ? t[key, (c + 1) / 2] : (t[key, c / 2] + t[key, c / 2 + 1]) / 2 }
		END {
			printf "## %d rows, capacity %d, fpp %s: medians of %d interleaved rounds (ms)\n\n", rows, cap, fpp, rounds
			print "| type | count(*) | floor count(k) | hll_add_agg | bloom_agg classic | bloom_agg blocked | classic / count | blocked / count | floor / count | classic / hll | blocked / hll | classic ns/row over count |"
			print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
			split("int4 int8 text", types, " ")
			for (i = 1; i <= 3; i++) {
				ty = types[i]
				if (!((ty " count") in seen)) continue
				c = median(ty " count"); f = median(ty " floor"); h = median(ty " hll")
				cl = median(ty " classic"); bl = median(ty " blocked")
				printf "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f |\n",
					ty, c, f, h, cl, bl, cl / c, bl / c, f / c, cl / h, bl / h, (cl - c) * 1e6 / rows
			}
		}'
}

echo "running $ROUNDS rounds" >&2
measure | report
