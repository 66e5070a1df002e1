/*
 * bloomfilter.c
 *	  Shared PostgreSQL glue: allocation, reading and checking of filter
 *	  values, hashing by the type's hash opclass, and per-call caches.
 */
#include "bloomfilter.h"

#include "catalog/pg_collation.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

PG_MODULE_MAGIC;

/* A toasted filter bigger than this is re-read rather than compared. */
#define RAW_KEY_MAX_BYTES	(64 * 1024)

BloomFilter *
bloom_alloc(const BloomShape *shape)
{
	uint64		bytes = bloom_shape_bytes(shape);
	BloomFilter *f;

	/* the shape check bounds nbits, so this is a defence in depth */
	if (bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom filter of %llu bytes exceeds the 1 GB limit",
						(unsigned long long) bytes)));
	f = (BloomFilter *) palloc0((Size) bytes);
	SET_VARSIZE(f, bytes);
	bloom_init(f, shape);
	return f;
}

BloomFilter *
bloom_copy(const BloomFilter *f)
{
	BloomFilter *copy = (BloomFilter *) palloc(VARSIZE(f));

	memcpy(copy, f, VARSIZE(f));
	return copy;
}

static void
check_struct_or_error(const BloomFilter *f)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];

	if (!bloom_struct_check(f, VARSIZE(f), errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid bloom filter value: %s", errbuf)));
}

/* True if a raw Datum can be read in place: plain 4-byte header, aligned. */
static inline bool
readable_in_place(const struct varlena *raw)
{
	return !VARATT_IS_EXTENDED(raw) && ((uintptr_t) raw % sizeof(uint64)) == 0;
}

const BloomFilter *
bloom_from_datum(Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	BloomFilter *f;

	if (readable_in_place(raw))
		f = (BloomFilter *) raw;
	else
		f = (BloomFilter *) pg_detoast_datum_copy(raw);	/* copy: aligned */
	check_struct_or_error(f);
	return f;
}

void
bloom_report_shape_error(const char *errbuf)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid bloom filter parameters: %s", errbuf)));
	pg_unreachable();
}

void
bloom_check_compatible(const BloomFilter *a, const BloomFilter *b, const char *operation)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];

	if (!bloom_compatible(a, b, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot %s bloom filters of different shapes", operation),
				 errdetail("The %s.", errbuf),
				 errhint("Filters combine only when built with the same layout, number of bits, number of hash functions and seed, e.g. the same bloom_empty(capacity, fpp) arguments.")));
}

BloomFilter *
bloom_from_wire(const uint8 *buf, size_t len, int sqlstate)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64		bytes;
	BloomFilter *f;

	if (!bloom_wire_check(buf, len, &bytes, errbuf))
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("invalid bloom filter: %s", errbuf)));
	/* the check bounded nbits, hence bytes, before this allocation */
	f = (BloomFilter *) palloc((Size) bytes);
	SET_VARSIZE(f, bytes);
	bloom_deserialize(buf, len, f);
	return f;
}

/* ---------------------------------------------------------------------
 * Hashing
 * --------------------------------------------------------------------- */

void
bloom_hasher_init(BloomHasher *hasher, Oid typid, Oid collation, MemoryContext mcxt)
{
	Oid			basetype;
	TypeCacheEntry *tce;

	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_DATATYPE),
				 errmsg("could not determine the data type of the value to hash")));
	basetype = getBaseType(typid);
	tce = lookup_type_cache(basetype, TYPECACHE_HASH_EXTENDED_PROC);
	if (!OidIsValid(tce->hash_extended_proc))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an extended hash function for type %s",
						format_type_be(typid)),
				 errhint("Bloom filters hash values with the default hash operator class of their type; type %s has none.",
						 format_type_be(typid))));

	hasher->typid = typid;
	/* string types need a collation; an unlabelled value gets the default */
	hasher->collation = OidIsValid(collation) || !type_is_collatable(basetype)
		? collation : DEFAULT_COLLATION_OID;
	fmgr_info_cxt(tce->hash_extended_proc, &hasher->proc, mcxt);
}

BloomCallCache *
bloom_call_cache(FunctionCallInfo fcinfo, int value_argno)
{
	BloomCallCache *cache = (BloomCallCache *) fcinfo->flinfo->fn_extra;

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BloomCallCache));
		fcinfo->flinfo->fn_extra = cache;
	}
	if (value_argno >= 0 && !cache->hasher_ready)
	{
		Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, value_argno);

		bloom_hasher_init(&cache->hasher, typid, PG_GET_COLLATION(),
						  fcinfo->flinfo->fn_mcxt);
		cache->hasher_ready = true;
	}
	return cache;
}

/*
 * A plain, in-place Datum costs nothing to read, so only toasted forms are
 * cached.  The cache key is the raw toasted bytes: for an on-disk TOAST
 * pointer that is the value's identity (toasted values are immutable), for
 * an inline compressed or short value the bytes themselves.  Comparing
 * pointers alone would be wrong: the same address can hold another value
 * on the next row (a reused buffer, a re-run subquery).
 */
const BloomFilter *
bloom_arg_cached(FunctionCallInfo fcinfo, int argno, BloomArgCache *cache)
{
	struct varlena *raw = (struct varlena *) PG_GETARG_POINTER(argno);
	Size		raw_size;
	BloomFilter *filter;
	MemoryContext old;

	if (readable_in_place(raw))
	{
		check_struct_or_error((const BloomFilter *) raw);
		return (const BloomFilter *) raw;
	}

	raw_size = VARSIZE_ANY(raw);
	if (cache->filter != NULL && cache->raw != NULL &&
		cache->raw_size == raw_size && memcmp(cache->raw, raw, raw_size) == 0)
		return cache->filter;

	/* a new value: drop the old one, keep the new one for the next rows */
	if (cache->filter)
		pfree(cache->filter);
	if (cache->raw)
		pfree(cache->raw);
	cache->filter = NULL;
	cache->raw = NULL;

	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	filter = (BloomFilter *) pg_detoast_datum_copy(raw);
	MemoryContextSwitchTo(old);
	/* checked before it is remembered, so the cache holds only valid filters */
	check_struct_or_error(filter);
	cache->filter = filter;
	if ((VARATT_IS_EXTERNAL_ONDISK(raw) || !VARATT_IS_EXTERNAL(raw)) &&
		raw_size <= RAW_KEY_MAX_BYTES)
	{
		cache->raw = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, raw_size);
		memcpy(cache->raw, raw, raw_size);
		cache->raw_size = raw_size;
	}
	return cache->filter;
}
