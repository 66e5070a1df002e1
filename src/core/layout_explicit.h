/*
 * layout_explicit.h
 *	  The 'explicit' representation of a small data-sized filter: instead of
 *	  bits, the sorted list of its distinct values' 64-bit hashes (the
 *	  type's extended hash with the filter's seed, what bloom_agg(value)
 *	  collects before any bit position is derived), as postgresql-hll keeps
 *	  small sets explicitly.  So a small filter unites with a large one by
 *	  adding its values at the large one's size instead of folding it down,
 *	  and its answers are exact but for two values whose 64-bit hashes
 *	  collide.  Past BLOOM_EXPLICIT_MAX values the list becomes a bit array
 *	  of the data-sized shape (filter.h: bf_shape_collected, the set
 *	  operations).
 *
 *	  In memory and in the binary format the list takes the place of the
 *	  bit words: nbits is 64 times the number of hashes (0 when empty),
 *	  nhashes, rows and locators are 0, and the hashes are ascending and
 *	  distinct as unsigned 64-bit numbers (doc/format.md).  The list holds
 *	  value hashes, not positions: the same under hash schemes 1 and 2 (the
 *	  type's extended hash), while scheme 3 hashes 64-bit quantities beyond
 *	  32 bits in full (bf_base.h), so the header's scheme says which hashes
 *	  a list holds.
 *
 *	  A row of the layout table in filter.c (BLOOM_LAYOUT_EXPLICIT), with
 *	  the operations every layout_*.h offers under parallel names.  Those
 *	  that take a value's derived words (insert, query, prefetch) do not
 *	  apply to a list of value hashes: it is left alone and never denies a
 *	  value.  It has no sizing for a capacity (its size is its values').
 *	  Callers go through filter.h's value-hash functions (bf_contains_value,
 *	  bf_probe_batch, the set operations, BfBuilder); open this file for the
 *	  list itself.
 */
#ifndef LAYOUT_EXPLICIT_H
#define LAYOUT_EXPLICIT_H

#include "bf_base.h"

/*
 * Most hashes an explicit filter holds; one more makes it a bit array.
 * 240 hashes make a value of 1,984 bytes: a summary row of a small key and
 * such a filter (2,016 bytes) stays under PostgreSQL's 2,032-byte TOAST
 * threshold and is read in place, and the bit array it becomes (4,096
 * bits, a quarter of its size) holds 426 values at the target rate.  The
 * measurements behind the choice: doc/aggregates.md, section 3.
 */
#define BLOOM_EXPLICIT_MAX		240

/* Number of hashes the filter lists. */
static inline uint64_t
bf_explicit_count(const BloomFilter *f)
{
	return f->nbits / 64;
}

static inline bool
bf_is_explicit(const BloomFilter *f)
{
	return f->layout == BLOOM_LAYOUT_EXPLICIT;
}

/* The shape of an explicit filter of n hashes (any n; the caller bounds it). */
extern void bf_explicit_shape(uint64_t n, uint64_t seed, BloomShape *shape);

/* The rules of the explicit shape: whole hashes, at most the maximum, no k. */
extern bool bf_explicit_shape_check(const BloomShape *shape, char *errbuf);

/*
 * True if hashes[0 .. n) ascend strictly (sorted and distinct); else false
 * with a message naming the first entry out of order.
 */
extern bool bf_explicit_order_check(const uint64_t *hashes, uint64_t n, char *errbuf);

/* True if value_hash is listed: a binary search. */
extern bool bf_explicit_contains_value(const BloomFilter *f, uint64_t value_hash);

/* found[i] = bf_explicit_contains_value(f, hashes[i]); returns how many. */
extern int	bf_explicit_probe_batch(const BloomFilter *f, const uint64_t *hashes, int n,
									bool *found);

/*
 * The entry points of derived words: a list takes values only through the
 * set operations (insert: unchanged, not counted, false), cannot deny one
 * by its derived words (query: true), and has nothing to load ahead.
 */
extern bool bf_explicit_insert(BloomFilter *f, BloomHash h);
extern bool bf_explicit_query(const BloomFilter *f, BloomHash h);
extern void bf_explicit_prefetch(const BloomFilter *f, BloomHash h);

/* True if the list holds no hash. */
extern bool bf_explicit_is_empty(const BloomFilter *f);

/*
 * A cursor over the union of two ascending, distinct lists: each call of
 * bf_list_merge_next gives the next hash of either, once, in ascending
 * order, until it returns false.  Unsorted input gives a wrong sequence,
 * never an access out of bounds.
 */
typedef struct BfListMerge
{
	const uint64_t *a;
	const uint64_t *b;
	uint64_t	na,
				nb,
				i,
				j;
} BfListMerge;

static inline BfListMerge
bf_list_merge_start(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb)
{
	BfListMerge m = {a, b, na, nb, 0, 0};

	return m;
}

static inline bool
bf_list_merge_next(BfListMerge *m, uint64_t *next)
{
	if (m->i < m->na && (m->j == m->nb || m->a[m->i] <= m->b[m->j]))
	{
		*next = m->a[m->i++];
		/* the same hash in both lists comes once */
		if (m->j < m->nb && m->b[m->j] == *next)
			m->j++;
		return true;
	}
	if (m->j < m->nb)
	{
		*next = m->b[m->j++];
		return true;
	}
	return false;
}

/*
 * The union of two ascending, distinct lists, written to out (room for
 * na + nb) unless out is NULL; returns its length.
 */
extern uint64_t bf_explicit_merge(const uint64_t *a, uint64_t na,
								  const uint64_t *b, uint64_t nb, uint64_t *out);

/* A list sets no bit: 0. */
extern uint64_t bf_explicit_bits_set(const BloomFilter *f);

/* The values listed: exactly the count. */
extern double bf_explicit_estimate_count(const BloomFilter *f);

/*
 * A value not listed matches only if its 64-bit hash equals a listed one:
 * n / 2^64 for n hashes.
 */
extern double bf_explicit_estimate_fpp(const BloomFilter *f);

#endif							/* LAYOUT_EXPLICIT_H */
