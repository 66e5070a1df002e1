/*
 * layout_matrix.h
 *	  The 'matrix' layout: the M-Balance Matrix Bloom Filter (M-BMBF) of
 *	  Yang & Huang (2017).  Rows that balance their load, so a filter filled
 *	  past its capacity degrades more slowly; a query reads s rows.
 *
 *	  The nbits bits form r rows of row_bits = nbits / r bits each (row i is
 *	  bits [i * row_bits, (i + 1) * row_bits)).  The s locating hashes split
 *	  the rows into s groups of consecutive rows, as even as possible (the
 *	  first r mod s groups have one row more); a value has one candidate row
 *	  in each group and the same k in-row positions in every candidate.
 *	  Insertion sets the value's bits in one candidate only: the one needing
 *	  the fewest new bits among those that are not full (at least half of
 *	  their bits set).  A query succeeds if any candidate has all k bits set.
 *
 *	  Ties between candidates that need equally few new bits go to the
 *	  emptier row (then the first group), which keeps the rows filling
 *	  together; or, with BLOOM_FLAG_MATRIX_TIES_FIRST in the header, to the
 *	  first candidate in group order, which fills the groups one after
 *	  another: the rule that reproduces the paper's Table 1, and the worse
 *	  filter at every load (doc/matrix.md, "Which rule").
 *
 *	  In memory, the bit words are followed by one 64-bit counter per row
 *	  holding the number of bits set in that row, so insertion learns a
 *	  candidate's fill in O(1) instead of counting a whole row.  The counters
 *	  are derived data: the binary format does not carry them, and readers
 *	  recompute them from the bits (doc/format.md, "Matrix layout").
 *
 *	  Callers go through core/filter.h, which dispatches on the layout; open
 *	  this file for the rows, their counters and the insertion rule.  Same
 *	  operations as every layout_*.h, plus what the matrix adds to the set
 *	  operations of filter.c's table (the tie rule two filters must share,
 *	  the counters and full_at after a union or an intersection) and the
 *	  counters' upkeep that readers call.  The groups of rows are
 *	  layout_matrix_groups.h; the count estimate integrates the model of
 *	  layout_matrix_model.h, which this layout alone calls.
 */
#ifndef LAYOUT_MATRIX_H
#define LAYOUT_MATRIX_H

#include "bf_base.h"
#include "layout_matrix_groups.h"

/*
 * Layout chosen by bloom_empty(capacity, fpp, 'matrix') (see
 * bf_matrix_shape_for): 2 locators, and 8 rows when each holds at least
 * BLOOM_MATRIX_VALUES_PER_ROW values at capacity, else 4, else 2.
 */
#define BLOOM_MATRIX_DEFAULT_ROWS		8
#define BLOOM_MATRIX_DEFAULT_LOCATORS	2
#define BLOOM_MATRIX_VALUES_PER_ROW		512

static inline uint64_t
bf_matrix_row_bits(const BloomFilter *f)
{
	return f->nbits / f->rows;
}

/* True if ties go to the first candidate (the paper's rule), not the emptier. */
static inline bool
bf_matrix_ties_first(const BloomFilter *f)
{
	return (f->flags & BLOOM_FLAG_MATRIX_TIES_FIRST) != 0;
}

/* Names of the two tie rules, as SQL spells them. */
#define BLOOM_MATRIX_TIES_EMPTIER	"emptier"
#define BLOOM_MATRIX_TIES_FIRST		"first"

static inline const char *
bf_matrix_ties_name(const BloomFilter *f)
{
	return bf_matrix_ties_first(f) ? BLOOM_MATRIX_TIES_FIRST : BLOOM_MATRIX_TIES_EMPTIER;
}

/* The per-row set-bit counters, after the bit words. */
static inline uint64_t *
bf_matrix_counters(BloomFilter *f)
{
	return f->words + bf_nwords(f);
}

static inline const uint64_t *
bf_matrix_counters_const(const BloomFilter *f)
{
	return f->words + bf_nwords(f);
}

/* True if a row counts as full: at least half of its bits set. */
static inline bool
bf_matrix_row_full(uint64_t bits_set, uint64_t row_bits)
{
	return bits_set >= row_bits - row_bits / 2;
}

/*
 * This layout's operations, under the names every layout_*.h uses: parallel
 * by design, since filter.c's layout table takes them by those names
 * (LAYOUT_ENTRIES), and each layout keeps its own insert and query, a hot
 * loop for one layout rather than one loop that branches on the layout.
 */
/*
 * The shape for capacity values at fpp: 2 locators, 2 to 8 rows by the
 * capacity, and the fewest words per row for which 95% of filters stay at
 * or under fpp (layout_matrix.c, doc/layouts.md).
 */
extern bool bf_matrix_shape_for(double capacity, double fpp, BloomShape *shape,
								char *errbuf);

/*
 * Rules of this layout (1 <= locators <= rows, locators at most 64, rows of
 * equal length, total size with the counters); the generic ones (nbits,
 * nhashes) are bf_shape_check's.
 */
extern bool bf_matrix_shape_check(const BloomShape *shape, char *errbuf);

/*
 * Adds a value and counts it (f->inserted is the number of values held
 * before it, which becomes full_at if this is the first value whose
 * candidates are all full).  Returns true if any bit changed.
 */
extern bool bf_matrix_insert(BloomFilter *f, BloomHash h);

/* True if any candidate row has all k bits of the value. */
extern bool bf_matrix_query(const BloomFilter *f, BloomHash h);

/* The same, from the value's hash (bf_hash_derive, then the query). */
extern bool bf_matrix_contains_value(const BloomFilter *f, uint64_t value_hash);

/* Nothing to load ahead: the candidates depend on their rows' counters. */
extern void bf_matrix_prefetch(const BloomFilter *f, BloomHash h);

/*
 * Values held, from the bits set and a model of the insertion rule
 * (layout_matrix_model.h): longest bit match sets fewer than k new bits per
 * value, so the classic estimate would read low.
 */
extern double bf_matrix_estimate_count(const BloomFilter *f);

/*
 * False-positive probability from the rows' fills: 1 - prod over groups of
 * (1 - mean over the group's rows of fill^k).
 */
extern double bf_matrix_estimate_fpp(const BloomFilter *f);

/* Recomputes the per-row counters from the bits (after OR, AND or reading). */
extern void bf_matrix_recount(BloomFilter *f);

/* True if every counter equals its row's number of set bits. */
extern bool bf_matrix_counters_consistent(const BloomFilter *f);

/* full_at of dst after dst |= src (see doc/matrix.md). */
extern int64_t bf_matrix_union_full_at(int64_t a, int64_t b);

/*
 * The matrix's rule for two filters of which one or both are matrices:
 * true if a and b break ties alike (a filter of another layout never
 * carries the flag, so it breaks them as the emptier rule); false with a
 * message naming both rules otherwise.  Part of what two filters must
 * share to be united, intersected or equal.
 */
extern bool bf_matrix_combinable(const BloomFilter *a, const BloomFilter *b,
								 char *errbuf);

/*
 * After dst |= src on the bits: the counters recounted, and full_at the
 * earlier of the two (bf_matrix_union_full_at).
 */
extern void bf_matrix_after_union(BloomFilter *dst, const BloomFilter *src);

/*
 * After dst &= src on the bits (or dst kept as an intersection's result):
 * the counters recounted, and full_at reset, since the rows shrink and
 * whether they would be full is unknown: the intersection has met no full
 * candidates of its own.
 */
extern void bf_matrix_after_intersect(BloomFilter *dst);

#endif							/* LAYOUT_MATRIX_H */
