/*
 * hash_records.c
 *	  Sorting, deduplication and merge heap of hash records: see
 *	  hash_records.h.
 */
#include "hash_records.h"

#include <string.h>

/* Below this many records, insertion sort beats partitioning. */
#define SMALL_SORT	16

/* ---------------------------------------------------------------------
 * One-word records: the bloom_agg case, specialised because it is hot.
 * --------------------------------------------------------------------- */

static inline uint64_t
median3_u64(uint64_t a, uint64_t b, uint64_t c)
{
	if (a < b)
		return b < c ? b : (a < c ? c : a);
	return a < c ? a : (b < c ? c : b);
}

static void
insertion_sort_u64(uint64_t *a, size_t n)
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

/*
 * Dijkstra's three-way partition around a median-of-three pivot; recursion
 * on the smaller side only, so the stack depth is O(log n).
 */
static void
sort_u64(uint64_t *a, size_t n)
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
		/* a[0..lt) < pivot, a[lt..gt) == pivot, a[gt..n) > pivot */
		if (lt < n - gt)
		{
			sort_u64(a, lt);
			a += gt;
			n -= gt;
		}
		else
		{
			sort_u64(a + gt, n - gt);
			n = lt;
		}
	}
	insertion_sort_u64(a, n);
}

/* ---------------------------------------------------------------------
 * Records of any width
 * --------------------------------------------------------------------- */

static inline void
swap_records(uint64_t *a, uint64_t *b, int width)
{
	for (int i = 0; i < width; i++)
	{
		uint64_t	t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

static void
sort_wide(uint64_t *a, size_t n, int width)
{
	uint64_t	pivot[BF_RECORD_MAX_WIDTH];

	while (n > 1)
	{
		size_t		lt = 0,
					i = 0,
					gt = n;
		const uint64_t *x = a,
				   *y = a + (n / 2) * width,
				   *z = a + (n - 1) * width,
				   *m;

		/* median of three as the pivot, copied out since records move */
		if (bf_record_cmp(x, y, width) < 0)
			m = bf_record_cmp(y, z, width) < 0 ? y : (bf_record_cmp(x, z, width) < 0 ? z : x);
		else
			m = bf_record_cmp(x, z, width) < 0 ? x : (bf_record_cmp(y, z, width) < 0 ? z : y);
		memcpy(pivot, m, sizeof(uint64_t) * width);

		while (i < gt)
		{
			int			c = bf_record_cmp(a + i * width, pivot, width);

			if (c < 0)
				swap_records(a + (i++) * width, a + (lt++) * width, width);
			else if (c > 0)
				swap_records(a + i * width, a + (--gt) * width, width);
			else
				i++;
		}
		if (lt < n - gt)
		{
			sort_wide(a, lt, width);
			a += gt * width;
			n -= gt;
		}
		else
		{
			sort_wide(a + gt * width, n - gt, width);
			n = lt;
		}
	}
}

void
bf_records_sort(uint64_t *recs, size_t n, int width)
{
	if (width == 1)
		sort_u64(recs, n);
	else
		sort_wide(recs, n, width);
}

size_t
bf_records_unique(uint64_t *recs, size_t n, int width)
{
	size_t		out = 0;

	if (n == 0)
		return 0;
	if (width == 1)
	{
		for (size_t i = 1; i < n; i++)
			if (recs[i] != recs[out])
				recs[++out] = recs[i];
		return out + 1;
	}
	for (size_t i = 1; i < n; i++)
	{
		if (bf_record_cmp(recs + i * width, recs + out * width, width) != 0)
		{
			out++;
			if (out != i)
				memcpy(recs + out * width, recs + i * width, sizeof(uint64_t) * width);
		}
	}
	return out + 1;
}

size_t
bf_records_sort_unique(uint64_t *recs, size_t nsorted, size_t n, int width)
{
	if (nsorted == n)
		return n;
	bf_records_sort(recs, n, width);
	return bf_records_unique(recs, n, width);
}

/* ---------------------------------------------------------------------
 * Merge heap
 * --------------------------------------------------------------------- */

static inline bool
cursor_less(const BfMergeHeap *h, int a, int b)
{
	return bf_record_cmp(h->cur[a], h->cur[b], h->width) < 0;
}

static void
sift_down(BfMergeHeap *h, int pos)
{
	int			item = h->heap[pos];

	for (;;)
	{
		int			child = 2 * pos + 1;

		if (child >= h->n)
			break;
		if (child + 1 < h->n && cursor_less(h, h->heap[child + 1], h->heap[child]))
			child++;
		if (!cursor_less(h, h->heap[child], item))
			break;
		h->heap[pos] = h->heap[child];
		pos = child;
	}
	h->heap[pos] = item;
}

void
bf_merge_heap_build(BfMergeHeap *h)
{
	for (int i = h->n / 2 - 1; i >= 0; i--)
		sift_down(h, i);
}

void
bf_merge_heap_top_advanced(BfMergeHeap *h)
{
	if (h->cur[h->heap[0]] == NULL)
	{
		h->heap[0] = h->heap[--h->n];
		if (h->n == 0)
			return;
	}
	sift_down(h, 0);
}
