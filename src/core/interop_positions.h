/*
 * interop_positions.h
 *	  What the Guava and Spark layouts share: bits anywhere in m bits, each
 *	  position a combination of two hashes reduced modulo m, as Java code
 *	  computes it (signed arithmetic, a negative combination complemented),
 *	  and the statistics of such a filter.  Guava's MURMUR128_MITZ_32 and
 *	  Spark's version 1 place a value's bits the same way from two 32-bit
 *	  hashes (bf_positions_int32).  Inline, for the layouts' probe loops;
 *	  includes only bf_base.h.
 */
#ifndef BF_INTEROP_POSITIONS_H
#define BF_INTEROP_POSITIONS_H

#include "bf_base.h"

/*
 * x mod m without a division per position (Lemire, Kaser & Kurz, "Faster
 * Remainder by Direct Computation", 2019): with M = floor((2^128 - 1) / m)
 * + 1, x mod m is the high 64 bits of ((M * x) mod 2^128) * m, exact for
 * every 64-bit x and m.  One 128-bit division per filter (a probe that
 * prepares it once, interop_format.h's bf_interop_query) or per value (the
 * layout table's entries), then a few multiplications per position, where
 * Java's % costs a division each.
 */
typedef struct BfModulus
{
	uint64_t	m;
	/*
	 * M in two halves: a 128-bit member would make the struct need 16-byte
	 * alignment, which the callers' allocators (8-byte) do not give.
	 */
	uint64_t	magic_hi;
	uint64_t	magic_lo;
} BfModulus;

static inline BfModulus
bf_modulus(uint64_t m)
{
	BfModulus	r;

	r.m = m;
#ifdef __SIZEOF_INT128__
	{
		unsigned __int128 magic = ~(unsigned __int128) 0 / m + 1;

		r.magic_hi = (uint64_t) (magic >> 64);
		r.magic_lo = (uint64_t) magic;
	}
#else
	r.magic_hi = r.magic_lo = 0;
#endif
	return r;
}

static inline uint64_t
bf_mod(uint64_t x, const BfModulus *r)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 magic = ((unsigned __int128) r->magic_hi << 64) | r->magic_lo;
	unsigned __int128 low = magic * x;
	unsigned __int128 bottom = ((low & UINT64_MAX) * r->m) >> 64;
	unsigned __int128 top = (low >> 64) * r->m;

	return (uint64_t) ((bottom + top) >> 64);
#else
	return x % r->m;
#endif
}

/*
 * Position i (1-based) from two 32-bit hashes: a + i*b in 32-bit two's
 * complement, complemented if negative, modulo m.
 */
static inline uint64_t
bf_position_int32(uint32_t a, uint32_t b, uint32_t i, const BfModulus *m)
{
	int32_t		c = (int32_t) (a + i * b);

	if (c < 0)
		c = ~c;
	return bf_mod((uint64_t) c, m);
}

/*
 * Walks the k positions of bf_position_int32, i = 1 .. k: sets them
 * (returning true if any was clear) or tests them (false at the first
 * clear one).
 */
static inline bool
bf_positions_int32(uint64_t *words, const BfModulus *mod, uint32_t k, uint32_t a, uint32_t b,
				   bool insert)
{
	bool		changed = false;

	for (uint32_t i = 1; i <= k; i++)
	{
		uint64_t	pos = bf_position_int32(a, b, i, mod);

		if (insert)
			changed |= bf_set_bit(words, pos);
		else if (!bf_test_bit(words, pos))
			return false;
	}
	return insert ? changed : true;
}

/* The rules of a Java bit array: whole 64-bit words, k of 1 .. 64. */
static inline bool
bf_java_bits_shape_check(const BloomShape *s, const char *what, char *errbuf)
{
	if (s->nbits % 64 != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of bits of a %s filter must be a multiple of 64, not %llu",
				 what, (unsigned long long) s->nbits);
		return false;
	}
	return true;
}

/* Values of a filter whose k bits fall anywhere: Swamidass & Baldi. */
static inline double
bf_anywhere_estimate_count(const BloomFilter *f)
{
	return bf_count_from_fill((double) f->nbits, f->nhashes,
							  (double) bf_popcount_words(f->words, bf_nwords(f)));
}

/* A value not held passes when its k bits are all set: fill^k. */
static inline double
bf_anywhere_estimate_fpp(const BloomFilter *f)
{
	double		fill = (double) bf_popcount_words(f->words, bf_nwords(f)) / (double) f->nbits;

	return pow(fill, (double) f->nhashes);
}

/* Java's double sizing: -n ln p / (ln 2)^2 bits, truncated. */
static inline double
bf_java_optimal_bits(double n, double p)
{
	return floor(-n * log(p) / BF_LN2_SQ);
}

/* Java's k: max(1, round(m / n * ln 2)). */
static inline uint32_t
bf_java_optimal_k(double n, double m)
{
	double		k = floor(m / n * BF_LN2 + 0.5);

	return k < 1 ? 1 : (k > BLOOM_MAX_NHASHES ? BLOOM_MAX_NHASHES : (uint32_t) k);
}

#endif							/* BF_INTEROP_POSITIONS_H */
