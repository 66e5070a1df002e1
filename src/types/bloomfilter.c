/*
 * bloomfilter.c
 *	  The PostgreSQL glue shared by both types and their aggregates: see
 *	  bloomfilter.h.
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "types/bloomfilter.h"
#include "core/base64.h"

/* A toasted filter bigger than this is re-read rather than compared. */
#define RAW_KEY_MAX_BYTES	(64 * 1024)

/* ---------------------------------------------------------------------
 * The bloom type's descriptor: the core's functions, for any value
 * --------------------------------------------------------------------- */

static void
bloom_deserialize(const uint8 *buf, void *value)
{
	bf_deserialize(buf, (BloomFilter *) value);
}

FILTER_TYPE_DEFINE(bloom, bf, BloomFilter, "bloom", "bloom filter");

/* ---------------------------------------------------------------------
 * Filter values of either type
 * --------------------------------------------------------------------- */

/* True if a raw Datum can be read in place: plain 4-byte header, aligned. */
static inline bool
varlena_in_place(const struct varlena *raw)
{
	return !VARATT_IS_EXTENDED(raw) && ((uintptr_t) raw % sizeof(uint64)) == 0;
}

static void
check_struct(const void *value, const FilterType *type)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];

	if (!type->struct_check(value, VARSIZE(value), errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid %s value: %s", type->noun, errbuf)));
}

const void *
filter_from_datum(Datum d, const FilterType *type)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	void	   *value;

	if (varlena_in_place(raw))
		value = raw;
	else
		value = pg_detoast_datum_copy(raw);	/* a copy: aligned */
	check_struct(value, type);
	return value;
}

void *
filter_from_wire(const uint8 *buf, size_t len, int sqlstate, const FilterType *type)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64_t	bytes;
	void	   *value;

	if (!type->wire_check(buf, len, &bytes, errbuf))
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("invalid %s: %s", type->noun, errbuf)));
	/* the check bounded the struct, hence bytes, before this allocation */
	value = palloc((Size) bytes);
	SET_VARSIZE(value, bytes);
	type->deserialize(buf, value);
	return value;
}

void *
filter_from_bytea(const bytea *b, Size prefix, int sqlstate, const FilterType *type)
{
	Assert(VARSIZE_ANY_EXHDR(b) >= prefix);
	return filter_from_wire((const uint8 *) VARDATA_ANY(b) + prefix,
							VARSIZE_ANY_EXHDR(b) - prefix, sqlstate, type);
}

bytea *
filter_to_bytea(const void *value, Size prefix, const FilterType *type)
{
	uint64		wire = type->wire_bytes(value);
	bytea	   *result;

	/* the binary form is smaller than the value, so it fits */
	result = (bytea *) palloc(VARHDRSZ + prefix + (Size) wire);
	SET_VARSIZE(result, VARHDRSZ + prefix + wire);
	type->serialize(value, (uint8 *) VARDATA(result) + prefix);
	return result;
}

uint8 *
text_form_decode(const char *str, size_t *nbytes, const char *typname, const char *hint_noun)
{
	size_t		len = strlen(str);
	char		errbuf[BLOOM_ERRBUF_SIZE];
	/* the decoded size is below the text's, which PostgreSQL already holds */
	uint8	   *bytes = palloc(bf_base64_decoded_max(len) + 1);

	if (!bf_base64_decode(str, len, bytes, nbytes, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: %s", typname, errbuf),
				 hint_noun == NULL ? 0 :
				 errhint("The text form of a %s is the base64 of its binary form, as %s_out writes it.",
						 hint_noun, typname)));
	return bytes;
}

bool
text_form_fits(uint64 nbytes)
{
	return bf_base64_encoded_len(nbytes) + 1 <= MaxAllocSize;
}

char *
text_form_encode(const uint8 *bytes, size_t nbytes)
{
	uint64		textlen = bf_base64_encoded_len(nbytes);
	char	   *out;

	Assert(text_form_fits(nbytes));
	out = palloc((Size) textlen + 1);
	bf_base64_encode(bytes, nbytes, out);
	out[textlen] = '\0';
	return out;
}

void *
filter_text_in(const char *str, const FilterType *type)
{
	size_t		nbytes;
	uint8	   *bytes = text_form_decode(str, &nbytes, type->typname, type->noun);
	void	   *value;

	value = filter_from_wire(bytes, nbytes, ERRCODE_INVALID_TEXT_REPRESENTATION, type);
	pfree(bytes);
	return value;
}

char *
filter_text_out(const void *value, const FilterType *type)
{
	uint64		wire = type->wire_bytes(value);
	uint8	   *bytes;
	char	   *out;

	/* checked before anything is allocated */
	if (!text_form_fits(wire))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s of %llu bytes is too large for its text form (%llu bytes, limit 1 GB)",
						type->noun, (unsigned long long) wire,
						(unsigned long long) bf_base64_encoded_len(wire)),
				 errhint("Use the binary form: COPY ... (FORMAT binary) or f::bytea.")));
	bytes = palloc((Size) wire);
	type->serialize(value, bytes);
	out = text_form_encode(bytes, (size_t) wire);
	pfree(bytes);
	return out;
}

void *
filter_recv(StringInfo buf, const FilterType *type)
{
	void	   *value;

	value = filter_from_wire((const uint8 *) buf->data + buf->cursor,
							 buf->len - buf->cursor,
							 ERRCODE_INVALID_BINARY_REPRESENTATION, type);
	buf->cursor = buf->len;
	return value;
}

void *
filter_copy(const void *value)
{
	void	   *copy = palloc(VARSIZE(value));

	memcpy(copy, value, VARSIZE(value));
	return copy;
}

/* ---------------------------------------------------------------------
 * Bloom filters from SQL arguments
 * --------------------------------------------------------------------- */

void
check_at_least_one(int64 value, const char *what)
{
	if (value < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be at least 1, not " INT64_FORMAT, what, value)));
}

int
bloom_layout_from_name(const char *name)
{
	int			layout = bf_layout_from_name(name);

	if (layout < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown bloom filter layout \"%s\"", name),
				 errhint("Valid layouts are \"classic\", \"blocked\" and \"matrix\".")));
	return layout;
}

void
bloom_shape_for_capacity(int64 capacity, double fpp, int layout, BloomShape *shape)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];

	check_at_least_one(capacity, "capacity");
	if (!bf_shape_for((double) capacity, fpp, layout, shape, errbuf))
		bloom_report_shape_error(errbuf);
}

void
bloom_report_shape_error(const char *errbuf)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid bloom filter parameters: %s", errbuf)));
}

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

void
bloom_check_compatible(const BloomFilter *a, const BloomFilter *b, const char *operation)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];

	if (bf_compatible(a, b, errbuf))
		return;
	/* an interop layout against another layout: other systems' bits */
	if ((bf_layout_interop(a->layout) || bf_layout_interop(b->layout)) && a->layout != b->layout)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot %s a bloom filter of layout \"%s\" with one of layout \"%s\"",
						operation, bf_layout_name(a->layout), bf_layout_name(b->layout)),
				 errdetail("A foreign filter holds its values as the system that writes it places them, which no other layout shares."),
				 errhint("Combine filters of one format and shape; build the other in that layout, e.g. bloom_agg(value, capacity, fpp, '%s').",
						 bf_layout_name(bf_layout_interop(a->layout) ? a->layout : b->layout))));
	/*
	 * scheme 3 against 1 or 2, lists included (their hashes differ for
	 * wide values); or two bit arrays of schemes 1 and 2 (lists have no
	 * positions)
	 */
	if (bf_scheme_wide(a->hash_scheme) != bf_scheme_wide(b->hash_scheme) ||
		(a->hash_scheme != b->hash_scheme && !bf_is_explicit(a) && !bf_is_explicit(b)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot %s bloom filters of different hash schemes (%d and %d)",
						operation, a->hash_scheme, b->hash_scheme),
				 bf_scheme_wide(a->hash_scheme) != bf_scheme_wide(b->hash_scheme)
				 ? errdetail("Hash scheme 3 hashes bigint, timestamps and the other 64-bit types in full, schemes 1 and 2 through 32 bits, so the hashes and bits of one mean nothing to the other.")
				 : errdetail("A value has other positions under each scheme, so the bits of one mean nothing to the other."),
				 errhint("Rebuild the older (scheme %d) filter from its data, e.g. with bloom_agg or bloom_summary_refresh: new filters use hash scheme %d.",
						 Min(a->hash_scheme, b->hash_scheme), BLOOM_HASH_SCHEME_NEWEST)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot %s bloom filters of different shapes", operation),
			 errdetail("The %s.", errbuf),
			 errhint("Filters combine only when built with the same layout, number of bits, number of hash functions and seed, e.g. the same bloom_empty(capacity, fpp) arguments.")));
}

void
bloom_setop_plan(const BloomFilter *a, const BloomFilter *b, bool intersect, BfSetop *op)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];

	bloom_check_compatible(a, b, intersect ? "intersect" : "unite");
	/* compatible filters fail only when a merged list is too large to size */
	if (!bf_setop_plan(a, b, intersect, op, errbuf))
		bloom_report_shape_error(errbuf);
}

BloomFilter *
bloom_setop_result(const BloomFilter *a, const BloomFilter *b, const BfSetop *op)
{
	BloomFilter *result;

	/* every result shape passed the core's size limit */
	if (op->bytes > MaxAllocSize)
		elog(ERROR, "bloom filter set operation result of %llu bytes",
			 (unsigned long long) op->bytes);
	result = (BloomFilter *) palloc0((Size) op->bytes);
	SET_VARSIZE(result, op->bytes);
	bf_setop_build(result, a, b, op);
	return result;
}

BloomFilter *
bloom_setop(const BloomFilter *a, const BloomFilter *b, bool intersect)
{
	BfSetop		op;

	bloom_setop_plan(a, b, intersect, &op);
	return bloom_setop_result(a, b, &op);
}

/* ---------------------------------------------------------------------
 * Hashing
 * --------------------------------------------------------------------- */

/*
 * The direct path for an opclass hash function, if there is one.  Decided
 * by the function's OID, so a domain or a binary-compatible type whose
 * opclass uses the same function gets it too, and nothing else does; the
 * functions that fold 64 bits into 32 (bloom_wide_kind) get the paths that
 * widen them under hash scheme 3, containers only when their type may hold
 * such a value (otherwise scheme 3 hashes them as the function does).
 */
static BloomHashKind
direct_hash_kind(Oid hash_proc, Oid collation, Oid basetype)
{
	switch (bloom_wide_kind(hash_proc))
	{
		case WIDE_INT64:
			return BLOOM_HASH_INT8;
		case WIDE_INTERVAL:
		case WIDE_TIMETZ:
			return BLOOM_HASH_WIDENED;
		case WIDE_ARRAY:
		case WIDE_RANGE:
		case WIDE_MULTIRANGE:
		case WIDE_RECORD:
			/* a container of types hashed as they are: the function itself */
			return bloom_type_widened(basetype) ? BLOOM_HASH_WIDENED : BLOOM_HASH_FMGR;
		case WIDE_NONE:
			break;
	}
	switch (hash_proc)
	{
		case F_HASHINT2EXTENDED:
			return BLOOM_HASH_INT2;
		case F_HASHINT4EXTENDED:
			return BLOOM_HASH_INT4;
		case F_HASHTEXTEXTENDED:
			/* hashtextextended hashes the bytes unless the collation is not deterministic */
			if (OidIsValid(collation) && get_collation_isdeterministic(collation))
				return BLOOM_HASH_TEXT_BYTES;
			return BLOOM_HASH_FMGR;
		case F_HASHBPCHAREXTENDED:

			/*
			 * Under a nondeterministic collation, PostgreSQL 15's function
			 * hashes the trailing spaces that char(n)'s equality ignores
			 * ('ab' and 'ab  ' are equal and hashed apart); 17 and later
			 * drop them first, as hashbpchar always did.  Handing the
			 * function the value without them gives 17's hash on every
			 * major.
			 */
			if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
				return BLOOM_HASH_BPCHAR_TRIMMED;
			return BLOOM_HASH_FMGR;
		default:
			return BLOOM_HASH_FMGR;
	}
}

void
bloom_hasher_init(BloomHasher *hasher, Oid typid, Oid collation, MemoryContext mcxt)
{
	bool		untyped = (typid == UNKNOWNOID);
	Oid			basetype;
	TypeCacheEntry *tce;

	/* an untyped literal ('abc') is text, as it would be against "=" */
	if (untyped)
		typid = TEXTOID;
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

	/* string types need a collation; an unlabelled value gets the default */
	hasher->collation = OidIsValid(collation) || !type_is_collatable(basetype)
		? collation : DEFAULT_COLLATION_OID;
	fmgr_info_cxt(tce->hash_extended_proc, &hasher->proc, mcxt);
	/* prepared once, so a call per row only stores its two arguments */
	hasher->call = MemoryContextAllocZero(mcxt, SizeForFunctionCallInfo(2));
	InitFunctionCallInfoData(*hasher->call, &hasher->proc, 2, hasher->collation,
							 NULL, NULL);
	hasher->call->args[0].isnull = false;
	hasher->call->args[1].isnull = false;
	/* last: a hasher whose set-up failed is still unset */
	hasher->kind = untyped ? BLOOM_HASH_UNKNOWN_AS_TEXT
		: direct_hash_kind(tce->hash_extended_proc, hasher->collation, basetype);
}

/*
 * Points *value at the char(n) value without its trailing spaces.  Returns
 * what it allocated for that (NULL: nothing), the caller's to free.
 */
static struct varlena *
bpchar_trimmed(Datum *value)
{
	struct varlena *orig = (struct varlena *) DatumGetPointer(*value);
	struct varlena *v = pg_detoast_datum_packed(orig);
	int			len = VARSIZE_ANY_EXHDR(v);
	int			truelen = bpchartruelen(VARDATA_ANY(v), len);
	struct varlena *trimmed;

	if (truelen == len)
	{
		*value = PointerGetDatum(v);
		return v != orig ? v : NULL;
	}
	trimmed = palloc(VARHDRSZ + truelen);
	SET_VARSIZE(trimmed, VARHDRSZ + truelen);
	memcpy(VARDATA(trimmed), VARDATA_ANY(v), truelen);
	if (v != orig)
		pfree(v);
	*value = PointerGetDatum(trimmed);
	return trimmed;
}

uint64
bloom_hasher_call(BloomHasher *hasher, Datum value, uint64 seed, uint8 scheme)
{
	FunctionCallInfo call = hasher->call;
	struct varlena *converted = NULL;
	Datum		result;

	if (hasher->kind == BLOOM_HASH_WIDENED && bf_scheme_wide(scheme))
		return bloom_wide_hash(hasher->proc.fn_oid, &hasher->proc, hasher->collation,
							   value, seed);
	if (hasher->kind == BLOOM_HASH_UNKNOWN_AS_TEXT)
	{
		converted = (struct varlena *) cstring_to_text(DatumGetCString(value));
		value = PointerGetDatum(converted);
	}
	else if (hasher->kind == BLOOM_HASH_BPCHAR_TRIMMED)
		converted = bpchar_trimmed(&value);
	call->args[0].value = value;
	call->args[1].value = UInt64GetDatum(seed);
	call->isnull = false;
	result = FunctionCallInvoke(call);
	if (unlikely(call->isnull))
		elog(ERROR, "function %u returned NULL", call->flinfo->fn_oid);
	if (converted != NULL)
		pfree(converted);
	return DatumGetUInt64(result);
}

/* ---------------------------------------------------------------------
 * The per-call-site cache
 * --------------------------------------------------------------------- */

FilterCallCache *
filter_call_cache_create(FunctionCallInfo fcinfo, int nhashers)
{
	FilterCallCache *cache;

	cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
								   offsetof(FilterCallCache, hashers) +
								   nhashers * sizeof(BloomHasher));
	cache->nhashers = nhashers;
	fcinfo->flinfo->fn_extra = cache;
	return cache;
}

void
filter_call_cache_set_array(FilterCallCache *cache, Oid elemtype)
{
	cache->elemtype = elemtype;
	get_typlenbyvalalign(elemtype, &cache->elemlen, &cache->elembyval,
						 &cache->elemalign);
	cache->values_in_array = 1;
}

FilterCallCache *
bloom_call_cache_setup(FunctionCallInfo fcinfo, int value_argno)
{
	FilterCallCache *cache = filter_call_cache(fcinfo, 1);

	if (cache->hashers[0].kind == BLOOM_HASH_UNSET)
		bloom_hasher_init(&cache->hashers[0],
						  get_fn_expr_argtype(fcinfo->flinfo, value_argno),
						  PG_GET_COLLATION(), fcinfo->flinfo->fn_mcxt);
	return cache;
}

/*
 * Replaces the cached filter with a checked copy of raw (toasted): kept with
 * its struct on a 64-byte boundary, so that bloom's words (64 bytes in)
 * are too, and a block of the blocked layout is exactly one cache line.
 */
static void
cache_filter(FunctionCallInfo fcinfo, FilterArgCache *cache,
			 struct varlena *raw, const FilterType *type)
{
	Size		raw_size = VARSIZE_ANY(raw);
	void	   *value;

	if (cache->filter_alloc)
		pfree(cache->filter_alloc);
	if (cache->raw)
		pfree(cache->raw);
	cache->filter = NULL;
	cache->filter_alloc = NULL;
	cache->raw = NULL;

	value = pg_detoast_datum_copy(raw);
	/* checked before it is remembered, so the cache holds only valid filters */
	check_struct(value, type);
	StaticAssertStmt(offsetof(BloomFilter, words) == BLOOM_BLOCK_BITS / 8,
					 "bloom words must start one block into the struct");
	cache->filter_alloc = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
											 VARSIZE(value) + BLOOM_BLOCK_BITS / 8);
	cache->filter = (void *) TYPEALIGN(BLOOM_BLOCK_BITS / 8, cache->filter_alloc);
	memcpy(cache->filter, value, VARSIZE(value));
	pfree(value);
	/* the key: external pointers other than on-disk ones are not identities */
	if ((VARATT_IS_EXTERNAL_ONDISK(raw) || !VARATT_IS_EXTERNAL(raw)) &&
		raw_size <= RAW_KEY_MAX_BYTES)
	{
		cache->raw = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, raw_size);
		memcpy(cache->raw, raw, raw_size);
		cache->raw_size = raw_size;
	}
}

/*
 * A plain, in-place Datum costs nothing to read, so only toasted forms are
 * cached.  The cache key is the raw toasted bytes: for an on-disk TOAST
 * pointer that is the value's identity (toasted values are immutable), for
 * an inline compressed or short value the bytes themselves.  Comparing
 * pointers alone would be wrong: the same address can hold another value
 * on the next row (a reused buffer, a re-run subquery).
 */
const void *
filter_arg_cached_slow(FunctionCallInfo fcinfo, int argno, FilterArgCache *cache,
					   const FilterType *type)
{
	struct varlena *raw = (struct varlena *) PG_GETARG_POINTER(argno);
	Size		raw_size;

	if (varlena_in_place(raw))
	{
		/*
		 * A constant (or an external parameter) is the same value at the same
		 * address on every row: check its struct once, not per row.
		 */
		if (raw == cache->checked)
			return raw;
		check_struct(raw, type);
		if (cache->arg_stable == 0)
			cache->arg_stable = get_fn_expr_arg_stable(fcinfo->flinfo, argno) ? 1 : -1;
		if (cache->arg_stable > 0)
			cache->checked = raw;
		return raw;
	}

	raw_size = VARSIZE_ANY(raw);
	if (cache->filter == NULL || cache->raw == NULL ||
		cache->raw_size != raw_size || memcmp(cache->raw, raw, raw_size) != 0)
		cache_filter(fcinfo, cache, raw, type);
	return cache->filter;
}

/* ---------------------------------------------------------------------
 * Aggregate support functions
 * --------------------------------------------------------------------- */

MemoryContext
agg_memory_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", fname)));
	return aggcxt;
}

Node *
agg_arg_expr(FunctionCallInfo fcinfo, int argno)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);

	if (aggref == NULL || argno < 0 || argno >= list_length(aggref->args))
		return NULL;
	return (Node *) ((TargetEntry *) list_nth(aggref->args, argno))->expr;
}

bool
agg_const_arg(FunctionCallInfo fcinfo, int argno, Datum *value)
{
	Node	   *arg = agg_arg_expr(fcinfo, argno);

	if (arg == NULL || !IsA(arg, Const) || ((Const *) arg)->constisnull)
		return false;
	*value = ((Const *) arg)->constvalue;
	return true;
}

bool
agg_call_is_own(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	HeapTuple	tuple;
	Form_pg_aggregate agg;
	bool		own;

	if (aggref == NULL)
		return false;
	tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggref->aggfnoid));
	if (!HeapTupleIsValid(tuple))
		return false;
	agg = (Form_pg_aggregate) GETSTRUCT(tuple);
	own = agg->aggtransfn == fcinfo->flinfo->fn_oid ||
		agg->aggfinalfn == fcinfo->flinfo->fn_oid;
	ReleaseSysCache(tuple);
	return own;
}
