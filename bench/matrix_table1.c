/*
 * matrix_table1.c
 *	  Reproduces Table 1 of Yang & Huang's M-BMBF paper with the extension's
 *	  own core (src/core/filter.c, src/core/layout_matrix.c): for k = 10 and
 *	  rows of m = 131072 bits, r = 8 and 16 rows and s locators, how many
 *	  distinct values a matrix filter takes before the first value meets only
 *	  full candidate rows (full_at), and its false-positive rate holding
 *	  exactly that many values; next to it, a classic filter of the same r*m
 *	  bits holding the same values (with the same k = 10, and with the
 *	  optimal k for that load).
 *
 *	  Values are the integers 0, 1, 2, ... hashed by a 64-bit mixer (a
 *	  stand-in for a type's hash function); probes are integers from a
 *	  disjoint range (2^40 + i), never inserted.
 *
 *	  It also times insertion with the per-row counters against the cost of
 *	  counting the candidate rows' bits on every insertion instead.
 *
 *	  Usage: matrix_table1 [probes]     (default 10^7 probes per filter)
 *	  Output: a Markdown table on stdout.
 */
#include <time.h>

#include "unit.h"				/* the unit tests' values (hash_int, value) */

#include "core/filter.h"

#define ROW_BITS	131072
#define K			10
#define PROBE_BASE	(UINT64_C(1) << 40)

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static BloomFilter *
new_filter(const BloomShape *s)
{
	BloomFilter *f = unit_new_filter(s);

	if (f == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return f;
}

static BloomFilter *
new_matrix(uint32_t rows, uint32_t locators)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_MATRIX, .nbits = (uint64_t) rows * ROW_BITS,
	.nhashes = K, .rows = rows, .locators = locators};

	return new_filter(&s);
}

static BloomFilter *
new_classic(uint64_t nbits, uint32_t k)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = nbits, .nhashes = k};

	return new_filter(&s);
}

static double
measured_fpp(const BloomFilter *f, uint64_t probes)
{
	uint64_t	fp = 0;

	for (uint64_t i = 0; i < probes; i++)
		fp += bf_query(f, value(PROBE_BASE + i));
	return (double) fp / probes;
}

int
main(int argc, char **argv)
{
	uint64_t	probes = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	uint32_t	rows_list[] = {8, 16};
	uint32_t	locators_list[] = {1, 2, 4, 8};
	double		t_counters = 0,
				t_recount = 0;
	uint64_t	timed_inserts = 0;
	volatile uint64_t sink = 0;

	printf("| r | s | full_at (values) | matrix fill | matrix fpp | classic fill (k = 10) | classic fpp, k = 10 | classic fpp, optimal k | classic (k = 10) / matrix | classic (optimal k) / matrix |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t ri = 0; ri < 2; ri++)
		for (size_t si = 0; si < 4; si++)
		{
			uint32_t	r = rows_list[ri],
						s = locators_list[si];
			BloomFilter *f = new_matrix(r, s);
			BloomFilter *c10,
					   *copt;
			uint64_t	n,
						total = (uint64_t) r * ROW_BITS;
			uint32_t	kopt;
			double		fm,
						f10,
						fopt,
						t0;

			/* pass 1: find full_at */
			for (uint64_t v = 0; f->full_at == BLOOM_NEVER_FULL; v++)
				bf_insert(f, value(v));
			n = (uint64_t) f->full_at;
			free(f);

			/* pass 2: exactly n values, timed */
			f = new_matrix(r, s);
			t0 = now();
			for (uint64_t v = 0; v < n; v++)
				bf_insert(f, value(v));
			t_counters += now() - t0;
			timed_inserts += n;

			/* what counting the candidate rows on every insertion would add */
			t0 = now();
			for (uint64_t v = 0; v < n; v += 16)
				for (uint32_t g = 0; g < s; g++)
					sink += bf_popcount_range(f->words,
												 (uint64_t) ((v + g) % r) * ROW_BITS, ROW_BITS);
			t_recount += (now() - t0) * 16;

			kopt = (uint32_t) fmax(1, round((double) total / n * log(2)));
			c10 = new_classic(total, K);
			copt = new_classic(total, kopt);
			for (uint64_t v = 0; v < n; v++)
			{
				bf_insert(c10, value(v));
				bf_insert(copt, value(v));
			}
			fm = measured_fpp(f, probes);
			f10 = measured_fpp(c10, probes);
			fopt = measured_fpp(copt, probes);
			printf("| %u | %u | %llu | %.4f | %.3e | %.4f | %.3e | %.3e (k = %u) | %.2f | %.2f |\n",
				   r, s, (unsigned long long) n,
				   (double) bf_bits_set(f) / total, fm,
				   (double) bf_bits_set(c10) / total, f10, fopt, kopt,
				   fm > 0 ? f10 / fm : INFINITY, fm > 0 ? fopt / fm : INFINITY);
			fflush(stdout);
			free(f);
			free(c10);
			free(copt);
		}
	printf("\nprobes per filter: %llu; insertion with per-row counters: %.0f ns/value; "
		   "counting the s candidate rows instead would add %.0f ns/value (%.0fx)\n",
		   (unsigned long long) probes, t_counters / timed_inserts * 1e9,
		   t_recount / timed_inserts * 1e9, t_recount / t_counters);
	return sink == 42 ? 1 : 0;
}
