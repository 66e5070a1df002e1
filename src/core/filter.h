/*
 * filter.h
 *	  A Bloom filter of any layout: shapes and sizing, insertion and lookup,
 *	  a prefetching inserter for bulk loads, set operations, folding,
 *	  equality and statistics.  Plain C, no PostgreSQL, so it is unit-tested
 *	  and fuzzed on its own; src/bloom*.c is the SQL glue.
 *
 *	  This is the header to include for working with filters in memory.  It
 *	  dispatches on f->layout, through one table, to one of layout_classic.h,
 *	  layout_blocked.h, layout_matrix.h or the explicit list of
 *	  layout_explicit.h (include those only for a layout's own helpers); the
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
#include "layout_explicit.h"

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
 * Shape of the data-sized filter of ndistinct collected value hashes, with
 * this seed: explicit (the list itself) up to BLOOM_EXPLICIT_MAX, else the
 * bit array of bf_shape_datasized.  What bloom_agg(value) returns, and what
 * a union of lists becomes.  Fill it with a BfBuilder.
 */
extern bool bf_shape_collected(double ndistinct, uint64_t seed, BloomShape *shape,
							   char *errbuf);

static inline bool
bf_is_datasized(const BloomFilter *f)
{
	return (f->flags & BLOOM_FLAG_AUTOSIZED) != 0;
}

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

/* ---- insertion and lookup in bit arrays (h from bf_hash_derive) ---- */

/*
 * Adds a value; returns true if any bit changed.  Counts it in f->inserted.
 * Bit arrays only: an explicit filter cannot grow in place (it is left
 * unchanged; add to it with the set operations below).
 */
extern bool bf_insert(BloomFilter *f, BloomHash h);

/*
 * True if all of the value's bits are set (member or false positive).  Bit
 * arrays only (an explicit filter answers true); bf_contains_value takes
 * every representation.
 */
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
 * bit.  The inserter is a pipeline BF_INSERTER_DEPTH values deep: a value
 * added has its positions computed (once: the classic layout's positions,
 * the blocked layout's block) and every cache line they fall in
 * prefetched at once, and its bits are set only when BF_INSERTER_DEPTH
 * later values have been added.  So the misses overlap one another and
 * whatever the caller does between two values (an aggregate: the scan of
 * the next rows), and no value waits for its memory the way the first of a
 * batch does.  The measurements: doc/performance.md.  The bits, the matrix
 * counters and the insert count are exactly those of bf_insert called on
 * the same values in the same order, once bf_inserter_flush has run.
 *
 * It holds only the pending values: pass the same filter to every call
 * until the flush, and flush before the filter is read, copied, combined or
 * handed to another inserter.  A zeroed BfInserter is empty.
 */
#define BF_INSERTER_DEPTH	16	/* a power of two */

typedef struct BfInserter
{
	uint32_t	npending;		/* values staged, not yet inserted */
	uint32_t	oldest;			/* the slot of the oldest of them */
	BfStaged	pending[BF_INSERTER_DEPTH];	/* a ring */
} BfInserter;

extern void bf_inserter_init(BfInserter *ins);

/* Inserts the pending values, oldest first; the inserter is then empty. */
extern void bf_inserter_flush(BfInserter *ins, BloomFilter *f);

/*
 * Adds a value: staged now, inserted once BF_INSERTER_DEPTH later values
 * are staged, or at the flush.
 */
extern void bf_inserter_add(BfInserter *ins, BloomFilter *f, BloomHash h);

/* ---- any representation, by the value's hash (H(value, f->seed)) ---- */

/* True if the value may be in f: a binary search of a list, or bf_query. */
extern bool bf_contains_value(const BloomFilter *f, uint64_t value_hash);

/*
 * Probes many values at once: found[i] = bf_contains_value(f, hashes[i])
 * for i < n, for every representation; returns how many were found.  A bit
 * array larger than the caches costs one memory miss per value probed one
 * at a time, and the misses follow one another.  Here the positions of up
 * to BF_PROBE_BATCH values are derived and every cache line they fall in is
 * prefetched before the first is tested, so the misses of a batch overlap
 * (group prefetching; doc/performance.md has the measurements).  A list
 * (the explicit layout) is small enough to stay in the cache: it is
 * searched value by value.
 */
#define BF_PROBE_BATCH			64

extern int	bf_probe_batch(const BloomFilter *f, const uint64_t *hashes, int n,
						   bool *found);

/*
 * The same by the values' positions' hashes: found[i] = bf_query(f, h[i]),
 * lines prefetched a batch at a time when the filter is larger than the
 * caches.  The probe of an interop filter (bf_layout_interop), whose h are
 * the other system's hashes of the values (core/interop_format.h).
 */
extern int	bf_query_batch(const BloomFilter *f, const BloomHash *h, int n, bool *found);

/* True if f holds no value: no hash listed, no bit set. */
extern bool bf_is_empty(const BloomFilter *f);

/*
 * Fills an empty filter of a bf_shape_collected shape (bf_init'ed, words
 * zeroed) with that many distinct value hashes, given in ascending order:
 * a list takes them as they come, a bit array inserts them through a
 * prefetching inserter.  After bf_builder_finish the caller sets
 * f->inserted (the builder counts nothing the caller can rely on).
 */
typedef struct BfBuilder
{
	BloomFilter *f;
	uint64_t	listed;			/* explicit: hashes written */
	BfInserter	inserter;		/* bit array: values not yet inserted */
} BfBuilder;

extern void bf_builder_start(BfBuilder *b, BloomFilter *f);
extern void bf_builder_add(BfBuilder *b, uint64_t value_hash);
extern void bf_builder_finish(BfBuilder *b);

/* ---- set operations ---- */

/*
 * True if a and b can be united or intersected; otherwise false and errbuf
 * says why: value hashes of scheme 3 against those of schemes 1 and 2
 * (lists included: some values hash differently), different hash schemes
 * of two bit arrays (the same value has other positions under each, so no
 * size or shape makes them combine), or different shapes, naming both.  Bit
 * arrays combine when their shapes are equal or fold (bf_foldable).
 * Data-sized filters of the same seed also combine whatever their sizes and
 * position schemes (1 or 2) when one of them is a list (value hashes, not
 * positions) or empty.
 */
extern bool bf_compatible(const BloomFilter *a, const BloomFilter *b, char *errbuf);

/*
 * a | b and a & b for every representation, in two steps, so the caller
 * allocates the result: bf_setop_plan checks compatibility and says what
 * the result is (its shape and bytes), bf_setop_build writes it.  The rules
 * (doc/aggregates.md, section 3):
 *   - an empty data-sized filter (empty list, or no bit set) is the identity
 *     of union, whatever its size: the result is the other filter (counts
 *     combined); intersecting with it gives an empty filter;
 *   - list | bit array: the bit array with the listed values inserted, at
 *     its own size (the list never folds it);
 *   - list | list: the merged list, or past BLOOM_EXPLICIT_MAX the
 *     data-sized bit array sized for the merged count;
 *   - list & anything: the listed hashes the other filter may hold (exact
 *     between two lists);
 *   - bit array | or & bit array: OR / AND, the larger folded onto the
 *     smaller (bf_union_into, bf_intersect_into).
 * inserted: the sum for a union (at most 2^64 - 1), the minimum for an
 * intersection; the result is data-sized only if both are.
 */
typedef enum BfSetopKind
{
	BF_SETOP_BITS,				/* OR / AND onto the smaller bit array */
	BF_SETOP_IDENTITY,			/* the base filter (an empty operand) */
	BF_SETOP_LIST_INTO_BITS,	/* union: the bit array, the list inserted */
	BF_SETOP_MERGE_LISTS,		/* union of two lists */
	BF_SETOP_FILTER_LIST		/* intersection: the list, filtered */
} BfSetopKind;

typedef struct BfSetop
{
	BfSetopKind kind;
	bool		intersect;
	bool		base_is_b;		/* the result starts from b, else from a */
	uint64_t	count;			/* MERGE_LISTS, FILTER_LIST: hashes held */
	BloomShape	shape;			/* of the result */
	uint64_t	bytes;			/* of the result, bf_shape_bytes(shape) */
} BfSetop;

extern bool bf_setop_plan(const BloomFilter *a, const BloomFilter *b, bool intersect,
						  BfSetop *op, char *errbuf);

/* True if bf_setop_build may write the result over a itself. */
extern bool bf_setop_in_place(const BfSetop *op);

/*
 * Writes the result of the plan into dst: op->bytes bytes, zeroed, whose
 * length word the host owns (never written here); or a itself when
 * bf_setop_in_place.
 */
extern void bf_setop_build(BloomFilter *dst, const BloomFilter *a, const BloomFilter *b,
						   const BfSetop *op);

/*
 * dst |= src, dst &= src, for two bit arrays (the BF_SETOP_BITS step of the
 * set operations).  The shapes must be equal or foldable, and dst must not
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

/* ---- statistics (a list: no bits set, its exact count, n / 2^64) ---- */
extern uint64_t bf_bits_set(const BloomFilter *f);
extern double bf_estimate_count(const BloomFilter *f);	/* values held */
extern double bf_estimate_fpp(const BloomFilter *f);	/* rate as filled */

#endif							/* BF_FILTER_H */
