/*
 * bf_base.h
 *	  The leaf of the plain-C core: the BloomFilter struct and its shape,
 *	  the constants and limits of the stored format, and the small inline
 *	  helpers every layer shares (mixing a hash, mapping it onto a range,
 *	  bit access, popcount, the optimal classic size).  It includes no other
 *	  file of the project.
 *
 *	  Include it directly from a layout (layout_*.c) or from code that needs
 *	  only the types; everything else gets it through core/filter.h.
 *
 *	  The in-memory struct starts with a 4-byte length word owned by the host
 *	  (PostgreSQL's varlena header).  The serialized ("binary") format is the
 *	  struct without that word, little-endian: see core/wire.h (its byte
 *	  order: core/little_endian.h) and doc/format.md.
 */
#ifndef BF_BASE_H
#define BF_BASE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Format version written by this code; readers accept 1..this. */
#define BLOOM_FORMAT_VERSION	1

/* Layouts: how a value's bits are placed (one file each, layout_*.h). */
#define BLOOM_LAYOUT_CLASSIC	0	/* k positions anywhere in m bits */
#define BLOOM_LAYOUT_BLOCKED	1	/* k positions inside one 512-bit block */
#define BLOOM_LAYOUT_MATRIX		2	/* M-BMBF: r rows, s locating hashes */
#define BLOOM_NUM_LAYOUTS		3	/* the bit-array layouts: 0 .. 2 */

/*
 * Not a bit array: a small data-sized filter kept as the sorted list of its
 * values' hashes (layout_explicit.h).  It has no positions and is not sized
 * from a capacity, so it is not counted among the layouts above; filter.c's
 * table has a row for it all the same, after theirs.
 */
#define BLOOM_LAYOUT_EXPLICIT	3

/*
 * Interop layouts: filters other systems write, bit for bit, probed as
 * their writers probe them (doc/interop.md).  Their bits are the other
 * system's own, so their values are hashed by that system's hash of the
 * value's interop encoding (hash scheme BLOOM_HASH_SCHEME_INTEROP), never
 * by the type's extended hash, and they never combine with the layouts
 * above.  One file each: layout_splitblock.h, layout_guava.h,
 * layout_spark.h.
 */
#define BLOOM_LAYOUT_PARQUET	4	/* Parquet split-block filter */
#define BLOOM_LAYOUT_GUAVA		5	/* Guava MURMUR128_MITZ_64 */
#define BLOOM_LAYOUT_GUAVA32	6	/* Guava MURMUR128_MITZ_32 */
#define BLOOM_LAYOUT_SPARK		7	/* Spark sketch BloomFilter, version 1 */
#define BLOOM_LAYOUT_SPARK2		8	/* Spark sketch BloomFilter, version 2 */
#define BLOOM_LAYOUT_FIRST_INTEROP	BLOOM_LAYOUT_PARQUET
#define BLOOM_LAYOUT_LAST_INTEROP	BLOOM_LAYOUT_SPARK2

static inline bool
bf_layout_interop(unsigned layout)
{
	return layout >= BLOOM_LAYOUT_FIRST_INTEROP && layout <= BLOOM_LAYOUT_LAST_INTEROP;
}

/*
 * Hash schemes: how a value's hash and its positions are computed.  Filters
 * record their scheme; bf_init writes the newest, and a stored filter keeps
 * its own for every later insert and probe.
 *
 * The value hash (what bloom_hash returns, what explicit lists hold):
 * schemes 1 and 2 use the type's extended hash (seeded with the filter's
 * seed).  For bigint and the types whose extended hash reuses hashint8extended
 * (timestamps, time, pg_lsn, xid8, interval's span, ...) that function
 * folds the high 32 bits into the low 32 before hashing, so any two such
 * values collide with probability 2^-32.  Scheme 3 keeps every other type's
 * hash and hashes those 64-bit quantities with bf_hash_wide64 when they do
 * not fit in 32 bits (bf_hash_wide_needed); see doc/format.md.
 *
 * The positions: two words from the value hash (bf_hash_derive), then k
 * positions from them (BfProbe below):
 *
 * Scheme 1: enhanced double hashing, x_i = h1 + i*h2 + i(i-1)(i-2)/6.  Its
 * positions are not independent: values whose h2 is close to a rational
 * multiple a/b of 2^64 (b < k) have only about b distinct positions, and
 * values close to a stored one retrace its positions, which puts a floor of
 * bf_scheme1_floor(fill, k) / m under the rate whatever k is (scheme1.h,
 * doc/guarantees.md).  Kept for stored filters.
 *
 * Schemes 2 and 3: k independent 64-bit words, bf_position_word(h, i).
 */
#define BLOOM_HASH_SCHEME_DOUBLE_HASHING		1
#define BLOOM_HASH_SCHEME_INDEPENDENT_WORDS		2
#define BLOOM_HASH_SCHEME_WIDE_VALUES			3
#define BLOOM_HASH_SCHEME_NEWEST	BLOOM_HASH_SCHEME_WIDE_VALUES

/*
 * The scheme of every interop layout, and only of them: the value is
 * encoded as the other system encodes it and hashed by that system's hash
 * (the layout's own: XXH64, murmur3_128, murmur3_32), and the filter's seed
 * field holds how (BF_INTEROP_* below).  The BloomHash an interop layout's
 * insert and query take is that hash itself, not bf_hash_derive's words.
 */
#define BLOOM_HASH_SCHEME_INTEROP	16

/* True for a scheme this version reads. */
static inline bool
bf_scheme_known(unsigned scheme)
{
	return (scheme >= BLOOM_HASH_SCHEME_DOUBLE_HASHING &&
			scheme <= BLOOM_HASH_SCHEME_NEWEST) ||
		scheme == BLOOM_HASH_SCHEME_INTEROP;
}

/*
 * The seed field of an interop filter: how SQL values become the other
 * system's bytes.  Bits 0-31: the other system's own seed (Spark version
 * 2; 0 otherwise).  Bits 32-39: the encoding (BF_ENC_*; 0 follows the
 * probed value's SQL type).  Bits 40-41: the unit of timestamps
 * (BF_TSUNIT_*).  Bit 48: Spark only, values are put as longs directly
 * rather than through Spark SQL's xxhash64.  Every other bit is 0.
 */
#define BF_INTEROP_SEED_MASK	UINT64_C(0x00000000ffffffff)
#define BF_INTEROP_ENC_SHIFT	32
#define BF_INTEROP_TSUNIT_SHIFT	40
#define BF_INTEROP_RAW_LONGS	(UINT64_C(1) << 48)
#define BF_INTEROP_KNOWN_BITS \
	(BF_INTEROP_SEED_MASK | (UINT64_C(0xff) << BF_INTEROP_ENC_SHIFT) | \
	 (UINT64_C(3) << BF_INTEROP_TSUNIT_SHIFT) | BF_INTEROP_RAW_LONGS)

/* Encodings: Parquet physical types, then Guava funnels. */
enum
{
	BF_ENC_DEFAULT = 0,
	BF_ENC_INT32, BF_ENC_INT64, BF_ENC_FLOAT, BF_ENC_DOUBLE, BF_ENC_BYTE_ARRAY,
	BF_ENC_FIXED_LEN_BYTE_ARRAY,
	BF_ENC_LONG, BF_ENC_INTEGER, BF_ENC_STRING, BF_ENC_UNENCODED_CHARS, BF_ENC_BYTES,
	BF_ENC_LAST = BF_ENC_BYTES
};

/* Units of timestamps as Parquet INT64. */
enum
{
	BF_TSUNIT_MICROS = 0, BF_TSUNIT_MILLIS, BF_TSUNIT_NANOS
};

static inline unsigned
bf_interop_encoding(uint64_t seed)
{
	return (unsigned) ((seed >> BF_INTEROP_ENC_SHIFT) & 0xff);
}

static inline unsigned
bf_interop_tsunit(uint64_t seed)
{
	return (unsigned) ((seed >> BF_INTEROP_TSUNIT_SHIFT) & 3);
}

/* Positions from independent words (schemes 2 and 3), not double hashing. */
static inline bool
bf_scheme_independent(unsigned scheme)
{
	return scheme != BLOOM_HASH_SCHEME_DOUBLE_HASHING;
}

/*
 * True if the scheme hashes 64-bit quantities in full (scheme 3): its value
 * hashes differ from schemes 1 and 2 for such values beyond 32 bits, so its
 * lists and bits do not combine with theirs.
 */
static inline bool
bf_scheme_wide(unsigned scheme)
{
	return scheme >= BLOOM_HASH_SCHEME_WIDE_VALUES;
}

/*
 * The scheme a filter built from value hashes of this scheme's kind gets
 * (a merged list, the bit array a list becomes): the newest scheme that
 * hashes values the same way.
 */
static inline uint8_t
bf_scheme_for_values_of(unsigned scheme)
{
	return bf_scheme_wide(scheme) ? BLOOM_HASH_SCHEME_WIDE_VALUES
		: BLOOM_HASH_SCHEME_INDEPENDENT_WORDS;
}

/* Flags (header byte 3).  Unknown flags are rejected by readers. */
#define BLOOM_FLAG_AUTOSIZED	0x01	/* built by a sizing aggregate */
#define BLOOM_FLAG_MATRIX_TIES_FIRST	0x02	/* matrix only: see layout_matrix.h */
#define BLOOM_KNOWN_FLAGS		(BLOOM_FLAG_AUTOSIZED | BLOOM_FLAG_MATRIX_TIES_FIRST)

/* Blocked layout: one block is one 64-byte cache line. */
#define BLOOM_BLOCK_BITS		512

/*
 * Limits.  A PostgreSQL value (and allocation) is at most 1 GB - 1 bytes;
 * the largest filter is the largest that fits, which is > 2^32 bits.
 */
#define BLOOM_MAX_ALLOC_BYTES	((uint64_t) 0x3fffffff)
#define BLOOM_MAX_WORDS \
	((BLOOM_MAX_ALLOC_BYTES - (uint64_t) offsetof(BloomFilter, words)) / 8)
#define BLOOM_MAX_NBITS			(BLOOM_MAX_WORDS * 64)
#define BLOOM_MAX_NHASHES		64

/* Longest message the core writes into an error buffer. */
#define BLOOM_ERRBUF_SIZE		512

/* Null value of full_at: never full (or not a matrix). */
#define BLOOM_NEVER_FULL		(-1)

/* ln 2 and its square, of the optimal-size formulas. */
#define BF_LN2		0.69314718055994530942
#define BF_LN2_SQ	(BF_LN2 * BF_LN2)

typedef struct BloomFilter
{
	int32_t		vl_len_;		/* host's length word; not part of the format */
	uint8_t		version;		/* format version */
	uint8_t		layout;			/* BLOOM_LAYOUT_* */
	uint8_t		hash_scheme;	/* BLOOM_HASH_SCHEME_* */
	uint8_t		flags;			/* BLOOM_FLAG_* */
	uint64_t	nbits;			/* m: number of addressable bits */
	uint64_t	seed;			/* passed to the type's extended hash */
	uint64_t	inserted;		/* number of values added (with repeats) */
	uint32_t	nhashes;		/* k: bits per value */
	uint32_t	rows;			/* matrix: r; otherwise 0 */
	uint32_t	locators;		/* matrix: s; otherwise 0 */
	uint32_t	reserved1;		/* must be 0 */
	int64_t		full_at;		/* matrix: see doc/format.md; else -1 */
	uint64_t	reserved2;		/* must be 0 */
	uint64_t	words[];		/* ceil(nbits / 64) words, bit i in words[i/64] */
} BloomFilter;

/* The two words a value contributes to double hashing. */
typedef struct BloomHash
{
	uint64_t	h1;
	uint64_t	h2;				/* never zero */
} BloomHash;

/*
 * A value staged for insertion (the inserter of core/filter.h): its words,
 * and what its layout computed from them when it prefetched the value's
 * memory, so that inserting it later need not compute it again: the
 * classic layout's bit positions (up to BF_STAGED_POSITIONS of them), the
 * blocked layout's block.  Indexes, not addresses, so a staged value does
 * not depend on where the filter is.
 */
#define BF_STAGED_POSITIONS		16

typedef struct BfStaged
{
	BloomHash	h;
	uint64_t	where[BF_STAGED_POSITIONS];
} BfStaged;

/* The shape: everything two filters must share to be united. */
typedef struct BloomShape
{
	uint8_t		layout;
	uint64_t	nbits;
	uint32_t	nhashes;
	uint64_t	seed;
	uint32_t	rows;
	uint32_t	locators;
} BloomShape;

/* ---- sizes ---- */

/* Number of 64-bit words holding nbits bits. */
static inline uint64_t
bf_words_for_bits(uint64_t nbits)
{
	return (nbits + 63) / 64;
}

static inline uint64_t
bf_nwords(const BloomFilter *f)
{
	return bf_words_for_bits(f->nbits);
}

/*
 * Bytes of the in-memory struct (the varlena size) of a filter that is only
 * its nbits bits (classic, blocked).  For any layout use bf_shape_bytes.
 */
static inline uint64_t
bf_struct_bytes(uint64_t nbits)
{
	return (uint64_t) offsetof(BloomFilter, words) + 8 * bf_words_for_bits(nbits);
}

/*
 * Bytes of the in-memory struct for a valid shape: the bit words, plus for
 * the matrix layout one 64-bit set-bit counter per row after them
 * (layout_matrix.h).  The binary format carries only the bits.
 */
static inline uint64_t
bf_shape_bytes(const BloomShape *shape)
{
	uint64_t	bytes = bf_struct_bytes(shape->nbits);

	if (shape->layout == BLOOM_LAYOUT_MATRIX)
		bytes += 8 * (uint64_t) shape->rows;
	return bytes;
}

/* a + b, or UINT64_MAX if that overflows: counts of values and rows. */
static inline uint64_t
bf_add_saturating(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Counts one value added to f (every layout's insert does, at its end). */
static inline void
bf_count_insert(BloomFilter *f)
{
	if (f->inserted < UINT64_MAX)
		f->inserted++;
}

/* ---- hashing: both finalizers are part of the stored format ---- */

/*
 * The finalizer of splitmix64 and MurmurHash3 with its constants as
 * arguments: xor-shift, multiply, xor-shift, multiply, xor-shift.  With
 * odd multipliers it is a bijection; the two sets of constants below give
 * full avalanche.
 */
static inline uint64_t
bf_xorshift_multiply(uint64_t x, unsigned s1, uint64_t m1, unsigned s2, uint64_t m2,
					 unsigned s3)
{
	x ^= x >> s1;
	x *= m1;
	x ^= x >> s2;
	x *= m2;
	x ^= x >> s3;
	return x;
}

/*
 * The splitmix64 / MurmurHash3 64-bit finalizer: derives the
 * double-hashing words (bf_hash_derive) and the matrix layout's candidate
 * rows.
 */
static inline uint64_t
bf_mix64(uint64_t x)
{
	return bf_xorshift_multiply(x, 30, UINT64_C(0xbf58476d1ce4e5b9),
								27, UINT64_C(0x94d049bb133111eb), 31);
}

/*
 * A second 64-bit finalizer, with other shifts and multipliers: draws the
 * blocked layout's in-block positions beyond the first seven, so they are
 * not a function of what bf_mix64 already gave h2.
 */
static inline uint64_t
bf_mix64_inblock(uint64_t x)
{
	return bf_xorshift_multiply(x, 31, UINT64_C(0x7fb5d329728ea185),
								27, UINT64_C(0x81dadef4bc2dd44d), 33);
}

/*
 * Two words from one 64-bit hash of a value, through two different
 * bijections, so each is a full-quality 64-bit word even if the type's hash
 * is weak in some bits, and neither is a slice of the other (slicing a
 * 64-bit hash into 32-bit halves is what loses the rate beyond 2^32 bits).
 * h2 is forced odd, so it is never zero.  Inline: it runs once per row.
 */
static inline BloomHash
bf_hash_derive(uint64_t value_hash)
{
	BloomHash	h;

	h.h1 = bf_mix64(value_hash + UINT64_C(0x9e3779b97f4a7c15));
	h.h2 = bf_mix64(value_hash ^ UINT64_C(0xc2b2ae3d27d4eb4f)) | 1;
	return h;
}

/* ---- the value hash of wide integers, scheme 3 (doc/format.md) ---- */

/*
 * The key bf_hash_wide64 xors with the seed: any fixed odd constant, so
 * that seed 0 does not leave the first step the bare finalizer.
 */
#define BF_WIDE_KEY		UINT64_C(0x2545f4914f6cdd1d)

/*
 * True if v needs the wide hash under scheme 3: it does not fit in a signed
 * 32-bit integer.  Values that fit keep the type's own hash, which for them
 * is PostgreSQL's hash_bytes_uint32_extended((uint32) v, seed), so int2,
 * int4 and int8 still hash alike.
 */
static inline bool
bf_hash_wide_needed(int64_t v)
{
	return v < INT32_MIN || v > INT32_MAX;
}

/*
 * Scheme 3's hash of a 64-bit quantity v beyond 32 bits (a bigint, a
 * timestamp's microseconds, ...), with the filter's seed: two rounds of
 * bf_mix64 keyed by k = seed XOR BF_WIDE_KEY,
 *   mix(mix(v XOR k) + k)   (mod 2^64).
 * Each step is a bijection, so two different v never collide under one
 * seed; the key enters twice, so the hashes under two seeds (multibloom's
 * attributes) are unrelated functions of v.
 */
static inline uint64_t
bf_hash_wide64(uint64_t v, uint64_t seed)
{
	uint64_t	k = seed ^ BF_WIDE_KEY;

	return bf_mix64(bf_mix64(v ^ k) + k);
}

/* A signed 128-bit integer: hi * 2^64 + lo, two's complement. */
typedef struct BfInt128
{
	int64_t		hi;
	uint64_t	lo;
} BfInt128;

/* a * b + c exactly, in plain 64-bit arithmetic (interval spans). */
static inline BfInt128
bf_int128_mul_add(int64_t a, int64_t b, int64_t c)
{
	uint64_t	ua = a < 0 ? -(uint64_t) a : (uint64_t) a,
				ub = b < 0 ? -(uint64_t) b : (uint64_t) b;
	uint64_t	al = ua & 0xffffffffu,
				ah = ua >> 32,
				bl = ub & 0xffffffffu,
				bh = ub >> 32;
	uint64_t	ll = al * bl,
				lh = al * bh,
				hl = ah * bl;
	uint64_t	mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
	uint64_t	lo = (mid << 32) | (ll & 0xffffffffu);
	uint64_t	hi = ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	uint64_t	sum;
	BfInt128	r;

	if ((a < 0) != (b < 0))
	{
		/* -(hi:lo): complement both words, add one with its carry */
		lo = ~lo + 1;
		hi = ~hi + (lo == 0);
	}
	sum = lo + (uint64_t) c;
	hi += (c < 0 ? UINT64_MAX : 0) + (sum < lo);
	r.hi = (int64_t) hi;
	r.lo = sum;
	return r;
}

/*
 * Scheme 3's hash of a quantity of up to 128 bits beyond 32 bits (an
 * interval's span): within 64 bits, bf_hash_wide64 of it; beyond, the low
 * word hashed with the hash of the high word as its seed.
 */
static inline uint64_t
bf_hash_wide128(BfInt128 v, uint64_t seed)
{
	int64_t		sign = (v.lo >> 63) ? -1 : 0;

	if (v.hi == sign)
		return bf_hash_wide64(v.lo, seed);
	return bf_hash_wide64(v.lo, bf_hash_wide64((uint64_t) v.hi, seed));
}

/* Maps a uniform 64-bit x onto [0, n) without division (Lemire). */
static inline uint64_t
bf_reduce(uint64_t x, uint64_t n)
{
#ifdef __SIZEOF_INT128__
	return (uint64_t) (((unsigned __int128) x * n) >> 64);
#else
	uint64_t	xl = x & 0xffffffffu,
				xh = x >> 32,
				nl = n & 0xffffffffu,
				nh = n >> 32;
	uint64_t	mid = xh * nl + ((xl * nl) >> 32);
	uint64_t	mid2 = xl * nh + (mid & 0xffffffffu);

	return xh * nh + (mid >> 32) + (mid2 >> 32);
#endif
}

/* Schemes 2 and 3: the i-th of a value's independent 64-bit words. */
static inline uint64_t
bf_position_word(BloomHash h, uint32_t i)
{
	return bf_mix64(h.h1 + (uint64_t) i * h.h2);
}

/*
 * A value's positions in a range of n bits, one per hash function: the
 * classic layout's positions in the whole filter and the matrix layout's in
 * a row.  Use: bf_probe_start with the filter's hash scheme, then
 * bf_probe_next(&p, n) once per hash function.  Position i is
 *   schemes 2, 3: bf_reduce(bf_position_word(h, i), n);
 *   scheme 1: bf_reduce(h1 + i*h2 + i(i-1)(i-2)/6, n), enhanced double
 *             hashing (Dillinger & Manolios), kept for stored filters.
 * Under every scheme the words do not depend on n, so a filter of 2^j times
 * the bits folds onto this one (filter.h, bf_fold).  Independent words cost
 * one bf_mix64 per position, a few cycles beside the memory access.
 */
typedef struct BfProbe
{
	BloomHash	h;
	uint64_t	x;				/* scheme 1: h1 + i*h2 + i(i-1)(i-2)/6 */
	uint64_t	y;				/* scheme 1: h2 + i(i-1)/2 */
	uint32_t	i;
	bool		independent;	/* schemes 2 and 3 */
} BfProbe;

static inline BfProbe
bf_probe_start(BloomHash h, uint8_t scheme)
{
	BfProbe		p = {h, h.h1, h.h2, 0, bf_scheme_independent(scheme)};

	return p;
}

static inline uint64_t
bf_probe_next(BfProbe *p, uint64_t n)
{
	uint64_t	word;

	if (p->independent)
		word = bf_position_word(p->h, p->i);
	else
	{
		word = p->x;
		p->x += p->y;
		p->y += p->i;
	}
	p->i++;
	return bf_reduce(word, n);
}

/* ---- bits ---- */

/* Sets a bit; true if it was clear (the filter changed). */
static inline bool
bf_set_bit(uint64_t *words, uint64_t bit)
{
	uint64_t	mask = (uint64_t) 1 << (bit & 63);
	bool		was_clear = (words[bit >> 6] & mask) == 0;

	words[bit >> 6] |= mask;
	return was_clear;
}

static inline bool
bf_test_bit(const uint64_t *words, uint64_t bit)
{
	return (words[bit >> 6] >> (bit & 63)) & 1;
}

/* Asks the CPU to load the cache line at p for writing; only a hint. */
static inline void
bf_prefetch_line(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(p, 1, 3);
#else
	(void) p;
#endif
}

static inline unsigned
bf_popcount64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return (unsigned) __builtin_popcountll(x);
#else
	x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned) ((x * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

/* Set bits of words[0 .. n). */
static inline uint64_t
bf_popcount_words(const uint64_t *words, uint64_t n)
{
	uint64_t	count = 0;

	for (uint64_t i = 0; i < n; i++)
		count += bf_popcount64(words[i]);
	return count;
}

/* Bits [lo, hi) of one word, 0 <= lo < hi <= 64. */
static inline uint64_t
bf_word_slice(uint64_t w, unsigned lo, unsigned hi)
{
	uint64_t	mask = hi == 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << hi) - 1);

	return w & mask & (~(uint64_t) 0 << lo);
}

/* Set bits of bits [from, from + len) of a bit array. */
static inline uint64_t
bf_popcount_range(const uint64_t *words, uint64_t from, uint64_t len)
{
	uint64_t	end = from + len,
				w = from >> 6,
				last = (end - 1) >> 6;
	unsigned	end_bit = (unsigned) ((end - 1) & 63) + 1;

	if (len == 0)
		return 0;
	if (w == last)
		return bf_popcount64(bf_word_slice(words[w], from & 63, end_bit));
	return bf_popcount64(bf_word_slice(words[w], from & 63, 64)) +
		bf_popcount_words(words + w + 1, last - w - 1) +
		bf_popcount64(bf_word_slice(words[last], 0, end_bit));
}

/* ---- the optimal classic filter, where every layout's sizing starts ---- */

/*
 * Bits of the optimal classic filter for n values at rate p: -n ln p /
 * (ln 2)^2, with k = log2(1/p) not rounded, at which its expected rate is
 * p.  No layout keeps 95% of its filters at p in fewer bits, so their
 * sizing (core/sizing.h) searches upwards from here.
 */
static inline double
bf_optimal_bits(double n, double p)
{
	return -n * log(p) / BF_LN2_SQ;
}

/*
 * Swamidass & Baldi: the number of values in a filter of m bits and k
 * hashes with x bits set is about -(m/k) ln(1 - x/m).  Infinite when every
 * bit is set: the filter then says nothing about its contents.
 */
static inline double
bf_count_from_fill(double m, uint32_t k, double x)
{
	if (x >= m)
		return INFINITY;
	return -(m / k) * log1p(-x / m);
}

#endif							/* BF_BASE_H */
