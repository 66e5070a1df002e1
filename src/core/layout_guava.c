/*
 * layout_guava.c
 *	  The 'guava' and 'guava32' layouts (see layout_guava.h): Guava's two
 *	  strategies, its sizing, and the statistics of bits anywhere.
 */
#include "layout_guava.h"

#include "interop_positions.h"

#include <string.h>

/* ---------------------------------------------------------------------
 * Shapes
 * --------------------------------------------------------------------- */

/* Guava's sizing: optimal bits (whole words), k from the unrounded bits. */
static bool
java_shape(double capacity, double fpp, uint8_t layout, const char *what,
		   BloomShape *s, char *errbuf)
{
	double		bits = bf_java_optimal_bits(capacity, fpp);
	double		words = ceil(bits / 64.0);

	if (words < 1)
		words = 1;
	if (words > (double) BLOOM_MAX_WORDS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a %s filter for %.15g values at false-positive probability %g needs more than %llu bits",
				 what, capacity, fpp, (unsigned long long) BLOOM_MAX_NBITS);
		return false;
	}
	memset(s, 0, sizeof(*s));
	s->layout = layout;
	s->nbits = (uint64_t) words * 64;
	s->nhashes = bf_java_optimal_k(capacity, bits < 1 ? 1 : bits);
	return true;
}

bool
bf_guava_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	return java_shape(capacity, fpp, BLOOM_LAYOUT_GUAVA, "Guava", s, errbuf);
}

bool
bf_guava32_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	return java_shape(capacity, fpp, BLOOM_LAYOUT_GUAVA32, "Guava", s, errbuf);
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
		uint64_t	pos = bf_mod(c & UINT64_C(0x7fffffffffffffff), mod);

		if (insert)
			changed |= bf_set_bit(words, pos);
		else if (!bf_test_bit(words, pos))
			return false;
	}
	return insert ? changed : true;
}

bool
bf_guava_insert(BloomFilter *f, BloomHash h)
{
	BfModulus	mod = bf_modulus(f->nbits);
	bool		changed = walk_mitz64(f->words, &mod, f->nhashes, h, true);

	bf_count_insert(f);
	return changed;
}

bool
bf_guava_query(const BloomFilter *f, BloomHash h)
{
	BfModulus	mod = bf_modulus(f->nbits);

	return bf_guava_query_mod(f, h, &mod);
}

bool
bf_guava_query_mod(const BloomFilter *f, BloomHash h, const BfModulus *mod)
{
	return walk_mitz64((uint64_t *) f->words, mod, f->nhashes, h, false);
}

bool
bf_guava32_insert(BloomFilter *f, BloomHash h)
{
	BfModulus	mod = bf_modulus(f->nbits);
	bool		changed = bf_positions_int32(f->words, &mod, f->nhashes,
											 (uint32_t) h.h1, (uint32_t) (h.h1 >> 32), true);

	bf_count_insert(f);
	return changed;
}

bool
bf_guava32_query(const BloomFilter *f, BloomHash h)
{
	BfModulus	mod = bf_modulus(f->nbits);

	return bf_guava32_query_mod(f, h, &mod);
}

bool
bf_guava32_query_mod(const BloomFilter *f, BloomHash h, const BfModulus *mod)
{
	return bf_positions_int32((uint64_t *) f->words, mod, f->nhashes,
							  (uint32_t) h.h1, (uint32_t) (h.h1 >> 32), false);
}

/* The first position's line (the others are anywhere). */
void
bf_guava_prefetch(const BloomFilter *f, BloomHash h)
{
	bf_prefetch_line(&f->words[((h.h1 & UINT64_C(0x7fffffffffffffff)) % f->nbits) >> 6]);
}

/* See bf_splitblock_contains_value: an interop filter never denies a stored-scheme hash. */
bool
bf_guava_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	(void) f;
	(void) value_hash;
	return true;
}

double
bf_guava_estimate_count(const BloomFilter *f)
{
	return bf_anywhere_estimate_count(f);
}

double
bf_guava_estimate_fpp(const BloomFilter *f)
{
	return bf_anywhere_estimate_fpp(f);
}
