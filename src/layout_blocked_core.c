/*
 * layout_blocked_core.c
 *	  The 'blocked' layout (see layout_blocked_core.h): insertion, lookup,
 *	  sizing by the exact rate of a blocked filter, and statistics.
 */
#include "layout_blocked_core.h"

#include <math.h>

#define LN2		0.69314718055994530942

/*
 * Positions come seven at a time from one 64-bit word: first h2 without its
 * constant low bit, then blocked_remix(previous word + h2) for the next
 * seven, and so on.
 */
bool
blocked_insert(BloomFilter *f, BloomHash h)
{
	uint64_t   *block = f->words +
		BLOOM_BLOCK_WORDS * blocked_block_index(h.h1, blocked_nblocks(f));
	uint64_t	x = h.h2 >> 1;	/* bit 0 of h2 is always 1 */
	uint64_t	changed = 0;
	uint32_t	k = f->nhashes;
	uint32_t	i = 0;

	for (;;)
	{
		uint32_t	end = k - i < BLOCKED_POSITIONS_PER_WORD ? k : i + BLOCKED_POSITIONS_PER_WORD;

		for (; i < end; i++)
		{
			unsigned	pos = (unsigned) (x & (BLOOM_BLOCK_BITS - 1));
			uint64_t	mask = (uint64_t) 1 << (pos & 63);

			changed |= ~block[pos >> 6] & mask;
			block[pos >> 6] |= mask;
			x >>= 9;
		}
		if (i == k)
			break;
		x = blocked_remix(x + h.h2);
	}
	return changed != 0;
}

bool
blocked_query(const BloomFilter *f, BloomHash h)
{
	const uint64_t *block = f->words +
		BLOOM_BLOCK_WORDS * blocked_block_index(h.h1, blocked_nblocks(f));
	uint64_t	x = h.h2 >> 1;
	uint32_t	k = f->nhashes;
	uint32_t	i = 0;

	for (;;)
	{
		uint32_t	end = k - i < BLOCKED_POSITIONS_PER_WORD ? k : i + BLOCKED_POSITIONS_PER_WORD;

		for (; i < end; i++)
		{
			unsigned	pos = (unsigned) (x & (BLOOM_BLOCK_BITS - 1));

			if (((block[pos >> 6] >> (pos & 63)) & 1) == 0)
				return false;
			x >>= 9;
		}
		if (i == k)
			return true;
		x = blocked_remix(x + h.h2);
	}
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
blocked_expected_fpp(double n, uint64_t nblocks, uint32_t k)
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
		double		p = blocked_expected_fpp(n, nblocks, k);

		if (p >= best)
			break;
		best = p;
		*best_k = k;
	}
	return best;
}

bool
blocked_size_for(double capacity, double fpp, uint64_t max_blocks,
				 uint64_t *nblocks, uint32_t *k)
{
	/* a blocked filter never beats the classic one of the same size */
	double		classic_bits = -capacity * log(fpp) / (LN2 * LN2);
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

static unsigned
block_bits_set(const uint64_t *block)
{
	unsigned	n = 0;

	for (int w = 0; w < BLOOM_BLOCK_WORDS; w++)
		n += (unsigned) __builtin_popcountll(block[w]);
	return n;
}

/* Sum of Swamidass & Baldi's estimate over the blocks. */
double
blocked_estimate_count(const BloomFilter *f)
{
	uint64_t	nblocks = blocked_nblocks(f);
	double		per_block[BLOOM_BLOCK_BITS + 1];
	double		sum = 0.0;

	/* one logarithm per possible fill, not per block */
	for (int x = 0; x < BLOOM_BLOCK_BITS; x++)
		per_block[x] = -((double) BLOOM_BLOCK_BITS / f->nhashes) *
			log1p(-(double) x / BLOOM_BLOCK_BITS);
	per_block[BLOOM_BLOCK_BITS] = INFINITY;

	for (uint64_t b = 0; b < nblocks; b++)
		sum += per_block[block_bits_set(f->words + BLOOM_BLOCK_WORDS * b)];
	return sum;
}

/*
 * A foreign value picks a block uniformly and k uniform bits in it: the
 * rate is the mean over blocks of fill^k, exact for the filter as it is.
 */
double
blocked_estimate_fpp(const BloomFilter *f)
{
	uint64_t	nblocks = blocked_nblocks(f);
	double		per_block[BLOOM_BLOCK_BITS + 1];
	double		sum = 0.0;

	for (int x = 0; x <= BLOOM_BLOCK_BITS; x++)
		per_block[x] = pow((double) x / BLOOM_BLOCK_BITS, (double) f->nhashes);
	for (uint64_t b = 0; b < nblocks; b++)
		sum += per_block[block_bits_set(f->words + BLOOM_BLOCK_WORDS * b)];
	return sum / (double) nblocks;
}
