/*
 * bloom_agg.c
 *	  Aggregates: bloom_agg (sized to the data, or of a fixed shape),
 *	  bloom_union_agg and bloom_intersect_agg, with parallel support.
 *
 *	  Every transition state is internal and mutated in place: the fixed
 *	  shape keeps the filter itself, the data-sized form keeps the distinct
 *	  raw hashes of the values in a HashCollector (bounded by work_mem,
 *	  spilling to temporary files) and builds the filter in the final
 *	  function, when the number of distinct values is known.  The design and
 *	  its costs are described in doc/aggregates.md.
 */
#include "bloomfilter.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "hash_collector.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

PG_FUNCTION_INFO_V1(bloom_agg_trans);
PG_FUNCTION_INFO_V1(bloom_agg_fixed_trans);
PG_FUNCTION_INFO_V1(bloom_agg_final);
PG_FUNCTION_INFO_V1(bloom_agg_fixed_final);
PG_FUNCTION_INFO_V1(bloom_agg_combine);
PG_FUNCTION_INFO_V1(bloom_agg_serialize);
PG_FUNCTION_INFO_V1(bloom_agg_deserialize);
PG_FUNCTION_INFO_V1(bloom_union_agg_trans);
PG_FUNCTION_INFO_V1(bloom_intersect_agg_trans);
PG_FUNCTION_INFO_V1(bloom_union_agg_combine);
PG_FUNCTION_INFO_V1(bloom_intersect_agg_combine);
PG_FUNCTION_INFO_V1(bloom_setop_agg_final);
PG_FUNCTION_INFO_V1(bloom_setop_agg_serialize);
PG_FUNCTION_INFO_V1(bloom_setop_agg_deserialize);

/*
 * State of bloom_agg: exactly one of filter (fixed shape) and hashes
 * (sized to the data) is set.
 */
typedef struct BloomAggState
{
	BloomFilter *filter;		/* fixed shape: the filter being built */
	HashCollector *hashes;		/* sized to the data: distinct raw hashes */
	uint64		rows;			/* sized to the data: non-null values added */
	BfInserter	inserter;		/* fixed shape: values not yet in filter
								 * (flushed before it is read or combined) */
} BloomAggState;

/* Serialized state: one kind byte, then the kind's payload. */
#define AGG_SERIAL_FIXED	'F'
#define AGG_SERIAL_SIZED	'S'

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called in non-aggregate context", fname)));
	return aggcxt;
}

/*
 * Per call site (fn_extra of the transition function): the value type's
 * hasher, looked up once, and a call frame for it prepared once, so the
 * per-row path only stores two arguments and calls the hash function.
 */
typedef struct AggHashSite
{
	BloomHasher hasher;
	union
	{
		FunctionCallInfoBaseData fcinfo;
		char		space[SizeForFunctionCallInfo(2)];
	}			call;
} AggHashSite;

static pg_noinline AggHashSite *
agg_hash_site_init(FunctionCallInfo fcinfo)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;
	AggHashSite *site = MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(AggHashSite));

	bloom_hasher_init(&site->hasher, get_fn_expr_argtype(flinfo, 1),
					  PG_GET_COLLATION(), flinfo->fn_mcxt);
	InitFunctionCallInfoData(site->call.fcinfo, &site->hasher.proc, 2,
							 site->hasher.collation, NULL, NULL);
	site->call.fcinfo.args[0].isnull = false;
	site->call.fcinfo.args[1].isnull = false;
	flinfo->fn_extra = site;
	return site;
}

static inline AggHashSite *
agg_hash_site(FunctionCallInfo fcinfo)
{
	AggHashSite *site = (AggHashSite *) fcinfo->flinfo->fn_extra;

	return likely(site != NULL) ? site : agg_hash_site_init(fcinfo);
}

/* The type's extended hash of value with seed: FunctionCall2Coll, prepared. */
static inline uint64
site_hash(AggHashSite *site, Datum value, uint64 seed)
{
	FunctionCallInfo call = &site->call.fcinfo;
	Datum		result;

	call->args[0].value = value;
	call->args[1].value = UInt64GetDatum(seed);
	call->isnull = false;
	result = call->flinfo->fn_addr(call);
	if (unlikely(call->isnull))
		elog(ERROR, "hash function %u returned NULL", call->flinfo->fn_oid);
	return DatumGetUInt64(result);
}

/* ---------------------------------------------------------------------
 * bloom_agg(value): sized to the data
 * --------------------------------------------------------------------- */

static BloomAggState *
new_sized_state(FunctionCallInfo fcinfo, MemoryContext aggcxt)
{
	BloomAggState *state = MemoryContextAllocZero(aggcxt, sizeof(BloomAggState));

	state->hashes = hc_create(aggcxt, 1, hc_work_mem_limit(), fcinfo);
	return state;
}

Datum
bloom_agg_trans(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);

	/* a non-null internal state can only come from this aggregate */
	if (state == NULL)
		state = new_sized_state(fcinfo, agg_context(fcinfo, "bloom_agg_trans"));
	if (!PG_ARGISNULL(1))
	{
		/* the raw hash with seed 0: the final filter derives its bits from it */
		hc_add1(state->hashes, site_hash(agg_hash_site(fcinfo), PG_GETARG_DATUM(1), 0));
		state->rows++;
	}
	PG_RETURN_POINTER(state);
}

/* Inserts one collected hash, prefetching like the fixed-shape path. */
static void
insert_raw_hash(const uint64 *rec, void *arg)
{
	BloomAggState *state = (BloomAggState *) arg;

	bf_inserter_add(&state->inserter, state->filter, bf_hash_derive(rec[0]));
}

/*
 * The filter of a data-sized state: shape from the exact distinct count,
 * then every distinct hash inserted.  A NULL state (no rows) gives the
 * smallest auto-sized filter, empty, which still unites with any other.
 */
static BloomFilter *
sized_filter(BloomAggState *state)
{
	uint64		ndistinct = state ? hc_count(state->hashes) : 0;
	BloomShape	shape;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;

	if (!bf_shape_datasized((double) ndistinct, &shape, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_agg cannot size a filter: %s", errbuf),
				 errhint("Give a capacity and a false-positive probability: bloom_agg(value, capacity, fpp).")));
	f = bloom_alloc(&shape);
	f->flags |= BLOOM_FLAG_AUTOSIZED;
	if (state)
	{
		/* a throwaway fixed-shape state gives the insertions their prefetch */
		BloomAggState loader = {.filter = f};

		hc_iterate(state->hashes, insert_raw_hash, &loader);
		bf_inserter_flush(&loader.inserter, f);
		f->inserted = state->rows;
	}
	return f;
}

Datum
bloom_agg_final(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);

	agg_context(fcinfo, "bloom_agg_final");
	PG_RETURN_BLOOM(sized_filter(state));
}

/* ---------------------------------------------------------------------
 * bloom_agg(value, capacity, fpp [, layout]): a fixed shape
 * --------------------------------------------------------------------- */

/*
 * An empty filter for an aggregate state.  A big filter is touched at
 * random on every row, so TLB misses cost as much as cache misses; on Linux
 * it asks for transparent huge pages before the memory is first touched
 * (only a hint: where THP is off, nothing changes).
 */
#define HUGE_PAGE_BYTES		((Size) 2 * 1024 * 1024)

static BloomFilter *
alloc_state_filter(const BloomShape *shape)
{
	uint64		bytes = bf_struct_bytes(shape->nbits);
	BloomFilter *f;

	if (bytes < 4 * HUGE_PAGE_BYTES)
		return bloom_alloc(shape);
	/* the shape check bounded nbits, so bytes is below 1 GB */
	f = (BloomFilter *) palloc((Size) bytes);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	{
		uintptr_t	start = TYPEALIGN(HUGE_PAGE_BYTES, (uintptr_t) f);
		uintptr_t	end = TYPEALIGN_DOWN(HUGE_PAGE_BYTES, (uintptr_t) f + bytes);

		if (end > start)
			(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
	}
#endif
	memset(f, 0, (Size) bytes);
	SET_VARSIZE(f, bytes);
	bf_init(f, shape);
	return f;
}

/*
 * The shape of bloom_empty(capacity, fpp [, layout]), so the aggregate and
 * bloom_add_all on bloom_empty give the same bits.
 */
static void
fixed_shape(int64 capacity, double fpp, const char *layout_name, BloomShape *shape)
{
	int			layout = BLOOM_LAYOUT_CLASSIC;
	char		errbuf[BLOOM_ERRBUF_SIZE];

	if (layout_name != NULL)
	{
		layout = bf_layout_from_name(layout_name);
		if (layout < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown bloom filter layout \"%s\"", layout_name),
					 errhint("Valid layouts are \"classic\", \"blocked\" and \"matrix\".")));
	}
	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be at least 1, not " INT64_FORMAT, capacity)));
	if (!bf_shape_for((double) capacity, fpp, layout, shape, errbuf))
		bloom_report_shape_error(errbuf);
}

static void
require_not_null(FunctionCallInfo fcinfo, int argno, const char *what)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("bloom_agg %s must not be NULL", what)));
}

/*
 * Transition of both fixed forms (3 and 4 arguments).  The shape comes from
 * the first row of each group; the value is hashed exactly as bloom_add
 * does, with the filter's seed.
 */
Datum
bloom_agg_fixed_trans(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);

	if (state == NULL)
	{
		MemoryContext aggcxt = agg_context(fcinfo, "bloom_agg_fixed_trans");
		BloomShape	shape;
		char	   *layout = NULL;
		MemoryContext old;

		require_not_null(fcinfo, 2, "capacity");
		require_not_null(fcinfo, 3, "false-positive probability");
		if (PG_NARGS() > 4)
		{
			require_not_null(fcinfo, 4, "layout");
			layout = text_to_cstring(PG_GETARG_TEXT_PP(4));
		}
		fixed_shape(PG_GETARG_INT64(2), PG_GETARG_FLOAT8(3), layout, &shape);
		old = MemoryContextSwitchTo(aggcxt);
		state = palloc0(sizeof(BloomAggState));
		state->filter = alloc_state_filter(&shape);
		MemoryContextSwitchTo(old);
	}
	if (!PG_ARGISNULL(1))
	{
		uint64		hash = site_hash(agg_hash_site(fcinfo), PG_GETARG_DATUM(1),
									 state->filter->seed);

		/* exactly bloom_hasher_hash, as bloom_add uses */
		bf_inserter_add(&state->inserter, state->filter, bf_hash_derive(hash));
	}
	PG_RETURN_POINTER(state);
}

/*
 * The constant argument argno of the aggregate call, if the planner left
 * one there (it does for literals and folded casts); else false.
 */
static bool
const_agg_arg(FunctionCallInfo fcinfo, int argno, Datum *value)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	TargetEntry *tle;

	if (aggref == NULL || list_length(aggref->args) <= argno)
		return false;
	tle = (TargetEntry *) list_nth(aggref->args, argno);
	if (!IsA(tle->expr, Const) || ((Const *) tle->expr)->constisnull)
		return false;
	*value = ((Const *) tle->expr)->constvalue;
	return true;
}

/*
 * Over no rows at all the transition never ran, so the shape is read from
 * the call's constant arguments: an empty filter, like bloom_empty.  When
 * they are not constants (or a parallel plan hid them) the result is NULL.
 */
static BloomFilter *
fixed_filter_without_rows(FunctionCallInfo fcinfo)
{
	Datum		capacity,
				fpp,
				layout;
	BloomShape	shape;
	int			nargs;
	Aggref	   *aggref = AggGetAggref(fcinfo);

	if (aggref == NULL)
		return NULL;
	nargs = list_length(aggref->args);
	if (nargs < 3 || !const_agg_arg(fcinfo, 1, &capacity) || !const_agg_arg(fcinfo, 2, &fpp))
		return NULL;
	if (nargs > 3)
	{
		if (!const_agg_arg(fcinfo, 3, &layout))
			return NULL;
		fixed_shape(DatumGetInt64(capacity), DatumGetFloat8(fpp),
					TextDatumGetCString(layout), &shape);
	}
	else
		fixed_shape(DatumGetInt64(capacity), DatumGetFloat8(fpp), NULL, &shape);
	return bloom_alloc(&shape);
}

Datum
bloom_agg_fixed_final(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomFilter *f;

	agg_context(fcinfo, "bloom_agg_fixed_final");
	if (state == NULL)
	{
		f = fixed_filter_without_rows(fcinfo);
		if (f == NULL)
			PG_RETURN_NULL();
		PG_RETURN_BLOOM(f);
	}
	bf_inserter_flush(&state->inserter, state->filter);
	/* the executor copies a result that lives in the aggregate's memory */
	PG_RETURN_BLOOM(state->filter);
}

/* ---------------------------------------------------------------------
 * bloom_agg parallel support (both forms)
 * --------------------------------------------------------------------- */

Datum
bloom_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "bloom_agg_combine");
	BloomAggState *a = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomAggState *b = PG_ARGISNULL(1) ? NULL : (BloomAggState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		PG_RETURN_POINTER(a);
	if (a == NULL)
	{
		/* b may live in a per-call context: copy it into ours */
		MemoryContext old = MemoryContextSwitchTo(aggcxt);

		a = palloc0(sizeof(BloomAggState));
		if (b->filter)
		{
			bf_inserter_flush(&b->inserter, b->filter);
			a->filter = bloom_copy(b->filter);
		}
		else
		{
			a->hashes = hc_create(aggcxt, 1, hc_work_mem_limit(), fcinfo);
			hc_merge(a->hashes, b->hashes);
			a->rows = b->rows;
		}
		MemoryContextSwitchTo(old);
		PG_RETURN_POINTER(a);
	}
	if ((a->filter == NULL) != (b->filter == NULL))
		elog(ERROR, "bloom_agg_combine: states of different forms");
	if (a->filter)
	{
		bf_inserter_flush(&a->inserter, a->filter);
		bf_inserter_flush(&b->inserter, b->filter);
		bloom_check_compatible(a->filter, b->filter, "unite");
		bf_union_into(a->filter, b->filter);
	}
	else
	{
		hc_merge(a->hashes, b->hashes);
		a->rows += b->rows;
	}
	PG_RETURN_POINTER(a);
}

Datum
bloom_agg_serialize(PG_FUNCTION_ARGS)
{
	BloomAggState *state = (BloomAggState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	agg_context(fcinfo, "bloom_agg_serialize");
	initStringInfo(&buf);
	appendStringInfoSpaces(&buf, VARHDRSZ);
	if (state->filter)
	{
		uint64		wire;

		bf_inserter_flush(&state->inserter, state->filter);
		wire = bf_wire_bytes(state->filter);

		appendStringInfoChar(&buf, AGG_SERIAL_FIXED);
		/* wire < the filter's own size, so this stays below 1 GB */
		enlargeStringInfo(&buf, (int) wire);
		bf_serialize(state->filter, (uint8 *) buf.data + buf.len);
		buf.len += (int) wire;
	}
	else
	{
		appendStringInfoChar(&buf, AGG_SERIAL_SIZED);
		/* pad to 8 bytes: the collector's records are then aligned */
		appendStringInfoSpaces(&buf, 7 - VARHDRSZ);
		appendBinaryStringInfo(&buf, (const char *) &state->rows, sizeof(uint64));
		hc_serialize(state->hashes, &buf);
	}
	SET_VARSIZE(buf.data, buf.len);
	PG_RETURN_BYTEA_P((bytea *) buf.data);
}

Datum
bloom_agg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "bloom_agg_deserialize");
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	const char *data;
	Size		len;
	BloomAggState *state;
	MemoryContext old;

	/* the collector reads 64-bit words in place: they must be aligned */
	if ((uintptr_t) b % sizeof(uint64) != 0)
		b = PG_GETARG_BYTEA_P_COPY(0);
	data = VARDATA(b);
	len = VARSIZE(b) - VARHDRSZ;

	if (len < 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized bloom_agg state: empty")));
	old = MemoryContextSwitchTo(aggcxt);
	state = palloc0(sizeof(BloomAggState));
	if (data[0] == AGG_SERIAL_FIXED)
		state->filter = bloom_from_wire((const uint8 *) data + 1, len - 1,
										ERRCODE_DATA_CORRUPTED);
	else if (data[0] == AGG_SERIAL_SIZED && VARSIZE(b) >= 16)
	{
		StringInfoData si;

		memcpy(&state->rows, data + 4, sizeof(uint64));
		/* a read-only view of the payload; the collector copies it */
		si.data = (char *) b;
		si.len = VARSIZE(b);
		si.maxlen = si.len;
		si.cursor = 16;
		state->hashes = hc_deserialize(&si, aggcxt, hc_work_mem_limit(), fcinfo);
		if (si.cursor != si.len)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid serialized bloom_agg state: trailing bytes")));
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized bloom_agg state")));
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(state);
}

/* ---------------------------------------------------------------------
 * bloom_union_agg, bloom_intersect_agg
 * --------------------------------------------------------------------- */

/* The accumulated filter; replaced by a smaller one when folding. */
typedef struct SetOpState
{
	BloomFilter *filter;
} SetOpState;

/*
 * Adds f to the state by OR or AND.  Auto-sized filters of different sizes
 * meet at the smaller size: a larger state is folded down first (once per
 * halving, not per row), a larger f is folded on the fly.
 */
static SetOpState *
setop_add(SetOpState *state, const BloomFilter *f, bool intersect, MemoryContext aggcxt)
{
	if (state == NULL)
	{
		state = MemoryContextAlloc(aggcxt, sizeof(SetOpState));
		state->filter = MemoryContextAlloc(aggcxt, VARSIZE(f));
		memcpy(state->filter, f, VARSIZE(f));
		return state;
	}
	bloom_check_compatible(state->filter, f, intersect ? "intersect" : "unite");
	if (f->nbits < state->filter->nbits)
	{
		BloomShape	shape;
		BloomFilter *smaller;
		MemoryContext old = MemoryContextSwitchTo(aggcxt);

		bf_get_shape(f, &shape);
		smaller = bloom_alloc(&shape);
		MemoryContextSwitchTo(old);
		bf_fold(state->filter, smaller);
		pfree(state->filter);
		state->filter = smaller;
	}
	if (intersect)
		bf_intersect_into(state->filter, f);
	else
		bf_union_into(state->filter, f);
	return state;
}

static Datum
setop_trans(FunctionCallInfo fcinfo, bool intersect)
{
	MemoryContext aggcxt = agg_context(fcinfo, intersect ? "bloom_intersect_agg" : "bloom_union_agg");
	SetOpState *state = PG_ARGISNULL(0) ? NULL : (SetOpState *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(state);
	PG_RETURN_POINTER(setop_add(state, PG_GETARG_BLOOM(1), intersect, aggcxt));
}

Datum
bloom_union_agg_trans(PG_FUNCTION_ARGS)
{
	return setop_trans(fcinfo, false);
}

Datum
bloom_intersect_agg_trans(PG_FUNCTION_ARGS)
{
	return setop_trans(fcinfo, true);
}

static Datum
setop_combine(FunctionCallInfo fcinfo, bool intersect)
{
	MemoryContext aggcxt = agg_context(fcinfo, "bloom set operation combine");
	SetOpState *a = PG_ARGISNULL(0) ? NULL : (SetOpState *) PG_GETARG_POINTER(0);
	SetOpState *b = PG_ARGISNULL(1) ? NULL : (SetOpState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		PG_RETURN_POINTER(a);
	PG_RETURN_POINTER(setop_add(a, b->filter, intersect, aggcxt));
}

Datum
bloom_union_agg_combine(PG_FUNCTION_ARGS)
{
	return setop_combine(fcinfo, false);
}

Datum
bloom_intersect_agg_combine(PG_FUNCTION_ARGS)
{
	return setop_combine(fcinfo, true);
}

/* No non-null filter: NULL, as for other aggregates over nothing. */
Datum
bloom_setop_agg_final(PG_FUNCTION_ARGS)
{
	SetOpState *state = PG_ARGISNULL(0) ? NULL : (SetOpState *) PG_GETARG_POINTER(0);

	agg_context(fcinfo, "bloom set operation final");
	if (state == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(state->filter);
}

Datum
bloom_setop_agg_serialize(PG_FUNCTION_ARGS)
{
	SetOpState *state = (SetOpState *) PG_GETARG_POINTER(0);
	uint64		wire = bf_wire_bytes(state->filter);
	bytea	   *result;

	agg_context(fcinfo, "bloom set operation serialize");
	result = (bytea *) palloc(VARHDRSZ + (Size) wire);
	SET_VARSIZE(result, VARHDRSZ + wire);
	bf_serialize(state->filter, (uint8 *) VARDATA(result));
	PG_RETURN_BYTEA_P(result);
}

Datum
bloom_setop_agg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_context(fcinfo, "bloom set operation deserialize");
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	SetOpState *state;
	MemoryContext old = MemoryContextSwitchTo(aggcxt);

	state = palloc(sizeof(SetOpState));
	state->filter = bloom_from_wire((const uint8 *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b),
									ERRCODE_DATA_CORRUPTED);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(state);
}
