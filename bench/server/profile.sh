#!/bin/bash
# bench/server/profile.sh: where the time of a serial probe scan and of
# bloom_agg goes.  On a throwaway cluster with a table of PROF_ROWS random
# bigints and filters of 10^5 and 10^7 keys (classic and blocked; a
# Spark-format filter of 10^5 keys and its native twin, the same bits and
# hash functions), it samples the backend with perf's cpu-clock event (a
# software event: it works where the hardware counters are not exposed, as
# in most VMs) while it runs each query three times, and prints the times
# and the top symbols of: count(*), count(k), the trivial predicate, the
# probe scan with each of the six filters, hll_add_agg (when hll is
# installed), and bloom_agg(k, PROF_ROWS, 0.01) in the classic, blocked and
# matrix layouts and data-sized (bloom_agg(k)).  Discussed in
# doc/performance.md (where the time goes).
#
# PROF_CACHEGRIND=1 then stops the server and runs each query again, on
# the first PROF_CG_ROWS (1000000) rows, in a single-user backend under
# cachegrind (this machine's caches: PROF_D1, PROF_LL), and prints per row
# the instructions, L1 and last-level misses of each part of the work:
# the heap scan, deforming the tuple, the expression and aggregate
# machinery with the function-call glue (fmgr), hashing, the filter's
# memory (insert, query, prefetch), the collection and sort of distinct
# hashes (data-sized and matrix builds), hll's own code, and the rest; a run of the same session
# with a query that only loads the libraries is subtracted.  The split
# needs the server's symbols: a stripped postgres (Debian's packages) has
# its static functions (the expression interpreter, deforming) under
# "other"; run it on a build that keeps them (PG_CONFIG of a source build).
#
# Run as root (perf attaches to the backend; the server runs as postgres),
# extension installed.
# Settings: PROF_ROWS (5000000) rows of random bigints, PROF_PORT (5532),
# PROF_DIR (/tmp/bloomfilter-profile; emptied), PROF_TOP (15) symbols per
# query, PROF_CACHEGRIND, PROF_CG_ROWS, PROF_D1 and PROF_LL (above), PGBIN
# or PG_CONFIG (the installation; default: pg_config in PATH).
set -euo pipefail
ROWS=${PROF_ROWS:-5000000}
PORT=${PROF_PORT:-5532}
DIR=${PROF_DIR:-/tmp/bloomfilter-profile}
TOP=${PROF_TOP:-15}
CACHEGRIND=${PROF_CACHEGRIND:-0}
CG_ROWS=${PROF_CG_ROWS:-1000000}
D1=${PROF_D1:-49152,12,64}
LL=${PROF_LL:-33554432,16,64}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin)

cluster_workdir "$DIR"
start_cluster bench "$PORT" listen_addresses= shared_buffers=2GB jit=off \
	work_mem=1GB autovacuum=off max_parallel_workers_per_gather=0
PSQL=(psql_on bench -d postgres)

"${PSQL[@]}" <<SQL
CREATE EXTENSION bloomfilter;
-- hll when installed (its query is left out otherwise)
DO \$\$ BEGIN
	IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'hll') THEN CREATE EXTENSION hll; END IF;
END \$\$;
CREATE TABLE t AS SELECT hashint8extended(g, 1) AS k FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE t;
CREATE TABLE tcg AS SELECT * FROM t LIMIT $CG_ROWS;
VACUUM ANALYZE tcg;
CREATE TABLE filters AS
SELECT n || '_' || layout AS name,
       (SELECT bloom_agg(hashint8extended(g, 1), n, 0.01, layout)
        FROM generate_series($ROWS / 2 + 1, $ROWS / 2 + n) g) AS f
FROM (VALUES (100000), (10000000)) s(n), (VALUES ('classic'), ('blocked'), ('spark')) l(layout)
WHERE layout <> 'spark' OR n = 100000;
INSERT INTO filters
SELECT '100000_spark_native', bloom_add_all(bloom_empty_with((bloom_info(f)).nbits, (bloom_info(f)).nhashes),
       ARRAY(SELECT hashint8extended(g, 1) FROM generate_series($ROWS / 2 + 1, $ROWS / 2 + 100000) g))
FROM filters WHERE name = '100000_spark';
SELECT count(*) FROM t;  -- into shared buffers (under a quarter of them: no ring)
SQL
HAS_HLL=$("${PSQL[@]}" -tA -c "SELECT count(*) FROM pg_extension WHERE extname = 'hll'")

# profile LABEL SQL: run SQL three times in one backend under perf record
profile() {
	local label=$1 sql=$2 pidfile=$WORK_DIR/pid data=$WORK_DIR/perf.data
	rm -f "$pidfile"
	{
		echo "SELECT pg_backend_pid() \\g $pidfile"
		echo "SELECT pg_sleep(1);"
		echo '\timing on'
		for _ in 1 2 3; do echo "$sql;"; done
	} | "${PSQL[@]}" -tA >"$WORK_DIR/out" &
	local client=$!
	while [ ! -s "$pidfile" ]; do sleep 0.1; done
	perf record -q -e cpu-clock -F 2000 -o "$data" -p "$(cat "$pidfile")" </dev/null 2>/dev/null &
	local rec=$!
	wait $client
	wait $rec || true
	echo "## $label: $sql"
	grep '^Time:' "$WORK_DIR/out" | sed 's/^/# /'
	perf report -i "$data" --no-children --sort dso,symbol --stdio 2>/dev/null |
		grep -v '^#' | grep -v '^$' | sed 's/  *-  *-  *$//' | head -"$TOP" || true
	echo
}

# the queries, as LABEL|SQL over the table TABLE
queries() {
	local f
	echo "count(*)|SELECT count(*) FROM TABLE"
	echo "count(k)|SELECT count(k) FROM TABLE"
	echo "trivial predicate|SELECT count(*) FROM TABLE WHERE hashint8(k) <> 0"
	for f in 100000_classic 100000_blocked 10000000_classic 10000000_blocked 100000_spark 100000_spark_native; do
		echo "probe $f|SELECT count(*) FROM TABLE WHERE bloom_contains((SELECT f FROM filters WHERE name = '$f'), k)"
	done
	[ "$HAS_HLL" = 0 ] || echo "hll_add_agg|SELECT hll_cardinality(hll_add_agg(hll_hash_bigint(k))) FROM TABLE"
	echo "bloom_agg(k, n, 0.01)|SELECT bloom_fpp(bloom_agg(k, $ROWS, 0.01)) FROM TABLE"
	echo "bloom_agg(k, n, 0.01, 'blocked')|SELECT bloom_fpp(bloom_agg(k, $ROWS, 0.01, 'blocked')) FROM TABLE"
	echo "bloom_agg(k, n, 0.01, 'matrix')|SELECT octet_length(bloom_agg(k, $ROWS, 0.01, 'matrix')::bytea) FROM TABLE"
	echo "bloom_agg(k) (data-sized)|SELECT bloom_fpp(bloom_agg(k)) FROM TABLE"
}

while IFS='|' read -r label sql <&3; do
	profile "$label" "${sql//TABLE/t}"
done 3< <(queries)

[ "$CACHEGRIND" = 1 ] || exit 0

# cachegrind: the query in a single-user backend, after a scan of the
# table that brings it into shared buffers; the same session with a query
# that only loads the libraries is the baseline.
stop_clusters
DATA=$WORK_DIR/bench/data
cg_run() {	# SQL -> "function Ir D1-misses LL-misses" of the session, tabs
	local out=$WORK_DIR/cg.out
	printf "SELECT count(*) FROM tcg\n%s\n" "$1" |
		as_postgres valgrind --tool=cachegrind --cache-sim=yes --D1="$D1" --LL="$LL" \
			--cachegrind-out-file="$out" "$PGBIN/postgres" --single -D "$DATA" \
			-c max_parallel_workers_per_gather=0 -c jit=off -c work_mem=1GB -c shared_buffers=1GB postgres >/dev/null 2>&1
	# cachegrind's file: fn=NAME, then "line Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw"
	awk '/^fn=/ { fn = substr($0, 4); next }
	     /^[0-9]/ { ir[fn] += $2; d1[fn] += $6 + $9; ll[fn] += $7 + $10 }
	     END { for (f in ir) print f "\t" ir[f] "\t" d1[f] "\t" ll[f] }' "$out"
}
# "function Ir D1 LL" (tabs) -> "category|instructions|D1-misses|LL-misses"
cg_categories() {
	awk -F'\t' '{
		fn = $1; ir1 = $2; d11 = $3; ll1 = $4
		if (fn ~ /^(slot_deform|tts_.*getsomeattrs|slot_getsomeattrs|slot_getattr|heap_getattr|nocachegetattr)/) c = "deform"
		else if (fn ~ /^(heap_getnextslot|heapgetpage|heapgettup|ExecStoreBufferHeapTuple|tts_buffer|SeqNext|ExecSeqScan|ExecScan|ReadBuffer|PinBuffer|UnpinBuffer|ReleaseBuffer|IncrBufferRefCount|ResourceOwner|BufTable|LockBufHdr|LWLock|HeapTupleSatisfies|heap_page_prune|StrategyGetBuffer|table_scan|heap_prepare_pagescan|page_collect_tuples|heap_fetch_next_buffer|read_stream|heap_scan_stream|XidInMVCCSnapshot|TransactionIdIsCurrent)/) c = "scan"
		else if (fn ~ /hash_collector|collect|sort_u64/) c = "collect, sort"
		else if (fn ~ /^hash_search|^hash_seq/) c = "scan"
		else if (fn ~ /hash|murmur|xxh|mix64|fmix|MurmurHash3/) c = "hash"
		else if (fn ~ /^hll_|^multiset|^compressed|^explicit_|^sparse|^bitstream/) c = "hll"
		else if (fn ~ /^(bf_|insert_|probe_|bloom_probe|blocked_|classic_|matrix_|place_value)/ && fn !~ /trans|contains_value/) c = "filter memory"
		else if (fn ~ /^(ExecInterpExpr|ExecAgg|advance_|agg_retrieve|lookup_hash|ExecEval|fmgr|FunctionCall|DirectFunctionCall|CallerFInfo|bloom_|contains|batch_|ExecBloom|bbs_|int8|int4|count_|ExecProcNode|ExecCustomScan|ExecQual|MemoryContextReset|AllocSet|palloc|pfree|pg_detoast|detoast)/ || fn ~ /trans|contains_value/) c = "expressions, calls"
		else c = "other"
		ir[c] += ir1; d1[c] += d11; ll[c] += ll1
	}
	END { for (c in ir) print c "|" ir[c] "|" d1[c] "|" ll[c] }'
}
# stop_clusters stops immediately: a first session replays the WAL,
# outside the measures
echo "SELECT 1" | as_postgres "$PGBIN/postgres" --single -D "$DATA" postgres >/dev/null 2>&1
base=$WORK_DIR/cg.base
# the libraries loaded, as the queries load them
cg_run "SELECT bloom_fpp(bloom_empty(10, 0.01))$([ "$HAS_HLL" = 0 ] || echo ", hll_cardinality(hll_empty())")" | cg_categories >"$base"
echo "## cachegrind, per row of $CG_ROWS (D1 $D1, LL $LL): instructions / L1 misses / LL misses"
CATS="scan|deform|expressions, calls|hash|filter memory|collect, sort|hll|other"
echo "| query | ${CATS//|/ | } | instructions |"
echo "|---|---|---|---|---|---|---|---|---|---|"
while IFS='|' read -r label sql <&3; do
	cg_run "${sql//TABLE/tcg}" | cg_categories |
		awk -F'|' -v rows="$CG_ROWS" -v label="$label" -v base="$base" -v cats="$CATS" '
			BEGIN { while ((getline line < base) > 0) { split(line, b, "|"); bi[b[1]] = b[2]; bd[b[1]] = b[3]; bl[b[1]] = b[4] } }
			{ ir[$1] = $2 - bi[$1]; d1[$1] = $3 - bd[$1]; ll[$1] = $4 - bl[$1]; tot += ir[$1] }
			END { printf "| %s", label
			      n = split(cats, cs, "|")
			      for (i = 1; i <= n; i++) { c = cs[i]; printf " | %.0f / %.2f / %.2f", ir[c] / rows, d1[c] / rows, ll[c] / rows }
			      printf " | %.0f |\n", tot / rows }'
done 3< <(queries)
