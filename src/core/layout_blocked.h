/*
 * layout_blocked.h
 *	  The 'blocked' layout: every bit of a value inside one 512-bit block,
 *	  one cache line, so a probe touches one line however large the filter
 *	  (Putze, Sanders & Singler, "Cache-, Hash- and Space-Efficient Bloom
 *	  Filters"; the split-block filters of Impala and Parquet work the same
 *	  way).  It needs more bits than the classic layout for the same rate;
 *	  choose it when the filter is larger than the caches and probes dominate.
 *
 *	  The block comes from h1 by multiply-shift over the number of blocks;
 *	  the bits inside the block from words that do not depend on it (the
 *	  value's position words 1, 2, ... under hash scheme 2; h2 and remixes
 *	  of it under scheme 1).  So a filter of f*B blocks folds exactly onto a
 *	  filter of B blocks by OR-ing each run of f adjacent blocks, as the
 *	  classic layout folds runs of bits.
 *
 *	  Callers go through core/filter.h, which dispatches on the layout; open
 *	  this file for the block placement, the exact-rate sizing and the
 *	  per-block statistics.  Same operations as every layout_*.h.
 */
#ifndef LAYOUT_BLOCKED_H
#define LAYOUT_BLOCKED_H

#include "bf_base.h"

#define BLOOM_BLOCK_WORDS	(BLOOM_BLOCK_BITS / 64)

/* Number of 512-bit blocks of a blocked filter. */
static inline uint64_t
bf_blocked_nblocks(const BloomFilter *f)
{
	return f->nbits / BLOOM_BLOCK_BITS;
}

/* Index of the block that holds every bit of a value (h1 only). */
static inline uint64_t
bf_blocked_block_index(uint64_t h1, uint64_t nblocks)
{
	return bf_reduce(h1, nblocks);
}

/*
 * This layout's operations, under the names every layout_*.h uses: parallel
 * by design, since filter.c's layout table takes them by those names
 * (LAYOUT_ENTRIES), and each layout keeps its own insert and query, a hot
 * loop for one layout rather than one loop that branches on the layout.
 */
/*
 * Shape for capacity values at rate fpp: the fewest blocks for which 95% of
 * filters stay at or under fpp (bf_blocked_size_for), not the classic
 * formula, since busy blocks answer wrongly more often than quiet ones save.
 */
extern bool bf_blocked_shape_for(double capacity, double fpp, BloomShape *shape,
								 char *errbuf);

/* Rule of this layout: the number of bits is a whole number of blocks. */
extern bool bf_blocked_shape_check(const BloomShape *shape, char *errbuf);

/* Adds a value and counts it; true if any bit changed. */
extern bool bf_blocked_insert(BloomFilter *f, BloomHash h);

/* True if every bit of the value is set. */
extern bool bf_blocked_query(const BloomFilter *f, BloomHash h);

/* The same, from the value's hash (bf_hash_derive, then the query). */
extern bool bf_blocked_contains_value(const BloomFilter *f, uint64_t value_hash);

/* Starts loading the value's block (all its k bits). */
extern void bf_blocked_prefetch(const BloomFilter *f, BloomHash h);

/*
 * The inserter's steps (core/filter.h): stage finds the value's block and
 * prefetches it; commit sets the value's bits in it and counts the value,
 * exactly as bf_blocked_insert.
 */
extern void bf_blocked_stage(const BloomFilter *f, BfStaged *v);
extern void bf_blocked_commit(BloomFilter *f, const BfStaged *v);

/* Statistics from the fill of each block. */
extern double bf_blocked_estimate_count(const BloomFilter *f);
extern double bf_blocked_estimate_fpp(const BloomFilter *f);

/*
 * The fewest blocks, from the size of the optimal classic filter up, for
 * which some k of 1 .. ceil(log2(1 / fpp)) keeps 95% of filters of
 * capacity values at or under fpp (bf_rate_quantile of core/sizing.h with
 * blocks of 512 bits), and the k with the lowest such rate (the smallest on
 * ties).  False if more than max_blocks would be needed.
 */
extern bool bf_blocked_size_for(double capacity, double fpp, uint64_t max_blocks,
								uint64_t *nblocks, uint32_t *k);

#endif							/* LAYOUT_BLOCKED_H */
