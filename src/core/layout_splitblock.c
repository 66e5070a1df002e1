/*
 * layout_splitblock.c
 *	  The 'parquet' layout (see layout_splitblock.h): Parquet's split-block
 *	  filter, its sizing rule and its statistics.
 */
#include "layout_splitblock.h"

#include <string.h>

/* The eight salts of the specification, one per word of a block. */
static const uint32_t salts[BF_SPLITBLOCK_NHASHES] = {
	0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
	0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U
};

/* ---------------------------------------------------------------------
 * Shapes
 * --------------------------------------------------------------------- */

/*
 * The specification's sizing: m = -8 n / ln(1 - p^(1/8)) bits, rounded up
 * to a power of two bytes and kept within 32 bytes .. 128 MiB, as the
 * reference writers size filters.
 */
uint64_t
bf_splitblock_bytes_for(double n, double p)
{
	double		bits = -8.0 * n / log(1.0 - pow(p, 1.0 / 8.0));
	uint64_t	bytes = BF_SPLITBLOCK_MIN_BYTES;

	while ((double) bytes * 8.0 < bits && bytes < BF_SPLITBLOCK_MAX_BYTES)
		bytes *= 2;
	return bytes;
}

bool
bf_splitblock_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	(void) errbuf;
	memset(s, 0, sizeof(*s));
	s->layout = BLOOM_LAYOUT_PARQUET;
	s->nbits = 8 * bf_splitblock_bytes_for(capacity, fpp);
	s->nhashes = BF_SPLITBLOCK_NHASHES;
	return true;
}

bool
bf_splitblock_shape_check(const BloomShape *s, char *errbuf)
{
	if (s->nbits % BF_SPLITBLOCK_BITS != 0 || s->nbits > 8 * (uint64_t) BF_SPLITBLOCK_MAX_BYTES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a Parquet split-block filter must be a multiple of %d bytes, at most %d, not %llu bits",
				 BF_SPLITBLOCK_MIN_BYTES, BF_SPLITBLOCK_MAX_BYTES,
				 (unsigned long long) s->nbits);
		return false;
	}
	if (s->nhashes != BF_SPLITBLOCK_NHASHES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a Parquet split-block filter sets %d bits per value, not %u",
				 BF_SPLITBLOCK_NHASHES, (unsigned) s->nhashes);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------------
 * Positions
 * --------------------------------------------------------------------- */

/*
 * The value's block: 4 of our 64-bit words, 32-bit word w in the low half
 * (w even) or high half (w odd) of word w/2, as the little-endian bytes of
 * the specification's bitset lie.
 */
static inline uint64_t *
value_block(const BloomFilter *f, uint64_t hash)
{
	uint64_t	nblocks = f->nbits / BF_SPLITBLOCK_BITS;

	return (uint64_t *) f->words + 4 * (((hash >> 32) * nblocks) >> 32);
}

/* The block's mask: bit (key * salt[w]) >> 27 of 32-bit word w. */
static inline void
block_mask(uint32_t key, uint64_t mask[4])
{
	for (int j = 0; j < 4; j++)
		mask[j] = ((uint64_t) 1 << ((key * salts[2 * j]) >> 27)) |
			((uint64_t) 1 << (32 + ((key * salts[2 * j + 1]) >> 27)));
}

bool
bf_splitblock_insert(BloomFilter *f, BloomHash h)
{
	uint64_t   *block = value_block(f, h.h1);
	uint64_t	mask[4];
	bool		changed = false;

	block_mask((uint32_t) h.h1, mask);
	for (int j = 0; j < 4; j++)
	{
		changed |= (block[j] & mask[j]) != mask[j];
		block[j] |= mask[j];
	}
	bf_count_insert(f);
	return changed;
}

bool
bf_splitblock_query(const BloomFilter *f, BloomHash h)
{
	const uint64_t *block = value_block(f, h.h1);
	uint64_t	mask[4];
	uint64_t	missing = 0;

	block_mask((uint32_t) h.h1, mask);
	for (int j = 0; j < 4; j++)
		missing |= mask[j] & ~block[j];
	return missing == 0;
}

void
bf_splitblock_prefetch(const BloomFilter *f, BloomHash h)
{
	bf_prefetch_line(value_block(f, h.h1));
}

/*
 * A value hash of the stored schemes means nothing to an interop filter:
 * never deny (its callers hash by the other system and call the query).
 */
bool
bf_splitblock_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	(void) f;
	(void) value_hash;
	return true;
}

/* ---------------------------------------------------------------------
 * Statistics: each 32-bit word is a one-hash filter of 32 bits
 * --------------------------------------------------------------------- */

static inline unsigned
word32_bits(const BloomFilter *f, uint64_t w)
{
	return bf_popcount64((f->words[w / 2] >> (32 * (w & 1))) & 0xffffffffu);
}

/* Each value set one bit in each word: the mean of the words' estimates. */
double
bf_splitblock_estimate_count(const BloomFilter *f)
{
	uint64_t	nwords32 = f->nbits / 32;
	double		per_fill[33];
	double		sum = 0.0;

	for (int x = 0; x <= 32; x++)
		per_fill[x] = bf_count_from_fill(32.0, 1, (double) x);
	for (uint64_t w = 0; w < nwords32; w++)
		sum += per_fill[word32_bits(f, w)];
	return sum / BF_SPLITBLOCK_NHASHES;
}

/* A value not held: a uniform block, one uniform bit per word, all set. */
double
bf_splitblock_estimate_fpp(const BloomFilter *f)
{
	uint64_t	nblocks = f->nbits / BF_SPLITBLOCK_BITS;
	double		sum = 0.0;

	for (uint64_t b = 0; b < nblocks; b++)
	{
		double		p = 1.0;

		for (uint64_t w = 0; w < BF_SPLITBLOCK_NHASHES; w++)
			p *= word32_bits(f, b * BF_SPLITBLOCK_NHASHES + w) / 32.0;
		sum += p;
	}
	return sum / (double) nblocks;
}
