#!/bin/bash
# bench/server/semijoin_composite.sh: the automatic semijoin prefilter on a
# composite key (doc/semijoin.md, "Composite keys").  Two throwaway servers;
# for each join, rows and bytes shipped and wall time, interleaved in one
# session (one postgres_fdw connection), in these modes:
#
#   none        the rewrite off, no filter
#   percol      the rewrite off; a hand-written bloom filter per key column
#   multibloom  the rewrite off; a hand-written multibloom of the key tuples
#               (multibloom_agg_fixed: a filter per column and the
#               verification filter of the tuples)
#   tuple       the rewrite off; a hand-written bloom of the key tuples
#               (bloom_agg(bloom_tuple_hash(...)))
#   auto        the rewrite on: what it adds by itself
#
# The hand-written filters have capacity the number of distinct build keys
# (tuples) and the rate FPP.  Then the sizes of a multibloom and of a bloom
# of the same tuples at several rates, as text (what is sent).
#
# Joins:
#   sales: a remote table by (store_id, day), STORES x DAYS x 3 rows,
#          joined with a local table listing 1% of the (store, day) pairs
#          at random (every store and every day still occurs among them);
#   ps:    TPC-H-like lineitem (remote) joined with partsupp (local) on
#          (l_partkey, l_suppkey), partsupp restricted to ps_availqty < 100.
#
#   bash bench/server/semijoin_composite.sh
#   STORES=100 SCALE=0.01 RUNS=1 bash bench/server/semijoin_composite.sh   # quick
#
# Environment: STORES (1000), DAYS (365), SCALE (0.1: 600,000 lineitems,
# 20,000 parts, 1,000 suppliers), FPP (0.001), RUNS (timed runs per mode,
# the best kept; 3), PGBIN or PG_CONFIG (default: pg_config in PATH, else
# PostgreSQL 15).  Needs postgres_fdw and this extension installed.  The
# remote listens on loopback TCP so that the kernel counts the
# connection's bytes (ss -ti); run as root, the servers run as postgres.
# Results: bench/results/semijoin-composite-results.md.
set -euo pipefail

STORES=${STORES:-1000}
DAYS=${DAYS:-365}
SCALE=${SCALE:-0.1}
FPP=${FPP:-0.001}
RUNS=${RUNS:-3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin 2>/dev/null || echo /usr/lib/postgresql/15/bin)

cluster_workdir
SETTINGS=(shared_buffers=256MB work_mem=64MB max_parallel_workers_per_gather=0)
start_cluster remote "" "${SETTINGS[@]}" listen_addresses=127.0.0.1
start_cluster local "" listen_addresses= "${SETTINGS[@]}" session_preload_libraries=bloomfilter
REMOTE_PORT=$(cluster_port remote)

LINES=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 6000000 * s }')
PARTS=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 200000 * s }')
SUPPLIERS=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 10000 * s }')
echo "loading: sales $STORES x $DAYS x 3; lineitem $LINES, partsupp $((PARTS * 4)) ($PARTS parts, $SUPPLIERS suppliers)" >&2

psql_on remote <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE sales (store_id int, day date, amount numeric(10,2), note text);
INSERT INTO sales
SELECT s, date '2025-01-01' + d, (s * 31 + d * 7 + r) % 10000 / 100.0, 'sale ' || s || '-' || d || '-' || r
FROM generate_series(1, $STORES) s, generate_series(0, $DAYS - 1) d, generate_series(1, 3) r;
-- each part has 4 suppliers (as in TPC-H's partsupp); a line takes one of them
CREATE TABLE lineitem (l_orderkey int, l_partkey int, l_suppkey int, l_quantity numeric(12,2),
	l_extendedprice numeric(12,2), l_shipdate date, l_comment text);
INSERT INTO lineitem
SELECT g / 4, p, (p + (g % 4) * ($SUPPLIERS / 4 + (p - 1) / $SUPPLIERS)) % $SUPPLIERS + 1,
	1 + g % 50, (1 + g % 50) * (900 + p % 1000), date '1992-01-01' + g % 2400, 'line ' || g
FROM (SELECT g, 1 + (g::bigint * 104729 % $PARTS)::int AS p FROM generate_series(1, $LINES) g) s;
ANALYZE sales, lineitem;
SQL

psql_on local <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '127.0.0.1', port '$REMOTE_PORT', dbname 'postgres', extensions 'bloomfilter', fetch_size '1000');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote OPTIONS (user 'postgres');
IMPORT FOREIGN SCHEMA public LIMIT TO (sales, lineitem) FROM SERVER remote INTO public;
-- 1% of the (store, day) pairs, at random
CREATE TABLE picks (store_id int, day date, label text);
INSERT INTO picks
SELECT s, date '2025-01-01' + d, 'pick ' || s || '/' || d
FROM generate_series(1, $STORES) s, generate_series(0, $DAYS - 1) d
WHERE hashint8((s::bigint * 1000 + d)) % 100 = 0;
CREATE TABLE partsupp (ps_partkey int, ps_suppkey int, ps_availqty int, ps_supplycost numeric(12,2), ps_comment text);
INSERT INTO partsupp
SELECT p, (p + i * ($SUPPLIERS / 4 + (p - 1) / $SUPPLIERS)) % $SUPPLIERS + 1,
	1 + (p * 4 + i)::bigint * 7919 % 9999, (p % 1000) + i, 'partsupp ' || p || '/' || i
FROM generate_series(1, $PARTS) p, generate_series(0, 3) i;
ANALYZE picks, partsupp, sales, lineitem;
CREATE FUNCTION shipped_rows(query text) RETURNS numeric LANGUAGE plpgsql AS \$\$
DECLARE plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
	RETURN (SELECT coalesce(sum((n->>'Actual Rows')::numeric * (n->>'Actual Loops')::numeric), 0)
	        FROM jsonb_path_query(plan, 'strict \$.**') n
	        WHERE n->>'Node Type' = 'Foreign Scan');
END \$\$;
SQL
psql_on local -A -t -c "SELECT 'pairs picked: ' || count(*) || ' of ' || $STORES * $DAYS || ', stores ' || count(DISTINCT store_id) || ', days ' || count(DISTINCT day) FROM picks" >&2
psql_on local -A -t -c "SELECT 'partsupp pairs selected: ' || count(*) || ', parts ' || count(DISTINCT ps_partkey) || ', suppliers ' || count(DISTINCT ps_suppkey) FROM partsupp WHERE ps_availqty < 100" >&2

SETTING="SET bloomfilter.semijoin_prefilter ="
COUNTERS="ss -tinH state established '( dport = :$REMOTE_PORT )' | grep -o 'bytes_\\(sent\\|received\\):[0-9]*' | tr '\\n' ' '; echo"
MODES=(none percol multibloom tuple auto)

# The query of a mode: $1 the join, $2 the build side (FROM ... WHERE ...),
# $3 the probe side's alias, $4 and $5 the build and probe key columns
# (comma-separated, in the same order).
mode_query() {
	local mode=$1 join=$2 build=$3 alias=$4 bkeys=$5 pkeys=$6 n filter=""
	local -a bk pk
	IFS=, read -r -a bk <<<"$bkeys"
	IFS=, read -r -a pk <<<"$pkeys"
	n=$(psql_on local -A -t -c "SELECT count(DISTINCT ($bkeys)) $build")
	case $mode in
		percol)
			for i in "${!bk[@]}"; do
				filter+=" AND bloom_contains((SELECT bloom_agg(${bk[$i]}, (SELECT count(DISTINCT ${bk[$i]}) $build), $FPP) $build), $alias.${pk[$i]})"
			done ;;
		multibloom)
			filter=" AND multibloom_contains((SELECT multibloom_agg_fixed($n, $FPP, $bkeys) $build), $(sed "s/\([a-z_]*\)/$alias.\1/g" <<<"$pkeys"))" ;;
		tuple)
			filter=" AND bloom_contains((SELECT bloom_agg(bloom_tuple_hash($bkeys), $n, $FPP) $build), bloom_tuple_hash($(sed "s/\([a-z_]*\)/$alias.\1/g" <<<"$pkeys")))" ;;
	esac
	echo "$join$filter"
}

# One join: RUNS rounds of every mode, interleaved, each between two
# readings of the connection's counters; then rows shipped, results.
measure() {
	local name=$1 join=$2 build=$3 alias=$4 bkeys=$5 pkeys=$6 mode round q
	declare -A queries
	for mode in "${MODES[@]}"; do
		queries[$mode]=$(mode_query "$mode" "$join" "$build" "$alias" "$bkeys" "$pkeys")
	done
	{
		for mode in "${MODES[@]}"; do
			printf '%s %s;\n\\o /dev/null\n%s;\n\\o\n' "$SETTING" "$([ "$mode" = auto ] && echo on || echo off)" "${queries[$mode]}"
		done
		for ((round = 1; round <= RUNS; round++)); do
			for mode in "${MODES[@]}"; do
				cat <<SQL
$SETTING $([ "$mode" = auto ] && echo on || echo off);
\\! echo "before $mode \$($COUNTERS)"
\\timing on
\\o /dev/null
${queries[$mode]};
\\o
\\timing off
\\! echo "after $mode \$($COUNTERS)"
SQL
			done
		done
		for mode in "${MODES[@]}"; do
			q=${queries[$mode]}
			printf "%s %s;\nSELECT 'rows $mode ' || shipped_rows(\$q\$%s\$q\$);\n" "$SETTING" "$([ "$mode" = auto ] && echo on || echo off)" "$q"
			printf "SELECT 'result $mode ' || count(*) || ' ' || md5(string_agg(q::text, ',' ORDER BY q::text)) FROM (%s) q;\n" "$q"
		done
		printf "SET bloomfilter.semijoin_log = notice;\n%s on;\nEXPLAIN (VERBOSE, COSTS OFF) %s;\n" "$SETTING" "$join"
	} >"$WORK_DIR/$name.sql"
	psql_on local -A -t -f "$WORK_DIR/$name.sql" >"$WORK_DIR/$name.out" 2>"$WORK_DIR/$name.err" || true
	awk -v modes="${MODES[*]}" '
		/^before / { m = $2; for (i = 3; i <= NF; i++) { split($i, kv, ":"); b[kv[1]] = kv[2] } }
		/^Time:/ { t = $2 }
		/^after / { for (i = 3; i <= NF; i++) { split($i, kv, ":"); a[kv[1]] = kv[2] }
		            if (!(m in best) || t + 0 < best[m] + 0) {
		                best[m] = t; sent[m] = a["bytes_sent"] - b["bytes_sent"]
		                recv[m] = a["bytes_received"] - b["bytes_received"] } }
		/^rows / { rows[$2] = $3 }
		/^result / { result[$2] = $3 " " substr($4, 1, 8) }
		END { n = split(modes, ms, " ")
		      for (i = 1; i <= n; i++) { m = ms[i]
		          printf "%-6s %-11s %10d %12d %10d %8.1f %8.2fx %6.2fx %s\n", name, m, rows[m], recv[m], sent[m], best[m],
		                 (recv[m] + sent[m] > 0 ? (recv["none"] + sent["none"]) / (recv[m] + sent[m]) : 0),
		                 (best[m] > 0 ? best["none"] / best[m] : 0), result[m] } }' name="$name" "$WORK_DIR/$name.out"
	grep -E 'NOTICE|DETAIL|ERROR|Remote SQL' "$WORK_DIR/$name.err" "$WORK_DIR/$name.out" | sed -e 's/^[^:]*:/    /' -e 's/psql:[^:]*:[0-9]*: //' | cut -c1-400 || true
}

printf '\n%-6s %-11s %10s %12s %10s %8s %9s %7s %s\n' join mode rows_ship bytes_to_loc bytes_to_rem wall_ms bytes_x time_x 'rows md5'
measure sales "SELECT p.label, s.amount, s.note FROM picks p JOIN sales s ON s.store_id = p.store_id AND s.day = p.day" \
	"FROM picks" s "store_id,day" "store_id,day"
measure ps "SELECT ps.ps_supplycost, l.l_quantity, l.l_extendedprice, l.l_comment FROM partsupp ps JOIN lineitem l ON l.l_partkey = ps.ps_partkey AND l.l_suppkey = ps.ps_suppkey WHERE ps.ps_availqty < 100" \
	"FROM partsupp WHERE ps_availqty < 100" l "ps_partkey,ps_suppkey" "l_partkey,l_suppkey"

# Filter sizes as sent (text), of the same tuples at the same rate.
echo
echo "filter of the sales picks' tuples, bytes as text: fpp, bloom of tuples, multibloom (parts: per column..., tuples), ratio"
psql_on local -A -t -F ' ' <<SQL
WITH n AS (SELECT count(*) n FROM (SELECT DISTINCT store_id, day FROM picks) d),
r(fpp) AS (VALUES (0.01), (0.001), (0.0001))
SELECT fpp,
	(SELECT length(bloom_agg(bloom_tuple_hash(store_id, day), n.n, fpp)::text) FROM picks),
	(SELECT length(multibloom_agg_fixed(n.n, fpp, store_id, day)::text) || ' ' ||
	        (SELECT nbits::text FROM multibloom_info(multibloom_agg_fixed(n.n, fpp, store_id, day))) FROM picks),
	round((SELECT length(multibloom_agg_fixed(n.n, fpp, store_id, day)::text) FROM picks)::numeric /
	      (SELECT length(bloom_agg(bloom_tuple_hash(store_id, day), n.n, fpp)::text) FROM picks), 2)
FROM n, r;
SELECT 'multibloom_agg (data-sized parts) at 0.01: ' || length(multibloom_agg(store_id, day)::text) || ' bytes, nbits ' ||
	(SELECT nbits::text FROM multibloom_info(multibloom_agg(store_id, day)) ) FROM picks;
SQL

# Planning time of queries the rewrite leaves alone: the median of PLANS
# plannings with the rewrite off and on, interleaved, and the difference.
PLANS=${PLANS:-51}
psql_on local -q <<'SQL'
CREATE FUNCTION planning_ms(query text, n int, rewrite text) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE plan jsonb; t numeric[] := '{}';
BEGIN
	PERFORM set_config('bloomfilter.semijoin_prefilter', rewrite, true);
	FOR i IN 1..n LOOP
		EXECUTE 'EXPLAIN (SUMMARY, FORMAT JSON) ' || query INTO plan;
		t := t || (plan->0->>'Planning Time')::numeric;
	END LOOP;
	RETURN (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(t) x);
END $$;
SQL
echo
echo "planning time of queries left alone, median of $PLANS (ms): off, on, on - off"
while IFS='|' read -r name query; do
	psql_on local -A -t -F ' ' -c "SELECT '$name', a, b, round(b - a, 3) FROM (SELECT planning_ms(\$q\$$query\$q\$, $PLANS, 'off') a, planning_ms(\$q\$$query\$q\$, $PLANS, 'on') b) x"
done <<'QUERIES'
local-join|SELECT count(*) FROM picks p JOIN partsupp ps ON ps.ps_partkey = p.store_id
local-in|SELECT count(*) FROM picks WHERE store_id IN (SELECT ps_partkey FROM partsupp WHERE ps_availqty < 10)
remote-declined|SELECT count(*) FROM picks p JOIN sales s ON s.store_id = p.store_id
remote-in-declined|SELECT count(*) FROM picks p WHERE p.store_id IN (SELECT store_id FROM sales)
QUERIES
