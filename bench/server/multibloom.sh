#!/usr/bin/env bash
# bench/server/multibloom.sh: what a multibloom probe costs and what its
# verification filter buys.
#
#  1. Probe cost: N probes of a 2- and a 3-attribute multibloom against N
#     probes of one bloom filter and against the per-dimension filter set
#     (one bloom per attribute, k probes per row), on the same rows.
#  2. False positives of whole-row probes whose values each occur but never
#     together (cross-combinations), with the verification filter
#     (multibloom_contains) and without it (the per-dimension filter set:
#     each attribute's filter probed on its own), and the bytes of each.
#
# Ratios are computed from times measured in the same run.  Recorded in
# bench/results/multibloom-results.md.
# Server: with PGHOST or PGPORT set, the server the usual PG* variables name
# (PGHOST, PGPORT, PGUSER, PGDATABASE), with the extension installed; its
# tables mbb_* are dropped at the end.  Otherwise a throwaway cluster of
# PGBIN (default: the bindir of PG_CONFIG, else of pg_config in PATH), run
# as the postgres OS user when run as root, removed at exit.
# Sizes: ROWS (stored rows, default 100000), PROBES (default 1000000),
# REPEAT (timings per query, the minimum is kept; default 3).
set -euo pipefail

ROWS=${ROWS:-100000}
PROBES=${PROBES:-1000000}
REPEAT=${REPEAT:-3}
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At)
else
	HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	# shellcheck source=../../scripts/cluster.sh
	source "$HERE/../../scripts/cluster.sh"
	PGBIN=$(default_pgbin)
	cluster_workdir
	start_cluster bench
	PSQL=(psql_on bench -d postgres -At)
fi

sql() { "${PSQL[@]}" -c "$1"; }

# Minimum execution time in ms of a query, over REPEAT runs.
time_ms() {
	local best="" t
	for _ in $(seq "$REPEAT"); do
		t=$("${PSQL[@]}" <<SQL | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p'
SET max_parallel_workers_per_gather = 0;
SET jit = off;
EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) $1;
SQL
)
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
		fi
	done
	echo "$best"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
net() { awk -v a="$1" -v b="$2" 'BEGIN { v = a - b; if (v < 0.001) v = 0.001; printf "%.3f", v }'; }

echo "multibloom benchmark: $ROWS stored rows, $PROBES probes, min of $REPEAT runs"
"${PSQL[@]}" <<SQL
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS mbb_rows, mbb_probes, mbb_cross, mbb_filters;
CREATE TABLE mbb_rows AS
SELECT g AS a, g + 10000000 AS b, g + 20000000 AS c FROM generate_series(1, $ROWS) g;
-- probes: stored rows, cycled, so every filter is probed in full
CREATE TABLE mbb_probes AS
SELECT i % $ROWS + 1 AS a, i % $ROWS + 1 + 10000000 AS b, i % $ROWS + 1 + 20000000 AS c
FROM generate_series(0, $PROBES - 1) i;
-- cross-combinations: a_i with b_j (and c_j), i <> j: each value occurs, never together
CREATE TABLE mbb_cross AS
SELECT i % $ROWS + 1 AS a,
       (i % $ROWS + 1 + 1 + (i / $ROWS) * 7919) % $ROWS + 1 + 10000000 AS b,
       (i % $ROWS + 1 + 1 + (i / $ROWS) * 7919) % $ROWS + 1 + 20000000 AS c
FROM generate_series(0, $PROBES - 1) i;
CREATE TABLE mbb_filters AS
SELECT multibloom_agg_fixed($ROWS, 0.01, a, b) AS m2,
       multibloom_agg_fixed($ROWS, 0.01, a, b, c) AS m3,
       bloom_add_all(bloom_empty($ROWS, 0.01), array_agg(a)) AS ba
FROM mbb_rows;
-- the per-dimension filter sets: each attribute's own filter (the projections
-- are plain bloom values, the same bits as one bloom filter per column)
ALTER TABLE mbb_filters ADD COLUMN a1 bloom, ADD COLUMN a2 bloom,
	ADD COLUMN t1 bloom, ADD COLUMN t2 bloom, ADD COLUMN t3 bloom;
UPDATE mbb_filters SET a1 = multibloom_attribute(m2, 1), a2 = multibloom_attribute(m2, 2),
	t1 = multibloom_attribute(m3, 1), t2 = multibloom_attribute(m3, 2), t3 = multibloom_attribute(m3, 3);
VACUUM ANALYZE mbb_probes;
VACUUM ANALYZE mbb_cross;
SQL

scan=$(time_ms "SELECT count(*) FROM mbb_probes p, mbb_filters f WHERE p.a IS NOT NULL")
b1=$(time_ms "SELECT count(*) FROM mbb_probes p, mbb_filters f WHERE bloom_contains(f.ba, p.a)")
m2=$(time_ms "SELECT count(*) FROM mbb_probes p, mbb_filters f WHERE multibloom_contains(f.m2, p.a, p.b)")
m3=$(time_ms "SELECT count(*) FROM mbb_probes p, mbb_filters f WHERE multibloom_contains(f.m3, p.a, p.b, p.c)")
d2=$(time_ms "SELECT count(*) FROM mbb_probes p, mbb_filters f WHERE bloom_contains(f.a1, p.a) AND bloom_contains(f.a2, p.b)")
d3=$(time_ms "SELECT count(*) FROM mbb_probes p, mbb_filters f WHERE bloom_contains(f.t1, p.a) AND bloom_contains(f.t2, p.b) AND bloom_contains(f.t3, p.c)")

nb1=$(net "$b1" "$scan"); nm2=$(net "$m2" "$scan"); nm3=$(net "$m3" "$scan")
nd2=$(net "$d2" "$scan"); nd3=$(net "$d3" "$scan")
ns() { awk -v t="$1" -v n="$PROBES" 'BEGIN { printf "%.0f", t * 1e6 / n }'; }

echo
echo "1. probe cost ($PROBES member probes; scan alone ${scan} ms, subtracted)"
printf "   %-44s %9s ms  %6s ns/probe\n" "bloom_contains, 1 attribute" "$nb1" "$(ns "$nb1")"
printf "   %-44s %9s ms  %6s ns/probe\n" "multibloom_contains, 2 attributes" "$nm2" "$(ns "$nm2")"
printf "   %-44s %9s ms  %6s ns/probe\n" "multibloom_contains, 3 attributes" "$nm3" "$(ns "$nm3")"
printf "   %-44s %9s ms  %6s ns/probe\n" "2 bloom_contains (per-dimension set)" "$nd2" "$(ns "$nd2")"
printf "   %-44s %9s ms  %6s ns/probe\n" "3 bloom_contains (per-dimension set)" "$nd3" "$(ns "$nd3")"
echo "   ratios (same run):"
echo "     2-attribute probe / 1 bloom probe:            $(ratio "$nm2" "$nb1")"
echo "     3-attribute probe / 1 bloom probe:            $(ratio "$nm3" "$nb1")"
echo "     2-attribute probe / 2 bloom probes:           $(ratio "$nm2" "$nd2")"
echo "     3-attribute probe / 3 bloom probes:           $(ratio "$nm3" "$nd3")"

echo
echo "2. false positives of whole-row probes on $PROBES cross-combinations (target 0.01)"
"${PSQL[@]}" -F ' ' <<'SQL' | while read -r n w2 wo2 w3 wo3 bytes2 bytes_set2; do
SET max_parallel_workers_per_gather = 0;
SELECT count(*),
       count(*) FILTER (WHERE multibloom_contains(m2, x.a, x.b)),
       count(*) FILTER (WHERE bloom_contains(a1, x.a) AND bloom_contains(a2, x.b)),
       count(*) FILTER (WHERE multibloom_contains(m3, x.a, x.b, x.c)),
       count(*) FILTER (WHERE bloom_contains(t1, x.a) AND bloom_contains(t2, x.b) AND bloom_contains(t3, x.c)),
       (SELECT (multibloom_info(m2)).bytes FROM mbb_filters),
       (SELECT length(a1::bytea) + length(a2::bytea) FROM mbb_filters)
FROM mbb_cross x, mbb_filters f;
SQL
	awk -v n="$n" -v w2="$w2" -v wo2="$wo2" -v w3="$w3" -v wo3="$wo3" -v b2="$bytes2" -v bs2="$bytes_set2" 'BEGIN {
		printf "   %-44s %8.5f  (%d of %d)\n", "2 attributes, with verification", w2 / n, w2, n;
		printf "   %-44s %8.5f  (%d of %d)\n", "2 attributes, without (per-dimension set)", wo2 / n, wo2, n;
		printf "   %-44s %8.5f  (%d of %d)\n", "3 attributes, with verification", w3 / n, w3, n;
		printf "   %-44s %8.5f  (%d of %d)\n", "3 attributes, without (per-dimension set)", wo3 / n, wo3, n;
		printf "   ratio without/with: 2 attributes %.0fx, 3 attributes %.0fx\n",
			wo2 / (w2 ? w2 : 1), wo3 / (w3 ? w3 : 1);
		printf "   space: multibloom(2) %d bytes, per-dimension set %d bytes (%.2fx)\n", b2, bs2, b2 / bs2;
	}'
done

sql "DROP TABLE mbb_rows, mbb_probes, mbb_cross, mbb_filters" >/dev/null
