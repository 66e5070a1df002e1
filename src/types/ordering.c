/*
 * ordering.c
 *	  A total order and a hash for bloom and multibloom values: the support
 *	  functions of their default btree and hash operator classes, which
 *	  SELECT DISTINCT, GROUP BY, UNION, ORDER BY, joins and indexes on
 *	  filter columns need.
 *
 *	  Both agree with "=" exactly.  Two bloom filters are equal when they
 *	  have the same shape (layout, nbits, nhashes, seed, rows, locators), the
 *	  same hash scheme and the same words (bf_equal); the format version,
 *	  flags, insert count and full_at do not count.  The order compares those
 *	  fields in that fixed order, then the words as unsigned 64-bit numbers
 *	  from the first: it means nothing, but it is total and does not change
 *	  between releases, so btree indexes stay valid.  Two multibloom values
 *	  are equal when they have the same number of attributes and equal parts
 *	  (mbf_equal); they order by the number of attributes, then part by part.
 */
#include "postgres.h"

#include "types/bloomfilter.h"
#include "types/multibloom.h"

/* The fields "=" compares besides the words, in the order compared. */
#define FILTER_KEY_FIELDS	7

static void
filter_key(const BloomFilter *f, uint64 key[FILTER_KEY_FIELDS])
{
	key[0] = f->layout;
	key[1] = f->hash_scheme;
	key[2] = f->nbits;
	key[3] = f->nhashes;
	key[4] = f->seed;
	key[5] = f->rows;
	key[6] = f->locators;
}

static int
compare_words(const uint64 *a, const uint64 *b, uint64 n)
{
	for (uint64 i = 0; i < n; i++)
	{
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	}
	return 0;
}

static int
filter_compare(const BloomFilter *a, const BloomFilter *b)
{
	uint64		ka[FILTER_KEY_FIELDS];
	uint64		kb[FILTER_KEY_FIELDS];
	int			c;

	filter_key(a, ka);
	filter_key(b, kb);
	c = compare_words(ka, kb, FILTER_KEY_FIELDS);
	if (c != 0)
		return c;
	/* the same nbits: the same number of words */
	return compare_words(a->words, b->words, bf_nwords(a));
}

/*
 * A filter's words are at most BLOOM_MAX_ALLOC_BYTES, well within the int
 * length hash_bytes_extended takes.
 */
static uint64
filter_hash(const BloomFilter *f, uint64 seed)
{
	uint64		key[FILTER_KEY_FIELDS];

	filter_key(f, key);
	return hash_combine64(hash_bytes_extended((const unsigned char *) key,
											  sizeof(key), seed),
						  hash_bytes_extended((const unsigned char *) f->words,
											  (int) (8 * bf_nwords(f)), seed));
}

/* ---- bloom ---- */

static const void *
read_bloom(FunctionCallInfo fcinfo, int argno)
{
	return PG_GETARG_BLOOM(argno);
}

static int
compare_blooms(const void *a, const void *b)
{
	return filter_compare((const BloomFilter *) a, (const BloomFilter *) b);
}

static uint64
hash_bloom_filter(const void *f, uint64 seed)
{
	return filter_hash((const BloomFilter *) f, seed);
}

/* ---- multibloom ---- */

static const void *
read_multibloom(FunctionCallInfo fcinfo, int argno)
{
	return PG_GETARG_MULTIBLOOM(argno);
}

static int
compare_multiblooms(const void *pa, const void *pb)
{
	const MultiBloom *a = (const MultiBloom *) pa;
	const MultiBloom *b = (const MultiBloom *) pb;

	if (a->nattrs != b->nattrs)
		return a->nattrs < b->nattrs ? -1 : 1;
	for (int i = 0; i <= a->nattrs; i++)
	{
		int			c = filter_compare(mbf_part_c(a, i), mbf_part_c(b, i));

		if (c != 0)
			return c;
	}
	return 0;
}

static uint64
hash_multibloom_filter(const void *p, uint64 seed)
{
	const MultiBloom *mb = (const MultiBloom *) p;
	uint64		h = hash_bytes_uint32_extended(mb->nattrs, seed);

	for (int i = 0; i <= mb->nattrs; i++)
		h = hash_combine64(h, filter_hash(mbf_part_c(mb, i), seed));
	return h;
}

/* ---- the SQL-callable functions, the same for both types ---- */

typedef struct OrderingOps
{
	const void *(*read) (FunctionCallInfo fcinfo, int argno);
	int			(*compare) (const void *a, const void *b);
	uint64		(*hash) (const void *f, uint64 seed);
} OrderingOps;

static const OrderingOps bloom_ordering = {read_bloom, compare_blooms, hash_bloom_filter};
static const OrderingOps multibloom_ordering = {read_multibloom, compare_multiblooms, hash_multibloom_filter};

/*
 * A detoasted copy is freed at once: sorting and hashing call these once
 * per comparison or row, in a context that lives as long as the query.
 */
static void
free_if_copy(FunctionCallInfo fcinfo, const void *value, int argno)
{
	if (value != (const void *) PG_GETARG_POINTER(argno))
		pfree((void *) value);
}

static int
compare_args(FunctionCallInfo fcinfo, const OrderingOps *type)
{
	const void *a = type->read(fcinfo, 0);
	const void *b = type->read(fcinfo, 1);
	int			c = type->compare(a, b);

	free_if_copy(fcinfo, a, 0);
	free_if_copy(fcinfo, b, 1);
	return c;
}

static uint64
hash_arg(FunctionCallInfo fcinfo, const OrderingOps *type, uint64 seed)
{
	const void *f = type->read(fcinfo, 0);
	uint64		h = type->hash(f, seed);

	free_if_copy(fcinfo, f, 0);
	return h;
}

/*
 * prefix_cmp, _lt, _le, _gt, _ge and hash_prefix, hash_prefix_extended for
 * one type.  The 32-bit hash is the low half of the extended hash with seed
 * 0, as hash operator classes require.
 */
#define ORDERING_FUNCTIONS(prefix, type) \
PG_FUNCTION_INFO_V1(prefix##_cmp); \
Datum prefix##_cmp(PG_FUNCTION_ARGS) { PG_RETURN_INT32(compare_args(fcinfo, &type)); } \
PG_FUNCTION_INFO_V1(prefix##_lt); \
Datum prefix##_lt(PG_FUNCTION_ARGS) { PG_RETURN_BOOL(compare_args(fcinfo, &type) < 0); } \
PG_FUNCTION_INFO_V1(prefix##_le); \
Datum prefix##_le(PG_FUNCTION_ARGS) { PG_RETURN_BOOL(compare_args(fcinfo, &type) <= 0); } \
PG_FUNCTION_INFO_V1(prefix##_gt); \
Datum prefix##_gt(PG_FUNCTION_ARGS) { PG_RETURN_BOOL(compare_args(fcinfo, &type) > 0); } \
PG_FUNCTION_INFO_V1(prefix##_ge); \
Datum prefix##_ge(PG_FUNCTION_ARGS) { PG_RETURN_BOOL(compare_args(fcinfo, &type) >= 0); } \
PG_FUNCTION_INFO_V1(hash_##prefix); \
Datum hash_##prefix(PG_FUNCTION_ARGS) { PG_RETURN_INT32((int32) (uint32) hash_arg(fcinfo, &type, 0)); } \
PG_FUNCTION_INFO_V1(hash_##prefix##_extended); \
Datum hash_##prefix##_extended(PG_FUNCTION_ARGS) \
{ PG_RETURN_INT64((int64) hash_arg(fcinfo, &type, (uint64) PG_GETARG_INT64(1))); }

ORDERING_FUNCTIONS(bloom, bloom_ordering)
ORDERING_FUNCTIONS(multibloom, multibloom_ordering)
