/*
 * layout_blocked.c
 *	  The 'blocked' layout (see layout_blocked.h): insertion, lookup, sizing
 *	  by the exact rate of a blocked filter, and statistics.
 */
#include "layout_blocked.h"

#include <string.h>

/* ---------------------------------------------------------------------
 * Shapes
 * --------------------------------------------------------------------- */

bool
bf_blocked_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	uint64_t	nblocks;
	uint32_t	k;

	if (!bf_blocked_size_for(capacity, fpp, BLOOM_MAX_NBITS / BLOOM_BLOCK_BITS, &nblocks, &k))
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
bf_blocked_shape_check(const BloomShape *s, char *errbuf)
{
	if (s->nbits % BLOOM_BLOCK_BITS != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of bits of a blocked filter must be a multiple of %d, not %llu",
				 BLOOM_BLOCK_BITS, (unsigned long long) s->nbits);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------------
 * Positions
 * --------------------------------------------------------------------- */

/*
 * In-block positions: nine bits each, taken seven at a time from 64-bit
 * words that depend only on the value, never on the number of blocks,
 * which is what keeps filters foldable.
 *
 * Scheme 2: the words are the value's position words 1, 2, 3, ...
 * (bf_position_word; word 0 is left out, being a function of h1 alone,
 * which picks the block), so all k positions are independent.
 *
 * Scheme 1 (stored filters): first h2 without its constant low bit, then
 * w = bf_mix64_inblock(x + h2), x what is left of the previous word after
 * seven 9-bit shifts: 0 after h2, the top bit of w after w.  So the words
 * after the second are mix(h2) again or mix(h2 + 1): beyond 14 hash
 * functions, half of all values repeat positions 7..13 (only 14 distinct
 * fields) and the others have at most 21.  Full filters sized for k = 16,
 * 20 and 22 then answer wrongly 3, 50 and 200 times more often than sized;
 * bf_blocked_estimate_fpp says so for scheme 1.  Up to k = 14 both schemes
 * have independent positions (measured: test/unit/test_hash_scheme.c,
 * bench/results/scheme-floor-results.md).
 */
#define BLOCKED_POSITIONS_PER_WORD	7	/* 9-bit fields of one word */

/* The value's block; writable for the insert, only read by the query. */
static inline uint64_t *
value_block(const BloomFilter *f, BloomHash h)
{
	return (uint64_t *) f->words +
		BLOOM_BLOCK_WORDS * bf_blocked_block_index(h.h1, bf_blocked_nblocks(f));
}

/* The word of in-block positions 7j .. 7j+6; x is word j-1 after its seven shifts. */
static inline uint64_t
position_word(BloomHash h, bool independent, uint32_t j, uint64_t x)
{
	if (independent)
		return bf_position_word(h, j + 1);
	return j == 0 ? h.h2 >> 1 : bf_mix64_inblock(x + h.h2);	/* bit 0 of h2 is always 1 */
}

/*
 * Walks the value's k positions in its block: sets them (insert, returning
 * true if any was clear) or tests them (returning false at the first clear
 * one).  One walk for both, so they cannot disagree; inlined with a
 * constant `insert`, each caller gets its own loop.
 */
static inline bool
walk_positions(uint64_t *block, BloomHash h, uint32_t k, uint8_t scheme, bool insert)
{
	bool		independent = bf_scheme_independent(scheme);
	uint64_t	x = 0;
	bool		changed = false;
	uint32_t	i = 0;

	for (uint32_t j = 0;; j++)
	{
		uint32_t	end = k - i < BLOCKED_POSITIONS_PER_WORD ? k : i + BLOCKED_POSITIONS_PER_WORD;

		x = position_word(h, independent, j, x);
		for (; i < end; i++)
		{
			unsigned	pos = (unsigned) (x & (BLOOM_BLOCK_BITS - 1));

			if (insert)
				changed |= bf_set_bit(block, pos);
			else if (!bf_test_bit(block, pos))
				return false;
			x >>= 9;
		}
		if (i == k)
			return insert ? changed : true;
	}
}

bool
bf_blocked_insert(BloomFilter *f, BloomHash h)
{
	return walk_positions(value_block(f, h), h, f->nhashes, f->hash_scheme, true);
}

bool
bf_blocked_query(const BloomFilter *f, BloomHash h)
{
	return walk_positions(value_block(f, h), h, f->nhashes, f->hash_scheme, false);
}

void
bf_blocked_prefetch(const BloomFilter *f, BloomHash h)
{
	bf_prefetch_line(value_block(f, h));
}

/* ---------------------------------------------------------------------
 * Sizing
 * --------------------------------------------------------------------- */

/*
 * Rate of one 512-bit block holding i values, k uniform bits each: the mean
 * of fill^k.  The textbook (E fill)^k underestimates it in a block this
 * small (by about 1% at k = 6, 3% at k = 9: fill varies from block to block
 * and x^k is convex), so add the second-order term from the variance of the
 * number of empty bits after t = i k throws into m bins:
 *   E empty = m q1, Var empty = m(m-1) q2 + m q1 - m^2 q1^2,
 *   q1 = (1 - 1/m)^t, q2 = (1 - 2/m)^t,
 *   E fill^k ~ mu^k + k(k-1)/2 mu^(k-2) var.
 * The next terms are below 0.05% for the k this layout uses (checked
 * against the exact occupancy distribution in test/unit/test_blocked.c).
 */
static inline double
block_fpp(double i, uint32_t k)
{
	const double m = BLOOM_BLOCK_BITS;
	double		t = i * k;
	double		q1 = exp(t * log1p(-1.0 / m));
	double		q2 = exp(t * log1p(-2.0 / m));
	double		mu = -expm1(t * log1p(-1.0 / m));
	double		var = (m * (m - 1) * q2 + m * q1 - m * m * q1 * q1) / (m * m);
	double		p;

	if (var < 0)
		var = 0;
	p = pow(mu, (double) k);
	if (k >= 2)
		p += 0.5 * k * (k - 1) * pow(mu, (double) k - 2) * var;
	return p > 1.0 ? 1.0 : p;
}

double
bf_blocked_expected_fpp(double n, uint64_t nblocks, uint32_t k)
{
	double		lambda = n / (double) nblocks;
	double		spread = 12.0 * sqrt(lambda) + 30.0;
	double		lo = floor(lambda - spread);
	double		hi = ceil(lambda + spread);
	double		sum = 0.0;

	if (lo < 0)
		lo = 0;
	/* Poisson weights in log space: lambda may be in the thousands */
	for (double i = lo; i <= hi; i += 1.0)
	{
		double		weight = exp(-lambda + i * log(lambda) - lgamma(i + 1.0));

		sum += weight * block_fpp(i, k);
	}
	return sum > 1.0 ? 1.0 : sum;
}

/* Lowest rate over k for this many blocks; the rate is unimodal in k. */
static double
best_fpp(double n, uint64_t nblocks, uint32_t *best_k)
{
	double		best = 2.0;

	*best_k = 1;
	for (uint32_t k = 1; k <= BLOOM_MAX_NHASHES; k++)
	{
		double		p = bf_blocked_expected_fpp(n, nblocks, k);

		if (p >= best)
			break;
		best = p;
		*best_k = k;
	}
	return best;
}

bool
bf_blocked_size_for(double capacity, double fpp, uint64_t max_blocks,
				 uint64_t *nblocks, uint32_t *k)
{
	/* a blocked filter never beats the classic one of the same size */
	double		classic_bits = bf_optimal_bits(capacity, fpp);
	uint64_t	lo,
				hi;
	uint32_t	kk;

	if (!(classic_bits / BLOOM_BLOCK_BITS <= (double) max_blocks))
		return false;
	lo = (uint64_t) floor(classic_bits / BLOOM_BLOCK_BITS);
	if (lo < 1)
		lo = 1;
	/* grow until the rate is met, then bisect: the rate falls with size */
	hi = lo;
	while (best_fpp(capacity, hi, &kk) > fpp)
	{
		lo = hi + 1;
		if (hi >= max_blocks)
			return false;
		hi = hi > max_blocks / 2 ? max_blocks : 2 * hi;
	}
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (best_fpp(capacity, mid, &kk) <= fpp)
			hi = mid;
		else
			lo = mid + 1;
	}
	best_fpp(capacity, hi, k);
	*nblocks = hi;
	return true;
}

/* ---------------------------------------------------------------------
 * Statistics: each block is a small classic filter of 512 bits
 * --------------------------------------------------------------------- */

/*
 * Sum over the blocks, in order, of per_fill[bits set in the block]: a
 * statistic of each block's fill, computed once per possible fill rather
 * than once per block.
 */
static double
sum_over_blocks(const BloomFilter *f, const double *per_fill)
{
	uint64_t	nblocks = bf_blocked_nblocks(f);
	double		sum = 0.0;

	for (uint64_t b = 0; b < nblocks; b++)
		sum += per_fill[bf_popcount_words(f->words + BLOOM_BLOCK_WORDS * b, BLOOM_BLOCK_WORDS)];
	return sum;
}

/* Sum of Swamidass & Baldi's estimate over the blocks. */
double
bf_blocked_estimate_count(const BloomFilter *f)
{
	double		per_fill[BLOOM_BLOCK_BITS + 1];

	for (int x = 0; x <= BLOOM_BLOCK_BITS; x++)
		per_fill[x] = bf_count_from_fill(BLOOM_BLOCK_BITS, f->nhashes, x);
	return sum_over_blocks(f, per_fill);
}

/*
 * A foreign value picks a block uniformly and k uniform bits in it: the
 * rate is the mean over blocks of fill^k, exact for the filter as it is.
 * Under scheme 1 beyond 14 hash functions, half of all values have only 14
 * distinct positions and the others min(k, 21) (see the positions above):
 * the mean of fill^14 and fill^min(k, 21).
 */
double
bf_blocked_estimate_fpp(const BloomFilter *f)
{
	double		per_fill[BLOOM_BLOCK_BITS + 1];
	double		k = f->nhashes;
	bool		repeats = f->hash_scheme == BLOOM_HASH_SCHEME_DOUBLE_HASHING && k > 14;

	for (int x = 0; x <= BLOOM_BLOCK_BITS; x++)
	{
		double		fill = (double) x / BLOOM_BLOCK_BITS;

		per_fill[x] = repeats ? 0.5 * (pow(fill, 14.0) + pow(fill, fmin(k, 21.0)))
			: pow(fill, k);
	}
	return sum_over_blocks(f, per_fill) / (double) bf_blocked_nblocks(f);
}
