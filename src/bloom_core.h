/*
 * bloom_core.h
 *	  Bloom filter algorithms in plain C: layout of a filter in memory,
 *	  positions of a value's bits, sizing, set operations, statistics and the
 *	  binary format.  Nothing here knows PostgreSQL, so the algorithms can be
 *	  unit-tested and fuzzed on their own; src/bloom.c is the glue.
 *
 *	  The in-memory struct starts with a 4-byte length word owned by the host
 *	  (PostgreSQL's varlena header).  The serialized ("binary") format is the
 *	  struct without that word, little-endian: see doc/format.md.
 */
#ifndef BLOOM_CORE_H
#define BLOOM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Format version written by this code; readers accept 1..this. */
#define BLOOM_FORMAT_VERSION	1

/* Layouts: how a value's bits are placed. */
#define BLOOM_LAYOUT_CLASSIC	0	/* k positions anywhere in m bits */
#define BLOOM_LAYOUT_BLOCKED	1	/* k positions inside one 512-bit block */
#define BLOOM_LAYOUT_MATRIX		2	/* M-BMBF: r rows, s locating hashes */
#define BLOOM_NUM_LAYOUTS		3

/*
 * Hash schemes: how a value becomes the two 64-bit words that drive double
 * hashing.  Scheme 1: the type's extended hash (seeded with the filter's
 * seed), then two different 64-bit finalizers (see bf_hash_derive).
 */
#define BLOOM_HASH_SCHEME_PG_EXTENDED	1

/* Flags (header byte 3).  Unknown flags are rejected by readers. */
#define BLOOM_FLAG_AUTOSIZED	0x01	/* built by a sizing aggregate */
#define BLOOM_KNOWN_FLAGS		(BLOOM_FLAG_AUTOSIZED)

/* Sizes of the binary format. */
#define BLOOM_WIRE_HEADER_BYTES	60	/* header bytes before the bit words */
#define BLOOM_BLOCK_BITS		512 /* blocked layout: one cache line */

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

/* ---- shapes and sizes ---- */

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
 * (layout_matrix_core.h).  The binary format carries only the bits.
 */
static inline uint64_t
bf_shape_bytes(const BloomShape *shape)
{
	uint64_t	bytes = bf_struct_bytes(shape->nbits);

	if (shape->layout == BLOOM_LAYOUT_MATRIX)
		bytes += 8 * (uint64_t) shape->rows;
	return bytes;
}

/*
 * Checks a shape; returns true if valid, else false with a message in errbuf.
 * Every constructor and reader goes through this.
 */
extern bool bf_shape_check(const BloomShape *shape, char *errbuf);

/*
 * Shape for capacity distinct values at false-positive rate fpp with the
 * given layout.  Returns false with a message if the parameters are out of
 * range or the filter would exceed the size limit.
 */
extern bool bf_shape_for(double capacity, double fpp, int layout,
							BloomShape *shape, char *errbuf);

/*
 * Auto-sized filters (bloom_agg without a capacity): classic layout, the
 * number of hash functions fixed by the target rate alone, and a power-of-two
 * number of 64-bit words, so any two of them have sizes that divide each
 * other and the larger folds onto the smaller (bf_fold).
 */
#define BLOOM_AUTO_FPP			0.01
#define BLOOM_AUTO_NHASHES		7	/* round(-log2(0.01)) */

/*
 * Shape of the auto-sized filter for ndistinct values (0 allowed: the
 * smallest, one-word filter): the fewest power-of-two words whose expected
 * rate with BLOOM_AUTO_NHASHES hashes is at most BLOOM_AUTO_FPP.
 */
extern bool bf_shape_datasized(double ndistinct, BloomShape *shape, char *errbuf);

/* Writes the header of an empty filter of this shape; words must be zeroed. */
extern void bf_init(BloomFilter *f, const BloomShape *shape);

extern void bf_get_shape(const BloomFilter *f, BloomShape *shape);
extern const char *bf_layout_name(int layout);
extern int	bf_layout_from_name(const char *name);	/* -1 if unknown */

/* Describes a shape as text, e.g. for error messages. */
extern void bf_shape_describe(const BloomShape *shape, char *buf, size_t len);

/* ---- hashing, insertion and lookup ---- */

/*
 * Derives the double-hashing words from a 64-bit hash of a value (inline:
 * it runs once per row).
 */
/* The splitmix64 / MurmurHash3 64-bit finalizer: a bijection. */
static inline uint64_t
bf_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

/*
 * Two words from one 64-bit hash, through two different bijections, so each
 * is a full-quality 64-bit word even if the type's hash is weak in some bits,
 * and neither is a slice of the other (slicing a 64-bit hash into 32-bit
 * halves is what loses the rate beyond 2^32 bits).  h2 is forced odd, so it
 * is never zero.
 */
static inline BloomHash
bf_hash_derive(uint64_t value_hash)
{
	BloomHash	h;

	h.h1 = bf_mix64(value_hash + UINT64_C(0x9e3779b97f4a7c15));
	h.h2 = bf_mix64(value_hash ^ UINT64_C(0xc2b2ae3d27d4eb4f)) | 1;
	return h;
}


/* Adds a value; returns true if any bit changed. */
extern bool bf_insert(BloomFilter *f, BloomHash h);

/* True if all of the value's bits are set (member or false positive). */
extern bool bf_query(const BloomFilter *f, BloomHash h);

/*
 * Asks the CPU to start loading the memory a later bf_insert or
 * bf_query of h will touch, so bulk callers (the aggregates) overlap the
 * cache misses of several values.  Only a hint: no effect on the bits.
 */
extern void bf_prefetch(const BloomFilter *f, BloomHash h);

/* ---- set operations ---- */

/*
 * True if a and b can be united or intersected; otherwise false and errbuf
 * says why, naming both shapes.
 */
extern bool bf_compatible(const BloomFilter *a, const BloomFilter *b, char *errbuf);

/*
 * dst |= src, dst &= src.  The shapes must be compatible, and dst must not
 * have more bits than src: when src has more (two auto-sized filters of
 * different sizes), src is folded onto dst's size on the fly.  The result
 * keeps BLOOM_FLAG_AUTOSIZED only if both had it.
 */
extern void bf_union_into(BloomFilter *dst, const BloomFilter *src);
extern void bf_intersect_into(BloomFilter *dst, const BloomFilter *src);

/*
 * True if filters of a's and b's shapes fold onto a common size: both
 * auto-sized, classic, with the same hash functions and seed, and
 * power-of-two word counts.  Shapes that are equal need no folding.
 */
extern bool bf_foldable(const BloomFilter *a, const BloomFilter *b);

/*
 * Folds src onto dst, which has src's header but fewer bits (nbits divides
 * src's nbits; dst's words must be zeroed): bit j of dst becomes the OR of
 * the f = src/dst adjacent bits j*f .. j*f+f-1 of src.  For the classic
 * layout that is exactly the filter of dst's size holding the same values.
 */
extern void bf_fold(const BloomFilter *src, BloomFilter *dst);

/* Identical shape and bits (insert counts are not compared). */
extern bool bf_equal(const BloomFilter *a, const BloomFilter *b);

/* ---- statistics ---- */
extern uint64_t bf_bits_set(const BloomFilter *f);
extern double bf_estimate_count(const BloomFilter *f);
extern double bf_estimate_fpp(const BloomFilter *f);

/* ---- binary format ---- */

/* Bytes of the serialized form. */
static inline uint64_t
bf_wire_bytes(const BloomFilter *f)
{
	return BLOOM_WIRE_HEADER_BYTES + 8 * bf_nwords(f);
}

/* Writes the serialized form of f (bf_wire_bytes(f) bytes) to out. */
extern void bf_serialize(const BloomFilter *f, uint8_t *out);

/*
 * Validates a serialized filter of len bytes.  On success returns true and
 * sets *struct_bytes to the size the in-memory struct needs; else false with
 * a message.  Nothing is allocated, so callers check before they allocate.
 */
extern bool bf_wire_check(const uint8_t *buf, size_t len,
							 uint64_t *struct_bytes, char *errbuf);

/* Fills f (struct_bytes from bf_wire_check) from a validated buffer. */
extern void bf_deserialize(const uint8_t *buf, size_t len, BloomFilter *f);

/*
 * Checks the header of an in-memory filter against its size: a cheap guard
 * run on every filter argument.
 */
extern bool bf_struct_check(const BloomFilter *f, uint64_t size, char *errbuf);

/* ---- text form: strict, canonical base64 of the binary format ---- */
extern uint64_t bf_base64_encoded_len(uint64_t nbytes);
extern void bf_base64_encode(const uint8_t *src, size_t len, char *dst);

/*
 * Decodes canonical base64 (no whitespace, '=' padding, zero pad bits);
 * returns false with a message on any other input.  dst holds
 * bf_base64_decoded_max(len) bytes; *outlen receives the decoded length.
 */
extern uint64_t bf_base64_decoded_max(size_t len);
extern bool bf_base64_decode(const char *src, size_t len, uint8_t *dst,
						  size_t *outlen, char *errbuf);

/* ---- helpers shared by layouts ---- */

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

static inline void
bf_set_bit(uint64_t *words, uint64_t bit)
{
	words[bit >> 6] |= (uint64_t) 1 << (bit & 63);
}

static inline bool
bf_test_bit(const uint64_t *words, uint64_t bit)
{
	return (words[bit >> 6] >> (bit & 63)) & 1;
}

#endif							/* BLOOM_CORE_H */
