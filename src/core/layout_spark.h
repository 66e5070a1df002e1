/*
 * layout_spark.h
 *	  The 'spark' and 'spark2' layouts: the BloomFilter of Spark's sketch
 *	  library (org.apache.spark.util.sketch), versions 1 and 2, bit for bit.
 *	  A bit array of 64-bit words, bit i in word i/64.  A value (a long, or
 *	  bytes) gives two 32-bit hashes: a = murmur3_32(value, seed), b =
 *	  murmur3_32(value, a), seed 0 in version 1 and the filter's own in
 *	  version 2; the BloomHash its insert and query take is h1 = a, h2 = b.
 *	  Version 1: position i = bf_position_int32(a, b, i, m), i = 1 .. k.
 *	  Version 2: c = a * (2^31 - 1) in 64 bits, then k times: c += b, c
 *	  complemented if negative, position c mod m.
 *	  Sized as Spark sizes (optimal bits and hash count, whole words).
 *
 *	  Callers go through core/filter.h; same operations as every layout_*.h.
 */
#ifndef LAYOUT_SPARK_H
#define LAYOUT_SPARK_H

#include "interop_positions.h"

/*
 * This layout's operations, under the names every layout_*.h uses: parallel
 * by design, since filter.c's layout table takes them by those names
 * (LAYOUT_ENTRIES), and each layout keeps its own insert and query, a hot
 * loop for one layout rather than one loop that branches on the layout.
 */
/* The query with the modulus of f->nbits prepared by the caller, once per filter. */
extern bool bf_spark_query_mod(const BloomFilter *f, BloomHash h, const BfModulus *mod);
extern bool bf_spark2_query_mod(const BloomFilter *f, BloomHash h, const BfModulus *mod);

extern bool bf_spark_shape_for(double capacity, double fpp, BloomShape *shape, char *errbuf);
extern bool bf_spark2_shape_for(double capacity, double fpp, BloomShape *shape, char *errbuf);
extern bool bf_spark_shape_check(const BloomShape *shape, char *errbuf);
extern bool bf_spark_insert(BloomFilter *f, BloomHash h);
extern bool bf_spark_query(const BloomFilter *f, BloomHash h);
extern bool bf_spark2_insert(BloomFilter *f, BloomHash h);
extern bool bf_spark2_query(const BloomFilter *f, BloomHash h);
extern void bf_spark_prefetch(const BloomFilter *f, BloomHash h);

/* what every Java bit array does alike (interop_positions.h) */
#define bf_spark_contains_value		bf_java_contains_value
#define bf_spark_estimate_count		bf_anywhere_estimate_count
#define bf_spark_estimate_fpp			bf_anywhere_estimate_fpp

#define bf_spark2_shape_check		bf_spark_shape_check
#define bf_spark2_prefetch			bf_spark_prefetch
#define bf_spark2_contains_value	bf_spark_contains_value
#define bf_spark2_estimate_count	bf_spark_estimate_count
#define bf_spark2_estimate_fpp		bf_spark_estimate_fpp

#endif							/* LAYOUT_SPARK_H */
