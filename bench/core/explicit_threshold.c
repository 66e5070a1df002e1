/*
 * explicit_threshold.c
 *	  What an explicit list of n value hashes costs against the data-sized
 *	  bit array of n values, for choosing BLOOM_EXPLICIT_MAX (the numbers
 *	  and the choice: doc/aggregates.md, section 3).  Per n: the bytes of
 *	  each, the time of a probe (half members, half not), the time to unite
 *	  two lists of n, and the time to add a list of n to a bit array of
 *	  10^6 values; the lists are built with the core's own functions, at any
 *	  n, whatever the threshold.
 *
 *	  usage: explicit_threshold [probes]   (default 10^7)
 *	  Run by bench/core/explicit_threshold.sh.
 */
#include "unit.h"				/* the unit tests' values (hash_int) */

#include "core/filter.h"

#include <time.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The data-sized filter of the values 0 .. n-1 as a list (any n) or a bit array. */
static BloomFilter *
filter_of(uint64_t n, bool list, uint64_t *hashes)
{
	char		err[BLOOM_ERRBUF_SIZE];
	BloomShape	shape;
	BloomFilter *f;
	BfBuilder	b;

	for (uint64_t i = 0; i < n; i++)
		hashes[i] = hash_int(i);
	n = bf_records_sort_unique(hashes, 0, n, 1);
	if (list)
		bf_explicit_shape(n, 0, &shape);
	else if (!bf_shape_datasized((double) n, &shape, err))
		exit(2);
	f = calloc(1, bf_shape_bytes(&shape));
	bf_init(f, &shape);
	f->flags = BLOOM_FLAG_AUTOSIZED;
	bf_builder_start(&b, f);
	for (uint64_t i = 0; i < n; i++)
		bf_builder_add(&b, hashes[i]);
	bf_builder_finish(&b);
	return f;
}

/* ns per probe of f, members 0 .. n-1 and non-members alternating. */
static double
probe_ns(const BloomFilter *f, uint64_t n, long probes, long *hits)
{
	double		t = now();

	*hits = 0;
	for (long i = 0; i < probes; i++)
	{
		uint64_t	v = (i & 1) ? (uint64_t) i % (n ? n : 1) : (uint64_t) i + (UINT64_C(1) << 40);

		*hits += bf_contains_value(f, hash_int(v));
	}
	return (now() - t) * 1e9 / probes;
}

/* microseconds of one set operation, the best of reps */
static double
setop_us(const BloomFilter *a, const BloomFilter *b, int reps)
{
	char		err[BLOOM_ERRBUF_SIZE];
	BfSetop		op;
	double		best = 1e30;
	BloomFilter *dst;

	if (!bf_setop_plan(a, b, false, &op, err))
		exit(3);
	dst = malloc(op.bytes);
	for (int r = 0; r < reps; r++)
	{
		double		t = now();

		memset(dst, 0, op.bytes);
		bf_setop_plan(a, b, false, &op, err);
		bf_setop_build(dst, a, b, &op);
		t = now() - t;
		best = t < best ? t : best;
	}
	free(dst);
	return best * 1e6;
}

int
main(int argc, char **argv)
{
	static const uint64_t sizes[] = {1, 8, 32, 64, 128, 192, 240, 256, 427, 512, 1024, 4096};
	long		probes = argc > 1 ? atol(argv[1]) : 10000000;
	uint64_t   *hashes = malloc(8 * 1000000);
	BloomFilter *big = filter_of(1000000, false, hashes);

	printf("%6s %10s %10s %6s %10s %10s %12s %12s\n", "n", "list B", "bits B", "ratio",
		   "list ns", "bits ns", "list|list us", "list|1e6 us");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		uint64_t	n = sizes[s];
		BloomFilter *list = filter_of(n, true, hashes);
		BloomFilter *bits = filter_of(n, false, hashes);
		BloomFilter *other = filter_of(n, true, hashes);
		long		hl,
					hb;
		double		tl = probe_ns(list, n, probes, &hl);
		double		tb = probe_ns(bits, n, probes, &hb);

		/* a second list of n other values, to unite with the first */
		for (uint64_t i = 0; i < n; i++)
			other->words[i] = hash_int(i + n);
		bf_records_sort_unique(other->words, 0, n, 1);
		printf("%6llu %10llu %10llu %6.2f %10.1f %10.1f %12.2f %12.2f\n",
			   (unsigned long long) n, (unsigned long long) bf_filter_bytes(list),
			   (unsigned long long) bf_filter_bytes(bits),
			   (double) bf_filter_bytes(list) / bf_filter_bytes(bits), tl, tb,
			   setop_us(list, other, 50), setop_us(list, big, 5));
		if (hl < probes / 2 || hb < probes / 2)
			printf("  (a member was not found)\n");
		free(list);
		free(bits);
		free(other);
	}
	free(big);
	free(hashes);
	return 0;
}
