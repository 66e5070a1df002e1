#!/bin/sh
# The plain-C floor of the data-sized build's sort (bench/core/sort_floor.c):
# ns per value of the former quicksort and of the radix sort over random
# 64-bit words, and of the distinct-hash collector's whole collection
# under the former and the present policies, for each size in SIZES, the
# modes interleaved ROUNDS times in one process (the machine is shared:
# the medians of CPU time are printed, with ratios to the quicksort).
# Recorded in bench/results/build-speed-results.md, discussed in
# doc/performance.md.
#
#   bench/core/sort_floor.sh                      # 10^5, 10^6, 10^7 values, 7 rounds
#   SIZES=1000000 ROUNDS=3 bench/core/sort_floor.sh
set -eu
cd "$(dirname "$0")/../.."
SIZES=${SIZES:-"100000 1000000 10000000"}
ROUNDS=${ROUNDS:-7}
bin=${TMPDIR:-/tmp}/bloomfilter-sort-floor.$$
trap 'rm -f "$bin"' EXIT
${CC:-cc} -O2 -std=c11 -Wall -Wextra -Werror -Isrc -Itest/unit \
	-o "$bin" bench/core/sort_floor.c src/core/*.c -lm
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $SIZES; do
	"$bin" "$n" "$ROUNDS"
done
