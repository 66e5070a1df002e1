/*
 * value_hash.c
 *	  The value hash of a bigint alone, in nanoseconds per value: what
 *	  bigint's extended hash costs (hashint8extended: the fold, then
 *	  PostgreSQL's hash_bytes_uint32_extended), and what hash scheme 3
 *	  costs for the same values within 32 bits (one more comparison) and
 *	  beyond (bf_hash_wide64, two rounds of bf_mix64), then with the two
 *	  words of bf_hash_derive that every probe and insert takes after it.
 *	  Interleaved rounds, best of each; built and run by value_hash.sh
 *	  (CYCLES=1) against PostgreSQL's libpgcommon.
 */
#include "postgres_fe.h"

#include <time.h>

#include "common/hashfn.h"

#include "core/bf_base.h"

#define N		(1 << 22)
#define ROUNDS	15

static int64 small_values[N];
static int64 wide_values[N];
static volatile uint64 sink;

/* hashint8extended (utils/adt/hashfunc.c), as schemes 1 and 2 hash a bigint */
static inline uint64
old_hash(int64 v, uint64 seed)
{
	uint32		lohalf = (uint32) v;
	uint32		hihalf = (uint32) (v >> 32);

	lohalf ^= (v >= 0) ? hihalf : ~hihalf;
	return hash_bytes_uint32_extended(lohalf, seed);
}

/* scheme 3, as bloom_hash_int64 computes it */
static inline uint64
new_hash(int64 v, uint64 seed)
{
	if (bf_hash_wide_needed(v))
		return bf_hash_wide64((uint64) v, seed);
	return old_hash(v, seed);
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per value of one kernel over one array; kind: 0 old, 1 new, +2 derive */
static double
measure(const int64 *values, int kind)
{
	uint64		acc = 0;
	double		start = now_ns();

	for (int i = 0; i < N; i++)
	{
		uint64		h = (kind & 1) ? new_hash(values[i], 0) : old_hash(values[i], 0);

		if (kind & 2)
		{
			BloomHash	d = bf_hash_derive(h);

			h = d.h1 ^ d.h2;
		}
		acc += h;
	}
	sink = acc;
	return (now_ns() - start) / N;
}

int
main(void)
{
	static const char *const names[] = {
		"within 32 bits: hashint8extended", "within 32 bits: scheme 3",
		"within 32 bits: hashint8extended + derive", "within 32 bits: scheme 3 + derive",
		"full range: hashint8extended", "full range: scheme 3",
		"full range: hashint8extended + derive", "full range: scheme 3 + derive"};
	double		best[8];
	uint64		x = 88172645463325252ULL;

	for (int i = 0; i < N; i++)
	{
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		wide_values[i] = (int64) x;
		small_values[i] = (int32) x;
	}
	for (int k = 0; k < 8; k++)
		best[k] = 1e9;
	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < 8; k++)
		{
			double		ns = measure(k < 4 ? small_values : wide_values, k % 4);

			if (ns < best[k])
				best[k] = ns;
		}
	printf("# value hash of a bigint, ns per value, best of %d interleaved rounds of %d values\n",
		   ROUNDS, N);
	for (int k = 0; k < 8; k++)
		printf("%-44s %6.2f ns\n", names[k], best[k]);
	return 0;
}
