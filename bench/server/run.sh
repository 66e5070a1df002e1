#!/bin/bash
# bench/server/run.sh: the probe, build and summary targets of
# doc/performance.md (issue 37's table), on throwaway clusters.  It prints
# times and the ratios of times measured in this same run; its output is
# recorded in bench/results/performance-results.md.
#
# Data (setup.sql): t_int and t_text, BENCH_ROWS rows of random bigint and of
# md5 text keys; inner tables of 10^5 and BENCH_MID keys for the semijoins;
# filters (bloom_agg, 1% false positives, classic and blocked) of 10^5 and
# BENCH_MID keys of each kind, of 10^6 int keys, and of BENCH_BIG int keys;
# (setup_targets.sql) a Spark-format filter of the 10^5 int keys and a
# native classic filter of exactly its bits and hash functions.
#
# Measured, in this order:
#  1. (BENCH_SECTIONS=all) for int and for text keys, serially and with 2
#     workers, the best of BENCH_REPEAT runs of: count(*); the trivial
#     predicate hashint8(k) <> 0 (hashtext); hash semijoins with 10^5 and
#     BENCH_MID keys; probe scans (bloom_contains) with the filters of
#     10^5, BENCH_MID and (int only) BENCH_BIG keys, both layouts;
#     hll_add_agg; bloom_agg(k, BENCH_ROWS, 0.01) in both layouts;
#     bloom_add_all in both layouts; array_agg;
#  2. the targets, serial, bigint keys, in BENCH_ROUNDS interleaved rounds
#     (each round runs every query once, each in a new session, so a
#     slowdown of the machine hits all alike; the best time of each is
#     kept for the ratios, and the ratio of the medians is printed beside):
#     count(*), count(k), the trivial predicate, the hash semijoin of 10^5
#     keys (the automatic prefilter off), hll_add_agg; bloom_agg(k,
#     BENCH_ROWS, 0.01) classic, blocked and matrix, and bloom_agg(k)
#     (data-sized); probe scans with the 10^5- and BENCH_MID-key filters,
#     the batched scan on and off (bloomfilter.enable_batch_scan), and with
#     the Spark-format filter and its native twin; a scan of a postgres_fdw
#     foreign table on this same server (loopback) whose filter arrives as
#     a parameter, the batched scan on and off.  Then the md5 of the
#     matrix and of the data-sized filter built serially and with 2
#     workers (forced);
#  3. summaries, on a second cluster with the library preloaded
#     (summary_targets.sql): the planning time of `SELECT * FROM events365
#     WHERE user_id = 42` on 365 summarised partitions, the summary's
#     pruning on and off, interleaved, median of BENCH_PLANS each; and the
#     executor-start decision over BENCH_PARTS summarised partitions: a
#     generic plan for an absent key (every partition skipped), medians of
#     BENCH_EXECS interleaved executions with the pruning on, off, and the
#     floor (PostgreSQL's own executor-start pruning removing every
#     partition); the decision is on - floor, also in the backend's CPU
#     time (/proc/self/stat, the best of three rounds of 2 x BENCH_EXECS
#     executions), which the load of others on a shared machine moves less;
#  4. Citus partial states against 32 x the filter's bytes: section 1 of
#     bench/server/citus.sh (which runs whole, at BENCH_CITUS_ROWS rows),
#     when Citus is installed in this PostgreSQL; else "not measured";
#  5. (all) point lookups of 20 values (10 present, 10 absent): a BRIN
#     bloom_ops index on t_int and a contrib bloom index on t_text (build
#     times and sizes printed) against bloom_contains on the BENCH_MID-key
#     filters;
#  6. the tables of targets (ratios against their targets, met or not),
#     every interleaved time per row, and every ratio of section 1 to the
#     trivial predicate and to count(*).
# BENCH_SECTIONS=targets runs only the data and sections 2-4 and their
# tables.
#
# Run as root (the servers run as the postgres OS user; postgresql-15-hll is
# installed if missing) or as the user the servers should run as.  Needs the
# extension installed (make install), contrib (bloom, pg_prewarm,
# postgres_fdw) and hll in that installation; about 3 GB of memory and 12
# minutes on 2 cores at the default sizes (the set-up of 10,000 partitions
# 1.5 to 4 minutes of it, with the machine's load).
#
# Options (environment):
#   PG_CONFIG       the installation to run (default: pg_config in PATH;
#                   PGBIN, a bindir, also works)
#   BENCH_ROWS      rows of each table, and the capacity of the fixed-size
#                   builds (10000000)
#   BENCH_MID       keys of the middle filters and semijoin table (10000000)
#   BENCH_BIG       keys of the largest int filters (100000000; 0 leaves
#                   them out)
#   BENCH_REPEAT    timed runs per query in section 1, the best kept (3)
#   BENCH_ROUNDS    interleaved rounds of section 2 (7)
#   BENCH_PARTS     summarised partitions of the executor-start decision
#                   (10000; 0 leaves it out)
#   BENCH_PLANS     planning samples per setting (301)
#   BENCH_EXECS     executions per mode of the executor-start decision (51)
#   BENCH_CITUS     0 leaves the Citus measure out (1)
#   BENCH_CITUS_ROWS  rows of citus.sh's table (1000000; the partial
#                   states' bytes do not depend on it)
#   BENCH_SECTIONS  all (default), targets, or summaries (section 3 alone,
#                   with its two rows; no data set up for the others)
#   BENCH_ONLY      an extended regular expression: section 2 runs only the
#                   rows (and byte comparisons) whose label matches, e.g.
#                   'count k$|hll|datasized', and sections 3-4 are left
#                   out; implies BENCH_SECTIONS=targets
#   BENCH_PORT      the server's port (5531; the summary cluster takes the
#                   next one, citus.sh's three the ones after)
#   BENCH_DIR       the clusters' directory (/tmp/bloomfilter-bench; emptied)
#   BENCH_KEEP=1    leave the clusters running at exit
set -euo pipefail

ROWS=${BENCH_ROWS:-10000000}
MID=${BENCH_MID:-10000000}
BIG=${BENCH_BIG:-100000000}
REPEAT=${BENCH_REPEAT:-3}
ROUNDS=${BENCH_ROUNDS:-7}
PARTS=${BENCH_PARTS:-10000}
PLANS=${BENCH_PLANS:-301}
EXECS=${BENCH_EXECS:-51}
CITUS=${BENCH_CITUS:-1}
CITUS_ROWS=${BENCH_CITUS_ROWS:-1000000}
SECTIONS=${BENCH_SECTIONS:-all}
ONLY=${BENCH_ONLY:-}
[ -z "$ONLY" ] || SECTIONS=targets
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
RESULTS=$WORK_DIR/results.txt
MEDIANS=$WORK_DIR/medians.txt
VALUES=$WORK_DIR/values.txt
suite_start=$(date +%s)
if [ "$SECTIONS" != summaries ]; then
start_cluster bench "$PORT" listen_addresses= shared_buffers=2GB jit=off \
	max_worker_processes=8 max_parallel_workers=4 work_mem=1GB \
	max_wal_size=4GB checkpoint_timeout=1h autovacuum=off
# two workers and no leader participation: two processes, two cores
PARALLEL_SETTINGS="SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
	SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
PSQL=(psql_on bench -d postgres)

echo "# bloomfilter benchmark: $ROWS rows, filters of 1e5, 1e7 and $BIG keys, best of $REPEAT"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $("$PGBIN/postgres" --version)"
start=$suite_start
"${PSQL[@]}" -v rows="$ROWS" -v mid="$MID" -v big="$BIG" -f - <"$HERE/setup.sql"
echo "# setup took $(($(date +%s) - start)) s"
: >"$RESULTS"
: >"$MEDIANS"
: >"$VALUES"
has_agg=$("${PSQL[@]}" -tA -c "SELECT to_regprocedure('bloom_agg(anyelement, bigint, float8)') IS NOT NULL")
[ "$has_agg" = t ] || echo "# no bloom_agg(value, capacity, fpp) in this build: builds measured with bloom_add_all"
fi

# time MODE LABEL SQL: best of REPEAT runs of SQL, in ms, recorded in RESULTS
time_query() {
	local mode=$1 label=$2 sql=$3 extra=${4:-} settings ms
	if [ "$mode" = serial ]; then
		settings="SET max_parallel_workers_per_gather = 0;"
	else
		settings=$PARALLEL_SETTINGS
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
# SETTINGS SQL, each round running each query once in order, in a new
# session; records the best time of each in RESULTS as "serial LABEL ms"
# and the median in MEDIANS.
IL_LABELS=()
IL_SETTINGS=()
IL_SQL=()
il_add() {
	[ -z "$ONLY" ] || [[ $1 =~ $ONLY ]] || return 0
	IL_LABELS+=("$1"); IL_SETTINGS+=("$2"); IL_SQL+=("$3")
}
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
	printf '%-8s %-34s %10s %10s\n' "" "" "best" "median"
	for i in "${!IL_LABELS[@]}"; do
		read -r best med < <(awk -v i="$i" '$1 == i { print $2 }' "$times" | sort -g |
			awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print v[1], m }')
		printf '%-8s %-34s %10.1f %10.1f ms\n' serial "${IL_LABELS[$i]}" "$best" "$med"
		printf 'serial %s %s\n' "${IL_LABELS[$i]}" "$best" >>"$RESULTS"
		printf 'serial %s %s\n' "${IL_LABELS[$i]}" "$med" >>"$MEDIANS"
	done
	rm -f "$times"
}

# md5 of the bytes of QUERY's single value, serially and with 2 workers
# (forced), and whether the parallel plan has a Gather; records
# "same LABEL 1|0" in VALUES.
same_bytes() {
	local label=$1 expr=$2 serial parallel gather
	[ -z "$ONLY" ] || [[ $label =~ $ONLY ]] || return 0
	serial=$("${PSQL[@]}" -tA -c "SET max_parallel_workers_per_gather = 0" -c "SELECT md5(($expr)::bytea) FROM t_int")
	parallel=$("${PSQL[@]}" -tA -c "$PARALLEL_SETTINGS" -c "SELECT md5(($expr)::bytea) FROM t_int")
	gather=$("${PSQL[@]}" -tA -c "$PARALLEL_SETTINGS" -c "EXPLAIN (COSTS OFF) SELECT ($expr) FROM t_int" |
		grep -c 'Gather' || true)
	echo "# $label: serial md5 $serial, 2 workers md5 $parallel (plan with Gather: $([ "$gather" -gt 0 ] && echo yes || echo NO))"
	echo "same $label $([ "$serial" = "$parallel" ] && [ "$gather" -gt 0 ] && echo 1 || echo 0)" >>"$VALUES"
}

# The targets of doc/performance.md (issue 37's table and the batched probe
# scan's), serial, interleaved.  The foreign table is this server's t_int
# seen through postgres_fdw (a serial remote session), so the remote side
# of a semijoin runs here: the filter arrives as $1.
targets() {
	"${PSQL[@]}" -c "SELECT pg_prewarm('t_int')" >/dev/null
	"${PSQL[@]}" -f "$HERE/setup_targets.sql"
	"${PSQL[@]}" <<-SQL
	CREATE SERVER IF NOT EXISTS loopback FOREIGN DATA WRAPPER postgres_fdw
		OPTIONS (host '$(cluster_host bench)', port '$PORT', dbname 'postgres', extensions 'bloomfilter',
		         options '-c max_parallel_workers_per_gather=0');
	CREATE USER MAPPING IF NOT EXISTS FOR CURRENT_USER SERVER loopback;
	CREATE FOREIGN TABLE IF NOT EXISTS remote_t_int (k bigint) SERVER loopback OPTIONS (table_name 't_int');
	SQL
	echo "## targets: $ROWS rows of bigint keys, serial, $ROUNDS interleaved rounds (best and median of each)"
	"${PSQL[@]}" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM remote_t_int WHERE bloom_contains($(filter int_1e6_classic), k)" |
		grep 'Remote SQL' | sed 's/^ */# /'
	local off="SET bloomfilter.enable_batch_scan = off;"
	IL_LABELS=() IL_SETTINGS=() IL_SQL=()
	il_add "batch count" "" "SELECT count(*) FROM t_int"
	il_add "batch count k" "" "SELECT count(k) FROM t_int"
	il_add "batch trivial" "" "SELECT count(*) FROM t_int WHERE hashint8(k) <> 0"
	for size in 1e5 1e7; do
		for layout in classic blocked; do
			il_add "batch probe $size $layout" "" \
				"SELECT count(*) FROM t_int WHERE bloom_contains($(filter int_${size}_${layout}), k)"
			il_add "batch off probe $size $layout" "$off" \
				"SELECT count(*) FROM t_int WHERE bloom_contains($(filter int_${size}_${layout}), k)"
		done
	done
	il_add "batch probe 1e5 spark" "" "SELECT count(*) FROM t_int WHERE bloom_contains($(filter int_1e5_spark), k)"
	il_add "batch probe 1e5 spark_native" "" "SELECT count(*) FROM t_int WHERE bloom_contains($(filter int_1e5_spark_native), k)"
	# the plain hash semijoin (the automatic prefilter off)
	il_add "batch semijoin 1e5" "SET bloomfilter.semijoin_prefilter = off;" \
		"SELECT count(*) FROM t_int WHERE k IN (SELECT k FROM small_int_1e5)"
	il_add "batch build 1e7 classic" "" "SELECT bloom_fpp(bloom_agg(k, $ROWS, 0.01)) FROM t_int"
	il_add "batch build 1e7 blocked" "" "SELECT bloom_fpp(bloom_agg(k, $ROWS, 0.01, 'blocked')) FROM t_int"
	il_add "batch build datasized" "" "SELECT bloom_fpp(bloom_agg(k)) FROM t_int"
	il_add "batch build 1e7 matrix" "" "SELECT octet_length(bloom_agg(k, $ROWS, 0.01, 'matrix')::bytea) FROM t_int"
	il_add "batch hll_add_agg" "" "SELECT hll_cardinality(hll_add_agg(hll_hash_bigint(k))) FROM t_int"
	il_add "batch remote probe 1e6" "ALTER SERVER loopback OPTIONS (SET options '-c max_parallel_workers_per_gather=0');" \
		"SELECT count(*) FROM remote_t_int WHERE bloom_contains($(filter int_1e6_classic), k)"
	il_add "batch off remote probe 1e6" "ALTER SERVER loopback OPTIONS (SET options '-c max_parallel_workers_per_gather=0 -c bloomfilter.enable_batch_scan=off');" \
		"SELECT count(*) FROM remote_t_int WHERE bloom_contains($(filter int_1e6_classic), k)"
	il_add "batch remote trivial" "ALTER SERVER loopback OPTIONS (SET options '-c max_parallel_workers_per_gather=0');" \
		"SELECT count(*) FROM remote_t_int WHERE hashint8(k) <> 0"
	interleaved
	same_bytes "matrix bytes" "bloom_agg(k, $ROWS, 0.01, 'matrix')"
	same_bytes "datasized bytes" "bloom_agg(k)"
	[ -z "$ONLY" ] || return 0
	summary_targets
	citus_target
}

# Planning added by the summary on 365 partitions, and the executor-start
# decision over BENCH_PARTS partitions, on a second cluster with the
# library preloaded (summary pruning needs it): medians of BENCH_PLANS
# interleaved samples.
summary_targets() {
	local start out plan
	start_cluster summary "$((PORT + 1))" listen_addresses= shared_preload_libraries=bloomfilter \
		shared_buffers=512MB jit=off autovacuum=off max_parallel_workers_per_gather=0 \
		max_locks_per_transaction=$((PARTS / 50 + 64))
	start=$(date +%s)
	psql_on summary -d postgres -q -v parts="$PARTS" -f "$HERE/summary_targets.sql" >/dev/null
	echo "## summaries: 365 partitions; $PARTS partitions for the executor start (set up in $(($(date +%s) - start)) s)"
	out=$(psql_on summary -d postgres -tA -F ' ' <<-SQL
	WITH p AS (
		SELECT w.what, (i + pr) % 2 = 0 AS pruning,
		       planning_ms(CASE WHEN set_config('bloomfilter.enable_summary_pruning', ((i + pr) % 2 = 0)::text, false) IS NULL
		                        THEN NULL ELSE w.query END) AS ms
		FROM generate_series(1, $PLANS) i, generate_series(0, 1) pr,
		     (VALUES ('plain365', 'SELECT * FROM plain365 WHERE user_id = 42'),
		             ('events365', 'SELECT * FROM events365 WHERE user_id = 42')) w(what, query))
	SELECT 'plan', what, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE NOT pruning),
	       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE pruning)
	FROM p GROUP BY what;
	SQL
	)
	if [ "$PARTS" -gt 0 ]; then
		# an absent key: every partition is skipped with the pruning on
		out+=$'\n'$(psql_on summary -d postgres -tA -F ' ' <<-SQL
		SET plan_cache_mode = force_generic_plan;
		SELECT 'first', exec_ms(-2, 'on');
		SELECT exec_ms(-1, 'off') + exec_ms(-1, 'floor') >= 0 AS warm;
		WITH e AS (
			SELECT m, exec_ms(-3 - i, m) AS ms
			FROM generate_series(1, $EXECS) i, unnest(ARRAY['on', 'off', 'floor']) m)
		SELECT 'exec', m, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), min(ms) FROM e GROUP BY m;
		-- the backend's CPU time, in three rounds of on and floor: the lowest
		SELECT 'cpu', m, min(exec_cpu_ms(m, $EXECS * 2)) FROM generate_series(1, 3) r,
		       unnest(ARRAY['on', 'floor']) m GROUP BY m;
		SQL
		)
		plan=$(psql_on summary -d postgres -tA -c "SET plan_cache_mode = force_generic_plan" \
			-c "SET bloomfilter.enable_summary_pruning = on" -c "PREPARE q(bigint) AS SELECT count(*) FROM e_many WHERE user_id = \$1" \
			-c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE q(-1)")
		grep -i 'summary' <<<"$plan" | sed -n '1,3s/^ */# /p'
	fi
	awk '$1 == "plan" { printf "# planning, median of %d (ms): %s pruning off %.4f, on %.4f, added %+.4f\n", n, $2, $3, $4, $4 - $3
	                    if ($2 == "events365") print "value planning_added " $4 - $3 >> v }
	     $1 == "first" { printf "# executor, %d partitions, first execution in the session, pruning on (planning the generic plan and reading the filters included): %.2f ms\n", parts, $2 }
	     $1 == "exec" { printf "# executor, %d partitions, generic plan, an absent key, %s: median %.3f ms, best %.3f ms\n", parts, $2, $3, $4
	                    e[$2] = $3 }
	     $1 == "cpu" { printf "# executor, %d partitions, the backend'"'"'s CPU time per execution, %s: %.3f ms (best of 3 rounds of %d)\n", parts, $2, $3, 2 * n_exec
	                   c[$2] = $3 }
	     END { if ("on" in c) { printf "# decision in CPU time (pruning on - floor): %.3f ms\n", c["on"] - c["floor"]
	                            print "value decision_cpu " c["on"] - c["floor"] >> v }
	           if ("on" in e) { printf "# decision (pruning on - floor): %.3f ms\n", e["on"] - e["floor"]
	                            print "value decision " e["on"] - e["floor"] >> v
	                            print "value exec_on " e["on"] >> v; print "value exec_floor " e["floor"] >> v
	                            print "value exec_off " e["off"] >> v } }' \
		n="$PLANS" n_exec="$EXECS" parts="$PARTS" v="$VALUES" <<<"$out"
}

# Citus partial states: bench/server/citus.sh measures them (section 1);
# its line is kept.
citus_target() {
	local line
	if [ "$CITUS" = 0 ]; then
		echo "# Citus partial states: not measured: BENCH_CITUS=0"
		return
	fi
	if [ ! -f "$("$PGBIN/pg_config" --pkglibdir)/citus.so" ]; then
		echo "# Citus partial states: not measured: Citus is not installed in $("$PGBIN/pg_config" --pkglibdir)"
		return
	fi
	echo "## Citus: bench/server/citus.sh, ROWS=$CITUS_ROWS (its section 1)"
	line=$(PGBIN=$PGBIN PORT=$((PORT + 2)) ROWS=$CITUS_ROWS RUNS=1 LOCAL_RUNS=1 bash "$HERE/citus.sh" 2>&1 |
		tee "$WORK_DIR/citus.out" | grep 'bytes moved by worker_partial_agg' || true)
	if [ -z "$line" ]; then
		echo "# Citus partial states: not measured: citus.sh failed (last lines below)"
		tail -5 "$WORK_DIR/citus.out" | sed 's/^/# /'
		return
	fi
	echo "# $line"
	awk '{ for (i = 1; i <= NF; i++) if ($i == "x" && $(i - 1) ~ /^[0-9.]+$/) { print "value citus " $(i - 1); exit } }' \
		<<<"$line" >>"$VALUES"
}

if [ "$SECTIONS" = targets ]; then
	targets
fi

# BENCH_SECTIONS=summaries: section 3 alone, on its own cluster, and its two rows
if [ "$SECTIONS" = summaries ]; then
	echo "# bloomfilter benchmark, summaries only: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $("$PGBIN/postgres" --version)"
	: >"$VALUES"
	summary_targets
	awk -v parts="$PARTS" '{ val[$2] = $3 }
		END {
			if ("planning_added" in val)
				printf "| planning added on a summarised table (365 partitions, median) | **%+.3f ms** | <= +0.10 ms | %s |\n",
					val["planning_added"], val["planning_added"] <= 0.10 ? "met" : "missed"
			if ("decision" in val)
				printf "| executor-start decision, %s partitions (on - floor, medians) | **%.2f ms** (%.2f - %.2f) | <= 10 ms | %s |\n",
					parts, val["decision"], val["exec_on"], val["exec_floor"], val["decision"] <= 10 ? "met" : "missed"
			if ("decision_cpu" in val)
				printf "| the same in the backend'"'"'s CPU time | **%.2f ms** | <= 10 ms | %s |\n",
					val["decision_cpu"], val["decision_cpu"] <= 10 ? "met" : "missed"
		}' "$VALUES"
	echo "# total $(($(date +%s) - suite_start)) s"
	exit 0
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
targets
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

# The tables of targets: ratios of times of this run (best of the rounds,
# and the ratio of the medians beside), with the targets and, for issue
# 37's table, the figure the issue gives as "now".
awk -v rows="$ROWS" -v parts="$PARTS" '
	FILENAME == ARGV[1] { key = $1; for (i = 2; i < NF; i++) key = key " " $i; t[key] = $NF; next }
	FILENAME == ARGV[2] { key = $1; for (i = 2; i < NF; i++) key = key " " $i; med[key] = $NF; next }
	{ key = $1; for (i = 2; i < NF; i++) key = key " " $i; val[key] = $NF }
	function get(key) { if (!(key in t)) { missing = 1; return 0 } return t[key] }
	function verdict(r, target, cmp) { return ((cmp == "<=") ? (r <= target + 0) : (r >= target + 0)) ? "met" : "missed" }
	function row(name, num, den, target, cmp,   a, b, r) {
		a = get(num); b = get(den)
		if (a == 0 || b == 0) { printf "| %-52s | %8s | %-7s | n/a |\n", name, "n/a", target; return }
		r = a / b
		printf "| %-52s | %8.2f | %s %-4s | %s |\n", name, r, cmp, target, verdict(r, target, cmp) == "met" ? "met" : "NOT met"
	}
	# row37 NAME NUM DEN NOW TARGET: times, ratio of the bests, of the medians
	function row37(name, num, den, now, target,   a, b, r, mr) {
		a = get(num); b = get(den)
		if (a == 0 || b == 0) { printf "| %s | n/a | | | %s | <= %s | not measured |\n", name, now, target; return }
		r = a / b; mr = (num in med && den in med && med[den] > 0) ? sprintf("%.2f", med[num] / med[den]) : "n/a"
		printf "| %s | %.0f / %.0f | **%.2f** | %s | %s | <= %s | %s |\n", name, a, b, r, mr, now, target, verdict(r, target, "<=")
	}
	END {
		if ("serial batch trivial" in t) {
			print ""
			print "## issue 37: targets (serial, bigint keys, " rows " rows; times: best of the interleaved rounds, ms)"
			print "| measure | times (ms) | ratio (best) | ratio (medians) | issue: now | target | |"
			print "|---|---|---|---|---|---|---|"
			row37("`bloom_agg(k, n, 0.01, '\''blocked'\'')` / `count(k)`", "serial batch build 1e7 blocked", "serial batch count k", "1.64", "1.3")
			row37("`bloom_agg(k, n, 0.01)` (classic) / `count(k)`", "serial batch build 1e7 classic", "serial batch count k", "2.11", "1.5")
			row37("`bloom_agg(k)` (data-sized) / `hll_add_agg`", "serial batch build datasized", "serial batch hll_add_agg", "4.86", "1.5")
			row37("classic fixed-size build / `hll_add_agg`", "serial batch build 1e7 classic", "serial batch hll_add_agg", "1.56", "1.0")
			row37("`bloom_agg(k, n, 0.01, '\''matrix'\'')` / `count(*)`", "serial batch build 1e7 matrix", "serial batch count", "8.89", "3.0")
			row37("probe, 10^5-key classic / trivial predicate", "serial batch probe 1e5 classic", "serial batch trivial", "1.27", "1.15")
			row37("probe, 10^5-key classic / hash semijoin", "serial batch probe 1e5 classic", "serial batch semijoin 1e5", "0.60", "0.40")
			row37("probe, 10^7-key classic / trivial predicate", "serial batch probe 1e7 classic", "serial batch trivial", "2.10", "1.6")
			row37("probe, 10^7-key blocked / trivial predicate", "serial batch probe 1e7 blocked", "serial batch trivial", "1.63", "1.3")
			row37("Spark-format probe / native probe (10^5 keys, same bits and k)", "serial batch probe 1e5 spark", "serial batch probe 1e5 spark_native", "-", "1.1")
			if ("value planning_added" in val)
				printf "| planning added on a summarised table (365 partitions, median) | | **%+.3f ms** | | - | <= +0.10 ms | %s |\n",
					val["value planning_added"], val["value planning_added"] <= 0.10 ? "met" : "missed"
			else
				print "| planning added on a summarised table (365 partitions) | | n/a | | - | <= +0.10 ms | not measured |"
			if ("value decision" in val)
				printf "| executor-start decision, %s partitions (on - floor, medians) | %.2f / %.2f | **%.2f ms** | | - | <= 10 ms | %s |\n",
					parts, val["value exec_on"], val["value exec_floor"], val["value decision"], val["value decision"] <= 10 ? "met" : "missed"
			else
				print "| executor-start decision, 10,000 summarised partitions | | n/a | | - | <= 10 ms | not measured |"
			if ("value citus" in val)
				printf "| Citus partial states / 32 x filter bytes (bench/server/citus.sh) | | **%.2f** | | - | <= 1.05 | %s |\n",
					val["value citus"], val["value citus"] <= 1.05 ? "met" : "missed"
			else
				print "| Citus partial states / 32 x filter bytes | | n/a | | - | <= 1.05 | not measured |"
			for (k in val) if (k ~ /^same /) {
				sub(/^same /, "", k)
				printf "| %s identical serial and with 2 workers | | %s | | | yes | %s |\n", k,
					val["same " k] ? "yes" : "NO", val["same " k] ? "met" : "missed"
			}
			print ""
			print "## the batched probe scan'\''s targets, and the same with it off (bloomfilter.enable_batch_scan = off)"
			print "| measure | ratio | target | |"
			print "|---|---|---|---|"
			row("probe scan, 10^7-key blocked / trivial predicate", "serial batch probe 1e7 blocked", "serial batch trivial", "1.5", "<=")
			row("probe scan, 10^7-key classic / trivial predicate", "serial batch probe 1e7 classic", "serial batch trivial", "2.0", "<=")
			row("probe scan, 10^5-key blocked / trivial predicate", "serial batch probe 1e5 blocked", "serial batch trivial", "1.15", "<=")
			row("remote scan, 10^6-key filter as $1 / trivial predicate", "serial batch remote probe 1e6", "serial batch remote trivial", "1.3", "<=")
			row("off: probe scan, 10^7-key blocked / trivial predicate", "serial batch off probe 1e7 blocked", "serial batch trivial", "1.5", "<=")
			row("off: probe scan, 10^7-key classic / trivial predicate", "serial batch off probe 1e7 classic", "serial batch trivial", "2.0", "<=")
			row("off: probe scan, 10^5-key classic / trivial predicate", "serial batch off probe 1e5 classic", "serial batch trivial", "1.15", "<=")
			row("off: probe scan, 10^5-key blocked / trivial predicate", "serial batch off probe 1e5 blocked", "serial batch trivial", "1.15", "<=")
			row("off: remote scan, 10^6-key filter / trivial predicate", "serial batch off remote probe 1e6", "serial batch remote trivial", "1.3", "<=")
			print ""
			print "## every interleaved time per row and against count(*), count(k) and the trivial predicate (best)"
			for (k in t) if (k ~ /^serial batch /) {
				label = k; sub(/^serial batch /, "", label)
				printf "%-28s %8.1f ns/row %6.2f x count(*) %6.2f x count(k) %6.2f x trivial\n", label, t[k] * 1e6 / rows,
					t[k] / t["serial batch count"], t[k] / t["serial batch count k"], t[k] / t["serial batch trivial"] | "sort"
			}
			close("sort")
		}
		if (!("serial int trivial" in t)) exit
		print ""
		print "## other targets, not interleaved (best of each query'\''s own runs)"
		print "| measure | ratio | target | |"
		print "|---|---|---|---|"
		b = ("serial int build 1e7 classic" in t) ? "build" : "add_all"
		row("parallel bloom_agg speed-up, 2 workers (serial/parallel)", "serial int " b " 1e7 classic", "parallel int " b " 1e7 classic", "1.5", ">=")
		row("parallel bloom_agg blocked speed-up", "serial int " b " 1e7 blocked", "parallel int " b " 1e7 blocked", "1.5", ">=")
		row("text: bloom_agg(k, n, 0.01) / hll_add_agg", "serial text " b " 1e7 classic", "serial text hll_add_agg", "1.0", "<=")
		row("text: probe, 10^5-key filter / trivial predicate", "serial text probe 1e5 classic", "serial text trivial", "1.15", "<=")
		row("text: probe, 10^5-key filter / hash semijoin", "serial text probe 1e5 classic", "serial text semijoin 1e5", "0.4", "<=")
		row("text: probe, 10^7-key classic / trivial predicate", "serial text probe 1e7 classic", "serial text trivial", "1.6", "<=")
		row("text: probe, 10^7-key blocked / trivial predicate", "serial text probe 1e7 blocked", "serial text trivial", "1.3", "<=")
		row("int: probe, 10^8-key classic / trivial predicate", "serial int probe 1e8 classic", "serial int trivial", "1.6", "<=")
		row("int: probe, 10^8-key blocked / trivial predicate", "serial int probe 1e8 blocked", "serial int trivial", "1.3", "<=")
		print ""
		print "## all ratios to the trivial predicate and to count(*) (not interleaved; serial, then 2 workers)"
		for (k in t) {
			n = split(k, p, " ")
			if (p[2] == "batch" || p[3] == "count" || p[3] == "trivial" || p[2] == "lookup") continue
			base = p[1] " " p[2] " trivial"; cnt = p[1] " " p[2] " count"
			label = p[2]; for (i = 3; i <= n; i++) label = label " " p[i]
			if ((base in t) && (cnt in t))
				printf "%-8s %-30s %8.2f x trivial %8.2f x count(*)\n", p[1], label, t[k] / t[base], t[k] / t[cnt] | "sort"
		}
	}' "$RESULTS" "$MEDIANS" "$VALUES"
echo "# total $(($(date +%s) - suite_start)) s"
