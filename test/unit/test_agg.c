/*
 * test_agg.c
 *	  Unit tests of what the aggregates need from the core: the auto-sized
 *	  shape, folding a filter onto a smaller power-of-two size, and the
 *	  relaxed compatibility rule for auto-sized filters.
 */
#include "unit.h"

#include "core/filter.h"

/* An empty auto-sized filter of nwords words. */
static BloomFilter *
new_auto(uint64_t nwords)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = nwords * 64,
	.nhashes = BLOOM_AUTO_NHASHES};
	BloomFilter *f = unit_new_filter(&s);

	f->flags |= BLOOM_FLAG_AUTOSIZED;
	return f;
}

static void
fill(BloomFilter *f, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i++)
		bf_insert(f, value(i));
}

static double
expected_fpp(uint64_t nbits, uint32_t k, double n)
{
	return pow(1 - exp(-(double) k * n / (double) nbits), k);
}

static void
test_autosized_shape(void)
{
	BloomShape	s;
	char		err[BLOOM_ERRBUF_SIZE];
	uint64_t	prev = 0;
	bool		ok = true;

	/* no values: the smallest filter, one word */
	CHECK(bf_shape_datasized(0, &s, err));
	CHECK_EQ_U64(s.nbits, 64);
	CHECK_EQ_U64(s.nhashes, 7);
	CHECK(s.layout == BLOOM_LAYOUT_CLASSIC);
	CHECK(bf_shape_datasized(1, &s, err));
	CHECK_EQ_U64(s.nbits, 64);
	CHECK(bf_shape_datasized(7, &s, err));
	CHECK_EQ_U64(s.nbits, 128);		/* 7 * 9.59 = 68 bits */

	/* every size: a power of two words, rate at most 0.01, at most 2x needed */
	for (double n = 1; n < 5e8; n *= 1.37)
	{
		uint64_t	words;

		if (!bf_shape_datasized(floor(n), &s, err))
			break;
		words = s.nbits / 64;
		ok &= (words & (words - 1)) == 0;
		ok &= s.nhashes == 7;
		ok &= expected_fpp(s.nbits, 7, floor(n)) <= 0.01;
		/* half the size would miss the rate (unless already one word) */
		ok &= words == 1 || expected_fpp(s.nbits / 2, 7, floor(n)) > 0.01;
		ok &= s.nbits >= prev;
		prev = s.nbits;
	}
	CHECK(ok);
	CHECK(bf_shape_datasized(1e8, &s, err));
	CHECK_EQ_U64(s.nbits, UINT64_C(1) << 30);
	/* beyond the largest power-of-two filter that fits in 1 GB */
	CHECK(!bf_shape_datasized(1e9, &s, err));
	CHECK(strstr(err, "power-of-two") != NULL);
	CHECK(!bf_shape_datasized(-1, &s, err));
	CHECK(!bf_shape_datasized(NAN, &s, err));
}

/*
 * Folding a filter of f*m bits onto m bits gives exactly the m-bit filter
 * of the same values, for every factor (both code paths: f < 64 and f >= 64).
 */
static void
test_fold_exact(void)
{
	const uint64_t big_words = 4096;

	for (uint64_t f = 1; f <= 1024; f *= 2)
	{
		BloomFilter *big = new_auto(big_words);
		BloomFilter *direct = new_auto(big_words / f);
		BloomFilter *folded = new_auto(big_words / f);

		fill(big, 0, 2000);
		fill(direct, 0, 2000);
		bf_fold(big, folded);
		CHECK(bf_equal(folded, direct));
		CHECK_EQ_U64(folded->inserted, 2000);
		CHECK(folded->flags & BLOOM_FLAG_AUTOSIZED);
		free(big);
		free(direct);
		free(folded);
	}
}

/* A union of different sizes equals the union built at the smaller size. */
static void
test_union_intersect_folded(void)
{
	BloomFilter *a = new_auto(1024);	/* values 0..3000 */
	BloomFilter *b = new_auto(64);	/* values 2000..2500 */
	BloomFilter *expect = new_auto(64);
	BloomFilter *u = new_auto(64);
	BloomFilter *ia = new_auto(64),
			   *ib = new_auto(64);
	char		err[BLOOM_ERRBUF_SIZE];
	bool		all = true;

	fill(a, 0, 3000);
	fill(b, 2000, 2500);
	CHECK(bf_compatible(a, b, err));
	CHECK(bf_compatible(b, a, err));
	CHECK(bf_foldable(a, b));

	memcpy(u, b, bf_struct_bytes(b->nbits));
	bf_union_into(u, a);
	fill(expect, 0, 3000);
	fill(expect, 2000, 2500);
	CHECK(bf_equal(u, expect));
	CHECK_EQ_U64(u->inserted, 3500);
	CHECK(u->flags & BLOOM_FLAG_AUTOSIZED);

	/* intersection: AND at the smaller size, keeps every common value */
	fill(ia, 0, 3000);
	fill(ib, 2000, 2500);
	bf_intersect_into(ib, a);
	for (uint64_t i = 2000; i < 2500; i++)
		all &= bf_query(ib, value(i));
	CHECK(all);
	for (uint64_t w = 0; w < 64; w++)
		all &= ib->words[w] == (ia->words[w] & b->words[w]);
	CHECK(all);
	CHECK_EQ_U64(ib->inserted, 500);

	free(a);
	free(b);
	free(expect);
	free(u);
	free(ia);
	free(ib);
}

static void
test_foldable_rules(void)
{
	BloomFilter *a = new_auto(64);
	BloomFilter *b = new_auto(16);
	char		err[BLOOM_ERRBUF_SIZE];

	CHECK(bf_foldable(a, b));
	/* both must carry the flag */
	b->flags = 0;
	CHECK(!bf_foldable(a, b));
	CHECK(!bf_compatible(a, b, err));
	CHECK(strstr(err, "1024 bits") != NULL && strstr(err, "4096 bits") != NULL);
	b->flags = BLOOM_FLAG_AUTOSIZED;
	/* same hash functions and seed */
	b->nhashes = 6;
	CHECK(!bf_foldable(a, b));
	b->nhashes = 7;
	b->seed = 1;
	CHECK(!bf_foldable(a, b));
	b->seed = 0;
	/* power-of-two word counts only */
	b->nbits = 48 * 64;
	CHECK(!bf_foldable(a, b));
	b->nbits = 16 * 64;
	CHECK(bf_foldable(a, b));
	/* the flag survives only when both have it */
	a->flags = 0;
	a->nbits = 16 * 64;
	bf_union_into(b, a);
	CHECK(!(b->flags & BLOOM_FLAG_AUTOSIZED));
	free(a);
	free(b);
}

/* The measured rate of an auto-sized filter stays below 0.01. */
static void
test_autosized_rate(void)
{
	BloomShape	s;
	char		err[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;
	uint64_t	hits = 0;
	const uint64_t n = 100000,
				probes = 1000000;

	/* n chosen so the power of two is tight: 100000 * 9.59 / 2^20 = 0.91 */
	CHECK(bf_shape_datasized((double) n, &s, err));
	f = calloc(1, bf_struct_bytes(s.nbits));
	bf_init(f, &s);
	fill(f, 0, n);
	for (uint64_t i = 0; i < probes; i++)
		hits += bf_query(f, value(n + 1 + i));
	CHECK((double) hits / probes < 0.01);
	CHECK(bf_estimate_fpp(f) < 0.01);
	free(f);
}

int
main(void)
{
	RUN(test_autosized_shape);
	RUN(test_fold_exact);
	RUN(test_union_intersect_folded);
	RUN(test_foldable_rules);
	RUN(test_autosized_rate);
	return unit_report("agg");
}
