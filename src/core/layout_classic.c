/*
 * layout_classic.c
 *	  The 'classic' layout: sizing, positions, statistics.  See
 *	  layout_classic.h.
 */
#include "layout_classic.h"

#include "scheme1.h"

#include <string.h>

bool
bf_classic_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	double		m;
	uint32_t	k;

	if (!bf_optimal_size(capacity, fpp, 1, &m, &k, errbuf))
		return false;
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
	s->layout = BLOOM_LAYOUT_CLASSIC;
	s->nbits = (uint64_t) m;
	s->nhashes = k;
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
	return changed;
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
