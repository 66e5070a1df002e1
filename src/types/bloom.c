/*
 * bloom.c
 *	  The SQL type "bloom": I/O, constructors, membership, set operations and
 *	  statistics.  The algorithms live in the core (core/filter.h); reading,
 *	  checking and hashing values in the shared glue (types/bloomfilter.h).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "types/bloom.h"
#include "types/bloomfilter.h"
#include "types/interop_value.h"
#include "core/hash_records.h"

PG_FUNCTION_INFO_V1(bloom_empty);
PG_FUNCTION_INFO_V1(bloom_empty_layout);
PG_FUNCTION_INFO_V1(bloom_empty_with);
PG_FUNCTION_INFO_V1(bloom_add);
PG_FUNCTION_INFO_V1(bloom_add_all);
PG_FUNCTION_INFO_V1(bloom_contains);
PG_FUNCTION_INFO_V1(bloom_contained_by);
PG_FUNCTION_INFO_V1(bloom_union);
PG_FUNCTION_INFO_V1(bloom_intersect);
PG_FUNCTION_INFO_V1(bloom_eq);
PG_FUNCTION_INFO_V1(bloom_ne);
PG_FUNCTION_INFO_V1(bloom_cardinality);
PG_FUNCTION_INFO_V1(bloom_fpp);
PG_FUNCTION_INFO_V1(bloom_info);

/* ---------------------------------------------------------------------
 * I/O: text is canonical base64 of the binary format; binary and bytea are
 * the binary format itself (doc/format.md).  bloom_in, bloom_out,
 * bloom_recv, bloom_send (also the cast to bytea) and bloom_from_bytea.
 * --------------------------------------------------------------------- */

FILTER_TYPE_IO_FUNCTIONS(bloom, bloom_type);

/* ---------------------------------------------------------------------
 * Constructors
 * --------------------------------------------------------------------- */

static BloomFilter *
empty_for_capacity(int64 capacity, double fpp, int layout)
{
	BloomShape	shape;

	bloom_shape_for_capacity(capacity, fpp, layout, &shape);
	return bloom_alloc(&shape);
}

Datum
bloom_empty(PG_FUNCTION_ARGS)
{
	PG_RETURN_BLOOM(empty_for_capacity(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1),
									   BLOOM_LAYOUT_CLASSIC));
}

Datum
bloom_empty_layout(PG_FUNCTION_ARGS)
{
	int			layout = bloom_layout_from_name(text_to_cstring(PG_GETARG_TEXT_PP(2)));

	PG_RETURN_BLOOM(empty_for_capacity(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1), layout));
}

Datum
bloom_empty_with(PG_FUNCTION_ARGS)
{
	int64		nbits = PG_GETARG_INT64(0);
	int32		nhashes = PG_GETARG_INT32(1);
	BloomShape	shape;
	char		errbuf[BLOOM_ERRBUF_SIZE];

	check_at_least_one(nbits, "number of bits");
	check_at_least_one(nhashes, "number of hash functions");
	memset(&shape, 0, sizeof(shape));
	shape.layout = BLOOM_LAYOUT_CLASSIC;
	shape.nbits = (uint64) nbits;
	shape.nhashes = (uint32) nhashes;
	if (!bf_shape_check(&shape, errbuf))
		bloom_report_shape_error(errbuf);
	PG_RETURN_BLOOM(bloom_alloc(&shape));
}

/* ---------------------------------------------------------------------
 * Adding and probing
 * --------------------------------------------------------------------- */

/*
 * An explicit filter with more values: its union with the list of their
 * hashes (n ascending, distinct; values counts them with repeats), so it
 * stays a list up to BLOOM_EXPLICIT_MAX and then becomes the bit array
 * sized for the merged count, exactly as bloom_union would make it.
 */
static BloomFilter *
add_to_list(const BloomFilter *f, const uint64 *hashes, uint64 n, uint64 values)
{
	BloomShape	shape;
	BloomFilter *added;
	BloomFilter *result;

	/* a transient list, not bounded by BLOOM_EXPLICIT_MAX */
	bf_explicit_shape(n, f->seed, &shape);
	if (bf_shape_bytes(&shape) > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many values to add at once: " UINT64_FORMAT, n)));
	added = (BloomFilter *) palloc0((Size) bf_shape_bytes(&shape));
	SET_VARSIZE(added, bf_shape_bytes(&shape));
	bf_init(added, &shape);
	/* the hashes were computed under f's scheme */
	added->hash_scheme = f->hash_scheme;
	added->flags = BLOOM_FLAG_AUTOSIZED;
	added->inserted = values;
	memcpy(added->words, hashes, sizeof(uint64) * n);
	result = bloom_setop(f, added, false);
	pfree(added);
	return result;
}

/* bloom_add(f, value): a copy of f with value added; NULL value: f itself. */
Datum
bloom_add(PG_FUNCTION_ARGS)
{
	FilterCallCache *cache;
	const BloomFilter *in;
	BloomFilter *f;
	uint64		hash;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	cache = bloom_call_cache(fcinfo, 1);
	in = PG_GETARG_BLOOM(0);
	if (bf_layout_interop(in->layout))
	{
		/* the other system's hash of the value's interop bytes */
		InteropEncoder *enc = bloom_interop_encoder_for_arg(fcinfo, &cache->interop, in, 1);

		f = filter_copy(in);
		bf_insert(f, bloom_interop_hash(enc, f, PG_GETARG_DATUM(1)));
		PG_RETURN_BLOOM(f);
	}
	hash = bloom_hasher_value_hash(&cache->hashers[0], PG_GETARG_DATUM(1), in->seed,
								   in->hash_scheme);
	if (bf_is_explicit(in))
		PG_RETURN_BLOOM(add_to_list(in, &hash, 1, 1));
	f = filter_copy(in);
	bf_insert(f, bf_hash_derive(hash));
	PG_RETURN_BLOOM(f);
}

/*
 * The call site's cache for an array of values: the element type (taken
 * from the first array, as the call site fixes it) and its hasher.
 */
static FilterCallCache *
array_call_cache(FunctionCallInfo fcinfo, const ArrayType *values)
{
	FilterCallCache *cache = filter_call_cache(fcinfo, 1);

	if (cache->values_in_array == 0)
	{
		bloom_hasher_init(&cache->hashers[0], ARR_ELEMTYPE(values),
						  PG_GET_COLLATION(), fcinfo->flinfo->fn_mcxt);
		filter_call_cache_set_array(cache, ARR_ELEMTYPE(values));
	}
	return cache;
}

/*
 * Where bloom_add_all puts each element's hash: into the copy of a bit
 * array, through the prefetching inserter, or into the array of hashes to
 * unite with an explicit filter.
 */
typedef struct AddAllSink
{
	BloomFilter *f;				/* bit array: the copy being added to */
	BfInserter	inserter;
	uint64	   *hashes;			/* explicit: hashes collected, or NULL */
	uint64		nhashes;
} AddAllSink;

static inline void
sink_add(AddAllSink *sink, uint64 hash)
{
	if (sink->hashes)
		sink->hashes[sink->nhashes++] = hash;
	else
		bf_inserter_add(&sink->inserter, sink->f, bf_hash_derive(hash));
}

/*
 * bloom_add_all of an interop filter: each element's interop hash, inserted
 * through the prefetching inserter.
 */
static BloomFilter *
interop_add_all(FilterCallCache *cache, const BloomFilter *in, ArrayType *values)
{
	BloomFilter *f = filter_copy(in);
	InteropEncoder enc;
	BfInserter	inserter;
	ArrayIterator it = array_create_iterator(values, 0, NULL);
	Datum		elem;
	bool		isnull;

	bloom_interop_encoder_prepare(&enc, f, cache->elemtype);
	bf_inserter_init(&inserter);
	while (array_iterate(it, &elem, &isnull))
	{
		if (!isnull)
			bf_inserter_add(&inserter, f, bloom_interop_hash(&enc, f, elem));
	}
	array_free_iterator(it);
	bf_inserter_flush(&inserter, f);
	return f;
}

/* bloom_add_all(f, values[]): a copy of f with every non-null element added. */
Datum
bloom_add_all(PG_FUNCTION_ARGS)
{
	FilterCallCache *cache;
	BloomHasher *hasher;
	const BloomFilter *in;
	ArrayType  *values;
	AddAllSink	sink;
	int			nitems;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	values = PG_GETARG_ARRAYTYPE_P(1);
	cache = array_call_cache(fcinfo, values);
	hasher = &cache->hashers[0];
	in = PG_GETARG_BLOOM(0);
	if (bf_layout_interop(in->layout))
		PG_RETURN_BLOOM(interop_add_all(cache, in, values));
	nitems = ArrayGetNItems(ARR_NDIM(values), ARR_DIMS(values));
	memset(&sink, 0, sizeof(sink));
	if (bf_is_explicit(in))
		sink.hashes = palloc_extended(sizeof(uint64) * Max(nitems, 1), MCXT_ALLOC_HUGE);
	else
		sink.f = filter_copy(in);
	if (!ARR_HASNULL(values) && cache->elembyval &&
		(cache->elemlen == 8 || cache->elemlen == 4 || cache->elemlen == 2))
	{
		/* fixed-width by-value elements without NULLs: read them in place */
		const char *p = ARR_DATA_PTR(values);

		for (int i = 0; i < nitems; i++, p += cache->elemlen)
			sink_add(&sink, bloom_hasher_value_hash(hasher, fetch_att(p, true, cache->elemlen),
													in->seed, in->hash_scheme));
	}
	else
	{
		ArrayIterator it = array_create_iterator(values, 0, NULL);
		Datum		elem;
		bool		isnull;

		while (array_iterate(it, &elem, &isnull))
		{
			if (!isnull)
				sink_add(&sink, bloom_hasher_value_hash(hasher, elem, in->seed,
														in->hash_scheme));
		}
		array_free_iterator(it);
	}
	if (sink.hashes)
	{
		uint64		distinct = bf_records_sort_unique(sink.hashes, 0, sink.nhashes, 1);

		PG_RETURN_BLOOM(add_to_list(in, sink.hashes, distinct, sink.nhashes));
	}
	bf_inserter_flush(&sink.inserter, sink.f);
	PG_RETURN_BLOOM(sink.f);
}

/* The probe: the hot path of a prefilter, so nothing here allocates per row. */
static inline bool
contains(FunctionCallInfo fcinfo, int filter_argno, int value_argno)
{
	FilterCallCache *cache = bloom_call_cache(fcinfo, value_argno);
	const BloomFilter *f = filter_arg_cached(fcinfo, filter_argno, &cache->filter_arg,
											 &bloom_type);

	if (unlikely(bf_layout_interop(f->layout)))
		return bloom_interop_contains(bloom_interop_encoder_for_arg(fcinfo, &cache->interop,
																	f, value_argno),
									  f, PG_GETARG_DATUM(value_argno));
	return bf_contains_value(f, bloom_hasher_value_hash(&cache->hashers[0],
														PG_GETARG_DATUM(value_argno),
														f->seed, f->hash_scheme));
}

Datum
bloom_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains(fcinfo, 0, 1));
}

/* value <@ f */
Datum
bloom_contained_by(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains(fcinfo, 1, 0));
}

/* ---------------------------------------------------------------------
 * Set operations and comparison
 * --------------------------------------------------------------------- */

/*
 * a | b and a & b as new filters, by the core's rules (filter.h): bit
 * arrays of different data-sized sizes fold onto the smaller, an empty
 * data-sized filter is the identity of union, an explicit list unites with
 * a bit array at the bit array's size.
 */
/*
 * bloom_union and bloom_intersect ignore a NULL argument, as
 * bloom_union_agg and bloom_intersect_agg skip NULL rows: f(a, NULL) = a,
 * f(NULL, NULL) = NULL.  (Not STRICT since 1.1.)
 */
static Datum
setop_nullable(FunctionCallInfo fcinfo, bool intersect)
{
	if (PG_ARGISNULL(0) && PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_BLOOM(PG_GETARG_BLOOM(PG_ARGISNULL(0) ? 1 : 0));
	PG_RETURN_BLOOM(bloom_setop(PG_GETARG_BLOOM(0), PG_GETARG_BLOOM(1), intersect));
}

Datum
bloom_union(PG_FUNCTION_ARGS)
{
	return setop_nullable(fcinfo, false);
}

Datum
bloom_intersect(PG_FUNCTION_ARGS)
{
	return setop_nullable(fcinfo, true);
}

Datum
bloom_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(bf_equal(PG_GETARG_BLOOM(0), PG_GETARG_BLOOM(1)));
}

Datum
bloom_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!bf_equal(PG_GETARG_BLOOM(0), PG_GETARG_BLOOM(1)));
}

/* ---------------------------------------------------------------------
 * Statistics
 * --------------------------------------------------------------------- */

Datum
bloom_cardinality(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(bf_estimate_count(PG_GETARG_BLOOM(0)));
}

Datum
bloom_fpp(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(bf_estimate_fpp(PG_GETARG_BLOOM(0)));
}

/* Columns of bloom_info, in the order the SQL declaration gives them. */
enum
{
	INFO_LAYOUT, INFO_NBITS, INFO_NHASHES, INFO_SEED, INFO_INSERTED,
	INFO_BITS_SET, INFO_FILL, INFO_ESTIMATED_COUNT, INFO_FPP, INFO_BYTES,
	INFO_FULL_AT, INFO_ROWS, INFO_LOCATORS, INFO_FORMAT_VERSION, INFO_FLAGS,
	INFO_NCOLUMNS
};

Datum
bloom_info(PG_FUNCTION_ARGS)
{
	const BloomFilter *f = PG_GETARG_BLOOM(0);
	TupleDesc	tupdesc;
	Datum		values[INFO_NCOLUMNS];
	bool		nulls[INFO_NCOLUMNS];
	uint64		bits_set = bf_bits_set(f);
	bool		matrix = f->layout == BLOOM_LAYOUT_MATRIX;
	bool		list = bf_is_explicit(f);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);
	if (tupdesc->natts != INFO_NCOLUMNS)
		elog(ERROR, "bloom_info: SQL declaration has %d columns, expected %d",
			 tupdesc->natts, INFO_NCOLUMNS);

	memset(nulls, 0, sizeof(nulls));
	values[INFO_LAYOUT] = CStringGetTextDatum(bf_layout_name(f->layout));
	values[INFO_NBITS] = Int64GetDatum((int64) f->nbits);
	values[INFO_NHASHES] = Int32GetDatum((int32) f->nhashes);
	values[INFO_SEED] = Int64GetDatum((int64) f->seed);
	values[INFO_INSERTED] = Int64GetDatum(f->inserted > PG_INT64_MAX ? PG_INT64_MAX : (int64) f->inserted);
	/* a list has no bits: nbits is 64 per listed hash, as in its header */
	values[INFO_BITS_SET] = Int64GetDatum((int64) bits_set);
	nulls[INFO_BITS_SET] = list;
	values[INFO_FILL] = Float8GetDatum(list ? 0.0 : (double) bits_set / (double) f->nbits);
	nulls[INFO_FILL] = list;
	values[INFO_ESTIMATED_COUNT] = Float8GetDatum(bf_estimate_count(f));
	values[INFO_FPP] = Float8GetDatum(bf_estimate_fpp(f));
	values[INFO_BYTES] = Int32GetDatum((int32) VARSIZE(f));
	values[INFO_FULL_AT] = Int64GetDatum(f->full_at);
	nulls[INFO_FULL_AT] = !matrix || f->full_at == BLOOM_NEVER_FULL;
	values[INFO_ROWS] = Int32GetDatum((int32) f->rows);
	nulls[INFO_ROWS] = !matrix;
	values[INFO_LOCATORS] = Int32GetDatum((int32) f->locators);
	nulls[INFO_LOCATORS] = !matrix;
	values[INFO_FORMAT_VERSION] = Int32GetDatum(f->version);
	values[INFO_FLAGS] = Int32GetDatum(f->flags);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

PG_FUNCTION_INFO_V1(bloom_hash);

/*
 * bloom_hash(value, seed): the value hash of the newest scheme, what a new
 * filter with that seed lists or derives its positions from.  Lets clients
 * that build filters outside the server hash as it does, feeds the hashed
 * aggregates of a distributed plan, and lets the tests check the direct
 * hashing paths of bloomfilter.h against the opclass functions.
 */
Datum
bloom_hash(PG_FUNCTION_ARGS)
{
	FilterCallCache *cache = bloom_call_cache(fcinfo, 0);

	PG_RETURN_INT64((int64) bloom_hasher_value_hash(&cache->hashers[0], PG_GETARG_DATUM(0),
													(uint64) PG_GETARG_INT64(1),
													BLOOM_HASH_SCHEME_NEWEST));
}
