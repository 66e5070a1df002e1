/*
 * test_rate_grid.c
 *	  The promise of sizing: a filter made by bf_shape_for(n, p, layout) and
 *	  holding n distinct values answers wrongly at rate p or less, for at
 *	  least 95% of filters, at every n from 1 to 10^7, p from 1e-1 to 1e-9
 *	  and every layout.  Each cell builds several filters of random 64-bit
 *	  ids, microsecond timestamps and consecutive integers (through a
 *	  full-width 64-bit hash) and takes each filter's exact rate as its bits
 *	  stand (rate_grid.h), since rates of 1e-9 cannot be sampled; where the
 *	  rate is high enough, that exact rate is checked against probes.
 *
 *	  bench/core/rate_grid.c prints the same grid with more filters per cell.
 */
#include "rate_grid.h"

static const int grid_decades = 9;	/* p = 1e-1 .. 1e-9 */

/*
 * The most filters of `filters` that may exceed p when 5% of all filters
 * do: the expected 5% plus three binomial standard deviations.
 */
static double
allowed_over(double filters)
{
	return 0.05 * filters + 3.0 * sqrt(filters * 0.05 * 0.95) + 1.0;
}

/* Filters per cell: many where filters differ much, one at 10^7 values. */
static int
filters_for(double n)
{
	return n <= 100 ? 100 : n <= 1e3 ? 60 : n <= 1e4 ? 20 : n <= 1e5 ? 4 : n <= 1e6 ? 2 : 1;
}

/*
 * The cells of the grid: every p up to 10^5 values, three beyond, and one
 * at 10^7 for the layouts that fill that many values in well under a
 * second (the matrix's 10^7 cells: bench/core/rate_grid.c).
 */
static bool
in_grid(int layout, double n, int decade)
{
	if (n <= 1e5)
		return true;
	if (n <= 1e6)
		return decade % 3 == 1;	/* 1e-1, 1e-4, 1e-7 */
	return decade == 1 && layout != BLOOM_LAYOUT_MATRIX;
}

static void
check_layout(int layout)
{
	const double ns[] = {1, 10, 30, 100, 1e3, 1e4, 1e5, 1e6, 1e7};
	long		filters = 0,
				over = 0;
	double		worst_q95 = 0,
				worst_n = 0,
				worst_p = 0;

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (int d = 1; d <= grid_decades; d++)
		{
			double		p = pow(10.0, -d);
			RgCell		cell;

			if (!in_grid(layout, ns[i], d))
				continue;
			CHECK(rg_measure_cell(ns[i], p, layout, filters_for(ns[i]),
								  UINT64_C(0x13198a2e03707344) * (i * 16 + d) + layout, &cell, NULL));
			/*
			 * A cell of one or two filters (the largest n) is checked by
			 * this bound too: each filter of it is over p with the same 5%
			 * as any other, however little filters of that size differ.
			 */
			CHECK(cell.over <= allowed_over(cell.filters));
			if (cell.over > allowed_over(cell.filters))
				fprintf(stderr, "  %s n=%g p=%g: %d of %d filters over p, mean %.3f, q95 %.3f\n",
						bf_layout_name(layout), ns[i], p, cell.over, cell.filters,
						cell.mean, cell.q95);
			filters += cell.filters;
			over += cell.over;
			if (cell.q95 > worst_q95)
			{
				worst_q95 = cell.q95;
				worst_n = ns[i];
				worst_p = p;
			}
		}
	/* pooled over the grid, the share over p is at most 5% within sampling error */
	CHECK(over <= allowed_over((double) filters));
	fprintf(stderr, "  %s: %ld of %ld filters over p; highest 95th percentile %.3f p (n=%g, p=%g)\n",
			bf_layout_name(layout), over, filters, worst_q95, worst_n, worst_p);
}

static void
test_classic_grid(void)
{
	check_layout(BLOOM_LAYOUT_CLASSIC);
}

static void
test_blocked_grid(void)
{
	check_layout(BLOOM_LAYOUT_BLOCKED);
}

static void
test_matrix_grid(void)
{
	check_layout(BLOOM_LAYOUT_MATRIX);
}

/*
 * The exact rate against probes, where p is high enough to sample: the
 * hits of P probes are within five standard deviations of P times it.
 * And for classic and blocked it is what bf_estimate_fpp says (both read
 * fill^k per block); for the matrix, bf_estimate_fpp takes the groups'
 * candidates as independent, which they nearly are.
 */
static void
test_exact_rate_is_the_rate(void)
{
	const double ns[] = {10, 100, 1000, 20000};
	const double ps[] = {0.1, 0.01, 0.001};

	for (int layout = 0; layout < BLOOM_NUM_LAYOUTS; layout++)
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
			for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]); j++)
				for (int kind = 0; kind < RG_NUM_KINDS; kind++)
				{
					char		err[BLOOM_ERRBUF_SIZE];
					BloomShape	s;
					BloomFilter *f;
					double		exact,
								expected,
								probes = fmin(400.0 / ps[j], 200000.0);
					uint64_t	hits;
					uint64_t	seed = rg_hash64(UINT64_C(977) * (layout * 100 + i * 10 + j) + kind);

					CHECK(bf_shape_for(ns[i], ps[j], layout, &s, err));
					f = rg_filled(&s, ns[i], (RgKind) kind, seed);
					exact = rg_exact_rate(f);
					expected = exact * probes;
					hits = rg_sampled_hits(f, (uint64_t) probes, seed);
					CHECK(fabs((double) hits - expected) <= 5.0 * sqrt(expected) + 3.0);
					if (!(fabs((double) hits - expected) <= 5.0 * sqrt(expected) + 3.0))
						fprintf(stderr, "  %s n=%g p=%g %s: %llu hits in %.0f probes, exact rate %.4g\n",
								bf_layout_name(layout), ns[i], ps[j], rg_kind_names[kind],
								(unsigned long long) hits, probes, exact);
					if (layout == BLOOM_LAYOUT_MATRIX)
						CHECK_NEAR(bf_estimate_fpp(f), exact, 0.02 * exact + 1e-12);
					else
						CHECK_NEAR(bf_estimate_fpp(f), exact, 1e-9 * exact);
					free(f);
				}
}

/*
 * The matrix's exact rate counts the rows a probe reads together: two
 * groups of one row each, a value's bits set in both rows, is a rate of
 * fill^k, not 1 - (1 - fill^k)^2.
 */
static void
test_matrix_exact_rate(void)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_MATRIX, .nbits = 2 * 64, .nhashes = 2,
	.rows = 2, .locators = 2};
	BloomFilter *f = unit_new_filter(&s);

	/* the same 16 bits in both rows: a probe hits both or neither */
	for (int b = 0; b < 16; b++)
	{
		bf_set_bit(f->words, (uint64_t) b);
		bf_set_bit(f->words, 64 + (uint64_t) b);
	}
	bf_matrix_recount(f);
	CHECK_NEAR(rg_matrix_rate(f), 0.25 * 0.25, 1e-15);
	/* disjoint halves: the events exclude each other */
	memset(f->words, 0, 16);
	f->words[0] = UINT64_C(0xffffffff);
	f->words[1] = UINT64_C(0xffffffff00000000);
	bf_matrix_recount(f);
	CHECK_NEAR(rg_matrix_rate(f), 0.25 + 0.25, 1e-15);
	free(f);
}

int
main(void)
{
	RUN(test_matrix_exact_rate);
	RUN(test_exact_rate_is_the_rate);
	RUN(test_classic_grid);
	RUN(test_blocked_grid);
	RUN(test_matrix_grid);
	return unit_report("rate_grid");
}
