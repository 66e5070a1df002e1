/*
 * test_hash_scheme.c
 *	  The false-positive rate of filters with independent positions (hash
 *	  schemes 2 and 3) against the rate asked for, across sizes and rates;
 *	  the floor of hash scheme 1 that made scheme 2 necessary; the statistics
 *	  of both against their measured rates; and the value hash of scheme 3:
 *	  full-range 64-bit values at the rate asked for, where hashing them
 *	  through 32 bits (schemes 1 and 2) leaves a floor of n / 2^32, and
 *	  the rules that keep scheme-3 hashes apart from the older ones.
 *
 *	  Values and probes are random 64-bit value hashes drawn from one
 *	  counter, so every run sees the same numbers.  Probes are values never
 *	  added (two 64-bit hashes colliding is below 2^-40 here).
 */
#include "unit.h"

#include "core/filter.h"
#include "core/scheme1.h"

static uint64_t counter = UINT64_C(0x6a09e667f3bcc908);

static BloomHash
random_value(void)
{
	counter += UINT64_C(0x9e3779b97f4a7c15);
	return bf_hash_derive(hash_int(counter));
}

/* A filter of this shape under this scheme, holding n random values. */
static BloomFilter *
filled(const BloomShape *shape, uint8_t scheme, long n)
{
	BloomFilter *f = unit_new_filter(shape);

	if (f == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	f->hash_scheme = scheme;	/* as a stored filter of that scheme has it */
	for (long i = 0; i < n; i++)
		bf_insert(f, random_value());
	return f;
}

static long
false_positives(const BloomFilter *f, long probes)
{
	long		hits = 0;

	for (long p = 0; p < probes; p++)
		hits += bf_query(f, random_value());
	return hits;
}

/*
 * The most false positives `probes` probes at rate `rate` give, short of
 * a 4-standard-deviation accident: expected + 4 sqrt(expected) + 2.
 */
static double
poisson_bound(double rate, double probes)
{
	double		expected = rate * probes;

	return expected + 4.0 * sqrt(expected) + 2.0;
}

/*
 * Scheme 2 meets the requested rate in every cell of n = 1 .. 10^6 values
 * and fpp = 1e-2 .. 1e-9, filters shaped as bloom_empty(n, fpp[, layout])
 * shapes them, n values added.  The probes per cell give about 1000 false
 * positives down to 1e-3 and 2 million probes below, so the bound is
 * within 13% of the rate for the high rates and, for the low ones, catches
 * any floor above about 4e-6 (scheme 1's, for n <= 10^3 and fpp <= 1e-5,
 * is 1e-5 to 1e-3).
 */
static void
check_grid(const char *layout_name)
{
	int			layout = bf_layout_from_name(layout_name);
	long		worst_n = 0;
	double		worst_fpp = 0,
				worst_ratio = 0;

	for (long n = 1; n <= 1000000; n *= 10)
		for (int decade = 2; decade <= 9; decade++)
		{
			double		fpp = pow(10.0, -decade);
			double		probes = fmin(fmax(1000.0 / fpp, 100000.0), 2000000.0);
			char		err[BLOOM_ERRBUF_SIZE];
			BloomShape	s;
			BloomFilter *f;
			long		hits;
			double		bound;

			CHECK(bf_shape_for((double) n, fpp, layout, &s, err));
			f = filled(&s, BLOOM_HASH_SCHEME_INDEPENDENT_WORDS, n);
			hits = false_positives(f, (long) probes);
			bound = poisson_bound(fpp, probes);
			if (!(hits <= bound))
				fprintf(stderr, "  %s n=%ld fpp=%g: %ld false positives in %.0f probes, bound %.1f\n",
						layout_name, n, fpp, hits, probes, bound);
			CHECK(hits <= bound);
			if (hits / bound > worst_ratio)
			{
				worst_ratio = hits / bound;
				worst_n = n;
				worst_fpp = fpp;
			}
			free(f);
		}
	fprintf(stderr, "  %s: closest to its bound n=%ld fpp=%g (%.0f%% of it)\n",
			layout_name, worst_n, worst_fpp, 100 * worst_ratio);
}

static void
test_scheme2_classic_grid(void)
{
	check_grid("classic");
}

static void
test_scheme2_blocked_grid(void)
{
	check_grid("blocked");
}

/*
 * Measured rate of `filters` filters of bloom_empty(capacity, fpp, layout)
 * holding n values each under `scheme`, and the mean of what
 * bf_estimate_fpp reports for them; both are printed.
 */
static void
measure_layout_cell(int layout, double capacity, double fpp, long n, uint8_t scheme,
					int filters, long probes, double *measured, double *reported)
{
	char		err[BLOOM_ERRBUF_SIZE];
	BloomShape	s;
	long		hits = 0;

	*reported = 0;
	if (!bf_shape_for(capacity, fpp, layout, &s, err))
	{
		fprintf(stderr, "%s\n", err);
		exit(2);
	}
	for (int i = 0; i < filters; i++)
	{
		BloomFilter *f = filled(&s, scheme, n);

		*reported += bf_estimate_fpp(f) / filters;
		hits += false_positives(f, probes);
		free(f);
	}
	*measured = (double) hits / ((double) probes * filters);
	fprintf(stderr, "  scheme %d, %s (%g, %g) holding %ld: measured %.3g, reported %.3g\n",
			scheme, bf_layout_name(layout), capacity, fpp, n, *measured, *reported);
}

static void
measure_cell(double capacity, double fpp, long n, uint8_t scheme, int filters,
			 long probes, double *measured, double *reported)
{
	measure_layout_cell(BLOOM_LAYOUT_CLASSIC, capacity, fpp, n, scheme, filters,
						probes, measured, reported);
}

/*
 * Why scheme 2 exists: a scheme-1 filter of bloom_empty(10, 1e-6) shape,
 * full, answers wrongly about 300 times more often than asked (the floor
 * does not shrink with k), and one of bloom_empty(10) holding one value
 * about 50000 times more often than fill^k says.  bf_estimate_fpp of
 * scheme 1 includes the floor, within 20%.
 */
static void
test_scheme1_floor_exists(void)
{
	double		measured,
				reported;

	measure_cell(10, 1e-6, 10, BLOOM_HASH_SCHEME_DOUBLE_HASHING, 40, 50000,
				 &measured, &reported);
	CHECK(measured * 2000000 > poisson_bound(1e-6, 2000000) * 10);
	CHECK(reported > 100 * 1e-6);
	CHECK_NEAR(measured / reported, 1.0, 0.2);

	/* the filter: bloom_add(bloom_empty(10), v), averaged over v */
	measure_cell(10, 0.01, 1, BLOOM_HASH_SCHEME_DOUBLE_HASHING, 4000, 2500,
				 &measured, &reported);
	CHECK(measured > 1e-5);
	CHECK_NEAR(measured / reported, 1.0, 0.2);
}

/* The same cells under scheme 2: no floor, and the estimate is fill^k. */
static void
test_scheme2_no_floor(void)
{
	double		measured,
				reported;

	measure_cell(10, 1e-6, 10, BLOOM_HASH_SCHEME_INDEPENDENT_WORDS, 40, 50000,
				 &measured, &reported);
	CHECK(measured * 2000000 <= poisson_bound(1e-6, 2000000));
	CHECK(reported < 1e-6);

	measure_cell(10, 0.01, 1, BLOOM_HASH_SCHEME_INDEPENDENT_WORDS, 4000, 2500,
				 &measured, &reported);
	CHECK(measured * 1e7 <= poisson_bound(reported, 1e7));

	/* rates high enough to compare: within 20% of bf_estimate_fpp */
	measure_cell(100, 1e-4, 100, BLOOM_HASH_SCHEME_INDEPENDENT_WORDS, 50, 100000,
				 &measured, &reported);
	CHECK_NEAR(measured / reported, 1.0, 0.2);
	measure_cell(10, 0.01, 10, BLOOM_HASH_SCHEME_INDEPENDENT_WORDS, 200, 10000,
				 &measured, &reported);
	CHECK_NEAR(measured / reported, 1.0, 0.2);
	/* and scheme 1 for the 100-value cell of the issue (1.94e-4 measured there) */
	measure_cell(100, 1e-4, 100, BLOOM_HASH_SCHEME_DOUBLE_HASHING, 50, 100000,
				 &measured, &reported);
	CHECK(measured > 1.5e-4);
	CHECK_NEAR(measured / reported, 1.0, 0.2);
}

/*
 * The blocked layout under scheme 1 draws positions 15.. from only two more
 * words, and half of all values repeat positions 7..13 there: with k = 21,
 * half of all values set at most 14 bits of their block, where 21
 * independent positions set fewer than 15 with probability below 1e-9.
 * bf_estimate_fpp tells the rate of each scheme within 20%, in a filter of
 * bloom_empty(100, 1e-9, 'blocked') shape (k = 22) holding 300 values
 * (blocks about half full, so that the rate shows in 5 million probes).
 */
static void
test_blocked_scheme1_repeats(void)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_BLOCKED, .nbits = BLOOM_BLOCK_BITS, .nhashes = 21};
	int			few[3] = {0, 0, 0};
	double		measured,
				reported;

	for (uint8_t scheme = 1; scheme <= 2; scheme++)
		for (int v = 0; v < 1000; v++)
		{
			BloomFilter *f = filled(&s, scheme, 1);

			few[scheme] += bf_bits_set(f) <= 14;
			free(f);
		}
	fprintf(stderr, "  blocked, k 21, one value: at most 14 bits set for %d of 1000 (scheme 1), %d (scheme 2)\n",
			few[1], few[2]);
	CHECK(few[1] >= 400 && few[1] <= 600);
	CHECK(few[2] == 0);

	for (uint8_t scheme = 1; scheme <= 2; scheme++)
	{
		measure_layout_cell(BLOOM_LAYOUT_BLOCKED, 100, 1e-9, 300, scheme, 20, 250000,
							&measured, &reported);
		CHECK_NEAR(measured / reported, 1.0, 0.2);
	}
}

/*
 * The floor model (scheme1.h) against filters of random bits: there only
 * the probes whose positions repeat count, and the model's first term alone
 * must match.  k = 7, fill 0.2, 1024 bits: about 0.06 / 1024 above fill^k.
 */
static void
test_scheme1_floor_model(void)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = 1024, .nhashes = 7};
	double		excess = 0;
	long		hits = 0;
	const int	filters = 50;
	const long	probes = 200000;

	for (int t = 0; t < filters; t++)
	{
		BloomFilter *f = unit_new_filter(&s);
		double		fill;

		f->hash_scheme = BLOOM_HASH_SCHEME_DOUBLE_HASHING;
		for (uint64_t b = 0; b < s.nbits; b++)
			if (hash_int(counter += 1) < UINT64_MAX / 5)
				f->words[b / 64] |= (uint64_t) 1 << (b % 64);
		fill = (double) bf_bits_set(f) / s.nbits;
		hits = false_positives(f, probes);
		excess += ((double) hits / probes - pow(fill, 7)) * s.nbits / filters;
		free(f);
	}
	fprintf(stderr, "  random bits, k 7, fill 0.2: floor x m measured %.4f\n", excess);
	/*
	 * filters of added values also show the retracing term, c(7, 0.2) n / m =
	 * 0.289 * 0.0319 = 0.0092 (scheme1.c's table); random bits do not
	 */
	CHECK_NEAR(excess, bf_scheme1_floor(0.2, 7) - 0.0092, 0.008);
	CHECK(bf_scheme1_floor(0.2, 2) == 0);
	CHECK(bf_scheme1_floor(0.0, 7) == 0);
	CHECK(bf_scheme1_floor(1.0, 7) == 0);
	CHECK_NEAR(bf_scheme1_floor(0.5, 20), 0.133 + 0.0031, 0.01);
}

/*
 * The README's promise: bloom_agg(value) answers wrongly at most 1% of the
 * time.  For each size 1 .. 20, 300 random sets in the data-sized filter
 * bloom_agg builds for them, 1000 probes each: the mean rate of each size
 * stays at most 1% plus four standard errors of that mean (taken from the
 * sets' own spread, which includes both the probes' noise and how the
 * rate of one set, its own fill^7, varies from set to set: the promise is
 * about the mean, and one set of 13 values can sit at 2%).  The exact
 * expected rates peak at 0.0069 (6 values in 64 bits) and 0.0095 (13 in
 * 128); the bound is then about 0.011.  Under scheme 1, 6 values measured
 * 1.2% and 13 values 1.3%.
 */
static void
test_datasized_promise(void)
{
	const int	sets = 300;
	const long	probes = 1000;
	double		worst = 0;
	long		worst_size = 0;

	for (long size = 1; size <= 20; size++)
	{
		char		err[BLOOM_ERRBUF_SIZE];
		BloomShape	s;
		double		sum = 0,
					sum_sq = 0,
					mean,
					std_error;

		CHECK(bf_shape_datasized((double) size, &s, err));
		for (int i = 0; i < sets; i++)
		{
			BloomFilter *f = filled(&s, BLOOM_HASH_SCHEME_INDEPENDENT_WORDS, size);
			double		rate = (double) false_positives(f, probes) / probes;

			sum += rate;
			sum_sq += rate * rate;
			free(f);
		}
		mean = sum / sets;
		std_error = sqrt(fmax(sum_sq / sets - mean * mean, 0) / (sets - 1));
		if (!(mean <= BLOOM_AUTO_FPP + 4 * std_error + 2.0 / (sets * probes)))
			fprintf(stderr, "  %ld values: mean rate %.4f, standard error %.4f\n",
					size, mean, std_error);
		CHECK(mean <= BLOOM_AUTO_FPP + 4 * std_error + 2.0 / (sets * probes));
		if (mean > worst)
		{
			worst = mean;
			worst_size = size;
		}
	}
	fprintf(stderr, "  highest mean rate: %.4f at %ld values\n", worst, worst_size);
}

/* ---- scheme 3: the value hash of wide quantities ---- */

/*
 * A stand-in for hashint8extended: the high half folded into the low half,
 * then a hash of the 32 bits.  Any two values whose folds agree collide.
 */
static uint64_t
folded_hash(int64_t v, uint64_t seed)
{
	uint32_t	lo = (uint32_t) v,
				hi = (uint32_t) ((uint64_t) v >> 32);

	lo ^= v >= 0 ? hi : ~hi;
	return hash_int_seeded(lo, seed);
}

/* The value hash of a 64-bit quantity under a scheme, with the stand-in. */
static uint64_t
wide_value_hash(int64_t v, uint64_t seed, uint8_t scheme)
{
	if (bf_scheme_wide(scheme) && bf_hash_wide_needed(v))
		return bf_hash_wide64((uint64_t) v, seed);
	return folded_hash(v, seed);
}

/*
 * False positives of a filter of bloom_empty(n, fpp) shape holding n
 * quantities drawn by next(), probed with `probes` others, under scheme.
 */
static long
wide_false_positives(long n, double fpp, long probes, uint8_t scheme,
					 int64_t (*next) (void))
{
	char		err[BLOOM_ERRBUF_SIZE];
	BloomShape	s;
	BloomFilter *f;
	long		hits = 0;

	CHECK(bf_shape_for((double) n, fpp, BLOOM_LAYOUT_CLASSIC, &s, err));
	f = unit_new_filter(&s);
	f->hash_scheme = scheme;
	for (long i = 0; i < n; i++)
		bf_insert(f, bf_hash_derive(wide_value_hash(next(), s.seed, scheme)));
	for (long p = 0; p < probes; p++)
		hits += bf_query(f, bf_hash_derive(wide_value_hash(next(), s.seed, scheme)));
	free(f);
	return hits;
}

/* Random bigints over the whole 64-bit range (snowflake ids, hashes). */
static int64_t
next_full_range(void)
{
	counter += UINT64_C(0x9e3779b97f4a7c15);
	return (int64_t) hash_int(counter);
}

/*
 * Timestamps: microseconds since 2000 of random instants between 2000 and
 * 2068, at whole milliseconds (event times as stored).
 */
static int64_t
next_timestamp(void)
{
	counter += UINT64_C(0x9e3779b97f4a7c15);
	return (int64_t) (hash_int(counter) % (UINT64_C(1) << 41)) * 1000;
}

/*
 * 10^5 full-range bigints or timestamps in a filter for (10^5, 1e-6): under
 * scheme 3 the rate in 4 million probes stays within the Poisson bound of
 * 1e-6; hashed through 32 bits it is about n / 2^32 = 2.3e-5 above it,
 * the floor the issue measured (2.5e-4 at n = 10^6).
 */
static void
test_scheme3_wide_values(void)
{
	const long	n = 100000,
				probes = 4000000;
	int64_t		(*draws[]) (void) = {next_full_range, next_timestamp};
	const char *names[] = {"full-range bigints", "timestamps"};

	for (int d = 0; d < 2; d++)
	{
		long		wide = wide_false_positives(n, 1e-6, probes, BLOOM_HASH_SCHEME_WIDE_VALUES,
												draws[d]);
		long		folded = wide_false_positives(n, 1e-6, probes,
												  BLOOM_HASH_SCHEME_INDEPENDENT_WORDS, draws[d]);

		fprintf(stderr, "  %s, (1e5, 1e-6), 4e6 probes: scheme 3 %ld false positives (rate %.2g), through 32 bits %ld (%.2g)\n",
				names[d], wide, (double) wide / probes, folded, (double) folded / probes);
		CHECK(wide <= poisson_bound(1e-6, probes));
		CHECK(folded > poisson_bound(1e-6 + 0.5 * n / 4294967296.0, probes) / 2);
	}
}

/* bf_int128_mul_add against the compiler's 128-bit arithmetic. */
static void
test_int128_mul_add(void)
{
#ifdef __SIZEOF_INT128__
	const int64_t edges[] = {0, 1, -1, 30, 86400000000, INT32_MAX, INT32_MIN,
	INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1};
	const int	nedges = sizeof(edges) / sizeof(edges[0]);
	long		wrong = 0;

	for (int t = 0; t < 100000 + nedges * nedges * nedges; t++)
	{
		int64_t		a,
					b,
					c;
		__int128	want;
		BfInt128	got;

		if (t < nedges * nedges * nedges)
		{
			a = edges[t % nedges];
			b = edges[t / nedges % nedges];
			c = edges[t / nedges / nedges];
		}
		else
		{
			a = (int64_t) hash_int(counter += 1);
			b = (int64_t) hash_int(counter += 1) >> (t % 64);
			c = (int64_t) hash_int(counter += 1);
		}
		want = (__int128) a * b + c;
		got = bf_int128_mul_add(a, b, c);
		wrong += got.lo != (uint64_t) want || got.hi != (int64_t) (want >> 64);
	}
	CHECK(wrong == 0);
#endif
}

/* A filter of this layout and scheme holding the value hashes given. */
static BloomFilter *
scheme_filter(int layout, uint8_t scheme, const uint64_t *hashes, int n)
{
	BloomShape	s;
	BloomFilter *f;
	char		err[BLOOM_ERRBUF_SIZE];
	BfBuilder	b;

	if (layout == BLOOM_LAYOUT_EXPLICIT)
		bf_explicit_shape((uint64_t) n, 0, &s);
	else
		CHECK(bf_shape_datasized(n, &s, err));
	f = unit_new_filter(&s);
	f->hash_scheme = scheme;
	f->flags = BLOOM_FLAG_AUTOSIZED;
	bf_builder_start(&b, f);
	for (int i = 0; i < n; i++)
		bf_builder_add(&b, hashes[i]);
	bf_builder_finish(&b);
	return f;
}

/*
 * Set operations: scheme 3 never combines with schemes 1 and 2, lists and
 * empty filters included (a list of scheme 2 holds the type's extended
 * hashes, one of scheme 3 the wide ones); schemes 1 and 2 keep combining
 * where they did (lists with bit arrays of either); a merged list takes
 * the newest scheme of its kind of hashes, so lists of scheme 2 stay
 * scheme 2 when they become a bit array.
 */
static void
test_scheme_mixing(void)
{
	uint64_t	hashes[300];
	BloomFilter *f[4][2];		/* [scheme][0 list of 3, 1 bit array] */
	char		err[BLOOM_ERRBUF_SIZE];
	BfSetop		op;

	for (int i = 0; i < 300; i++)
		hashes[i] = hash_int(counter += 1);
	/* ascending, as lists keep them */
	for (int i = 1; i < 300; i++)
		for (int j = i; j > 0 && hashes[j - 1] > hashes[j]; j--)
		{
			uint64_t	t = hashes[j];

			hashes[j] = hashes[j - 1];
			hashes[j - 1] = t;
		}
	for (uint8_t scheme = 1; scheme <= 3; scheme++)
	{
		f[scheme][0] = scheme_filter(BLOOM_LAYOUT_EXPLICIT, scheme, hashes, 3);
		f[scheme][1] = scheme_filter(BLOOM_LAYOUT_CLASSIC, scheme, hashes + 3, 297);
	}
	for (int a = 1; a <= 3; a++)
		for (int b = 1; b <= 3; b++)
			for (int ka = 0; ka < 2; ka++)
				for (int kb = 0; kb < 2; kb++)
				{
					bool		same_kind = (a == 3) == (b == 3);
					/* bit arrays need one scheme; lists combine within a kind */
					bool		expect = same_kind && (a == b || ka == 0 || kb == 0);

					CHECK(bf_compatible(f[a][ka], f[b][kb], err) == expect);
					if (!same_kind)
						CHECK(strstr(err, "hash scheme") != NULL);
				}
	/* empty data-sized filters too: the rule does not look at contents */
	{
		BloomFilter *empty2 = scheme_filter(BLOOM_LAYOUT_EXPLICIT, 2, hashes, 0);
		BloomFilter *empty3 = scheme_filter(BLOOM_LAYOUT_EXPLICIT, 3, hashes, 0);

		CHECK(!bf_compatible(empty2, f[3][1], err));
		CHECK(!bf_compatible(f[2][0], empty3, err));
		CHECK(bf_compatible(empty2, f[1][1], err));
		CHECK(bf_compatible(empty3, f[3][0], err));
		free(empty2);
		free(empty3);
	}
	/* lists of 3 + 297 hashes merged: past the list maximum, a bit array */
	for (uint8_t scheme = 1; scheme <= 3; scheme++)
	{
		BloomFilter *big = scheme_filter(BLOOM_LAYOUT_EXPLICIT, scheme, hashes + 3, 237);
		BloomFilter *merged;

		CHECK(bf_setop_plan(f[scheme][0], big, false, &op, err));
		CHECK(op.kind == BF_SETOP_MERGE_LISTS);
		merged = calloc(1, op.bytes);
		bf_setop_build(merged, f[scheme][0], big, &op);
		CHECK_EQ_U64(merged->hash_scheme, scheme == 3 ? 3 : 2);
		CHECK(bf_contains_value(merged, hashes[0]) && bf_contains_value(merged, hashes[239]));
		free(merged);
		/* an intersection keeps the list's kind of hashes */
		CHECK(bf_setop_plan(f[scheme][0], big, true, &op, err));
		merged = calloc(1, op.bytes);
		bf_setop_build(merged, f[scheme][0], big, &op);
		CHECK_EQ_U64(merged->hash_scheme, scheme == 3 ? 3 : 2);
		free(merged);
		free(big);
	}
	for (int scheme = 1; scheme <= 3; scheme++)
	{
		free(f[scheme][0]);
		free(f[scheme][1]);
	}
}

int
main(void)
{
	RUN(test_scheme2_classic_grid);
	RUN(test_scheme2_blocked_grid);
	RUN(test_scheme1_floor_exists);
	RUN(test_scheme2_no_floor);
	RUN(test_blocked_scheme1_repeats);
	RUN(test_scheme1_floor_model);
	RUN(test_datasized_promise);
	RUN(test_scheme3_wide_values);
	RUN(test_int128_mul_add);
	RUN(test_scheme_mixing);
	return unit_report("hash_scheme");
}
