/*
 * filter.c
 *	  A Bloom filter of any layout: see filter.h.  Everything that depends on
 *	  the layout of a bit array is reached through the table below; the
 *	  explicit list of a small data-sized filter (layout_explicit.h) is
 *	  handled beside it, where a function meets one.
 */
#include "filter.h"

#include "layout_blocked.h"
#include "layout_classic.h"
#include "layout_matrix.h"

#include <string.h>

/* The operations every layout_*.h offers, under parallel names. */
typedef struct LayoutOps
{
	const char *name;
	bool		has_rows;		/* uses the shape's rows and locators */
	bool		(*shape_for) (double capacity, double fpp, BloomShape *shape, char *errbuf);
	bool		(*shape_check) (const BloomShape *shape, char *errbuf);
	bool		(*insert) (BloomFilter *f, BloomHash h);
	bool		(*query) (const BloomFilter *f, BloomHash h);
	void		(*prefetch) (const BloomFilter *f, BloomHash h);
	double		(*estimate_count) (const BloomFilter *f);
	double		(*estimate_fpp) (const BloomFilter *f);
} LayoutOps;

#define LAYOUT_OPS(name, has_rows, prefix) \
	{name, has_rows, prefix##_shape_for, prefix##_shape_check, prefix##_insert, prefix##_query, \
	 prefix##_prefetch, prefix##_estimate_count, prefix##_estimate_fpp}

/* Indexed by BLOOM_LAYOUT_*: the stored layout byte. */
static const LayoutOps layouts[BLOOM_NUM_LAYOUTS] = {
	[BLOOM_LAYOUT_CLASSIC] = LAYOUT_OPS("classic", false, bf_classic),
	[BLOOM_LAYOUT_BLOCKED] = LAYOUT_OPS("blocked", false, bf_blocked),
	[BLOOM_LAYOUT_MATRIX] = LAYOUT_OPS("matrix", true, bf_matrix),
};

/* The layout of a checked filter (its layout byte is in range). */
static inline const LayoutOps *
ops_of(const BloomFilter *f)
{
	return &layouts[f->layout];
}

const char *
bf_layout_name(int layout)
{
	if (layout == BLOOM_LAYOUT_EXPLICIT)
		return "explicit";
	if (layout < 0 || layout >= BLOOM_NUM_LAYOUTS)
		return "unknown";
	return layouts[layout].name;
}

int
bf_layout_from_name(const char *name)
{
	for (int i = 0; i < BLOOM_NUM_LAYOUTS; i++)
		if (strcmp(name, layouts[i].name) == 0)
			return i;
	return -1;
}

/* ---------------------------------------------------------------------
 * Shapes
 * --------------------------------------------------------------------- */

bool
bf_shape_check(const BloomShape *s, char *errbuf)
{
	if (s->layout == BLOOM_LAYOUT_EXPLICIT)
		return bf_explicit_shape_check(s, errbuf);
	if (s->layout >= BLOOM_NUM_LAYOUTS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "unknown layout %u", (unsigned) s->layout);
		return false;
	}
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
	if (!layouts[s->layout].shape_check(s, errbuf))
		return false;
	if (!layouts[s->layout].has_rows && (s->rows != 0 || s->locators != 0))
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
	if (layout < 0 || layout >= BLOOM_NUM_LAYOUTS)
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
	if (s->layout == BLOOM_LAYOUT_EXPLICIT)
		snprintf(buf, len, "%s, %llu values, seed %llu", bf_layout_name(s->layout),
				 (unsigned long long) (s->nbits / 64), (unsigned long long) s->seed);
	else if (s->layout == BLOOM_LAYOUT_MATRIX)
		snprintf(buf, len, "%s, %u rows x %llu bits, %u hashes, %u locators, seed %llu",
				 bf_layout_name(s->layout), (unsigned) s->rows,
				 (unsigned long long) (s->rows ? s->nbits / s->rows : 0),
				 (unsigned) s->nhashes, (unsigned) s->locators,
				 (unsigned long long) s->seed);
	else
		snprintf(buf, len, "%s, %llu bits, %u hashes, seed %llu",
				 bf_layout_name(s->layout), (unsigned long long) s->nbits,
				 (unsigned) s->nhashes, (unsigned long long) s->seed);
}

/* ---------------------------------------------------------------------
 * Insertion and lookup
 * --------------------------------------------------------------------- */

bool
bf_insert(BloomFilter *f, BloomHash h)
{
	bool		changed;

	if (bf_is_explicit(f))
		return false;
	changed = ops_of(f)->insert(f, h);
	if (f->inserted < UINT64_MAX)
		f->inserted++;
	return changed;
}

bool
bf_query(const BloomFilter *f, BloomHash h)
{
	if (bf_is_explicit(f))
		return true;
	return ops_of(f)->query(f, h);
}

void
bf_prefetch(const BloomFilter *f, BloomHash h)
{
	if (!bf_is_explicit(f))
		ops_of(f)->prefetch(f, h);
}

bool
bf_contains_value(const BloomFilter *f, uint64_t value_hash)
{
	if (bf_is_explicit(f))
		return bf_explicit_contains(f, value_hash);
	return ops_of(f)->query(f, bf_hash_derive(value_hash));
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

int
bf_probe_batch(const BloomFilter *f, const uint64_t *hashes, int n, bool *found)
{
	int			nfound = 0;

	if (bf_is_explicit(f))
	{
		for (int i = 0; i < n; i++)
		{
			found[i] = bf_explicit_contains(f, hashes[i]);
			nfound += found[i];
		}
		return nfound;
	}
	for (int start = 0; start < n; start += BF_PROBE_BATCH)
	{
		int			len = n - start < BF_PROBE_BATCH ? n - start : BF_PROBE_BATCH;

		nfound += probe_bits_batch(f, hashes + start, len, found + start);
	}
	return nfound;
}

bool
bf_is_empty(const BloomFilter *f)
{
	uint64_t	n = bf_nwords(f);

	if (bf_is_explicit(f))
		return n == 0;
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
	if (!bf_is_explicit(b->f))
		bf_inserter_add(&b->inserter, b->f, bf_hash_derive(value_hash));
	else if (b->listed < bf_explicit_count(b->f))
		b->f->words[b->listed++] = value_hash;
}

void
bf_builder_finish(BfBuilder *b)
{
	if (!bf_is_explicit(b->f))
		bf_inserter_flush(&b->inserter, b->f);
}

void
bf_inserter_init(BfInserter *ins)
{
	ins->npending = 0;
}

/*
 * Most positions per value the classic batch keeps (on the stack, 4 kB for
 * a full batch); a filter with more hash functions takes the generic path.
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
		if (f->inserted < UINT64_MAX)
			f->inserted++;
	}
}

void
bf_inserter_flush(BfInserter *ins, BloomFilter *f)
{
	int			n = ins->npending;

	if (bf_is_explicit(f))
		;						/* bf_insert leaves a list unchanged */
	else if (f->layout == BLOOM_LAYOUT_CLASSIC && f->nhashes <= CLASSIC_BATCH_MAX_HASHES)
		insert_classic_batch(f, ins->pending, n);
	else
	{
		for (int i = 0; i < n; i++)
			bf_prefetch(f, ins->pending[i]);
		for (int i = 0; i < n; i++)
			bf_insert(f, ins->pending[i]);
	}
	bf_inserter_init(ins);
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

/*
 * Two bit arrays that OR and AND: one hash scheme and (matrix) tie rule,
 * and equal shapes or foldable sizes.
 */
static bool
bits_compatible(const BloomFilter *a, const BloomFilter *b)
{
	BloomShape	sa,
				sb;

	if (bf_is_explicit(a) || bf_is_explicit(b) || a->hash_scheme != b->hash_scheme ||
		bf_matrix_ties_first(a) != bf_matrix_ties_first(b))
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
 * Data-sized filters of one seed that combine whatever their sizes and
 * position schemes: a list holds value hashes, not positions, and an empty
 * filter holds nothing.  (Their value hashes must agree: same_value_hashes.)
 */
static bool
datasized_pair(const BloomFilter *a, const BloomFilter *b)
{
	return bf_is_datasized(a) && bf_is_datasized(b) && a->seed == b->seed &&
		(bf_is_explicit(a) || bf_is_explicit(b) || bf_is_empty(a) || bf_is_empty(b));
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

bool
bf_compatible(const BloomFilter *a, const BloomFilter *b, char *errbuf)
{
	BloomShape	sa,
				sb;
	char		da[160],
				db[160];

	if (!same_value_hashes(a, b))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "first filter uses hash scheme %u, second hash scheme %u: some values have different hashes under each",
				 (unsigned) a->hash_scheme, (unsigned) b->hash_scheme);
		return false;
	}
	if (bits_compatible(a, b) || datasized_pair(a, b))
		return true;
	if (!bf_is_explicit(a) && !bf_is_explicit(b))
	{
		if (a->hash_scheme != b->hash_scheme)
		{
			snprintf(errbuf, BLOOM_ERRBUF_SIZE,
					 "first filter uses hash scheme %u, second hash scheme %u: the same value has different positions under each",
					 (unsigned) a->hash_scheme, (unsigned) b->hash_scheme);
			return false;
		}
		if (!bf_matrix_same_ties(a, b, errbuf))
			return false;
	}
	bf_get_shape(a, &sa);
	bf_get_shape(b, &sb);
	bf_shape_describe(&sa, da, sizeof(da));
	bf_shape_describe(&sb, db, sizeof(db));
	snprintf(errbuf, BLOOM_ERRBUF_SIZE,
			 "first filter is (%s), second is (%s)", da, db);
	return false;
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
static void
plan_bits(const BloomFilter *a, const BloomFilter *b, BfSetop *op)
{
	bool		za = empty_datasized(a),
				zb = empty_datasized(b);

	if (!op->intersect && za != zb)
	{
		op->kind = BF_SETOP_IDENTITY;
		op->base_is_b = za;
	}
	else if (bits_compatible(a, b))
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
}

/* How many of list's hashes other may hold. */
static uint64_t
count_filtered(const BloomFilter *list, const BloomFilter *other)
{
	uint64_t	n = 0;

	for (uint64_t i = 0; i < bf_explicit_count(list); i++)
		n += bf_contains_value(other, list->words[i]);
	return n;
}

/* At least one list.  False only when a merged list is too large to size. */
static bool
plan_lists(const BloomFilter *a, const BloomFilter *b, BfSetop *op, char *errbuf)
{
	bool		both = bf_is_explicit(a) && bf_is_explicit(b);
	const BloomFilter *list = bf_is_explicit(a) ? a : b;
	const BloomFilter *other = list == a ? b : a;

	if (op->intersect)
	{
		op->kind = BF_SETOP_FILTER_LIST;
		op->base_is_b = list == b;
		op->count = count_filtered(list, other);
		bf_explicit_shape(op->count, list->seed, &op->shape);
		return true;
	}
	if (!both)
	{
		/* an empty bit array is the identity: the list stays a list */
		op->kind = bf_is_empty(other) ? BF_SETOP_IDENTITY : BF_SETOP_LIST_INTO_BITS;
		op->base_is_b = (op->kind == BF_SETOP_IDENTITY) == (list == b);
		return true;
	}
	op->kind = BF_SETOP_MERGE_LISTS;
	op->count = bf_explicit_merge(a->words, bf_explicit_count(a),
								  b->words, bf_explicit_count(b), NULL);
	return bf_shape_collected((double) op->count, a->seed, &op->shape, errbuf);
}

bool
bf_setop_plan(const BloomFilter *a, const BloomFilter *b, bool intersect,
			  BfSetop *op, char *errbuf)
{
	if (!bf_compatible(a, b, errbuf))
		return false;
	memset(op, 0, sizeof(*op));
	op->intersect = intersect;
	if (bf_is_explicit(a) || bf_is_explicit(b))
	{
		if (!plan_lists(a, b, op, errbuf))
			return false;
	}
	else
		plan_bits(a, b, op);
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
			if (op->intersect && dst->layout == BLOOM_LAYOUT_MATRIX)
				dst->full_at = BLOOM_NEVER_FULL;
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
		a->layout == BLOOM_LAYOUT_CLASSIC && b->layout == BLOOM_LAYOUT_CLASSIC &&
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
	if (dst->layout == BLOOM_LAYOUT_MATRIX)
	{
		bf_matrix_recount(dst);
		dst->full_at = bf_matrix_union_full_at(dst->full_at, src->full_at);
	}
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
	if (dst->layout == BLOOM_LAYOUT_MATRIX)
	{
		/*
		 * The rows shrink, so whether they would be full is unknown: the
		 * intersection has met no full candidates of its own.
		 */
		bf_matrix_recount(dst);
		dst->full_at = BLOOM_NEVER_FULL;
	}
}

bool
bf_equal(const BloomFilter *a, const BloomFilter *b)
{
	BloomShape	sa,
				sb;

	bf_get_shape(a, &sa);
	bf_get_shape(b, &sb);
	if (!shapes_equal(&sa, &sb) || a->hash_scheme != b->hash_scheme)
		return false;
	if (bf_matrix_ties_first(a) != bf_matrix_ties_first(b))
		return false;
	return memcmp(a->words, b->words, 8 * bf_nwords(a)) == 0;
}

/* ---------------------------------------------------------------------
 * Statistics
 * --------------------------------------------------------------------- */

uint64_t
bf_bits_set(const BloomFilter *f)
{
	if (bf_is_explicit(f))
		return 0;
	return bf_popcount_words(f->words, bf_nwords(f));
}

double
bf_estimate_count(const BloomFilter *f)
{
	if (bf_is_explicit(f))
		return bf_explicit_estimate_count(f);
	return ops_of(f)->estimate_count(f);
}

double
bf_estimate_fpp(const BloomFilter *f)
{
	if (bf_is_explicit(f))
		return bf_explicit_estimate_fpp(f);
	return ops_of(f)->estimate_fpp(f);
}
