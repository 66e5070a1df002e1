/*
 * matrix_figures.c
 *	  The comparisons of figures 3-6 of Yang & Huang's M-BMBF paper: the
 *	  matrix layout (the extension's core, s = 2 locators, both tie rules)
 *	  against a split Bloom filter and a 2BDBF, written here for the
 *	  experiment only, and a classic filter of the same bits (the core).
 *	  k = 10 throughout; a row (or the classic filter's half) is full at half
 *	  of its bits.
 *
 *	  - Figure 3: values inserted until full, at the same total space
 *	    (2^20 bits), as the number of rows r grows.
 *	  - Figure 4: insertion and query time as r grows (2^22 bits, half the
 *	    capacity r m ln 2 / k inserted; queries are values never inserted).
 *	  - Figure 5: insertion and query time as the number of values n grows
 *	    (r = 8 rows of 131072 bits, n up to the capacity).
 *	  - Figure 6: false-positive rate as values are inserted (r = 8 rows of
 *	    131072 bits).
 *
 *	  The baselines, as read here (doc/matrix.md, "The paper's figures"):
 *	  - split Bloom filter (Xiao, Dai & Li): r rows of m bits, each a
 *	    classic filter with the same k positions in it; a value goes into a
 *	    row picked at random among those not full, so a query must test
 *	    every row.  Full when every row is.
 *	  - 2BDBF (two-choice balanced dynamic Bloom filter): r rows; a value
 *	    has two candidate rows from two hashes, anywhere among the r, and
 *	    goes into the one holding fewer values (the first on a tie), skipping
 *	    rows at capacity m ln 2 / k values; a query tests the two candidates.
 *	    Full when both candidates of a value are.
 *
 *	  Values are random 64-bit hashes (integers through a 64-bit mixer).
 *
 *	  Usage: matrix_figures OUTDIR [probes]    (default 10^6 probes)
 *	  Writes OUTDIR/matrix-fig3.dat .. matrix-fig6.dat and a Markdown
 *	  summary on stdout.
 */
#include <time.h>

#include "unit.h"

#include "core/filter.h"

#define K			10
#define PROBE_BASE	(UINT64_C(1) << 40)

/* CPU time of this process: other work on the machine does not count. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------------
 * The baselines: r rows of m bits, each with its bit count and values.
 * --------------------------------------------------------------------- */

typedef enum
{
	SPLIT,						/* split Bloom filter: random row, query all */
	TWO_CHOICE					/* 2BDBF: the less loaded of two hashed rows */
} BaselineKind;

typedef struct Baseline
{
	BaselineKind kind;
	uint32_t	rows;
	uint64_t	row_bits;
	uint64_t	capacity;		/* values per row of the 2BDBF */
	uint64_t   *words;
	uint64_t   *bits_set;		/* per row */
	uint64_t   *values;			/* per row */
	uint32_t   *open;			/* split: the rows not full, open[0 .. nopen) */
	uint32_t	nopen;
	uint64_t	rng;
	int64_t		full_at;
	uint64_t	inserted;
} Baseline;

/* The i-th independent 64-bit word of a value (as hash scheme 2 draws them). */
static inline uint64_t
word_of(BloomHash h, uint32_t i)
{
	return bf_mix64(h.h1 + (uint64_t) i * h.h2);
}

static Baseline *
baseline_new(BaselineKind kind, uint32_t rows, uint64_t row_bits)
{
	Baseline   *b = calloc(1, sizeof(Baseline));

	b->kind = kind;
	b->rows = rows;
	b->row_bits = row_bits;
	b->capacity = (uint64_t) (row_bits * BF_LN2 / K);
	b->words = calloc(bf_words_for_bits(rows * row_bits) + 1, 8);
	b->bits_set = calloc(rows, 8);
	b->values = calloc(rows, 8);
	b->open = calloc(rows, 4);
	for (uint32_t r = 0; r < rows; r++)
		b->open[r] = r;
	b->nopen = rows;
	b->rng = 12345;
	b->full_at = BLOOM_NEVER_FULL;
	if (!b->words || !b->bits_set || !b->values || !b->open)
	{
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return b;
}

static void
baseline_free(Baseline *b)
{
	free(b->words);
	free(b->bits_set);
	free(b->values);
	free(b->open);
	free(b);
}

static void
positions(const Baseline *b, BloomHash h, uint64_t *pos)
{
	for (uint32_t i = 0; i < K; i++)
		pos[i] = bf_reduce(word_of(h, i), b->row_bits);
}

static bool
row_has(const Baseline *b, uint32_t row, const uint64_t *pos)
{
	uint64_t	start = (uint64_t) row * b->row_bits;

	for (uint32_t i = 0; i < K; i++)
		if (!bf_test_bit(b->words, start + pos[i]))
			return false;
	return true;
}

static void
row_set(Baseline *b, uint32_t row, const uint64_t *pos)
{
	uint64_t	start = (uint64_t) row * b->row_bits;

	for (uint32_t i = 0; i < K; i++)
		b->bits_set[row] += bf_set_bit(b->words, start + pos[i]);
	b->values[row]++;
}

static void
note_full(Baseline *b)
{
	if (b->full_at == BLOOM_NEVER_FULL)
		b->full_at = (int64_t) b->inserted;
}

/* Split: a random row among those not full (any row once all are full). */
static void
split_insert(Baseline *b, const uint64_t *pos)
{
	uint32_t	i,
				row;

	b->rng = bf_mix64(b->rng + UINT64_C(0x9e3779b97f4a7c15));
	if (b->nopen == 0)
	{
		note_full(b);
		row_set(b, (uint32_t) bf_reduce(b->rng, b->rows), pos);
		return;
	}
	i = (uint32_t) bf_reduce(b->rng, b->nopen);
	row = b->open[i];
	row_set(b, row, pos);
	if (2 * b->bits_set[row] >= b->row_bits)
		b->open[i] = b->open[--b->nopen];
}

/* 2BDBF: the candidate with fewer values, skipping rows at capacity. */
static void
two_choice_insert(Baseline *b, BloomHash h, const uint64_t *pos)
{
	uint32_t	c0 = (uint32_t) bf_reduce(word_of(h, 64), b->rows),
				c1 = (uint32_t) bf_reduce(word_of(h, 65), b->rows);
	bool		full0 = b->values[c0] >= b->capacity,
				full1 = b->values[c1] >= b->capacity;
	uint32_t	row;

	if (row_has(b, c0, pos) || row_has(b, c1, pos))
		return;					/* present, or a false positive */
	if (full0 && full1)
		note_full(b);
	if (full0 != full1)
		row = full0 ? c1 : c0;
	else
		row = b->values[c1] < b->values[c0] ? c1 : c0;
	row_set(b, row, pos);
}

static void
baseline_insert(Baseline *b, BloomHash h)
{
	uint64_t	pos[K];

	positions(b, h, pos);
	/* the split filter cannot tell where a value went, so it never looks */
	if (b->kind == SPLIT)
		split_insert(b, pos);
	else
		two_choice_insert(b, h, pos);
	b->inserted++;
}

static bool
baseline_query(const Baseline *b, BloomHash h)
{
	uint64_t	pos[K];

	positions(b, h, pos);
	if (b->kind == TWO_CHOICE)
		return row_has(b, (uint32_t) bf_reduce(word_of(h, 64), b->rows), pos) ||
			row_has(b, (uint32_t) bf_reduce(word_of(h, 65), b->rows), pos);
	for (uint32_t r = 0; r < b->rows; r++)
		if (row_has(b, r, pos))
			return true;
	return false;
}

/* ---------------------------------------------------------------------
 * The five filters compared, behind one interface.
 * --------------------------------------------------------------------- */

enum
{
	MATRIX_EMPTIER, MATRIX_FIRST, SPLIT_BF, TWO_BDBF, CLASSIC, NKINDS
};

static const char *const kind_names[NKINDS] = {
	"M-BMBF s=2 (emptier, default)", "M-BMBF s=2 (first, paper's)",
	"split Bloom filter", "2BDBF", "classic, same bits"
};

typedef struct Filter
{
	int			kind;
	BloomFilter *core;			/* matrix, classic */
	Baseline   *base;			/* split, 2BDBF */
	uint64_t	half;			/* classic: values at half fill */
} Filter;

static Filter
filter_new(int kind, uint32_t rows, uint64_t row_bits)
{
	Filter		f = {.kind = kind};
	BloomShape	s = {.nbits = rows * row_bits, .nhashes = K};

	switch (kind)
	{
		case MATRIX_EMPTIER:
		case MATRIX_FIRST:
			s.layout = BLOOM_LAYOUT_MATRIX;
			s.rows = rows;
			s.locators = 2;
			f.core = unit_new_filter(&s);
			if (kind == MATRIX_FIRST)
				f.core->flags |= BLOOM_FLAG_MATRIX_TIES_FIRST;
			break;
		case CLASSIC:
			s.layout = BLOOM_LAYOUT_CLASSIC;
			f.core = unit_new_filter(&s);
			f.half = (uint64_t) (s.nbits * BF_LN2 / K);
			break;
		default:
			f.base = baseline_new(kind == SPLIT_BF ? SPLIT : TWO_CHOICE, rows, row_bits);
	}
	if (f.core == NULL && f.base == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return f;
}

static void
filter_free(Filter *f)
{
	if (f->core)
		free(f->core);
	if (f->base)
		baseline_free(f->base);
}

static void
filter_insert(Filter *f, BloomHash h)
{
	if (f->core)
		bf_insert(f->core, h);
	else
		baseline_insert(f->base, h);
}

static bool
filter_query(const Filter *f, BloomHash h)
{
	return f->core ? bf_query(f->core, h) : baseline_query(f->base, h);
}

/* Values held when full (the classic filter: at half of its bits). */
static int64_t
filter_full_at(const Filter *f)
{
	if (f->kind == CLASSIC)
		return f->core->inserted >= f->half ? (int64_t) f->half : BLOOM_NEVER_FULL;
	return f->core ? f->core->full_at : f->base->full_at;
}

static double
filter_fpp(const Filter *f, uint64_t probes)
{
	uint64_t	fp = 0;

	for (uint64_t i = 0; i < probes; i++)
		fp += filter_query(f, value(PROBE_BASE + i));
	return (double) fp / probes;
}

/* ---------------------------------------------------------------------
 * The figures
 * --------------------------------------------------------------------- */

static FILE *
open_dat(const char *dir, const char *name, const char *header)
{
	char		path[1024];
	FILE	   *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (fp == NULL)
	{
		perror(path);
		exit(1);
	}
	fprintf(fp, "%s\n", header);
	return fp;
}

static void
md_header(const char *first_column)
{
	printf("| %s |", first_column);
	for (int k = 0; k < NKINDS; k++)
		printf(" %s |", kind_names[k]);
	printf("\n|---:|");
	for (int k = 0; k < NKINDS; k++)
		printf("---:|");
	printf("\n");
}

/* Figure 3: values until full, 2^20 bits, r = 2..64. */
static void
figure3(const char *dir)
{
	const uint64_t total = UINT64_C(1) << 20;
	FILE	   *dat = open_dat(dir, "matrix-fig3.dat", "# r  emptier first split 2bdbf classic  (values until full, 2^20 bits)");

	printf("\n## Figure 3: values inserted until full, 2^20 bits in all, as r grows\n\n");
	md_header("r");
	for (uint32_t r = 2; r <= 64; r *= 2)
	{
		fprintf(dat, "%u", r);
		printf("| %u |", r);
		for (int k = 0; k < NKINDS; k++)
		{
			Filter		f = filter_new(k, r, total / r);
			uint64_t	v = 0;

			while (filter_full_at(&f) == BLOOM_NEVER_FULL)
				filter_insert(&f, value(v++));
			fprintf(dat, " %lld", (long long) filter_full_at(&f));
			printf(" %lld |", (long long) filter_full_at(&f));
			filter_free(&f);
		}
		fprintf(dat, "\n");
		printf("\n");
		fflush(stdout);
	}
	fclose(dat);
}

/* Insertion ns per value of values [from, to), and query ns per probe. */
static void
timed(Filter *f, uint64_t from, uint64_t to, uint64_t probes, double *ins_ns, double *query_ns)
{
	double		t0 = now();
	volatile uint64_t hits = 0;

	for (uint64_t v = from; v < to; v++)
		filter_insert(f, value(v));
	*ins_ns = (now() - t0) / (double) (to - from) * 1e9;
	t0 = now();
	for (uint64_t i = 0; i < probes; i++)
		hits += filter_query(f, value(PROBE_BASE + i));
	*query_ns = (now() - t0) / (double) probes * 1e9;
}

/* Figure 4: time as r grows (2^22 bits, half the capacity inserted). */
static void
figure4(const char *dir, uint64_t probes)
{
	const uint64_t total = UINT64_C(1) << 22;
	uint64_t	n = (uint64_t) (total * BF_LN2 / K / 2);
	FILE	   *dat = open_dat(dir, "matrix-fig4.dat",
							   "# r  insert_ns x 5 (emptier first split 2bdbf classic)  query_ns x 5");

	printf("\n## Figure 4: time as r grows (2^22 bits, %llu values, best of 5)\n\n",
		   (unsigned long long) n);
	printf("Insertion ns per value / query ns per probe (values never inserted):\n\n");
	md_header("r");
	for (uint32_t r = 2; r <= 64; r *= 2)
	{
		double		ins[NKINDS],
					qry[NKINDS];

		for (int k = 0; k < NKINDS; k++)
			for (int rep = 0; rep < 5; rep++)
			{
				Filter		f = filter_new(k, r, total / r);
				double		i_ns,
							q_ns;

				timed(&f, 0, n, probes, &i_ns, &q_ns);
				ins[k] = rep == 0 ? i_ns : fmin(ins[k], i_ns);
				qry[k] = rep == 0 ? q_ns : fmin(qry[k], q_ns);
				filter_free(&f);
			}
		fprintf(dat, "%u", r);
		printf("| %u |", r);
		for (int k = 0; k < NKINDS; k++)
		{
			fprintf(dat, " %.1f", ins[k]);
			printf(" %.0f / %.0f |", ins[k], qry[k]);
		}
		for (int k = 0; k < NKINDS; k++)
			fprintf(dat, " %.1f", qry[k]);
		fprintf(dat, "\n");
		printf("\n");
		fflush(stdout);
	}
	fclose(dat);
}

/* Figure 5: time as n grows, r = 8 rows of 131072 bits (best of 5 runs). */
static void
figure5(const char *dir, uint64_t probes)
{
	const uint32_t rows = 8;
	const uint64_t row_bits = 131072,
				step = 9000;
	enum
	{
		STEPS = 8
	};
	FILE	   *dat = open_dat(dir, "matrix-fig5.dat",
							   "# n  insert_ns x 5 (emptier first split 2bdbf classic)  query_ns x 5");
	double		ins[STEPS][NKINDS],
				qry[STEPS][NKINDS];

	printf("\n## Figure 5: time as n grows (r = 8 rows of 131072 bits, best of 5)\n\n");
	printf("Insertion ns per value over the last %llu values / query ns per probe at that load:\n\n",
		   (unsigned long long) step);
	md_header("n");
	for (int rep = 0; rep < 5; rep++)
		for (int k = 0; k < NKINDS; k++)
		{
			Filter		f = filter_new(k, rows, row_bits);

			for (int i = 0; i < STEPS; i++)
			{
				double		i_ns,
							q_ns;

				timed(&f, i * step, (i + 1) * step, probes, &i_ns, &q_ns);
				ins[i][k] = rep == 0 ? i_ns : fmin(ins[i][k], i_ns);
				qry[i][k] = rep == 0 ? q_ns : fmin(qry[i][k], q_ns);
			}
			filter_free(&f);
		}
	for (int i = 0; i < STEPS; i++)
	{
		fprintf(dat, "%llu", (unsigned long long) ((i + 1) * step));
		printf("| %llu |", (unsigned long long) ((i + 1) * step));
		for (int k = 0; k < NKINDS; k++)
		{
			fprintf(dat, " %.1f", ins[i][k]);
			printf(" %.0f / %.0f |", ins[i][k], qry[i][k]);
		}
		for (int k = 0; k < NKINDS; k++)
			fprintf(dat, " %.1f", qry[i][k]);
		fprintf(dat, "\n");
		printf("\n");
	}
	fclose(dat);
}

/* Figure 6: false-positive rate as values are inserted, r = 8. */
static void
figure6(const char *dir, uint64_t probes)
{
	const uint32_t rows = 8;
	const uint64_t row_bits = 131072;
	FILE	   *dat = open_dat(dir, "matrix-fig6.dat",
							   "# n  fpp x 5 (emptier first split 2bdbf classic)");
	Filter		f[NKINDS];
	uint64_t	done = 0;

	printf("\n## Figure 6: false-positive rate as values are inserted (r = 8 rows of 131072 bits)\n\n");
	md_header("n");
	for (int k = 0; k < NKINDS; k++)
		f[k] = filter_new(k, rows, row_bits);
	for (uint64_t n = 5000; n <= 120000; n += 5000)
	{
		bool		show = n % 20000 == 0 || n == 72000 || n == 82000;

		fprintf(dat, "%llu", (unsigned long long) n);
		if (show)
			printf("| %llu |", (unsigned long long) n);
		for (int k = 0; k < NKINDS; k++)
		{
			double		p;

			for (uint64_t v = done; v < n; v++)
				filter_insert(&f[k], value(v));
			p = filter_fpp(&f[k], probes);
			fprintf(dat, " %.3e", p);
			if (show)
				printf(" %.2e |", p);
		}
		done = n;
		fprintf(dat, "\n");
		if (show)
			printf("\n");
		fflush(stdout);
	}
	for (int k = 0; k < NKINDS; k++)
		filter_free(&f[k]);
	fclose(dat);
}

int
main(int argc, char **argv)
{
	uint64_t	probes;

	if (argc < 2)
	{
		fprintf(stderr, "usage: %s OUTDIR [probes]\n", argv[0]);
		return 2;
	}
	probes = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
	printf("k = 10; values are random 64-bit hashes; %llu probes per rate or time.\n",
		   (unsigned long long) probes);
	figure3(argv[1]);
	figure4(argv[1], probes);
	figure5(argv[1], probes);
	figure6(argv[1], probes);
	return 0;
}
