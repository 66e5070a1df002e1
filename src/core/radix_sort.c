/*
 * radix_sort.c
 *	  Most-significant-digit radix sort of 64-bit words: see radix_sort.h.
 *
 *	  Each level counts its digit over the bucket, distributes the bucket
 *	  into one sub-bucket per digit value, then sorts each sub-bucket by the
 *	  next digit.  The digit is about log2 of the bucket's size less 2 bits
 *	  (at most 11: 2048 sub-buckets, whose write positions stay in L2), so
 *	  uniform values are in sub-buckets of about 4 values after each level:
 *	  10^7 of them take two levels, then an insertion sort of a few values.
 *	  A bucket whose values all share the digit is not distributed, so
 *	  duplicates and narrow ranges cost one counting pass per digit.
 *
 *	  Two ways to distribute: with scratch room for the values, each level
 *	  copies the bucket into the other array (sequential reads, one write
 *	  stream per digit value), the levels alternating between the arrays;
 *	  without, the American flag sort swaps every value straight to its
 *	  digit's next free slot, in place, about twice as slow.
 */
#include "radix_sort.h"

#include <stdbool.h>
#include <string.h>

/* Buckets of at most this many values are insertion-sorted. */
#define RADIX_SMALL		24

/* Digit width: log2(bucket size) - RADIX_LOG_SLACK, within these bounds. */
#define RADIX_LOG_SLACK	2
#define RADIX_MIN_BITS	4
#define RADIX_MAX_BITS	11
#define RADIX_MAX_BUCKETS (1 << RADIX_MAX_BITS)

static void
insertion_sort(uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++)
	{
		uint64_t	v = a[i];
		size_t		j = i;

		while (j > 0 && a[j - 1] > v)
		{
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

/* One level's digit: bits [lo, lo + bits) of a value. */
typedef struct Digit
{
	int			lo;
	uint32_t	nb;				/* 2^bits values */
	uint32_t	mask;
} Digit;

static inline uint32_t
digit_of(uint64_t v, const Digit *d)
{
	return (uint32_t) (v >> d->lo) & d->mask;
}

/* The digit below bit shift (> 0) for a bucket of n (> RADIX_SMALL) values. */
static Digit
choose_digit(size_t n, int shift)
{
	int			bits = 63 - __builtin_clzll((unsigned long long) n) - RADIX_LOG_SLACK;
	Digit		d;

	if (bits > RADIX_MAX_BITS)
		bits = RADIX_MAX_BITS;
	if (bits < RADIX_MIN_BITS)
		bits = RADIX_MIN_BITS;
	if (bits > shift)
		bits = shift;
	d.lo = shift - bits;
	d.nb = UINT32_C(1) << bits;
	d.mask = d.nb - 1;
	return d;
}

/*
 * count[v] = how many of a[0..n) have digit value v; true if they all have
 * the same one.
 */
static bool
count_digits(const uint64_t *a, size_t n, const Digit *d, uint32_t *count)
{
	memset(count, 0, sizeof(uint32_t) * d->nb);
	for (size_t i = 0; i < n; i++)
		count[digit_of(a[i], d)]++;
	return count[digit_of(a[0], d)] == n;
}

/* Turns counts into where each digit's bucket starts. */
static void
starts_from_counts(uint32_t *count, uint32_t nb)
{
	uint32_t	sum = 0;

	for (uint32_t b = 0; b < nb; b++)
	{
		uint32_t	c = count[b];

		count[b] = sum;
		sum += c;
	}
}

/*
 * Permutes a[0..n) in place so that each digit's values are together, in
 * digit order.  next[d] is where digit d's bucket starts, and on return
 * where it ends.
 */
static void
permute_in_place(uint64_t *a, size_t n, const Digit *d, uint32_t *next)
{
	uint32_t	end[RADIX_MAX_BUCKETS];

	for (uint32_t b = 0; b + 1 < d->nb; b++)
		end[b] = next[b + 1];
	end[d->nb - 1] = (uint32_t) n;
	for (uint32_t b = 0; b < d->nb; b++)
	{
		while (next[b] < end[b])
		{
			uint64_t	v = a[next[b]];
			uint32_t	vd = digit_of(v, d);

			/* carry v to its bucket, picking up what was there, until one belongs here */
			while (vd != b)
			{
				uint64_t	t = a[next[vd]];

				a[next[vd]++] = v;
				v = t;
				vd = digit_of(v, d);
			}
			a[next[b]++] = v;
		}
	}
}

/* Sorts a[0..n) (n < 2^32), whose values agree on every bit from shift up. */
static void
sort_in_place(uint64_t *a, size_t n, int shift)
{
	uint32_t	end[RADIX_MAX_BUCKETS];
	Digit		d;

	while (n > RADIX_SMALL && shift > 0)
	{
		d = choose_digit(n, shift);
		if (count_digits(a, n, &d, end))
		{
			shift = d.lo;		/* every value has this digit: on to the next */
			continue;
		}
		starts_from_counts(end, d.nb);
		permute_in_place(a, n, &d, end);
		for (uint32_t b = 0, start = 0; b < d.nb; start = end[b++])
		{
			if (end[b] - start > 1)
				sort_in_place(a + start, end[b] - start, d.lo);
		}
		return;
	}
	if (shift > 0)
		insertion_sort(a, n);
}

/*
 * Sorts src[0..n) (n < 2^32), whose values agree on every bit from shift
 * up, into dst[0..n) if to_dst, else into src itself; the other array is
 * scratch.
 */
static void
sort_apart(uint64_t *src, uint64_t *dst, size_t n, int shift, bool to_dst)
{
	uint32_t	end[RADIX_MAX_BUCKETS];
	Digit		d;

	while (n > RADIX_SMALL && shift > 0)
	{
		d = choose_digit(n, shift);
		if (count_digits(src, n, &d, end))
		{
			shift = d.lo;
			continue;
		}
		starts_from_counts(end, d.nb);
		for (size_t i = 0; i < n; i++)
		{
			uint64_t	v = src[i];

			dst[end[digit_of(v, &d)]++] = v;
		}
		/* the buckets are in dst now: sorting each back into src undoes a copy */
		for (uint32_t b = 0, start = 0; b < d.nb; start = end[b++])
		{
			if (end[b] > start)
				sort_apart(dst + start, src + start, end[b] - start, d.lo, !to_dst);
		}
		return;
	}
	if (to_dst)
	{
		memcpy(dst, src, n * sizeof(uint64_t));
		src = dst;
	}
	if (shift > 0)
		insertion_sort(src, n);
}

void
bf_radix_sort_u64(uint64_t *a, size_t n, uint64_t *scratch)
{
	/* bucket bounds are 32-bit: hash_records.c sorts larger arrays otherwise */
	if (n > UINT32_MAX)
		return;
	if (scratch)
		sort_apart(a, scratch, n, 64, false);
	else
		sort_in_place(a, n, 64);
}
