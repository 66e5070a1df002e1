/*
 * layout_explicit.c
 *	  The explicit representation of a small data-sized filter: the sorted
 *	  list of its value hashes.  See layout_explicit.h.
 */
#include "layout_explicit.h"

#include <string.h>

void
bf_explicit_shape(uint64_t n, uint64_t seed, BloomShape *s)
{
	memset(s, 0, sizeof(*s));
	s->layout = BLOOM_LAYOUT_EXPLICIT;
	s->nbits = 64 * n;
	s->seed = seed;
}

bool
bf_explicit_shape_check(const BloomShape *s, char *errbuf)
{
	if (s->nbits % 64 != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "nbits of an explicit filter must be 64 per listed hash, not %llu",
				 (unsigned long long) s->nbits);
		return false;
	}
	if (s->nbits / 64 > BLOOM_EXPLICIT_MAX)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "an explicit filter lists at most %d hashes, not %llu",
				 BLOOM_EXPLICIT_MAX, (unsigned long long) (s->nbits / 64));
		return false;
	}
	if (s->nhashes != 0 || s->rows != 0 || s->locators != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "nhashes, rows and locators must be 0 for an explicit filter");
		return false;
	}
	return true;
}

bool
bf_explicit_order_check(const uint64_t *hashes, uint64_t n, char *errbuf)
{
	for (uint64_t i = 1; i < n; i++)
	{
		if (hashes[i - 1] >= hashes[i])
		{
			snprintf(errbuf, BLOOM_ERRBUF_SIZE,
					 "the hashes of an explicit filter must ascend without repeats, but hash %llu is not above hash %llu",
					 (unsigned long long) i, (unsigned long long) (i - 1));
			return false;
		}
	}
	return true;
}

/*
 * The first index whose hash is >= x (n if none), for n >= 1: halving
 * without a branch to mispredict.
 */
static inline uint64_t
lower_bound(const uint64_t *hashes, uint64_t n, uint64_t x)
{
	const uint64_t *base = hashes;

	while (n > 1)
	{
		uint64_t	half = n / 2;

		base = base[half - 1] < x ? base + half : base;
		n -= half;
	}
	return (uint64_t) (base - hashes) + (base[0] < x);
}

bool
bf_explicit_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	uint64_t	n = bf_explicit_count(f);
	uint64_t	i;

	if (n == 0)
		return false;
	i = lower_bound(f->words, n, value_hash);
	return i < n && f->words[i] == value_hash;
}

/* A list stays in the cache: value by value, nothing to prefetch. */
int
bf_explicit_probe_batch(const BloomFilter *f, const uint64_t *hashes, int n, bool *found)
{
	int			nfound = 0;

	for (int i = 0; i < n; i++)
	{
		found[i] = bf_explicit_contains_value(f, hashes[i]);
		nfound += found[i];
	}
	return nfound;
}

bool
bf_explicit_insert(BloomFilter *f, BloomHash h)
{
	(void) f;
	(void) h;
	return false;
}

bool
bf_explicit_query(const BloomFilter *f, BloomHash h)
{
	(void) f;
	(void) h;
	return true;
}

void
bf_explicit_prefetch(const BloomFilter *f, BloomHash h)
{
	(void) f;
	(void) h;
}

bool
bf_explicit_is_empty(const BloomFilter *f)
{
	return bf_explicit_count(f) == 0;
}

uint64_t
bf_explicit_merge(const uint64_t *a, uint64_t na, const uint64_t *b, uint64_t nb,
				  uint64_t *out)
{
	BfListMerge m = bf_list_merge_start(a, na, b, nb);
	uint64_t	n = 0,
				next;

	while (bf_list_merge_next(&m, &next))
	{
		if (out)
			out[n] = next;
		n++;
	}
	return n;
}

uint64_t
bf_explicit_bits_set(const BloomFilter *f)
{
	(void) f;
	return 0;
}

double
bf_explicit_estimate_count(const BloomFilter *f)
{
	return (double) bf_explicit_count(f);
}

double
bf_explicit_estimate_fpp(const BloomFilter *f)
{
	return ldexp((double) bf_explicit_count(f), -64);
}
