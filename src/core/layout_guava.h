/*
 * layout_guava.h
 *	  The 'guava' and 'guava32' layouts: Guava's BloomFilter bit for bit,
 *	  under its strategies MURMUR128_MITZ_64 (Guava's default) and
 *	  MURMUR128_MITZ_32.  A bit array of 64-bit words, bit i in word i/64;
 *	  a value's hash is murmur3_128 (seed 0) of the bytes its funnel writes,
 *	  the BloomHash its insert and query take: h1 the digest's first eight
 *	  bytes, h2 the last eight, little-endian.
 *	  MITZ_64: position i = ((h1 + i*h2) & INT64_MAX) mod m, i = 0 .. k-1.
 *	  MITZ_32: from h1 alone, a = its low 32 bits, b = its high 32 bits,
 *	  position i = bf_position_int32(a, b, i, m), i = 1 .. k.
 *	  Sized as Guava sizes (optimal bits and hash count, whole words).
 *
 *	  Callers go through core/filter.h; same operations as every layout_*.h.
 */
#ifndef LAYOUT_GUAVA_H
#define LAYOUT_GUAVA_H

#include "interop_positions.h"

/*
 * This layout's operations, under the names every layout_*.h uses: parallel
 * by design, since filter.c's layout table takes them by those names
 * (LAYOUT_ENTRIES), and each layout keeps its own insert and query, a hot
 * loop for one layout rather than one loop that branches on the layout.
 */
/* The query with the modulus of f->nbits prepared by the caller, once per filter. */
extern bool bf_guava_query_mod(const BloomFilter *f, BloomHash h, const BfModulus *mod);
extern bool bf_guava32_query_mod(const BloomFilter *f, BloomHash h, const BfModulus *mod);

extern bool bf_guava_shape_for(double capacity, double fpp, BloomShape *shape, char *errbuf);
extern bool bf_guava32_shape_for(double capacity, double fpp, BloomShape *shape, char *errbuf);
extern bool bf_guava_shape_check(const BloomShape *shape, char *errbuf);
extern bool bf_guava_insert(BloomFilter *f, BloomHash h);
extern bool bf_guava_query(const BloomFilter *f, BloomHash h);
extern bool bf_guava32_insert(BloomFilter *f, BloomHash h);
extern bool bf_guava32_query(const BloomFilter *f, BloomHash h);
extern void bf_guava_prefetch(const BloomFilter *f, BloomHash h);

/* what every Java bit array does alike (interop_positions.h) */
#define bf_guava_contains_value		bf_java_contains_value
#define bf_guava_estimate_count		bf_anywhere_estimate_count
#define bf_guava_estimate_fpp			bf_anywhere_estimate_fpp

#define bf_guava32_shape_check		bf_guava_shape_check
#define bf_guava32_prefetch			bf_guava_prefetch
#define bf_guava32_contains_value	bf_guava_contains_value
#define bf_guava32_estimate_count	bf_guava_estimate_count
#define bf_guava32_estimate_fpp		bf_guava_estimate_fpp

#endif							/* LAYOUT_GUAVA_H */
