/*
 * rate_grid.h
 *	  What the rate grid test (test_rate_grid.c) and its benchmark
 *	  (bench/core/rate_grid.c) share: value sets of the kinds users store, a
 *	  full-width 64-bit value hash, filters of bf_shape_for filled with
 *	  them, and each filter's exact false-positive rate as its bits stand.
 *
 *	  The exact rate of one filter is the probability that a value never
 *	  added is answered "maybe", given the filter's bits, under hash
 *	  scheme 2 (independent positions), computed the way the layout's probe
 *	  reads the bits:
 *	  - classic: a foreign value tests k uniform bits: fill^k;
 *	  - blocked: a uniform block, then k uniform bits in it: the mean over
 *	    blocks of (ones in the block / 512)^k;
 *	  - matrix: one uniform candidate row in each of the s groups and the
 *	    same k uniform in-row positions in every candidate: the mean over
 *	    the candidates' tuples of P(some candidate has all k bits), by
 *	    inclusion-exclusion over the groups, from the ANDs of the rows.
 *	  At low rates this is the only way to tell one filter's rate; where the
 *	  rate is high enough, test_rate_grid.c checks it against probes.
 */
#ifndef RATE_GRID_H
#define RATE_GRID_H

#include "unit.h"

#include "core/layout_blocked.h"
#include "core/layout_matrix.h"

/*
 * The value hash: scheme 3's full-width hash of a 64-bit quantity
 * (bf_hash_wide64, what the server uses for bigint and timestamps beyond 32
 * bits), seed 0.  Small sequence values would be hashed by PostgreSQL's
 * 32-bit path on the server; the core has no copy of it, and any hash with
 * full avalanche gives the same rates.
 */
static inline uint64_t
rg_hash64(uint64_t x)
{
	return bf_hash_wide64(x, 0);
}

/* splitmix64: the random stream of value sets and probes. */
static inline uint64_t
rg_next(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The kinds of value sets: what keys of a real table look like. */
typedef enum RgKind
{
	RG_RANDOM64,				/* ids drawn from the whole 64-bit range */
	RG_TIMESTAMP,				/* microsecond timestamps, 1 to 2000 us apart */
	RG_SEQUENCE,				/* consecutive integers from a random start */
	RG_NUM_KINDS
} RgKind;

static const char *const rg_kind_names[RG_NUM_KINDS] = {"random64", "timestamp", "sequence"};

/* The i-th value of a set of this kind; *state is the set's own stream. */
static inline uint64_t
rg_value(RgKind kind, uint64_t i, uint64_t *state, uint64_t *last)
{
	switch (kind)
	{
		case RG_RANDOM64:
			return rg_next(state);
		case RG_TIMESTAMP:
			/* 2024-01-01 in microseconds since 2000-01-01, then a random walk */
			if (i == 0)
				*last = UINT64_C(757382400000000) + rg_next(state) % UINT64_C(1000000000);
			else
				*last += 1 + rg_next(state) % 2000;
			return *last;
		default:
			if (i == 0)
				*last = rg_next(state) >> 20;
			return *last + i;
	}
}

/*
 * A filter of this shape holding n distinct values of this kind, drawn from
 * the stream seeded by `seed`.
 */
static inline BloomFilter *
rg_filled(const BloomShape *shape, double n, RgKind kind, uint64_t seed)
{
	BloomFilter *f = calloc(1, bf_shape_bytes(shape));
	BfInserter	ins;
	uint64_t	state = seed,
				last = 0;

	if (f == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	bf_init(f, shape);
	bf_inserter_init(&ins);
	for (uint64_t i = 0; i < (uint64_t) n; i++)
		bf_inserter_add(&ins, f, bf_hash_derive(rg_hash64(rg_value(kind, i, &state, &last))));
	bf_inserter_flush(&ins, f);
	return f;
}

/* Probes of `count` random values never added; returns the hits. */
static inline uint64_t
rg_sampled_hits(const BloomFilter *f, uint64_t count, uint64_t seed)
{
	uint64_t	state = seed ^ UINT64_C(0x5851f42d4c957f2d),
				hits = 0;

	for (uint64_t i = 0; i < count; i++)
		hits += bf_query(f, bf_hash_derive(rg_hash64(rg_next(&state))));
	return hits;
}

/* ---- exact rates ---- */

static inline double
rg_classic_rate(const BloomFilter *f)
{
	double		ones = (double) bf_popcount_words(f->words, bf_nwords(f));

	return pow(ones / (double) f->nbits, (double) f->nhashes);
}

static inline double
rg_blocked_rate(const BloomFilter *f)
{
	uint64_t	nblocks = f->nbits / BLOOM_BLOCK_BITS;
	double		sum = 0.0;

	for (uint64_t b = 0; b < nblocks; b++)
	{
		double		ones = (double) bf_popcount_words(f->words + b * BLOOM_BLOCK_WORDS,
													   BLOOM_BLOCK_WORDS);

		sum += pow(ones / BLOOM_BLOCK_BITS, (double) f->nhashes);
	}
	return sum / (double) nblocks;
}

/* Row r of a matrix copied into whole words (rows need not be word-aligned). */
static inline void
rg_matrix_row(const BloomFilter *f, uint32_t r, uint64_t *out)
{
	uint64_t	row_bits = f->nbits / f->rows,
				start = (uint64_t) r * row_bits;

	if (row_bits % 64 == 0)
	{
		memcpy(out, f->words + start / 64, row_bits / 8);
		return;
	}
	memset(out, 0, 8 * bf_words_for_bits(row_bits));
	for (uint64_t b = 0; b < row_bits; b++)
		if (bf_test_bit(f->words, start + b))
			out[b >> 6] |= (uint64_t) 1 << (b & 63);
}

/*
 * The mean over one row of each group in `set` (a bit set of groups) of
 * (ones of the AND of those rows / row_bits)^k: the probability that one
 * foreign value has all its bits in each of its candidates of those groups.
 */
static inline double
rg_matrix_joint(const BloomFilter *f, uint64_t **rows, uint32_t set, uint64_t *scratch)
{
	uint32_t	groups[BLOOM_MATRIX_MAX_LOCATORS],
				pick[BLOOM_MATRIX_MAX_LOCATORS] = {0},
				ng = 0;
	uint64_t	row_bits = f->nbits / f->rows,
				words = bf_words_for_bits(row_bits);
	double		sum = 0.0,
				tuples = 0.0;

	for (uint32_t g = 0; g < f->locators; g++)
		if (set & (1u << g))
			groups[ng++] = g;
	for (;;)
	{
		uint64_t	ones = 0;

		for (uint64_t w = 0; w < words; w++)
		{
			uint64_t	x = ~(uint64_t) 0;

			for (uint32_t i = 0; i < ng; i++)
				x &= rows[bf_matrix_group_first(f->rows, f->locators, groups[i]) + pick[i]][w];
			scratch[w] = x;
			ones += bf_popcount64(x);
		}
		sum += pow((double) ones / (double) row_bits, (double) f->nhashes);
		tuples += 1.0;
		/* next tuple of rows, odometer-wise */
		{
			uint32_t	i = 0;

			while (i < ng && ++pick[i] == bf_matrix_group_size(f->rows, f->locators, groups[i]))
				pick[i++] = 0;
			if (i == ng)
				break;
		}
	}
	return sum / tuples;
}

/* Exact for up to 12 locators (inclusion-exclusion over the groups); -1 beyond. */
static inline double
rg_matrix_rate(const BloomFilter *f)
{
	uint64_t	row_bits = f->nbits / f->rows,
				words = bf_words_for_bits(row_bits);
	uint64_t  **rows;
	uint64_t   *scratch;
	double		rate = 0.0;

	if (f->locators > 12)
		return -1.0;
	rows = malloc(sizeof(uint64_t *) * f->rows);
	scratch = malloc(8 * words);
	for (uint32_t r = 0; r < f->rows; r++)
	{
		rows[r] = malloc(8 * words);
		rg_matrix_row(f, r, rows[r]);
	}
	for (uint32_t set = 1; set < (1u << f->locators); set++)
	{
		int			size = __builtin_popcount(set);

		rate += (size % 2 ? 1.0 : -1.0) * rg_matrix_joint(f, rows, set, scratch);
	}
	for (uint32_t r = 0; r < f->rows; r++)
		free(rows[r]);
	free(rows);
	free(scratch);
	return rate < 0 ? 0 : rate;
}

/* The exact rate of a scheme-2 filter of any bit-array layout. */
static inline double
rg_exact_rate(const BloomFilter *f)
{
	switch (f->layout)
	{
		case BLOOM_LAYOUT_CLASSIC:
			return rg_classic_rate(f);
		case BLOOM_LAYOUT_BLOCKED:
			return rg_blocked_rate(f);
		default:
			return rg_matrix_rate(f);
	}
}

/* ---- the rates of many filters of one cell ---- */

static int
rg_compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* What a cell's filters measured: rates relative to p. */
typedef struct RgCell
{
	int			filters;
	int			over;			/* filters whose rate exceeds p */
	double		mean,			/* of rate / p */
				q95,			/* the 95th percentile (nearest rank) */
				max;
	uint64_t	bytes;			/* bf_shape_bytes of the shape */
	uint32_t	nhashes;
	uint64_t	nbits;
} RgCell;

/*
 * `filters` filters of bf_shape_for(n, p, layout), value kinds in turn,
 * seeds from `seed`; false if the shape cannot be made.  With `each`, the
 * ratio of every filter's rate to p goes there too.
 */
static inline bool
rg_measure_cell(double n, double p, int layout, int filters, uint64_t seed, RgCell *cell,
				double *each)
{
	char		err[BLOOM_ERRBUF_SIZE];
	BloomShape	s;
	double	   *ratio;

	memset(cell, 0, sizeof(*cell));
	if (!bf_shape_for(n, p, layout, &s, err))
	{
		fprintf(stderr, "bf_shape_for(%g, %g, %s): %s\n", n, p, bf_layout_name(layout), err);
		return false;
	}
	ratio = malloc(sizeof(double) * filters);
	cell->filters = filters;
	cell->bytes = bf_shape_bytes(&s);
	cell->nhashes = s.nhashes;
	cell->nbits = s.nbits;
	for (int i = 0; i < filters; i++)
	{
		BloomFilter *f = rg_filled(&s, n, (RgKind) (i % RG_NUM_KINDS),
								   rg_hash64(seed + (uint64_t) i));

		ratio[i] = rg_exact_rate(f) / p;
		if (each)
			each[i] = ratio[i];
		cell->over += ratio[i] > 1.0;
		cell->mean += ratio[i] / filters;
		free(f);
	}
	qsort(ratio, filters, sizeof(double), rg_compare_double);
	cell->q95 = ratio[(int) ceil(0.95 * filters) - 1];
	cell->max = ratio[filters - 1];
	free(ratio);
	return true;
}

#endif							/* RATE_GRID_H */
