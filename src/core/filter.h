/*
 * filter.h
 *	  A Bloom filter of any layout: shapes and sizing, insertion and lookup,
 *	  a prefetching inserter for bulk loads, set operations, folding,
 *	  equality and statistics.  Plain C, no PostgreSQL, so it is unit-tested
 *	  and fuzzed on its own; src/bloom*.c is the SQL glue.
 *
 *	  This is the header to include for working with filters in memory.  It
 *	  dispatches on f->layout to one of layout_classic.h, layout_blocked.h or
 *	  layout_matrix.h (include those only for a layout's own helpers); the
 *	  binary format is core/wire.h, the multi-attribute filter
 *	  core/multibloom.h.
 *
 *	  A filter is a BloomFilter (bf_base.h) of bf_shape_bytes of its shape,
 *	  allocated and zeroed by the caller, then bf_init'ed.  Every function
 *	  here expects a filter whose shape passed bf_shape_check (bf_init'ed from
 *	  a checked shape, or read through core/wire.h); errors come back as false
 *	  with a message of at most BLOOM_ERRBUF_SIZE bytes in errbuf.
 */
#ifndef BF_FILTER_H
#define BF_FILTER_H

#include "bf_base.h"

/* ---- shapes and sizes ---- */

/*
 * Checks a shape; returns true if valid, else false with a message in errbuf.
 * Every constructor and reader goes through this.
 */
extern bool bf_shape_check(const BloomShape *shape, char *errbuf);

/*
 * Shape for capacity distinct values at false-positive rate fpp with the
 * given layout.  Returns false with a message if the parameters are out of
 * range or the filter would exceed the size limit.
 */
extern bool bf_shape_for(double capacity, double fpp, int layout,
						 BloomShape *shape, char *errbuf);

/*
 * Auto-sized filters (bloom_agg without a capacity): classic layout, the
 * number of hash functions fixed by the target rate alone, and a power-of-two
 * number of 64-bit words, so any two of them have sizes that divide each
 * other and the larger folds onto the smaller (bf_fold).
 */
#define BLOOM_AUTO_FPP			0.01
#define BLOOM_AUTO_NHASHES		7	/* round(-log2(0.01)) */

/*
 * Shape of the auto-sized filter for ndistinct values (0 allowed: the
 * smallest, one-word filter): the fewest power-of-two words whose expected
 * rate with BLOOM_AUTO_NHASHES hashes is at most BLOOM_AUTO_FPP.
 */
extern bool bf_shape_datasized(double ndistinct, BloomShape *shape, char *errbuf);

/*
 * Writes the header of an empty filter of this shape, under the newest hash
 * scheme (BLOOM_HASH_SCHEME_NEWEST); words must be zeroed.  A filter built
 * from existing ones keeps theirs (bf_fold; copies keep the header).
 */
extern void bf_init(BloomFilter *f, const BloomShape *shape);

extern void bf_get_shape(const BloomFilter *f, BloomShape *shape);

/* Bytes of a filter in memory, from its header (matrix counters included). */
extern uint64_t bf_filter_bytes(const BloomFilter *f);

extern const char *bf_layout_name(int layout);	/* "unknown" if out of range */
extern int	bf_layout_from_name(const char *name);	/* -1 if unknown */

/* Describes a shape as text, e.g. for error messages. */
extern void bf_shape_describe(const BloomShape *shape, char *buf, size_t len);

/* ---- insertion and lookup (h from bf_hash_derive) ---- */

/* Adds a value; returns true if any bit changed.  Counts it in f->inserted. */
extern bool bf_insert(BloomFilter *f, BloomHash h);

/* True if all of the value's bits are set (member or false positive). */
extern bool bf_query(const BloomFilter *f, BloomHash h);

/*
 * Asks the CPU to start loading the memory a later bf_insert or bf_query of
 * h will touch.  Only a hint: no effect on the bits.  Bulk inserts use
 * BfInserter below rather than calling this themselves.
 */
extern void bf_prefetch(const BloomFilter *f, BloomHash h);

/*
 * The prefetching inserter, for callers that add many values in a row (the
 * aggregates, bloom_add_all).  A large filter misses the cache on every
 * bit; the inserter prefetches each new value and inserts it
 * BF_INSERTER_DISTANCE values later, so several misses overlap (see
 * doc/aggregates.md for the measurements).  The bits
 * and the insert count are exactly those of bf_insert called on the same
 * values in the same order, once bf_inserter_flush has run.
 *
 * It holds only the pending values: pass the same filter to every call
 * until the flush, and flush before the filter is read, copied, combined or
 * handed to another inserter.  A zeroed BfInserter is empty.
 */
#define BF_INSERTER_DISTANCE	8

typedef struct BfInserter
{
	int			npending;		/* values in pending[] */
	int			oldest;			/* slot of the oldest once pending[] is full */
	BloomHash	pending[BF_INSERTER_DISTANCE];
} BfInserter;

extern void bf_inserter_init(BfInserter *ins);

/* Inserts the pending values, oldest first; the inserter is then empty. */
extern void bf_inserter_flush(BfInserter *ins, BloomFilter *f);

/* Adds a value: prefetched now, inserted after BF_INSERTER_DISTANCE more. */
static inline void
bf_inserter_add(BfInserter *ins, BloomFilter *f, BloomHash h)
{
	bf_prefetch(f, h);
	if (ins->npending < BF_INSERTER_DISTANCE)
	{
		ins->pending[ins->npending++] = h;
		return;
	}
	bf_insert(f, ins->pending[ins->oldest]);
	ins->pending[ins->oldest] = h;
	ins->oldest = (ins->oldest + 1) % BF_INSERTER_DISTANCE;
}

/* ---- set operations ---- */

/*
 * True if a and b can be united or intersected; otherwise false and errbuf
 * says why: different hash schemes (checked first: the same value has other
 * positions under each, so no size or shape makes them combine), or
 * different shapes, naming both.
 */
extern bool bf_compatible(const BloomFilter *a, const BloomFilter *b, char *errbuf);

/*
 * dst |= src, dst &= src.  The shapes must be compatible, and dst must not
 * have more bits than src: when src has more (two auto-sized filters of
 * different sizes), src is folded onto dst's size on the fly.  The result
 * keeps BLOOM_FLAG_AUTOSIZED only if both had it.
 */
extern void bf_union_into(BloomFilter *dst, const BloomFilter *src);
extern void bf_intersect_into(BloomFilter *dst, const BloomFilter *src);

/*
 * True if filters of a's and b's shapes fold onto a common size: both
 * auto-sized, classic, with the same hash scheme, hash functions and seed,
 * and power-of-two word counts.  Shapes that are equal need no folding.
 */
extern bool bf_foldable(const BloomFilter *a, const BloomFilter *b);

/*
 * Folds src onto dst, which has src's header but fewer bits (nbits divides
 * src's nbits; dst's words must be zeroed): bit j of dst becomes the OR of
 * the f = src/dst adjacent bits j*f .. j*f+f-1 of src.  For the classic
 * layout that is exactly the filter of dst's size holding the same values.
 * dst takes src's hash scheme, insert count and flags.
 */
extern void bf_fold(const BloomFilter *src, BloomFilter *dst);

/* Identical shape and bits (insert counts are not compared). */
extern bool bf_equal(const BloomFilter *a, const BloomFilter *b);

/* ---- statistics ---- */
extern uint64_t bf_bits_set(const BloomFilter *f);
extern double bf_estimate_count(const BloomFilter *f);	/* values held */
extern double bf_estimate_fpp(const BloomFilter *f);	/* rate as filled */

#endif							/* BF_FILTER_H */
