/*
 * setops.c
 *	  The set operations of filter.h: whether two filters combine, the plan
 *	  and the build of a | b and a & b for every representation, the OR and
 *	  AND of two bit arrays, folding, and equality.  The rules are picked by
 *	  how the two filters hold their values (pair_rules below: two bit
 *	  arrays, a list and a bit array, two lists); what a layout adds to
 *	  them (the matrix's tie rule, its counters and full_at) comes from its
 *	  row of the layout table (layout_table.h).
 */
#include "filter.h"
#include "layout_table.h"

#include <string.h>

/* ---------------------------------------------------------------------
 * Which filters combine, and the plan of a | b and a & b
 * --------------------------------------------------------------------- */

static bool
shapes_equal(const BloomShape *a, const BloomShape *b)
{
	return a->layout == b->layout && a->nbits == b->nbits &&
		a->nhashes == b->nhashes && a->seed == b->seed &&
		a->rows == b->rows && a->locators == b->locators;
}

/*
 * True if the layouts of a and b both take the pair (the matrix: one tie
 * rule); else false with the message of the first that does not.
 */
static bool
layouts_combinable(const BloomFilter *a, const BloomFilter *b, char *errbuf)
{
	return bf_layout_ops(a)->combinable(a, b, errbuf) &&
		bf_layout_ops(b)->combinable(a, b, errbuf);
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
	return &pair_rules[bf_layout_ops(a)->holds][bf_layout_ops(b)->holds];
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

/* ---------------------------------------------------------------------
 * Building the result
 * --------------------------------------------------------------------- */

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
			/* as after bf_intersect_into (the matrix: no full rows of its own) */
			if (op->intersect)
				bf_layout_ops(dst)->after_intersect(dst);
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

/* ---------------------------------------------------------------------
 * Two bit arrays: folding, OR, AND, equality
 * --------------------------------------------------------------------- */

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
		a->layout == b->layout && bf_layout_ops(a)->folds &&
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
	bf_layout_ops(dst)->after_union(dst, src);
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
	bf_layout_ops(dst)->after_intersect(dst);
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
