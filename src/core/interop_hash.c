/*
 * interop_hash.c
 *	  XXH64, MurmurHash3 x64_128 and MurmurHash3 x86_32 (Spark's variants):
 *	  see interop_hash.h.  Written from the published algorithms; inputs are
 *	  read as little-endian whatever the host's order, as every writer
 *	  defines them.
 */
#include "interop_hash.h"

#include <string.h>

static inline uint64_t
rotl64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint32_t
rotl32(uint32_t x, unsigned r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint64_t
read_le64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline uint32_t
read_le32(const uint8_t *p)
{
	return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16) |
		((uint32_t) p[3] << 24);
}

/* ---------------------------------------------------------------------
 * XXH64
 * --------------------------------------------------------------------- */

#define XXH_P1	UINT64_C(0x9E3779B185EBCA87)
#define XXH_P2	UINT64_C(0xC2B2AE3D27D4EB4F)
#define XXH_P3	UINT64_C(0x165667B19E3779F9)
#define XXH_P4	UINT64_C(0x85EBCA77C2B2AE63)
#define XXH_P5	UINT64_C(0x27D4EB2F165667C5)

static inline uint64_t
xxh_round(uint64_t acc, uint64_t lane)
{
	acc += lane * XXH_P2;
	acc = rotl64(acc, 31);
	return acc * XXH_P1;
}

static inline uint64_t
xxh_merge(uint64_t acc, uint64_t v)
{
	acc ^= xxh_round(0, v);
	return acc * XXH_P1 + XXH_P4;
}

static inline uint64_t
xxh_avalanche(uint64_t h)
{
	h ^= h >> 33;
	h *= XXH_P2;
	h ^= h >> 29;
	h *= XXH_P3;
	h ^= h >> 32;
	return h;
}

/* The tail: 8-byte lanes, then a 4-byte lane, then single bytes. */
static uint64_t
xxh_tail(uint64_t h, const uint8_t *p, size_t len)
{
	while (len >= 8)
	{
		h ^= xxh_round(0, read_le64(p));
		h = rotl64(h, 27) * XXH_P1 + XXH_P4;
		p += 8;
		len -= 8;
	}
	if (len >= 4)
	{
		h ^= (uint64_t) read_le32(p) * XXH_P1;
		h = rotl64(h, 23) * XXH_P2 + XXH_P3;
		p += 4;
		len -= 4;
	}
	while (len > 0)
	{
		h ^= (uint64_t) (*p) * XXH_P5;
		h = rotl64(h, 11) * XXH_P1;
		p++;
		len--;
	}
	return xxh_avalanche(h);
}

uint64_t
bf_xxh64(const void *data, size_t len, uint64_t seed)
{
	const uint8_t *p = data;
	size_t		left = len;
	uint64_t	h;

	if (len >= 32)
	{
		uint64_t	v1 = seed + XXH_P1 + XXH_P2,
					v2 = seed + XXH_P2,
					v3 = seed,
					v4 = seed - XXH_P1;

		do
		{
			v1 = xxh_round(v1, read_le64(p));
			v2 = xxh_round(v2, read_le64(p + 8));
			v3 = xxh_round(v3, read_le64(p + 16));
			v4 = xxh_round(v4, read_le64(p + 24));
			p += 32;
			left -= 32;
		} while (left >= 32);
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		h = xxh_merge(h, v1);
		h = xxh_merge(h, v2);
		h = xxh_merge(h, v3);
		h = xxh_merge(h, v4);
	}
	else
		h = seed + XXH_P5;
	h += (uint64_t) len;
	return xxh_tail(h, p, left);
}

uint64_t
bf_xxh64_u32(uint32_t v, uint64_t seed)
{
	uint64_t	h = seed + XXH_P5 + 4;

	h ^= (uint64_t) v * XXH_P1;
	h = rotl64(h, 23) * XXH_P2 + XXH_P3;
	return xxh_avalanche(h);
}

uint64_t
bf_xxh64_u64(uint64_t v, uint64_t seed)
{
	uint64_t	h = seed + XXH_P5 + 8;

	h ^= xxh_round(0, v);
	h = rotl64(h, 27) * XXH_P1 + XXH_P4;
	return xxh_avalanche(h);
}

/* ---------------------------------------------------------------------
 * MurmurHash3 x64_128
 * --------------------------------------------------------------------- */

#define MM_C1	UINT64_C(0x87c37b91114253d5)
#define MM_C2	UINT64_C(0x4cf5ad432745937f)

static inline uint64_t
fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64_C(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

static inline uint64_t
mix_k1(uint64_t k1)
{
	k1 *= MM_C1;
	k1 = rotl64(k1, 31);
	return k1 * MM_C2;
}

static inline uint64_t
mix_k2(uint64_t k2)
{
	k2 *= MM_C2;
	k2 = rotl64(k2, 33);
	return k2 * MM_C1;
}

/* The up to 15 bytes after the last 16-byte block, as two partial words. */
static void
murmur_tail(const uint8_t *tail, size_t n, uint64_t *k1, uint64_t *k2)
{
	*k1 = 0;
	*k2 = 0;
	for (size_t i = n; i > 8; i--)
		*k2 = (*k2 << 8) | tail[i - 1];
	for (size_t i = n < 8 ? n : 8; i > 0; i--)
		*k1 = (*k1 << 8) | tail[i - 1];
}

/* The finalization: the length, the two halves mixed into each other. */
static inline void
murmur_finish(uint64_t h1, uint64_t h2, size_t len, uint64_t out[2])
{
	h1 ^= (uint64_t) len;
	h2 ^= (uint64_t) len;
	h1 += h2;
	h2 += h1;
	h1 = fmix64(h1);
	h2 = fmix64(h2);
	h1 += h2;
	h2 += h1;
	out[0] = h1;
	out[1] = h2;
}

void
bf_murmur3_128(const void *data, size_t len, uint32_t seed, uint64_t out[2])
{
	const uint8_t *p = data;
	size_t		nblocks = len / 16;
	uint64_t	h1 = seed,
				h2 = seed,
				k1,
				k2;

	for (size_t i = 0; i < nblocks; i++, p += 16)
	{
		h1 ^= mix_k1(read_le64(p));
		h1 = rotl64(h1, 27);
		h1 += h2;
		h1 = h1 * 5 + 0x52dce729;
		h2 ^= mix_k2(read_le64(p + 8));
		h2 = rotl64(h2, 31);
		h2 += h1;
		h2 = h2 * 5 + 0x38495ab5;
	}
	murmur_tail(p, len & 15, &k1, &k2);
	if ((len & 15) > 8)
		h2 ^= mix_k2(k2);
	if ((len & 15) > 0)
		h1 ^= mix_k1(k1);
	murmur_finish(h1, h2, len, out);
}

void
bf_murmur3_128_small(uint64_t v, size_t len, uint32_t seed, uint64_t out[2])
{
	murmur_finish(seed ^ mix_k1(v), seed, len, out);
}

/* ---------------------------------------------------------------------
 * MurmurHash3 x86_32, as Spark's sketch applies it
 * --------------------------------------------------------------------- */

static inline uint32_t
mix32_k(uint32_t k)
{
	k *= 0xcc9e2d51u;
	k = rotl32(k, 15);
	return k * 0x1b873593u;
}

static inline uint32_t
mix32_h(uint32_t h, uint32_t k)
{
	h ^= k;
	h = rotl32(h, 13);
	return h * 5 + 0xe6546b64u;
}

static inline uint32_t
fmix32(uint32_t h, uint32_t len)
{
	h ^= len;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

uint32_t
bf_murmur3_32_long(uint64_t v, uint32_t seed)
{
	uint32_t	h = mix32_h(seed, mix32_k((uint32_t) v));

	h = mix32_h(h, mix32_k((uint32_t) (v >> 32)));
	return fmix32(h, 8);
}

uint32_t
bf_murmur3_32_spark_bytes(const void *data, size_t len, uint32_t seed)
{
	const uint8_t *p = data;
	size_t		aligned = len - len % 4;
	uint32_t	h = seed;

	for (size_t i = 0; i < aligned; i += 4)
		h = mix32_h(h, mix32_k(read_le32(p + i)));
	for (size_t i = aligned; i < len; i++)
		h = mix32_h(h, mix32_k((uint32_t) (int32_t) (int8_t) p[i]));
	return fmix32(h, (uint32_t) len);
}
