#!/bin/bash
# bench/server/join_filter.sh: the runtime join filters (doc/join_filters.md)
# against the same statements without them, on a throwaway cluster with the
# library preloaded.  Issue 36's join targets; its output is recorded in
# bench/results/join-filter-results.md.
#
# Data: fact, BENCH_ROWS rows (k bigint, d1 int, d2 int, v int): k joins
# build's keys for 1% of the rows (random ones) and nothing for the others;
# d1 and d2 are uniform over BENCH_DIM ids.  build: BENCH_BUILD keys.
# dim1, dim2: BENCH_DIM rows (id, attr 0..99, name); vals: 0..1000 (section 4).
#
# Measured, in BENCH_ROUNDS interleaved rounds (each round runs every
# statement once, each in a new session, so that a slowdown of the machine
# hits all alike; the best and the median of each are kept, and the ratios
# are of times of this run):
#  1. the spilling join: work_mem = 4MB, SELECT count(*), sum(f.v) FROM
#     fact f JOIN build b ON f.k = b.k, with bloomfilter.join_filter off
#     and on; and the bytes of its temporary files (EXPLAIN (ANALYZE,
#     BUFFERS): the top node's "Temp Written Blocks" times the block size)
#     in one more run of each;
#  2. the star join: work_mem = 1GB (one batch each), fact joined to dim1
#     and dim2, each restricted to BENCH_DIM_PCT% of its rows (attr <
#     BENCH_DIM_PCT); both hash tables hold BENCH_DIM * BENCH_DIM_PCT / 100
#     rows;
#  3. the planning added to statements the feature leaves alone, with the
#     setting on against off: a statement with no hash join (a primary key
#     lookup), and a hash join it declines (dim1 = dim2 on id: the build side
#     as large as the outer side; merge joins off, so that it is a hash join); medians of BENCH_PLANS samples of
#     EXPLAIN's "Planning Time", on and off alternating, in one session;
#  4. (BENCH_PASS=1) the cost rules: joins whose filter passes about p% of
#     fact's rows, with a small hash table (fact.v against up to 1,000
#     values; p in BENCH_PASS_SMALL) and a large one (fact.d1 against
#     dim1's rows of attr < p; p in BENCH_PASS_BIG), one batch, off, on,
#     and forced (on, the plan-time rule on the hash table's size off).
# Then a table of the targets: spilling join >= 2x faster and >= 10x fewer
# temporary bytes, star join >= 1.5x, planning < 0.05 ms.
#
# Run as root (the server runs as the postgres OS user) or as the user the
# server should run as.  Needs the extension installed (make install) in
# that installation.  At the default sizes, about 1.5 GB of disk and a few
# minutes of loading on 2 cores.
#
# Options (environment):
#   PG_CONFIG       the installation to run (default: pg_config in PATH;
#                   PGBIN, a bindir, also works)
#   BENCH_ROWS      rows of fact (10000000)
#   BENCH_BUILD     keys of build, the spilling join's build side (1000000)
#   BENCH_DIM       rows of each dimension (2000000)
#   BENCH_DIM_PCT   percent of each dimension the star join keeps (10)
#   BENCH_ROUNDS    interleaved rounds (5)
#   BENCH_PLANS     planning samples per setting and statement (301)
#   BENCH_PASS      1 adds section 4, "only" runs only it (0)
#   BENCH_PASS_SMALL the pass percents of section 4's small hash table (10 30 50 95)
#   BENCH_PASS_BIG  the pass percents of its large hash table (50 95)
#   BENCH_PORT      the server's port (5541)
#   BENCH_DIR       the cluster's directory (/tmp/bloomfilter-joinfilter; emptied)
#   BENCH_KEEP=1    leave the cluster running at exit
#
#   bash bench/server/join_filter.sh
#   BENCH_ROWS=1000000 BENCH_BUILD=100000 BENCH_DIM=200000 bash bench/server/join_filter.sh
set -euo pipefail

ROWS=${BENCH_ROWS:-10000000}
BUILD=${BENCH_BUILD:-1000000}
DIM=${BENCH_DIM:-2000000}
DIM_PCT=${BENCH_DIM_PCT:-10}
ROUNDS=${BENCH_ROUNDS:-5}
PLANS=${BENCH_PLANS:-301}
PASS=${BENCH_PASS:-0}
PASS_SMALL=${BENCH_PASS_SMALL:-10 30 50 95}
PASS_BIG=${BENCH_PASS_BIG:-50 95}
PORT=${BENCH_PORT:-5541}
DIR=${BENCH_DIR:-/tmp/bloomfilter-joinfilter}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin)
CLUSTER_KEEP=${BENCH_KEEP:+1}

cluster_workdir "$DIR"
start_cluster bench "$PORT" listen_addresses= shared_preload_libraries=bloomfilter \
	shared_buffers=2GB jit=off autovacuum=off max_parallel_workers_per_gather=0 \
	max_wal_size=4GB checkpoint_timeout=1h
PSQL=(psql_on bench -d postgres)
RESULTS=$WORK_DIR/results.txt
: >"$RESULTS"

echo "# join filter benchmark: fact $ROWS rows, build $BUILD keys, dimensions $DIM rows ($DIM_PCT% kept), $ROUNDS interleaved rounds"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $("$PGBIN/postgres" --version)"
start=$(date +%s)
"${PSQL[@]}" <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION IF NOT EXISTS pg_prewarm;
SELECT setseed(0.36);
CREATE TABLE build AS SELECT g::bigint AS k FROM generate_series(1, $BUILD) g;
-- 1% of fact's keys are build's, the others beyond them
CREATE TABLE fact AS
SELECT CASE WHEN random() < 0.01 THEN 1 + (random() * ($BUILD - 1))::bigint
            ELSE $BUILD + 1 + (random() * 1e12)::bigint END AS k,
       1 + (random() * ($DIM - 1))::int AS d1,
       1 + (random() * ($DIM - 1))::int AS d2,
       (random() * 1000)::int AS v
FROM generate_series(1, $ROWS) g;
CREATE TABLE dim1 AS SELECT g AS id, (random() * 99.999)::int AS attr, 'name ' || g AS name
FROM generate_series(1, $DIM) g;
CREATE TABLE dim2 AS SELECT * FROM dim1;
ALTER TABLE dim1 ADD PRIMARY KEY (id);
ALTER TABLE dim2 ADD PRIMARY KEY (id);
VACUUM ANALYZE build, fact, dim1, dim2;
SELECT sum(pg_prewarm(t)) > 0 AS prewarmed FROM unnest(ARRAY['build', 'fact', 'dim1', 'dim2']) t;
\i $HERE/planning_ms.sql
SQL
echo "# set-up took $(($(date +%s) - start)) s"

SPILL="SELECT count(*), sum(f.v) FROM fact f JOIN build b ON f.k = b.k"
STAR="SELECT count(*), sum(f.v) FROM fact f JOIN dim1 a ON f.d1 = a.id JOIN dim2 b ON f.d2 = b.id
	WHERE a.attr < $DIM_PCT AND b.attr < $DIM_PCT"
SPILL_SET="SET work_mem = '4MB';"
STAR_SET="SET work_mem = '1GB';"
ON="SET bloomfilter.join_filter = on;"
OFF="SET bloomfilter.join_filter = off;"

# The plan with the filters on, its filter lines; and the result both ways.
show_plan() {
	local label=$1 settings=$2 sql=$3
	echo "## $label: the plan with the filters on (EXPLAIN ANALYZE, one run)"
	{ echo "$settings $ON"; echo "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $sql;"; } |
		"${PSQL[@]}" -tA | grep -E 'Join|JoinFilter|Runtime Filter|Batches|Scan on' | sed 's/^/#   /'
	local a b
	a=$({ echo "$settings $ON"; echo "$sql;"; } | "${PSQL[@]}" -tA)
	b=$({ echo "$settings $OFF"; echo "$sql;"; } | "${PSQL[@]}" -tA)
	echo "# result on: $a, off: $b ($([ "$a" = "$b" ] && echo same || echo DIFFERENT))"
}

# Temporary bytes written by one run: the top node's Temp Written Blocks.
temp_bytes() {
	local settings=$1 sql=$2 blocks bs
	bs=$("${PSQL[@]}" -tA -c "SHOW block_size")
	blocks=$({ echo "$settings"; echo "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) $sql;"; } |
		"${PSQL[@]}" -tA | tr -d '\n' | sed 's/.*"Plan": *{[^{]*"Temp Written Blocks": *\([0-9]*\).*/\1/')
	case $blocks in '' | *[!0-9]*) blocks=0 ;; esac
	echo $((blocks * bs))
}

# interleaved: ROUNDS rounds over the statements added by il_add LABEL
# SETTINGS SQL, each round running each once, in a new session, in order
# from a place that moves by one each round;
# records "LABEL best median" in RESULTS.
IL_LABELS=() IL_SETTINGS=() IL_SQL=()
il_add() { IL_LABELS+=("$1"); IL_SETTINGS+=("$2"); IL_SQL+=("$3"); }
interleaved() {
	local times i ms best med
	times=$(mktemp)
	local n=${#IL_LABELS[@]} r j
	for r in $(seq "$ROUNDS"); do
		# each round starts one statement further on, so that no statement
		# always runs at the same place in a round (first, or last)
		for j in $(seq 0 $((n - 1))); do
			i=$(((j + r) % n))
			ms=$({
				echo "${IL_SETTINGS[$i]}"
				echo '\timing on'
				echo "${IL_SQL[$i]};"
			} | "${PSQL[@]}" | awk '/^Time:/ { print $2 }')
			echo "$i $ms" >>"$times"
		done
	done
	printf '%-28s %10s %10s\n' "" "best" "median"
	for i in "${!IL_LABELS[@]}"; do
		read -r best med < <(awk -v i="$i" '$1 == i { print $2 }' "$times" | sort -g |
			awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print v[1], m }')
		printf '%-28s %10.1f %10.1f ms\n' "${IL_LABELS[$i]}" "$best" "$med"
		echo "${IL_LABELS[$i]// /_} $best $med" >>"$RESULTS"
	done
	rm -f "$times"
	IL_LABELS=() IL_SETTINGS=() IL_SQL=()
}

if [ "$PASS" != only ]; then
show_plan "spilling join (work_mem = 4MB)" "$SPILL_SET" "$SPILL"
show_plan "star join (work_mem = 1GB)" "$STAR_SET" "$STAR"
echo "## the spilling and the star join, filters off and on, $ROUNDS interleaved rounds"
il_add "spill off" "$SPILL_SET $OFF" "$SPILL"
il_add "spill on" "$SPILL_SET $ON" "$SPILL"
il_add "star off" "$STAR_SET $OFF" "$STAR"
il_add "star on" "$STAR_SET $ON" "$STAR"
interleaved
t_off=$(temp_bytes "$SPILL_SET $OFF" "$SPILL")
t_on=$(temp_bytes "$SPILL_SET $ON" "$SPILL")
echo "# spilling join, temporary bytes written: off $t_off, on $t_on"
echo "temp_off $t_off $t_off" >>"$RESULTS"
echo "temp_on $t_on $t_on" >>"$RESULTS"

echo "## planning: median of $PLANS samples per setting, on and off alternating"
PLAN_SET="SET enable_mergejoin = off; SET work_mem = '1GB';"
"${PSQL[@]}" -tA -F ' ' <<SQL | tee -a "$RESULTS" | awk '{ printf "# %-10s off %.4f ms, on %.4f ms, added %+.4f ms\n", $1, $2, $3, $3 - $2 }'
$PLAN_SET
WITH q(what, query) AS (VALUES
	('nohash', 'SELECT * FROM dim1 WHERE id = 42'),
	('declined', 'SELECT count(*) FROM dim1 a JOIN dim2 b ON a.id = b.id')),
p AS (
	SELECT q.what, (i + s) % 2 = 0 AS on_,
	       planning_ms(CASE WHEN set_config('bloomfilter.join_filter', ((i + s) % 2 = 0)::text, false) IS NULL
	                        THEN NULL ELSE q.query END) AS ms
	FROM generate_series(1, $PLANS) i, generate_series(0, 1) s, q)
SELECT 'plan_' || what, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE NOT on_),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE on_)
FROM p GROUP BY what ORDER BY what;
SQL
# the declined join gets no filter
{ echo "$PLAN_SET $ON"; echo "EXPLAIN (COSTS OFF) SELECT count(*) FROM dim1 a JOIN dim2 b ON a.id = b.id;"; } |
	"${PSQL[@]}" -tA | grep -q JoinFilter && echo "# the declined join has a filter: the planning row measures the wrong case" ||
	echo "# the declined join: no filter in its plan"
fi

if [ "$PASS" != 0 ]; then
	# The filter passes p% of fact's rows: with a small hash table (fact.v,
	# 0..1000, against the values below 10p) and a large one (fact.d1
	# against dim1's rows of attr < p).  Each on (the rules as they are),
	# off, and forced (the plan-time rule on the hash table's size off:
	# bloomfilter.join_filter_min_hash_bytes = 0).  At 95% the run-time rule
	# switches the filter off after 4,096 rows.
	echo "## the cost rules: filters that pass p% of fact's rows (small: $PASS_SMALL; large: $PASS_BIG)"
	"${PSQL[@]}" -c "CREATE TABLE vals AS SELECT g AS v FROM generate_series(0, 1000) g" -c "ANALYZE vals"
	FORCED="$ON SET bloomfilter.join_filter_min_hash_bytes = 0;"
	pass_case() {
		local label=$1 sql=$2
		show_plan "$label" "$STAR_SET" "$sql"
		il_add "${label// /_} off" "$STAR_SET $OFF" "$sql"
		il_add "${label// /_} on" "$STAR_SET $ON" "$sql"
		il_add "${label// /_} forced" "$STAR_SET $FORCED" "$sql"
	}
	for p in $PASS_SMALL; do
		pass_case "pass$p small" "SELECT count(*), sum(f.d1) FROM fact f JOIN vals s ON f.v = s.v WHERE s.v < $((p * 10))"
	done
	for p in $PASS_BIG; do
		pass_case "pass$p big" "SELECT count(*), sum(f.v) FROM fact f JOIN dim1 a ON f.d1 = a.id WHERE a.attr < $p"
	done
	interleaved
fi

echo "## targets (ratios of times of this run: best, and the medians beside)"
awk '
	{ best[$1] = $2; med[$1] = $3 }
	function ratio(a, b, m) { return (b > 0) ? a / b : 0 }
	function row(name, off, on, target,   r, rm) {
		if (!(off in best) || !(on in best)) { printf "| %s | n/a | | >= %s | not measured |\n", name, target; return }
		r = ratio(best[off], best[on]); rm = ratio(med[off], med[on])
		printf "| %s | %.0f / %.0f ms | **%.2fx** | %.2fx | %s | %s |\n", name, best[off], best[on], r, rm,
			target == "-" ? "-" : ">= " target, target == "-" ? "" : (r >= target ? "met" : "missed")
	}
	END {
		print "| measure | off / on | speed-up (best) | (medians) | target | |"
		print "|---|---|---|---|---|---|"
		row("spilling join, work_mem 4MB", "spill_off", "spill_on", 2)
		if (best["temp_on"] > 0)
			printf "| spilling join, temporary bytes | %d / %d | **%.1fx fewer** | | >= 10 | %s |\n", best["temp_off"], best["temp_on"],
				best["temp_off"] / best["temp_on"], (best["temp_off"] / best["temp_on"] >= 10) ? "met" : "missed"
		row("star join, 2 dimensions", "star_off", "star_on", 1.5)
		for (k in best) if (k ~ /^plan_/)
			printf "| planning added, %s | %.4f / %.4f ms | **%+.4f ms** | | < 0.05 ms | %s |\n", substr(k, 6), best[k], med[k],
				med[k] - best[k], (med[k] - best[k] < 0.05) ? "met" : "missed"
		n = 0
		for (k in best) if (k ~ /^pass.*_off$/) keys[++n] = substr(k, 1, length(k) - 4)
		for (i = 2; i <= n; i++) for (j = i; j > 1 && keys[j - 1] > keys[j]; j--) { t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t }
		for (i = 1; i <= n; i++) {
			split(keys[i], w, "_")
			row("passes " substr(w[1], 5) "%, " w[2] " hash table, the rules", keys[i] "_off", keys[i] "_on", "-")
			row("passes " substr(w[1], 5) "%, " w[2] " hash table, forced", keys[i] "_off", keys[i] "_forced", "-")
		}
	}' "$RESULTS"
echo "# total $(($(date +%s) - start)) s"
