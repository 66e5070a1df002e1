#!/bin/bash
# bench/server/value_hash.sh: the cost of hashing values, per probe and per insert,
# for two builds of the extension side by side (hash scheme 3 widened the
# value hash of bigint, timestamps and their kin).
#
#   BEFORE=/path/to/pg_config AFTER=/path/to/pg_config bash bench/server/value_hash.sh
#
# Each pg_config names a PostgreSQL installation with its own build of the
# extension installed (the same major).  Starts one throwaway cluster per
# build, loads the same ROWS rows into each (bigints within 32 bits,
# bigints over the whole 64-bit range, int4, timestamps over 40 years),
# builds the filters on each, then runs ROUNDS interleaved rounds: every
# query once on each server per round, the order of the two servers
# alternating, so a slowdown of the machine hits both alike.  Prints the
# best time of each query on each server, the median over the rounds of
# its ratio to count(*) of the same rows on the same server in the same
# round, and the after/before quotient of those ratios.  The probes run with bloomfilter.enable_batch_scan off (one call
# of bloom_contains per row) and on (the batched scan); "stored scheme 2"
# probes, on the after server, the filter the before server built.
#
# First, value_hash.c times the value hash of a bigint alone (built
# against AFTER's headers and libpgcommon; it needs no server).
#
# Settings (environment): ROWS (2000000), ROUNDS (7), PORT (5561; the
# after server uses PORT + 1).
set -euo pipefail

BEFORE=${BEFORE:?BEFORE=pg_config of the installation with the old build}
AFTER=${AFTER:?AFTER=pg_config of the installation with the new build}
ROWS=${ROWS:-2000000}
ROUNDS=${ROUNDS:-7}
PORT=${PORT:-5561}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"

cluster_workdir
WORK=$WORK_DIR
# the hash alone, in C
pkglib=$("$AFTER" --pkglibdir)
gcc -O2 -std=gnu99 -I"$HERE/../../src" -I"$("$AFTER" --includedir-server)" -o "$WORK/value_hash" \
	"$HERE/value_hash.c" "$pkglib/libpgcommon.a" "$pkglib/libpgport.a" -lm
"$WORK/value_hash"
echo
PORTS=("$PORT" "$((PORT + 1))")
NAMES=(before after)
BINS=("$("$BEFORE" --bindir)" "$("$AFTER" --bindir)")
SETTINGS=(listen_addresses= shared_buffers=1GB jit=off work_mem=512MB max_parallel_workers_per_gather=0 autovacuum=off)
for i in 0 1; do
	PGBIN=${BINS[$i]} start_cluster "${NAMES[$i]}" "${PORTS[$i]}" "${SETTINGS[@]}"
done
on() { local i=$1; shift; psql_on "${NAMES[$i]}" "$@"; }

echo "# value hash cost: $ROWS rows, best of $ROUNDS interleaved rounds"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $("${BINS[1]}/postgres" --version)"
for i in 0 1; do
	on "$i" <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION pg_prewarm;
CREATE TABLE t AS
SELECT g::int8 AS small, hashint8extended(g, 1) AS wide, g::int4 AS i4,
       '2000-01-01'::timestamp + (abs(hashint8extended(g, 2)) % 1262304000000000) * interval '1 microsecond' AS ts
FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE t;
DO \$\$ BEGIN PERFORM pg_prewarm('t'); END \$\$;
CREATE TABLE filters AS
SELECT 'small' AS name, bloom_agg(small, $ROWS, 0.01) AS f FROM t
UNION ALL SELECT 'wide', bloom_agg(wide, $ROWS, 0.01) FROM t
UNION ALL SELECT 'ts', bloom_agg(ts, $ROWS, 0.01) FROM t;
SQL
	echo "# ${NAMES[$i]}: filters of scheme $(on "$i" -tA -c "SELECT string_agg(DISTINCT get_byte(f::bytea, 2)::text, ',') FROM filters")"
done
# the after server also probes the before server's (older scheme) filter
on 1 -c "CREATE TABLE old_filter (f bloom)"
on 0 -tA -c "SELECT f FROM filters WHERE name = 'wide'" | on 1 -c "COPY old_filter FROM STDIN"
on 1 -c "INSERT INTO filters SELECT 'wide_stored', f FROM old_filter"
on 0 -c "INSERT INTO filters SELECT 'wide_stored', f FROM filters WHERE name = 'wide'"

filter() { echo "(SELECT f FROM filters WHERE name = '$1')"; }
LABELS=() SETTINGS=() QUERIES=()
add() { LABELS+=("$1"); SETTINGS+=("$2"); QUERIES+=("$3"); }
OFF="SET bloomfilter.enable_batch_scan = off;"
ON="SET bloomfilter.enable_batch_scan = on;"
add "count(*)" "" "SELECT count(*) FROM t"
for col in small wide ts; do
	add "probe $col" "$OFF" "SELECT count(*) FROM t WHERE bloom_contains($(filter "$col"), $col)"
done
add "probe wide, stored scheme 2" "$OFF" "SELECT count(*) FROM t WHERE bloom_contains($(filter wide_stored), wide)"
add "probe int4 in int8 filter" "$OFF" "SELECT count(*) FROM t WHERE bloom_contains($(filter small), i4)"
for col in small wide ts; do
	add "batched probe $col" "$ON" "SELECT count(*) FROM t WHERE bloom_contains($(filter "$col"), $col)"
done
for col in small wide ts; do
	add "insert $col (bloom_agg fixed)" "" "SELECT bloom_agg($col, $ROWS, 0.01) IS NOT NULL FROM t"
done
for col in small wide; do
	add "insert $col (bloom_agg sized)" "" "SELECT bloom_agg($col) IS NOT NULL FROM t"
done
add "bloom_hash wide" "" "SELECT count(*) FROM t WHERE bloom_hash(wide, 0) <> 0"

times=$(mktemp)
for round in $(seq "$ROUNDS"); do
	for q in "${!LABELS[@]}"; do
		for k in 0 1; do
			i=$(((k + round + q) % 2))
			ms=$({
				echo "${SETTINGS[$q]}"
				echo '\timing on'
				echo "${QUERIES[$q]};"
			} | on "$i" | awk '/^Time:/ { print $2 }')
			echo "$round $q $i $ms" >>"$times"
		done
	done
done

# per query and server: the best time, and the median over the rounds of
# the time over that round's count(*) on the same server (a slowdown of
# the machine during one round then cancels out)
summary() {
	awk -v q="$1" -v i="$2" '
		$2 == 0 && $3 == i { c[$1] = $4 }
		$2 == q && $3 == i { t[$1] = $4 }
		END {
			n = 0; best = -1
			for (r in t) {
				ratio[n++] = t[r] / c[r]
				if (best < 0 || t[r] < best) best = t[r]
			}
			for (a = 0; a < n; a++)
				for (b = a + 1; b < n; b++)
					if (ratio[b] < ratio[a]) { x = ratio[a]; ratio[a] = ratio[b]; ratio[b] = x }
			med = n % 2 ? ratio[(n - 1) / 2] : (ratio[n / 2 - 1] + ratio[n / 2]) / 2
			print best, med
		}' "$times"
}
printf '%-34s %10s %10s %9s %9s %9s\n' query "before ms" "after ms" "before/n" "after/n" after/before
for q in "${!LABELS[@]}"; do
	read -r b rb < <(summary "$q" 0)
	read -r a ra < <(summary "$q" 1)
	awk -v l="${LABELS[$q]}" -v b="$b" -v a="$a" -v rb="$rb" -v ra="$ra" 'BEGIN {
		printf "%-34s %10.1f %10.1f %9.2f %9.2f %9.3f\n", l, b, a, rb, ra, ra / rb }'
done
echo "# ms: the best of the rounds; before/n, after/n: the median over the rounds of"
echo "# the time over count(*) of the same rows on the same server in that round"
rm -f "$times"
