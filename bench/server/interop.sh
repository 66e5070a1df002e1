#!/bin/bash
# The cost of foreign filters (doc/interop.md) against native ones, in one
# run:
#
# 1. Probing.  A table of ROWS bigint keys is probed with a filter of 10^5
#    keys given as a parameter (the batched probe scan), once per format:
#    the filter in the foreign layout (parquet, guava, spark) and a native
#    classic filter of the same number of bits and hash functions (so the
#    same size and about the same rate).  The queries run interleaved,
#    ROUNDS rounds, best time of each kept; the report gives each probe's
#    cost (time minus count(*)'s) per row and the ratio foreign / native
#    (target: at most 1.2).
#
# 2. Import and export of a filter of 10^7 bits (parquet: 2^23 bits, its
#    nearest power of two): NCALLS calls in one query, interleaved rounds,
#    best time per call (target: under 20 ms).  The bytes are stored
#    uncompressed (STORAGE EXTERNAL), so a call reads them as a stored
#    filter would be read.
#
#   bash bench/server/interop.sh                 # ROWS=5000000 ROUNDS=7
#   ROWS=1000000 ROUNDS=3 bash bench/server/interop.sh
#
# Needs PostgreSQL binaries and this extension installed (PGBIN or
# PG_CONFIG picks the installation).  Starts a throwaway cluster on PORT
# (5587), as the postgres OS user when run as root, and removes it on exit.
set -euo pipefail

ROWS=${ROWS:-5000000}
ROUNDS=${ROUNDS:-7}
NCALLS=${NCALLS:-20}
PORT=${PORT:-5587}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin 2>/dev/null || echo /usr/lib/postgresql/15/bin)

cluster_workdir
WORK=$WORK_DIR
start_cluster node "$PORT" listen_addresses= shared_buffers=1GB max_parallel_workers_per_gather=0 jit=off

echo "loading $ROWS rows" >&2
psql_on node <<SQL
CREATE EXTENSION bloomfilter;
CREATE TABLE t AS SELECT (g::int8 * 7919 % 1000000) AS k FROM generate_series(1, $ROWS) g;
-- each foreign filter of 10^5 keys, and a classic one of its bits and hashes
CREATE TABLE filters (name text, f bloom);
INSERT INTO filters
SELECT l, bloom_agg(g::int8, 100000, 0.01, l) FROM generate_series(1, 100000) g,
	unnest(ARRAY['parquet', 'guava', 'spark']) l GROUP BY l;
INSERT INTO filters
SELECT 'native_' || name, bloom_add_all(bloom_empty_with((bloom_info(f)).nbits, (bloom_info(f)).nhashes),
	(SELECT array_agg(g::int8) FROM generate_series(1, 100000) g))
FROM filters;
-- filters of 10^7 bits, their foreign bytes NCALLS times
CREATE TABLE blobs (name text, b bytea);
ALTER TABLE blobs ALTER COLUMN b SET STORAGE EXTERNAL;
INSERT INTO blobs
SELECT l, bloom_export(bloom_add_all(bloom_import(('\\x' || repeat('00', $( echo $((1 << 20)) )))::bytea, 'parquet'),
	(SELECT array_agg(g::int8) FROM generate_series(1, 1000000) g)), 'parquet')
FROM generate_series(1, $NCALLS), (VALUES ('parquet')) v(l);
INSERT INTO blobs
SELECT l, bloom_export(bloom_add_all(bloom_import(
	CASE l WHEN 'guava' THEN '\\x0107'::bytea || int4send(156250) ELSE '\\x0000000100000007'::bytea || int4send(156250) END
	|| ('\\x' || repeat('00', 1250000))::bytea, l),
	(SELECT array_agg(g::int8) FROM generate_series(1, 1000000) g)), l)
FROM generate_series(1, $NCALLS), (VALUES ('guava'), ('spark')) v(l);
CREATE TABLE stored AS SELECT name, bloom_import(b, CASE name WHEN 'parquet' THEN 'parquet' ELSE name END) AS f
FROM blobs;
ALTER TABLE stored ALTER COLUMN f SET STORAGE EXTERNAL;
VACUUM ANALYZE t, filters, blobs, stored;
SELECT name, (bloom_info(f)).nbits, (bloom_info(f)).nhashes, round(bloom_fpp(f)::numeric, 4) AS fpp
FROM filters ORDER BY name;
SQL

# The best of ROUNDS interleaved times of each query, in ms: "label ms".
measure() {
	local list=$1 round script
	script=$WORK/queries.sql
	{
		echo 'SELECT count(*) FROM t;'
		echo '\timing on'
		while IFS='|' read -r label query; do
			echo "\\echo $label"
			echo "$query;"
		done <"$list"
	} >"$script"
	chown postgres "$script" 2>/dev/null || true
	for round in $(seq "$ROUNDS"); do
		psql_on node -At -f "$script"
	done | awk '
		/^Time: / { t = $2 + 0; if (!(label in best) || t < best[label]) best[label] = t; next }
		/^[0-9]+$/ { next }
		{ label = $1; if (!(label in order)) { order[label] = ++count; names[count] = label } }
		END { for (i = 1; i <= count; i++) printf "%s %.1f\n", names[i], best[names[i]] }'
}

{
	echo "count|SELECT count(*) FROM t"
	for l in parquet guava spark; do
		echo "$l|SELECT count(*) FROM t WHERE bloom_contains((SELECT f FROM filters WHERE name = '$l'), k)"
		echo "native_$l|SELECT count(*) FROM t WHERE bloom_contains((SELECT f FROM filters WHERE name = 'native_$l'), k)"
	done
} >"$WORK/probe.list"
{
	for l in parquet guava spark; do
		echo "import_$l|SELECT count(bloom_import(b, '$l') IS NOT NULL) FROM blobs WHERE name = '$l'"
		echo "export_$l|SELECT count(bloom_export(f, '$l') IS NOT NULL) FROM stored WHERE name = '$l'"
		echo "read_$l|SELECT count(length(b)) FROM blobs WHERE name = '$l'"
	done
} >"$WORK/io.list"

echo "## Probe: $ROWS bigint keys, filter of 100000 keys (a parameter), best of $ROUNDS interleaved rounds"
measure "$WORK/probe.list" | awk -v rows="$ROWS" '
	{ ms[$1] = $2; lines[++k] = $1 }
	END {
		print "| query | ms | probe ns/row |"
		print "|---|---:|---:|"
		for (i = 1; i <= k; i++) {
			q = lines[i]
			printf "| %s | %.1f | %s |\n", q, ms[q], q == "count" ? "" : sprintf("%.1f", (ms[q] - ms["count"]) * 1e6 / rows)
		}
		print ""
		split("parquet guava spark", ls, " ")
		for (i = 1; i <= 3; i++)
			printf "%s / native of its size: %.2f\n", ls[i], (ms[ls[i]] - ms["count"]) / (ms["native_" ls[i]] - ms["count"])
		print ""
	}'
echo "## Import and export of a 10^7-bit filter (parquet 2^23 bits): $NCALLS calls per query, best of $ROUNDS rounds"
measure "$WORK/io.list" | awk -v n="$NCALLS" '
	{ ms[$1] = $2; lines[++k] = $1 }
	END {
		print "| query | ms per call |"
		print "|---|---:|"
		for (i = 1; i <= k; i++)
			printf "| %s | %.2f |\n", lines[i], ms[lines[i]] / n
		print ""
	}'
