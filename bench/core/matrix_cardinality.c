/*
 * matrix_cardinality.c
 *	  How well bloom_cardinality counts the values of a matrix filter: the
 *	  estimate over the true count, for the model of the insertion rule
 *	  (bf_estimate_count, src/core/layout_matrix_model.c) and for the
 *	  classic formula -(m/k) ln(1 - x/m) that it replaced.
 *
 *	  - the default shape, bloom_empty(n, p, 'matrix') (r = 8, s = 2), for
 *	    n = 10^3 .. 10^6 and p = 0.1 .. 10^-6, filled to n/10, n/2, n, 2n;
 *	  - the paper's shapes (k = 10, rows of 131072 bits, r = 8 and 16,
 *	    s = 2..8, both tie rules), from 10^3 values to three times full;
 *	  - shapes outside those: many locators, small k, small rows.
 *
 *	  Values are random 64-bit hashes (integers through a 64-bit mixer).
 *
 *	  Usage: matrix_cardinality     Output: Markdown on stdout.
 */
#include "unit.h"

#include "core/filter.h"

static double
classic_formula(const BloomFilter *f)
{
	return bf_count_from_fill((double) f->nbits, f->nhashes, (double) bf_bits_set(f));
}

static BloomFilter *
new_matrix(uint32_t rows, uint64_t row_bits, uint32_t k, uint32_t s, bool ties_first)
{
	BloomShape	sh = {.layout = BLOOM_LAYOUT_MATRIX, .nbits = rows * row_bits,
	.nhashes = k, .rows = rows, .locators = s};
	BloomFilter *f = unit_new_filter(&sh);

	if (f == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	if (ties_first)
		f->flags |= BLOOM_FLAG_MATRIX_TIES_FIRST;
	return f;
}

/*
 * Fills f with values 0, 1, ... and prints "model / classic" at each of the
 * npoints counts (ascending).  Returns the largest error of the model.
 */
static double
ratios(BloomFilter *f, const uint64_t *points, int npoints)
{
	uint64_t	v = 0;
	double		worst = 0.0;

	for (int i = 0; i < npoints; i++)
	{
		double		model;

		for (; v < points[i]; v++)
			bf_insert(f, value(v));
		model = bf_estimate_count(f) / (double) points[i];
		worst = fmax(worst, fabs(model - 1));
		printf(" %.3f / %.3f |", model, classic_formula(f) / (double) points[i]);
	}
	printf("\n");
	fflush(stdout);
	return worst;
}

static void
default_shapes(void)
{
	double		ps[] = {0.1, 0.01, 0.001, 1e-6};
	double		worst = 0.0;

	printf("## The default shape, bloom_empty(n, p, 'matrix')\n\n");
	printf("Estimate / true count: model / classic formula, at n/10, n/2, n (capacity), 2n values.\n\n");
	printf("| p | n | k | n/10 | n/2 | n | 2n |\n|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		for (uint64_t n = 1000; n <= 1000000; n *= 10)
		{
			BloomShape	s;
			char		err[BLOOM_ERRBUF_SIZE];
			BloomFilter *f;
			uint64_t	points[] = {n / 10, n / 2, n, 2 * n};

			if (!bf_shape_for((double) n, ps[i], BLOOM_LAYOUT_MATRIX, &s, err))
				continue;
			f = unit_new_filter(&s);
			printf("| %g | %llu | %u |", ps[i], (unsigned long long) n, s.nhashes);
			worst = fmax(worst, ratios(f, points, 4));
			free(f);
		}
	printf("\nLargest error of the model: %.1f%%.\n", 100 * worst);
}

static void
paper_shapes(void)
{
	uint64_t	points[] = {1000, 10000, 30000, 60000, 100000, 150000, 200000, 300000};
	double		worst = 0.0;

	printf("\n## The paper's shapes (k = 10, rows of 131072 bits)\n\n");
	printf("Estimate / true count: model / classic formula.  Full (full_at) comes at about 72,700\n"
		   "values (r = 8) and 145,000 (r = 16) with \"first\" ties, at 81,800 .. 104,700 (r = 8) and\n"
		   "163,300 .. 208,600 (r = 16) with \"emptier\" ties.\n\n");
	printf("| r | s | ties | 10^3 | 10^4 | 3*10^4 | 6*10^4 | 10^5 | 1.5*10^5 | 2*10^5 | 3*10^5 |\n");
	printf("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (uint32_t r = 8; r <= 16; r += 8)
		for (uint32_t s = 2; s <= 8; s++)
			for (int first = 0; first <= 1; first++)
			{
				BloomFilter *f = new_matrix(r, 131072, 10, s, first);

				printf("| %u | %u | %s |", r, s, first ? "first" : "emptier");
				worst = fmax(worst, ratios(f, points, 8));
				free(f);
			}
	printf("\nLargest error of the model: %.1f%%.\n", 100 * worst);
}

/* Full_at of a shape, then the ratios at a quarter, half and all of it. */
static void
other_shape(uint32_t s, uint64_t row_bits, uint32_t k)
{
	BloomFilter *f = new_matrix(s, row_bits, k, s, false);
	uint64_t	v = 0,
				full;

	while (f->full_at == BLOOM_NEVER_FULL)
		bf_insert(f, value(v++));
	full = (uint64_t) f->full_at;
	free(f);
	f = new_matrix(s, row_bits, k, s, false);
	printf("| %u | %llu | %u | %llu |", s, (unsigned long long) row_bits, k, (unsigned long long) full);
	{
		uint64_t	points[] = {full / 4, full / 2, full};

		ratios(f, points, 3);
	}
	free(f);
}

static void
other_shapes(void)
{
	uint32_t	ks[] = {4, 10, 20};

	printf("\n## Beyond: r = s (every row a candidate), \"emptier\" ties\n\n");
	printf("Estimate / true count: model / classic formula, at a quarter, half and all of full_at.\n\n");
	printf("| r = s | row bits | k | full_at | full/4 | full/2 | full |\n|---:|---:|---:|---:|---:|---:|---:|\n");
	for (uint32_t s = 2; s <= 64; s *= 2)
		for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		{
			other_shape(s, 4096, ks[i]);
			other_shape(s, 32768, ks[i]);
		}
}

int
main(void)
{
	printf("Values are random 64-bit hashes; each cell is estimate / true count, for the model of\n"
		   "the insertion rule (bloom_cardinality) / the classic formula -(m/k) ln(1 - x/m).\n\n");
	default_shapes();
	paper_shapes();
	other_shapes();
	return 0;
}
