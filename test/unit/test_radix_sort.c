/*
 * test_radix_sort.c
 *	  Unit tests of the radix sort of 64-bit words (src/core/radix_sort.c),
 *	  in place and with scratch room, against qsort, over random and
 *	  adversarial inputs (all equal, sorted, reverse, few distinct values,
 *	  narrow and high-bit-only ranges, values at digit boundaries) of sizes
 *	  around its thresholds; and of the tail-sorting merge of the hash
 *	  records (bf_records_sort_unique_in), with and without room.
 */
#include "unit.h"

#include "core/hash_records.h"
#include "core/radix_sort.h"

static uint64_t rng_counter = 12345;

/* Deterministic test data: the stand-in hash of a counter. */
static uint64_t
rng(void)
{
	return hash_int(rng_counter++);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

/* Values on both sides of the digits' edges (11-, 8- and 4-bit digits). */
static uint64_t
edge_value(void)
{
	int			bit = (int) (rng() % 64);
	uint64_t	v = UINT64_C(1) << bit;

	switch (rng() % 4)
	{
		case 0:
			return v;
		case 1:
			return v - 1;
		case 2:
			return ~(v - 1);
		default:
			return rng() % 2 ? 0 : UINT64_MAX;
	}
}

enum
{
	P_RANDOM, P_EQUAL_ZERO, P_EQUAL_MAX, P_EQUAL, P_SORTED, P_REVERSE, P_FEW,
	P_THOUSAND, P_NARROW, P_HIGH_ONLY, P_EDGES, P_ORGAN, P_TWO, NPATTERNS
};

static const char *const pattern_names[NPATTERNS] = {
	"random", "all 0", "all max", "all equal", "sorted", "reverse", "3 distinct",
	"1000 distinct", "narrow range", "high bits only", "digit edges", "organ pipe",
	"two alternating"
};

static void
fill(uint64_t *a, size_t n, int pattern)
{
	uint64_t	base = rng();

	for (size_t i = 0; i < n; i++)
	{
		switch (pattern)
		{
			case P_RANDOM:
				a[i] = rng();
				break;
			case P_EQUAL_ZERO:
				a[i] = 0;
				break;
			case P_EQUAL_MAX:
				a[i] = UINT64_MAX;
				break;
			case P_EQUAL:
				a[i] = base;
				break;
			case P_SORTED:
				a[i] = base + 3 * i;
				break;
			case P_REVERSE:
				a[i] = UINT64_MAX - 7 * i;
				break;
			case P_FEW:
				a[i] = base ^ (rng() % 3);
				break;
			case P_THOUSAND:
				a[i] = (rng() % 1000) * UINT64_C(0x9e3779b97f4a7c15);
				break;
			case P_NARROW:
				a[i] = base + rng() % 64;
				break;
			case P_HIGH_ONLY:
				a[i] = rng() & UINT64_C(0xffe0000000000000);
				break;
			case P_EDGES:
				a[i] = edge_value();
				break;
			case P_ORGAN:
				a[i] = i < n / 2 ? i : n - i;
				break;
			case P_TWO:
				a[i] = i % 2 ? base : ~base;
				break;
		}
	}
}

/*
 * Sorts a copy of a[0..n) in place and with scratch; both must equal
 * qsort's, the scratch must not be written past n, nor the array past n.
 */
static bool
sorts_like_qsort(const uint64_t *a, size_t n)
{
	const uint64_t canary = UINT64_C(0xdeadbeefdeadbeef);
	uint64_t   *ref = malloc(sizeof(uint64_t) * (n + 1));
	uint64_t   *inplace = malloc(sizeof(uint64_t) * (n + 1));
	uint64_t   *apart = malloc(sizeof(uint64_t) * (n + 1));
	uint64_t   *scratch = malloc(sizeof(uint64_t) * (n + 1));
	bool		ok;

	memcpy(ref, a, sizeof(uint64_t) * n);
	memcpy(inplace, a, sizeof(uint64_t) * n);
	memcpy(apart, a, sizeof(uint64_t) * n);
	for (size_t i = 0; i < n; i++)
		scratch[i] = rng();		/* its contents do not matter */
	inplace[n] = apart[n] = scratch[n] = canary;
	qsort(ref, n, sizeof(uint64_t), cmp_u64);
	bf_radix_sort_u64(inplace, n, NULL);
	bf_radix_sort_u64(apart, n, scratch);
	ok = memcmp(ref, inplace, sizeof(uint64_t) * n) == 0 &&
		memcmp(ref, apart, sizeof(uint64_t) * n) == 0 &&
		inplace[n] == canary && apart[n] == canary && scratch[n] == canary;
	free(ref);
	free(inplace);
	free(apart);
	free(scratch);
	return ok;
}

static void
test_radix_patterns(void)
{
	/* around the insertion-sort threshold (24), the digit widths' steps, 2^16 */
	const size_t sizes[] = {0, 1, 2, 15, 16, 17, 23, 24, 25, 26, 63, 64, 65, 100, 255,
	256, 257, 1000, 4095, 4097, 65535, 65536, 65537, 300000};

	for (int p = 0; p < NPATTERNS; p++)
	{
		bool		ok = true;

		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		{
			uint64_t   *a = malloc(sizeof(uint64_t) * (sizes[s] + 1));

			fill(a, sizes[s], p);
			if (!sorts_like_qsort(a, sizes[s]))
			{
				fprintf(stderr, "radix sort differs from qsort: %s, n = %zu\n",
						pattern_names[p], sizes[s]);
				ok = false;
			}
			free(a);
		}
		CHECK(ok);
	}
}

/* Large uniform input: two levels of 11-bit digits, as the build sorts. */
static void
test_radix_large(void)
{
	size_t		n = 3000000;
	uint64_t   *a = malloc(sizeof(uint64_t) * n);

	fill(a, n, P_RANDOM);
	CHECK(sorts_like_qsort(a, n));
	/* every value shares the top 40 bits: the counting passes skip them */
	for (size_t i = 0; i < n; i++)
		a[i] = (UINT64_C(0xabcdef1234) << 24) | (rng() & 0xffffff);
	CHECK(sorts_like_qsort(a, n));
	free(a);
}

/* The reference: a[0..n) sorted and deduplicated by qsort (width 1). */
static size_t
ref_sort_unique(uint64_t *a, size_t n)
{
	size_t		out = 0;

	qsort(a, n, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (out == 0 || a[i] != a[out - 1])
			a[out++] = a[i];
	return out;
}

/*
 * A sorted distinct prefix of np values and a tail of nt (overlapping it
 * when overlap), in an array of cap records: bf_records_sort_unique_in
 * must give the reference's set and leave recs[cap] alone.
 */
static bool
sort_unique_in_agrees(size_t np, size_t nt, size_t extra_room, bool overlap, int pattern)
{
	const uint64_t canary = UINT64_C(0x5a5a5a5a5a5a5a5a);
	size_t		n,
				cap,
				got,
				want;
	uint64_t   *recs,
			   *ref;
	bool		ok;

	recs = malloc(sizeof(uint64_t) * (np + nt + extra_room + 1));
	ref = malloc(sizeof(uint64_t) * (np + nt + 1));
	fill(recs, np, pattern);
	np = ref_sort_unique(recs, np);
	fill(recs + np, nt, pattern);
	if (overlap)
		for (size_t i = 0; i < nt && np > 0; i += 2)
			recs[np + i] = recs[rng() % np];
	n = np + nt;
	cap = n + extra_room;
	for (size_t i = n; i < cap; i++)
		recs[i] = rng();		/* scratch: contents do not matter */
	recs[cap] = canary;
	memcpy(ref, recs, sizeof(uint64_t) * n);
	want = ref_sort_unique(ref, n);
	got = bf_records_sort_unique_in(recs, np, n, cap, 1);
	ok = got == want && memcmp(recs, ref, sizeof(uint64_t) * want) == 0 && recs[cap] == canary;
	free(recs);
	free(ref);
	return ok;
}

static void
test_sort_unique_in(void)
{
	const size_t prefixes[] = {0, 1, 17, 1000, 50000};
	const size_t tails[] = {0, 1, 16, 25, 999, 60000};
	const int	patterns[] = {P_RANDOM, P_FEW, P_THOUSAND, P_EQUAL, P_SORTED, P_REVERSE, P_EDGES};
	bool		ok = true;

	for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++)
		for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++)
			for (size_t q = 0; q < sizeof(patterns) / sizeof(patterns[0]); q++)
			{
				size_t		nt = tails[t];

				/* no room; one short of the scratch; exactly it; plenty */
				ok &= sort_unique_in_agrees(prefixes[p], nt, 0, true, patterns[q]);
				ok &= sort_unique_in_agrees(prefixes[p], nt, nt > 0 ? nt - 1 : 0, true, patterns[q]);
				ok &= sort_unique_in_agrees(prefixes[p], nt, nt, true, patterns[q]);
				ok &= sort_unique_in_agrees(prefixes[p], nt, 3 * nt + 5, false, patterns[q]);
			}
	CHECK(ok);
}

/* Records of two words take the comparison sort and the generic merge. */
static void
test_sort_unique_in_wide(void)
{
	enum
	{
		NP = 300, NT = 200
	};
	uint64_t	recs[(NP + 3 * NT) * 2];
	size_t		np,
				n,
				got,
				want;
	bool		ok = true;

	for (int room = 0; room <= 2 * NT; room += NT)
	{
		uint64_t	ref[(NP + NT) * 2];

		for (size_t i = 0; i < NP * 2; i++)
			recs[i] = rng() % 50;
		np = bf_records_sort_unique(recs, 0, NP, 2);
		for (size_t i = 0; i < NT * 2; i++)
			recs[np * 2 + i] = rng() % 50;
		n = np + NT;
		memcpy(ref, recs, sizeof(uint64_t) * n * 2);
		want = bf_records_sort_unique(ref, 0, n, 2);
		got = bf_records_sort_unique_in(recs, np, n, n + room, 2);
		ok &= got == want && memcmp(recs, ref, sizeof(uint64_t) * 2 * want) == 0;
	}
	CHECK(ok);
}

int
main(void)
{
	RUN(test_radix_patterns);
	RUN(test_radix_large);
	RUN(test_sort_unique_in);
	RUN(test_sort_unique_in_wide);
	return unit_report("radix_sort");
}
