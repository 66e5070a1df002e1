/*
 * layout_matrix.c
 *	  The 'matrix' layout (M-BMBF, Yang & Huang 2017): see layout_matrix.h
 *	  and doc/matrix.md.
 */
#include "layout_matrix.h"
#include "layout_matrix_model.h"
#include "sizing.h"

#include <string.h>

/* ---------------------------------------------------------------------
 * Shapes
 * --------------------------------------------------------------------- */

bool
bf_matrix_shape_check(const BloomShape *s, char *errbuf)
{
	if (s->locators < 1 || s->locators > BLOOM_MATRIX_MAX_LOCATORS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of locators must be between 1 and %d, not %u",
				 BLOOM_MATRIX_MAX_LOCATORS, (unsigned) s->locators);
		return false;
	}
	/* each group needs a row; the groups need not be of equal size */
	if (s->rows < s->locators)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of rows must be at least the number of locators (%u), not %u",
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

/* n values at rate fpp over `rows` rows, s of them read, k up to max_k. */
typedef struct MatrixTarget
{
	double		n,
				fpp;
	uint32_t	rows,
				locators,
				max_k;
	uint64_t	words;			/* the row size being tried */
} MatrixTarget;

static double
packed_bound(const MatrixTarget *t, double w, uint32_t k)
{
	double		h = fmin(w, ceil(w / 2.0) - 1.0 + k),
				total = fmin(ceil(t->n) * k, t->rows * h),
				full = floor(total / h),
				rest = total - full * h;

	return (double) t->locators / t->rows *
		(full * pow(h / w, (double) k) + pow(rest / w, (double) k));
}

/*
 * The 95% rate of rows of t->words words with k bits per value: s times the
 * rate of the rows as blocks that the values fall into uniformly, since a
 * probe reads s rows and fails if any of them has all its bits; or
 * INFINITY if the packed bound exceeds fpp (which happens only below some
 * k: the bound falls as k grows).
 */
static double
matrix_quantile(uint32_t k, void *arg)
{
	const MatrixTarget *t = arg;
	double		w = 64.0 * (double) t->words;

	if (packed_bound(t, w, k) > t->fpp)
		return INFINITY;
	return t->locators * bf_rate_quantile(t->n, w, (double) t->rows, k);
}

/*
 * The k of 1 .. max_k with the lowest rate for rows of `words` words (the
 * smallest on ties), and that rate.  Every k is tried: at small n the
 * packed bound leaves gaps and more than one low point in k.
 */
static double
best_quantile(MatrixTarget *t, uint64_t words, uint32_t *best_k)
{
	double		best = INFINITY;

	t->words = words;
	*best_k = 1;
	for (uint32_t k = 1; k <= t->max_k; k++)
	{
		double		q = matrix_quantile(k, t);

		if (q < best)
		{
			best = q;
			*best_k = k;
		}
	}
	return best;
}

static bool
matrix_fits(uint64_t words, void *arg)
{
	uint32_t	k;

	return best_quantile(arg, words, &k) <= ((const MatrixTarget *) arg)->fpp;
}

/*
 * The fewest words per row for this many rows, from the size of the
 * optimal classic filter for each row's share of the values at rate
 * fpp / s; 0 if none fits.
 */
static uint64_t
row_words(MatrixTarget *t)
{
	double		lo = bf_optimal_bits(t->n / t->rows, t->fpp / t->locators) / 64.0;
	uint64_t	max = (BLOOM_MAX_WORDS - t->rows) / t->rows;

	if (!(lo <= (double) max))
		return 0;
	return bf_sizing_fewest((uint64_t) floor(lo), max, matrix_fits, t);
}

/*
 * The rows of the default shape: 8, as in the paper, when each row's share
 * is at least BLOOM_MATRIX_VALUES_PER_ROW values; fewer for fewer values
 * (4, then 2: at least one row per locator), since rows of a few values
 * each fill unevenly and need more bits for the same rate.
 */
static uint32_t
default_rows(double capacity)
{
	uint32_t	rows = BLOOM_MATRIX_DEFAULT_ROWS;

	while (rows > BLOOM_MATRIX_DEFAULT_LOCATORS &&
		   capacity < (double) rows * BLOOM_MATRIX_VALUES_PER_ROW)
		rows /= 2;
	return rows;
}

/*
 * s = 2 locators and default_rows; then the fewest words per row for which
 * some k of 1 .. ceil(log2(s / fpp)) + 1 keeps both the packed bound and
 * the 95% random-load rate at or under fpp, and of those k the one with
 * the lowest rate.  doc/layouts.md states the rule in full.
 */
bool
bf_matrix_shape_for(double capacity, double fpp, BloomShape *s, char *errbuf)
{
	const uint32_t locators = BLOOM_MATRIX_DEFAULT_LOCATORS;
	MatrixTarget t = {capacity, fpp, default_rows(capacity), locators,
	bf_sizing_max_k(fpp, locators) + 1, 0};
	uint64_t	words;
	uint32_t	k;

	if (!bf_sizing_k_fits(fpp, locators, errbuf))
		return false;
	if (t.max_k > BLOOM_MAX_NHASHES)
		t.max_k = BLOOM_MAX_NHASHES;
	words = row_words(&t);
	if (words == 0)
	{
		bf_sizing_too_large(capacity, fpp, locators, "a matrix filter", errbuf);
		return false;
	}
	best_quantile(&t, words, &k);
	memset(s, 0, sizeof(*s));
	s->layout = BLOOM_LAYOUT_MATRIX;
	s->nbits = 64 * words * t.rows;
	s->nhashes = k;
	s->rows = t.rows;
	s->locators = t.locators;
	return bf_matrix_shape_check(s, errbuf);
}

/* ---------------------------------------------------------------------
 * Positions
 * --------------------------------------------------------------------- */

/*
 * The candidate row of group g: each locating hash picks a row of its own
 * group independently of the others.  The locating hashes come from both
 * words through a further mix, so they are independent of the in-row
 * positions (which use h1 and h2 directly) and of each other.
 */
static inline uint32_t
candidate_row(const BloomFilter *f, uint64_t locator_base, uint32_t g)
{
	uint64_t	x = bf_mix64(locator_base + (uint64_t) (g + 1) * UINT64_C(0x9e3779b97f4a7c15));

	return bf_matrix_group_first(f->rows, f->locators, g) +
		(uint32_t) bf_reduce(x, bf_matrix_group_size(f->rows, f->locators, g));
}

static inline uint64_t
locator_base(BloomHash h)
{
	return bf_mix64(h.h1 ^ ((h.h2 << 29) | (h.h2 >> 35)));
}

/*
 * The k in-row positions: enhanced double hashing on h1, h2 (as the classic
 * layout), mapped onto [0, row_bits).  The same for every candidate row, so
 * candidates can be compared bit for bit.
 */
static inline void
in_row_positions(const BloomFilter *f, BloomHash h, uint64_t *pos)
{
	BfProbe		p = bf_probe_start(h, f->hash_scheme);
	uint64_t	row_bits = bf_matrix_row_bits(f);

	for (uint32_t i = 0; i < f->nhashes; i++)
		pos[i] = bf_probe_next(&p, row_bits);
}

/* ---------------------------------------------------------------------
 * Insertion and lookup
 * --------------------------------------------------------------------- */

/*
 * Places a value in the candidate the rule picks; true if any bit changed.
 * f->inserted is still the number of values before it.
 */
static inline bool
place_value(BloomFilter *f, BloomHash h)
{
	uint64_t	pos[BLOOM_MAX_NHASHES];
	uint64_t	row_bits = bf_matrix_row_bits(f);
	uint64_t	base = locator_base(h);
	uint64_t   *counters = bf_matrix_counters(f);
	int64_t		best = -1,		/* fewest new bits among non-full rows */
				least = -1;		/* least-filled row, if all are full */
	uint32_t	best_new = 0;
	uint64_t	row_start;
	bool		ties_first = bf_matrix_ties_first(f);

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
		if (bf_matrix_row_full(counters[row], row_bits))
			continue;
		/*
		 * Longest bit match.  Ties go to the emptier row, then the first
		 * group, or (the paper's rule) to the first group.
		 */
		if (best < 0 || new_bits < best_new ||
			(new_bits == best_new && !ties_first && counters[row] < counters[best]))
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

	/* count each bit once, even if two positions coincide */
	row_start = (uint64_t) best * row_bits;
	for (uint32_t i = 0; i < f->nhashes; i++)
		counters[best] += bf_set_bit(f->words, row_start + pos[i]);
	return true;
}

bool
bf_matrix_insert(BloomFilter *f, BloomHash h)
{
	bool		changed = place_value(f, h);

	bf_count_insert(f);
	return changed;
}

bool
bf_matrix_query(const BloomFilter *f, BloomHash h)
{
	uint64_t	pos[BLOOM_MAX_NHASHES];
	uint64_t	row_bits = bf_matrix_row_bits(f);
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

bool
bf_matrix_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	return bf_matrix_query(f, bf_hash_derive(value_hash));
}

/* ---------------------------------------------------------------------
 * Counters and statistics
 * --------------------------------------------------------------------- */

void
bf_matrix_prefetch(const BloomFilter *f, BloomHash h)
{
	(void) f;
	(void) h;
}

/*
 * Values held: the number the model of layout_matrix_model.h takes to set
 * as many bits as the filter has.  The classic -(m/k) ln(1 - x) would read
 * 10-15% low, since longest bit match sets fewer than k new bits a value.
 */
double
bf_matrix_estimate_count(const BloomFilter *f)
{
	uint64_t	bits = bf_popcount_words(f->words, bf_nwords(f));
	BfMatrixModelShape shape = {.rows = f->rows, .locators = f->locators,
		.nhashes = f->nhashes, .row_bits = bf_matrix_row_bits(f),
	.ties_first = bf_matrix_ties_first(f)};

	if (bits >= f->nbits)
		return INFINITY;
	/* one candidate: no choice, and the model is the classic formula */
	if (f->locators == 1 || bits == 0)
		return bf_count_from_fill((double) f->nbits, f->nhashes, (double) bits);
	return bf_matrix_model_count(&shape, (double) bits / (double) f->nbits);
}

void
bf_matrix_recount(BloomFilter *f)
{
	uint64_t	row_bits = bf_matrix_row_bits(f);
	uint64_t   *counters = bf_matrix_counters(f);

	for (uint32_t r = 0; r < f->rows; r++)
		counters[r] = bf_popcount_range(f->words, (uint64_t) r * row_bits, row_bits);
}

bool
bf_matrix_counters_consistent(const BloomFilter *f)
{
	uint64_t	row_bits = bf_matrix_row_bits(f);
	const uint64_t *counters = bf_matrix_counters_const(f);

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
bf_matrix_union_full_at(int64_t a, int64_t b)
{
	if (a == BLOOM_NEVER_FULL)
		return b;
	if (b == BLOOM_NEVER_FULL)
		return a;
	return a < b ? a : b;
}

void
bf_matrix_after_union(BloomFilter *dst, const BloomFilter *src)
{
	bf_matrix_recount(dst);
	dst->full_at = bf_matrix_union_full_at(dst->full_at, src->full_at);
}

void
bf_matrix_after_intersect(BloomFilter *dst)
{
	bf_matrix_recount(dst);
	dst->full_at = BLOOM_NEVER_FULL;
}

double
bf_matrix_estimate_fpp(const BloomFilter *f)
{
	double		row_bits = (double) bf_matrix_row_bits(f);
	const uint64_t *counters = bf_matrix_counters_const(f);
	double		miss_all = 1.0;

	for (uint32_t g = 0; g < f->locators; g++)
	{
		uint32_t	first = bf_matrix_group_first(f->rows, f->locators, g),
					size = bf_matrix_group_size(f->rows, f->locators, g);
		double		hit = 0.0;

		for (uint32_t r = first; r < first + size; r++)
			hit += pow((double) counters[r] / row_bits, (double) f->nhashes);
		miss_all *= 1.0 - hit / size;
	}
	return 1.0 - miss_all;
}

bool
bf_matrix_combinable(const BloomFilter *a, const BloomFilter *b, char *errbuf)
{
	if (bf_matrix_ties_first(a) == bf_matrix_ties_first(b))
		return true;
	snprintf(errbuf, BLOOM_ERRBUF_SIZE,
			 "first filter breaks ties to the \"%s\" candidate, second to the \"%s\"",
			 bf_matrix_ties_name(a), bf_matrix_ties_name(b));
	return false;
}
