/*
 * test_hash_scheme.c
 *	  The false-positive rate of new filters (hash scheme 2) against the
 *	  rate asked for, across sizes and rates; the floor of hash scheme 1
 *	  that made scheme 2 necessary; and the statistics of both schemes
 *	  against their measured rates.
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
	return unit_report("hash_scheme");
}
