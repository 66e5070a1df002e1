/*
 * bloomfilter.c
 *	  Shared PostgreSQL glue: allocation, reading and checking of filter
 *	  values, hashing by the type's hash opclass, and per-call caches.
 */
#include "bloomfilter.h"

#include "core/base64.h"

#include "catalog/pg_collation.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

PG_MODULE_MAGIC;

/* A toasted filter bigger than this is re-read rather than compared. */
#define RAW_KEY_MAX_BYTES	(64 * 1024)

BloomFilter *
bloom_alloc(const BloomShape *shape)
{
	uint64		bytes = bf_shape_bytes(shape);
	BloomFilter *f;

	/* the shape check bounds nbits, so this is a defence in depth */
	if (bytes > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom filter of %llu bytes exceeds the 1 GB limit",
						(unsigned long long) bytes)));
	f = (BloomFilter *) palloc0((Size) bytes);
	SET_VARSIZE(f, bytes);
	bf_init(f, shape);
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

	if (!bf_struct_check(f, VARSIZE(f), errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid bloom filter value: %s", errbuf)));
}

uint8 *
bloom_text_decode(const char *str, size_t *nbytes, const char *typname,
				  const char *noun)
{
	size_t		len = strlen(str);
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint8	   *bytes;

	/* the decoded size is below the text's, which PostgreSQL already holds */
	bytes = palloc(bf_base64_decoded_max(len) + 1);
	if (!bf_base64_decode(str, len, bytes, nbytes, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: %s", typname, errbuf),
				 errhint("The text form of a %s is the base64 of its binary form, as %s_out writes it.",
						 noun, typname)));
	return bytes;
}

char *
bloom_text_encode(uint64 wire, const char *noun,
				  void (*fill) (const void *value, uint8 *out), const void *value)
{
	uint64		textlen = bf_base64_encoded_len(wire);
	uint8	   *bytes;
	char	   *out;

	if (textlen + 1 > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of %llu bytes is too large for its text form (%llu bytes, limit 1 GB)",
						noun, (unsigned long long) wire, (unsigned long long) textlen),
				 errhint("Use the binary form: COPY ... (FORMAT binary) or f::bytea.")));
	bytes = palloc((Size) wire);
	fill(value, bytes);
	out = palloc((Size) textlen + 1);
	bf_base64_encode(bytes, (size_t) wire, out);
	out[textlen] = '\0';
	pfree(bytes);
	return out;
}

const BloomFilter *
bloom_from_datum(Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	BloomFilter *f;

	if (bloom_varlena_in_place(raw))
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

	if (a->hash_scheme != b->hash_scheme)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot %s bloom filters of different hash schemes (%d and %d)",
						operation, a->hash_scheme, b->hash_scheme),
				 errdetail("A value has other positions under each scheme, so the bits of one mean nothing to the other."),
				 errhint("Rebuild the older (scheme %d) filter from its data, e.g. with bloom_agg or bloom_summary_refresh: new filters use hash scheme %d.",
						 Min(a->hash_scheme, b->hash_scheme), BLOOM_HASH_SCHEME_NEWEST)));
	if (!bf_compatible(a, b, errbuf))
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

	if (!bf_wire_check(buf, len, &bytes, errbuf))
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("invalid bloom filter: %s", errbuf)));
	/* the check bounded nbits, hence bytes, before this allocation */
	f = (BloomFilter *) palloc((Size) bytes);
	SET_VARSIZE(f, bytes);
	bf_deserialize(buf, f);
	return f;
}

/* ---------------------------------------------------------------------
 * Hashing
 * --------------------------------------------------------------------- */

/*
 * The direct path for an opclass hash function, if there is one.  Decided
 * by the function's OID, so a domain or a binary-compatible type whose
 * opclass uses the same function gets it too, and nothing else does.
 */
static BloomHashKind
direct_hash_kind(Oid hash_proc, Oid collation)
{
	switch (hash_proc)
	{
		case F_HASHINT2EXTENDED:
			return BLOOM_HASH_INT2;
		case F_HASHINT4EXTENDED:
			return BLOOM_HASH_INT4;
		case F_HASHINT8EXTENDED:
			return BLOOM_HASH_INT8;
		case F_HASHTEXTEXTENDED:
			/* hashtextextended hashes the bytes unless the collation is not deterministic */
			if (OidIsValid(collation) && get_collation_isdeterministic(collation))
				return BLOOM_HASH_TEXT_BYTES;
			return BLOOM_HASH_FMGR;
		default:
			return BLOOM_HASH_FMGR;
	}
}

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
	hasher->kind = direct_hash_kind(tce->hash_extended_proc, hasher->collation);
}

BloomCallCache *
bloom_call_cache_setup(FunctionCallInfo fcinfo, int value_argno)
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
bloom_arg_cached_slow(FunctionCallInfo fcinfo, int argno, BloomArgCache *cache)
{
	struct varlena *raw = (struct varlena *) PG_GETARG_POINTER(argno);
	Size		raw_size;
	BloomFilter *filter;

	if (bloom_varlena_in_place(raw))
	{
		/*
		 * A constant (or an external parameter) is the same value at the same
		 * address on every row: check its header once, not per row.
		 */
		if (raw == cache->checked)
			return (const BloomFilter *) raw;
		check_struct_or_error((const BloomFilter *) raw);
		if (cache->arg_stable == 0)
			cache->arg_stable = get_fn_expr_arg_stable(fcinfo->flinfo, argno) ? 1 : -1;
		if (cache->arg_stable > 0)
			cache->checked = raw;
		return (const BloomFilter *) raw;
	}

	raw_size = VARSIZE_ANY(raw);
	if (cache->filter != NULL && cache->raw != NULL &&
		cache->raw_size == raw_size && memcmp(cache->raw, raw, raw_size) == 0)
		return cache->filter;

	/* a new value: drop the old one, keep the new one for the next rows */
	if (cache->filter_alloc)
		pfree(cache->filter_alloc);
	if (cache->raw)
		pfree(cache->raw);
	cache->filter = NULL;
	cache->filter_alloc = NULL;
	cache->raw = NULL;

	filter = (BloomFilter *) pg_detoast_datum_copy(raw);
	/* checked before it is remembered, so the cache holds only valid filters */
	check_struct_or_error(filter);
	/*
	 * Kept with its struct, hence its words (64 bytes in), on a 64-byte
	 * boundary: then a block of the blocked layout is exactly one cache line.
	 */
	StaticAssertStmt(offsetof(BloomFilter, words) == BLOOM_BLOCK_BITS / 8,
					 "bloom words must start one block into the struct");
	cache->filter_alloc = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
											 VARSIZE(filter) + BLOOM_BLOCK_BITS / 8);
	cache->filter = (BloomFilter *) TYPEALIGN(BLOOM_BLOCK_BITS / 8, cache->filter_alloc);
	memcpy(cache->filter, filter, VARSIZE(filter));
	pfree(filter);
	if ((VARATT_IS_EXTERNAL_ONDISK(raw) || !VARATT_IS_EXTERNAL(raw)) &&
		raw_size <= RAW_KEY_MAX_BYTES)
	{
		cache->raw = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, raw_size);
		memcpy(cache->raw, raw, raw_size);
		cache->raw_size = raw_size;
	}
	return cache->filter;
}
