/*
 * layout_classic.h
 *	  The 'classic' layout: a value sets k bits anywhere in the filter's m
 *	  bits, bit i the value's i-th 64-bit word mapped onto [0, m) by
 *	  multiply-shift (BfProbe in bf_base.h): under hash scheme 2 its
 *	  independent position words, under scheme 1 (stored filters) enhanced
 *	  double hashing.  The smallest filter for a rate; a probe of a large
 *	  filter misses the cache up to k times.
 *
 *	  Because the words do not depend on m and the reduction is
 *	  monotone, a filter of f*m bits folds onto one of m bits by OR-ing runs
 *	  of f adjacent bits, giving exactly the bits of an m-bit filter: the
 *	  auto-sized aggregates rely on it (bf_fold in core/filter.h).
 *
 *	  Callers go through core/filter.h, which dispatches on the layout; open
 *	  this file to see or change how the classic layout places its bits.
 *	  Every layout_*.h offers the same operations under parallel names.
 */
#ifndef LAYOUT_CLASSIC_H
#define LAYOUT_CLASSIC_H

#include "bf_base.h"

/*
 * This layout's operations, under the names every layout_*.h uses: parallel
 * by design, since filter.c's layout table takes them by those names
 * (LAYOUT_ENTRIES), and each layout keeps its own insert and query, a hot
 * loop for one layout rather than one loop that branches on the layout.
 */
/*
 * Shape for capacity values at rate fpp (both already range-checked): k is
 * log2(1 / fpp) rounded down or up, and m the fewest whole words for which
 * 95% of filters holding capacity values stay at or under fpp
 * (core/sizing.h, doc/layouts.md).
 */
extern bool bf_classic_shape_for(double capacity, double fpp, BloomShape *shape,
								 char *errbuf);

/*
 * Rules of this layout beyond the generic ones of bf_shape_check: none
 * (any number of bits from 1 up), so it always passes.
 */
extern bool bf_classic_shape_check(const BloomShape *shape, char *errbuf);

/* Adds a value and counts it; true if any bit changed. */
extern bool bf_classic_insert(BloomFilter *f, BloomHash h);

/* True if all of the value's k bits are set. */
extern bool bf_classic_query(const BloomFilter *f, BloomHash h);

/* The same, from the value's hash (bf_hash_derive, then the query). */
extern bool bf_classic_contains_value(const BloomFilter *f, uint64_t value_hash);

/* Starts loading the k words a later insert or query of h touches. */
extern void bf_classic_prefetch(const BloomFilter *f, BloomHash h);

/*
 * The inserter's steps (core/filter.h): stage computes the value's
 * positions and prefetches their lines; commit sets them and counts the
 * value, exactly as bf_classic_insert.
 */
extern void bf_classic_stage(const BloomFilter *f, BfStaged *v);
extern void bf_classic_commit(BloomFilter *f, const BfStaged *v);

/* Values held, from the fill (Swamidass & Baldi). */
extern double bf_classic_estimate_count(const BloomFilter *f);

/* A random absent value hits k set bits with probability fill^k. */
extern double bf_classic_estimate_fpp(const BloomFilter *f);

#endif							/* LAYOUT_CLASSIC_H */
