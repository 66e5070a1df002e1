/*
 * interop_positions.h
 *	  What the Guava and Spark layouts share: bits anywhere in m bits, each
 *	  position a combination of two hashes reduced modulo m, as Java code
 *	  computes it (signed arithmetic, a negative combination complemented),
 *	  and the statistics of such a filter.  Guava's MURMUR128_MITZ_32 and
 *	  Spark's version 1 place a value's bits the same way from two 32-bit
 *	  hashes (bf_positions_int32).  The four layouts' insert, query and
 *	  query_mod are one body around each layout's walk
 *	  (BF_JAVA_WALK_ENTRIES), and they size as Java does (bf_java_shape_for).
 *	  Inline, for the layouts' probe loops; of the project's files it
 *	  includes only bf_base.h.
 */
#ifndef BF_INTEROP_POSITIONS_H
#define BF_INTEROP_POSITIONS_H

#include "bf_base.h"

#include <string.h>

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
 * One position of a walk: sets it (noting in *changed whether it was clear)
 * or tests it.  False when a test finds it clear: the walk stops there.
 */
static inline bool
bf_walk_bit(uint64_t *words, uint64_t pos, bool insert, bool *changed)
{
	if (insert)
	{
		*changed |= bf_set_bit(words, pos);
		return true;
	}
	return bf_test_bit(words, pos);
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
		if (!bf_walk_bit(words, bf_position_int32(a, b, i, mod), insert, &changed))
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

/*
 * A value hash of the stored schemes means nothing to a Guava or Spark
 * filter: never deny (bf_splitblock_contains_value says the same for
 * Parquet).
 */
static inline bool
bf_java_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	(void) f;
	(void) value_hash;
	return true;
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

/*
 * The insert, query and query_mod (the modulus prepared by the caller, once
 * per filter) of a layout whose positions walk gives: one body for Guava's
 * two strategies and Spark's two versions, which differ only in the walk.
 * walk(words, mod, k, h, insert) is a static inline function of the
 * layout's file that sets a value's k positions (true if any was clear) or
 * tests them (false at the first clear one); expanded once per layout in
 * its file, it is inlined into each entry.
 */
#define BF_JAVA_WALK_ENTRIES(prefix, walk) \
bool \
prefix##_insert(BloomFilter *f, BloomHash h) \
{ \
	BfModulus	mod = bf_modulus(f->nbits); \
	bool		changed = (walk) (f->words, &mod, f->nhashes, h, true); \
 \
	bf_count_insert(f); \
	return changed; \
} \
 \
bool \
prefix##_query_mod(const BloomFilter *f, BloomHash h, const BfModulus *mod) \
{ \
	return (walk) ((uint64_t *) f->words, mod, f->nhashes, h, false); \
} \
 \
bool \
prefix##_query(const BloomFilter *f, BloomHash h) \
{ \
	BfModulus	mod = bf_modulus(f->nbits); \
 \
	return prefix##_query_mod(f, h, &mod); \
}

/*
 * Java's sizing of a bit array (Guava's, which Spark copies): the optimal
 * bits rounded up to whole words, at least one; k from the unrounded bits.
 * what names the system in the message of a size over the limit.
 */
static inline bool
bf_java_shape_for(double capacity, double fpp, uint8_t layout, const char *what,
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

#endif							/* BF_INTEROP_POSITIONS_H */
