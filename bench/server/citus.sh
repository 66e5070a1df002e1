#!/bin/bash
# bench/server/citus.sh: a benchmark on a Citus cluster (not a test).  A
# coordinator and two workers on this machine, a fact table `orders` of ROWS
# rows distributed by id over 32 shards, and
#   1. a filter of the whole table: bloom_agg(customer_id, CAP, 0.01) with
#      the rewrite off (Citus gathers every shard's rows to the coordinator)
#      against the default, where each shard builds a partial filter
#      (the hashed twin, whose state Citus fetches in binary, or with
#      bloomfilter.citus_binary_states off through worker_partial_agg as
#      text) and the coordinator combines them; against run_command_on_shards + bloom_union_agg by hand, and the
#      roll-up of per-shard summaries stored in a distributed table; then
#      the other forms (data-sized, blocked, multibloom) off against on;
#   2. the semijoin of orders with a local dimension table filtered to 1% and
#      10% of its keys: the plain semijoin (the selected keys travel to every
#      shard) against the prefilter (only the filter travels);
#   3. local speed of bloom_union_agg with its 1.2 state (bloom_setop_state)
#      against the 1.1 internal state, whose C functions remain;
#   4. local speed of bloom_agg against its hashed twin (what each shard
#      runs), both against count(*).
# The partial states travel in binary (bloomfilter_citus.hll_add_agg, which
# Citus splits by that name), or as their type's text output through
# worker_partial_agg (a cstring): the seven-bit text form, about 8/7 of a
# state's bytes (base64's 4/3 before it).
# Bytes are the kernel's counters of the coordinator's connections to the
# workers (ss: bytes the workers sent, bytes they received), over one cached
# connection per worker (citus.max_adaptive_executor_pool_size = 1), so no
# connection closes before it is counted; time is the best of RUNS runs.
# Recorded in bench/results/citus-results.md.  Needs Citus installed in that
# PostgreSQL (scripts/citus.sh builds it).  Run as root (the servers run as
# postgres) or as the user the servers should run as.
#
#   flock /tmp/bloomfilter-heavy.lock bash bench/server/citus.sh
#   ROWS=1000000 bash bench/server/citus.sh      # quicker
#
# Environment: PGBIN (default: the bindir of PG_CONFIG, else of pg_config in
# PATH), PORT (coordinator; the workers take the next two; default 5541),
# RUNS (default 3; LOCAL_RUNS, default 7, for sections 3 and 4), CUSTOMERS
# (keys of the dimension table and distinct customer_id values, default
# 100000; the filters are sized for them).
set -euo pipefail

ROWS=${ROWS:-10000000}
CUSTOMERS=${CUSTOMERS:-100000}
RUNS=${RUNS:-3}
LOCAL_RUNS=${LOCAL_RUNS:-7}
PORT=${PORT:-5541}
PORTS=("$PORT" $((PORT + 1)) $((PORT + 2)))
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin)

[ -f "$("$PGBIN/pg_config" --pkglibdir)/citus.so" ] ||
	{ echo "Citus is not installed in $("$PGBIN/pg_config" --pkglibdir) (scripts/citus.sh builds it)" >&2; exit 1; }

# every node on loopback TCP: the workers' connections are the ones counted
cluster_workdir
for n in 0 1 2; do
	start_cluster "n$n" "${PORTS[$n]}" shared_preload_libraries=citus,bloomfilter \
		shared_buffers=1GB jit=off max_worker_processes=16
	psql_on "n$n" -A -t -c 'CREATE EXTENSION citus'
done
coord() { psql_on n0 -A -t -d postgres "$@"; }
coord -c "SELECT citus_set_coordinator_host('127.0.0.1', $PORT)" \
	-c "SELECT citus_add_node('127.0.0.1', ${PORTS[1]})" -c "SELECT citus_add_node('127.0.0.1', ${PORTS[2]})" >/dev/null
coord -c 'CREATE EXTENSION bloomfilter'

echo "loading $ROWS rows into orders (32 shards on 2 workers) and $CUSTOMERS customers ..."
start=$SECONDS
coord -c 'SET citus.shard_count = 32' \
	-c 'CREATE TABLE orders (id bigint, customer_id int, amount int)' \
	-c "SELECT create_distributed_table('orders', 'id')" >/dev/null
coord -c "INSERT INTO orders SELECT g, (g::bigint * 7919) % $CUSTOMERS, g % 1000 FROM generate_series(1, $ROWS) g" >/dev/null
coord -c "CREATE TABLE customers (id int PRIMARY KEY, segment int)" \
	-c "INSERT INTO customers SELECT g, (g * 37) % 1000 FROM generate_series(0, $CUSTOMERS - 1) g" \
	-c 'VACUUM ANALYZE customers' -c 'VACUUM ANALYZE orders' >/dev/null
echo "loaded in $((SECONDS - start)) s: $(coord -c 'SELECT count(*) FROM orders') rows"

# Bytes the workers sent and received on their connections from the
# coordinator, written to a file by psql itself (\!) between the statements
# of one session: Citus keeps its connections for the session only.
cat >"$WORK_DIR/counters.sh" <<END_OF_SCRIPT
ss -tinH state established '( sport = :${PORTS[1]} or sport = :${PORTS[2]} )' |
	awk '{ for (i = 1; i <= NF; i++) { if (\$i ~ /^bytes_sent:/) { split(\$i, a, ":"); s += a[2] }
	                                   if (\$i ~ /^bytes_received:/) { split(\$i, a, ":"); r += a[2] } } }
	     END { print s + 0, r + 0 }' >"\$1"
END_OF_SCRIPT
chmod 755 "$WORK_DIR/counters.sh"
[ "$(id -u)" = 0 ] && chown postgres "$WORK_DIR/counters.sh"

SETTINGS="SET citus.max_adaptive_executor_pool_size = 1; SET max_parallel_workers_per_gather = 0;"
# measure LABEL SQL: best time of RUNS runs (after one to open the
# connections), bytes of the last; prints a row.
measure() {
	local label=$1 sql=$2 out i
	out=$(for i in $(seq "$RUNS"); do
			printf '\\! %s %s\n%s;\n\\! %s %s\n' "$WORK_DIR/counters.sh" "$WORK_DIR/before" "$sql" "$WORK_DIR/counters.sh" "$WORK_DIR/after"
		done | { echo "$SETTINGS"; echo "$sql;"; echo '\timing on'; cat; } | coord)
	LAST_MS=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | sort -n | head -1)
	read -r s0 r0 <"$WORK_DIR/before"
	read -r s1 r1 <"$WORK_DIR/after"
	printf '%-44s %14d %14d %10.1f\n' "$label" $((s1 - s0)) $((r1 - r0)) "$LAST_MS"
	LAST_BYTES=$((s1 - s0 + r1 - r0))
}

CAP=$CUSTOMERS
echo
echo "1. a filter of the whole table: bloom_agg(customer_id, $CAP, 0.01), $(coord -c "SELECT pg_size_pretty(octet_length(bloom_empty($CAP, 0.01)::bytea)::bigint)") filter"
printf '%-44s %14s %14s %10s\n' plan "workers sent" "workers recv" "best ms"
Q_AGG="SELECT md5(bloom_agg(customer_id, $CAP, 0.01)::bytea) FROM orders"
Q_SHARDS="SELECT md5(bloom_union_agg(result::bloom)::bytea) FROM run_command_on_shards('orders',
	\$\$SELECT bloom_agg(customer_id, $CAP, 0.01) FROM %s\$\$)"
BASE_SETTINGS=$SETTINGS
OFF="SET bloomfilter.distributed_aggregates = off;"
SETTINGS="$BASE_SETTINGS $OFF"
measure "row gather (rewrite off)" "$Q_AGG"; G_MS=$LAST_MS; G_B=$LAST_BYTES
SETTINGS=$BASE_SETTINGS
measure "per shard: binary states (default)" "$Q_AGG"; P_MS=$LAST_MS; P_B=$LAST_BYTES
TEXT="SET bloomfilter.citus_binary_states = off;"
SETTINGS="$BASE_SETTINGS $TEXT"
measure "per shard: text states (worker_partial_agg)" "$Q_AGG"; T_MS=$LAST_MS; T_B=$LAST_BYTES
SETTINGS=$BASE_SETTINGS
# run_command_on_shards opens connections of its own, closed before the
# counters can see them: its bytes are the results it receives (text).
measure "per shard: run_command_on_shards + union" "$Q_SHARDS"; S_MS=$LAST_MS
S_B=$(coord -c "SELECT sum(octet_length(result)) FROM run_command_on_shards('orders',
	\$\$SELECT bloom_agg(customer_id, $CAP, 0.01) FROM %s\$\$)")
echo "  (run_command_on_shards: the workers sent $S_B bytes of filters as text, not counted above)"
same=$( { coord -c "$OFF $Q_AGG"; coord -c "$Q_AGG"; coord -c "$TEXT $Q_AGG"; coord -c "$Q_SHARDS"; } | sort -u | wc -l)
[ "$same" = 1 ] && echo "  (all four give the same filter, byte for byte)" || echo "  (THE FILTERS DIFFER)"
coord -c 'CREATE TABLE shard_filters (bucket int, f bloom)' \
	-c "SELECT create_distributed_table('shard_filters', 'bucket', colocate_with => 'none')" >/dev/null
coord -c "INSERT INTO shard_filters SELECT shardid, result::bloom FROM run_command_on_shards('orders',
	\$\$SELECT bloom_agg(customer_id, $CAP, 0.01) FROM %s\$\$)" >/dev/null
measure "roll-up of 32 stored per-shard filters" "SELECT md5(bloom_union_agg(f)::bytea) FROM shard_filters"
FILTER_BYTES=$(coord -c "SELECT octet_length(bloom_empty($CAP, 0.01)::bytea)")
awk -v g="$G_MS" -v p="$P_MS" -v s="$S_MS" -v gb="$G_B" -v pb="$P_B" -v tb="$T_B" -v fb="$FILTER_BYTES" \
	'BEGIN { printf "  per shard (binary) against row gather: %.1fx faster, %.1fx fewer bytes\n", g / p, gb / pb
	         printf "  run_command_on_shards against row gather: %.1fx faster\n", g / s
	         printf "  bytes moved per shard, binary states: %d = %.3f x (32 shards x %d filter bytes)\n", pb, pb / (32 * fb), fb
	         printf "  bytes moved per shard, text states: %d = %.3f x (32 shards x %d filter bytes)\n", tb, tb / (32 * fb), fb }'

echo
echo "1b. the other forms: rewrite off (row gather) against on (per shard)"
printf '%-44s %14s %14s %10s\n' plan "workers sent" "workers recv" "best ms"
for expr in "bloom_agg(customer_id)" "bloom_agg(customer_id, $CAP, 0.01, 'blocked')" \
	"multibloom_agg(customer_id, amount)" "multibloom_agg_fixed($CAP, 0.01, customer_id, amount)"; do
	q="SELECT md5(($expr)::bytea) FROM orders"
	SETTINGS="$BASE_SETTINGS $OFF"
	measure "$expr, off" "$q"; O_MS=$LAST_MS; O_B=$LAST_BYTES
	SETTINGS=$BASE_SETTINGS
	measure "$expr, on" "$q"
	[ "$(coord -c "$OFF $q")" = "$(coord -c "$q")" ] && eq="the same bytes" || eq="DIFFERENT BYTES"
	awk -v o="$O_MS" -v n="$LAST_MS" -v ob="$O_B" -v nb="$LAST_BYTES" -v eq="$eq" \
		'BEGIN { printf "  on against off: %.1fx faster, %.1fx fewer bytes, %s\n", o / n, ob / nb, eq }'
	N_B=$LAST_BYTES
	SETTINGS="$BASE_SETTINGS $TEXT"
	measure "$expr, on, text states" "$q"
	SETTINGS=$BASE_SETTINGS
	# what the shards sent against 32 of the result's filters (a data-sized
	# form's states are its distinct hashes, not a filter)
	fb=$(coord -c "SELECT octet_length(($expr)::bytea) FROM orders")
	awk -v nb="$N_B" -v tb="$LAST_BYTES" -v fb="$fb" \
		'BEGIN { printf "  bytes moved on: binary %d = %.3f x, text %d = %.3f x (32 shards x %d result bytes)\n", nb, nb / (32 * fb), tb, tb / (32 * fb), fb }'
done

echo
echo "2. semijoin of orders with customers (a local table of the coordinator)"
printf '%-44s %14s %14s %10s\n' plan "workers sent" "workers recv" "best ms"
for sel in 1 10; do
	cut=$((sel * 10))
	Q_PLAIN="SELECT count(*), sum(amount) FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE segment < $cut)"
	Q_BLOOM="SELECT count(*), sum(amount) FROM orders WHERE bloom_contains((SELECT bloom_agg(id) FROM customers WHERE segment < $cut), customer_id)"
	keys=$(coord -c "SELECT count(*) FROM customers WHERE segment < $cut")
	measure "$sel% of keys ($keys): plain semijoin" "$Q_PLAIN"; P_MS=$LAST_MS; P_B=$LAST_BYTES
	measure "$sel% of keys: bloom prefilter only" "$Q_BLOOM"; B_MS=$LAST_MS; B_B=$LAST_BYTES
	echo "  rows: semijoin $(coord -c "$Q_PLAIN" | cut -d'|' -f1), prefilter $(coord -c "$Q_BLOOM" | cut -d'|' -f1)" \
		"(the prefilter's extra rows are its false positives); filter $(coord -c "SELECT octet_length(bloom_agg(id)::bytea) FROM customers WHERE segment < $cut") bytes"
	awk -v p="$P_MS" -v b="$B_MS" -v pb="$P_B" -v bb="$B_B" \
		'BEGIN { printf "  prefilter against plain: time %.2fx, bytes %.1fx fewer\n", p / b, pb / bb }'
done

echo
echo "3. local speed of bloom_union_agg: 1.2 state against the 1.1 internal state (coordinator, one process)"
# bloom_union_agg as 1.1 defined it, on the C functions 1.1 databases still use
coord -c "CREATE FUNCTION old_union_trans(internal, bloom) RETURNS internal AS 'bloomfilter', 'bloom_union_agg_trans' LANGUAGE C" \
	-c "CREATE FUNCTION old_union_combine(internal, internal) RETURNS internal AS 'bloomfilter', 'bloom_union_agg_combine' LANGUAGE C" \
	-c "CREATE FUNCTION old_setop_final(internal) RETURNS bloom AS 'bloomfilter', 'bloom_setop_agg_final' LANGUAGE C" \
	-c "CREATE FUNCTION old_setop_serialize(internal) RETURNS bytea AS 'bloomfilter', 'bloom_setop_agg_serialize' LANGUAGE C STRICT" \
	-c "CREATE FUNCTION old_setop_deserialize(bytea, internal) RETURNS internal AS 'bloomfilter', 'bloom_setop_agg_deserialize' LANGUAGE C STRICT" \
	-c "CREATE AGGREGATE old_union_agg(bloom) (SFUNC = old_union_trans, STYPE = internal, SSPACE = 1024,
		FINALFUNC = old_setop_final, COMBINEFUNC = old_union_combine,
		SERIALFUNC = old_setop_serialize, DESERIALFUNC = old_setop_deserialize)" \
	-c "CREATE TABLE small_filters AS SELECT g % 1000 AS grp, bloom_agg(g, 1000, 0.01) AS f FROM generate_series(1, 1000000) g GROUP BY 1, g % 97" \
	-c "CREATE TABLE big_filters AS SELECT g % 20 AS grp, bloom_agg(g, 1000000, 0.01) AS f FROM generate_series(1, 200000) g GROUP BY 1" >/dev/null
# measure_local TABLE GROUPING: best of LOCAL_RUNS for each aggregate,
# interleaved (short queries: more runs to see through the machine's load).
measure_local() {
	local i ms agg
	for i in $(seq "$LOCAL_RUNS"); do
		for agg in old_union_agg bloom_union_agg; do
			ms=$(coord -c 'SET max_parallel_workers_per_gather = 0' -c '\timing on' \
				-c "SELECT count(md5(u::bytea)) FROM (SELECT $agg(f) AS u FROM $1 GROUP BY $2) s" |
				sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
			echo "$agg $ms"
		done
	done | awk '{ if (!($1 in best) || $2 < best[$1]) best[$1] = $2 }
	            END { printf "%10.1f %10.1f\n", best["old_union_agg"], best["bloom_union_agg"] }'
}
printf '%-44s %10s %10s\n' "" "1.1 ms" "1.2 ms"
printf '%-44s %s\n' "97000 filters of 1.2 kB, 1000 groups" "$(measure_local small_filters grp)"
printf '%-44s %s\n' "20 filters of 1.2 MB, 1 group" "$(measure_local big_filters 'grp % 1')"

echo
echo "4. local speed of bloom_agg against its hashed twin, what each shard runs (coordinator, one process)"
coord -c "CREATE TABLE keys AS SELECT (g::bigint * 7919) % $CUSTOMERS AS k FROM generate_series(1, 2000000) g" \
	-c 'VACUUM ANALYZE keys' >/dev/null
# best of LOCAL_RUNS for each query, interleaved
for i in $(seq "$LOCAL_RUNS"); do
	for q in "count(*)" "bloom_agg(k, $CAP, 0.01)" "bloom_agg_hashed(bloom_hash(k, 0), $CAP, 0.01)" \
		"bloom_agg(k)" "bloom_agg_hashed(bloom_hash(k, 0))"; do
		ms=$(coord -c 'SET max_parallel_workers_per_gather = 0' -c '\timing on' \
			-c "SELECT $q IS NOT NULL FROM keys" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
		echo "$q|$ms"
	done
done | awk -F'|' '{ if (!($1 in best) || $2 < best[$1]) { best[$1] = $2 }; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
	END { for (i = 0; i < n; i++) printf "%-58s %8.1f ms  %.2fx count(*)\n", order[i], best[order[i]], best[order[i]] / best["count(*)"] }'
