#!/bin/bash
# bench/server/citus_repartition.sh: the Bloom prefilter of Citus
# repartition joins (doc/distributed.md, "Citus repartition joins"), on a
# coordinator and two workers on this machine (a benchmark, not a test).
#
# A fact table of ROWS rows distributed by id, and a dimension of DIM rows
# distributed by sel (so neither is distributed by the join key), 32 shards,
# citus.enable_repartition_joins = on (a dual repartition join):
#
#   SELECT count(*), sum(f.amount) FROM fact f JOIN dim d ON f.k = d.id
#   WHERE d.sel < PCT          -- sel = id % 100: PCT% of dim's keys
#
# at 1%, 10% and 100% of the keys, bloomfilter.citus_repartition on against
# off, interleaved (RUNS rounds, best and median kept, end to end with the
# filter's build).  Bytes shuffled: what the map tasks write, measured by
# running each map task of the last run again (the same query and
# partitioning, on the same worker, in a transaction rolled back) and
# summing worker_partition_query_result's bytes_written; its rows_written
# too.  Then what bounds the join: a scan of fact alone, the scan with the
# probe of the 1% filter, the build of that filter and the sample, the join
# whose map queries of fact output nothing, and the same dual join of two
# 100-row tables (the repartition machinery alone).
# PAD=32 adds a 32-byte text column to fact, carried through the join.
# KEYS=2 joins on two columns, ON f.k = d.id AND f.r = d.r (r = g % 7 in
# fact, id % 7 in dim: a seventh of the rows matching on k match the pair),
# and the rewrite builds one filter of the (id, r) tuples; the bounds below
# stay those of the one-column join.
#
#   flock /tmp/bloomfilter-heavy.lock bash bench/server/citus_repartition.sh
#   ROWS=1000000 DIM=100000 bash bench/server/citus_repartition.sh   # scaled down 10x
#
# CHAIN=1 measures a join of three tables instead, each distributed by its
# own id: cust (DIM rows, grp = id % 100), orders (ROWS/4, 4 per customer)
# and items (ROWS, 4 per order):
#
#   SELECT count(*), sum(i.amount) FROM cust c JOIN orders o ON o.cust = c.id
#   JOIN items i ON i.order_id = o.id WHERE c.grp < PCT
#
# orders' map queries probe the filter of the selected customers; items'
# probe the filter of the orders that pass it (built in a second round).
#
# Environment: PGBIN (default: the bindir of PG_CONFIG, else of pg_config in
# PATH), PORT (coordinator; the workers take the next two; default 5561),
# ROWS (default 10000000), DIM (default 1000000), RUNS (default 3), PAD
# (default 0), KEYS (1 or 2, default 1), CHAIN (0 or 1, default 0).  Results: bench/results/citus-repartition-results.md.
set -euo pipefail

ROWS=${ROWS:-10000000}
DIM=${DIM:-1000000}
RUNS=${RUNS:-3}
PAD=${PAD:-0}
KEYS=${KEYS:-1}
CHAIN=${CHAIN:-0}
PORT=${PORT:-5561}
PORTS=("$PORT" $((PORT + 1)) $((PORT + 2)))
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin)

[ -f "$("$PGBIN/pg_config" --pkglibdir)/citus.so" ] ||
	{ echo "Citus is not installed in $("$PGBIN/pg_config" --pkglibdir) (scripts/citus.sh builds it)" >&2; exit 1; }

cluster_workdir
for n in 0 1 2; do
	start_cluster "n$n" "${PORTS[$n]}" shared_preload_libraries=citus,bloomfilter \
		shared_buffers=1GB jit=off max_worker_processes=16 citus.shard_count=32 max_connections=300
	psql_on "n$n" -A -t -c 'CREATE EXTENSION citus'
done
coord() { psql_on n0 -A -t -d postgres "$@"; }
coord -c "SELECT citus_set_coordinator_host('127.0.0.1', $PORT)" \
	-c "SELECT citus_add_node('127.0.0.1', ${PORTS[1]})" -c "SELECT citus_add_node('127.0.0.1', ${PORTS[2]})" >/dev/null
coord -c 'CREATE EXTENSION bloomfilter'

SETTINGS="SET citus.enable_repartition_joins = on; SET max_parallel_workers_per_gather = 0;"
OFF="SET bloomfilter.citus_repartition = off;"
if [ "$CHAIN" = 1 ]; then
	echo "loading $DIM customers, $((ROWS / 4)) orders, $ROWS items (32 shards each, 2 workers) ..."
	start=$SECONDS
	coord -c "CREATE TABLE cust (id int, grp int, name text)" -c "SELECT create_distributed_table('cust', 'id')" \
		-c "CREATE TABLE orders (id bigint, cust int, amount int)" \
		-c "SELECT create_distributed_table('orders', 'id', colocate_with => 'none')" \
		-c "CREATE TABLE items (id bigint, order_id bigint, amount int)" \
		-c "SELECT create_distributed_table('items', 'id', colocate_with => 'none')" >/dev/null
	coord -c "INSERT INTO cust SELECT g, g % 100, 'c' || g FROM generate_series(0, $DIM - 1) g" \
		-c "INSERT INTO orders SELECT g, (g::bigint * 7919) % $DIM, g % 100 FROM generate_series(1, $ROWS / 4) g" \
		-c "INSERT INTO items SELECT g, (g::bigint * 104729) % ($ROWS / 4) + 1, g % 1000 FROM generate_series(1, $ROWS) g" \
		-c 'VACUUM ANALYZE cust' -c 'VACUUM ANALYZE orders' -c 'VACUUM ANALYZE items' >/dev/null
else
	echo "loading $ROWS rows into fact and $DIM into dim (32 shards each, 2 workers; PAD=$PAD) ..."
	start=$SECONDS
	if [ "$PAD" -gt 0 ]; then padcol=", pad text"; padval=", repeat('x', $PAD)"; else padcol=""; padval=""; fi
	coord -c "CREATE TABLE fact (id bigint, k int, amount int, r int $padcol)" \
		-c "SELECT create_distributed_table('fact', 'id')" \
		-c "CREATE TABLE dim (id int, sel int, name text, r int)" \
		-c "SELECT create_distributed_table('dim', 'sel', colocate_with => 'none')" >/dev/null
	coord -c "INSERT INTO fact SELECT g, (g::bigint * 7919) % $DIM, g % 1000, g % 7 $padval FROM generate_series(1, $ROWS) g" \
		-c "INSERT INTO dim SELECT g, g % 100, 'name ' || g, g % 7 FROM generate_series(0, $DIM - 1) g" \
		-c 'VACUUM ANALYZE fact' -c 'VACUUM ANALYZE dim' >/dev/null
fi
echo "loaded in $((SECONDS - start)) s"

if [ "$PAD" -gt 0 ]; then extra=", max(f.pad)"; else extra=""; fi
if [ "$KEYS" = 2 ]; then on="f.k = d.id AND f.r = d.r"; else on="f.k = d.id"; fi
query() { echo "SELECT count(*), sum(f.amount) $extra FROM fact f JOIN dim d ON $on WHERE d.sel < $1"; }
if [ "$CHAIN" = 1 ]; then
	query() { echo "SELECT count(*), sum(i.amount) FROM cust c JOIN orders o ON o.cust = c.id JOIN items i ON i.order_id = o.id WHERE c.grp < $1"; }
fi

# run_ms SETTING SQL: the time of one run, in ms
run_ms() {
	printf '%s\n\\timing on\n%s;\n' "$SETTINGS $1" "$2" | coord |
		sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
}

# shuffled SETTING SQL: "bytes rows" written by the map tasks of SQL, each
# run again on its worker (same query, same partitioning) and rolled back
shuffled() {
	local log="$WORK_DIR/remote.log" port total_b=0 total_r=0 b r
	printf '%s\nSET citus.log_remote_commands = on;\nSET client_min_messages = log;\n%s;\n' \
		"$SETTINGS $1" "$2" | coord >/dev/null 2>"$log"
	perl -ne '
		if (/issuing SELECT partition_index.*?FROM pg_catalog\.worker_partition_query_result\((.*)\) WHERE rows_written > 0/) { $args = $1; next; }
		if (defined $args && /on server \S+:(\d+) /) {
			my $port = $1;
			$args =~ s/^'\''repartition_/'\''benchreplay_/;
			open(my $fh, ">>", "'"$WORK_DIR"'/replay.$port.sql") or die;
			print $fh "SELECT sum(bytes_written), sum(rows_written) FROM pg_catalog.worker_partition_query_result($args);\n";
			undef $args;
		}' "$log"
	for port in "${PORTS[@]}"; do
		[ -f "$WORK_DIR/replay.$port.sql" ] || continue
		chmod 644 "$WORK_DIR/replay.$port.sql"
		while read -r b r; do
			total_b=$((total_b + ${b:-0})); total_r=$((total_r + ${r:-0}))
		done < <({ echo 'BEGIN;'; cat "$WORK_DIR/replay.$port.sql"; echo 'ROLLBACK;'; } |
			as_postgres "$PGBIN/psql" -X -q -A -t -F ' ' -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -d postgres |
			grep -E '^[0-9]+ [0-9]+$')
		rm -f "$WORK_DIR/replay.$port.sql"
	done
	echo "$total_b $total_r"
}

stats() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f %.1f\n", v[1], v[int((NR + 1) / 2)] }'; }

echo
printf '%-6s %-4s %14s %12s %10s %10s   %s\n' keys rule "bytes shuffled" "rows" "best ms" "median ms" "result"
for pct in 1 10 100; do
	q=$(query "$pct")
	r_on=$(coord -c "$SETTINGS" -c "$q" | tail -1)
	r_off=$(coord -c "$SETTINGS $OFF" -c "$q" | tail -1)
	[ "$r_on" = "$r_off" ] && same="equal" || same="DIFFERENT: $r_on / $r_off"
	on_ms=(); off_ms=()
	for _ in $(seq "$RUNS"); do
		off_ms+=("$(run_ms "$OFF" "$q")")
		on_ms+=("$(run_ms "" "$q")")
	done
	read -r on_best on_med < <(printf '%s\n' "${on_ms[@]}" | stats)
	read -r off_best off_med < <(printf '%s\n' "${off_ms[@]}" | stats)
	read -r on_b on_r < <(shuffled "" "$q")
	read -r off_b off_r < <(shuffled "$OFF" "$q")
	decision=$(printf '%s\nSET client_min_messages = debug1;\n%s;\n' "$SETTINGS" "$q" | coord 2>&1 >/dev/null |
		grep -o 'probed with the keys of [a-z_]*\|keeps [0-9.]* of its rows' | tr '\n' ';' || true)
	printf '%-6s %-4s %14d %12d %10.1f %10.1f   %s\n' "$pct%" off "$off_b" "$off_r" "$off_best" "$off_med" "$same"
	printf '%-6s %-4s %14d %12d %10.1f %10.1f   %s\n' "$pct%" on "$on_b" "$on_r" "$on_best" "$on_med" "$decision"
	awk -v ob="$off_b" -v nb="$on_b" -v ot="$off_med" -v nt="$on_med" -v obt="$off_best" -v nbt="$on_best" \
		'BEGIN { printf "  on against off: %.1fx fewer bytes shuffled, %.2fx faster (median), %.2fx (best)\n",
		         ob / (nb > 0 ? nb : 1), ot / nt, obt / nbt }'
done

echo
if [ "$KEYS" = 2 ] || [ "$CHAIN" = 1 ]; then exit 0; fi
echo "what bounds the join (1%), best of $RUNS:"
F="(SELECT bloom_agg(id) FROM dim WHERE sel < 1)"
coord -c "CREATE TABLE filter_1pct AS SELECT bloom_agg(id) AS f FROM dim WHERE sel < 1" >/dev/null
bound() {
	local label=$1 sql=$2 ms=()
	for _ in $(seq "$RUNS"); do ms+=("$(run_ms "" "$sql")"); done
	read -r best med < <(printf '%s\n' "${ms[@]}" | stats)
	printf '  %-58s %10.1f ms\n' "$label" "$best"
}
bound "build: bloom_agg(id) over dim where sel < 1 (per shard)" "SELECT bloom_info($F) IS NOT NULL"
bound "build, fixed shape: bloom_agg(id, DIM/100, 0.01) (per shard)" \
	"SELECT bloom_info(bloom_agg(id, $DIM / 100, 0.01)) IS NOT NULL FROM dim WHERE sel < 1"
bound "build, blocked: bloom_agg(id, DIM/100, 0.01, 'blocked') (per shard)" \
	"SELECT bloom_info(bloom_agg(id, $DIM / 100, 0.01, 'blocked')) IS NOT NULL FROM dim WHERE sel < 1"
bound "the sample of dim (1% of its pages)" "SELECT count(*), count(*) FILTER (WHERE sel < 1) FROM dim TABLESAMPLE SYSTEM (1)"
bound "scan of fact: count(*)" "SELECT count(*) FROM fact"
FC=$(coord -c "SELECT f FROM filter_1pct")
bound "scan of fact with the probe: count(*) WHERE bloom_contains" "SELECT count(*) FROM fact f WHERE bloom_contains('$FC'::bloom, f.k)"
FB=$(coord -c "SELECT bloom_agg(id, $DIM / 100, 0.01, 'blocked') FROM dim WHERE sel < 1")
bound "scan of fact with the probe of the blocked filter" "SELECT count(*) FROM fact f WHERE bloom_contains('$FB'::bloom, f.k)"
bound "the filtered join, rewrite off, constant filter written by hand" \
	"$OFF $(query 1) AND bloom_contains('$FC'::bloom, f.k)"
bound "dim's side alone: count(*) WHERE sel < 1" "SELECT count(*) FROM dim WHERE sel < 1"
bound "the join, rewrite off, fact's map queries output no row (amount < 0)" \
	"$OFF $(query 1) AND f.amount < 0"
coord -c "CREATE TABLE tiny_a (id int, k int)" -c "SELECT create_distributed_table('tiny_a', 'id')" \
	-c "CREATE TABLE tiny_b (id int, k int)" -c "SELECT create_distributed_table('tiny_b', 'k', colocate_with => 'none')" \
	-c "INSERT INTO tiny_a SELECT g, g FROM generate_series(1, 100) g" -c "INSERT INTO tiny_b SELECT g, g FROM generate_series(1, 100) g" >/dev/null
bound "the machinery alone: the same dual join of two 100-row tables" \
	"$OFF SELECT count(*) FROM tiny_a a JOIN tiny_b b ON a.k = b.id"
echo "  filter: $(coord -c "SELECT pg_size_pretty(octet_length(f::bytea)::bigint) FROM filter_1pct")"
