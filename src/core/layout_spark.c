/*
 * layout_spark.c
 *	  The 'spark' and 'spark2' layouts (see layout_spark.h): the two
 *	  versions' positions, Spark's sizing, and the statistics of bits
 *	  anywhere.
 */
#include "layout_spark.h"

#include "interop_positions.h"

#include <string.h>

/* ---------------------------------------------------------------------
 * Shapes: Spark sizes as Guava does
 * --------------------------------------------------------------------- */

static bool
spark_shape(double capacity, double fpp, uint8_t layout, BloomShape *s, char *errbuf)
{
	double		bits = bf_java_optimal_bits(capacity, fpp);
	double		words = ceil(bits / 64.0);

	if (words < 1)
		words = 1;
	if (words > (double) BLOOM_MAX_WORDS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a Spark filter for %.15g values at false-positive probability %g needs more than %llu bits",
				 capacity, fpp, (unsigned long long) BLOOM_MAX_NBITS);
		return false;
	}
	memset(s, 0, sizeof(*s));
	s->layout = layout;
	s->nbits = (uint64_t) words * 64;
	s->nhashes = bf_java_optimal_k(capacity, bits < 1 ? 1 : bits);
	return true;
}

bool
bf_spark_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	return spark_shape(capacity, fpp, BLOOM_LAYOUT_SPARK, s, errbuf);
}

bool
bf_spark2_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	return spark_shape(capacity, fpp, BLOOM_LAYOUT_SPARK2, s, errbuf);
}

bool
bf_spark_shape_check(const BloomShape *s, char *errbuf)
{
	return bf_java_bits_shape_check(s, "Spark", errbuf);
}

/* ---------------------------------------------------------------------
 * Positions
 * --------------------------------------------------------------------- */

bool
bf_spark_insert(BloomFilter *f, BloomHash h)
{
	BfModulus	mod = bf_modulus(f->nbits);
	bool		changed = bf_positions_int32(f->words, &mod, f->nhashes,
											 (uint32_t) h.h1, (uint32_t) h.h2, true);

	bf_count_insert(f);
	return changed;
}

bool
bf_spark_query(const BloomFilter *f, BloomHash h)
{
	BfModulus	mod = bf_modulus(f->nbits);

	return bf_spark_query_mod(f, h, &mod);
}

bool
bf_spark_query_mod(const BloomFilter *f, BloomHash h, const BfModulus *mod)
{
	return bf_positions_int32((uint64_t *) f->words, mod, f->nhashes,
							  (uint32_t) h.h1, (uint32_t) h.h2, false);
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
		uint64_t	pos;

		c = (int64_t) ((uint64_t) c + (uint64_t) step);
		if (c < 0)
			c = ~c;
		pos = bf_mod((uint64_t) c, mod);
		if (insert)
			changed |= bf_set_bit(words, pos);
		else if (!bf_test_bit(words, pos))
			return false;
	}
	return insert ? changed : true;
}

bool
bf_spark2_insert(BloomFilter *f, BloomHash h)
{
	BfModulus	mod = bf_modulus(f->nbits);
	bool		changed = walk_v2(f->words, &mod, f->nhashes, h, true);

	bf_count_insert(f);
	return changed;
}

bool
bf_spark2_query(const BloomFilter *f, BloomHash h)
{
	BfModulus	mod = bf_modulus(f->nbits);

	return bf_spark2_query_mod(f, h, &mod);
}

bool
bf_spark2_query_mod(const BloomFilter *f, BloomHash h, const BfModulus *mod)
{
	return walk_v2((uint64_t *) f->words, mod, f->nhashes, h, false);
}

/* Positions are spread over the whole array: nothing worth loading early. */
void
bf_spark_prefetch(const BloomFilter *f, BloomHash h)
{
	(void) f;
	(void) h;
}

/* See bf_splitblock_contains_value: an interop filter never denies a stored-scheme hash. */
bool
bf_spark_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	(void) f;
	(void) value_hash;
	return true;
}

double
bf_spark_estimate_count(const BloomFilter *f)
{
	return bf_anywhere_estimate_count(f);
}

double
bf_spark_estimate_fpp(const BloomFilter *f)
{
	return bf_anywhere_estimate_fpp(f);
}
