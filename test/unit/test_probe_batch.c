/*
 * test_probe_batch.c
 *	  Unit tests of bf_probe_batch (core/filter.h): for every representation
 *	  (classic, blocked and matrix bit arrays under both hash schemes, the
 *	  explicit list, empty filters) and for batch lengths below, at and
 *	  across BF_PROBE_BATCH, the batch answers exactly what
 *	  bf_contains_value answers value by value, and counts what it found.
 */
#include "unit.h"

/* A filter of the shape holding the values [0, n), under hash scheme `scheme`. */
static BloomFilter *
filled(BloomShape shape, uint64_t n, uint8_t scheme)
{
	BloomFilter *f = unit_new_filter(&shape);

	if (f == NULL)
		exit(2);
	f->hash_scheme = scheme;
	for (uint64_t v = 0; v < n; v++)
		bf_insert(f, value(v));
	return f;
}

/*
 * Probes the values [from, from + n) as one batch and one by one; checks
 * that the answers and the count agree, and returns the count.
 */
static int
check_batch(const BloomFilter *f, uint64_t from, int n)
{
	uint64_t   *hashes = calloc(n + 1, sizeof(uint64_t));
	bool	   *found = malloc(n + 1);
	int			expected = 0,
				mismatches = 0,
				nfound;

	for (int i = 0; i < n; i++)
		hashes[i] = hash_int(from + i);
	/* a sentinel after the batch, which must not be written */
	((unsigned char *) found)[n] = 0xa5;
	nfound = bf_probe_batch(f, hashes, n, found);
	for (int i = 0; i < n; i++)
	{
		bool		one = bf_contains_value(f, hashes[i]);

		expected += one;
		mismatches += (found[i] != one);
	}
	CHECK_EQ_U64(mismatches, 0);
	CHECK_EQ_U64(nfound, expected);
	CHECK_EQ_U64(((unsigned char *) found)[n], 0xa5);
	free(hashes);
	free(found);
	return nfound;
}

/* Batches that are shorter than, equal to and longer than BF_PROBE_BATCH. */
static const int lengths[] = {0, 1, 7, BF_PROBE_BATCH - 1, BF_PROBE_BATCH,
BF_PROBE_BATCH + 1, 3 * BF_PROBE_BATCH + 5, 1000};

/*
 * A filter of 1,000 values: the batch of members [0, 1000) finds all of
 * them, the batches of other values agree with the single probes (and
 * find some false positives at the small sizes used here).
 */
static void
check_filter(const BloomFilter *f)
{
	CHECK_EQ_U64(check_batch(f, 0, 1000), 1000);
	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
		check_batch(f, 1000000 + 17 * i, lengths[i]);
}

static void
test_bit_arrays(void)
{
	BloomShape	classic = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = 9600, .nhashes = 7, .seed = 3};
	BloomShape	blocked = {.layout = BLOOM_LAYOUT_BLOCKED, .nbits = 512 * 20, .nhashes = 7};
	BloomShape	matrix = {.layout = BLOOM_LAYOUT_MATRIX, .nbits = 4 * 4096, .nhashes = 5,
	.rows = 4, .locators = 2};
	uint8_t		schemes[] = {BLOOM_HASH_SCHEME_DOUBLE_HASHING, BLOOM_HASH_SCHEME_INDEPENDENT_WORDS};

	for (int s = 0; s < 2; s++)
	{
		BloomFilter *f[3] = {filled(classic, 1000, schemes[s]), filled(blocked, 1000, schemes[s]),
		filled(matrix, 1000, schemes[s])};

		for (int i = 0; i < 3; i++)
		{
			check_filter(f[i]);
			free(f[i]);
		}
	}
}

/* A full filter finds everything; an empty one nothing. */
static void
test_full_and_empty(void)
{
	BloomShape	shape = {.layout = BLOOM_LAYOUT_BLOCKED, .nbits = 512, .nhashes = 3};
	BloomFilter *empty = filled(shape, 0, BLOOM_HASH_SCHEME_NEWEST);
	BloomFilter *full = filled(shape, 0, BLOOM_HASH_SCHEME_NEWEST);

	memset(full->words, 0xff, 64);
	CHECK_EQ_U64(check_batch(empty, 0, 300), 0);
	CHECK_EQ_U64(check_batch(full, 0, 300), 300);
	free(empty);
	free(full);
}

/*
 * The explicit list (layout 3): members found, exactly (no false positive
 * among other values), and the empty list finds nothing.
 */
static void
test_explicit(void)
{
	BloomFilter *list = unit_datasized(0, 200, 0, 0);
	BloomFilter *none = unit_datasized(0, 0, 0, 0);

	CHECK(bf_is_explicit(list));
	CHECK(bf_is_explicit(none));
	CHECK_EQ_U64(check_batch(list, 0, 200), 200);
	CHECK_EQ_U64(check_batch(list, 150, 100), 50);
	CHECK_EQ_U64(check_batch(list, 5000, 1000), 0);
	CHECK_EQ_U64(check_batch(none, 0, 100), 0);
	free(list);
	free(none);
}

/* A data-sized bit array, as bloom_agg(value) makes past the list. */
static void
test_datasized_bits(void)
{
	BloomFilter *f = unit_datasized(0, 5000, 0, 9);

	CHECK(!bf_is_explicit(f));
	/* unit_datasized hashes with the seed: the members are not hash_int(v) */
	check_batch(f, 0, 5000);
	check_batch(f, 10000, 777);
	free(f);
}

int
main(void)
{
	RUN(test_bit_arrays);
	RUN(test_full_and_empty);
	RUN(test_explicit);
	RUN(test_datasized_bits);
	return unit_report("probe_batch");
}
