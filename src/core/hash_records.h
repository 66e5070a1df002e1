/*
 * hash_records.h
 *	  Records of a fixed number of 64-bit words (value hashes: one word for
 *	  bloom_agg, one per attribute for multibloom), sorted and deduplicated
 *	  in place, and a k-way merge heap over sorted runs of them.  These are
 *	  the plain-C building blocks of the distinct-hash collector of the
 *	  data-sized aggregates (src/hash_collector.h, which adds memory limits
 *	  and spilling to temporary files); no PostgreSQL here, so they are
 *	  unit-tested on their own (test/unit/test_hash_collector.c).
 *
 *	  Include this to sort, deduplicate or merge such records; it depends on
 *	  no other file of the core.
 */
#ifndef BF_HASH_RECORDS_H
#define BF_HASH_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Widest record, in 64-bit words (multibloom: one word per attribute + 1). */
#define BF_RECORD_MAX_WIDTH	64

/* Compares two records of width words, most significant word first. */
static inline int
bf_record_cmp(const uint64_t *a, const uint64_t *b, int width)
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
extern void bf_records_sort(uint64_t *recs, size_t n, int width);

/* Removes adjacent duplicates from sorted records; returns the new count. */
extern size_t bf_records_unique(uint64_t *recs, size_t n, int width);

/*
 * Sorts and deduplicates recs[0..n), whose first nsorted records are already
 * sorted and distinct; returns the number of distinct records.
 */
extern size_t bf_records_sort_unique(uint64_t *recs, size_t nsorted, size_t n, int width);

/*
 * A min-heap of merge cursors.  Each cursor shows its current record in
 * cur[i] (NULL when exhausted); the host advances cursors, the heap only
 * orders them.
 */
typedef struct BfMergeHeap
{
	int			width;
	int			n;				/* live cursors in heap[] */
	int		   *heap;			/* cursor numbers, heap-ordered */
	const uint64_t **cur;		/* current record of every cursor */
} BfMergeHeap;

/* Orders heap[0..n) (n live cursors) after the host filled cur[] and heap[]. */
extern void bf_merge_heap_build(BfMergeHeap *h);

/* Cursor number with the smallest current record (n must be > 0). */
static inline int
bf_merge_heap_top(const BfMergeHeap *h)
{
	return h->heap[0];
}

/*
 * Restores the order after the top cursor advanced; drops it when its
 * cur[] became NULL.
 */
extern void bf_merge_heap_top_advanced(BfMergeHeap *h);

#endif							/* BF_HASH_RECORDS_H */
