/*
 * radix_sort.h
 *	  Sorting arrays of 64-bit words without comparisons: the sort of the
 *	  distinct-hash collector's one-word records (value hashes, uniformly
 *	  spread over 64 bits), called through hash_records.h.
 *
 *	  Include this to sort plain uint64_t arrays; it depends on no other
 *	  file of the core.
 */
#ifndef BF_RADIX_SORT_H
#define BF_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Sorts a[0..n) ascending; n must be below 2^32 (larger arrays are left as
 * they are).  A most-significant-digit radix sort, insertion sort for
 * buckets of a few values.  With scratch (room for n words, contents
 * irrelevant and lost) the values are copied between the two arrays, a
 * level at a time; with scratch NULL they are permuted in place (American
 * flag sort), about twice as slow.  Uniform values take two levels at
 * n = 10^7; any input, duplicates and sorted ones included, costs at most
 * one pass per 4 bits, O(n) in all.  Stack: 8 kB per level, 16 levels at
 * most.
 */
extern void bf_radix_sort_u64(uint64_t *a, size_t n, uint64_t *scratch);

#endif							/* BF_RADIX_SORT_H */
