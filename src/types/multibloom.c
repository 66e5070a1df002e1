/*
 * multibloom.c
 *	  The SQL type "multibloom": a bloom filter per attribute plus a
 *	  whole-row verification filter (core/multibloom.h), with I/O,
 *	  constructor, rows given as VARIADIC "any", projection to bloom, union,
 *	  comparison and statistics; its aggregates are in multibloom_agg.c.
 *	  Values are hashed exactly as bloom hashes them (BloomHasher), so each
 *	  attribute's part is a valid bloom value.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

#include "types/multibloom.h"

PG_FUNCTION_INFO_V1(multibloom_empty);
PG_FUNCTION_INFO_V1(multibloom_add);
PG_FUNCTION_INFO_V1(multibloom_contains);
PG_FUNCTION_INFO_V1(multibloom_attribute);
PG_FUNCTION_INFO_V1(multibloom_union);
PG_FUNCTION_INFO_V1(multibloom_eq);
PG_FUNCTION_INFO_V1(multibloom_ne);
PG_FUNCTION_INFO_V1(multibloom_info);

/* ---------------------------------------------------------------------
 * The multibloom type's descriptor
 * --------------------------------------------------------------------- */

/*
 * Sets the length word of every embedded part, so each is a bloom varlena
 * in place.  The core ignores these words; the host owns them.
 */
static void
set_part_lengths(MultiBloom *mb)
{
	for (int i = 0; i <= mb->nattrs; i++)
		SET_VARSIZE(mbf_part(mb, i), mbf_part_bytes(mb, VARSIZE(mb), i));
}

static void
multibloom_deserialize(const uint8 *buf, void *value)
{
	mbf_deserialize(buf, (MultiBloom *) value);
	set_part_lengths((MultiBloom *) value);
}

FILTER_TYPE_DEFINE(multibloom, mbf, MultiBloom, "multibloom", "multibloom");

/* ---------------------------------------------------------------------
 * Values: allocation, shapes, union
 * --------------------------------------------------------------------- */

MultiBloom *
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

void
multibloom_check_nattrs(int64 nattrs)
{
	if (nattrs < 1 || nattrs > MULTIBLOOM_MAX_ATTRS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of attributes must be between 1 and %d, not " INT64_FORMAT,
						MULTIBLOOM_MAX_ATTRS, nattrs)));
}

MultiBloom *
multibloom_empty_for_capacity(int nattrs, int64 capacity, double fpp)
{
	BloomShape	shapes[MULTIBLOOM_MAX_ATTRS + 1];
	double		caps[MULTIBLOOM_MAX_ATTRS];
	char		errbuf[BLOOM_ERRBUF_SIZE];

	multibloom_check_nattrs(nattrs);
	check_at_least_one(capacity, "capacity");
	for (int i = 0; i < nattrs; i++)
		caps[i] = (double) capacity;
	if (!mbf_shapes_for(nattrs, caps, (double) capacity, fpp, shapes, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid multibloom parameters: %s", errbuf)));
	return multibloom_alloc(nattrs, shapes);
}

void
multibloom_check_compatible(const MultiBloom *a, const MultiBloom *b)
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
			 errhint("Filters unite only when built with the same number of attributes, capacity and fpp, e.g. the same multibloom_empty(nattrs, capacity, fpp) or multibloom_agg_fixed(capacity, fpp, ...) arguments.")));
}

MultiBloom *
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

/* ---------------------------------------------------------------------
 * Rows given as VARIADIC "any"
 *
 * Each call site keeps, in its FilterCallCache, one hasher per attribute
 * (set up on the attribute's first non-null value, so a NULL literal used
 * as a wildcard needs none) and the detoasted filter argument.  Rows are
 * read into fixed arrays: nothing is allocated per row unless the row comes
 * as an explicit VARIADIC array.
 * --------------------------------------------------------------------- */

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
	Node	   *arg = NULL;

	if (AggGetAggref(fcinfo) != NULL)
		arg = agg_arg_expr(fcinfo, argno - 1);
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

FilterCallCache *
multibloom_call_cache(FunctionCallInfo fcinfo, int first_value_argno)
{
	FilterCallCache *cache = filter_call_cache(fcinfo, MULTIBLOOM_MAX_ATTRS);
	Oid			arraytype;
	Oid			elemtype;

	if (likely(cache->values_in_array != 0))
		return cache;
	if (!get_fn_expr_variadic(fcinfo->flinfo))
	{
		cache->values_in_array = -1;
		return cache;
	}
	arraytype = get_fn_expr_argtype(fcinfo->flinfo, first_value_argno);
	elemtype = OidIsValid(arraytype) ? get_element_type(arraytype) : InvalidOid;
	if (!OidIsValid(elemtype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("VARIADIC argument must be an array")));
	filter_call_cache_set_array(cache, elemtype);
	return cache;
}

/* The hasher of attribute i, set up on first use. */
static BloomHasher *
attribute_hasher(FunctionCallInfo fcinfo, FilterCallCache *cache,
				 int first_value_argno, int i)
{
	BloomHasher *hasher = &cache->hashers[i];

	Assert(i < cache->nhashers);
	if (unlikely(hasher->kind == BLOOM_HASH_UNSET))
	{
		bool		in_array = cache->values_in_array > 0;
		int			argno = in_array ? first_value_argno : first_value_argno + i;
		Oid			typid = in_array ? cache->elemtype
			: get_fn_expr_argtype(fcinfo->flinfo, argno);

		bloom_hasher_init(hasher, typid, argument_collation(fcinfo, argno),
						  fcinfo->flinfo->fn_mcxt);
	}
	return hasher;
}

/*
 * Attribute i of the row: hashed with its attribute's seed (the seed of
 * that part of every valid multibloom) under the multibloom's scheme, or
 * NULL.
 */
static inline void
set_attribute(FunctionCallInfo fcinfo, FilterCallCache *cache, int first_value_argno,
			  int i, Datum value, bool isnull, uint8 scheme, MultiBloomRow *row)
{
	row->isnull[i] = isnull;
	row->hashes[i] = isnull ? 0
		: bloom_hasher_value_hash(attribute_hasher(fcinfo, cache, first_value_argno, i),
								  value, mbf_attr_seed(i + 1), scheme);
}

void
multibloom_report_count_mismatch(const char *fname, int given, int nattrs)
{
	/* two counts with a plural each: the attribute count picks the message */
	if (nattrs == 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_plural("%s: %d value given for a multibloom of %d attribute",
							   "%s: %d values given for a multibloom of %d attribute",
							   given, fname, given, nattrs),
				 errhint("Pass one value per attribute, in order; NULL leaves an attribute out of a probe.")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg_plural("%s: %d value given for a multibloom of %d attributes",
						   "%s: %d values given for a multibloom of %d attributes",
						   given, fname, given, nattrs),
			 errhint("Pass one value per attribute, in order; NULL leaves an attribute out of a probe.")));
}

/*
 * The array of argument argno holding a row of nattrs values (or their
 * hashes): an ERROR naming fname if it is NULL or not one-dimensional.
 */
static ArrayType *
row_array_arg(FunctionCallInfo fcinfo, int argno, int nattrs, const char *fname)
{
	ArrayType  *arr;

	if (PG_ARGISNULL(argno))
		multibloom_report_count_mismatch(fname, 0, nattrs);
	arr = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: the VARIADIC array must have one dimension", fname)));
	return arr;
}

/* The row as one array: VARIADIC ARRAY[...]. */
static void
read_array_row(FunctionCallInfo fcinfo, FilterCallCache *cache, int first_value_argno,
			   int nattrs, uint8 scheme, const char *fname, MultiBloomRow *row)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;

	arr = row_array_arg(fcinfo, first_value_argno, nattrs, fname);
	deconstruct_array(arr, cache->elemtype, cache->elemlen, cache->elembyval,
					  cache->elemalign, &elems, &nulls, &nelems);
	if (nelems != nattrs)
		multibloom_report_count_mismatch(fname, nelems, nattrs);
	for (int i = 0; i < nattrs; i++)
		set_attribute(fcinfo, cache, first_value_argno, i, elems[i], nulls[i], scheme, row);
	pfree(elems);
	pfree(nulls);
}

void
multibloom_read_row(FunctionCallInfo fcinfo, FilterCallCache *cache, int first_value_argno,
					int nattrs, uint8 scheme, const char *fname, MultiBloomRow *row)
{
	int			given = PG_NARGS() - first_value_argno;

	if (cache->values_in_array > 0)
	{
		read_array_row(fcinfo, cache, first_value_argno, nattrs, scheme, fname, row);
		return;
	}
	if (given != nattrs)
		multibloom_report_count_mismatch(fname, given, nattrs);
	for (int i = 0; i < nattrs; i++)
		set_attribute(fcinfo, cache, first_value_argno, i,
					  PG_GETARG_DATUM(first_value_argno + i),
					  PG_ARGISNULL(first_value_argno + i), scheme, row);
}

int
multibloom_row_width(FunctionCallInfo fcinfo, FilterCallCache *cache, int first_value_argno)
{
	ArrayType  *arr;

	if (cache->values_in_array < 0)
		return PG_NARGS() - first_value_argno;
	if (PG_ARGISNULL(first_value_argno))
		return 0;
	arr = PG_GETARG_ARRAYTYPE_P(first_value_argno);
	return ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
}

/* ---------------------------------------------------------------------
 * Rows given as their attributes' hashes: one bigint[] whose element i is
 * bloom_hash(attribute i + 1, mbf_attr_seed(i + 1)), NULL for a NULL
 * attribute (the hashed aggregates).
 * --------------------------------------------------------------------- */

int
multibloom_hashed_row_width(FunctionCallInfo fcinfo, int argno)
{
	ArrayType  *arr;

	if (PG_ARGISNULL(argno))
		return 0;
	arr = PG_GETARG_ARRAYTYPE_P(argno);
	return ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
}

void
multibloom_read_hashed_row(FunctionCallInfo fcinfo, int argno, int nattrs, const char *fname,
						   MultiBloomRow *row)
{
	ArrayType  *arr;
	const char *data;
	const bits8 *nulls;
	int			given;

	arr = row_array_arg(fcinfo, argno, nattrs, fname);
	if (ARR_ELEMTYPE(arr) != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the hashes must be a bigint array", fname)));
	given = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	if (given != nattrs)
		multibloom_report_count_mismatch(fname, given, nattrs);
	/* bigint elements are 8 bytes each, with no padding; NULLs take none */
	data = ARR_DATA_PTR(arr);
	nulls = ARR_NULLBITMAP(arr);
	for (int i = 0; i < nattrs; i++)
	{
		row->isnull[i] = nulls != NULL && !(nulls[i / 8] & (1 << (i % 8)));
		row->hashes[i] = 0;
		if (!row->isnull[i])
		{
			memcpy(&row->hashes[i], data, sizeof(uint64));
			data += sizeof(uint64);
		}
	}
}

/* ---------------------------------------------------------------------
 * I/O: text is canonical base64 of the binary format; binary and bytea
 * are the binary format (doc/multibloom.md).  multibloom_in,
 * multibloom_out, multibloom_recv, multibloom_send (also the cast to
 * bytea) and multibloom_from_bytea.
 * --------------------------------------------------------------------- */

FILTER_TYPE_IO_FUNCTIONS(multibloom, multibloom_type);

/* ---------------------------------------------------------------------
 * Construction, adding and probing
 * --------------------------------------------------------------------- */

Datum
multibloom_empty(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(multibloom_empty_for_capacity(PG_GETARG_INT32(0), PG_GETARG_INT64(1),
													PG_GETARG_FLOAT8(2)));
}

/* multibloom_add(f, VARIADIC "any"): a copy of f with the row added. */
Datum
multibloom_add(PG_FUNCTION_ARGS)
{
	FilterCallCache *cache;
	MultiBloomRow row;
	MultiBloom *mb;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	cache = multibloom_call_cache(fcinfo, 1);
	mb = filter_copy(PG_GETARG_MULTIBLOOM(0));
	multibloom_read_row(fcinfo, cache, 1, mb->nattrs, mbf_hash_scheme(mb), "multibloom_add",
						&row);
	mbf_add_row(mb, row.hashes, row.isnull);
	PG_RETURN_POINTER(mb);
}

/* The probe: the hot path of a prefilter, so nothing allocates per row. */
Datum
multibloom_contains(PG_FUNCTION_ARGS)
{
	FilterCallCache *cache;
	const MultiBloom *mb;
	MultiBloomRow row;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	cache = multibloom_call_cache(fcinfo, 1);
	mb = filter_arg_cached(fcinfo, 0, &cache->filter_arg, &multibloom_type);
	multibloom_read_row(fcinfo, cache, 1, mb->nattrs, mbf_hash_scheme(mb),
						"multibloom_contains", &row);
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

/* A NULL argument is ignored, as multibloom_union_agg skips NULL rows. */
Datum
multibloom_union(PG_FUNCTION_ARGS)
{
	const MultiBloom *a;
	const MultiBloom *b;

	if (PG_ARGISNULL(0) && PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_POINTER(PG_GETARG_MULTIBLOOM(PG_ARGISNULL(0) ? 1 : 0));
	a = PG_GETARG_MULTIBLOOM(0);
	b = PG_GETARG_MULTIBLOOM(1);
	multibloom_check_compatible(a, b);
	PG_RETURN_POINTER(multibloom_union_new(a, b));
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

/* An array of the n values of v, of elemtype bigint or double precision. */
static Datum
part_array(const void *v, int n, Oid elemtype)
{
	Datum		d[MULTIBLOOM_MAX_ATTRS + 1];

	for (int i = 0; i < n; i++)
		d[i] = elemtype == INT8OID ? Int64GetDatum(((const int64 *) v)[i])
			: Float8GetDatum(((const double *) v)[i]);
	return PointerGetDatum(construct_array(d, n, elemtype, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
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
	values[MI_NBITS] = part_array(nbits, nparts, INT8OID);
	values[MI_NHASHES] = PointerGetDatum(construct_array(nhashes, nparts, INT4OID, 4, true, TYPALIGN_INT));
	values[MI_SEED] = part_array(seed, nparts, INT8OID);
	values[MI_INSERTED] = part_array(inserted, nparts, INT8OID);
	values[MI_BITS_SET] = part_array(bits_set, nparts, INT8OID);
	values[MI_FILL] = part_array(fill, nparts, FLOAT8OID);
	values[MI_ESTIMATED_COUNT] = part_array(count, nparts, FLOAT8OID);
	values[MI_FPP] = part_array(fpp, nparts, FLOAT8OID);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
