/*
 * layout_splitblock.h
 *	  The 'parquet' layout: the split-block Bloom filter of the Parquet
 *	  format specification, bit for bit.  Blocks of 256 bits, each eight
 *	  32-bit words (little-endian, in order); a value's 64-bit hash (XXH64,
 *	  seed 0, of its plain encoding) picks the block from its high half by
 *	  multiply-shift, and sets one bit in each of the eight words from its
 *	  low half times eight fixed odd salts, the top five bits of each
 *	  product.  The BloomHash its insert and query take is that hash in h1
 *	  (h2 unused).  A filter is 32 bytes to 128 MiB.
 *
 *	  Callers go through core/filter.h; same operations as every layout_*.h.
 */
#ifndef LAYOUT_SPLITBLOCK_H
#define LAYOUT_SPLITBLOCK_H

#include "bf_base.h"

#define BF_SPLITBLOCK_BITS		256
#define BF_SPLITBLOCK_MIN_BYTES	32
#define BF_SPLITBLOCK_MAX_BYTES	(128 * 1024 * 1024)
#define BF_SPLITBLOCK_NHASHES	8	/* one bit per 32-bit word of a block */

/*
 * This layout's operations, under the names every layout_*.h uses: parallel
 * by design, since filter.c's layout table takes them by those names
 * (LAYOUT_ENTRIES), and each layout keeps its own insert and query, a hot
 * loop for one layout rather than one loop that branches on the layout.
 */
extern bool bf_splitblock_shape_for(double capacity, double fpp, BloomShape *shape,
									char *errbuf);
extern bool bf_splitblock_shape_check(const BloomShape *shape, char *errbuf);
extern bool bf_splitblock_insert(BloomFilter *f, BloomHash h);
extern bool bf_splitblock_query(const BloomFilter *f, BloomHash h);
extern void bf_splitblock_prefetch(const BloomFilter *f, BloomHash h);
extern bool bf_splitblock_contains_value(const BloomFilter *f, uint64_t value_hash);
extern double bf_splitblock_estimate_count(const BloomFilter *f);
extern double bf_splitblock_estimate_fpp(const BloomFilter *f);

/* The specification's size for n values at rate p, in bytes (power of two). */
extern uint64_t bf_splitblock_bytes_for(double n, double p);

#endif							/* LAYOUT_SPLITBLOCK_H */
