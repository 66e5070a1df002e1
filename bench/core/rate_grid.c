/*
 * rate_grid.c
 *	  The false-positive rate of filters made by bf_shape_for(n, p, layout),
 *	  filter by filter, over a grid of n and p for every layout: for each
 *	  cell, many filters holding n distinct values (random 64-bit ids,
 *	  microsecond timestamps and consecutive integers in turn, through a
 *	  full-width 64-bit hash), and each filter's exact rate as its bits
 *	  stand (test/unit/rate_grid.h).  Prints, per layout, the mean and the
 *	  95th percentile of rate / p per cell, how many filters exceed p, and
 *	  the bytes and k of the shape.
 *
 *	  Usage: rate_grid [layouts] [max_n] [scale]
 *	    layouts  comma-separated, default classic,blocked,matrix
 *	    max_n    largest capacity of the grid, default 10^7
 *	    scale    multiplies the number of filters per cell, default 1
 *	  or:    rate_grid cost
 *	    the time of one bf_shape_for call (the sizing itself), per layout
 *	    and a few (n, p): microseconds, the best of 5 rounds of 20 calls.
 *	  Markdown on stdout.
 */
#include "rate_grid.h"

#include <time.h>

static const double grid_n[] = {1, 10, 30, 100, 1000, 1e4, 1e5, 1e6, 1e7};
static const int grid_decades = 9;	/* p = 1e-1 .. 1e-9 */

/* Filters per cell: many where filters differ much, few where n is large. */
static int
filters_for(double n, double scale)
{
	int			base = n <= 100 ? 300 : n <= 1e3 ? 200 : n <= 1e4 ? 100 :
		n <= 1e5 ? 30 : n <= 1e6 ? 8 : 3;

	return (int) fmax(3, base * scale);
}

static void
print_layout(int layout, double max_n, double scale)
{
	RgCell		cells[9][9];
	bool		made[9][9];
	int			rows = 0;

	for (size_t i = 0; i < sizeof(grid_n) / sizeof(grid_n[0]) && grid_n[i] <= max_n; i++, rows++)
		for (int d = 1; d <= grid_decades; d++)
		{
			double		p = pow(10.0, -d);

			made[i][d - 1] = rg_measure_cell(grid_n[i], p, layout, filters_for(grid_n[i], scale),
											 UINT64_C(0x243f6a8885a308d3) * (i * 16 + d), &cells[i][d - 1], NULL);
			fprintf(stderr, "%s n=%g p=%g: mean %.3f q95 %.3f max %.3f over %d/%d\n",
					bf_layout_name(layout), grid_n[i], p, cells[i][d - 1].mean,
					cells[i][d - 1].q95, cells[i][d - 1].max, cells[i][d - 1].over,
					cells[i][d - 1].filters);
		}

	printf("\n### %s: mean / 95th percentile of rate / p\n\n| n |", bf_layout_name(layout));
	for (int d = 1; d <= grid_decades; d++)
		printf(" 1e-%d |", d);
	printf("\n|---:|");
	for (int d = 1; d <= grid_decades; d++)
		printf("---:|");
	printf("\n");
	for (int i = 0; i < rows; i++)
	{
		printf("| %g |", grid_n[i]);
		for (int d = 0; d < grid_decades; d++)
			if (made[i][d])
				printf(" %.2f / %.2f |", cells[i][d].mean, cells[i][d].q95);
			else
				printf(" - |");
		printf("\n");
	}

	printf("\n### %s: filters over p (of filters), worst rate / p\n\n| n |", bf_layout_name(layout));
	for (int d = 1; d <= grid_decades; d++)
		printf(" 1e-%d |", d);
	printf("\n|---:|");
	for (int d = 1; d <= grid_decades; d++)
		printf("---:|");
	printf("\n");
	for (int i = 0; i < rows; i++)
	{
		printf("| %g |", grid_n[i]);
		for (int d = 0; d < grid_decades; d++)
			if (made[i][d])
				printf(" %d/%d, %.2f |", cells[i][d].over, cells[i][d].filters, cells[i][d].max);
			else
				printf(" - |");
		printf("\n");
	}

	printf("\n### %s: bytes, k\n\n| n |", bf_layout_name(layout));
	for (int d = 1; d <= grid_decades; d++)
		printf(" 1e-%d |", d);
	printf("\n|---:|");
	for (int d = 1; d <= grid_decades; d++)
		printf("---:|");
	printf("\n");
	for (int i = 0; i < rows; i++)
	{
		printf("| %g |", grid_n[i]);
		for (int d = 0; d < grid_decades; d++)
			if (made[i][d])
				printf(" %llu, %u |", (unsigned long long) cells[i][d].bytes, cells[i][d].nhashes);
			else
				printf(" - |");
		printf("\n");
	}
	fflush(stdout);
}

/* Microseconds per bf_shape_for call, best of 5 rounds of 20. */
static double
sizing_cost(double n, double p, int layout)
{
	double		best = INFINITY;

	for (int round = 0; round < 5; round++)
	{
		struct timespec a,
					b;
		char		err[BLOOM_ERRBUF_SIZE];
		BloomShape	s;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < 20; i++)
			if (!bf_shape_for(n, p, layout, &s, err))
				return NAN;
		clock_gettime(CLOCK_MONOTONIC, &b);
		best = fmin(best, ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / 20);
	}
	return best;
}

static void
print_cost(void)
{
	const double ns[] = {1, 1000, 1e6, 1e8};
	const double ps[] = {1e-1, 1e-5, 1e-9};

	printf("\n### sizing cost: microseconds per bf_shape_for\n\n| n | p | classic | blocked | matrix |\n|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]); j++)
		{
			printf("| %g | %g |", ns[i], ps[j]);
			for (int layout = 0; layout < BLOOM_NUM_LAYOUTS; layout++)
				printf(" %.1f |", sizing_cost(ns[i], ps[j], layout));
			printf("\n");
		}
}

int
main(int argc, char **argv)
{
	char		layouts[256] = "classic,blocked,matrix";
	double		max_n = argc > 2 ? atof(argv[2]) : 1e7;
	double		scale = argc > 3 ? atof(argv[3]) : 1.0;

	if (argc > 1 && strcmp(argv[1], "cost") == 0)
	{
		print_cost();
		return 0;
	}
	if (argc > 1)
		snprintf(layouts, sizeof(layouts), "%s", argv[1]);
	if (!(max_n >= 1) || !(scale > 0))
	{
		fprintf(stderr, "usage: rate_grid [layouts] [max_n >= 1] [scale > 0]\n");
		return 2;
	}
	for (char *name = strtok(layouts, ","); name != NULL; name = strtok(NULL, ","))
	{
		int			layout = bf_layout_from_name(name);

		if (layout < 0)
		{
			fprintf(stderr, "unknown layout \"%s\"\n", name);
			return 2;
		}
		print_layout(layout, max_n, scale);
	}
	return 0;
}
