/*
 * layout_guava.c
 *	  The 'guava' and 'guava32' layouts (see layout_guava.h): Guava's two
 *	  strategies' positions and their sizing (what they share with Spark:
 *	  interop_positions.h).
 */
#include "layout_guava.h"

#include "interop_positions.h"

/* ---------------------------------------------------------------------
 * Shapes
 * --------------------------------------------------------------------- */

/*
 * Parallel to layout_spark.c's by design: each layout has its own entry points
 * for the layout table (filter.c), thin calls of what the two Java layouts
 * share (interop_positions.h).
 */
bool
bf_guava_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	return bf_java_shape_for(capacity, fpp, BLOOM_LAYOUT_GUAVA, "Guava", s, errbuf);
}

bool
bf_guava32_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	return bf_java_shape_for(capacity, fpp, BLOOM_LAYOUT_GUAVA32, "Guava", s, errbuf);
}

bool
bf_guava_shape_check(const BloomShape *s, char *errbuf)
{
	return bf_java_bits_shape_check(s, "Guava", errbuf);
}

/* ---------------------------------------------------------------------
 * Positions
 * --------------------------------------------------------------------- */

/* MITZ_64: k positions stepping by h2 from h1, sign bit cleared, mod m. */
static inline bool
walk_mitz64(uint64_t *words, const BfModulus *mod, uint32_t k, BloomHash h, bool insert)
{
	uint64_t	c = h.h1;
	bool		changed = false;

	for (uint32_t i = 0; i < k; i++, c += h.h2)
	{
		if (!bf_walk_bit(words, bf_mod(c & UINT64_C(0x7fffffffffffffff), mod), insert, &changed))
			return false;
	}
	return insert ? changed : true;
}

/* MITZ_32: a and b are h1's low and high 32 bits. */
static inline bool
walk_mitz32(uint64_t *words, const BfModulus *mod, uint32_t k, BloomHash h, bool insert)
{
	return bf_positions_int32(words, mod, k, (uint32_t) h.h1, (uint32_t) (h.h1 >> 32), insert);
}

BF_JAVA_WALK_ENTRIES(bf_guava, walk_mitz64)
BF_JAVA_WALK_ENTRIES(bf_guava32, walk_mitz32)

/* The first position's line (the others are anywhere). */
void
bf_guava_prefetch(const BloomFilter *f, BloomHash h)
{
	bf_prefetch_line(&f->words[((h.h1 & UINT64_C(0x7fffffffffffffff)) % f->nbits) >> 6]);
}
