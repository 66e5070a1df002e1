#!/bin/bash
# bench/server/run.sh: the probe and build targets of doc/performance.md, on
# one throwaway cluster.  It prints times and the ratios of times measured in
# this same run; its output is recorded in
# bench/results/performance-results.md (all sections) and
# bench/results/batchscan-results.md (BENCH_SECTIONS=targets).
#
# Data (setup.sql): t_int and t_text, BENCH_ROWS rows of random bigint and of
# md5 text keys; inner tables of 10^5 and BENCH_MID keys for the semijoins;
# filters (bloom_agg, 1% false positives, classic and blocked) of 10^5 and
# BENCH_MID keys of each kind, of 10^6 int keys, and of BENCH_BIG int keys.
#
# Measured, in this order:
#  1. for int and for text keys, serially and with 2 workers, the best of
#     BENCH_REPEAT runs of: count(*); the trivial predicate hashint8(k) <> 0
#     (hashtext); hash semijoins with 10^5 and BENCH_MID keys; probe scans
#     (bloom_contains) with the filters of 10^5, BENCH_MID and (int only)
#     BENCH_BIG keys, both layouts; hll_add_agg; bloom_agg(k, BENCH_ROWS,
#     0.01) in both layouts; bloom_add_all in both layouts; array_agg;
#  2. the batched probe scan's targets, serial, in BENCH_ROUNDS interleaved
#     rounds (each round runs every query once, so a slowdown of the machine
#     hits all alike; the best time of each is kept): probe scans with the
#     batched scan on and off (bloomfilter.enable_batch_scan), the trivial
#     predicate, count(*), the hash semijoin, bloom_agg, hll_add_agg, and a
#     scan of a postgres_fdw foreign table on this same server (loopback)
#     whose filter arrives as a parameter, with the batched scan on and off;
#  3. point lookups of 20 values (10 present, 10 absent): a BRIN bloom_ops
#     index on t_int and a contrib bloom index on t_text (build times and
#     sizes printed) against bloom_contains on the BENCH_MID-key filters;
#  4. the tables of targets (ratios against their targets, met or not) and
#     every ratio to the trivial predicate and to count(*).
# BENCH_SECTIONS=targets runs only the data, section 2 and its table.
#
# Run as root (the server runs as the postgres OS user; postgresql-15-hll is
# installed if missing) or as the user the server should run as.  Needs the
# extension installed (make install), contrib (bloom, pg_prewarm,
# postgres_fdw) and hll in that installation; about 3 GB of memory and 6
# minutes on 2 cores at the default sizes.
#
# Options (environment):
#   PG_CONFIG       the installation to run (default: pg_config in PATH;
#                   PGBIN, a bindir, also works)
#   BENCH_ROWS      rows of each table (10000000)
#   BENCH_MID       keys of the middle filters and semijoin table (10000000)
#   BENCH_BIG       keys of the largest int filters (100000000; 0 leaves
#                   them out)
#   BENCH_REPEAT    timed runs per query in section 1, the best kept (3)
#   BENCH_ROUNDS    interleaved rounds of section 2 (5)
#   BENCH_SECTIONS  all (default) or targets
#   BENCH_PORT      the server's port (5531)
#   BENCH_DIR       the cluster's directory (/tmp/bloomfilter-bench; emptied)
#   BENCH_KEEP=1    leave the cluster running at exit
set -euo pipefail

ROWS=${BENCH_ROWS:-10000000}
MID=${BENCH_MID:-10000000}
BIG=${BENCH_BIG:-100000000}
REPEAT=${BENCH_REPEAT:-3}
ROUNDS=${BENCH_ROUNDS:-5}
SECTIONS=${BENCH_SECTIONS:-all}
PORT=${BENCH_PORT:-5531}
DIR=${BENCH_DIR:-/tmp/bloomfilter-bench}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin)
CLUSTER_KEEP=${BENCH_KEEP:+1}

if [ "$(id -u)" = 0 ] && [ ! -f "$("$PGBIN/pg_config" --sharedir)/extension/hll.control" ]; then
	echo "installing postgresql-15-hll" >&2
	apt-get install -y postgresql-15-hll >/dev/null
fi

cluster_workdir "$DIR"
start_cluster bench "$PORT" listen_addresses= shared_buffers=2GB jit=off \
	max_worker_processes=8 max_parallel_workers=4 work_mem=1GB \
	max_wal_size=4GB checkpoint_timeout=1h autovacuum=off
RESULTS=$WORK_DIR/results.txt
PSQL=(psql_on bench -d postgres)

echo "# bloomfilter benchmark: $ROWS rows, filters of 1e5, 1e7 and $BIG keys, best of $REPEAT"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $("$PGBIN/postgres" --version)"
suite_start=$(date +%s)
start=$suite_start
"${PSQL[@]}" -v rows="$ROWS" -v mid="$MID" -v big="$BIG" -f - <"$HERE/setup.sql"
echo "# setup took $(($(date +%s) - start)) s"
: >"$RESULTS"
has_agg=$("${PSQL[@]}" -tA -c "SELECT to_regprocedure('bloom_agg(anyelement, bigint, float8)') IS NOT NULL")
[ "$has_agg" = t ] || echo "# no bloom_agg(value, capacity, fpp) in this build: builds measured with bloom_add_all"

# time MODE LABEL SQL: best of REPEAT runs of SQL, in ms, recorded in RESULTS
time_query() {
	local mode=$1 label=$2 sql=$3 extra=${4:-} settings ms
	if [ "$mode" = serial ]; then
		settings="SET max_parallel_workers_per_gather = 0;"
	else
		# two workers and no leader participation: two processes, two cores
		settings="SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
		          SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
		          SET min_parallel_table_scan_size = 0;"
	fi
	ms=$({
		echo "$settings $extra"
		echo '\timing on'
		for _ in $(seq "$REPEAT"); do echo "$sql;"; done
	} | "${PSQL[@]}" | awk '/^Time:/ { print $2 }' | sort -g | head -1)
	printf '%-8s %-34s %10.1f ms\n' "$mode" "$label" "$ms"
	printf '%s %s %s\n' "$mode" "$label" "$ms" >>"$RESULTS"
}

filter() { echo "(SELECT f FROM filters WHERE name = '$1')"; }

# interleaved: BENCH_ROUNDS rounds over the queries added by il_add LABEL
# SETTINGS SQL, each round running each query once in order; records the
# best time of each in RESULTS as "serial LABEL ms".
IL_LABELS=()
IL_SETTINGS=()
IL_SQL=()
il_add() { IL_LABELS+=("$1"); IL_SETTINGS+=("$2"); IL_SQL+=("$3"); }
interleaved() {
	local times i ms
	times=$(mktemp)
	for _ in $(seq "$ROUNDS"); do
		for i in "${!IL_LABELS[@]}"; do
			ms=$({
				echo "SET max_parallel_workers_per_gather = 0; ${IL_SETTINGS[$i]}"
				echo '\timing on'
				echo "${IL_SQL[$i]};"
			} | "${PSQL[@]}" | awk '/^Time:/ { print $2 }')
			echo "$i $ms" >>"$times"
		done
	done
	for i in "${!IL_LABELS[@]}"; do
		ms=$(awk -v i="$i" '$1 == i { print $2 }' "$times" | sort -g | head -1)
		printf '%-8s %-34s %10.1f ms\n' serial "${IL_LABELS[$i]}" "$ms"
		printf 'serial %s %s\n' "${IL_LABELS[$i]}" "$ms" >>"$RESULTS"
	done
	rm -f "$times"
}

# The batched probe scan's targets, interleaved.  The foreign table is this
# server's t_int seen through postgres_fdw (a serial remote session), so
# the remote side of a semijoin runs here: the filter arrives as $1.
batch_targets() {
	"${PSQL[@]}" -c "SELECT pg_prewarm('t_int')" >/dev/null
	"${PSQL[@]}" <<-SQL
	CREATE SERVER IF NOT EXISTS loopback FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '$(cluster_host bench)', port '$PORT', dbname 'postgres', extensions 'bloomfilter',
		         options '-c max_parallel_workers_per_gather=0');
	CREATE USER MAPPING IF NOT EXISTS FOR CURRENT_USER SERVER loopback;
	CREATE FOREIGN TABLE IF NOT EXISTS remote_t_int (k bigint) SERVER loopback OPTIONS (table_name 't_int');
	SQL
	echo "## batched probe scan targets: $ROWS rows, serial, best of $ROUNDS interleaved rounds"
	"${PSQL[@]}" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM remote_t_int WHERE bloom_contains($(filter int_1e6_classic), k)" |
		grep 'Remote SQL' | sed 's/^ */# /'
	local off="SET bloomfilter.enable_batch_scan = off;"
	IL_LABELS=() IL_SETTINGS=() IL_SQL=()
	il_add "batch count" "" "SELECT count(*) FROM t_int"
	il_add "batch trivial" "" "SELECT count(*) FROM t_int WHERE hashint8(k) <> 0"
	for size in 1e5 1e7; do
		for layout in classic blocked; do
			il_add "batch probe $size $layout" "" \
				"SELECT count(*) FROM t_int WHERE bloom_contains($(filter int_${size}_${layout}), k)"
			il_add "batch off probe $size $layout" "$off" \
				"SELECT count(*) FROM t_int WHERE bloom_contains($(filter int_${size}_${layout}), k)"
		done
	done
	il_add "batch semijoin 1e5" "" "SELECT count(*) FROM t_int WHERE k IN (SELECT k FROM small_int_1e5)"
	if [ "$has_agg" = t ]; then
		il_add "batch build 1e7 classic" "" "SELECT bloom_fpp(bloom_agg(k, $ROWS, 0.01)) FROM t_int"
		il_add "batch build 1e7 blocked" "" "SELECT bloom_fpp(bloom_agg(k, $ROWS, 0.01, 'blocked')) FROM t_int"
	fi
	il_add "batch hll_add_agg" "" "SELECT hll_cardinality(hll_add_agg(hll_hash_bigint(k))) FROM t_int"
	il_add "batch remote probe 1e6" "ALTER SERVER loopback OPTIONS (SET options '-c max_parallel_workers_per_gather=0');" \
		"SELECT count(*) FROM remote_t_int WHERE bloom_contains($(filter int_1e6_classic), k)"
	il_add "batch off remote probe 1e6" "ALTER SERVER loopback OPTIONS (SET options '-c max_parallel_workers_per_gather=0 -c bloomfilter.enable_batch_scan=off');" \
		"SELECT count(*) FROM remote_t_int WHERE bloom_contains($(filter int_1e6_classic), k)"
	il_add "batch remote trivial" "ALTER SERVER loopback OPTIONS (SET options '-c max_parallel_workers_per_gather=0');" \
		"SELECT count(*) FROM remote_t_int WHERE hashint8(k) <> 0"
	interleaved
}

if [ "$SECTIONS" = targets ]; then
	batch_targets
fi

for kind in int text; do
	[ "$SECTIONS" = all ] || break
	case $kind in
		int) t=t_int hash="hashint8(k)" hll="hll_hash_bigint(k)" ;;
		text) t=t_text hash="hashtext(k)" hll="hll_hash_text(k)" ;;
	esac
	"${PSQL[@]}" -c "SELECT pg_prewarm('$t')" >/dev/null
	echo "## $t: $ROWS rows of $kind keys"
	for mode in serial parallel; do
		time_query $mode "$kind count" "SELECT count(*) FROM $t"
		time_query $mode "$kind trivial" "SELECT count(*) FROM $t WHERE $hash <> 0"
		time_query $mode "$kind semijoin 1e5" "SELECT count(*) FROM $t WHERE k IN (SELECT k FROM small_${kind}_1e5)"
		time_query $mode "$kind semijoin 1e7" "SELECT count(*) FROM $t WHERE k IN (SELECT k FROM small_${kind}_1e7)"
		sizes="1e5 1e7"
		[ $kind = int ] && [ "$BIG" -gt 0 ] && sizes="1e5 1e7 1e8"
		for size in $sizes; do
			for layout in classic blocked; do
				time_query $mode "$kind probe $size $layout" \
					"SELECT count(*) FROM $t WHERE bloom_contains($(filter ${kind}_${size}_${layout}), k)"
			done
		done
		time_query $mode "$kind hll_add_agg" "SELECT hll_cardinality(hll_add_agg($hll)) FROM $t"
		if [ "$has_agg" = t ]; then
			time_query $mode "$kind build 1e7 classic" "SELECT bloom_fpp(bloom_agg(k, $ROWS, 0.01)) FROM $t"
			time_query $mode "$kind build 1e7 blocked" "SELECT bloom_fpp(bloom_agg(k, $ROWS, 0.01, 'blocked')) FROM $t"
		fi
		for layout in classic blocked; do
			time_query $mode "$kind add_all 1e7 $layout" \
				"SELECT bloom_fpp(bloom_add_all(bloom_empty($ROWS, 0.01, '$layout'), ARRAY(SELECT k FROM $t)))"
		done
		time_query $mode "$kind array_agg" "SELECT cardinality(ARRAY(SELECT k FROM $t))"
	done
done

if [ "$SECTIONS" = all ]; then
batch_targets
# Point lookups: is v in the column?  A filter of the column's keys answers
# the same question as an index on it (up to false positives).
echo "## point lookups: 20 values (10 present, 10 absent)"
start=$(date +%s%N)
"${PSQL[@]}" -c "CREATE INDEX brin_int ON t_int USING brin (k int8_bloom_ops)"
echo "# BRIN bloom_ops index on t_int built in $((($(date +%s%N) - start) / 1000000)) ms"
start=$(date +%s%N)
"${PSQL[@]}" -c "CREATE INDEX bloomidx_text ON t_text USING bloom (k)"
echo "# contrib bloom index on t_text built in $((($(date +%s%N) - start) / 1000000)) ms"
"${PSQL[@]}" -c "SELECT relname, pg_size_pretty(pg_relation_size(oid)) FROM pg_class WHERE relname IN ('brin_int', 'bloomidx_text')"
time_query serial "lookup brin int" \
	"SELECT count(*) FROM lookup_int l WHERE EXISTS (SELECT 1 FROM t_int WHERE k = l.v)" \
	"SET enable_seqscan = off;"
time_query serial "lookup contrib-bloom text" \
	"SELECT count(*) FROM lookup_text l WHERE EXISTS (SELECT 1 FROM t_text WHERE k = l.v)" \
	"SET enable_seqscan = off;"
for layout in classic blocked; do
	time_query serial "lookup filter int 1e7 $layout" \
		"SELECT count(*) FROM lookup_int l WHERE bloom_contains($(filter int_1e7_$layout), l.v)"
	time_query serial "lookup filter text 1e7 $layout" \
		"SELECT count(*) FROM lookup_text l WHERE bloom_contains($(filter text_1e7_$layout), l.v)"
done
fi

# The targets table of the issue: serial ratios from this run.
awk -v rows="$ROWS" '
	{ key = $1; for (i = 2; i < NF; i++) key = key " " $i; t[key] = $NF }
	function get(key) { if (!(key in t)) { missing = 1; return 0 } return t[key] }
	function row(name, num, den, target, cmp,   a, b, r, ok) {
		a = get(num); b = get(den)
		if (a == 0 || b == 0) { printf "| %-52s | %8s | %-7s | n/a |\n", name, "n/a", target; return }
		r = a / b
		ok = (cmp == "<=") ? (r <= target + 0) : (r >= target + 0)
		printf "| %-52s | %8.2f | %s %-4s | %s |\n", name, r, cmp, target, ok ? "met" : "NOT met"
	}
	END {
		if ("serial batch trivial" in t) {
			print ""
			print "## batched probe scan targets (interleaved rounds; \"off\": bloomfilter.enable_batch_scan = off)"
			print "| measure | ratio | target | |"
			print "|---|---|---|---|"
			row("probe scan, 10^7-key blocked / trivial predicate", "serial batch probe 1e7 blocked", "serial batch trivial", "1.5", "<=")
			row("probe scan, 10^7-key classic / trivial predicate", "serial batch probe 1e7 classic", "serial batch trivial", "2.0", "<=")
			row("probe scan, 10^5-key classic / trivial predicate", "serial batch probe 1e5 classic", "serial batch trivial", "1.15", "<=")
			row("probe scan, 10^5-key blocked / trivial predicate", "serial batch probe 1e5 blocked", "serial batch trivial", "1.15", "<=")
			row("probe scan, 10^5-key classic / hash semijoin", "serial batch probe 1e5 classic", "serial batch semijoin 1e5", "0.4", "<=")
			row("bloom_agg(k, 10^7, 0.01) / count(*)", "serial batch build 1e7 classic", "serial batch count", "1.6", "<=")
			row("bloom_agg(k, 10^7, 0.01) / hll_add_agg", "serial batch build 1e7 classic", "serial batch hll_add_agg", "1.0", "<=")
			row("remote scan, 10^6-key filter as $1 / trivial predicate", "serial batch remote probe 1e6", "serial batch remote trivial", "1.3", "<=")
			print ""
			print "## the same measures with the batched scan off (before), and the blocked build"
			row("off: probe scan, 10^7-key blocked / trivial predicate", "serial batch off probe 1e7 blocked", "serial batch trivial", "1.5", "<=")
			row("off: probe scan, 10^7-key classic / trivial predicate", "serial batch off probe 1e7 classic", "serial batch trivial", "2.0", "<=")
			row("off: probe scan, 10^5-key classic / trivial predicate", "serial batch off probe 1e5 classic", "serial batch trivial", "1.15", "<=")
			row("off: probe scan, 10^5-key blocked / trivial predicate", "serial batch off probe 1e5 blocked", "serial batch trivial", "1.15", "<=")
			row("off: probe scan, 10^5-key classic / hash semijoin", "serial batch off probe 1e5 classic", "serial batch semijoin 1e5", "0.4", "<=")
			row("off: remote scan, 10^6-key filter / trivial predicate", "serial batch off remote probe 1e6", "serial batch remote trivial", "1.3", "<=")
			row("blocked: bloom_agg(k, 10^7, 0.01, blocked) / count(*)", "serial batch build 1e7 blocked", "serial batch count", "1.6", "<=")
			row("blocked: bloom_agg(k, 10^7, 0.01, blocked) / hll_add_agg", "serial batch build 1e7 blocked", "serial batch hll_add_agg", "1.0", "<=")
		}
		if (!("serial int trivial" in t)) exit
		print ""
		print "## targets (ratios of times measured in this run)"
		print "| measure | ratio | target | |"
		print "|---|---|---|---|"
		b = ("serial int build 1e7 classic" in t) ? "build" : "add_all"
		row("bloom_agg(k, n, 0.01) / count(*)", "serial int " b " 1e7 classic", "serial int count", "1.4", "<=")
		row("bloom_agg(k, n, 0.01) / hll_add_agg", "serial int " b " 1e7 classic", "serial int hll_add_agg", "1.0", "<=")
		row("probe, 10^5-key filter / trivial predicate", "serial int probe 1e5 classic", "serial int trivial", "1.15", "<=")
		row("probe, 10^5-key filter / hash semijoin", "serial int probe 1e5 classic", "serial int semijoin 1e5", "0.4", "<=")
		row("probe, 10^7-key classic filter / trivial predicate", "serial int probe 1e7 classic", "serial int trivial", "1.5", "<=")
		row("probe, 10^7-key blocked filter / trivial predicate", "serial int probe 1e7 blocked", "serial int trivial", "1.25", "<=")
		row("parallel bloom_agg speed-up, 2 workers (serial/parallel)", "serial int " b " 1e7 classic", "parallel int " b " 1e7 classic", "1.5", ">=")
		print ""
		print "## the same for text keys and for the blocked layout"
		row("text: bloom_agg(k, n, 0.01) / count(*)", "serial text " b " 1e7 classic", "serial text count", "1.4", "<=")
		row("text: bloom_agg(k, n, 0.01) / hll_add_agg", "serial text " b " 1e7 classic", "serial text hll_add_agg", "1.0", "<=")
		row("text: probe, 10^5-key filter / trivial predicate", "serial text probe 1e5 classic", "serial text trivial", "1.15", "<=")
		row("text: probe, 10^5-key filter / hash semijoin", "serial text probe 1e5 classic", "serial text semijoin 1e5", "0.4", "<=")
		row("text: probe, 10^7-key classic / trivial predicate", "serial text probe 1e7 classic", "serial text trivial", "1.5", "<=")
		row("text: probe, 10^7-key blocked / trivial predicate", "serial text probe 1e7 blocked", "serial text trivial", "1.25", "<=")
		row("int: probe, 10^8-key classic / trivial predicate", "serial int probe 1e8 classic", "serial int trivial", "1.5", "<=")
		row("int: probe, 10^8-key blocked / trivial predicate", "serial int probe 1e8 blocked", "serial int trivial", "1.25", "<=")
		row("int: bloom_agg blocked / count(*)", "serial int " b " 1e7 blocked", "serial int count", "1.4", "<=")
		row("int: parallel bloom_agg blocked speed-up", "serial int " b " 1e7 blocked", "parallel int " b " 1e7 blocked", "1.5", ">=")
		print ""
		print "## all ratios to the trivial predicate and to count(*) (serial, then 2 workers)"
		for (k in t) {
			n = split(k, p, " ")
			if (p[3] == "count" || p[3] == "trivial" || p[2] == "lookup") continue
			base = p[1] " " p[2] " trivial"; cnt = p[1] " " p[2] " count"
			label = p[2]; for (i = 3; i <= n; i++) label = label " " p[i]
			if ((base in t) && (cnt in t))
				printf "%-8s %-30s %8.2f x trivial %8.2f x count(*)\n", p[1], label, t[k] / t[base], t[k] / t[cnt] | "sort"
		}
	}' "$RESULTS"
echo "# total $(($(date +%s) - suite_start)) s"
