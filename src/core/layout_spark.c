/*
 * layout_spark.c
 *	  The 'spark' and 'spark2' layouts (see layout_spark.h): the two
 *	  versions' positions and their sizing (what they share with Guava:
 *	  interop_positions.h).
 */
#include "layout_spark.h"

#include "interop_positions.h"

/* ---------------------------------------------------------------------
 * Shapes: Spark sizes as Guava does
 * --------------------------------------------------------------------- */

/*
 * Parallel to layout_guava.c's by design: each layout has its own entry points
 * for the layout table (filter.c), thin calls of what the two Java layouts
 * share (interop_positions.h).
 */
bool
bf_spark_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	return bf_java_shape_for(capacity, fpp, BLOOM_LAYOUT_SPARK, "Spark", s, errbuf);
}

bool
bf_spark2_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	return bf_java_shape_for(capacity, fpp, BLOOM_LAYOUT_SPARK2, "Spark", s, errbuf);
}

bool
bf_spark_shape_check(const BloomShape *s, char *errbuf)
{
	return bf_java_bits_shape_check(s, "Spark", errbuf);
}

/* ---------------------------------------------------------------------
 * Positions
 * --------------------------------------------------------------------- */

/* Version 1: a and b are the two 32-bit murmur3 hashes, h1 and h2. */
static inline bool
walk_v1(uint64_t *words, const BfModulus *mod, uint32_t k, BloomHash h, bool insert)
{
	return bf_positions_int32(words, mod, k, (uint32_t) h.h1, (uint32_t) h.h2, insert);
}

/* Version 2: a 64-bit running combination, complemented in place when negative. */
static inline bool
walk_v2(uint64_t *words, const BfModulus *mod, uint32_t k, BloomHash h, bool insert)
{
	int64_t		c = (int64_t) (int32_t) (uint32_t) h.h1 * INT64_C(2147483647);
	int64_t		step = (int32_t) (uint32_t) h.h2;
	bool		changed = false;

	for (uint32_t i = 0; i < k; i++)
	{
		c = (int64_t) ((uint64_t) c + (uint64_t) step);
		if (c < 0)
			c = ~c;
		if (!bf_walk_bit(words, bf_mod((uint64_t) c, mod), insert, &changed))
			return false;
	}
	return insert ? changed : true;
}

BF_JAVA_WALK_ENTRIES(bf_spark, walk_v1)
BF_JAVA_WALK_ENTRIES(bf_spark2, walk_v2)

/* Positions are spread over the whole array: nothing worth loading early. */
void
bf_spark_prefetch(const BloomFilter *f, BloomHash h)
{
	(void) f;
	(void) h;
}
