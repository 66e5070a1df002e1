/*
 * layout_blocked.c
 *	  The 'blocked' layout (see layout_blocked.h): insertion, lookup, sizing
 *	  by the exact rate of a blocked filter, and statistics.
 */
#include "layout_blocked.h"

#include "sizing.h"

#include <string.h>

/* ---------------------------------------------------------------------
 * Shapes
 * --------------------------------------------------------------------- */

bool
bf_blocked_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	uint64_t	nblocks;
	uint32_t	k;

	if (!bf_sizing_k_fits(fpp, 1, errbuf))
		return false;
	if (!bf_blocked_size_for(capacity, fpp, BLOOM_MAX_NBITS / BLOOM_BLOCK_BITS, &nblocks, &k))
	{
		bf_sizing_too_large(capacity, fpp, 1, "a blocked filter", errbuf);
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
	bool		changed = walk_positions(value_block(f, h), h, f->nhashes, f->hash_scheme, true);

	bf_count_insert(f);
	return changed;
}

/* The inserter's two steps: the block found and prefetched, then its bits set. */
void
bf_blocked_stage(const BloomFilter *f, BfStaged *v)
{
	v->where[0] = bf_blocked_block_index(v->h.h1, bf_blocked_nblocks(f));
	bf_prefetch_line(f->words + BLOOM_BLOCK_WORDS * v->where[0]);
}

void
bf_blocked_commit(BloomFilter *f, const BfStaged *v)
{
	walk_positions(f->words + BLOOM_BLOCK_WORDS * v->where[0], v->h, f->nhashes,
				   f->hash_scheme, true);
	bf_count_insert(f);
}

bool
bf_blocked_query(const BloomFilter *f, BloomHash h)
{
	return walk_positions(value_block(f, h), h, f->nhashes, f->hash_scheme, false);
}

bool
bf_blocked_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	return bf_blocked_query(f, bf_hash_derive(value_hash));
}

void
bf_blocked_prefetch(const BloomFilter *f, BloomHash h)
{
	bf_prefetch_line(value_block(f, h));
}

/* ---------------------------------------------------------------------
 * Sizing
 * --------------------------------------------------------------------- */

/* n values at rate fpp, k from 1 to max_k. */
typedef struct BlockedTarget
{
	double		n,
				fpp;
	uint32_t	max_k;
	uint32_t	last_k;			/* where the last search over k ended */
	uint64_t	nblocks;		/* the size being tried */
} BlockedTarget;

static double
blocked_quantile(uint32_t k, void *arg)
{
	const BlockedTarget *t = arg;

	return bf_rate_quantile(t->n, BLOOM_BLOCK_BITS, (double) t->nblocks, k);
}

/*
 * The k of 1 .. max_k with the lowest 95% rate for this many blocks, and
 * that rate; the search starts from the k the last one found (at first
 * max_k - 1: a blocked filter's best k is at or a little below the classic
 * one, log2(1 / fpp)).
 */
static double
best_quantile(BlockedTarget *t, uint64_t nblocks, uint32_t *best_k)
{
	double		q;

	t->nblocks = nblocks;
	q = bf_sizing_best_k(blocked_quantile, t, t->max_k, t->last_k, best_k);
	t->last_k = *best_k;
	return q;
}

static bool
blocked_fits(uint64_t nblocks, void *arg)
{
	uint32_t	k;

	return best_quantile(arg, nblocks, &k) <= ((const BlockedTarget *) arg)->fpp;
}

bool
bf_blocked_size_for(double capacity, double fpp, uint64_t max_blocks,
					uint64_t *nblocks, uint32_t *k)
{
	BlockedTarget t = {capacity, fpp, bf_sizing_max_k(fpp, 1), 0, 0};
	/* a blocked filter never beats the optimal classic one of its size */
	double		classic_blocks = bf_optimal_bits(capacity, fpp) / BLOOM_BLOCK_BITS;
	uint64_t	found;

	if (!(classic_blocks <= (double) max_blocks))
		return false;
	if (t.max_k > BLOOM_MAX_NHASHES)
		t.max_k = BLOOM_MAX_NHASHES;
	t.last_k = t.max_k > 1 ? t.max_k - 1 : 1;
	found = bf_sizing_fewest((uint64_t) floor(classic_blocks), max_blocks, blocked_fits, &t);
	if (found == 0)
		return false;
	best_quantile(&t, found, k);
	*nblocks = found;
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
