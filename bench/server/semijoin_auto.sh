#!/bin/bash
# bench/server/semijoin_auto.sh: the automatic semijoin prefilter
# (doc/semijoin.md) on TPC-H-like data: orders and lineitem on a remote
# server, customer, part, supplier, nation and region local.  For each query
# of semijoin_auto.sql (beside this script): rows and bytes shipped, wall
# time and planning time without the hook (setting off), with it, and with
# the hand-written prefilter, the three interleaved in one session (one
# postgres_fdw connection); whether the hook rewrote the plan, whether the
# results agree, and the hook's own log of its decision.  Results:
# bench/results/semijoin-auto-results.md.
#
#   bash bench/server/semijoin_auto.sh              # SCALE=1: 1.5e6 orders, 6e6 lineitem
#   SCALE=0.1 RUNS=3 bash bench/server/semijoin_auto.sh
#
# Environment: SCALE (1), RUNS (timed runs per mode, the best kept; 3),
# PLANS (planning-time samples per mode, the median kept; 9), PORT_BASE
# (5575), QUERIES (the query file), PGBIN or PG_CONFIG (the installation;
# default: pg_config in PATH, else PostgreSQL 15).
# Needs postgres_fdw and this extension installed.  Starts two throwaway
# clusters on ports $PORT_BASE+1 (local) and $PORT_BASE+2 (remote, on
# loopback TCP so that the kernel counts the connection's bytes), runs them
# as the postgres OS user when run as root, and removes them on exit.
set -euo pipefail

SCALE=${SCALE:-1}
RUNS=${RUNS:-3}			# timed runs per mode; the best is kept
PLANS=${PLANS:-9}		# planning-time samples per mode; the median is kept
PORT_BASE=${PORT_BASE:-5575}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
QUERIES=${QUERIES:-$HERE/semijoin_auto.sql}
LOCAL_PORT=$((PORT_BASE + 1))
REMOTE_PORT=$((PORT_BASE + 2))
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin 2>/dev/null || echo /usr/lib/postgresql/15/bin)

cluster_workdir
SETTINGS=(shared_buffers=512MB work_mem=64MB max_parallel_workers_per_gather=0)
start_cluster remote "$REMOTE_PORT" "${SETTINGS[@]}"
start_cluster local "$LOCAL_PORT" listen_addresses= "${SETTINGS[@]}" \
	session_preload_libraries=bloomfilter

ORDERS=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 1500000 * s }')
CUSTOMERS=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 150000 * s }')
PARTS=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 200000 * s }')
SUPPLIERS=$(awk -v s="$SCALE" 'BEGIN { printf "%d", 10000 * s }')
echo "loading: $ORDERS orders, $((ORDERS * 4)) lineitems (remote); $CUSTOMERS customers, $PARTS parts, $SUPPLIERS suppliers (local)" >&2

# TPC-H-like columns and distributions, made with SQL: two thirds of the
# customers have orders, four lines an order, 25 nations in 5 regions, 5
# market segments, 25 brands and 40 containers.
psql_on remote <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE orders (o_orderkey int, o_custkey int, o_orderstatus char(1), o_totalprice numeric(12,2),
	o_orderdate date, o_orderpriority text, o_clerk text, o_shippriority int, o_comment text);
INSERT INTO orders
SELECT k, 3 * (x / 2) + x % 2 + 1, (ARRAY['O','F','P'])[k % 3 + 1], (k * 7.31) % 400000 + 900,
	date '1992-01-01' + (k * 31) % 2405, (ARRAY['1-URGENT','2-HIGH','3-MEDIUM','4-NOT SPECIFIED','5-LOW'])[k % 5 + 1],
	'Clerk#' || lpad((k % 1000)::text, 9, '0'), 0, 'order comment ' || md5(k::text)
FROM (SELECT k, (k::bigint * 7919 % ($CUSTOMERS * 2 / 3))::int AS x FROM generate_series(1, $ORDERS) k) s;
CREATE TABLE lineitem (l_orderkey int, l_partkey int, l_suppkey int, l_linenumber int, l_quantity numeric(12,2),
	l_extendedprice numeric(12,2), l_discount numeric(12,2), l_tax numeric(12,2), l_returnflag char(1),
	l_linestatus char(1), l_shipdate date, l_commitdate date, l_receiptdate date, l_shipinstruct text,
	l_shipmode text, l_comment text);
INSERT INTO lineitem
SELECT k, 1 + (g::bigint * 104729 % $PARTS)::int, 1 + (g::bigint * 7 % $SUPPLIERS)::int, n, 1 + g::bigint * 48271 % 2147483647 % 50,
	(1 + g % 50) * (900 + g % 1000), (g % 11) / 100.0, (g % 9) / 100.0, (ARRAY['R','A','N'])[g % 3 + 1],
	(ARRAY['O','F'])[g % 2 + 1], d + 1 + g % 121, d + 30 + g % 61, d + 2 + g % 150,
	'DELIVER IN PERSON', (ARRAY['AIR','MAIL','SHIP','TRUCK','RAIL','FOB','REG AIR'])[g % 7 + 1], 'line ' || g
FROM (SELECT k, n, (k - 1) * 4 + n AS g, date '1992-01-01' + (k * 31) % 2405 AS d
      FROM generate_series(1, $ORDERS) k, generate_series(1, 4) n) s;
ANALYZE orders, lineitem;
SQL

psql_on local <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '127.0.0.1', port '$REMOTE_PORT', dbname 'postgres', extensions 'bloomfilter', fetch_size '1000');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote OPTIONS (user 'postgres');
IMPORT FOREIGN SCHEMA public LIMIT TO (orders, lineitem) FROM SERVER remote INTO public;
CREATE TABLE region (r_regionkey int, r_name text, r_comment text);
INSERT INTO region SELECT g, (ARRAY['AFRICA','AMERICA','ASIA','EUROPE','MIDDLE EAST'])[g + 1], 'region ' || g
FROM generate_series(0, 4) g;
CREATE TABLE nation (n_nationkey int, n_name text, n_regionkey int, n_comment text);
INSERT INTO nation SELECT g, 'NATION ' || g, g % 5, 'nation ' || g FROM generate_series(0, 24) g;
CREATE TABLE customer (c_custkey int, c_name text, c_address text, c_nationkey int, c_phone text,
	c_acctbal numeric(12,2), c_mktsegment text, c_comment text);
INSERT INTO customer
SELECT k, 'Customer#' || lpad(k::text, 9, '0'), md5(k::text), (k / 5 * 13) % 25, '10-' || k, (k * 3.7) % 10000,
	(ARRAY['AUTOMOBILE','BUILDING','FURNITURE','MACHINERY','HOUSEHOLD'])[k % 5 + 1], 'customer ' || k
FROM generate_series(1, $CUSTOMERS) k;
CREATE TABLE part (p_partkey int, p_name text, p_mfgr text, p_brand text, p_type text, p_size int,
	p_container text, p_retailprice numeric(12,2), p_comment text);
INSERT INTO part
SELECT k, 'part ' || k, 'Manufacturer#' || (k % 5 + 1), 'Brand#' || (k % 5 + 1) || ((k / 5) % 5 + 1),
	'STANDARD POLISHED TIN', 1 + k % 50,
	(ARRAY['SM','MED','LG','JUMBO','WRAP'])[(k / 25) % 5 + 1] || ' ' ||
	(ARRAY['CASE','BOX','BAG','JAR','PKG','PACK','CAN','DRUM'])[(k / 125) % 8 + 1],
	900 + k % 1000, 'part ' || k
FROM generate_series(1, $PARTS) k;
CREATE TABLE supplier (s_suppkey int, s_name text, s_address text, s_nationkey int, s_phone text,
	s_acctbal numeric(12,2), s_comment text);
INSERT INTO supplier SELECT k, 'Supplier#' || k, md5(k::text), k % 25, '10-' || k, k % 10000, 'supplier ' || k
FROM generate_series(1, $SUPPLIERS) k;
ANALYZE region, nation, customer, part, supplier, orders, lineitem;
-- rows the foreign scans of a query received (actual rows times loops)
CREATE FUNCTION shipped_rows(query text) RETURNS numeric LANGUAGE plpgsql AS \$\$
DECLARE plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
	RETURN (SELECT coalesce(sum((n->>'Actual Rows')::numeric * (n->>'Actual Loops')::numeric), 0)
	        FROM jsonb_path_query(plan, 'strict \$.**') n
	        WHERE n->>'Node Type' = 'Foreign Scan');
END \$\$;
-- the plan of a query, as a digest (to tell whether the hook changed it)
CREATE FUNCTION plan_digest(query text) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE line text; plan text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || query LOOP
		plan := plan || line || E'\n';
	END LOOP;
	RETURN md5(plan);
END \$\$;
-- the median planning time of a query, in ms, over n plans
CREATE FUNCTION planning_ms(query text, n int) RETURNS numeric LANGUAGE plpgsql AS \$\$
DECLARE plan jsonb; t numeric[] := '{}';
BEGIN
	FOR i IN 1..n LOOP
		EXECUTE 'EXPLAIN (SUMMARY, FORMAT JSON) ' || query INTO plan;
		t := t || (plan->0->>'Planning Time')::numeric;
	END LOOP;
	RETURN (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(t) x);
END \$\$;
SQL

SETTING="SET bloomfilter.semijoin_prefilter ="
COUNTERS="ss -tinH state established '( sport = :$REMOTE_PORT )' | grep -o 'bytes_\\(sent\\|received\\):[0-9]*' | tr '\\n' ' '; echo"

# The psql script of one query: a warm-up of each mode, then RUNS rounds of
# off, on, manual, each between two readings of the connection's counters.
measure_script() {
	local query=$1 manual=$2 mode q round
	for mode in off on manual; do
		q=$query; [ "$mode" = manual ] && q=$manual
		[ "$q" = - ] && continue
		printf '%s %s;\n\\o /dev/null\n%s;\n\\o\n' "$SETTING" "$([ "$mode" = on ] && echo on || echo off)" "$q"
	done
	for ((round = 1; round <= RUNS; round++)); do
		for mode in off on manual; do
			q=$query; [ "$mode" = manual ] && q=$manual
			[ "$q" = - ] && continue
			cat <<SQL
$SETTING $([ "$mode" = on ] && echo on || echo off);
\\! echo "before $mode \$($COUNTERS)"
\\timing on
\\o /dev/null
$q;
\\o
\\timing off
\\! echo "after $mode \$($COUNTERS)"
SQL
		done
	done
	for mode in off on manual; do
		q=$query; [ "$mode" = manual ] && q=$manual
		[ "$q" = - ] && continue
		printf "%s %s;\nSELECT 'rows $mode ' || shipped_rows(\$q\$%s\$q\$);\n" "$SETTING" "$([ "$mode" = on ] && echo on || echo off)" "$q"
		printf "SELECT 'plan $mode ' || planning_ms(\$q\$%s\$q\$, $PLANS);\n" "$q"
		printf "SELECT 'digest $mode ' || plan_digest(\$q\$%s\$q\$);\n" "$q"
		printf "SELECT 'result $mode ' || count(*) || ' ' || md5(string_agg(q::text, ',' ORDER BY q::text)) FROM (%s) q;\n" "$q"
	done
	printf "SET bloomfilter.semijoin_log = notice;\n%s on;\nEXPLAIN %s;\n" "$SETTING" "$query"
}

# Prints a line per mode: mode rows best_ms bytes_from_remote bytes_to_remote plan_ms
summarize() {
	awk '
		/^before / { m = $2; for (i = 3; i <= NF; i++) { split($i, kv, ":"); b[kv[1]] = kv[2] } }
		/^Time:/ { t = $2 }
		/^after / { for (i = 3; i <= NF; i++) { split($i, kv, ":"); a[kv[1]] = kv[2] }
		            if (!(m in best) || t + 0 < best[m] + 0) {
		                best[m] = t; sent[m] = a["bytes_sent"] - b["bytes_sent"]
		                recv[m] = a["bytes_received"] - b["bytes_received"] } }
		/^rows / { rows[$2] = $3 }
		/^plan / { plan[$2] = $3 }
		/^result / { result[$2] = $3 " " $4 }
		/^digest / { digest[$2] = $3 }
		END { for (m in best) printf "%s %d %.1f %d %d %.3f %s %s\n", m, rows[m], best[m], sent[m], recv[m], plan[m],
		                             result[m], (m == "on" ? (digest["on"] == digest["off"] ? "same-plan" : "rewritten") : "") }'
}

printf '\n%-16s %-7s %12s %14s %12s %10s %8s %8s %s\n' query mode rows_shipped bytes_to_local bytes_to_rem wall_ms plan_ms rows 'result plan'
printf '%s\n' '-----------------------------------------------------------------------------------------'
while IFS='|' read -r -u 3 name query manual; do
	[ -n "$name" ] || continue
	measure_script "$query" "$manual" >"$WORK_DIR/$name.sql"
	psql_on local -A -t -f "$WORK_DIR/$name.sql" >"$WORK_DIR/$name.out" 2>"$WORK_DIR/$name.err" || true
	summarize <"$WORK_DIR/$name.out" | sort -k1,1r | while read -r mode rows ms sent recv plan count digest change; do
		printf '%-16s %-7s %12d %14d %12d %10.1f %8.3f %8d %s %s\n' "$name" "$mode" "$rows" "$sent" "$recv" "$ms" "$plan" "$count" "${digest:0:8}" "$change"
	done
	# the hook's decision, with its numbers
	grep -E 'NOTICE|DETAIL|ERROR' "$WORK_DIR/$name.err" | sed 's/^/    /' || true
done 3< <(grep -v '^--' "$QUERIES")
