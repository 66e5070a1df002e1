/*
 * matrix_readings.c
 *	  Which reading of the M-BMBF paper's insertion rule reproduces its
 *	  Table 1?  A plain simulation, independent of the extension's code, of
 *	  r rows of m = 131072 bits, k = 10 positions shared by all rows, s
 *	  candidate rows per value, the candidate needing the fewest new bits
 *	  wins, full candidates are skipped, and the count stops at the first
 *	  value whose candidates are all full (a value whose bits are all set in
 *	  a candidate adds nothing, and is counted).  The readings varied:
 *
 *	  - locating: each of the s locating hashes picks a row of its own group
 *	    independently ("per group"); one hash picks a row of group 0 and the
 *	    others take the same row of the next groups ("fixed offsets", which
 *	    pairs rows for good); each picks any of the r rows ("any row").
 *	  - ties between candidates needing equally few new bits: to the emptier
 *	    row, to the first candidate, at random, to the fuller row.
 *	  - full: a row at half its bits, or a row holding m ln 2 / k values.
 *
 *	  Usage: matrix_readings [probes]   (default 10^6)   Output: Markdown.
 */
#include "unit.h"

#define M			131072
#define K			10
#define MAX_ROWS	16

typedef enum
{
	PER_GROUP, OFFSETS, ANY_ROW
} Locating;
typedef enum
{
	EMPTIER, FIRST, RANDOM, FULLER
} Ties;

static const char *const locating_names[] = {"per group", "fixed offsets", "any row"};
static const char *const ties_names[] = {"emptier", "first", "random", "fuller"};

typedef struct Sim
{
	uint32_t	r,
				s;
	Locating	locating;
	Ties		ties;
	bool		full_by_count;
	uint64_t   *words;
	uint64_t	bits[MAX_ROWS],
				values[MAX_ROWS],
				rng;
} Sim;

/* The w-th 64-bit word of value v (independent words). */
static inline uint64_t
word(uint64_t v, uint64_t w)
{
	return hash_int_seeded(v, w + 1);
}

static void
candidates(const Sim *sim, uint64_t v, uint32_t *c)
{
	uint32_t	q = sim->r / sim->s,
				e = sim->r % sim->s;

	for (uint32_t g = 0; g < sim->s; g++)
	{
		uint32_t	first = g * q + (g < e ? g : e),
					size = q + (g < e);

		if (sim->locating == PER_GROUP)
			c[g] = first + (uint32_t) (word(v, 100 + g) % size);
		else if (sim->locating == OFFSETS)
			c[g] = first + (uint32_t) (word(v, 100) % size);
		else
			c[g] = (uint32_t) (word(v, 100 + g) % sim->r);
	}
}

static bool
row_full(const Sim *sim, uint32_t row)
{
	return sim->full_by_count ? sim->values[row] >= (uint64_t) (M * 0.6931471805599453 / K)
		: 2 * sim->bits[row] >= M;
}

static bool
has_bit(const Sim *sim, uint32_t row, uint32_t pos)
{
	uint64_t	b = (uint64_t) row * M + pos;

	return (sim->words[b >> 6] >> (b & 63)) & 1;
}

/* 0: present already, 1: inserted, 2: every candidate full (stop). */
static int
insert(Sim *sim, uint64_t v)
{
	uint32_t	c[MAX_ROWS],
				pos[K],
				best_new = K + 1;
	int			best = -1;

	candidates(sim, v, c);
	for (uint32_t i = 0; i < K; i++)
		pos[i] = (uint32_t) (word(v, i) % M);
	for (uint32_t g = 0; g < sim->s; g++)
	{
		uint32_t	row = c[g],
					fresh = 0;
		bool		take;

		for (uint32_t i = 0; i < K; i++)
			fresh += !has_bit(sim, row, pos[i]);
		if (fresh == 0)
			return 0;
		if (row_full(sim, row))
			continue;
		take = best < 0 || fresh < best_new;
		if (!take && fresh == best_new)
		{
			sim->rng = hash_int(sim->rng);
			take = sim->ties == EMPTIER ? sim->bits[row] < sim->bits[best]
				: sim->ties == FULLER ? sim->bits[row] > sim->bits[best]
				: sim->ties == RANDOM ? (sim->rng & 1) : false;
		}
		if (take)
		{
			best = (int) row;
			best_new = fresh;
		}
	}
	if (best < 0)
		return 2;
	for (uint32_t i = 0; i < K; i++)
	{
		uint64_t	b = (uint64_t) best * M + pos[i];

		sim->bits[best] += !((sim->words[b >> 6] >> (b & 63)) & 1);
		sim->words[b >> 6] |= (uint64_t) 1 << (b & 63);
	}
	sim->values[best]++;
	return 1;
}

static bool
query(const Sim *sim, uint64_t v)
{
	uint32_t	c[MAX_ROWS];

	candidates(sim, v, c);
	for (uint32_t g = 0; g < sim->s; g++)
	{
		uint32_t	i = 0;

		while (i < K && has_bit(sim, c[g], (uint32_t) (word(v, i) % M)))
			i++;
		if (i == K)
			return true;
	}
	return false;
}

/* Prints values until full and the fpp there for one reading. */
static void
run(uint32_t r, uint32_t s, Locating locating, Ties ties, bool by_count, uint64_t probes)
{
	Sim			sim = {.r = r, .s = s, .locating = locating, .ties = ties,
	.full_by_count = by_count, .rng = 1};
	uint64_t	n = 0,
				fp = 0;

	sim.words = calloc((size_t) r * M / 64, 8);
	if (sim.words == NULL)
		exit(1);
	for (uint64_t v = 0; insert(&sim, v) != 2; v++)
		n++;
	for (uint64_t i = 0; i < probes; i++)
		fp += query(&sim, (UINT64_C(1) << 40) + i);
	printf(" %llu / %.5f |", (unsigned long long) n, (double) fp / probes);
	fflush(stdout);
	free(sim.words);
}

int
main(int argc, char **argv)
{
	uint64_t	probes = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	uint32_t	ss[] = {2, 4, 8};

	printf("r = 8 rows of 131072 bits, k = 10; each cell: values until full / fpp there "
		   "(%llu probes).\nThe paper: 71,638 / 0.00179 (s = 2), 72,051 / 0.00364 (s = 4), "
		   "72,825 / 0.00722 (s = 8).\n\n", (unsigned long long) probes);
	printf("| full | locating | ties | s = 2 | s = 4 | s = 8 |\n|---|---|---|---:|---:|---:|\n");
	for (int by_count = 0; by_count <= 1; by_count++)
		for (int l = PER_GROUP; l <= ANY_ROW; l++)
			for (int t = EMPTIER; t <= FULLER; t++)
			{
				/* the value-count rule is shown for the locating that matters */
				if (by_count && l != PER_GROUP)
					continue;
				printf("| %s | %s | %s |", by_count ? "m ln2/k values" : "half the bits",
					   locating_names[l], ties_names[t]);
				for (size_t i = 0; i < 3; i++)
					run(8, ss[i], (Locating) l, (Ties) t, by_count, probes);
				printf("\n");
			}
	return 0;
}
