#!/bin/bash
# bench/core/cache_misses.sh: cache misses per probe for filters of 10^5, 10^7
# and 10^8 keys, both layouts, simulated by cachegrind (perf's hardware
# counters are often unavailable in VMs).  Cachegrind simulates two levels,
# so each shape runs with the last level set to the L2 (L2_CACHE, default
# 1 MB, 8-way) and to the L3 (L3_CACHE, default 32 MB, 16-way) of the
# machine the numbers in doc/performance.md come from.
# KEYS lists the capacities (default 100000 10000000 100000000); SCHEME the
# hash scheme of the filters (default 2, new filters; 1: stored filters).
# Each shape runs twice, with 0 and with PROBES probes; the difference is
# the cost of the probes alone.  MODE=batch probes 32 values at a time
# through bf_probe_batch, as the batched probe scan does (default: one
# bf_query after the other, as bloom_contains does).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PROBES=${PROBES:-1000000}
KEYS=${KEYS:-100000 10000000 100000000}
SCHEME=${SCHEME:-2}
MODE=${MODE:-single}
L1=${L1_CACHE:-49152,12,64}
L2=${L2_CACHE:-1048576,8,64}
L3=${L3_CACHE:-33554432,16,64}
out=$(mktemp -d)
cc -O2 -std=c11 -Isrc -Itest/unit -o "$out/cache_misses" bench/core/cache_misses.c src/core/*.c -lm
misses() {	# LL-config layout capacity probes -> "instructions D1-misses LL-misses"
	local ll=$1
	shift
	valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null \
		--D1="$L1" --LL="$ll" \
		"$out/cache_misses" "$@" "$SCHEME" "$MODE" 2>&1 >/dev/null |
		awk '/I *refs:/ { gsub(",", "", $4); i = $4 }
		     /D1  misses:/ { gsub(",", "", $4); d = $4 }
		     /LLd misses:/ { gsub(",", "", $4); l = $4 }
		     END { print i, d, l }'
}
printf '%-8s %10s %12s %10s %10s %10s\n' layout keys instr/probe L1-miss L2-miss L3-miss
for keys in $KEYS; do
	for layout in classic blocked; do
		read -r i0 d0 l20 < <(misses "$L2" $layout $keys 0)
		read -r i1 d1 l21 < <(misses "$L2" $layout $keys "$PROBES")
		read -r _ _ l30 < <(misses "$L3" $layout $keys 0)
		read -r _ _ l31 < <(misses "$L3" $layout $keys "$PROBES")
		awk -v l=$layout -v k=$keys -v p="$PROBES" -v i="$((i1 - i0))" -v d="$((d1 - d0))" \
			-v m2="$((l21 - l20))" -v m3="$((l31 - l30))" \
			'BEGIN { printf "%-8s %10d %12.1f %10.3f %10.3f %10.3f\n", l, k, i / p, d / p, m2 / p, m3 / p }'
	done
done
rm -rf "$out"
