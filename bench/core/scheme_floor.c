/*
 * scheme_floor.c
 *	  The false-positive rate of hash schemes 1 and 2, measured with the
 *	  extension's core, against what bloom_fpp reports (bf_estimate_fpp) and
 *	  against the rate asked for.  See bench/core/scheme_floor.sh, which writes
 *	  bench/results/scheme-floor-results.md.
 *
 *	  usage: scheme_floor model [budget]   scheme 1 across k, fill and m:
 *	                                       measured rate vs fill^k and vs
 *	                                       fill^k + bf_scheme1_floor/m
 *	         scheme_floor cells [budget]   the cells of bloom_empty(n, p),
 *	                                       classic and blocked, both schemes
 *	         scheme_floor table            computes the table of the stored-
 *	                                       value term in src/core/scheme1.c
 *
 *	  budget scales the number of probes (default 1).  Values and probes are
 *	  random 64-bit value hashes (the unit tests' hash_int of a counter), so
 *	  runs are reproducible.  A filter is built under scheme 1 by setting its
 *	  header byte after bf_init, as a stored scheme-1 filter has it.
 */
#include "unit.h"

#include "core/filter.h"
#include "core/scheme1.h"

static uint64_t counter = UINT64_C(0x2545f4914f6cdd1d);

static uint64_t
next_random(void)
{
	counter += UINT64_C(0x9e3779b97f4a7c15);
	return hash_int(counter);
}

typedef struct Measured
{
	double		rate;			/* false positives / probes */
	double		fill_k;			/* mean over the filters of fill^k */
	double		reported;		/* mean of bf_estimate_fpp */
	long		hits;
} Measured;

/*
 * `filters` filters of this shape and scheme, each with n random values,
 * each probed `probes` times with values never added (random 64-bit hashes:
 * one of them colliding with an added one has probability below 2^-40).
 */
static Measured
measure(const BloomShape *shape, uint8_t scheme, long n, int filters, long probes)
{
	Measured	r = {0, 0, 0, 0};

	for (int t = 0; t < filters; t++)
	{
		BloomFilter *f = unit_new_filter(shape);
		double		fill;

		f->hash_scheme = scheme;
		for (long i = 0; i < n; i++)
			bf_insert(f, bf_hash_derive(next_random()));
		fill = (double) bf_bits_set(f) / (double) f->nbits;
		r.fill_k += pow(fill, (double) f->nhashes) / filters;
		r.reported += bf_estimate_fpp(f) / filters;
		for (long p = 0; p < probes; p++)
			r.hits += bf_query(f, bf_hash_derive(next_random()));
		free(f);
	}
	r.rate = (double) r.hits / ((double) probes * filters);
	return r;
}

/* Probes for about `want` false positives at rate `rate`, within limits. */
static long
probes_for(double rate, double want, double budget, long lo, long hi)
{
	double		p = want / rate * budget;

	if (p < lo)
		return lo;
	if (p > hi * budget)
		return (long) (hi * budget);
	return (long) p;
}

static void
model_table(double budget)
{
	static const uint32_t ks[] = {3, 5, 7, 10, 14, 20, 27, 40};
	static const double fills[] = {0.05, 0.2, 0.5};
	static const uint64_t ms[] = {128, 1024, 8192};

	printf("## Scheme 1: measured rate against fill^k and against the floor model\n\n");
	printf("Each row: 65536/m (at least 8) classic filters of m bits and k hashes, filled\n");
	printf("with random values to about `fill`, probed with values never added.\n");
	printf("`reported` is what bloom_fpp now says, fill^k + bf_scheme1_floor(fill, k) / m;\n");
	printf("the last column is measured / reported (1 +- 2/sqrt(hits) is within noise).\n\n");
	printf("| k | m | fill | hits | measured | fill^k | reported | measured/reported |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
		for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); mi++)
			for (size_t fi = 0; fi < sizeof(fills) / sizeof(fills[0]); fi++)
			{
				uint32_t	k = ks[ki];
				uint64_t	m = ms[mi];
				double		fill = fills[fi];
				long		n = lround(-(double) m / k * log1p(-fill));
				BloomShape	s = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = m, .nhashes = k};
				double		guess = pow(fill, k) + bf_scheme1_floor(fill, k) / m;
				Measured	r;

				if (n < 1)
					continue;
				/* small filters differ more from one to the next: take more of them */
				int			filters = m < 8192 ? (int) (65536 / m) : 8;

				r = measure(&s, BLOOM_HASH_SCHEME_DOUBLE_HASHING, n, filters,
							probes_for(guess * filters, 3000, budget, 10000,
									   200000000 / filters));
				printf("| %u | %llu | %.2f | %ld | %.3g | %.3g | %.3g | %.2f |\n",
					   k, (unsigned long long) m, fill, r.hits, r.rate, r.fill_k,
					   r.reported, r.rate / r.reported);
				fflush(stdout);
			}
}

/* One cell of bloom_empty(capacity, fpp[, layout]) holding n values. */
static void
cell(const char *layout, double capacity, double fpp, long n, int filters,
	 long probes, double budget)
{
	char		err[BLOOM_ERRBUF_SIZE];
	BloomShape	s;

	if (!bf_shape_for(capacity, fpp, bf_layout_from_name(layout), &s, err))
	{
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	for (uint8_t scheme = 1; scheme <= 2; scheme++)
	{
		long		p = (long) (probes * budget);
		Measured	r = measure(&s, scheme, n, filters, p);
		double		noise = 2.0 * sqrt((double) r.hits + 1) / ((double) p * filters);

		printf("| %s | %.0f | %.0e | %ld | %llu | %u | %d | %.2g | %.3g +- %.2g | %.3g | %.2f |\n",
			   layout, capacity, fpp, n, (unsigned long long) s.nbits, s.nhashes, scheme,
			   (double) p * filters, r.rate, noise, r.reported,
			   r.hits > 0 ? r.rate / r.reported : 0.0);
		fflush(stdout);
	}
}

static void
cells_table(double budget)
{
	printf("## Cells: bloom_empty(capacity, fpp[, layout]) filled, both schemes\n\n");
	printf("`measured` +- two standard deviations; `reported` is bloom_fpp (mean over the\n");
	printf("filters).  Scheme 2 is what new filters use; scheme 1 is how stored filters\n");
	printf("keep probing.  The blocked layout differs between them beyond k = 14 only.\n\n");
	printf("| layout | capacity | fpp | values | m | k | scheme | probes | measured | reported | measured/reported |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	cell("classic", 10, 0.01, 1, 2000, 500000, budget);
	cell("classic", 100, 1e-4, 100, 50, 2000000, budget);
	cell("classic", 1000, 1e-6, 1000, 10, 20000000, budget);
	cell("classic", 1000, 1e-9, 1000, 10, 50000000, budget);
	cell("classic", 10000, 1e-8, 10000, 4, 50000000, budget);
	cell("blocked", 10, 0.01, 1, 2000, 500000, budget);
	cell("blocked", 100, 1e-4, 100, 50, 2000000, budget);
	cell("blocked", 1000, 1e-6, 1000, 10, 20000000, budget);
	cell("blocked", 1000, 1e-9, 1000, 10, 50000000, budget);
	cell("blocked", 10000, 1e-8, 10000, 4, 50000000, budget);
}

/* ---------------------------------------------------------------------
 * The table of src/core/scheme1.c: foreign values that retrace part of a
 * stored value's progression.
 *
 * In units of one bit, a scheme-1 value's positions are floor(u + i v).  A
 * foreign value at (u + j v + du, +-v + dv) meets the stored value's
 * positions i + j (or, for -v, the same positions walked backwards) on the
 * L = k - |j| indices they share: its i-th position is the stored one with
 * probability q_i = max(0, 1 - |du + i dv|) (the stored positions'
 * fractional parts are uniform), independently.  With C such positions met,
 * the foreign value answers wrongly with probability fill^(k - C) rather
 * than fill^k; two met positions are what any two positions of any value
 * show (the same under independent positions), so only C >= 3 counts:
 *   X(L) = integral over du, dv of E[(fill^(k-C) - fill^k) 1(C >= 3)].
 * Per stored value, the excess rate is 2 sum_j X(k - |j|) / m^2 (2: +-v),
 * so the table holds c(k, fill) = 2 sum_j X(k - |j|), the c of c n / m^2.
 * --------------------------------------------------------------------- */

static double
retrace_excess(int len, int k, double fill, int steps)
{
	/* |dv| beyond 4/(len-1) leaves fewer than three positions met */
	double		range = len > 1 ? fmin(1.0, 4.0 / (len - 1)) : 1.0;
	double		dist[BLOOM_MAX_NHASHES + 2];
	double		gain[BLOOM_MAX_NHASHES + 2];
	double		total = 0.0;

	if (len < 3)
		return 0.0;
	for (int c = 0; c <= len; c++)
		gain[c] = c >= 3 ? pow(fill, k - c) - pow(fill, k) : 0.0;
	for (int a = 0; a < steps; a++)
	{
		double		du = -1.0 + (a + 0.5) * 2.0 / steps;

		for (int b = 0; b < steps; b++)
		{
			double		dv = -range + (b + 0.5) * 2.0 * range / steps;
			int			n = 0;

			/* the distribution of C, one position at a time */
			dist[0] = 1.0;
			for (int i = 0; i < len; i++)
			{
				double		q = 1.0 - fabs(du + i * dv);

				if (q <= 0)
					continue;
				dist[n + 1] = dist[n] * q;
				for (int c = n; c >= 1; c--)
					dist[c] = dist[c] * (1 - q) + dist[c - 1] * q;
				dist[0] *= 1 - q;
				n++;
			}
			for (int c = 3; c <= n; c++)
				total += dist[c] * gain[c];
		}
	}
	return total * (2.0 / steps) * (2.0 * range / steps);
}

static void
print_table(void)
{
	static const int ks[] = {3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 17, 20, 24, 28, 32, 40, 48, 64};
	static const double fills[] = {0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};

	printf("/* k:");
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		printf(" %d", ks[i]);
	printf("\n   fill:");
	for (size_t i = 0; i < sizeof(fills) / sizeof(fills[0]); i++)
		printf(" %g", fills[i]);
	printf(" */\n");
	for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
	{
		printf("\t{");
		for (size_t fi = 0; fi < sizeof(fills) / sizeof(fills[0]); fi++)
		{
			double		c = 0.0;

			for (int j = -(ks[ki] - 1); j < ks[ki]; j++)
				c += retrace_excess(ks[ki] - abs(j), ks[ki], fills[fi], 40);
			printf("%s%.4g", fi ? ", " : "", 2.0 * c);
		}
		printf("},\t/* k = %d */\n", ks[ki]);
		fflush(stdout);
	}
}

int
main(int argc, char **argv)
{
	double		budget = argc > 2 ? atof(argv[2]) : 1.0;

	if (argc < 2 || !(budget > 0))
	{
		fprintf(stderr, "usage: %s model|cells|table [budget]\n", argv[0]);
		return 2;
	}
	if (strcmp(argv[1], "table") == 0)
		print_table();
	else if (strcmp(argv[1], "model") == 0)
		model_table(budget);
	else if (strcmp(argv[1], "cells") == 0)
		cells_table(budget);
	else
	{
		fprintf(stderr, "usage: %s model|cells|table [budget]\n", argv[0]);
		return 2;
	}
	return 0;
}
