/*
 * insert_floor.c
 *	  The plain-C floor of bloom_agg's fixed-size build: the cost per value
 *	  of inserting random values into a filter of the aggregate's shape,
 *	  without the executor, the transition call or the type's hash.  The
 *	  difference between the server's build and count(k) can be no smaller
 *	  than this.  See bench/core/insert_floor.sh and doc/aggregates.md.
 *
 *	  usage: insert_floor classic|blocked capacity values hash|pipeline|direct
 *
 *	  hash      the value hashes derived and summed, nothing inserted (the
 *	            loop's own cost);
 *	  pipeline  each value through the prefetching inserter (BfInserter), as
 *	            the aggregate inserts;
 *	  direct    bf_insert on each value, one after the other, no prefetch.
 *
 *	  The filter is shaped by bf_shape_for(capacity, 0.01) and allocated
 *	  64-byte aligned and zeroed, as the aggregate's state filter.
 */
#define _POSIX_C_SOURCE 200809L

#include "unit.h"				/* the unit tests' values (hash_int) */

#include "core/filter.h"

#include <time.h>

static double
seconds_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	BloomShape	shape;
	char		err[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;
	BfInserter	ins;
	uint64_t	bytes,
				sum = 0;
	long		values;
	int			layout;
	double		start,
				elapsed;

	if (argc != 5 || (layout = bf_layout_from_name(argv[1])) < 0 ||
		(strcmp(argv[4], "hash") != 0 && strcmp(argv[4], "pipeline") != 0 &&
		 strcmp(argv[4], "direct") != 0))
	{
		fprintf(stderr, "usage: %s classic|blocked capacity values hash|pipeline|direct\n",
				argv[0]);
		return 2;
	}
	values = atol(argv[3]);
	if (!bf_shape_for(atof(argv[2]), 0.01, layout, &shape, err))
	{
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	bytes = (bf_shape_bytes(&shape) + 63) / 64 * 64;
	f = aligned_alloc(64, bytes);
	memset(f, 0, bytes);
	bf_init(f, &shape);
	bf_inserter_init(&ins);

	start = seconds_now();
	for (long i = 0; i < values; i++)
	{
		/* distinct random values: hash_int of a Weyl sequence */
		BloomHash	h = bf_hash_derive(hash_int((uint64_t) i * UINT64_C(0x9e3779b97f4a7c15)));

		if (argv[4][0] == 'h')
			sum += h.h1 ^ h.h2;
		else if (argv[4][0] == 'p')
			bf_inserter_add(&ins, f, h);
		else
			bf_insert(f, h);
	}
	bf_inserter_flush(&ins, f);
	elapsed = seconds_now() - start;

	/* the sum and the bits set keep the loop from being optimized away */
	printf("%s %s: %.1f ns per value (%.1f MB, k %u, %llu bits set, %llu)\n",
		   argv[1], argv[4], elapsed / values * 1e9, bytes / 1048576.0,
		   shape.nhashes, (unsigned long long) bf_bits_set(f),
		   (unsigned long long) (sum & 1));
	free(f);
	return 0;
}
