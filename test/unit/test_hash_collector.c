/*
 * test_hash_collector.c
 *	  Unit tests of the hash records (src/core/hash_records.c): sorting,
 *	  deduplication, the merge heap and the packed form of the distinct-hash
 *	  collector.
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
	/* many duplicates */
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

/* ---- the packed form ---- */

/* Packs n ascending records, unpacks them in chunks of chunk; *bytes is the packed size. */
static bool
pack_round_trip(const uint64_t *recs, size_t n, int width, size_t chunk, size_t *bytes)
{
	size_t		cap = bf_pack_bound(n, width);
	uint8_t    *out = malloc(cap);
	uint64_t   *block = malloc(sizeof(uint64_t) * BF_PACK_BLOCK * width);
	uint64_t   *back = malloc(sizeof(uint64_t) * (n + 1) * width);
	BfPackWriter w;
	BfPackReader r;
	size_t		got = 0;
	bool		ok;

	bf_pack_init(&w, width, block, out, cap);
	for (size_t i = 0; i < n; i++)
		bf_pack_add(&w, recs + i * width);
	ok = bf_pack_finish(&w) && w.len <= cap && w.count == n;
	*bytes = w.len;
	bf_unpack_init(&r, out, w.len, width, n);
	for (;;)
	{
		int64_t		m = bf_unpack(&r, back + got * width, chunk);

		if (m <= 0)
		{
			ok &= m == 0;
			break;
		}
		got += (size_t) m;
	}
	ok &= got == n && bf_unpack_done(&r);
	ok &= n == 0 || memcmp(back, recs, sizeof(uint64_t) * n * width) == 0;
	free(out);
	free(block);
	free(back);
	return ok;
}

/* n distinct random hashes of width 1, sorted. */
static uint64_t *
sorted_hashes(size_t n, size_t *distinct)
{
	uint64_t   *a = malloc(sizeof(uint64_t) * (n + 1));

	for (size_t i = 0; i < n; i++)
		a[i] = rng();
	*distinct = bf_records_sort_unique(a, 0, n, 1);
	return a;
}

static void
test_pack_uniform(void)
{
	size_t		sizes[] = {0, 1, 2, 127, 128, 129, 1000, 100000, 1000000};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		size_t		n,
					bytes;
		uint64_t   *a = sorted_hashes(sizes[i], &n);

		CHECK(pack_round_trip(a, n, 1, 1000, &bytes));
		CHECK(bytes <= bf_pack_bound(n, 1));
		if (n >= 100000)
		{
			/* about 64 - log2(n) + 1.8 bits each: 5.93 bytes at 10^5, 5.51 at 10^6 */
			double		expect = (64.0 - log2((double) n) + 2.0) / 8.0;

			CHECK((double) bytes / n <= expect);
			CHECK((double) bytes / n >= expect - 0.5);
		}
		free(a);
	}
}

/* Distributions far from uniform still round-trip within the bound. */
static void
test_pack_skewed(void)
{
	enum
	{
		N = 5000
	};
	uint64_t   *a = malloc(sizeof(uint64_t) * N);
	size_t		bytes;

	/* consecutive integers: gaps of 1, k = 0 */
	for (size_t i = 0; i < N; i++)
		a[i] = i;
	CHECK(pack_round_trip(a, N, 1, 7, &bytes));
	CHECK(bytes <= bf_pack_bound(N, 1));
	CHECK(bytes < N / 2);		/* 2 bits each */
	/* the extremes of the range, and one huge gap after dense values */
	for (size_t i = 0; i < N - 2; i++)
		a[i] = i * 3;
	a[N - 2] = UINT64_C(1) << 63;
	a[N - 1] = UINT64_MAX;
	CHECK(pack_round_trip(a, N, 1, N, &bytes));
	CHECK(bytes <= bf_pack_bound(N, 1));
	/* clusters: runs of close values far apart */
	for (size_t i = 0; i < N; i++)
		a[i] = (i / 100) * (UINT64_MAX / 64) + (i % 100);
	CHECK(pack_round_trip(a, N, 1, 100, &bytes));
	CHECK(bytes <= bf_pack_bound(N, 1));
	/* geometric growth: every gap twice the last */
	for (size_t i = 0; i < 64; i++)
		a[i] = (UINT64_C(1) << i) - 1;
	CHECK(pack_round_trip(a, 64, 1, 64, &bytes));
	CHECK(bytes <= bf_pack_bound(64, 1));
	free(a);
}

/* Wide records (multibloom): word 0 repeats, the other words differ. */
static void
test_pack_wide(void)
{
	enum
	{
		N = 3000, W = 4
	};
	uint64_t   *a = malloc(sizeof(uint64_t) * N * W);
	size_t		n,
				bytes;

	for (size_t i = 0; i < N; i++)
	{
		a[i * W] = i < 1000 ? 0 : rng() % 50;	/* NULL first attributes hash to 0 */
		for (int j = 1; j < W; j++)
			a[i * W + j] = rng();
	}
	n = bf_records_sort_unique(a, 0, N, W);
	CHECK(pack_round_trip(a, n, W, 33, &bytes));
	CHECK(bytes <= bf_pack_bound(n, W));
	free(a);
}

/* What the writer refuses and what the reader rejects. */
static void
test_pack_errors(void)
{
	uint64_t	block[BF_PACK_BLOCK * 2];
	uint64_t	recs[300],
				back[300],
				wide[4] = {5, 1, 5, 1};
	uint8_t		out[4096];
	BfPackWriter w;
	BfPackReader r;
	size_t		len;
	bool		damaged_ok = true;

	/* not ascending, duplicates, wide duplicates, too little room */
	bf_pack_init(&w, 1, block, out, sizeof(out));
	bf_pack_add(&w, (uint64_t[]) {5});
	bf_pack_add(&w, (uint64_t[]) {4});
	CHECK(!bf_pack_finish(&w));
	bf_pack_init(&w, 1, block, out, sizeof(out));
	bf_pack_add(&w, (uint64_t[]) {5});
	bf_pack_add(&w, (uint64_t[]) {5});
	CHECK(!bf_pack_finish(&w));
	bf_pack_init(&w, 2, block, out, sizeof(out));
	bf_pack_add(&w, wide);
	bf_pack_add(&w, wide + 2);
	CHECK(!bf_pack_finish(&w));
	for (size_t i = 0; i < 300; i++)
		recs[i] = (uint64_t) i << 54 | rng() >> 10;	/* ascending */
	bf_pack_init(&w, 1, block, out, 100);
	for (size_t i = 0; i < 300; i++)
		bf_pack_add(&w, recs + i);
	CHECK(!bf_pack_finish(&w));

	/* a good stream, then damaged copies of it */
	bf_pack_init(&w, 1, block, out, sizeof(out));
	for (size_t i = 0; i < 300; i++)
		bf_pack_add(&w, recs + i);
	CHECK(bf_pack_finish(&w));
	len = w.len;
	bf_unpack_init(&r, out, len, 1, 300);
	CHECK(bf_unpack(&r, back, 300) == 300 && bf_unpack_done(&r));
	/* truncated */
	bf_unpack_init(&r, out, len - 1, 1, 300);
	CHECK(bf_unpack(&r, back, 300) < 0 || !bf_unpack_done(&r));
	/* a trailing byte */
	out[len] = 0;
	bf_unpack_init(&r, out, len + 1, 1, 300);
	CHECK(bf_unpack(&r, back, 300) == 300 && !bf_unpack_done(&r));
	/* more records claimed than held; fewer */
	bf_unpack_init(&r, out, len, 1, 301);
	CHECK(bf_unpack(&r, back, 300) == 300 && bf_unpack(&r, back, 1) < 0);
	bf_unpack_init(&r, out, len, 1, 299);
	CHECK(bf_unpack(&r, back, 300) == 299 && !bf_unpack_done(&r));
	/* all zeros: one long unary number, then the end */
	memset(out, 0, 64);
	bf_unpack_init(&r, out, 64, 1, 2);
	CHECK(bf_unpack(&r, back, 2) < 0);
	/* random damage: never more records than room, never a crash */
	for (int t = 0; t < 2000; t++)
	{
		bool		ascending = true;
		uint8_t		copy[4096];
		int64_t		m;

		memcpy(copy, out, len);
		bf_pack_init(&w, 1, block, copy, sizeof(copy));
		for (size_t i = 0; i < 300; i++)
			bf_pack_add(&w, recs + i);
		bf_pack_finish(&w);
		copy[rng() % len] ^= (uint8_t) (1 << (rng() % 8));
		bf_unpack_init(&r, copy, len, 1, 300);
		m = bf_unpack(&r, back, 300);
		for (int64_t i = 1; i < m; i++)
			ascending &= back[i - 1] < back[i];
		damaged_ok &= m <= 300 && ascending;
	}
	CHECK(damaged_ok);
}

int
main(void)
{
	RUN(test_sort_width1);
	RUN(test_sort_wide);
	RUN(test_sort_sorted_inputs);
	RUN(test_merge_heap);
	RUN(test_pack_uniform);
	RUN(test_pack_skewed);
	RUN(test_pack_wide);
	RUN(test_pack_errors);
	return unit_report("hash_collector");
}
