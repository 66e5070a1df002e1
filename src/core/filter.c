/*
 * filter.c
 *	  A Bloom filter of any layout, one filter at a time: see filter.h (the
 *	  set operations are setops.c).  Everything that depends on the layout
 *	  goes through the layout table (layout_table.h), defined here, one row
 *	  per value of the layout byte: the three bit arrays (layout_classic.h,
 *	  layout_blocked.h, layout_matrix.h) and the explicit list of a small
 *	  data-sized filter (layout_explicit.h).  What all bit arrays do alike
 *	  (probing in prefetched batches, counting bits, bulk insertion) is
 *	  written here once and named in their rows.
 */
#include "filter.h"
#include "layout_table.h"

#include "layout_blocked.h"
#include "layout_classic.h"
#include "layout_explicit.h"
#include "layout_guava.h"
#include "layout_matrix.h"
#include "layout_spark.h"
#include "layout_splitblock.h"

#include <string.h>

/* The entries of a row that filter.c writes once for several layouts. */
static void describe_bits(const BloomShape *s, char *buf, size_t len);
static void describe_rows(const BloomShape *s, char *buf, size_t len);
static void describe_list(const BloomShape *s, char *buf, size_t len);
static void describe_interop(const BloomShape *s, char *buf, size_t len);
static void stage_prefetch(const BloomFilter *f, BfStaged *v);
static void commit_insert(BloomFilter *f, const BfStaged *v);
static int	probe_bits(const BloomFilter *f, const uint64_t *hashes, int n, bool *found);
static void collect_bits(BfBuilder *b, uint64_t value_hash);
static void collect_hash(BfBuilder *b, uint64_t value_hash);
static bool no_bit_set(const BloomFilter *f);
static bool any_pair(const BloomFilter *a, const BloomFilter *b, char *errbuf);
static void nothing_after_union(BloomFilter *dst, const BloomFilter *src);
static void nothing_after_intersect(BloomFilter *dst);
static uint64_t count_bits(const BloomFilter *f);
static int	probe_interop(const BloomFilter *f, const uint64_t *hashes, int n, bool *found);

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

/* An interop layout: a bit array probed by the other system's hash. */
#define INTEROP_ENTRIES(prefix) \
	LAYOUT_ENTRIES(prefix), NOTHING_DERIVED, .holds = HOLDS_BITS, \
	.collect = collect_bits, .is_empty = no_bit_set, .bits_set = count_bits, \
	.shape_for = prefix##_shape_for, .describe = describe_interop, \
	.stage = stage_prefetch, .commit = commit_insert, .probe_batch = probe_interop

const LayoutOps bf_layout_table[BF_LAYOUT_ROWS] = {
	[BLOOM_LAYOUT_CLASSIC] = {
		.name = "classic", LAYOUT_ENTRIES(bf_classic), BIT_ARRAY_ENTRIES,
		NOTHING_DERIVED, .shape_for = bf_classic_shape_for, .describe = describe_bits,
		.stage = bf_classic_stage, .commit = bf_classic_commit, .folds = true,
	},
	[BLOOM_LAYOUT_BLOCKED] = {
		.name = "blocked", LAYOUT_ENTRIES(bf_blocked), BIT_ARRAY_ENTRIES,
		NOTHING_DERIVED, .shape_for = bf_blocked_shape_for, .describe = describe_bits,
		.stage = bf_blocked_stage, .commit = bf_blocked_commit,
	},
	[BLOOM_LAYOUT_MATRIX] = {
		.name = "matrix", LAYOUT_ENTRIES(bf_matrix), BIT_ARRAY_ENTRIES,
		.combinable = bf_matrix_combinable, .after_union = bf_matrix_after_union,
		.after_intersect = bf_matrix_after_intersect,
		.shape_for = bf_matrix_shape_for, .has_rows = true, .describe = describe_rows,
		.stage = stage_prefetch, .commit = commit_insert,
	},
	/* a list: sized by its values, and its entries of derived words leave it alone */
	[BLOOM_LAYOUT_EXPLICIT] = {
		.name = "explicit", LAYOUT_ENTRIES(bf_explicit), .holds = HOLDS_HASHES,
		NOTHING_DERIVED, .shape_for = NULL, .describe = describe_list,
		.stage = stage_prefetch, .commit = commit_insert,
		.probe_batch = bf_explicit_probe_batch,
		.collect = collect_hash, .is_empty = bf_explicit_is_empty,
		.bits_set = bf_explicit_bits_set,
	},
	/*
	 * interop bit arrays: their insert and query take the other system's
	 * hash (bf_base.h, BLOOM_HASH_SCHEME_INTEROP), so the entries that take
	 * a stored scheme's value hash never deny; they fold nothing
	 */
	[BLOOM_LAYOUT_PARQUET] = {
		.name = "parquet", INTEROP_ENTRIES(bf_splitblock),
	},
	[BLOOM_LAYOUT_GUAVA] = {
		.name = "guava", INTEROP_ENTRIES(bf_guava),
	},
	[BLOOM_LAYOUT_GUAVA32] = {
		.name = "guava32", INTEROP_ENTRIES(bf_guava32),
	},
	[BLOOM_LAYOUT_SPARK] = {
		.name = "spark", INTEROP_ENTRIES(bf_spark),
	},
	[BLOOM_LAYOUT_SPARK2] = {
		.name = "spark2", INTEROP_ENTRIES(bf_spark2),
	},
};

const char *
bf_layout_name(int layout)
{
	if (layout < 0 || layout >= BF_LAYOUT_ROWS)
		return "unknown";
	return bf_layout_table[layout].name;
}

/* Only the layouts a filter can be sized in: "explicit" is not one. */
int
bf_layout_from_name(const char *name)
{
	for (int i = 0; i < BF_LAYOUT_ROWS; i++)
		if (bf_layout_table[i].shape_for != NULL && strcmp(name, bf_layout_table[i].name) == 0)
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

	if (s->layout >= BF_LAYOUT_ROWS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "unknown layout %u", (unsigned) s->layout);
		return false;
	}
	ops = &bf_layout_table[s->layout];
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
	if (layout < 0 || layout >= BF_LAYOUT_ROWS || bf_layout_table[layout].shape_for == NULL)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "layout \"%s\" cannot be sized from a capacity by this version",
				 bf_layout_name(layout));
		return false;
	}
	return bf_layout_table[layout].shape_for(capacity, fpp, s, errbuf);
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
	f->hash_scheme = bf_layout_interop(s->layout) ? BLOOM_HASH_SCHEME_INTEROP
		: BLOOM_HASH_SCHEME_NEWEST;
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
	if (s->layout >= BF_LAYOUT_ROWS)
		describe_bits(s, buf, len);		/* "unknown, ..." */
	else
		bf_layout_table[s->layout].describe(s, buf, len);
}

/*
 * A layout of bits: its name, size and hashes, then its seed field, which
 * is a seed, or for an interop filter how values are hashed (bf_base.h).
 */
static void
describe_bits_seeded(const BloomShape *s, char *buf, size_t len, bool interop)
{
	char		seed[48];

	snprintf(seed, sizeof(seed), interop ? "value encoding 0x%016llx" : "seed %llu",
			 (unsigned long long) s->seed);
	snprintf(buf, len, "%s, %llu bits, %u hashes, %s",
			 bf_layout_name(s->layout), (unsigned long long) s->nbits,
			 (unsigned) s->nhashes, seed);
}

static void
describe_bits(const BloomShape *s, char *buf, size_t len)
{
	describe_bits_seeded(s, buf, len, false);
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
describe_interop(const BloomShape *s, char *buf, size_t len)
{
	describe_bits_seeded(s, buf, len, true);
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
	return bf_layout_ops(f)->insert(f, h);
}

bool
bf_query(const BloomFilter *f, BloomHash h)
{
	return bf_layout_ops(f)->query(f, h);
}

void
bf_prefetch(const BloomFilter *f, BloomHash h)
{
	bf_layout_ops(f)->prefetch(f, h);
}

bool
bf_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	return bf_layout_ops(f)->contains_value(f, value_hash);
}

int
bf_probe_batch(const BloomFilter *f, const uint64_t *hashes, int n, bool *found)
{
	return bf_layout_ops(f)->probe_batch(f, hashes, n, found);
}

bool
bf_is_empty(const BloomFilter *f)
{
	return bf_layout_ops(f)->is_empty(f);
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
	const LayoutOps *ops = bf_layout_ops(f);
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

/* Stored-scheme value hashes against an interop filter: never deny. */
static int
probe_interop(const BloomFilter *f, const uint64_t *hashes, int n, bool *found)
{
	(void) f;
	(void) hashes;
	for (int i = 0; i < n; i++)
		found[i] = true;
	return n;
}

int
bf_query_batch(const BloomFilter *f, const BloomHash *h, int n, bool *found)
{
	const LayoutOps *ops = bf_layout_ops(f);
	int			nfound = 0;

	for (int start = 0; start < n; start += BF_PROBE_BATCH)
	{
		int			end = n - start < BF_PROBE_BATCH ? n : start + BF_PROBE_BATCH;

		if (bf_nwords(f) * 8 >= BF_PROBE_PREFETCH_MIN_BYTES)
			for (int i = start; i < end; i++)
				ops->prefetch(f, h[i]);
		for (int i = start; i < end; i++)
		{
			found[i] = ops->query(f, h[i]);
			nfound += found[i];
		}
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
	bf_layout_ops(b->f)->collect(b, value_hash);
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
	ins->oldest = 0;
}

/* Inserts the oldest pending value. */
static inline void
commit_oldest(BfInserter *ins, BloomFilter *f, const LayoutOps *ops)
{
	ops->commit(f, &ins->pending[ins->oldest]);
	ins->oldest = (ins->oldest + 1) & (BF_INSERTER_DEPTH - 1);
	ins->npending--;
}

void
bf_inserter_add(BfInserter *ins, BloomFilter *f, BloomHash h)
{
	const LayoutOps *ops = bf_layout_ops(f);
	BfStaged   *v;

	if (ins->npending == BF_INSERTER_DEPTH)
		commit_oldest(ins, f, ops);
	v = &ins->pending[(ins->oldest + ins->npending) & (BF_INSERTER_DEPTH - 1)];
	v->h = h;
	ops->stage(f, v);
	ins->npending++;
}

void
bf_inserter_flush(BfInserter *ins, BloomFilter *f)
{
	const LayoutOps *ops = bf_layout_ops(f);

	while (ins->npending > 0)
		commit_oldest(ins, f, ops);
	bf_inserter_init(ins);
}

/* A layout without staged positions: its prefetch now, its insert later. */
static void
stage_prefetch(const BloomFilter *f, BfStaged *v)
{
	bf_layout_ops(f)->prefetch(f, v->h);
}

static void
commit_insert(BloomFilter *f, const BfStaged *v)
{
	bf_layout_ops(f)->insert(f, v->h);
}

/* ---------------------------------------------------------------------
 * What a layout adds to the set operations (setops.c), when it adds nothing
 * --------------------------------------------------------------------- */

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
	return bf_layout_ops(f)->bits_set(f);
}

double
bf_estimate_count(const BloomFilter *f)
{
	return bf_layout_ops(f)->estimate_count(f);
}

double
bf_estimate_fpp(const BloomFilter *f)
{
	return bf_layout_ops(f)->estimate_fpp(f);
}
