#!/bin/sh
# The plain-C floor of the fixed-size build (bench/core/insert_floor.c):
# ns per value of hashing only, of the prefetching inserter and of plain
# bf_insert, for both layouts, the runs interleaved ROUNDS times (the
# machine is shared: read the medians).  Discussed in doc/aggregates.md
# (the build of the semijoin prefilter's filter).
#
#   bench/core/insert_floor.sh                 # 10^7 values, capacity 10^7, 5 rounds
#   VALUES=1000000 CAPACITY=1000000 ROUNDS=3 bench/core/insert_floor.sh
set -eu
cd "$(dirname "$0")/../.."
VALUES=${VALUES:-10000000}
CAPACITY=${CAPACITY:-$VALUES}
ROUNDS=${ROUNDS:-5}
bin=${TMPDIR:-/tmp}/bloomfilter-insert-floor.$$
trap 'rm -f "$bin"' EXIT
${CC:-cc} -O2 -std=c11 -Wall -Wextra -Werror -Isrc -Itest/unit \
	-o "$bin" bench/core/insert_floor.c src/core/*.c -lm
round=1
while [ "$round" -le "$ROUNDS" ]; do
	for layout in blocked classic; do
		for mode in hash pipeline direct; do
			"$bin" "$layout" "$CAPACITY" "$VALUES" "$mode"
		done
	done
	round=$((round + 1))
done
