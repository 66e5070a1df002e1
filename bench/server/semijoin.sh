#!/bin/bash
# bench/server/semijoin.sh: semijoin prefiltering across two local servers.
# A remote cluster holds ROWS orders of CUSTOMERS customers; the local one
# joins them, through postgres_fdw, with selections of 0.1%, 1% and 10% of
# its customers, plainly and with a Bloom prefilter of each rate in FPPS.
# Per query it prints the rows the foreign scan received, the bytes the
# remote sent and received (the kernel's counters of the postgres_fdw TCP
# connection), the filter's size and the best wall time of RUNS runs, and
# the gains plain / prefilter measured in this run.  Method and results:
# doc/distributed.md, bench/results/distributed-results.md.
#
#   bash bench/server/semijoin.sh            # 1,000,000 remote rows
#   ROWS=200000 bash bench/server/semijoin.sh
#
# Needs PostgreSQL binaries, postgres_fdw and the bloomfilter extension
# installed.  Starts two throwaway clusters (run as root it runs them as the
# postgres OS user) on ports $PORT_BASE+1 (local) and $PORT_BASE+2 (remote),
# and removes them on exit.  PGBIN or PG_CONFIG picks the installation
# (default: pg_config in PATH, else PostgreSQL 15).
set -euo pipefail

ROWS=${ROWS:-1000000}			# remote orders
CUSTOMERS=${CUSTOMERS:-100000}	# distinct keys, local customers
RUNS=${RUNS:-3}					# timed runs per query; the best is kept
FPPS=${FPPS:-"0.01 0.0001"}	# false-positive rates of the filters tried
# how the local side builds its filter from the selected keys (CAP: their
# number, FPP: the rate)
FILTER_AGG=${FILTER_AGG:-"bloom_agg(id, CAP, FPP)"}
PORT_BASE=${PORT_BASE:-5565}
LOCAL_PORT=$((PORT_BASE + 1))
REMOTE_PORT=$((PORT_BASE + 2))
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin 2>/dev/null || echo /usr/lib/postgresql/15/bin)

cluster_workdir
# the remote listens on TCP (loopback) so the kernel counts the bytes of
# the postgres_fdw connection; psql reaches both through Unix sockets
SETTINGS=(shared_buffers=128MB max_parallel_workers_per_gather=0)
start_cluster remote "$REMOTE_PORT" "${SETTINGS[@]}"
start_cluster local "$LOCAL_PORT" listen_addresses= "${SETTINGS[@]}"

echo "loading $ROWS remote rows, $CUSTOMERS local customers ..." >&2
psql_on remote <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE orders (id bigint, customer_id int, amount numeric(10,2), placed date, note text);
INSERT INTO orders
SELECT g, (g::bigint * 7919) % $CUSTOMERS, (g % 100000) / 100.0, date '2024-01-01' + (g % 365),
       'order ' || g || ' shipped by standard delivery'
FROM generate_series(1, $ROWS) g;
ANALYZE orders;
SQL

psql_on local <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '127.0.0.1', port '$REMOTE_PORT', dbname 'postgres',
	         extensions 'bloomfilter', fetch_size '1000');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote OPTIONS (user 'postgres');
CREATE FOREIGN TABLE remote_orders (id bigint, customer_id int, amount numeric(10,2), placed date, note text)
	SERVER remote OPTIONS (table_name 'orders');
-- sel_001: 0.1% of the keys, sel_01: 1%, sel_1: 10%
CREATE TABLE customers (id int PRIMARY KEY, name text, sel_001 bool, sel_01 bool, sel_1 bool);
INSERT INTO customers
SELECT g, 'customer ' || g, g % 1000 = 7, g % 100 = 7, g % 10 = 7
FROM generate_series(0, $CUSTOMERS - 1) g;
ANALYZE customers;
-- rows the foreign scans of a query received (actual rows times loops)
CREATE FUNCTION shipped_rows(query text) RETURNS numeric LANGUAGE plpgsql AS \$\$
DECLARE plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
	RETURN (SELECT sum((n->>'Actual Rows')::numeric * (n->>'Actual Loops')::numeric)
	        FROM jsonb_path_query(plan, 'strict \$.**') n
	        WHERE n->>'Node Type' = 'Foreign Scan');
END \$\$;
SQL

# One measurement: run the query RUNS times in one session (so one
# postgres_fdw connection), reading the kernel's byte counters of that TCP
# connection (ss: bytes_sent and bytes_received of the remote's socket)
# around each run: what the remote sent is the rows (and protocol), what it
# received the queries and the filter.  Prints: rows best_ms sent received
measure() {
	local query=$1 script="$WORK_DIR/measure.sql"
	local counters="ss -tinH state established '( sport = :$REMOTE_PORT )' | grep -o 'bytes_\\(sent\\|received\\):[0-9]*' | tr '\\n' ' '; echo"
	cat >"$script" <<SQL
\\o /dev/null
$query;
\\o
SQL
	for ((i = 1; i <= RUNS; i++)); do
		cat >>"$script" <<SQL
\\! echo "before \$($counters)"
\\timing on
\\o /dev/null
$query;
\\o
\\timing off
\\! echo "after \$($counters)"
SQL
	done
	# rows that crossed: the foreign scans' actual rows, summed over loops
	cat >>"$script" <<SQL
SELECT 'rows ' || shipped_rows(\$q\$$query\$q\$);
SQL
	psql_on local -A -t -f "$script" 2>&1 | tee -a "${BENCH_TRACE:-/dev/null}" | awk '
		/^Time:/ { t = $2; if (best == "" || t + 0 < best + 0) { best = t; bi = n } }
		/^before / { for (i = 2; i <= NF; i++) { split($i, kv, ":"); b[kv[1]] = kv[2] } }
		/^after / { n++; for (i = 2; i <= NF; i++) { split($i, kv, ":"); a[kv[1]] = kv[2] }
		            sent[n] = a["bytes_sent"] - b["bytes_sent"]; recv[n] = a["bytes_received"] - b["bytes_received"] }
		/^rows / { rows = $2 }
		END { printf "%d %.1f %d %d\n", rows, best, sent[bi + 1], recv[bi + 1] }'
}

printf '\n%-11s %-14s %12s %14s %12s %12s %10s\n' selectivity plan rows_shipped bytes_to_local bytes_to_rem filter_bytes wall_ms
printf '%s\n' '-------------------------------------------------------------------------------------------------'
for sel in sel_001 sel_01 sel_1; do
	case $sel in
	sel_001) label=0.1% cap=$((CUSTOMERS / 1000)) ;;
	sel_01) label=1% cap=$((CUSTOMERS / 100)) ;;
	sel_1) label=10% cap=$((CUSTOMERS / 10)) ;;
	esac
	join="SELECT o.* FROM remote_orders o JOIN customers c ON c.id = o.customer_id WHERE c.$sel"
	read -r rows0 ms0 sent0 recv0 < <(measure "$join")
	printf '%-11s %-14s %12d %14d %12d %12s %10.1f\n' "$label" plain "$rows0" "$sent0" "$recv0" - "$ms0"
	for fpp in $FPPS; do
		agg=${FILTER_AGG//FPP/$fpp}
		filter="(SELECT ${agg//CAP/$cap} FROM customers WHERE $sel)"
		read -r rows1 ms1 sent1 recv1 < <(measure "$join AND bloom_contains($filter, o.customer_id)")
		fbytes=$(psql_on local -A -t -c "SELECT octet_length($filter::text)")
		printf '%-11s %-14s %12d %14d %12d %12d %10.1f\n' "$label" "prefilter $fpp" "$rows1" "$sent1" "$recv1" "$fbytes" "$ms1"
		awk -v r0="$rows0" -v r1="$rows1" -v b0="$((sent0 + recv0))" -v b1="$((sent1 + recv1))" -v t0="$ms0" -v t1="$ms1" \
			'BEGIN { printf "%-11s %-14s %11.1fx %13.1fx  (bytes both ways)   %12.1fx\n", "", "  gain", r0 / (r1 ? r1 : 1), b0 / b1, t0 / t1 }'
	done
done
