/*
 * layout_matrix_core.c
 *	  The 'matrix' layout (M-BMBF, Yang & Huang 2017): see layout_matrix_core.h
 *	  and doc/matrix.md.
 */
#include "layout_matrix_core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LN2		0.69314718055994530942
#define LN2_SQ	(LN2 * LN2)

/* ---------------------------------------------------------------------
 * Shapes
 * --------------------------------------------------------------------- */

bool
matrix_shape_check(const BloomShape *s, char *errbuf)
{
	if (s->locators < 1 || s->locators > BLOOM_MATRIX_MAX_LOCATORS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of locators must be between 1 and %d, not %u",
				 BLOOM_MATRIX_MAX_LOCATORS, (unsigned) s->locators);
		return false;
	}
	if (s->rows < 1 || s->rows % s->locators != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of rows must be a positive multiple of the number of locators (%u), not %u",
				 (unsigned) s->locators, (unsigned) s->rows);
		return false;
	}
	if (s->nbits % s->rows != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of bits %llu is not a multiple of the number of rows %u",
				 (unsigned long long) s->nbits, (unsigned) s->rows);
		return false;
	}
	/* bit words plus one counter word per row; nbits is already bounded */
	if (bf_words_for_bits(s->nbits) + s->rows > BLOOM_MAX_WORDS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a matrix of %u rows x %llu bits exceeds the size limit of 1 GB",
				 (unsigned) s->rows, (unsigned long long) (s->nbits / s->rows));
		return false;
	}
	return true;
}

/*
 * A query reads s rows, so a row may have s times the classic rate: each
 * row is sized like a classic filter for its share n / r of the values at
 * rate p / s.  The total is m = -n ln(p / s) / (ln 2)^2 bits and
 * k = round(m / n ln 2) = round(log2(s / p)); at capacity a row is about
 * half full, which is where the layout calls it full.  Rows are whole
 * 64-bit words.
 */
bool
matrix_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	const uint32_t rows = BLOOM_MATRIX_DEFAULT_ROWS;
	const uint32_t locators = BLOOM_MATRIX_DEFAULT_LOCATORS;
	double		m,
				k,
				row_bits;

	m = ceil(-capacity * log(fpp / locators) / LN2_SQ);
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
	row_bits = ceil(m / rows / 64.0) * 64.0;
	if (!(row_bits * rows <= (double) BLOOM_MAX_NBITS))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a matrix filter for %.15g values at false-positive probability %g needs %.4g bits (%.4g MB), more than the maximum of %llu bits (1 GB)",
				 capacity, fpp, row_bits * rows, row_bits * rows / 8 / 1048576.0,
				 (unsigned long long) BLOOM_MAX_NBITS);
		return false;
	}
	memset(s, 0, sizeof(*s));
	s->layout = BLOOM_LAYOUT_MATRIX;
	s->nbits = (uint64_t) row_bits * rows;
	s->nhashes = (uint32_t) k;
	s->rows = rows;
	s->locators = locators;
	return matrix_shape_check(s, errbuf);
}

/* ---------------------------------------------------------------------
 * Positions
 * --------------------------------------------------------------------- */

/* The splitmix64 finalizer: a bijection with full avalanche. */
static inline uint64_t
matrix_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

/*
 * The candidate row of group g.  The locating hashes come from both words
 * through a further mix, so they are independent of the in-row positions
 * (which use h1 and h2 directly) and of each other.
 */
static inline uint32_t
candidate_row(const BloomFilter *f, uint64_t locator_base, uint32_t g)
{
	uint32_t	group_rows = f->rows / f->locators;
	uint64_t	x = matrix_mix(locator_base + (uint64_t) (g + 1) * UINT64_C(0x9e3779b97f4a7c15));

	return g * group_rows + (uint32_t) bf_reduce(x, group_rows);
}

static inline uint64_t
locator_base(BloomHash h)
{
	return matrix_mix(h.h1 ^ ((h.h2 << 29) | (h.h2 >> 35)));
}

/*
 * The k in-row positions: enhanced double hashing on h1, h2 (as the classic
 * layout), mapped onto [0, row_bits).  The same for every candidate row, so
 * candidates can be compared bit for bit.
 */
static inline void
in_row_positions(const BloomFilter *f, BloomHash h, uint64_t *pos)
{
	uint64_t	x = h.h1,
				y = h.h2,
				row_bits = matrix_row_bits(f);

	for (uint32_t i = 0; i < f->nhashes; i++)
	{
		pos[i] = bf_reduce(x, row_bits);
		x += y;
		y += i;
	}
}

/* ---------------------------------------------------------------------
 * Insertion and lookup
 * --------------------------------------------------------------------- */

bool
matrix_insert(BloomFilter *f, BloomHash h)
{
	uint64_t	pos[BLOOM_MAX_NHASHES];
	uint64_t	row_bits = matrix_row_bits(f);
	uint64_t	base = locator_base(h);
	uint64_t   *counters = matrix_counters(f);
	int64_t		best = -1,		/* fewest new bits among non-full rows */
				least = -1;		/* least-filled row, if all are full */
	uint32_t	best_new = 0;
	uint64_t	row_start;

	in_row_positions(f, h, pos);
	for (uint32_t g = 0; g < f->locators; g++)
	{
		uint32_t	row = candidate_row(f, base, g);
		uint64_t	start = (uint64_t) row * row_bits;
		uint32_t	new_bits = 0;

		for (uint32_t i = 0; i < f->nhashes; i++)
			new_bits += !bf_test_bit(f->words, start + pos[i]);
		if (new_bits == 0)
			return false;		/* already present (or a false positive) */

		if (least < 0 || counters[row] < counters[least])
			least = row;
		if (matrix_row_full(counters[row], row_bits))
			continue;
		/* longest bit match; ties go to the emptier row, then the first group */
		if (best < 0 || new_bits < best_new ||
			(new_bits == best_new && counters[row] < counters[best]))
		{
			best = row;
			best_new = new_bits;
		}
	}

	if (best < 0)
	{
		/* every candidate is full: remember when, and never lose the value */
		if (f->full_at == BLOOM_NEVER_FULL)
			f->full_at = f->inserted > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) f->inserted;
		best = least;
	}

	row_start = (uint64_t) best * row_bits;
	for (uint32_t i = 0; i < f->nhashes; i++)
	{
		uint64_t	bit = row_start + pos[i];
		uint64_t	mask = (uint64_t) 1 << (bit & 63);

		/* count each bit once, even if two positions coincide */
		if ((f->words[bit >> 6] & mask) == 0)
		{
			f->words[bit >> 6] |= mask;
			counters[best]++;
		}
	}
	return true;
}

bool
matrix_query(const BloomFilter *f, BloomHash h)
{
	uint64_t	pos[BLOOM_MAX_NHASHES];
	uint64_t	row_bits = matrix_row_bits(f);
	uint64_t	base = locator_base(h);

	in_row_positions(f, h, pos);
	for (uint32_t g = 0; g < f->locators; g++)
	{
		uint64_t	start = (uint64_t) candidate_row(f, base, g) * row_bits;
		uint32_t	i = 0;

		while (i < f->nhashes && bf_test_bit(f->words, start + pos[i]))
			i++;
		if (i == f->nhashes)
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------------
 * Counters and statistics
 * --------------------------------------------------------------------- */

static inline uint64_t
popcount64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
	return (uint64_t) __builtin_popcountll(x);
#else
	x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (x * UINT64_C(0x0101010101010101)) >> 56;
#endif
}

/* Bits [lo, hi) of one word, 0 <= lo < hi <= 64. */
static inline uint64_t
word_slice(uint64_t w, unsigned lo, unsigned hi)
{
	uint64_t	mask = hi == 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << hi) - 1);

	return w & mask & (~(uint64_t) 0 << lo);
}

uint64_t
bf_popcount_range(const uint64_t *words, uint64_t from, uint64_t len)
{
	uint64_t	end = from + len,
				count = 0,
				w = from >> 6,
				last = (end - 1) >> 6;

	if (len == 0)
		return 0;
	if (w == last)
		return popcount64(word_slice(words[w], from & 63, (unsigned) ((end - 1) & 63) + 1));
	count = popcount64(word_slice(words[w], from & 63, 64));
	for (w++; w < last; w++)
		count += popcount64(words[w]);
	return count + popcount64(word_slice(words[last], 0, (unsigned) ((end - 1) & 63) + 1));
}

void
matrix_recount(BloomFilter *f)
{
	uint64_t	row_bits = matrix_row_bits(f);
	uint64_t   *counters = matrix_counters(f);

	for (uint32_t r = 0; r < f->rows; r++)
		counters[r] = bf_popcount_range(f->words, (uint64_t) r * row_bits, row_bits);
}

bool
matrix_counters_consistent(const BloomFilter *f)
{
	uint64_t	row_bits = matrix_row_bits(f);
	const uint64_t *counters = matrix_counters_const(f);

	for (uint32_t r = 0; r < f->rows; r++)
		if (counters[r] != bf_popcount_range(f->words, (uint64_t) r * row_bits, row_bits))
			return false;
	return true;
}

/*
 * A union was full no later than the earlier of its parts: the rows of the
 * union are supersets of each part's rows, so the value that met full
 * candidates in a part would have met them in the union too.
 */
int64_t
matrix_union_full_at(int64_t a, int64_t b)
{
	if (a == BLOOM_NEVER_FULL)
		return b;
	if (b == BLOOM_NEVER_FULL)
		return a;
	return a < b ? a : b;
}

double
matrix_estimate_fpp(const BloomFilter *f)
{
	uint32_t	group_rows = f->rows / f->locators;
	double		row_bits = (double) matrix_row_bits(f);
	const uint64_t *counters = matrix_counters_const(f);
	double		miss_all = 1.0;

	for (uint32_t g = 0; g < f->locators; g++)
	{
		double		hit = 0.0;

		for (uint32_t r = g * group_rows; r < (g + 1) * group_rows; r++)
			hit += pow((double) counters[r] / row_bits, (double) f->nhashes);
		miss_all *= 1.0 - hit / group_rows;
	}
	return 1.0 - miss_all;
}
