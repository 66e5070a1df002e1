/*
 * filter.c
 *	  A Bloom filter of any layout: see filter.h.  Everything that depends on
 *	  the layout goes through the table below, one row per value of the
 *	  layout byte: the three bit arrays (layout_classic.h, layout_blocked.h,
 *	  layout_matrix.h) and the explicit list of a small data-sized filter
 *	  (layout_explicit.h).  What all bit arrays do alike (probing in
 *	  prefetched batches, counting bits, bulk insertion) is written here
 *	  once and named in their rows; the set operations pick their rules by
 *	  how the two filters hold their values (pair_rules), and leave what a
 *	  layout adds to them (the matrix's tie rule, its counters) to its row.
 */
#include "filter.h"

#include "layout_blocked.h"
#include "layout_classic.h"
#include "layout_explicit.h"
#include "layout_matrix.h"

#include <string.h>

/*
 * How a layout holds its values: as bits at positions derived from their
 * hashes, or as the list of the hashes themselves.  It decides the shape
 * rules a layout shares with others and the rules two filters combine by.
 */
typedef enum Holding
{
	HOLDS_BITS,
	HOLDS_HASHES,
	NUM_HOLDINGS
} Holding;

/* What a layout does, one row of the table per layout byte. */
typedef struct LayoutOps
{
	const char *name;
	Holding		holds;
	bool		has_rows;		/* uses the shape's rows and locators */
	bool		folds;			/* bf_fold applies: runs of bits OR onto one */
	/* shapes: sizing for a capacity and rate (NULL: sized by its values) */
	bool		(*shape_for) (double capacity, double fpp, BloomShape *shape, char *errbuf);
	bool		(*shape_check) (const BloomShape *shape, char *errbuf); /* its own rules */
	void		(*describe) (const BloomShape *shape, char *buf, size_t len);
	/* a value by its derived words (h from bf_hash_derive); insert counts it */
	bool		(*insert) (BloomFilter *f, BloomHash h);
	bool		(*query) (const BloomFilter *f, BloomHash h);
	void		(*prefetch) (const BloomFilter *f, BloomHash h);
	void		(*insert_batch) (BloomFilter *f, const BloomHash *h, int n);
	/* a value by its hash */
	bool		(*contains_value) (const BloomFilter *f, uint64_t value_hash);
	int			(*probe_batch) (const BloomFilter *f, const uint64_t *hashes, int n,
								bool *found);
	void		(*collect) (BfBuilder *b, uint64_t value_hash);
	bool		(*is_empty) (const BloomFilter *f);
	/*
	 * set operations: the layout's own rule for a pair it is in (a and b in
	 * the caller's order), and what it derives from the bits, brought up to
	 * date after they were ORed or ANDed
	 */
	bool		(*combinable) (const BloomFilter *a, const BloomFilter *b, char *errbuf);
	void		(*after_union) (BloomFilter *dst, const BloomFilter *src);
	void		(*after_intersect) (BloomFilter *dst);
	/* statistics */
	uint64_t	(*bits_set) (const BloomFilter *f);
	double		(*estimate_count) (const BloomFilter *f);
	double		(*estimate_fpp) (const BloomFilter *f);
} LayoutOps;

/* Rows of the table: every value of the layout byte a filter may carry. */
#define NUM_ROWS	(BLOOM_LAYOUT_EXPLICIT + 1)

/* The entries of a row that filter.c writes once for several layouts. */
static void describe_bits(const BloomShape *s, char *buf, size_t len);
static void describe_rows(const BloomShape *s, char *buf, size_t len);
static void describe_list(const BloomShape *s, char *buf, size_t len);
static void insert_each(BloomFilter *f, const BloomHash *h, int n);
static void insert_classic_batch(BloomFilter *f, const BloomHash *h, int n);
static int	probe_bits(const BloomFilter *f, const uint64_t *hashes, int n, bool *found);
static void collect_bits(BfBuilder *b, uint64_t value_hash);
static void collect_hash(BfBuilder *b, uint64_t value_hash);
static bool no_bit_set(const BloomFilter *f);
static bool any_pair(const BloomFilter *a, const BloomFilter *b, char *errbuf);
static void nothing_after_union(BloomFilter *dst, const BloomFilter *src);
static void nothing_after_intersect(BloomFilter *dst);
static uint64_t count_bits(const BloomFilter *f);

/* The operations every layout_*.h offers under parallel names. */
#define LAYOUT_ENTRIES(prefix) \
	.shape_check = prefix##_shape_check, .insert = prefix##_insert, \
	.query = prefix##_query, .prefetch = prefix##_prefetch, \
	.contains_value = prefix##_contains_value, \
	.estimate_count = prefix##_estimate_count, .estimate_fpp = prefix##_estimate_fpp

/* What every bit array does alike. */
#define BIT_ARRAY_ENTRIES \
	.holds = HOLDS_BITS, .probe_batch = probe_bits, .collect = collect_bits, \
	.is_empty = no_bit_set, .bits_set = count_bits

/* A layout that adds nothing of its own to the set operations. */
#define NOTHING_DERIVED \
	.combinable = any_pair, .after_union = nothing_after_union, \
	.after_intersect = nothing_after_intersect

/* Indexed by BLOOM_LAYOUT_*: the stored layout byte. */
static const LayoutOps layouts[NUM_ROWS] = {
	[BLOOM_LAYOUT_CLASSIC] = {
		.name = "classic", LAYOUT_ENTRIES(bf_classic), BIT_ARRAY_ENTRIES,
		NOTHING_DERIVED, .shape_for = bf_classic_shape_for, .describe = describe_bits,
		.insert_batch = insert_classic_batch, .folds = true,
	},
	[BLOOM_LAYOUT_BLOCKED] = {
		.name = "blocked", LAYOUT_ENTRIES(bf_blocked), BIT_ARRAY_ENTRIES,
		NOTHING_DERIVED, .shape_for = bf_blocked_shape_for, .describe = describe_bits,
		.insert_batch = insert_each,
	},
	[BLOOM_LAYOUT_MATRIX] = {
		.name = "matrix", LAYOUT_ENTRIES(bf_matrix), BIT_ARRAY_ENTRIES,
		.combinable = bf_matrix_combinable, .after_union = bf_matrix_after_union,
		.after_intersect = bf_matrix_after_intersect,
		.shape_for = bf_matrix_shape_for, .has_rows = true, .describe = describe_rows,
		.insert_batch = insert_each,
	},
	/* a list: sized by its values, and its entries of derived words leave it alone */
	[BLOOM_LAYOUT_EXPLICIT] = {
		.name = "explicit", LAYOUT_ENTRIES(bf_explicit), .holds = HOLDS_HASHES,
		NOTHING_DERIVED, .shape_for = NULL, .describe = describe_list,
		.insert_batch = insert_each, .probe_batch = bf_explicit_probe_batch,
		.collect = collect_hash, .is_empty = bf_explicit_is_empty,
		.bits_set = bf_explicit_bits_set,
	},
};

/* The row of a checked filter (its layout byte is in range). */
static inline const LayoutOps *
ops_of(const BloomFilter *f)
{
	return &layouts[f->layout];
}

const char *
bf_layout_name(int layout)
{
	if (layout < 0 || layout >= NUM_ROWS)
		return "unknown";
	return layouts[layout].name;
}

/* Only the layouts a filter can be sized in: "explicit" is not one. */
int
bf_layout_from_name(const char *name)
{
	for (int i = 0; i < NUM_ROWS; i++)
		if (layouts[i].shape_for != NULL && strcmp(name, layouts[i].name) == 0)
			return i;
	return -1;
}

/* ---------------------------------------------------------------------
 * Shapes
 * --------------------------------------------------------------------- */

/* The rules every bit array's shape follows, before its layout's own. */
static bool
bits_shape_rules(const BloomShape *s, char *errbuf)
{
	if (s->nbits < 1 || s->nbits > BLOOM_MAX_NBITS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of bits must be between 1 and %llu, not %llu",
				 (unsigned long long) BLOOM_MAX_NBITS,
				 (unsigned long long) s->nbits);
		return false;
	}
	if (s->nhashes < 1 || s->nhashes > BLOOM_MAX_NHASHES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of hash functions must be between 1 and %d, not %u",
				 BLOOM_MAX_NHASHES, (unsigned) s->nhashes);
		return false;
	}
	return true;
}

/* A list's rules are its layout's alone. */
static bool
no_shared_rules(const BloomShape *s, char *errbuf)
{
	(void) s;
	(void) errbuf;
	return true;
}

static bool (*const shared_shape_rules[NUM_HOLDINGS]) (const BloomShape *s, char *errbuf) = {
	[HOLDS_BITS] = bits_shape_rules,
	[HOLDS_HASHES] = no_shared_rules,
};

bool
bf_shape_check(const BloomShape *s, char *errbuf)
{
	const LayoutOps *ops;

	if (s->layout >= NUM_ROWS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "unknown layout %u", (unsigned) s->layout);
		return false;
	}
	ops = &layouts[s->layout];
	if (!shared_shape_rules[ops->holds](s, errbuf) || !ops->shape_check(s, errbuf))
		return false;
	if (!ops->has_rows && (s->rows != 0 || s->locators != 0))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "rows and locators must be 0 for layout \"%s\"",
				 bf_layout_name(s->layout));
		return false;
	}
	return true;
}

bool
bf_shape_for(double capacity, double fpp, int layout, BloomShape *s, char *errbuf)
{
	if (isnan(capacity) || capacity < 1)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "capacity must be at least 1, not %g", capacity);
		return false;
	}
	if (isnan(fpp) || !(fpp > 0.0 && fpp < 1.0))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "false-positive probability must be between 0 and 1 (exclusive), not %g", fpp);
		return false;
	}
	if (layout < 0 || layout >= NUM_ROWS || layouts[layout].shape_for == NULL)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "layout \"%s\" cannot be sized from a capacity by this version",
				 bf_layout_name(layout));
		return false;
	}
	return layouts[layout].shape_for(capacity, fpp, s, errbuf);
}

bool
bf_shape_datasized(double ndistinct, BloomShape *s, char *errbuf)
{
	const double k = BLOOM_AUTO_NHASHES;
	/* bits per value at which (1 - e^(-k n/m))^k equals the target rate */
	double		bits_per_value = -k / log1p(-pow(BLOOM_AUTO_FPP, 1.0 / k));
	double		words;
	uint64_t	nwords = 1;

	if (isnan(ndistinct) || ndistinct < 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "number of distinct values must not be negative, not %g", ndistinct);
		return false;
	}
	words = ceil(ceil(ndistinct * bits_per_value) / 64.0);
	while ((double) nwords < words && nwords <= BLOOM_MAX_WORDS / 2)
		nwords *= 2;
	if ((double) nwords < words)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a filter for %.15g distinct values at false-positive probability %g needs more than the largest power-of-two size that fits in 1 GB (%llu bits)",
				 ndistinct, BLOOM_AUTO_FPP, (unsigned long long) nwords * 64);
		return false;
	}
	memset(s, 0, sizeof(*s));
	s->layout = BLOOM_LAYOUT_CLASSIC;
	s->nbits = nwords * 64;
	s->nhashes = BLOOM_AUTO_NHASHES;
	return true;
}

bool
bf_shape_collected(double ndistinct, uint64_t seed, BloomShape *s, char *errbuf)
{
	if (ndistinct >= 0 && ndistinct <= BLOOM_EXPLICIT_MAX)
	{
		bf_explicit_shape((uint64_t) ndistinct, seed, s);
		return true;
	}
	if (!bf_shape_datasized(ndistinct, s, errbuf))
		return false;
	s->seed = seed;
	return true;
}

void
bf_init(BloomFilter *f, const BloomShape *s)
{
	f->version = BLOOM_FORMAT_VERSION;
	f->layout = s->layout;
	f->hash_scheme = BLOOM_HASH_SCHEME_NEWEST;
	f->flags = 0;
	f->nbits = s->nbits;
	f->seed = s->seed;
	f->inserted = 0;
	f->nhashes = s->nhashes;
	f->rows = s->rows;
	f->locators = s->locators;
	f->reserved1 = 0;
	f->full_at = BLOOM_NEVER_FULL;
	f->reserved2 = 0;
}

uint64_t
bf_filter_bytes(const BloomFilter *f)
{
	BloomShape	shape;

	bf_get_shape(f, &shape);
	return bf_shape_bytes(&shape);
}

void
bf_get_shape(const BloomFilter *f, BloomShape *s)
{
	memset(s, 0, sizeof(*s));
	s->layout = f->layout;
	s->nbits = f->nbits;
	s->nhashes = f->nhashes;
	s->seed = f->seed;
	s->rows = f->rows;
	s->locators = f->locators;
}


void
bf_shape_describe(const BloomShape *s, char *buf, size_t len)
{
	if (s->layout >= NUM_ROWS)
		describe_bits(s, buf, len);		/* "unknown, ..." */
	else
		layouts[s->layout].describe(s, buf, len);
}

static void
describe_bits(const BloomShape *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s, %llu bits, %u hashes, seed %llu",
			 bf_layout_name(s->layout), (unsigned long long) s->nbits,
			 (unsigned) s->nhashes, (unsigned long long) s->seed);
}

static void
describe_rows(const BloomShape *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s, %u rows x %llu bits, %u hashes, %u locators, seed %llu",
			 bf_layout_name(s->layout), (unsigned) s->rows,
			 (unsigned long long) (s->rows ? s->nbits / s->rows : 0),
			 (unsigned) s->nhashes, (unsigned) s->locators,
			 (unsigned long long) s->seed);
}

static void
describe_list(const BloomShape *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s, %llu values, seed %llu", bf_layout_name(s->layout),
			 (unsigned long long) (s->nbits / 64), (unsigned long long) s->seed);
}

/* ---------------------------------------------------------------------
 * Insertion and lookup
 * --------------------------------------------------------------------- */

bool
bf_insert(BloomFilter *f, BloomHash h)
{
	return ops_of(f)->insert(f, h);
}

bool
bf_query(const BloomFilter *f, BloomHash h)
{
	return ops_of(f)->query(f, h);
}

void
bf_prefetch(const BloomFilter *f, BloomHash h)
{
	ops_of(f)->prefetch(f, h);
}

bool
bf_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	return ops_of(f)->contains_value(f, value_hash);
}

int
bf_probe_batch(const BloomFilter *f, const uint64_t *hashes, int n, bool *found)
{
	return ops_of(f)->probe_batch(f, hashes, n, found);
}

bool
bf_is_empty(const BloomFilter *f)
{
	return ops_of(f)->is_empty(f);
}

/*
 * Bit arrays up to this size are probed without prefetching: they stay in
 * the L2 cache of current CPUs (256 kB to 2 MB), whose latency the CPU
 * overlaps on its own, and the prefetch pass would only add work (for the
 * classic layout, every position computed twice).  Measured in
 * doc/performance.md.
 */
#define BF_PROBE_PREFETCH_MIN_BYTES	(512 * 1024)

/* One batch of at most BF_PROBE_BATCH values of a bit array. */
static int
probe_bits_batch(const BloomFilter *f, const uint64_t *hashes, int n, bool *found)
{
	const LayoutOps *ops = ops_of(f);
	BloomHash	h[BF_PROBE_BATCH];
	int			nfound = 0;

	for (int i = 0; i < n; i++)
		h[i] = bf_hash_derive(hashes[i]);
	if (bf_nwords(f) * 8 >= BF_PROBE_PREFETCH_MIN_BYTES)
		for (int i = 0; i < n; i++)
			ops->prefetch(f, h[i]);
	for (int i = 0; i < n; i++)
	{
		found[i] = ops->query(f, h[i]);
		nfound += found[i];
	}
	return nfound;
}

/* The probes of a bit array, in batches whose lines are loaded first. */
static int
probe_bits(const BloomFilter *f, const uint64_t *hashes, int n, bool *found)
{
	int			nfound = 0;

	for (int start = 0; start < n; start += BF_PROBE_BATCH)
	{
		int			len = n - start < BF_PROBE_BATCH ? n - start : BF_PROBE_BATCH;

		nfound += probe_bits_batch(f, hashes + start, len, found + start);
	}
	return nfound;
}

static bool
no_bit_set(const BloomFilter *f)
{
	uint64_t	n = bf_nwords(f);

	for (uint64_t i = 0; i < n; i++)
		if (f->words[i] != 0)
			return false;
	return true;
}

void
bf_builder_start(BfBuilder *b, BloomFilter *f)
{
	b->f = f;
	b->listed = 0;
	bf_inserter_init(&b->inserter);
}

void
bf_builder_add(BfBuilder *b, uint64_t value_hash)
{
	ops_of(b->f)->collect(b, value_hash);
}

void
bf_builder_finish(BfBuilder *b)
{
	bf_inserter_flush(&b->inserter, b->f);
}

/* A bit array inserts the value, through the prefetching inserter. */
static void
collect_bits(BfBuilder *b, uint64_t value_hash)
{
	bf_inserter_add(&b->inserter, b->f, bf_hash_derive(value_hash));
}

/* A list takes the hash as it comes, up to the count it was shaped for. */
static void
collect_hash(BfBuilder *b, uint64_t value_hash)
{
	if (b->listed < bf_explicit_count(b->f))
		b->f->words[b->listed++] = value_hash;
}

void
bf_inserter_init(BfInserter *ins)
{
	ins->npending = 0;
}

void
bf_inserter_flush(BfInserter *ins, BloomFilter *f)
{
	ops_of(f)->insert_batch(f, ins->pending, ins->npending);
	bf_inserter_init(ins);
}

/* Every line the values touch prefetched, then the values inserted in order. */
static void
insert_each(BloomFilter *f, const BloomHash *h, int n)
{
	const LayoutOps *ops = ops_of(f);

	for (int i = 0; i < n; i++)
		ops->prefetch(f, h[i]);
	for (int i = 0; i < n; i++)
		ops->insert(f, h[i]);
}

/*
 * Most positions per value the classic batch keeps (on the stack, 4 kB for
 * a full batch); a filter with more hash functions inserts each value.
 */
#define CLASSIC_BATCH_MAX_HASHES	16

/*
 * A batch of classic values: the positions (bf_probe_next over the whole
 * filter, as bf_classic_insert draws them) computed once, every line
 * prefetched, then the bits set in the order of the values.
 */
static void
insert_classic_batch(BloomFilter *f, const BloomHash *h, int n)
{
	uint64_t	pos[BF_INSERTER_BATCH][CLASSIC_BATCH_MAX_HASHES];
	uint32_t	k = f->nhashes;

	if (k > CLASSIC_BATCH_MAX_HASHES)
	{
		insert_each(f, h, n);
		return;
	}
	for (int i = 0; i < n; i++)
	{
		BfProbe		p = bf_probe_start(h[i], f->hash_scheme);

		for (uint32_t j = 0; j < k; j++)
		{
			pos[i][j] = bf_probe_next(&p, f->nbits);
			bf_prefetch_line(&f->words[pos[i][j] >> 6]);
		}
	}
	for (int i = 0; i < n; i++)
	{
		for (uint32_t j = 0; j < k; j++)
			bf_set_bit(f->words, pos[i][j]);
		bf_count_insert(f);
	}
}

/* ---------------------------------------------------------------------
 * Set operations
 * --------------------------------------------------------------------- */

static bool
shapes_equal(const BloomShape *a, const BloomShape *b)
{
	return a->layout == b->layout && a->nbits == b->nbits &&
		a->nhashes == b->nhashes && a->seed == b->seed &&
		a->rows == b->rows && a->locators == b->locators;
}

static bool
any_pair(const BloomFilter *a, const BloomFilter *b, char *errbuf)
{
	(void) a;
	(void) b;
	(void) errbuf;
	return true;
}

static void
nothing_after_union(BloomFilter *dst, const BloomFilter *src)
{
	(void) dst;
	(void) src;
}

static void
nothing_after_intersect(BloomFilter *dst)
{
	(void) dst;
}

/*
 * True if the layouts of a and b both take the pair (the matrix: one tie
 * rule); else false with the message of the first that does not.
 */
static bool
layouts_combinable(const BloomFilter *a, const BloomFilter *b, char *errbuf)
{
	return ops_of(a)->combinable(a, b, errbuf) && ops_of(b)->combinable(a, b, errbuf);
}

/*
 * Two bit arrays that OR and AND: one hash scheme, the rules of both
 * layouts, and equal shapes or foldable sizes.
 */
static bool
bits_combine(const BloomFilter *a, const BloomFilter *b)
{
	char		why_not[BLOOM_ERRBUF_SIZE];
	BloomShape	sa,
				sb;

	if (a->hash_scheme != b->hash_scheme || !layouts_combinable(a, b, why_not))
		return false;
	bf_get_shape(a, &sa);
	bf_get_shape(b, &sb);
	return shapes_equal(&sa, &sb) || bf_foldable(a, b);
}

/* An empty data-sized filter: the identity of union whatever its size. */
static bool
empty_datasized(const BloomFilter *f)
{
	return bf_is_datasized(f) && bf_is_empty(f);
}

/*
 * Both data-sized, of one seed: then a list (value hashes, not positions)
 * or an empty filter (it holds nothing) combines with the other whatever
 * their sizes and position schemes, as long as their value hashes agree
 * (same_value_hashes).
 */
static bool
datasized_pair(const BloomFilter *a, const BloomFilter *b)
{
	return bf_is_datasized(a) && bf_is_datasized(b) && a->seed == b->seed;
}

/*
 * Filters whose value hashes agree: both of schemes 1 and 2 (the type's
 * extended hash), or both of scheme 3 (the wide hash), so that the lists
 * and bits of one mean the same values in the other.  Empty filters too,
 * so that a set operation never depends on whether an operand happens to
 * be empty (nor an aggregate on the order of its rows).
 */
static bool
same_value_hashes(const BloomFilter *a, const BloomFilter *b)
{
	return bf_scheme_wide(a->hash_scheme) == bf_scheme_wide(b->hash_scheme);
}

/* The message of two shapes that do not combine, naming both; false. */
static bool
shape_error(const BloomFilter *a, const BloomFilter *b, char *errbuf)
{
	BloomShape	sa,
				sb;
	char		da[160],
				db[160];

	bf_get_shape(a, &sa);
	bf_get_shape(b, &sb);
	bf_shape_describe(&sa, da, sizeof(da));
	bf_shape_describe(&sb, db, sizeof(db));
	snprintf(errbuf, BLOOM_ERRBUF_SIZE,
			 "first filter is (%s), second is (%s)", da, db);
	return false;
}

/*
 * Two bit arrays combine as bits_combine says, or when both are data-sized
 * of one seed and one of them is empty; else the message names the first
 * obstacle: the hash schemes, a layout's own rule, or the shapes.
 */
static bool
bits_compatible(const BloomFilter *a, const BloomFilter *b, char *errbuf)
{
	if (bits_combine(a, b) ||
		(datasized_pair(a, b) && (bf_is_empty(a) || bf_is_empty(b))))
		return true;
	if (a->hash_scheme != b->hash_scheme)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "first filter uses hash scheme %u, second hash scheme %u: the same value has different positions under each",
				 (unsigned) a->hash_scheme, (unsigned) b->hash_scheme);
		return false;
	}
	if (!layouts_combinable(a, b, errbuf))
		return false;
	return shape_error(a, b, errbuf);
}

/* A list and another filter: both data-sized, of one seed. */
static bool
list_compatible(const BloomFilter *a, const BloomFilter *b, char *errbuf)
{
	return datasized_pair(a, b) || shape_error(a, b, errbuf);
}

/*
 * Of two empty filters that do not fold, the result of either operation:
 * the smaller, then by the other shape fields, so that a | b and b | a
 * give the same filter.
 */
static bool
prefer_b_of_empties(const BloomFilter *a, const BloomFilter *b)
{
	const uint64_t ka[] = {a->nbits, a->layout, a->nhashes, a->hash_scheme, a->rows, a->locators};
	const uint64_t kb[] = {b->nbits, b->layout, b->nhashes, b->hash_scheme, b->rows, b->locators};

	for (size_t i = 0; i < sizeof(ka) / sizeof(ka[0]); i++)
		if (ka[i] != kb[i])
			return kb[i] < ka[i];
	return false;
}

/* Two bit arrays: OR / AND onto the smaller, or an empty one's identity. */
static bool
plan_bits(const BloomFilter *a, const BloomFilter *b, BfSetop *op, char *errbuf)
{
	bool		za = empty_datasized(a),
				zb = empty_datasized(b);

	(void) errbuf;
	if (!op->intersect && za != zb)
	{
		op->kind = BF_SETOP_IDENTITY;
		op->base_is_b = za;
	}
	else if (bits_combine(a, b))
	{
		op->kind = BF_SETOP_BITS;
		op->base_is_b = b->nbits < a->nbits;
	}
	else
	{
		/* sizes that do not fold, compatible because one is empty */
		op->kind = BF_SETOP_IDENTITY;
		op->base_is_b = za && zb ? prefer_b_of_empties(a, b) : zb;
	}
	return true;
}

/* list & other: the listed hashes other may hold, a list itself. */
static void
plan_filtered_list(const BloomFilter *list, const BloomFilter *other, bool list_is_b,
				   BfSetop *op)
{
	op->kind = BF_SETOP_FILTER_LIST;
	op->base_is_b = list_is_b;
	for (uint64_t i = 0; i < bf_explicit_count(list); i++)
		op->count += bf_contains_value(other, list->words[i]);
	bf_explicit_shape(op->count, list->seed, &op->shape);
}

/* A list and a bit array, the list a or (list_is_b) b. */
static void
plan_list_and_bits(const BloomFilter *list, const BloomFilter *bits, bool list_is_b,
				   BfSetop *op)
{
	bool		keep_list;

	if (op->intersect)
	{
		plan_filtered_list(list, bits, list_is_b, op);
		return;
	}
	/* an empty bit array is the identity: the list stays a list */
	keep_list = bf_is_empty(bits);
	op->kind = keep_list ? BF_SETOP_IDENTITY : BF_SETOP_LIST_INTO_BITS;
	op->base_is_b = keep_list == list_is_b;
}

static bool
plan_list_bits(const BloomFilter *a, const BloomFilter *b, BfSetop *op, char *errbuf)
{
	(void) errbuf;
	plan_list_and_bits(a, b, false, op);
	return true;
}

static bool
plan_bits_list(const BloomFilter *a, const BloomFilter *b, BfSetop *op, char *errbuf)
{
	(void) errbuf;
	plan_list_and_bits(b, a, true, op);
	return true;
}

/* Two lists.  False only when the merged list is too large to size. */
static bool
plan_lists(const BloomFilter *a, const BloomFilter *b, BfSetop *op, char *errbuf)
{
	if (op->intersect)
	{
		plan_filtered_list(a, b, false, op);
		return true;
	}
	op->kind = BF_SETOP_MERGE_LISTS;
	op->count = bf_explicit_merge(a->words, bf_explicit_count(a),
								  b->words, bf_explicit_count(b), NULL);
	return bf_shape_collected((double) op->count, a->seed, &op->shape, errbuf);
}

/* The rules of a pair of filters, by how each holds its values. */
typedef struct PairRules
{
	/* true if a and b combine (their value hashes agree), else why not */
	bool		(*compatible) (const BloomFilter *a, const BloomFilter *b, char *errbuf);
	/* the plan of a compatible pair: op zeroed, op->intersect set */
	bool		(*plan) (const BloomFilter *a, const BloomFilter *b, BfSetop *op,
						 char *errbuf);
} PairRules;

static const PairRules pair_rules[NUM_HOLDINGS][NUM_HOLDINGS] = {
	[HOLDS_BITS][HOLDS_BITS] = {bits_compatible, plan_bits},
	[HOLDS_BITS][HOLDS_HASHES] = {list_compatible, plan_bits_list},
	[HOLDS_HASHES][HOLDS_BITS] = {list_compatible, plan_list_bits},
	[HOLDS_HASHES][HOLDS_HASHES] = {list_compatible, plan_lists},
};

static const PairRules *
rules_of(const BloomFilter *a, const BloomFilter *b)
{
	return &pair_rules[ops_of(a)->holds][ops_of(b)->holds];
}

bool
bf_compatible(const BloomFilter *a, const BloomFilter *b, char *errbuf)
{
	if (!same_value_hashes(a, b))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "first filter uses hash scheme %u, second hash scheme %u: some values have different hashes under each",
				 (unsigned) a->hash_scheme, (unsigned) b->hash_scheme);
		return false;
	}
	return rules_of(a, b)->compatible(a, b, errbuf);
}

bool
bf_setop_plan(const BloomFilter *a, const BloomFilter *b, bool intersect,
			  BfSetop *op, char *errbuf)
{
	if (!bf_compatible(a, b, errbuf))
		return false;
	memset(op, 0, sizeof(*op));
	op->intersect = intersect;
	if (!rules_of(a, b)->plan(a, b, op, errbuf))
		return false;
	/* the result of the other kinds is its base's shape */
	if (op->kind != BF_SETOP_MERGE_LISTS && op->kind != BF_SETOP_FILTER_LIST)
		bf_get_shape(op->base_is_b ? b : a, &op->shape);
	op->bytes = bf_shape_bytes(&op->shape);
	return true;
}

bool
bf_setop_in_place(const BfSetop *op)
{
	return !op->base_is_b &&
		(op->kind == BF_SETOP_BITS || op->kind == BF_SETOP_IDENTITY ||
		 op->kind == BF_SETOP_LIST_INTO_BITS);
}

/* dst = src (header, words, matrix counters), the length word left alone. */
static void
copy_filter(BloomFilter *dst, const BloomFilter *src)
{
	size_t		head = offsetof(BloomFilter, version);

	if (dst != src)
		memcpy((char *) dst + head, (const char *) src + head,
			   (size_t) bf_filter_bytes(src) - head);
}

/* The insert count of a result built from a and b. */
static uint64_t
combined_inserted(const BloomFilter *a, const BloomFilter *b, bool intersect)
{
	if (intersect)
		return a->inserted < b->inserted ? a->inserted : b->inserted;
	return bf_add_saturating(a->inserted, b->inserted);
}

/*
 * The scheme of a new filter holding the hashes of two lists (of one kind
 * of value hash): the newest that hashes values as they do.  Lists of
 * schemes 1 and 2 hold the same hashes, and what they become is scheme 2
 * as before.
 */
static uint8_t
merged_scheme(const BloomFilter *a)
{
	return bf_scheme_for_values_of(a->hash_scheme);
}

void
bf_setop_build(BloomFilter *dst, const BloomFilter *a, const BloomFilter *b,
			   const BfSetop *op)
{
	const BloomFilter *base = op->base_is_b ? b : a;
	const BloomFilter *other = op->base_is_b ? a : b;
	/* taken first: dst may be a, and inserting counts */
	uint64_t	inserted = combined_inserted(a, b, op->intersect);
	uint8_t		flags = a->flags & b->flags;
	uint64_t	count = 0;
	BfBuilder	builder;
	BfListMerge merge;
	uint64_t	h;

	switch (op->kind)
	{
		case BF_SETOP_BITS:
			copy_filter(dst, base);
			if (op->intersect)
				bf_intersect_into(dst, other);
			else
				bf_union_into(dst, other);
			return;
		case BF_SETOP_IDENTITY:
			copy_filter(dst, base);
			/* as bf_intersect_into: an intersection met no full rows of its own */
			if (op->intersect)
				ops_of(dst)->after_intersect(dst);
			break;
		case BF_SETOP_LIST_INTO_BITS:
			copy_filter(dst, base);
			bf_builder_start(&builder, dst);
			for (uint64_t i = 0; i < bf_explicit_count(other); i++)
				bf_builder_add(&builder, other->words[i]);
			bf_builder_finish(&builder);
			break;
		case BF_SETOP_MERGE_LISTS:
			bf_init(dst, &op->shape);
			dst->hash_scheme = merged_scheme(a);
			bf_builder_start(&builder, dst);
			merge = bf_list_merge_start(a->words, bf_explicit_count(a),
										b->words, bf_explicit_count(b));
			while (bf_list_merge_next(&merge, &h))
				bf_builder_add(&builder, h);
			bf_builder_finish(&builder);
			break;
		case BF_SETOP_FILTER_LIST:
			bf_init(dst, &op->shape);
			dst->hash_scheme = merged_scheme(base);
			for (uint64_t i = 0; i < bf_explicit_count(base) && count < op->count; i++)
				if (bf_contains_value(other, base->words[i]))
					dst->words[count++] = base->words[i];
			break;
	}
	dst->inserted = inserted;
	dst->flags = flags;
}

/*
 * Gathers bits 0, 2, 4, ..., 62 of x into the low 32 bits (the classic
 * "compress" by masks and shifts, one halving step at a time).
 */
static inline uint64_t
compress_even_bits(uint64_t x)
{
	x &= UINT64_C(0x5555555555555555);
	x = (x | (x >> 1)) & UINT64_C(0x3333333333333333);
	x = (x | (x >> 2)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	x = (x | (x >> 4)) & UINT64_C(0x00ff00ff00ff00ff);
	x = (x | (x >> 8)) & UINT64_C(0x0000ffff0000ffff);
	x = (x | (x >> 16)) & UINT64_C(0x00000000ffffffff);
	return x;
}

/* OR of each run of f bits of w (f a power of two <= 64), 64/f bits. */
static inline uint64_t
fold_bits_of_word(uint64_t w, uint64_t f)
{
	for (uint64_t step = 1; step < f; step <<= 1)
		w = compress_even_bits(w | (w >> 1));
	return w;
}

/*
 * Word i of src folded by f (a power of two): its 64 bits come from src
 * words i*f .. i*f+f-1, each output bit the OR of f adjacent input bits.
 */
static uint64_t
folded_word(const uint64_t *src, uint64_t i, uint64_t f)
{
	const uint64_t *p = src + i * f;
	uint64_t	out = 0;

	if (f == 1)
		return p[0];
	if (f < 64)
	{
		uint64_t	per_word = 64 / f;

		for (uint64_t q = 0; q < f; q++)
			out |= fold_bits_of_word(p[q], f) << (q * per_word);
	}
	else
	{
		uint64_t	words_per_bit = f / 64;

		for (unsigned b = 0; b < 64; b++)
		{
			uint64_t	any = 0;

			for (uint64_t j = 0; j < words_per_bit; j++)
				any |= p[b * words_per_bit + j];
			out |= (uint64_t) (any != 0) << b;
		}
	}
	return out;
}

static inline bool
is_power_of_two(uint64_t x)
{
	return x != 0 && (x & (x - 1)) == 0;
}

bool
bf_foldable(const BloomFilter *a, const BloomFilter *b)
{
	return (a->flags & b->flags & BLOOM_FLAG_AUTOSIZED) != 0 &&
		a->layout == b->layout && ops_of(a)->folds &&
		a->hash_scheme == b->hash_scheme &&
		a->nhashes == b->nhashes && a->seed == b->seed &&
		a->rows == 0 && b->rows == 0 && a->locators == 0 && b->locators == 0 &&
		a->nbits % 64 == 0 && b->nbits % 64 == 0 &&
		is_power_of_two(a->nbits / 64) && is_power_of_two(b->nbits / 64);
}

void
bf_fold(const BloomFilter *src, BloomFilter *dst)
{
	uint64_t	n = bf_nwords(dst);
	uint64_t	f = bf_nwords(src) / n;

	for (uint64_t i = 0; i < n; i++)
		dst->words[i] = folded_word(src->words, i, f);
	dst->hash_scheme = src->hash_scheme;
	dst->inserted = src->inserted;
	dst->flags = src->flags;
}

void
bf_union_into(BloomFilter *dst, const BloomFilter *src)
{
	uint64_t	n = bf_nwords(dst);

	if (src->nbits == dst->nbits)
	{
		for (uint64_t i = 0; i < n; i++)
			dst->words[i] |= src->words[i];
	}
	else
	{
		uint64_t	f = bf_nwords(src) / n;

		for (uint64_t i = 0; i < n; i++)
			dst->words[i] |= folded_word(src->words, i, f);
	}
	dst->inserted = bf_add_saturating(dst->inserted, src->inserted);
	dst->flags &= src->flags;
	ops_of(dst)->after_union(dst, src);
}

void
bf_intersect_into(BloomFilter *dst, const BloomFilter *src)
{
	uint64_t	n = bf_nwords(dst);

	if (src->nbits == dst->nbits)
	{
		for (uint64_t i = 0; i < n; i++)
			dst->words[i] &= src->words[i];
	}
	else
	{
		uint64_t	f = bf_nwords(src) / n;

		for (uint64_t i = 0; i < n; i++)
			dst->words[i] &= folded_word(src->words, i, f);
	}
	/* at most the smaller of the two sets survives */
	if (src->inserted < dst->inserted)
		dst->inserted = src->inserted;
	dst->flags &= src->flags;
	ops_of(dst)->after_intersect(dst);
}

bool
bf_equal(const BloomFilter *a, const BloomFilter *b)
{
	BloomShape	sa,
				sb;
	char		why_not[BLOOM_ERRBUF_SIZE];

	bf_get_shape(a, &sa);
	bf_get_shape(b, &sb);
	if (!shapes_equal(&sa, &sb) || a->hash_scheme != b->hash_scheme)
		return false;
	if (!layouts_combinable(a, b, why_not))
		return false;
	return memcmp(a->words, b->words, 8 * bf_nwords(a)) == 0;
}

/* ---------------------------------------------------------------------
 * Statistics
 * --------------------------------------------------------------------- */

static uint64_t
count_bits(const BloomFilter *f)
{
	return bf_popcount_words(f->words, bf_nwords(f));
}

uint64_t
bf_bits_set(const BloomFilter *f)
{
	return ops_of(f)->bits_set(f);
}

double
bf_estimate_count(const BloomFilter *f)
{
	return ops_of(f)->estimate_count(f);
}

double
bf_estimate_fpp(const BloomFilter *f)
{
	return ops_of(f)->estimate_fpp(f);
}
