/*
 * sort_floor.c
 *	  The plain-C floor of the data-sized build's sort: ns per value of
 *	  sorting random 64-bit words (the collected value hashes) with the
 *	  former three-way quicksort and with the radix sort
 *	  (src/core/radix_sort.c), and of the whole collection as the
 *	  distinct-hash collector does it (src/aggregates/hash_collector.c,
 *	  no memory limit): values appended to a buffer of 8 records that is
 *	  sorted and deduplicated when full and doubles, then the final sort.
 *	  The runs are interleaved in this one process (round after round,
 *	  each mode once per round) and the medians of CPU time are printed
 *	  with their ratios to the quicksort's.  See bench/core/sort_floor.sh.
 *
 *	  usage: sort_floor values rounds [seed]
 *
 *	  quicksort         the sort of hash_records.c before the radix sort
 *	  radix             bf_records_sort (width 1: the radix sort, in place)
 *	  radix-scratch     the radix sort with scratch room (bf_radix_sort_u64)
 *	  collect-former    the collection, former policy: the whole buffer
 *	                    sorted by quicksort at every doubling
 *	  collect-radix     the same policy, the radix sort
 *	  collect-merge     the collector's policy now: the buffer grows first
 *	                    when its sorted prefix is half of it (and before
 *	                    the final sort when it has no room for the tail),
 *	                    then only the tail is sorted (radix, the room as
 *	                    scratch) and merged in (bf_records_sort_unique_in)
 *	  unique            the deduplication pass over sorted values alone
 *
 *	  Every mode's result is checked against the others' (same sorted
 *	  distinct values).
 */
#define _POSIX_C_SOURCE 200809L

#include "unit.h"				/* hash_int: the random values */

#include "core/hash_records.h"
#include "core/radix_sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the former sort: three-way quicksort (hash_records.c, 1.1) ---- */

#define SMALL_SORT	16

static inline uint64_t
median3_u64(uint64_t a, uint64_t b, uint64_t c)
{
	if (a < b)
		return b < c ? b : (a < c ? c : a);
	return a < c ? a : (b < c ? c : b);
}

static void
quicksort_u64(uint64_t *a, size_t n)
{
	while (n > SMALL_SORT)
	{
		uint64_t	pivot = median3_u64(a[0], a[n / 2], a[n - 1]);
		size_t		lt = 0,
					i = 0,
					gt = n;

		while (i < gt)
		{
			uint64_t	v = a[i];

			if (v < pivot)
			{
				a[i++] = a[lt];
				a[lt++] = v;
			}
			else if (v > pivot)
			{
				a[i] = a[--gt];
				a[gt] = v;
			}
			else
				i++;
		}
		if (lt < n - gt)
		{
			quicksort_u64(a, lt);
			a += gt;
			n -= gt;
		}
		else
		{
			quicksort_u64(a + gt, n - gt);
			n = lt;
		}
	}
	/* the same insertion sort as before, now the radix sort's for small n */
	bf_records_sort(a, n, 1);
}

/* ---- the collection ---- */

typedef enum
{
	FORMER_QUICKSORT,
	FORMER_RADIX,
	GROW_AND_MERGE
} Policy;

/* The former sort_buffer: everything sorted again, then deduplicated. */
static size_t
sort_all(uint64_t *buf, size_t nsorted, size_t n, Policy policy)
{
	if (nsorted == n)
		return n;
	if (policy == FORMER_QUICKSORT)
		quicksort_u64(buf, n);
	else
		bf_records_sort(buf, n, 1);
	return bf_records_unique(buf, n, 1);
}

/*
 * Appends vals[0..n) to a collector's buffer, as hc_add and hc_make_room
 * do without a memory limit, then sorts it as hc_count does; returns the
 * buffer (its distinct count in *count).
 */
static uint64_t *
collect(const uint64_t *vals, size_t n, Policy policy, size_t *count)
{
	size_t		cap = 8,
				nbuf = 0,
				nsorted = 0;
	uint64_t   *buf = malloc(cap * 8);

	for (size_t i = 0; i < n; i++)
	{
		if (nbuf == cap)
		{
			if (policy == GROW_AND_MERGE && nsorted >= cap / 2)
			{
				cap *= 2;
				buf = realloc(buf, cap * 8);
				nbuf = nsorted = bf_records_sort_unique_in(buf, nsorted, nbuf, cap, 1);
			}
			else
			{
				nbuf = nsorted = policy == GROW_AND_MERGE ?
					bf_records_sort_unique_in(buf, nsorted, nbuf, cap, 1) :
					sort_all(buf, nsorted, nbuf, policy);
				if (nbuf > cap / 2)
				{
					cap *= 2;
					buf = realloc(buf, cap * 8);
				}
			}
		}
		buf[nbuf++] = vals[i];
	}
	if (policy == GROW_AND_MERGE && cap - nbuf < nbuf - nsorted)
	{
		/* hc_count's sort_buffer_to_read: room for the tail first */
		cap *= 2;
		buf = realloc(buf, cap * 8);
	}
	*count = policy == GROW_AND_MERGE ?
		bf_records_sort_unique_in(buf, nsorted, nbuf, cap, 1) :
		sort_all(buf, nsorted, nbuf, policy);
	return buf;
}

/* ---- the driver ---- */

static double
cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

#define NMODES 7
static const char *const mode_names[NMODES] = {
	"quicksort", "radix", "radix-scratch", "collect-former", "collect-radix", "collect-merge",
	"unique"
};

/*
 * Runs mode m once over vals (scratch: room for n more); the sorted
 * distinct result into work[0..*count).
 */
static double
run_mode(int m, const uint64_t *vals, size_t n, uint64_t *work, uint64_t *scratch, size_t *count)
{
	double		start;
	uint64_t   *buf = NULL;

	if (m <= 2 || m == 6)
		memcpy(work, vals, n * 8);
	if (m == 6)
	{
		bf_records_sort(work, n, 1);
		start = cpu_seconds();
		*count = bf_records_unique(work, n, 1);
		return cpu_seconds() - start;
	}
	start = cpu_seconds();
	switch (m)
	{
		case 0:
			quicksort_u64(work, n);
			*count = bf_records_unique(work, n, 1);
			break;
		case 1:
			bf_records_sort(work, n, 1);
			*count = bf_records_unique(work, n, 1);
			break;
		case 2:
			bf_radix_sort_u64(work, n, scratch);
			*count = bf_records_unique(work, n, 1);
			break;
		default:
			buf = collect(vals, n, m == 3 ? FORMER_QUICKSORT : m == 4 ? FORMER_RADIX : GROW_AND_MERGE,
						  count);
			break;
	}
	start = cpu_seconds() - start;
	if (buf)
	{
		memcpy(work, buf, *count * 8);
		free(buf);
	}
	return start;
}

int
main(int argc, char **argv)
{
	size_t		n;
	int			rounds;
	uint64_t   *vals,
			   *work,
			   *scratch,
			   *ref;
	double	   *times[NMODES];
	size_t		refcount = 0;
	uint64_t	seed;
	int			bad = 0;

	if (argc < 3 || (n = strtoull(argv[1], NULL, 10)) == 0 || (rounds = atoi(argv[2])) < 1)
	{
		fprintf(stderr, "usage: %s values rounds [seed]\n", argv[0]);
		return 2;
	}
	seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 0;
	vals = malloc(n * 8);
	work = malloc(n * 8);
	scratch = malloc(n * 8);
	ref = malloc(n * 8);
	for (size_t i = 0; i < n; i++)
		vals[i] = hash_int(seed + i);
	for (int m = 0; m < NMODES; m++)
		times[m] = malloc(sizeof(double) * rounds);

	for (int r = 0; r < rounds; r++)
		for (int m = 0; m < NMODES; m++)
		{
			size_t		count;

			times[m][r] = run_mode(m, vals, n, work, scratch, &count);
			if (r == 0 && m == 0)
			{
				memcpy(ref, work, count * 8);
				refcount = count;
			}
			else if (count != refcount || memcmp(work, ref, count * 8) != 0)
				bad++;
		}

	printf("# %zu random values (%zu distinct), %d interleaved rounds, CPU time, medians\n",
		   n, refcount, rounds);
	printf("%-16s %12s %10s %12s\n", "mode", "ns/value", "ms", "/quicksort");
	{
		double		med[NMODES];

		for (int m = 0; m < NMODES; m++)
		{
			qsort(times[m], rounds, sizeof(double), cmp_double);
			med[m] = rounds % 2 ? times[m][rounds / 2] :
				(times[m][rounds / 2 - 1] + times[m][rounds / 2]) / 2;
		}
		for (int m = 0; m < NMODES; m++)
			printf("%-16s %12.2f %10.1f %12.3f\n", mode_names[m], med[m] * 1e9 / n, med[m] * 1e3,
				   med[m] / med[0]);
	}
	if (bad)
		printf("ERROR: %d runs disagree on the sorted distinct values\n", bad);
	return bad ? 1 : 0;
}
