/*
 * layout_classic.c
 *	  The 'classic' layout: sizing, positions, statistics.  See
 *	  layout_classic.h.
 */
#include "layout_classic.h"

#include "scheme1.h"
#include "sizing.h"

#include <string.h>

/* ---------------------------------------------------------------------
 * Sizing
 * --------------------------------------------------------------------- */

/* A candidate: n values, k bits each, at rate fpp for 95% of filters. */
typedef struct ClassicTarget
{
	double		n,
				fpp;
	uint32_t	k;
} ClassicTarget;

/* True if 95% of filters of `words` words stay at or under the rate. */
static bool
classic_fits(uint64_t words, void *arg)
{
	const ClassicTarget *t = arg;

	return bf_rate_quantile(t->n, 64.0 * (double) words, 1.0, t->k) <= t->fpp;
}

/*
 * The fewest words for k bits per value, searched from the size whose
 * expected fill (1 - e^(-kn/m)) gives fill^k = fpp exactly: no filter
 * of fewer bits can keep even its mean rate at fpp.  0 if none fits.
 */
static uint64_t
classic_words_for_k(double n, double fpp, uint32_t k)
{
	ClassicTarget t = {n, fpp, k};
	double		mean_bits = -n * k / log1p(-pow(fpp, 1.0 / k));
	uint64_t	lo = mean_bits / 64.0 < (double) BLOOM_MAX_WORDS ?
		(uint64_t) floor(mean_bits / 64.0) : BLOOM_MAX_WORDS;

	return bf_sizing_fewest(lo, BLOOM_MAX_WORDS, classic_fits, &t);
}

/*
 * k is log2(1 / fpp), the optimum, rounded down or up; for each, the
 * fewest whole words that keep 95% of filters at or under fpp
 * (bf_rate_quantile with one block); the k needing fewer words wins, and
 * of two equal sizes the one with the lower rate.
 */
bool
bf_classic_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	double		k0 = log2(1.0 / fpp);
	uint32_t	k_lo = k0 < 1.0 ? 1 : (uint32_t) fmin(floor(k0), 1e6),
				k_hi = k0 < 1.0 ? 1 : (uint32_t) fmin(ceil(k0), 1e6);
	uint64_t	best_words = 0;
	uint32_t	best_k = 0;

	if (!bf_sizing_k_fits(fpp, 1, errbuf))
		return false;
	for (uint32_t k = k_lo; k <= k_hi && k <= BLOOM_MAX_NHASHES; k++)
	{
		uint64_t	words = classic_words_for_k(capacity, fpp, k);

		if (words == 0)
			continue;
		if (best_words == 0 || words < best_words ||
			(words == best_words &&
			 bf_rate_quantile(capacity, 64.0 * (double) words, 1.0, k) <
			 bf_rate_quantile(capacity, 64.0 * (double) words, 1.0, best_k)))
		{
			best_words = words;
			best_k = k;
		}
	}
	if (best_words == 0)
	{
		bf_sizing_too_large(capacity, fpp, 1, "a filter", errbuf);
		return false;
	}
	memset(s, 0, sizeof(*s));
	s->layout = BLOOM_LAYOUT_CLASSIC;
	s->nbits = 64 * best_words;
	s->nhashes = best_k;
	return true;
}

bool
bf_classic_shape_check(const BloomShape *s, char *errbuf)
{
	(void) s;
	(void) errbuf;
	return true;
}

/* The positions: bf_probe_next over the whole filter, by the filter's scheme. */
bool
bf_classic_insert(BloomFilter *f, BloomHash h)
{
	BfProbe		p = bf_probe_start(h, f->hash_scheme);
	bool		changed = false;

	for (uint32_t i = 0; i < f->nhashes; i++)
		changed |= bf_set_bit(f->words, bf_probe_next(&p, f->nbits));
	bf_count_insert(f);
	return changed;
}

/*
 * The inserter's two steps: the positions computed once and their lines
 * prefetched, then the bits set.  A filter with more hash functions than a
 * staged value holds positions for prefetches now and inserts later.
 */
void
bf_classic_stage(const BloomFilter *f, BfStaged *v)
{
	BfProbe		p;

	if (f->nhashes > BF_STAGED_POSITIONS)
	{
		bf_classic_prefetch(f, v->h);
		return;
	}
	p = bf_probe_start(v->h, f->hash_scheme);
	for (uint32_t i = 0; i < f->nhashes; i++)
	{
		v->where[i] = bf_probe_next(&p, f->nbits);
		bf_prefetch_line(&f->words[v->where[i] >> 6]);
	}
}

void
bf_classic_commit(BloomFilter *f, const BfStaged *v)
{
	if (f->nhashes > BF_STAGED_POSITIONS)
	{
		bf_classic_insert(f, v->h);
		return;
	}
	for (uint32_t i = 0; i < f->nhashes; i++)
		bf_set_bit(f->words, v->where[i]);
	bf_count_insert(f);
}

bool
bf_classic_query(const BloomFilter *f, BloomHash h)
{
	BfProbe		p = bf_probe_start(h, f->hash_scheme);

	for (uint32_t i = 0; i < f->nhashes; i++)
		if (!bf_test_bit(f->words, bf_probe_next(&p, f->nbits)))
			return false;
	return true;
}

bool
bf_classic_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	return bf_classic_query(f, bf_hash_derive(value_hash));
}

void
bf_classic_prefetch(const BloomFilter *f, BloomHash h)
{
	BfProbe		p = bf_probe_start(h, f->hash_scheme);

	for (uint32_t i = 0; i < f->nhashes; i++)
		bf_prefetch_line(&f->words[bf_probe_next(&p, f->nbits) >> 6]);
}

double
bf_classic_estimate_count(const BloomFilter *f)
{
	return bf_count_from_fill((double) f->nbits, f->nhashes,
							  (double) bf_popcount_words(f->words, bf_nwords(f)));
}

/*
 * fill^k: the rate of k independent positions (scheme 2).  A scheme-1
 * filter adds the floor of its double hashing (scheme1.h), from the fill
 * alone: the count it needs is the one the fill implies, not the insert
 * count, which counts repeats and adds up over unions of the same values.
 */
double
bf_classic_estimate_fpp(const BloomFilter *f)
{
	double		fill = (double) bf_popcount_words(f->words, bf_nwords(f)) / (double) f->nbits;
	double		fpp = pow(fill, (double) f->nhashes);

	if (f->hash_scheme == BLOOM_HASH_SCHEME_DOUBLE_HASHING)
		fpp += bf_scheme1_floor(fill, f->nhashes) / (double) f->nbits;
	return fpp > 1.0 ? 1.0 : fpp;
}
