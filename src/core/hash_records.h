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
 *	  no other file of the core (hash_records.c takes the byte order of the
 *	  packed form from core/little_endian.h and its radix sort from
 *	  core/radix_sort.h).
 */
#ifndef BF_HASH_RECORDS_H
#define BF_HASH_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
 * Sorts n records of width words in place: one-word records (below 2^32 of
 * them) by radix (radix_sort.h), wider ones by three-way quicksort (inputs
 * full of duplicates, the common case, sort in linear time).
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
 * The same in an array with room for cap >= n records, recs[n..cap) being
 * scratch: when the room can hold the deduplicated tail recs[nsorted..n),
 * only the tail is sorted, and then merged into the prefix (a buffer that
 * keeps growing is not sorted again from the start each time); otherwise
 * the whole.  One-word records sort twice as fast when the room holds the
 * whole tail (radix_sort.h: the scratch copy).
 */
extern size_t bf_records_sort_unique_in(uint64_t *recs, size_t nsorted, size_t n,
										size_t cap, int width);

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

/*
 * The packed form of ascending, distinct records: how the distinct-hash
 * collector ships a partial aggregate state between processes.  Sorted
 * distinct hashes are dense: n of them are about 2^64/n apart, so word 0 of
 * each record is stored as its gap from the previous record's word 0,
 * Rice-coded (the gap's low k bits verbatim, the rest in unary), and the
 * other words verbatim.  k is chosen for each block of BF_PACK_BLOCK records
 * from the block's span, so every distribution packs within bf_pack_bound
 * and uniform hashes take about 66 - log2(n) bits each (5.4 bytes instead of
 * 8 at n = 10^7).  Bits go least significant first into consecutive bytes;
 * each block starts with its k in 6 bits; the last byte is padded with
 * zeros.
 */
#define BF_PACK_BLOCK		128

typedef struct BfPackWriter
{
	uint8_t    *out;			/* cap bytes, of which len written */
	size_t		cap;
	size_t		len;
	uint64_t	acc;			/* bits not yet written, nacc of them */
	int			nacc;
	int			width;
	uint64_t	prev;			/* word 0 of the last record packed */
	uint64_t   *block;			/* BF_PACK_BLOCK records waiting for their k */
	size_t		nblock;
	uint64_t	last[BF_RECORD_MAX_WIDTH];	/* the last record added */
	uint64_t	count;			/* records added */
	bool		failed;			/* out of room, or not ascending and distinct */
} BfPackWriter;

/*
 * Bytes that n records of width words can take at most, whatever their
 * values; SIZE_MAX if that does not fit a size_t.
 */
extern size_t bf_pack_bound(uint64_t n, int width);

/*
 * Starts packing into out (cap bytes).  block is room for BF_PACK_BLOCK
 * records of width words, owned by the caller.
 */
extern void bf_pack_init(BfPackWriter *w, int width, uint64_t *block,
						 uint8_t *out, size_t cap);

/* Packs the block of waiting records (bf_pack_add calls it when full). */
extern void bf_pack_flush_block(BfPackWriter *w);

/* Adds the next record: records must come ascending and distinct. */
static inline void
bf_pack_add(BfPackWriter *w, const uint64_t *rec)
{
	if (w->width == 1)
		w->block[w->nblock] = rec[0];
	else
		memcpy(w->block + w->nblock * w->width, rec, sizeof(uint64_t) * w->width);
	if (++w->nblock == BF_PACK_BLOCK)
		bf_pack_flush_block(w);
}

/*
 * Packs what is left; true unless the records were not ascending and
 * distinct or out was too small.  w->len is then the packed size.
 */
extern bool bf_pack_finish(BfPackWriter *w);

typedef struct BfPackReader
{
	const uint8_t *in;			/* len bytes, of which pos read into acc */
	size_t		len;
	size_t		pos;
	uint64_t	acc;			/* bits read but not used, nacc of them */
	int			nacc;
	int			width;
	uint64_t	remaining;		/* records not yet unpacked */
	int			k;				/* of the current block */
	int			left_in_block;
	bool		have_last;
	uint64_t	last[BF_RECORD_MAX_WIDTH];
} BfPackReader;

/* Starts unpacking count records of width words from in (len bytes). */
extern void bf_unpack_init(BfPackReader *r, const uint8_t *in, size_t len,
						   int width, uint64_t count);

/*
 * Unpacks up to max records into out; returns how many (0 once all are
 * read), or -1 if the input is damaged: it ends early, or the records it
 * holds are not ascending and distinct.
 */
extern int64_t bf_unpack(BfPackReader *r, uint64_t *out, size_t max);

/* True when every record was read and nothing but padding is left. */
extern bool bf_unpack_done(const BfPackReader *r);

#endif							/* BF_HASH_RECORDS_H */
