#!/bin/bash
# The cost of the typed probe that the automatic semijoin prefilter ships
# (bloom_contains_typed, doc/semijoin.md#declared-types-the-typed-probe)
# against plain bloom_contains, per row, in one run.
#
# A table of ROWS rows (int4 keys and text keys, 10^6 distinct) is probed
# with a filter of 10^5 keys, given as a parameter (an InitPlan), as the
# remote side of a semijoin receives it.  Each query counts the rows that
# pass; the queries run interleaved, ROUNDS rounds, each running every query
# once, and the best time of each is kept:
#
#   count          count(*) alone, the baseline the probe costs are taken from
#   plain          bloom_contains(f, k): the batched probe scan
#   typed          bloom_contains_typed(f, k, <k's type>, '', <encoding>): the
#                  remote side's probe where the types agree; planned as plain
#   typed_differs  the same where the declared type differs: planned as true
#   plain_expr     bloom_contains(f, k + 0): a value the planner cannot see
#                  is a column, probed row by row by the function
#   typed_expr     bloom_contains_typed(f, k + 0, ...): the function itself,
#                  which decides at its first call and calls bloom_contains
#   typed_expr_differs  the function passing every row
#
# and the ratios of the probe costs (time minus count's, per row).
#
#   bash bench/server/typed_probe.sh                 # ROWS=5000000 ROUNDS=7
#   ROWS=1000000 ROUNDS=3 bash bench/server/typed_probe.sh
#
# Needs PostgreSQL binaries and this extension installed (PGBIN or
# PG_CONFIG picks the installation).  Starts a throwaway cluster on PORT
# (5585), as the postgres OS user when run as root, and removes it on exit.
set -euo pipefail

ROWS=${ROWS:-5000000}
ROUNDS=${ROUNDS:-7}
PORT=${PORT:-5585}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin 2>/dev/null || echo /usr/lib/postgresql/15/bin)

cluster_workdir
WORK=$WORK_DIR
start_cluster node "$PORT" listen_addresses= shared_buffers=1GB max_parallel_workers_per_gather=0 jit=off

echo "loading $ROWS rows" >&2
psql_on node <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE t AS SELECT (g::int8 * 7919 % 1000000)::int4 AS i, 'key ' || (g::int8 * 7919 % 1000000) AS tx
	FROM generate_series(1, $ROWS) g;
CREATE TABLE filters AS SELECT bloom_agg(g::int4, 100000, 0.01) AS fi, bloom_agg('key ' || g, 100000, 0.01) AS ft
	FROM generate_series(1, 100000) g;
VACUUM ANALYZE t, filters;
SQL
ENC=$(psql_on node -Atc 'SHOW server_encoding')

# label|query, for each key column
queries() {
	local col=$1 type=$2 other=$3 f=$4
	local filter="(SELECT $f FROM filters)"
	echo "count|SELECT count(*) FROM t"
	echo "plain|SELECT count(*) FROM t WHERE bloom_contains($filter, $col)"
	echo "typed|SELECT count(*) FROM t WHERE bloom_contains_typed($filter, $col, '$type', '', '$ENC')"
	echo "typed_differs|SELECT count(*) FROM t WHERE bloom_contains_typed($filter, $col, '$other', '', '$ENC')"
	echo "plain_expr|SELECT count(*) FROM t WHERE bloom_contains($filter, $col || '')"
	echo "typed_expr|SELECT count(*) FROM t WHERE bloom_contains_typed($filter, $col || '', '$type', '', '$ENC')"
	echo "typed_expr_differs|SELECT count(*) FROM t WHERE bloom_contains_typed($filter, $col || '', '$other', '', '$ENC')"
}

# The best of ROUNDS interleaved times of each query, in ms: "label ms count".
measure() {
	local list=$1 round script
	script=$WORK/queries.sql
	{
		# a first scan, untimed, so that no query pays for the session's start
		echo 'SELECT count(*) FROM t;'
		echo '\timing on'
		while IFS='|' read -r label query; do
			echo "\\echo $label"
			echo "$query;"
		done <"$list"
	} >"$script"
	chown postgres "$script" 2>/dev/null || true
	for round in $(seq "$ROUNDS"); do
		psql_on node -At -f "$script"
	done | awk '
		/^Time: / { t = $2 + 0; if (!(label in best) || t < best[label]) best[label] = t; next }
		/^[0-9]+$/ { if (label != "") n[label] = $1; next }
		{ label = $1; if (!(label in order)) { order[label] = ++count; names[count] = label } }
		END { for (i = 1; i <= count; i++) printf "%s %.1f %s\n", names[i], best[names[i]], n[names[i]] }'
}

report() {
	local title=$1 list=$2
	echo "## $title: $ROWS rows, filter of 100000 keys, best of $ROUNDS interleaved rounds"
	measure "$list" | awk -v rows="$ROWS" '
		{ ms[$1] = $2; n[$1] = $3; lines[++k] = $1 }
		END {
			print "| query | ms | rows passed | probe ns/row |"
			print "|---|---:|---:|---:|"
			for (i = 1; i <= k; i++) {
				q = lines[i]; c = ms[q] - ms["count"]
				printf "| %s | %.1f | %s | %s |\n", q, ms[q], n[q], q == "count" ? "" : sprintf("%.1f", c * 1e6 / rows)
			}
			print ""
			r = (ms["plain"] - ms["count"])
			printf "typed / plain (column, planned as plain): %.2f\n", (ms["typed"] - ms["count"]) / r
			printf "typed_differs / plain (planned as true): %.2f\n", (ms["typed_differs"] - ms["count"]) / r
			r = (ms["plain_expr"] - ms["count"])
			printf "typed_expr / plain_expr (the function, probing): %.2f\n", (ms["typed_expr"] - ms["count"]) / r
			printf "typed_expr_differs / plain_expr (the function, passing): %.2f\n", (ms["typed_expr_differs"] - ms["count"]) / r
			print ""
		}'
}

# int4 keys: "$col || ''" would make text, so the expression is i + 0
queries i integer numeric fi | sed "s/i || ''/i + 0/" >"$WORK/int.list"
queries tx pg_catalog.text pg_catalog.date ft >"$WORK/text.list"
report "int4 keys" "$WORK/int.list"
report "text keys" "$WORK/text.list"
