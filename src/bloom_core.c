/*
 * bloom_core.c
 *	  Bloom filter algorithms in plain C (no PostgreSQL): see bloom_core.h.
 */
#include "bloom_core.h"
#include "layout_blocked_core.h"
#include "layout_matrix_core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LN2		0.69314718055994530942
#define LN2_SQ	(LN2 * LN2)

static const char *const layout_names[BLOOM_NUM_LAYOUTS] = {
	"classic", "blocked", "matrix"
};

const char *
bf_layout_name(int layout)
{
	if (layout < 0 || layout >= BLOOM_NUM_LAYOUTS)
		return "unknown";
	return layout_names[layout];
}

int
bf_layout_from_name(const char *name)
{
	for (int i = 0; i < BLOOM_NUM_LAYOUTS; i++)
		if (strcmp(name, layout_names[i]) == 0)
			return i;
	return -1;
}

/* Layouts this build can insert into and query. */
static bool
layout_supported(int layout)
{
	return layout == BLOOM_LAYOUT_CLASSIC || layout == BLOOM_LAYOUT_BLOCKED ||
		layout == BLOOM_LAYOUT_MATRIX;
}

/* ---------------------------------------------------------------------
 * Shapes
 * --------------------------------------------------------------------- */

bool
bf_shape_check(const BloomShape *s, char *errbuf)
{
	if (s->layout >= BLOOM_NUM_LAYOUTS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "unknown layout %u", (unsigned) s->layout);
		return false;
	}
	if (!layout_supported(s->layout))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "layout \"%s\" is not supported by this version",
				 bf_layout_name(s->layout));
		return false;
	}
	if (s->nbits < 1 || s->nbits > BLOOM_MAX_NBITS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of bits must be between 1 and %llu, not %llu",
				 (unsigned long long) BLOOM_MAX_NBITS,
				 (unsigned long long) s->nbits);
		return false;
	}
	if (s->nhashes < 1 || s->nhashes > BLOOM_MAX_NHASHES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of hash functions must be between 1 and %d, not %u",
				 BLOOM_MAX_NHASHES, (unsigned) s->nhashes);
		return false;
	}
	if (s->layout == BLOOM_LAYOUT_BLOCKED && s->nbits % BLOOM_BLOCK_BITS != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of bits of a blocked filter must be a multiple of %d, not %llu",
				 BLOOM_BLOCK_BITS, (unsigned long long) s->nbits);
		return false;
	}
	if (s->layout != BLOOM_LAYOUT_MATRIX && (s->rows != 0 || s->locators != 0))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "rows and locators must be 0 for layout \"%s\"",
				 bf_layout_name(s->layout));
		return false;
	}
	if (s->layout == BLOOM_LAYOUT_MATRIX && !matrix_shape_check(s, errbuf))
		return false;
	return true;
}

/*
 * Blocked filters need more bits than classic ones for the same rate (busy
 * blocks answer wrongly more often than quiet ones save), so the size comes
 * from the exact rate of a blocked filter, not from the classic formula.
 */
static bool
blocked_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	uint64_t	nblocks;
	uint32_t	k;

	if (!blocked_size_for(capacity, fpp, BLOOM_MAX_NBITS / BLOOM_BLOCK_BITS, &nblocks, &k))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a blocked filter for %.15g values at false-positive probability %g needs more than the maximum of %llu bits (1 GB)",
				 capacity, fpp, (unsigned long long) BLOOM_MAX_NBITS);
		return false;
	}
	memset(s, 0, sizeof(*s));
	s->layout = BLOOM_LAYOUT_BLOCKED;
	s->nbits = nblocks * BLOOM_BLOCK_BITS;
	s->nhashes = k;
	return true;
}

bool
bf_shape_for(double capacity, double fpp, int layout, BloomShape *s, char *errbuf)
{
	double		m;
	double		k;

	if (isnan(capacity) || capacity < 1)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "capacity must be at least 1, not %g", capacity);
		return false;
	}
	if (isnan(fpp) || !(fpp > 0.0 && fpp < 1.0))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "false-positive probability must be between 0 and 1 (exclusive), not %g", fpp);
		return false;
	}
	if (layout == BLOOM_LAYOUT_BLOCKED)
		return blocked_shape_for(capacity, fpp, s, errbuf);
	if (layout == BLOOM_LAYOUT_MATRIX)
		return matrix_shape_for(capacity, fpp, s, errbuf);
	if (layout != BLOOM_LAYOUT_CLASSIC)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "layout \"%s\" cannot be sized from a capacity by this version",
				 bf_layout_name(layout));
		return false;
	}

	/* m = -n ln p / (ln 2)^2, k = round(m/n ln 2): the optimal classic filter */
	m = ceil(-capacity * log(fpp) / LN2_SQ);
	k = round(m / capacity * LN2);
	if (k < 1)
		k = 1;
	if (k > BLOOM_MAX_NHASHES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "false-positive probability %g needs %.0f hash functions, more than the maximum %d",
				 fpp, k, BLOOM_MAX_NHASHES);
		return false;
	}
	/* whole 64-bit words: the extra bits are free and lower the rate */
	m = ceil(m / 64.0) * 64.0;
	if (!(m <= (double) BLOOM_MAX_NBITS))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a filter for %.15g values at false-positive probability %g needs %.4g bits (%.4g MB), more than the maximum of %llu bits (1 GB)",
				 capacity, fpp, m, m / 8 / 1048576.0,
				 (unsigned long long) BLOOM_MAX_NBITS);
		return false;
	}

	memset(s, 0, sizeof(*s));
	s->layout = (uint8_t) layout;
	s->nbits = (uint64_t) m;
	s->nhashes = (uint32_t) k;
	return true;
}

bool
bf_shape_datasized(double ndistinct, BloomShape *s, char *errbuf)
{
	const double k = BLOOM_AUTO_NHASHES;
	/* bits per value at which (1 - e^(-k n/m))^k equals the target rate */
	double		bits_per_value = -k / log1p(-pow(BLOOM_AUTO_FPP, 1.0 / k));
	double		words;
	uint64_t	nwords = 1;

	if (isnan(ndistinct) || ndistinct < 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of distinct values must not be negative, not %g", ndistinct);
		return false;
	}
	words = ceil(ceil(ndistinct * bits_per_value) / 64.0);
	while ((double) nwords < words && nwords <= BLOOM_MAX_WORDS / 2)
		nwords *= 2;
	if ((double) nwords < words)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a filter for %.15g distinct values at false-positive probability %g needs more than the largest power-of-two size that fits in 1 GB (%llu bits)",
				 ndistinct, BLOOM_AUTO_FPP, (unsigned long long) nwords * 64);
		return false;
	}
	memset(s, 0, sizeof(*s));
	s->layout = BLOOM_LAYOUT_CLASSIC;
	s->nbits = nwords * 64;
	s->nhashes = BLOOM_AUTO_NHASHES;
	return true;
}

void
bf_init(BloomFilter *f, const BloomShape *s)
{
	f->version = BLOOM_FORMAT_VERSION;
	f->layout = s->layout;
	f->hash_scheme = BLOOM_HASH_SCHEME_PG_EXTENDED;
	f->flags = 0;
	f->nbits = s->nbits;
	f->seed = s->seed;
	f->inserted = 0;
	f->nhashes = s->nhashes;
	f->rows = s->rows;
	f->locators = s->locators;
	f->reserved1 = 0;
	f->full_at = BLOOM_NEVER_FULL;
	f->reserved2 = 0;
}

void
bf_get_shape(const BloomFilter *f, BloomShape *s)
{
	memset(s, 0, sizeof(*s));
	s->layout = f->layout;
	s->nbits = f->nbits;
	s->nhashes = f->nhashes;
	s->seed = f->seed;
	s->rows = f->rows;
	s->locators = f->locators;
}

void
bf_shape_describe(const BloomShape *s, char *buf, size_t len)
{
	if (s->layout == BLOOM_LAYOUT_MATRIX)
		snprintf(buf, len, "%s, %u rows x %llu bits, %u hashes, %u locators, seed %llu",
				 bf_layout_name(s->layout), (unsigned) s->rows,
				 (unsigned long long) (s->rows ? s->nbits / s->rows : 0),
				 (unsigned) s->nhashes, (unsigned) s->locators,
				 (unsigned long long) s->seed);
	else
		snprintf(buf, len, "%s, %llu bits, %u hashes, seed %llu",
				 bf_layout_name(s->layout), (unsigned long long) s->nbits,
				 (unsigned) s->nhashes, (unsigned long long) s->seed);
}

/* ---------------------------------------------------------------------
 * Hashing and the classic layout
 * --------------------------------------------------------------------- */

/* bf_hash_derive and its mixer are inline in bloom_core.h. */

/*
 * Classic layout: enhanced double hashing (Dillinger & Manolios) on 64-bit
 * words, x_i = h1 + i*h2 + (i^3 - i)/6, each mapped onto [0, m) by
 * multiply-shift.  Because the sequence x_i does not depend on m and the
 * reduction is monotone, a filter of f*m bits folds onto one of m bits by
 * OR-ing runs of f adjacent bits, giving exactly the bits of an m-bit filter.
 */
static bool
classic_insert(BloomFilter *f, BloomHash h)
{
	uint64_t	x = h.h1,
				y = h.h2;
	bool		changed = false;

	for (uint32_t i = 0; i < f->nhashes; i++)
	{
		uint64_t	bit = bf_reduce(x, f->nbits);
		uint64_t	mask = (uint64_t) 1 << (bit & 63);

		changed |= (f->words[bit >> 6] & mask) == 0;
		f->words[bit >> 6] |= mask;
		x += y;
		y += i;
	}
	return changed;
}

static bool
classic_query(const BloomFilter *f, BloomHash h)
{
	uint64_t	x = h.h1,
				y = h.h2;

	for (uint32_t i = 0; i < f->nhashes; i++)
	{
		if (!bf_test_bit(f->words, bf_reduce(x, f->nbits)))
			return false;
		x += y;
		y += i;
	}
	return true;
}

static void
classic_prefetch(const BloomFilter *f, BloomHash h)
{
#if defined(__GNUC__) || defined(__clang__)
	uint64_t	x = h.h1,
				y = h.h2;

	for (uint32_t i = 0; i < f->nhashes; i++)
	{
		__builtin_prefetch(&f->words[bf_reduce(x, f->nbits) >> 6], 1, 3);
		x += y;
		y += i;
	}
#else
	(void) f;
	(void) h;
#endif
}

void
bf_prefetch(const BloomFilter *f, BloomHash h)
{
	switch (f->layout)
	{
		case BLOOM_LAYOUT_CLASSIC:
			classic_prefetch(f, h);
			break;
		case BLOOM_LAYOUT_BLOCKED:
#if defined(__GNUC__) || defined(__clang__)
			/* one 512-bit block holds all k bits (blocked_block_index) */
			__builtin_prefetch(f->words + BLOOM_BLOCK_WORDS *
							  blocked_block_index(h.h1, blocked_nblocks(f)), 1, 3);
#endif
			break;
		default:
			/* layouts without a prefetch of their own: nothing to do */
			break;
	}
}

bool
bf_insert(BloomFilter *f, BloomHash h)
{
	bool		changed;

	switch (f->layout)
	{
		case BLOOM_LAYOUT_BLOCKED:
			changed = blocked_insert(f, h);
			break;
		case BLOOM_LAYOUT_MATRIX:
			changed = matrix_insert(f, h);
			break;
		case BLOOM_LAYOUT_CLASSIC:
		default:
			changed = classic_insert(f, h);
			break;
	}
	if (f->inserted < UINT64_MAX)
		f->inserted++;
	return changed;
}

bool
bf_query(const BloomFilter *f, BloomHash h)
{
	switch (f->layout)
	{
		case BLOOM_LAYOUT_BLOCKED:
			return blocked_query(f, h);
		case BLOOM_LAYOUT_MATRIX:
			return matrix_query(f, h);
		case BLOOM_LAYOUT_CLASSIC:
		default:
			return classic_query(f, h);
	}
}

/* ---------------------------------------------------------------------
 * Set operations
 * --------------------------------------------------------------------- */

static bool
shapes_equal(const BloomShape *a, const BloomShape *b)
{
	return a->layout == b->layout && a->nbits == b->nbits &&
		a->nhashes == b->nhashes && a->seed == b->seed &&
		a->rows == b->rows && a->locators == b->locators;
}

bool
bf_compatible(const BloomFilter *a, const BloomFilter *b, char *errbuf)
{
	BloomShape	sa,
				sb;
	char		da[160],
				db[160];

	bf_get_shape(a, &sa);
	bf_get_shape(b, &sb);
	if (shapes_equal(&sa, &sb) && a->hash_scheme == b->hash_scheme)
		return true;
	if (bf_foldable(a, b))
		return true;
	bf_shape_describe(&sa, da, sizeof(da));
	bf_shape_describe(&sb, db, sizeof(db));
	snprintf(errbuf, BLOOM_ERRBUF_SIZE,
			 "first filter is (%s), second is (%s)", da, db);
	return false;
}

/*
 * Gathers bits 0, 2, 4, ..., 62 of x into the low 32 bits (the classic
 * "compress" by masks and shifts, one halving step at a time).
 */
static inline uint64_t
compress_even_bits(uint64_t x)
{
	x &= UINT64_C(0x5555555555555555);
	x = (x | (x >> 1)) & UINT64_C(0x3333333333333333);
	x = (x | (x >> 2)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	x = (x | (x >> 4)) & UINT64_C(0x00ff00ff00ff00ff);
	x = (x | (x >> 8)) & UINT64_C(0x0000ffff0000ffff);
	x = (x | (x >> 16)) & UINT64_C(0x00000000ffffffff);
	return x;
}

/* OR of each run of f bits of w (f a power of two <= 64), 64/f bits. */
static inline uint64_t
fold_bits_of_word(uint64_t w, uint64_t f)
{
	for (uint64_t step = 1; step < f; step <<= 1)
		w = compress_even_bits(w | (w >> 1));
	return w;
}

/*
 * Word i of src folded by f (a power of two): its 64 bits come from src
 * words i*f .. i*f+f-1, each output bit the OR of f adjacent input bits.
 */
static uint64_t
folded_word(const uint64_t *src, uint64_t i, uint64_t f)
{
	const uint64_t *p = src + i * f;
	uint64_t	out = 0;

	if (f == 1)
		return p[0];
	if (f < 64)
	{
		uint64_t	per_word = 64 / f;

		for (uint64_t q = 0; q < f; q++)
			out |= fold_bits_of_word(p[q], f) << (q * per_word);
	}
	else
	{
		uint64_t	words_per_bit = f / 64;

		for (unsigned b = 0; b < 64; b++)
		{
			uint64_t	any = 0;

			for (uint64_t j = 0; j < words_per_bit; j++)
				any |= p[b * words_per_bit + j];
			out |= (uint64_t) (any != 0) << b;
		}
	}
	return out;
}

static inline bool
is_power_of_two(uint64_t x)
{
	return x != 0 && (x & (x - 1)) == 0;
}

bool
bf_foldable(const BloomFilter *a, const BloomFilter *b)
{
	return (a->flags & b->flags & BLOOM_FLAG_AUTOSIZED) != 0 &&
		a->layout == BLOOM_LAYOUT_CLASSIC && b->layout == BLOOM_LAYOUT_CLASSIC &&
		a->hash_scheme == b->hash_scheme &&
		a->nhashes == b->nhashes && a->seed == b->seed &&
		a->rows == 0 && b->rows == 0 && a->locators == 0 && b->locators == 0 &&
		a->nbits % 64 == 0 && b->nbits % 64 == 0 &&
		is_power_of_two(a->nbits / 64) && is_power_of_two(b->nbits / 64);
}

void
bf_fold(const BloomFilter *src, BloomFilter *dst)
{
	uint64_t	n = bf_nwords(dst);
	uint64_t	f = bf_nwords(src) / n;

	for (uint64_t i = 0; i < n; i++)
		dst->words[i] = folded_word(src->words, i, f);
	dst->inserted = src->inserted;
	dst->flags = src->flags;
}

static uint64_t
add_saturating(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void
bf_union_into(BloomFilter *dst, const BloomFilter *src)
{
	uint64_t	n = bf_nwords(dst);

	if (src->nbits == dst->nbits)
	{
		for (uint64_t i = 0; i < n; i++)
			dst->words[i] |= src->words[i];
	}
	else
	{
		uint64_t	f = bf_nwords(src) / n;

		for (uint64_t i = 0; i < n; i++)
			dst->words[i] |= folded_word(src->words, i, f);
	}
	dst->inserted = add_saturating(dst->inserted, src->inserted);
	dst->flags &= src->flags;
	if (dst->layout == BLOOM_LAYOUT_MATRIX)
	{
		matrix_recount(dst);
		dst->full_at = matrix_union_full_at(dst->full_at, src->full_at);
	}
}

void
bf_intersect_into(BloomFilter *dst, const BloomFilter *src)
{
	uint64_t	n = bf_nwords(dst);

	if (src->nbits == dst->nbits)
	{
		for (uint64_t i = 0; i < n; i++)
			dst->words[i] &= src->words[i];
	}
	else
	{
		uint64_t	f = bf_nwords(src) / n;

		for (uint64_t i = 0; i < n; i++)
			dst->words[i] &= folded_word(src->words, i, f);
	}
	/* at most the smaller of the two sets survives */
	if (src->inserted < dst->inserted)
		dst->inserted = src->inserted;
	dst->flags &= src->flags;
	if (dst->layout == BLOOM_LAYOUT_MATRIX)
	{
		/*
		 * The rows shrink, so whether they would be full is unknown: the
		 * intersection has met no full candidates of its own.
		 */
		matrix_recount(dst);
		dst->full_at = BLOOM_NEVER_FULL;
	}
}

bool
bf_equal(const BloomFilter *a, const BloomFilter *b)
{
	BloomShape	sa,
				sb;

	bf_get_shape(a, &sa);
	bf_get_shape(b, &sb);
	if (!shapes_equal(&sa, &sb) || a->hash_scheme != b->hash_scheme)
		return false;
	return memcmp(a->words, b->words, 8 * bf_nwords(a)) == 0;
}

/* ---------------------------------------------------------------------
 * Statistics
 * --------------------------------------------------------------------- */

static inline unsigned
popcount64(uint64_t x)
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

uint64_t
bf_bits_set(const BloomFilter *f)
{
	uint64_t	n = bf_nwords(f);
	uint64_t	count = 0;

	for (uint64_t i = 0; i < n; i++)
		count += popcount64(f->words[i]);
	return count;
}

/*
 * Swamidass & Baldi: n ~ -(m/k) ln(1 - X/m) for X bits set.  Infinite when
 * every bit is set: the filter then says nothing about its contents.
 */
double
bf_estimate_count(const BloomFilter *f)
{
	double		m = (double) f->nbits;
	double		x;

	if (f->layout == BLOOM_LAYOUT_BLOCKED)
		return blocked_estimate_count(f);
	x = (double) bf_bits_set(f);
	if (x >= m)
		return INFINITY;
	return -(m / f->nhashes) * log1p(-x / m);
}

/* A random absent value hits k set bits with probability fill^k. */
double
bf_estimate_fpp(const BloomFilter *f)
{
	double		fill;

	/* a query reads s rows, each of its own fill */
	if (f->layout == BLOOM_LAYOUT_MATRIX)
		return matrix_estimate_fpp(f);
	/* a query reads one block, of its own fill */
	if (f->layout == BLOOM_LAYOUT_BLOCKED)
		return blocked_estimate_fpp(f);
	fill = (double) bf_bits_set(f) / (double) f->nbits;
	return pow(fill, (double) f->nhashes);
}

/* ---------------------------------------------------------------------
 * Binary format: the header fields little-endian, then the words.
 * --------------------------------------------------------------------- */

static void
put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static void
put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static uint32_t
get_u32(const uint8_t *p)
{
	uint32_t	v = 0;

	for (int i = 3; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint64_t
get_u64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Offsets in the binary format (doc/format.md). */
enum
{
	W_VERSION = 0, W_LAYOUT = 1, W_SCHEME = 2, W_FLAGS = 3,
	W_NBITS = 4, W_SEED = 12, W_INSERTED = 20, W_NHASHES = 28,
	W_ROWS = 32, W_LOCATORS = 36, W_RESERVED1 = 40, W_FULL_AT = 44,
	W_RESERVED2 = 52, W_WORDS = 60
};

void
bf_serialize(const BloomFilter *f, uint8_t *out)
{
	uint64_t	n = bf_nwords(f);

	out[W_VERSION] = f->version;
	out[W_LAYOUT] = f->layout;
	out[W_SCHEME] = f->hash_scheme;
	out[W_FLAGS] = f->flags;
	put_u64(out + W_NBITS, f->nbits);
	put_u64(out + W_SEED, f->seed);
	put_u64(out + W_INSERTED, f->inserted);
	put_u32(out + W_NHASHES, f->nhashes);
	put_u32(out + W_ROWS, f->rows);
	put_u32(out + W_LOCATORS, f->locators);
	put_u32(out + W_RESERVED1, f->reserved1);
	put_u64(out + W_FULL_AT, (uint64_t) f->full_at);
	put_u64(out + W_RESERVED2, f->reserved2);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(out + W_WORDS, f->words, 8 * n);
#else
	for (uint64_t i = 0; i < n; i++)
		put_u64(out + W_WORDS + 8 * i, f->words[i]);
#endif
}

/* Bits beyond nbits in the last word must be zero: one bit string, one form. */
static bool
tail_bits_clear(uint64_t nbits, uint64_t last_word)
{
	unsigned	used = (unsigned) (nbits & 63);

	return used == 0 || (last_word >> used) == 0;
}

/* Header checks shared by the binary reader and the in-memory guard. */
static bool
header_check(uint8_t version, uint8_t scheme, uint8_t flags,
			 uint32_t reserved1, uint64_t reserved2, int64_t full_at,
			 uint64_t inserted, const BloomShape *s, char *errbuf)
{
	if (version < 1 || version > BLOOM_FORMAT_VERSION)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "unsupported format version %u (this version reads versions 1 to %d)",
				 (unsigned) version, BLOOM_FORMAT_VERSION);
		return false;
	}
	if (scheme != BLOOM_HASH_SCHEME_PG_EXTENDED)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "unknown hash scheme %u", (unsigned) scheme);
		return false;
	}
	if (flags & ~BLOOM_KNOWN_FLAGS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "unknown flags 0x%02x", (unsigned) flags);
		return false;
	}
	if (reserved1 != 0 || reserved2 != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "reserved header fields are not zero");
		return false;
	}
	if (!bf_shape_check(s, errbuf))
		return false;
	if (s->layout == BLOOM_LAYOUT_MATRIX ? full_at < BLOOM_NEVER_FULL
		: full_at != BLOOM_NEVER_FULL)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "full_at must be %s for layout \"%s\", not %lld",
				 s->layout == BLOOM_LAYOUT_MATRIX ? "-1 or more" : "-1",
				 bf_layout_name(s->layout), (long long) full_at);
		return false;
	}
	/* full_at counts values held before one was added, so it is below inserted */
	if (full_at != BLOOM_NEVER_FULL && (uint64_t) full_at >= inserted)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "full_at %lld is not below the insert count %llu",
				 (long long) full_at, (unsigned long long) inserted);
		return false;
	}
	return true;
}

bool
bf_wire_check(const uint8_t *buf, size_t len, uint64_t *struct_bytes, char *errbuf)
{
	BloomShape	s;
	uint64_t	nwords;

	if (len < BLOOM_WIRE_HEADER_BYTES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "%zu bytes is too short for a bloom header (%d bytes)",
				 len, BLOOM_WIRE_HEADER_BYTES);
		return false;
	}
	memset(&s, 0, sizeof(s));
	s.layout = buf[W_LAYOUT];
	s.nbits = get_u64(buf + W_NBITS);
	s.seed = get_u64(buf + W_SEED);
	s.nhashes = get_u32(buf + W_NHASHES);
	s.rows = get_u32(buf + W_ROWS);
	s.locators = get_u32(buf + W_LOCATORS);
	if (!header_check(buf[W_VERSION], buf[W_SCHEME], buf[W_FLAGS],
					  get_u32(buf + W_RESERVED1), get_u64(buf + W_RESERVED2),
					  (int64_t) get_u64(buf + W_FULL_AT), get_u64(buf + W_INSERTED),
					  &s, errbuf))
		return false;

	/* nbits is bounded by the shape check, so this cannot overflow */
	nwords = bf_words_for_bits(s.nbits);
	if ((uint64_t) len != BLOOM_WIRE_HEADER_BYTES + 8 * nwords)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "payload of %zu bytes does not match the header: %llu bits need %llu bytes",
				 len - BLOOM_WIRE_HEADER_BYTES, (unsigned long long) s.nbits,
				 (unsigned long long) (8 * nwords));
		return false;
	}
	if (!tail_bits_clear(s.nbits, get_u64(buf + W_WORDS + 8 * (nwords - 1))))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "bits beyond bit %llu of the last word are set",
				 (unsigned long long) s.nbits);
		return false;
	}
	*struct_bytes = bf_shape_bytes(&s);
	return true;
}

void
bf_deserialize(const uint8_t *buf, size_t len, BloomFilter *f)
{
	uint64_t	n;

	(void) len;
	f->version = buf[W_VERSION];
	f->layout = buf[W_LAYOUT];
	f->hash_scheme = buf[W_SCHEME];
	f->flags = buf[W_FLAGS];
	f->nbits = get_u64(buf + W_NBITS);
	f->seed = get_u64(buf + W_SEED);
	f->inserted = get_u64(buf + W_INSERTED);
	f->nhashes = get_u32(buf + W_NHASHES);
	f->rows = get_u32(buf + W_ROWS);
	f->locators = get_u32(buf + W_LOCATORS);
	f->reserved1 = get_u32(buf + W_RESERVED1);
	f->full_at = (int64_t) get_u64(buf + W_FULL_AT);
	f->reserved2 = get_u64(buf + W_RESERVED2);
	n = bf_nwords(f);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(f->words, buf + W_WORDS, 8 * n);
#else
	for (uint64_t i = 0; i < n; i++)
		f->words[i] = get_u64(buf + W_WORDS + 8 * i);
#endif
	/* the per-row counters are derived from the bits, never read */
	if (f->layout == BLOOM_LAYOUT_MATRIX)
		matrix_recount(f);
}

bool
bf_struct_check(const BloomFilter *f, uint64_t size, char *errbuf)
{
	BloomShape	s;

	if (size < offsetof(BloomFilter, words))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "value of %llu bytes is too short for a bloom filter",
				 (unsigned long long) size);
		return false;
	}
	bf_get_shape(f, &s);
	if (!header_check(f->version, f->hash_scheme, f->flags, f->reserved1,
					  f->reserved2, f->full_at, f->inserted, &s, errbuf))
		return false;
	if (size != bf_shape_bytes(&s))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "value of %llu bytes does not match its header (%llu bits)",
				 (unsigned long long) size, (unsigned long long) f->nbits);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------------
 * Base64 (RFC 4648, with padding), strict so that text round-trips exactly
 * --------------------------------------------------------------------- */

static const char b64_alphabet[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

uint64_t
bf_base64_encoded_len(uint64_t nbytes)
{
	return (nbytes + 2) / 3 * 4;
}

void
bf_base64_encode(const uint8_t *src, size_t len, char *dst)
{
	size_t		i = 0;

	for (; i + 3 <= len; i += 3)
	{
		uint32_t	v = ((uint32_t) src[i] << 16) | ((uint32_t) src[i + 1] << 8) | src[i + 2];

		*dst++ = b64_alphabet[v >> 18];
		*dst++ = b64_alphabet[(v >> 12) & 63];
		*dst++ = b64_alphabet[(v >> 6) & 63];
		*dst++ = b64_alphabet[v & 63];
	}
	if (i < len)
	{
		uint32_t	v = (uint32_t) src[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t) src[i + 1] << 8;
		*dst++ = b64_alphabet[v >> 18];
		*dst++ = b64_alphabet[(v >> 12) & 63];
		*dst++ = (i + 1 < len) ? b64_alphabet[(v >> 6) & 63] : '=';
		*dst++ = '=';
	}
}

uint64_t
bf_base64_decoded_max(size_t len)
{
	return (uint64_t) len / 4 * 3;
}

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

bool
bf_base64_decode(const char *src, size_t len, uint8_t *dst, size_t *outlen, char *errbuf)
{
	size_t		out = 0;

	if (len % 4 != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "base64 text length %zu is not a multiple of 4", len);
		return false;
	}
	for (size_t i = 0; i < len; i += 4)
	{
		int			v[4];
		int			pad = 0;
		bool		last = (i + 4 == len);

		for (int j = 0; j < 4; j++)
		{
			unsigned char c = (unsigned char) src[i + j];

			if (c == '=' && last && j >= 2)
			{
				/* '=' only at the end, and "x=y=" is not allowed */
				if (j == 2 && src[i + 3] != '=')
				{
					snprintf(errbuf, BLOOM_ERRBUF_SIZE,
							 "invalid base64 padding at position %zu", i + 3);
					return false;
				}
				v[j] = 0;
				pad++;
				continue;
			}
			v[j] = b64_value(c);
			if (v[j] < 0 || pad > 0)
			{
				snprintf(errbuf, BLOOM_ERRBUF_SIZE,
						 "invalid base64 character at position %zu", i + j + 1);
				return false;
			}
		}
		/* the bits that padding discards must be zero (canonical form) */
		if ((pad == 1 && (v[2] & 3)) || (pad == 2 && (v[1] & 15)))
		{
			snprintf(errbuf, BLOOM_ERRBUF_SIZE,
					 "non-canonical base64 padding at position %zu", i + 1);
			return false;
		}
		dst[out++] = (uint8_t) ((v[0] << 2) | (v[1] >> 4));
		if (pad < 2)
			dst[out++] = (uint8_t) (((v[1] & 15) << 4) | (v[2] >> 2));
		if (pad < 1)
			dst[out++] = (uint8_t) (((v[2] & 3) << 6) | v[3]);
	}
	*outlen = out;
	return true;
}
