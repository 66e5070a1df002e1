/*
 * test_hash_collector.c
 *	  Unit tests of the hash records (src/core/hash_records.c): sorting,
 *	  deduplication and the merge heap of the distinct-hash collector.
 */
#include "unit.h"

#include "core/hash_records.h"

static uint64_t rng_state = 0x1234567887654321ULL;

static uint64_t
rng(void)
{
	/* xorshift64*: deterministic test data */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

static int	cmp_width;

static int
qsort_cmp(const void *a, const void *b)
{
	return bf_record_cmp(a, b, cmp_width);
}

/* Sorts with the collector and with qsort; both must agree. */
static bool
sort_agrees(size_t n, int width, uint64_t distinct)
{
	uint64_t   *a = malloc(n * width * 8 + 8);
	uint64_t   *b = malloc(n * width * 8 + 8);
	size_t		ua,
				ub;
	bool		ok;

	for (size_t i = 0; i < n * width; i++)
		a[i] = distinct ? rng() % distinct : rng();
	memcpy(b, a, n * width * 8);
	bf_records_sort(a, n, width);
	cmp_width = width;
	qsort(b, n, width * 8, qsort_cmp);
	ok = memcmp(a, b, n * width * 8) == 0;
	ua = bf_records_unique(a, n, width);
	/* reference dedup */
	ub = 0;
	for (size_t i = 0; i < n; i++)
		if (ub == 0 || bf_record_cmp(b + i * width, b + (ub - 1) * width, width) != 0)
			memmove(b + (ub++) * width, b + i * width, width * 8);
	ok &= ua == ub && memcmp(a, b, ua * width * 8) == 0;
	for (size_t i = 1; i < ua; i++)
		ok &= bf_record_cmp(a + (i - 1) * width, a + i * width, width) < 0;
	free(a);
	free(b);
	return ok;
}

static void
test_sort_width1(void)
{
	CHECK(sort_agrees(0, 1, 0));
	CHECK(sort_agrees(1, 1, 0));
	CHECK(sort_agrees(17, 1, 0));
	CHECK(sort_agrees(100000, 1, 0));
	/* many duplicates: the three-way partition keeps this fast */
	CHECK(sort_agrees(200000, 1, 3));
	CHECK(sort_agrees(100000, 1, 1000));
	CHECK(sort_agrees(100000, 1, 1));
}

static void
test_sort_wide(void)
{
	CHECK(sort_agrees(1, 3, 0));
	CHECK(sort_agrees(5000, 3, 0));
	CHECK(sort_agrees(5000, 3, 2));
	CHECK(sort_agrees(5000, 2, 5));
	CHECK(sort_agrees(3000, 9, 2));
}

static void
test_sort_sorted_inputs(void)
{
	uint64_t   *a = malloc(100000 * 8);
	bool		ok = true;
	size_t		n;

	/* already sorted, reverse sorted, and a sorted prefix with a tail */
	for (size_t i = 0; i < 100000; i++)
		a[i] = i;
	bf_records_sort(a, 100000, 1);
	for (size_t i = 0; i < 100000; i++)
		ok &= a[i] == i;
	for (size_t i = 0; i < 100000; i++)
		a[i] = 100000 - i;
	bf_records_sort(a, 100000, 1);
	for (size_t i = 0; i < 100000; i++)
		ok &= a[i] == i + 1;
	CHECK(ok);

	for (size_t i = 0; i < 1000; i++)
		a[i] = 2 * i;
	for (size_t i = 1000; i < 2000; i++)
		a[i] = i - 1000;		/* 0..999: half duplicates of the prefix */
	n = bf_records_sort_unique(a, 1000, 2000, 1);
	CHECK_EQ_U64(n, 1500);		/* evens 0..1998 plus odds 1..999 */
	CHECK_EQ_U64(bf_records_sort_unique(a, n, n, 1), n);
	free(a);
}

/* Merges sorted arrays with the heap, dropping duplicates like the host. */
static void
test_merge_heap(void)
{
	enum
	{
		NSRC = 7, LEN = 500
	};
	uint64_t	src[NSRC][LEN];
	size_t		pos[NSRC];
	int			heapbuf[NSRC];
	const uint64_t *cur[NSRC];
	BfMergeHeap h;
	uint64_t	last = 0;
	size_t		out = 0;
	bool		sorted = true;
	bool		have_last = false;

	for (int s = 0; s < NSRC; s++)
	{
		for (int i = 0; i < LEN; i++)
			src[s][i] = rng() % 2000;
		bf_records_sort(src[s], LEN, 1);
		pos[s] = 0;
	}
	h.width = 1;
	h.heap = heapbuf;
	h.cur = cur;
	h.n = 0;
	for (int s = 0; s < NSRC; s++)
	{
		cur[s] = &src[s][0];
		heapbuf[h.n++] = s;
	}
	bf_merge_heap_build(&h);
	while (h.n > 0)
	{
		int			t = bf_merge_heap_top(&h);
		uint64_t	v = *cur[t];

		if (have_last && v < last)
			sorted = false;
		if (!have_last || v != last)
			out++;
		last = v;
		have_last = true;
		cur[t] = ++pos[t] < LEN ? &src[t][pos[t]] : NULL;
		bf_merge_heap_top_advanced(&h);
	}
	CHECK(sorted);

	/* the reference: everything in one array, sorted and deduplicated */
	{
		uint64_t   *all = malloc(sizeof(src));

		memcpy(all, src, sizeof(src));
		bf_records_sort(all, NSRC * LEN, 1);
		CHECK_EQ_U64(out, bf_records_unique(all, NSRC * LEN, 1));
		free(all);
	}
}

int
main(void)
{
	RUN(test_sort_width1);
	RUN(test_sort_wide);
	RUN(test_sort_sorted_inputs);
	RUN(test_merge_heap);
	return unit_report("hash_collector");
}
