/*
 * cache_misses.c
 *	  Probes of one filter shape, for counting cache misses per probe under
 *	  valgrind --tool=cachegrind (or perf stat where the hardware counters
 *	  are available).  See bench/core/cache_misses.sh and doc/performance.md.
 *
 *	  usage: cache_misses classic|blocked capacity probes [scheme [batch|insert]]
 *
 *	  scheme is the hash scheme of the filter: 2 (new filters, the default)
 *	  or 1 (stored filters), to compare the cost of their positions.
 *	  batch: probe 32 values at a time through bf_probe_batch (every line
 *	  prefetched before the first test), as the batched probe scan does,
 *	  instead of one bf_query after the other.
 *	  insert: start from an empty filter and insert probes values through
 *	  the prefetching inserter, as bloom_agg does (the plain-C floor of a
 *	  build; timed by bench/server/profile.sh's readers in doc/performance.md).
 *
 *	  The filter is sized by bf_shape_for(capacity, 0.01) and filled with
 *	  random words, half the bits set (a filter at capacity has 0.52 of its
 *	  bits set, classic, or 0.45, blocked), rather than by inserting
 *	  capacity values, so a 10^8-key filter can be simulated in seconds.  Probes are
 *	  values that were never added, as in a selective prefilter; the memory
 *	  traffic of a probe depends only on the fill, not on which bits are set.
 */
#include "unit.h"				/* the unit tests' values (hash_int) */

#include "core/filter.h"

/* splitmix64: hash_int of a counter that steps by its increment */
static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint64_t
next_random(void)
{
	uint64_t	v = rng_state;

	rng_state += UINT64_C(0x9e3779b97f4a7c15);
	return hash_int(v);
}

int
main(int argc, char **argv)
{
	BloomShape	shape;
	char		err[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;
	double		capacity;
	long		probes,
				hits = 0;
	int			layout;
	bool		batch,
				insert;

	if (argc < 4 || argc > 6 || (layout = bf_layout_from_name(argv[1])) < 0)
	{
		fprintf(stderr, "usage: %s classic|blocked capacity probes [scheme [batch|insert]]\n", argv[0]);
		return 2;
	}
	capacity = atof(argv[2]);
	probes = atol(argv[3]);
	if (!bf_shape_for(capacity, 0.01, layout, &shape, err))
	{
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	/* 64-byte aligned words, as the server keeps a cached filter */
	f = aligned_alloc(64, (bf_shape_bytes(&shape) + 63) / 64 * 64);
	bf_init(f, &shape);
	if (argc >= 5)
		f->hash_scheme = (uint8_t) atoi(argv[4]);
	batch = argc == 6 && strcmp(argv[5], "batch") == 0;
	insert = argc == 6 && strcmp(argv[5], "insert") == 0;
	for (uint64_t w = 0; w < bf_nwords(f); w++)
		f->words[w] = insert ? 0 : next_random();

	if (insert)
	{
		BfInserter	ins;

		bf_inserter_init(&ins);
		for (long i = 0; i < probes; i++)
			bf_inserter_add(&ins, f, bf_hash_derive(next_random()));
		bf_inserter_flush(&ins, f);
	}
	else if (batch)
	{
		uint64_t	hashes[32];
		bool		found[32];

		for (long i = 0; i < probes; i += 32)
		{
			int			n = probes - i < 32 ? (int) (probes - i) : 32;

			for (int j = 0; j < n; j++)
				hashes[j] = next_random();
			hits += bf_probe_batch(f, hashes, n, found);
		}
	}
	else
		for (long i = 0; i < probes; i++)
			hits += bf_query(f, bf_hash_derive(next_random()));
	printf("%s capacity %.0f: %llu bits (%.1f MB), k %u, %ld probes, %ld positives\n",
		   argv[1], capacity, (unsigned long long) shape.nbits,
		   shape.nbits / 8.0 / 1048576.0, shape.nhashes, probes, hits);
	free(f);
	return 0;
}
