/*
 * layout_blocked_core.h
 *	  The 'blocked' layout: every bit of a value inside one 512-bit block,
 *	  one cache line, so a probe touches one line however large the filter
 *	  (Putze, Sanders & Singler, "Cache-, Hash- and Space-Efficient Bloom
 *	  Filters"; the split-block filters of Impala and Parquet work the same
 *	  way).  Plain C, no PostgreSQL.
 *
 *	  The block comes from h1 by multiply-shift over the number of blocks;
 *	  the bits inside the block come from h2 alone.  So a filter of f*B
 *	  blocks folds exactly onto a filter of B blocks by OR-ing each run of f
 *	  adjacent blocks, as the classic layout folds runs of bits.
 */
#ifndef LAYOUT_BLOCKED_CORE_H
#define LAYOUT_BLOCKED_CORE_H

#include "bloom_core.h"

#define BLOOM_BLOCK_WORDS	(BLOOM_BLOCK_BITS / 64)

/* Number of 512-bit blocks of a blocked filter. */
static inline uint64_t
blocked_nblocks(const BloomFilter *f)
{
	return f->nbits / BLOOM_BLOCK_BITS;
}

/* Index of the block that holds every bit of a value (h1 only). */
static inline uint64_t
blocked_block_index(uint64_t h1, uint64_t nblocks)
{
	return bf_reduce(h1, nblocks);
}

/*
 * In-block positions: nine bits each, taken from h2 and, past the seventh,
 * from further mixes of it.  They depend only on h2, never on the number of
 * blocks, which is what keeps filters foldable.
 */
#define BLOCKED_POSITIONS_PER_WORD	7	/* 9-bit fields in bits 1..63 of h2 */

static inline uint64_t
blocked_remix(uint64_t x)
{
	x ^= x >> 31;
	x *= UINT64_C(0x7fb5d329728ea185);
	x ^= x >> 27;
	x *= UINT64_C(0x81dadef4bc2dd44d);
	x ^= x >> 33;
	return x;
}

/* Adds a value; returns true if any bit changed. */
extern bool blocked_insert(BloomFilter *f, BloomHash h);

/* True if every bit of the value is set. */
extern bool blocked_query(const BloomFilter *f, BloomHash h);

/*
 * Expected false-positive rate of a blocked filter with nblocks blocks,
 * k bits per value and n values: block loads are Poisson with mean
 * n / nblocks, and a block holding i values answers a foreign probe wrongly
 * with the classic rate of a 512-bit filter holding i values.
 */
extern double blocked_expected_fpp(double n, uint64_t nblocks, uint32_t k);

/*
 * Smallest number of blocks (and the best k for it) whose expected rate
 * for capacity values is at most fpp.  False if more than max_blocks would
 * be needed.
 */
extern bool blocked_size_for(double capacity, double fpp, uint64_t max_blocks,
							 uint64_t *nblocks, uint32_t *k);

/* Statistics from the fill of each block. */
extern double blocked_estimate_count(const BloomFilter *f);
extern double blocked_estimate_fpp(const BloomFilter *f);

#endif							/* LAYOUT_BLOCKED_CORE_H */
