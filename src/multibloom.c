/*
 * multibloom.c
 *	  The SQL type "multibloom": a bloom filter per attribute plus a
 *	  whole-row verification filter (multibloom_core.c), with I/O,
 *	  constructors, VARIADIC "any" rows, projection to bloom, union,
 *	  statistics and aggregates.  Values are hashed exactly as bloom hashes
 *	  them (BloomHasher), so each attribute's part is a valid bloom value.
 */
#include "bloomfilter.h"

#include "core/multibloom.h"

#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "hash_collector.h"
#include "libpq/pqformat.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(multibloom_in);
PG_FUNCTION_INFO_V1(multibloom_out);
PG_FUNCTION_INFO_V1(multibloom_recv);
PG_FUNCTION_INFO_V1(multibloom_send);
PG_FUNCTION_INFO_V1(multibloom_from_bytea);
PG_FUNCTION_INFO_V1(multibloom_empty);
PG_FUNCTION_INFO_V1(multibloom_add);
PG_FUNCTION_INFO_V1(multibloom_contains);
PG_FUNCTION_INFO_V1(multibloom_attribute);
PG_FUNCTION_INFO_V1(multibloom_union);
PG_FUNCTION_INFO_V1(multibloom_eq);
PG_FUNCTION_INFO_V1(multibloom_ne);
PG_FUNCTION_INFO_V1(multibloom_info);
PG_FUNCTION_INFO_V1(multibloom_agg_sized_trans);
PG_FUNCTION_INFO_V1(multibloom_union_agg_trans);
PG_FUNCTION_INFO_V1(multibloom_agg_combine);
PG_FUNCTION_INFO_V1(multibloom_agg_serial);
PG_FUNCTION_INFO_V1(multibloom_agg_deserial);
PG_FUNCTION_INFO_V1(multibloom_agg_final);
PG_FUNCTION_INFO_V1(multibloom_agg_sized_final);
PG_FUNCTION_INFO_V1(multibloom_agg_trans);
PG_FUNCTION_INFO_V1(multibloom_agg_auto_combine);
PG_FUNCTION_INFO_V1(multibloom_agg_auto_serial);
PG_FUNCTION_INFO_V1(multibloom_agg_auto_deserial);
PG_FUNCTION_INFO_V1(multibloom_agg_auto_final);

/* A toasted filter bigger than this is re-read rather than compared. */
#define RAW_KEY_MAX_BYTES	(64 * 1024)

/* ---------------------------------------------------------------------
 * Values: allocation, checking, reading
 * --------------------------------------------------------------------- */

/*
 * Sets the length word of every embedded part, so each is a bloom varlena
 * in place.  The core ignores these words; the host owns them.
 */
static void
set_part_lengths(MultiBloom *mb)
{
	for (int i = 0; i <= mb->nattrs; i++)
		SET_VARSIZE(mbf_part(mb, i),
					mbf_part_bytes(mb, VARSIZE(mb), i));
}

/* An empty multibloom of these part shapes, in the current memory context. */
static MultiBloom *
multibloom_alloc(int nattrs, const BloomShape *shapes)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64		bytes;
	MultiBloom *mb;

	if (!mbf_struct_bytes(nattrs, shapes, &bytes, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("invalid multibloom parameters: %s", errbuf)));
	/* bounded by the check above (below 1 GB) */
	mb = (MultiBloom *) palloc0((Size) bytes);
	SET_VARSIZE(mb, bytes);
	mbf_init(mb, nattrs, shapes);
	set_part_lengths(mb);
	return mb;
}

static MultiBloom *
multibloom_copy(const MultiBloom *mb)
{
	MultiBloom *copy = (MultiBloom *) palloc(VARSIZE(mb));

	memcpy(copy, mb, VARSIZE(mb));
	return copy;
}

/*
 * a | b as a new value (compatible shapes): each part the size of the
 * smaller of the two, so auto-sized filters of different sizes fold.
 */
static MultiBloom *
multibloom_union_new(const MultiBloom *a, const MultiBloom *b)
{
	BloomShape	shapes[MULTIBLOOM_MAX_ATTRS + 1];
	MultiBloom *result;

	mbf_union_shapes(a, b, shapes);
	result = multibloom_alloc(a->nattrs, shapes);
	mbf_union_build(result, a, b);
	set_part_lengths(result);
	return result;
}

static void
check_struct_or_error(const MultiBloom *mb)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];

	if (!mbf_struct_check(mb, VARSIZE(mb), errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid multibloom value: %s", errbuf)));
}


/* A checked, read-only multibloom from a Datum (detoasted if needed). */
static const MultiBloom *
multibloom_from_datum(Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	MultiBloom *mb;

	if (bloom_varlena_in_place(raw))
		mb = (MultiBloom *) raw;
	else
		mb = (MultiBloom *) pg_detoast_datum_copy(raw);
	check_struct_or_error(mb);
	return mb;
}

#define PG_GETARG_MULTIBLOOM(n)	multibloom_from_datum(PG_GETARG_DATUM(n))

static MultiBloom *
multibloom_from_wire(const uint8 *buf, size_t len, int sqlstate)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64		bytes;
	MultiBloom *mb;

	if (!mbf_wire_check(buf, len, &bytes, errbuf))
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("invalid multibloom: %s", errbuf)));
	/* the check bounded every part, hence bytes, before this allocation */
	mb = (MultiBloom *) palloc((Size) bytes);
	SET_VARSIZE(mb, bytes);
	mbf_deserialize(buf, mb);
	set_part_lengths(mb);
	return mb;
}

static bytea *
multibloom_to_bytea(const MultiBloom *mb)
{
	uint64		wire = mbf_wire_bytes(mb);
	bytea	   *result;

	/* the binary form is smaller than the value, so it fits */
	result = (bytea *) palloc(VARHDRSZ + (Size) wire);
	SET_VARSIZE(result, VARHDRSZ + wire);
	mbf_serialize(mb, (uint8 *) VARDATA(result));
	return result;
}

static void
report_incompatible(const MultiBloom *a, const MultiBloom *b)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	char	   *da,
			   *db;
	size_t		len = 256 * (MULTIBLOOM_MAX_ATTRS + 2);
	bool		schemes_differ;

	if (mbf_compatible(a, b, errbuf))
		return;
	/* every part of a multibloom is written under one scheme */
	schemes_differ = a->nattrs == b->nattrs &&
		mbf_part_c(a, a->nattrs)->hash_scheme != mbf_part_c(b, b->nattrs)->hash_scheme;
	da = palloc(len);
	db = palloc(len);
	mbf_describe(a, da, len);
	mbf_describe(b, db, len);
	if (schemes_differ)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot unite multibloom filters of different hash schemes: %s", errbuf),
				 errdetail("First filter: %s. Second filter: %s.", da, db),
				 errhint("Rebuild the older filter from its data, e.g. with multibloom_agg: new filters use hash scheme %d.",
						 BLOOM_HASH_SCHEME_NEWEST)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot unite multibloom filters of different shapes: %s", errbuf),
			 errdetail("First filter: %s. Second filter: %s.", da, db),
			 errhint("Filters unite only when built with the same number of attributes, capacity and fpp, e.g. the same multibloom_empty(nattrs, capacity, fpp) or multibloom_agg_sized(capacity, fpp, ...) arguments.")));
}

/* ---------------------------------------------------------------------
 * Rows given as VARIADIC "any"
 *
 * Each call site keeps, in fn_extra, one hasher per argument (looked up on
 * the argument's first non-null value, so a NULL literal used as a wildcard
 * needs none) and the detoasted filter argument.  Rows are read into fixed
 * arrays: nothing is allocated per row unless the row comes as an explicit
 * VARIADIC array.
 * --------------------------------------------------------------------- */

typedef struct MultiBloomArgCache
{
	struct varlena *raw;		/* the toasted form the filter came from */
	Size		raw_size;
	MultiBloom *filter;			/* detoasted and checked, in fn_mcxt */
} MultiBloomArgCache;

typedef struct MultiBloomCallCache
{
	bool		ready;
	bool		variadic_array; /* called with VARIADIC ARRAY[...] */
	int			nvalues;		/* value arguments (spread form) */
	Oid			elemtype;		/* variadic_array: element type */
	int16		elemlen;
	bool		elembyval;
	char		elemalign;
	bool		hasher_ready[MULTIBLOOM_MAX_ATTRS];
	bool		unknown_as_text[MULTIBLOOM_MAX_ATTRS];	/* untyped literal */
	BloomHasher hashers[MULTIBLOOM_MAX_ATTRS];
	MultiBloomArgCache filter_arg;
} MultiBloomCallCache;

/* One row: its attributes' 64-bit hashes and null flags. */
typedef struct MultiBloomRow
{
	int			nvalues;
	uint64		hashes[MULTIBLOOM_MAX_ATTRS];
	bool		isnull[MULTIBLOOM_MAX_ATTRS];
} MultiBloomRow;

/*
 * The collation of argument argno: its own expression's, so each attribute
 * is hashed under its own collation even when the call mixes them (the
 * call's single input collation would impose one on all).  In an aggregate
 * the expressions are the Aggref's arguments, one position to the left of
 * the transition function's (which has the state first).  An untyped
 * literal is text under the default collation, as it would be on its own.
 */
static Oid
argument_collation(FunctionCallInfo fcinfo, int argno)
{
	Node	   *expr = fcinfo->flinfo->fn_expr;
	Aggref	   *aggref = AggGetAggref(fcinfo);
	Node	   *arg = NULL;

	if (aggref != NULL)
	{
		if (argno >= 1 && argno - 1 < list_length(aggref->args))
			arg = (Node *) ((TargetEntry *) list_nth(aggref->args, argno - 1))->expr;
	}
	else if (expr != NULL && IsA(expr, FuncExpr) &&
			 argno < list_length(((FuncExpr *) expr)->args))
		arg = (Node *) list_nth(((FuncExpr *) expr)->args, argno);

	if (arg == NULL)
		return PG_GET_COLLATION();
	/* 'x' COLLATE c is still untyped, with collation c */
	if (!OidIsValid(exprCollation(arg)) && exprType(arg) == UNKNOWNOID)
		return DEFAULT_COLLATION_OID;
	return exprCollation(arg);
}

static MultiBloomCallCache *
multibloom_call_cache(FunctionCallInfo fcinfo, int first_value_argno)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;
	MultiBloomCallCache *cache = (MultiBloomCallCache *) flinfo->fn_extra;

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(MultiBloomCallCache));
		flinfo->fn_extra = cache;
	}
	if (!cache->ready)
	{
		cache->variadic_array = get_fn_expr_variadic(flinfo);
		if (cache->variadic_array)
		{
			Oid			arraytype = get_fn_expr_argtype(flinfo, first_value_argno);

			cache->elemtype = OidIsValid(arraytype) ? get_element_type(arraytype) : InvalidOid;
			if (!OidIsValid(cache->elemtype))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("VARIADIC argument must be an array")));
			get_typlenbyvalalign(cache->elemtype, &cache->elemlen,
								 &cache->elembyval, &cache->elemalign);
		}
		cache->nvalues = PG_NARGS() - first_value_argno;
		cache->ready = true;
	}
	return cache;
}

static const BloomHasher *
hasher_for(FunctionCallInfo fcinfo, MultiBloomCallCache *cache, int first_value_argno, int i)
{
	if (!cache->hasher_ready[i])
	{
		Oid			typid;
		Oid			coll;

		if (cache->variadic_array)
		{
			typid = cache->elemtype;
			coll = argument_collation(fcinfo, first_value_argno);
		}
		else
		{
			typid = get_fn_expr_argtype(fcinfo->flinfo, first_value_argno + i);
			coll = argument_collation(fcinfo, first_value_argno + i);
		}
		/* an untyped literal ('abc') is text, as it would be against "=" */
		if (typid == UNKNOWNOID)
		{
			typid = TEXTOID;
			cache->unknown_as_text[i] = true;
		}
		bloom_hasher_init(&cache->hashers[i], typid, coll, fcinfo->flinfo->fn_mcxt);
		cache->hasher_ready[i] = true;
	}
	return &cache->hashers[i];
}

static void
report_count_mismatch(const char *fname, int given, int nattrs)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %d value%s given for a multibloom of %d attribute%s",
					fname, given, given == 1 ? "" : "s", nattrs, nattrs == 1 ? "" : "s"),
			 errhint("Pass one value per attribute, in order; NULL leaves an attribute out of a probe.")));
}

/* A value as its hasher expects it: an unknown-type literal becomes text. */
static inline Datum
hashable(const MultiBloomCallCache *cache, int i, Datum value)
{
	if (unlikely(cache->unknown_as_text[i]))
		return PointerGetDatum(cstring_to_text(DatumGetCString(value)));
	return value;
}

/*
 * Reads the row starting at argument first_value_argno into row, hashing
 * each non-null value with its attribute's seed (the seed of that part of
 * every valid multibloom).  nattrs is the expected number of values.
 */
static void
read_row(FunctionCallInfo fcinfo, MultiBloomCallCache *cache, int first_value_argno,
		 int nattrs, const char *fname, MultiBloomRow *row)
{

	if (!cache->variadic_array)
	{
		if (cache->nvalues != nattrs)
			report_count_mismatch(fname, cache->nvalues, nattrs);
		for (int i = 0; i < nattrs; i++)
		{
			row->isnull[i] = PG_ARGISNULL(first_value_argno + i);
			if (!row->isnull[i])
			{
				const BloomHasher *hasher = hasher_for(fcinfo, cache, first_value_argno, i);

				row->hashes[i] = bloom_hasher_value_hash(hasher,
													 hashable(cache, i, PG_GETARG_DATUM(first_value_argno + i)),
													 mbf_attr_seed(i + 1));
			}
			else
				row->hashes[i] = 0;
		}
	}
	else
	{
		ArrayType  *arr;
		Datum	   *elems;
		bool	   *nulls;
		int			nelems;

		if (PG_ARGISNULL(first_value_argno))
			report_count_mismatch(fname, 0, nattrs);
		arr = PG_GETARG_ARRAYTYPE_P(first_value_argno);
		if (ARR_NDIM(arr) > 1)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("%s: the VARIADIC array must have one dimension", fname)));
		deconstruct_array(arr, cache->elemtype, cache->elemlen, cache->elembyval,
						  cache->elemalign, &elems, &nulls, &nelems);
		if (nelems != nattrs)
			report_count_mismatch(fname, nelems, nattrs);
		for (int i = 0; i < nattrs; i++)
		{
			row->isnull[i] = nulls[i];
			if (!nulls[i])
				row->hashes[i] = bloom_hasher_value_hash(hasher_for(fcinfo, cache, first_value_argno, i),
													 elems[i], mbf_attr_seed(i + 1));
			else
				row->hashes[i] = 0;
		}
		pfree(elems);
		pfree(nulls);
	}
	row->nvalues = nattrs;
}

/* Number of values of the row at first_value_argno (before any filter exists). */
static int
row_width(FunctionCallInfo fcinfo, MultiBloomCallCache *cache, int first_value_argno)
{
	if (!cache->variadic_array)
		return cache->nvalues;
	if (PG_ARGISNULL(first_value_argno))
		return 0;
	return ArrayGetNItems(ARR_NDIM(PG_GETARG_ARRAYTYPE_P(first_value_argno)),
						  ARR_DIMS(PG_GETARG_ARRAYTYPE_P(first_value_argno)));
}

/*
 * The filter in argument argno, detoasted at most once per distinct value
 * (the prefilter hot path): keyed on the raw toasted bytes, as bloom does.
 */
static const MultiBloom *
multibloom_arg_cached(FunctionCallInfo fcinfo, int argno, MultiBloomArgCache *cache)
{
	struct varlena *raw = (struct varlena *) PG_GETARG_POINTER(argno);
	Size		raw_size;
	MultiBloom *filter;
	MemoryContext old;

	if (bloom_varlena_in_place(raw))
	{
		check_struct_or_error((const MultiBloom *) raw);
		return (const MultiBloom *) raw;
	}
	raw_size = VARSIZE_ANY(raw);
	if (cache->filter != NULL && cache->raw != NULL &&
		cache->raw_size == raw_size && memcmp(cache->raw, raw, raw_size) == 0)
		return cache->filter;

	if (cache->filter)
		pfree(cache->filter);
	if (cache->raw)
		pfree(cache->raw);
	cache->filter = NULL;
	cache->raw = NULL;

	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	filter = (MultiBloom *) pg_detoast_datum_copy(raw);
	MemoryContextSwitchTo(old);
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

/* ---------------------------------------------------------------------
 * I/O: text is canonical base64 of the binary format; binary and bytea
 * are the binary format (doc/multibloom.md).
 * --------------------------------------------------------------------- */

Datum
multibloom_in(PG_FUNCTION_ARGS)
{
	size_t		nbytes;
	uint8	   *bytes = bloom_text_decode(PG_GETARG_CSTRING(0), &nbytes,
										  "multibloom", "multibloom");
	MultiBloom *mb;

	mb = multibloom_from_wire(bytes, nbytes, ERRCODE_INVALID_TEXT_REPRESENTATION);
	pfree(bytes);
	PG_RETURN_POINTER(mb);
}

static void
serialize_multibloom(const void *value, uint8 *out)
{
	const MultiBloom *mb = (const MultiBloom *) value;

	mbf_serialize(mb, out);
}

Datum
multibloom_out(PG_FUNCTION_ARGS)
{
	const MultiBloom *mb = PG_GETARG_MULTIBLOOM(0);

	PG_RETURN_CSTRING(bloom_text_encode(mbf_wire_bytes(mb),
										"multibloom", serialize_multibloom, mb));
}

Datum
multibloom_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	MultiBloom *mb;

	mb = multibloom_from_wire((const uint8 *) buf->data + buf->cursor,
							  buf->len - buf->cursor, ERRCODE_INVALID_BINARY_REPRESENTATION);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(mb);
}

/* Binary send and the cast to bytea: the same bytes. */
Datum
multibloom_send(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(multibloom_to_bytea(PG_GETARG_MULTIBLOOM(0)));
}

Datum
multibloom_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_POINTER(multibloom_from_wire((const uint8 *) VARDATA_ANY(b),
										   VARSIZE_ANY_EXHDR(b),
										   ERRCODE_INVALID_BINARY_REPRESENTATION));
}

/* ---------------------------------------------------------------------
 * Construction, adding and probing
 * --------------------------------------------------------------------- */

static void
check_nattrs(int64 nattrs)
{
	if (nattrs < 1 || nattrs > MULTIBLOOM_MAX_ATTRS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of attributes must be between 1 and %d, not " INT64_FORMAT,
						MULTIBLOOM_MAX_ATTRS, nattrs)));
}

/* Every part sized for capacity at fpp: the shape of multibloom_empty. */
static MultiBloom *
empty_for_capacity(int nattrs, int64 capacity, double fpp)
{
	BloomShape	shapes[MULTIBLOOM_MAX_ATTRS + 1];
	double		caps[MULTIBLOOM_MAX_ATTRS];
	char		errbuf[BLOOM_ERRBUF_SIZE];

	check_nattrs(nattrs);
	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be at least 1, not " INT64_FORMAT, capacity)));
	for (int i = 0; i < nattrs; i++)
		caps[i] = (double) capacity;
	if (!mbf_shapes_for(nattrs, caps, (double) capacity, fpp, shapes, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid multibloom parameters: %s", errbuf)));
	return multibloom_alloc(nattrs, shapes);
}

Datum
multibloom_empty(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(empty_for_capacity(PG_GETARG_INT32(0), PG_GETARG_INT64(1),
										 PG_GETARG_FLOAT8(2)));
}

/* multibloom_add(f, VARIADIC "any"): a copy of f with the row added. */
Datum
multibloom_add(PG_FUNCTION_ARGS)
{
	MultiBloomCallCache *cache;
	MultiBloomRow row;
	MultiBloom *mb;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	cache = multibloom_call_cache(fcinfo, 1);
	mb = multibloom_copy(PG_GETARG_MULTIBLOOM(0));
	read_row(fcinfo, cache, 1, mb->nattrs, "multibloom_add", &row);
	mbf_add_row(mb, row.hashes, row.isnull);
	PG_RETURN_POINTER(mb);
}

/* The probe: the hot path of a prefilter, so nothing allocates per row. */
Datum
multibloom_contains(PG_FUNCTION_ARGS)
{
	MultiBloomCallCache *cache;
	const MultiBloom *mb;
	MultiBloomRow row;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	cache = multibloom_call_cache(fcinfo, 1);
	mb = multibloom_arg_cached(fcinfo, 0, &cache->filter_arg);
	read_row(fcinfo, cache, 1, mb->nattrs, "multibloom_contains", &row);
	PG_RETURN_BOOL(mbf_query_row(mb, row.hashes, row.isnull));
}

/* The filter of attribute attno (1-based) as a bloom value. */
Datum
multibloom_attribute(PG_FUNCTION_ARGS)
{
	const MultiBloom *mb = PG_GETARG_MULTIBLOOM(0);
	int32		attno = PG_GETARG_INT32(1);
	uint64		bytes;
	BloomFilter *f;

	if (attno < 1 || attno > mb->nattrs)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attribute number %d is out of range: this multibloom has attributes 1 to %d",
						attno, mb->nattrs)));
	bytes = mbf_part_bytes(mb, VARSIZE(mb), attno - 1);
	f = (BloomFilter *) palloc((Size) bytes);
	memcpy(f, mbf_part_c(mb, attno - 1), (Size) bytes);
	SET_VARSIZE(f, bytes);
	PG_RETURN_BLOOM(f);
}

/* ---------------------------------------------------------------------
 * Union, comparison, statistics
 * --------------------------------------------------------------------- */

Datum
multibloom_union(PG_FUNCTION_ARGS)
{
	const MultiBloom *a = PG_GETARG_MULTIBLOOM(0);
	const MultiBloom *b = PG_GETARG_MULTIBLOOM(1);
	MultiBloom *result;

	report_incompatible(a, b);
	result = multibloom_union_new(a, b);
	PG_RETURN_POINTER(result);
}

Datum
multibloom_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(mbf_equal(PG_GETARG_MULTIBLOOM(0), PG_GETARG_MULTIBLOOM(1)));
}

Datum
multibloom_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!mbf_equal(PG_GETARG_MULTIBLOOM(0), PG_GETARG_MULTIBLOOM(1)));
}

/* Columns of multibloom_info, in the order the SQL declaration gives them. */
enum
{
	MI_FORMAT_VERSION, MI_NATTRS, MI_FLAGS, MI_ROWS, MI_BYTES, MI_ROW_FPP,
	MI_NBITS, MI_NHASHES, MI_SEED, MI_INSERTED, MI_BITS_SET, MI_FILL,
	MI_ESTIMATED_COUNT, MI_FPP, MI_NCOLUMNS
};

static Datum
int8_array(const int64 *v, int n)
{
	Datum		d[MULTIBLOOM_MAX_ATTRS + 1];

	for (int i = 0; i < n; i++)
		d[i] = Int64GetDatum(v[i]);
	return PointerGetDatum(construct_array(d, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

static Datum
float8_array(const double *v, int n)
{
	Datum		d[MULTIBLOOM_MAX_ATTRS + 1];

	for (int i = 0; i < n; i++)
		d[i] = Float8GetDatum(v[i]);
	return PointerGetDatum(construct_array(d, n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * One record for the whole filter: scalar columns, then one array per
 * statistic with an element per part (attributes 1..nattrs, then the
 * verification filter).
 */
Datum
multibloom_info(PG_FUNCTION_ARGS)
{
	const MultiBloom *mb = PG_GETARG_MULTIBLOOM(0);
	int			nparts = mb->nattrs + 1;
	TupleDesc	tupdesc;
	Datum		values[MI_NCOLUMNS];
	bool		nulls[MI_NCOLUMNS];
	int64		nbits[MULTIBLOOM_MAX_ATTRS + 1],
				seed[MULTIBLOOM_MAX_ATTRS + 1],
				inserted[MULTIBLOOM_MAX_ATTRS + 1],
				bits_set[MULTIBLOOM_MAX_ATTRS + 1];
	Datum		nhashes[MULTIBLOOM_MAX_ATTRS + 1];
	double		fill[MULTIBLOOM_MAX_ATTRS + 1],
				count[MULTIBLOOM_MAX_ATTRS + 1],
				fpp[MULTIBLOOM_MAX_ATTRS + 1];

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);
	if (tupdesc->natts != MI_NCOLUMNS)
		elog(ERROR, "multibloom_info: SQL declaration has %d columns, expected %d",
			 tupdesc->natts, MI_NCOLUMNS);

	for (int i = 0; i < nparts; i++)
	{
		const BloomFilter *f = mbf_part_c(mb, i);
		uint64		set = bf_bits_set(f);

		nbits[i] = (int64) f->nbits;
		nhashes[i] = Int32GetDatum((int32) f->nhashes);
		seed[i] = (int64) f->seed;
		inserted[i] = f->inserted > PG_INT64_MAX ? PG_INT64_MAX : (int64) f->inserted;
		bits_set[i] = (int64) set;
		fill[i] = (double) set / (double) f->nbits;
		count[i] = bf_estimate_count(f);
		fpp[i] = bf_estimate_fpp(f);
	}

	memset(nulls, 0, sizeof(nulls));
	values[MI_FORMAT_VERSION] = Int32GetDatum(mb->version);
	values[MI_NATTRS] = Int32GetDatum(mb->nattrs);
	values[MI_FLAGS] = Int32GetDatum(mb->flags);
	values[MI_ROWS] = Int64GetDatum(mb->rows > PG_INT64_MAX ? PG_INT64_MAX : (int64) mb->rows);
	values[MI_BYTES] = Int32GetDatum((int32) VARSIZE(mb));
	/* a whole-row probe of an absent row passes the verification filter at this rate */
	values[MI_ROW_FPP] = Float8GetDatum(fpp[mb->nattrs]);
	values[MI_NBITS] = int8_array(nbits, nparts);
	values[MI_NHASHES] = PointerGetDatum(construct_array(nhashes, nparts, INT4OID, 4, true, TYPALIGN_INT));
	values[MI_SEED] = int8_array(seed, nparts);
	values[MI_INSERTED] = int8_array(inserted, nparts);
	values[MI_BITS_SET] = int8_array(bits_set, nparts);
	values[MI_FILL] = float8_array(fill, nparts);
	values[MI_ESTIMATED_COUNT] = float8_array(count, nparts);
	values[MI_FPP] = float8_array(fpp, nparts);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ---------------------------------------------------------------------
 * Aggregates with a fixed shape: multibloom_agg_sized and
 * multibloom_union_agg.  The state is a multibloom in the aggregate's
 * memory context; partial states travel in the binary format, and OR is
 * order-independent, so a parallel plan gives the serial plan's bits.
 * --------------------------------------------------------------------- */

typedef struct MultiBloomAggState
{
	MultiBloom *mb;
	int64		capacity;		/* multibloom_agg_sized: the first row's arguments */
	double		fpp;
} MultiBloomAggState;

static MemoryContext
aggregate_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "%s called in non-aggregate context", fname);
	return aggcontext;
}

/* multibloom_agg_sized(capacity, fpp, VARIADIC "any") transition. */
Datum
multibloom_agg_sized_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo, "multibloom_agg_sized");
	MultiBloomAggState *state = PG_ARGISNULL(0) ? NULL : (MultiBloomAggState *) PG_GETARG_POINTER(0);
	MultiBloomCallCache *cache = multibloom_call_cache(fcinfo, 3);
	MultiBloomRow row;
	int64		capacity;
	double		fpp;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("multibloom_agg_sized: capacity and fpp must not be NULL")));
	capacity = PG_GETARG_INT64(1);
	fpp = PG_GETARG_FLOAT8(2);

	if (state == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(aggcontext);

		state = palloc0(sizeof(MultiBloomAggState));
		state->mb = empty_for_capacity(row_width(fcinfo, cache, 3), capacity, fpp);
		state->capacity = capacity;
		state->fpp = fpp;
		MemoryContextSwitchTo(old);
	}
	else if (state->capacity != capacity || state->fpp != fpp)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("multibloom_agg_sized: capacity and fpp must be the same for every row of a group"),
				 errdetail("The group began with capacity " INT64_FORMAT " and fpp %g, a later row has capacity " INT64_FORMAT " and fpp %g.",
						   state->capacity, state->fpp, capacity, fpp)));

	read_row(fcinfo, cache, 3, state->mb->nattrs, "multibloom_agg_sized", &row);
	mbf_add_row(state->mb, row.hashes, row.isnull);
	PG_RETURN_POINTER(state);
}

/* Unites src into the state (creating it in aggcontext from a copy). */
static MultiBloomAggState *
state_union(MultiBloomAggState *state, const MultiBloom *src, MemoryContext aggcontext)
{
	if (state == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(aggcontext);

		state = palloc0(sizeof(MultiBloomAggState));
		state->mb = multibloom_copy(src);
		MemoryContextSwitchTo(old);
		return state;
	}
	report_incompatible(state->mb, src);
	if (mbf_union_fits(state->mb, src))
		mbf_union_into(state->mb, src);
	else
	{
		/* auto-sized parts of src are smaller: the state shrinks to them */
		MemoryContext old = MemoryContextSwitchTo(aggcontext);
		MultiBloom *smaller = multibloom_union_new(state->mb, src);

		MemoryContextSwitchTo(old);
		pfree(state->mb);
		state->mb = smaller;
	}
	return state;
}

/* multibloom_union_agg(f) transition: NULL filters are skipped. */
Datum
multibloom_union_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo, "multibloom_union_agg");
	MultiBloomAggState *state = PG_ARGISNULL(0) ? NULL : (MultiBloomAggState *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}
	PG_RETURN_POINTER(state_union(state, PG_GETARG_MULTIBLOOM(1), aggcontext));
}

Datum
multibloom_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = aggregate_context(fcinfo, "multibloom_agg_combine");
	MultiBloomAggState *s1 = PG_ARGISNULL(0) ? NULL : (MultiBloomAggState *) PG_GETARG_POINTER(0);
	MultiBloomAggState *s2 = PG_ARGISNULL(1) ? NULL : (MultiBloomAggState *) PG_GETARG_POINTER(1);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
	{
		s1 = state_union(NULL, s2->mb, aggcontext);
		s1->capacity = s2->capacity;
		s1->fpp = s2->fpp;
		PG_RETURN_POINTER(s1);
	}
	PG_RETURN_POINTER(state_union(s1, s2->mb, aggcontext));
}

/* State as bytea: capacity, fpp, then the multibloom's binary format. */
Datum
multibloom_agg_serial(PG_FUNCTION_ARGS)
{
	MultiBloomAggState *state = (MultiBloomAggState *) PG_GETARG_POINTER(0);
	uint64		wire = mbf_wire_bytes(state->mb);
	bytea	   *result = (bytea *) palloc(VARHDRSZ + 16 + (Size) wire);
	char	   *p = VARDATA(result);

	SET_VARSIZE(result, VARHDRSZ + 16 + wire);
	memcpy(p, &state->capacity, 8);
	memcpy(p + 8, &state->fpp, 8);
	mbf_serialize(state->mb, (uint8 *) p + 16);
	PG_RETURN_BYTEA_P(result);
}

Datum
multibloom_agg_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	const char *p = VARDATA_ANY(b);
	size_t		len = VARSIZE_ANY_EXHDR(b);
	MultiBloomAggState *state;

	if (len < 16)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid multibloom aggregate state of %zu bytes", len)));
	state = palloc0(sizeof(MultiBloomAggState));
	memcpy(&state->capacity, p, 8);
	memcpy(&state->fpp, p + 8, 8);
	state->mb = multibloom_from_wire((const uint8 *) p + 16, len - 16,
									 ERRCODE_INVALID_BINARY_REPRESENTATION);
	PG_RETURN_POINTER(state);
}

/* The result is a copy, so the state may go on changing (window frames). */
Datum
multibloom_agg_final(PG_FUNCTION_ARGS)
{
	MultiBloomAggState *state = PG_ARGISNULL(0) ? NULL : (MultiBloomAggState *) PG_GETARG_POINTER(0);

	if (state == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(multibloom_copy(state->mb));
}

/* Argument argno of the aggregate call, if it is a non-null constant. */
static bool
const_agg_arg(FunctionCallInfo fcinfo, int argno, Datum *value)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	TargetEntry *tle;

	if (aggref == NULL || argno >= list_length(aggref->args))
		return false;
	tle = (TargetEntry *) list_nth(aggref->args, argno);
	if (!IsA(tle->expr, Const) || ((Const *) tle->expr)->constisnull)
		return false;
	*value = ((Const *) tle->expr)->constvalue;
	return true;
}

/*
 * Number of values per row of the aggregate call (after first_value_argno
 * leading arguments), or 0 when the call passes an explicit VARIADIC array.
 */
static int
agg_row_width(FunctionCallInfo fcinfo, int first_value_argno)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);

	if (aggref == NULL || aggref->aggvariadic)
		return 0;
	return list_length(aggref->args) - first_value_argno;
}

/*
 * multibloom_agg_sized over no rows: the transition never ran, so the shape
 * comes from the call's constant arguments, an empty filter like
 * multibloom_empty.  When they are not constants the result is NULL.
 */
Datum
multibloom_agg_sized_final(PG_FUNCTION_ARGS)
{
	MultiBloomAggState *state = PG_ARGISNULL(0) ? NULL : (MultiBloomAggState *) PG_GETARG_POINTER(0);
	Datum		capacity,
				fpp;
	int			nattrs;

	if (state != NULL)
		PG_RETURN_POINTER(multibloom_copy(state->mb));
	nattrs = agg_row_width(fcinfo, 2);
	if (nattrs < 1 || !const_agg_arg(fcinfo, 0, &capacity) || !const_agg_arg(fcinfo, 1, &fpp))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(empty_for_capacity(nattrs, DatumGetInt64(capacity), DatumGetFloat8(fpp)));
}

/* ---------------------------------------------------------------------
 * multibloom_agg(VARIADIC "any"): sized to the data.
 *
 * The state collects each distinct row as a record of nattrs + 1 words in
 * a hash collector (bounded by work_mem, spilling to temporary files): the
 * attributes' 64-bit hashes (0 for NULL), then a bitmap of the NULL
 * attributes.  The final function counts what each part must hold: each
 * attribute's distinct values, and the distinct complete rows for the
 * verification filter, sizes every part for its own count at fpp 0.01, and
 * inserts every distinct row.  The result depends only on the set of
 * distinct rows, so a parallel plan gives the serial plan's bits.
 * --------------------------------------------------------------------- */

#define MULTIBLOOM_AGG_FPP	0.01

typedef struct MultiBloomAutoState
{
	HashCollector *rows_seen;	/* distinct rows, nattrs + 1 words each */
	uint64		rows;			/* rows aggregated, repeats included */
	int			nattrs;
} MultiBloomAutoState;

static MultiBloomAutoState *
auto_state_create(MemoryContext aggcxt, int nattrs, FunctionCallInfo fcinfo)
{
	MultiBloomAutoState *state = MemoryContextAllocZero(aggcxt, sizeof(MultiBloomAutoState));

	state->nattrs = nattrs;
	state->rows_seen = hc_create(aggcxt, nattrs + 1, hc_work_mem_limit(), fcinfo);
	return state;
}

Datum
multibloom_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = aggregate_context(fcinfo, "multibloom_agg");
	MultiBloomAutoState *state = PG_ARGISNULL(0) ? NULL : (MultiBloomAutoState *) PG_GETARG_POINTER(0);
	MultiBloomCallCache *cache = multibloom_call_cache(fcinfo, 1);
	MultiBloomRow row;
	uint64		record[MULTIBLOOM_MAX_ATTRS + 1];
	uint64		nullmap = 0;

	if (state == NULL)
	{
		int			nattrs = row_width(fcinfo, cache, 1);

		check_nattrs(nattrs);
		state = auto_state_create(aggcxt, nattrs, fcinfo);
	}
	read_row(fcinfo, cache, 1, state->nattrs, "multibloom_agg", &row);
	for (int i = 0; i < state->nattrs; i++)
	{
		record[i] = row.hashes[i];
		if (row.isnull[i])
			nullmap |= UINT64CONST(1) << i;
	}
	record[state->nattrs] = nullmap;
	hc_add(state->rows_seen, record);
	state->rows++;
	PG_RETURN_POINTER(state);
}

Datum
multibloom_agg_auto_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = aggregate_context(fcinfo, "multibloom_agg_combine");
	MultiBloomAutoState *s1 = PG_ARGISNULL(0) ? NULL : (MultiBloomAutoState *) PG_GETARG_POINTER(0);
	MultiBloomAutoState *s2 = PG_ARGISNULL(1) ? NULL : (MultiBloomAutoState *) PG_GETARG_POINTER(1);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = auto_state_create(aggcxt, s2->nattrs, fcinfo);
	if (s1->nattrs != s2->nattrs)
		elog(ERROR, "multibloom_agg: partial states of %d and %d attributes", s1->nattrs, s2->nattrs);
	hc_merge(s1->rows_seen, s2->rows_seen);
	s1->rows += s2->rows;
	PG_RETURN_POINTER(s1);
}

/* State as bytea: nattrs (4 bytes), rows (8), then the collector's set. */
Datum
multibloom_agg_auto_serial(PG_FUNCTION_ARGS)
{
	MultiBloomAutoState *state = (MultiBloomAutoState *) PG_GETARG_POINTER(0);
	StringInfoData buf;
	int32		nattrs = state->nattrs;

	initStringInfo(&buf);
	appendStringInfoSpaces(&buf, VARHDRSZ);
	appendBinaryStringInfo(&buf, (const char *) &nattrs, sizeof(int32));
	/* rows at offset 8: the collector's words then stay 8-byte aligned */
	appendBinaryStringInfo(&buf, (const char *) &state->rows, sizeof(uint64));
	hc_serialize(state->rows_seen, &buf);
	SET_VARSIZE(buf.data, buf.len);
	PG_RETURN_BYTEA_P((bytea *) buf.data);
}

Datum
multibloom_agg_auto_deserial(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = aggregate_context(fcinfo, "multibloom_agg_deserial");
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	MultiBloomAutoState *state;
	StringInfoData si;
	int32		nattrs;

	if ((uintptr_t) b % sizeof(uint64) != 0)
		b = PG_GETARG_BYTEA_P_COPY(0);
	if (VARSIZE(b) < 16)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized multibloom_agg state")));
	memcpy(&nattrs, VARDATA(b), sizeof(int32));
	if (nattrs < 1 || nattrs > MULTIBLOOM_MAX_ATTRS)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized multibloom_agg state: %d attributes", nattrs)));
	state = MemoryContextAllocZero(aggcxt, sizeof(MultiBloomAutoState));
	state->nattrs = nattrs;
	memcpy(&state->rows, VARDATA(b) + 4, sizeof(uint64));
	/* a read-only view of the payload; the collector copies it */
	si.data = (char *) b;
	si.len = VARSIZE(b);
	si.maxlen = si.len;
	si.cursor = 16;
	state->rows_seen = hc_deserialize(&si, aggcxt, hc_work_mem_limit(), fcinfo);
	if (si.cursor != si.len || state->rows_seen->width != nattrs + 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized multibloom_agg state: bad collector")));
	PG_RETURN_POINTER(state);
}

/* What the parts must hold, gathered in one pass over the distinct rows. */
typedef struct PartCounts
{
	int			nattrs;
	uint64		attr0_distinct; /* rows come sorted on attribute 1 */
	uint64		attr0_last;
	bool		attr0_seen;
	HashCollector *attr_values[MULTIBLOOM_MAX_ATTRS];	/* attributes 2.. */
	uint64		complete_rows;
} PartCounts;

static void
count_parts(const uint64 *rec, void *arg)
{
	PartCounts *pc = (PartCounts *) arg;
	uint64		nullmap = rec[pc->nattrs];

	if (!(nullmap & 1) && (!pc->attr0_seen || rec[0] != pc->attr0_last))
	{
		pc->attr0_distinct++;
		pc->attr0_last = rec[0];
		pc->attr0_seen = true;
	}
	for (int i = 1; i < pc->nattrs; i++)
		if (!(nullmap & (UINT64CONST(1) << i)))
			hc_add1(pc->attr_values[i], rec[i]);
	if (nullmap == 0)
		pc->complete_rows++;
}

static void
insert_row_record(const uint64 *rec, void *arg)
{
	MultiBloom *mb = (MultiBloom *) arg;
	bool		isnull[MULTIBLOOM_MAX_ATTRS];

	for (int i = 0; i < mb->nattrs; i++)
		isnull[i] = (rec[mb->nattrs] >> i) & 1;
	mbf_add_row(mb, rec, isnull);
}

/* The smallest data-sized filter: every part for one value, empty. */
static MultiBloom *
autosized_filter(int nattrs, const double *caps, double row_capacity)
{
	BloomShape	shapes[MULTIBLOOM_MAX_ATTRS + 1];
	char		errbuf[BLOOM_ERRBUF_SIZE];
	MultiBloom *mb;

	if (!mbf_shapes_for(nattrs, caps, row_capacity, MULTIBLOOM_AGG_FPP, shapes, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("multibloom_agg cannot size a filter: %s", errbuf),
				 errhint("Give a capacity and a false-positive probability: multibloom_agg_sized(capacity, fpp, ...).")));
	mb = multibloom_alloc(nattrs, shapes);
	mb->flags |= MULTIBLOOM_FLAG_AUTOSIZED;
	for (int i = 0; i <= nattrs; i++)
		mbf_part(mb, i)->flags |= BLOOM_FLAG_AUTOSIZED;
	return mb;
}

Datum
multibloom_agg_auto_final(PG_FUNCTION_ARGS)
{
	MultiBloomAutoState *state = PG_ARGISNULL(0) ? NULL : (MultiBloomAutoState *) PG_GETARG_POINTER(0);
	double		caps[MULTIBLOOM_MAX_ATTRS];
	PartCounts	pc;
	MultiBloom *mb;
	Size		limit;

	if (state == NULL)
	{
		/* no rows: an empty filter for the call's number of values */
		int			nattrs = agg_row_width(fcinfo, 0);

		if (nattrs < 1 || nattrs > MULTIBLOOM_MAX_ATTRS)
			PG_RETURN_NULL();
		for (int i = 0; i < nattrs; i++)
			caps[i] = 1;
		PG_RETURN_POINTER(autosized_filter(nattrs, caps, 1));
	}

	/* pass 1: distinct values per attribute, distinct complete rows */
	memset(&pc, 0, sizeof(pc));
	pc.nattrs = state->nattrs;
	limit = Max(hc_work_mem_limit() / Max(state->nattrs - 1, 1), 64 * 1024);
	for (int i = 1; i < state->nattrs; i++)
		pc.attr_values[i] = hc_create(CurrentMemoryContext, 1, limit, NULL);
	hc_iterate(state->rows_seen, count_parts, &pc);
	caps[0] = (double) Max(pc.attr0_distinct, 1);
	for (int i = 1; i < state->nattrs; i++)
	{
		caps[i] = (double) Max(hc_count(pc.attr_values[i]), 1);
		hc_free(pc.attr_values[i]);
	}

	/* pass 2: every distinct row into parts sized for their own counts */
	mb = autosized_filter(state->nattrs, caps, (double) Max(pc.complete_rows, 1));
	hc_iterate(state->rows_seen, insert_row_record, mb);
	mb->rows = state->rows;
	PG_RETURN_POINTER(mb);
}
