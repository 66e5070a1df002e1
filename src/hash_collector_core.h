/*
 * hash_collector_core.h
 *	  Plain-C building blocks of the distinct-hash collector (hash_collector.h):
 *	  records of a fixed number of 64-bit words, sorted and deduplicated in
 *	  place, and a k-way merge heap over sorted runs.  No PostgreSQL here, so
 *	  the pieces are unit-tested on their own (test/unit/test_hash_collector.c).
 */
#ifndef HASH_COLLECTOR_CORE_H
#define HASH_COLLECTOR_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Widest record, in 64-bit words (multibloom: one word per attribute + 1). */
#define HC_MAX_WIDTH	64

/* Compares two records of width words, most significant word first. */
static inline int
hc_record_cmp(const uint64_t *a, const uint64_t *b, int width)
{
	for (int i = 0; i < width; i++)
	{
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	}
	return 0;
}

/*
 * Sorts n records of width words in place (three-way quicksort: inputs full
 * of duplicates, the common case, sort in linear time).
 */
extern void hc_sort_records(uint64_t *recs, size_t n, int width);

/* Removes adjacent duplicates from sorted records; returns the new count. */
extern size_t hc_unique_records(uint64_t *recs, size_t n, int width);

/*
 * Sorts and deduplicates recs[0..n), whose first nsorted records are already
 * sorted and distinct; returns the number of distinct records.
 */
extern size_t hc_sort_unique(uint64_t *recs, size_t nsorted, size_t n, int width);

/*
 * A min-heap of merge cursors.  Each cursor shows its current record in
 * cur[i] (NULL when exhausted); the host advances cursors, the heap only
 * orders them.
 */
typedef struct HcMergeHeap
{
	int			width;
	int			n;				/* live cursors in heap[] */
	int		   *heap;			/* cursor numbers, heap-ordered */
	const uint64_t **cur;		/* current record of every cursor */
} HcMergeHeap;

/* Orders heap[0..n) (n live cursors) after the host filled cur[] and heap[]. */
extern void hc_heap_build(HcMergeHeap *h);

/* Cursor number with the smallest current record (n must be > 0). */
static inline int
hc_heap_top(const HcMergeHeap *h)
{
	return h->heap[0];
}

/*
 * Restores the order after the top cursor advanced; drops it when its
 * cur[] became NULL.
 */
extern void hc_heap_top_advanced(HcMergeHeap *h);

#endif							/* HASH_COLLECTOR_CORE_H */
