/*
 * bloom_agg.c
 *	  Aggregates: bloom_agg (data-sized, or of a fixed shape),
 *	  bloom_union_agg and bloom_intersect_agg, with parallel support.
 *
 *	  Every transition state is internal and mutated in place: the
 *	  fixed-shape form keeps the filter itself, the data-sized form keeps the
 *	  distinct raw hashes of the values in a HashCollector (bounded by
 *	  work_mem, spilling to temporary files) and builds the filter in the
 *	  final function, when the number of distinct values is known.  The
 *	  design and its costs are described in doc/aggregates.md.
 *
 *	  Entry points of one form name it (bloom_agg_datasized_final,
 *	  bloom_agg_fixed_final); those of both forms do not (bloom_agg_combine).
 */
#include "postgres.h"

#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "bloomfilter.h"
#include "hash_collector.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

PG_FUNCTION_INFO_V1(bloom_agg_datasized_trans);
PG_FUNCTION_INFO_V1(bloom_agg_fixed_trans);
PG_FUNCTION_INFO_V1(bloom_agg_datasized_final);
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
 * The arguments that shape a fixed-shape filter, as the group's first row
 * gave them: every later row, and every partial state of a parallel plan,
 * must give the same.
 */
typedef struct FixedArgs
{
	int64		capacity;
	float8		fpp;
	int32		layout;			/* BLOOM_LAYOUT_*; classic for the 3-argument form */
	bool		has_layout;		/* the 4-argument form */
} FixedArgs;

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
	FixedArgs	args;			/* fixed shape: the arguments of its shape */
	bool		check_rows;		/* fixed shape: the arguments are not
								 * constants, so each row is compared */
} BloomAggState;

/*
 * Serialized state: one kind byte, then the kind's payload.  The data-sized
 * kind's byte is padded to the 4-byte word hc_state_serialize keeps; the
 * fixed-shape kind's is followed by its FixedArgs (3 zero bytes, layout,
 * capacity, fpp, has_layout and 7 zero bytes), then the filter's wire format.
 */
#define AGG_SERIAL_FIXED	'F'
#define AGG_SERIAL_FIXED_PREFIX 32
static const char AGG_SERIAL_DATASIZED[4] = {'S', ' ', ' ', ' '};

/* ---------------------------------------------------------------------
 * bloom_agg(value): data-sized
 * --------------------------------------------------------------------- */

static BloomAggState *
new_datasized_state(FunctionCallInfo fcinfo, MemoryContext aggcxt)
{
	BloomAggState *state = MemoryContextAllocZero(aggcxt, sizeof(BloomAggState));

	state->hashes = hc_create(aggcxt, 1, hc_work_mem_limit(), fcinfo);
	return state;
}

Datum
bloom_agg_datasized_trans(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);

	/* a non-null internal state can only come from this aggregate */
	if (state == NULL)
		state = new_datasized_state(fcinfo, agg_memory_context(fcinfo, "bloom_agg_trans"));
	if (!PG_ARGISNULL(1))
	{
		FilterCallCache *cache = bloom_call_cache(fcinfo, 1);

		/* the raw hash with seed 0: the final filter derives its bits from it */
		hc_add1(state->hashes,
				bloom_hasher_value_hash(&cache->hashers[0], PG_GETARG_DATUM(1), 0));
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
 * smallest data-sized filter, empty, which still unites with any other.
 */
static BloomFilter *
datasized_filter(BloomAggState *state)
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
bloom_agg_datasized_final(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);

	agg_memory_context(fcinfo, "bloom_agg_final");
	PG_RETURN_BLOOM(datasized_filter(state));
}

/* ---------------------------------------------------------------------
 * bloom_agg(value, capacity, fpp [, layout]): fixed-shape
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

	if (layout_name != NULL)
		layout = bloom_layout_from_name(layout_name);
	bloom_shape_for_capacity(capacity, fpp, layout, shape);
}

/* Transition argument numbers of the fixed-shape forms. */
#define FIXED_ARG_CAPACITY	2
#define FIXED_ARG_FPP		3
#define FIXED_ARG_LAYOUT	4

static void
require_not_null(FunctionCallInfo fcinfo, int argno, const char *what)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("bloom_agg %s must not be NULL", what)));
}

static void
require_shape_args(FunctionCallInfo fcinfo)
{
	require_not_null(fcinfo, FIXED_ARG_CAPACITY, "capacity");
	require_not_null(fcinfo, FIXED_ARG_FPP, "false-positive probability");
	if (PG_NARGS() > FIXED_ARG_LAYOUT)
		require_not_null(fcinfo, FIXED_ARG_LAYOUT, "layout");
}

/*
 * True when every shaping argument of the call is a constant, so rows
 * cannot disagree and need no comparison.  (Aggregate argument numbers
 * count from the value, transition argument numbers from the state.)
 */
static bool
shape_args_constant(FunctionCallInfo fcinfo)
{
	Datum		unused;

	for (int argno = FIXED_ARG_CAPACITY; argno < PG_NARGS(); argno++)
		if (!agg_const_arg(fcinfo, argno - 1, &unused))
			return false;
	return true;
}

static const char *
shape_args_names(const FixedArgs *args)
{
	return args->has_layout ? "capacity, fpp and layout" : "capacity and fpp";
}

static char *
describe_args(const FixedArgs *args)
{
	if (args->has_layout)
		return psprintf("capacity " INT64_FORMAT ", fpp %s and layout %s",
						args->capacity, float8out_internal(args->fpp),
						bf_layout_name(args->layout));
	return psprintf("capacity " INT64_FORMAT " and fpp %s",
					args->capacity, float8out_internal(args->fpp));
}

/* ERROR unless two parts of a group were shaped by the same arguments. */
static void
check_same_args(const FixedArgs *first, const FixedArgs *other, const char *other_is)
{
	if (first->capacity == other->capacity && first->fpp == other->fpp &&
		first->layout == other->layout && first->has_layout == other->has_layout)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("bloom_agg: %s must be the same for every row of a group",
					shape_args_names(first)),
			 errdetail("The group began with %s; %s %s.",
					   describe_args(first), other_is, describe_args(other)),
			 errhint("Give constants, or group by the arguments.")));
}

/* This row's shaping arguments (checked for NULL). */
static void
row_args(FunctionCallInfo fcinfo, FixedArgs *args)
{
	require_shape_args(fcinfo);
	args->capacity = PG_GETARG_INT64(FIXED_ARG_CAPACITY);
	args->fpp = PG_GETARG_FLOAT8(FIXED_ARG_FPP);
	args->has_layout = PG_NARGS() > FIXED_ARG_LAYOUT;
	args->layout = BLOOM_LAYOUT_CLASSIC;
	if (args->has_layout)
		args->layout = bloom_layout_from_name(text_to_cstring(PG_GETARG_TEXT_PP(FIXED_ARG_LAYOUT)));
}

/*
 * A later row's arguments against the group's first: the values as given
 * (and the layout's text against the first row's layout name), so a row
 * costs no allocation or lookup.
 */
static void
check_row_args(FunctionCallInfo fcinfo, const FixedArgs *first)
{
	FixedArgs	args;

	require_shape_args(fcinfo);
	if (PG_GETARG_INT64(FIXED_ARG_CAPACITY) == first->capacity &&
		PG_GETARG_FLOAT8(FIXED_ARG_FPP) == first->fpp)
	{
		text	   *layout;
		const char *name;

		if (!first->has_layout)
			return;
		layout = PG_GETARG_TEXT_PP(FIXED_ARG_LAYOUT);
		name = bf_layout_name(first->layout);
		if (VARSIZE_ANY_EXHDR(layout) == strlen(name) &&
			memcmp(VARDATA_ANY(layout), name, strlen(name)) == 0)
			return;
	}
	row_args(fcinfo, &args);
	check_same_args(first, &args, "a later row has");
}

/* The state of a group's first row, shaped by that row's arguments. */
static BloomAggState *
new_fixed_state(FunctionCallInfo fcinfo)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_fixed_trans");
	BloomShape	shape;
	FixedArgs	args;
	MemoryContext old;
	BloomAggState *state;

	row_args(fcinfo, &args);
	bloom_shape_for_capacity(args.capacity, args.fpp, args.layout, &shape);
	old = MemoryContextSwitchTo(aggcxt);
	state = palloc0(sizeof(BloomAggState));
	state->filter = alloc_state_filter(&shape);
	MemoryContextSwitchTo(old);
	state->args = args;
	state->check_rows = !shape_args_constant(fcinfo);
	return state;
}

/*
 * Transition of both fixed-shape forms (3 and 4 arguments).  The shape
 * comes from the first row of each group, and every later row must give
 * the same arguments (compared only when they are not constants); the
 * value is hashed exactly as bloom_add does, with the filter's seed.
 */
Datum
bloom_agg_fixed_trans(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);

	if (state == NULL)
		state = new_fixed_state(fcinfo);
	else if (state->check_rows)
		check_row_args(fcinfo, &state->args);
	if (!PG_ARGISNULL(1))
	{
		FilterCallCache *cache = bloom_call_cache(fcinfo, 1);

		bf_inserter_add(&state->inserter, state->filter,
						bloom_hasher_hash(&cache->hashers[0], PG_GETARG_DATUM(1),
										   state->filter->seed));
	}
	PG_RETURN_POINTER(state);
}

/*
 * Over no rows at all the transition never ran, so the shape is read from
 * the call's constant arguments: an empty filter, like bloom_empty.  When
 * they are not constants (or a parallel plan hid them) the result is NULL.
 */
static BloomFilter *
fixed_filter_without_rows(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	Datum		capacity,
				fpp,
				layout;
	BloomShape	shape;
	int			nargs;

	if (aggref == NULL)
		return NULL;
	nargs = list_length(aggref->args);
	if (nargs < 3 || !agg_const_arg(fcinfo, 1, &capacity) || !agg_const_arg(fcinfo, 2, &fpp))
		return NULL;
	if (nargs > 3 && !agg_const_arg(fcinfo, 3, &layout))
		return NULL;
	fixed_shape(DatumGetInt64(capacity), DatumGetFloat8(fpp),
				nargs > 3 ? TextDatumGetCString(layout) : NULL, &shape);
	return bloom_alloc(&shape);
}

Datum
bloom_agg_fixed_final(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomFilter *f;

	agg_memory_context(fcinfo, "bloom_agg_fixed_final");
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

/* A copy of b in aggcxt: b may live in a per-call context. */
static BloomAggState *
copy_state(FunctionCallInfo fcinfo, BloomAggState *b, MemoryContext aggcxt)
{
	MemoryContext old = MemoryContextSwitchTo(aggcxt);
	BloomAggState *a = palloc0(sizeof(BloomAggState));

	if (b->filter)
	{
		bf_inserter_flush(&b->inserter, b->filter);
		a->filter = filter_copy(b->filter);
		a->args = b->args;
	}
	else
	{
		a->hashes = hc_create(aggcxt, 1, hc_work_mem_limit(), fcinfo);
		hc_merge(a->hashes, b->hashes);
		a->rows = b->rows;
	}
	MemoryContextSwitchTo(old);
	return a;
}

Datum
bloom_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_combine");
	BloomAggState *a = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomAggState *b = PG_ARGISNULL(1) ? NULL : (BloomAggState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		PG_RETURN_POINTER(a);
	if (a == NULL)
		PG_RETURN_POINTER(copy_state(fcinfo, b, aggcxt));
	/* the planner never combines the states of two different aggregates */
	if ((a->filter == NULL) != (b->filter == NULL))
		elog(ERROR, "bloom_agg_combine: states of different forms");
	if (a->filter)
	{
		bf_inserter_flush(&a->inserter, a->filter);
		bf_inserter_flush(&b->inserter, b->filter);
		/* parts that each agree with themselves, but not with each other */
		check_same_args(&a->args, &b->args, "another part of it has");
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

/* The FixedArgs part of a serialized fixed-shape state (see its layout above). */
static void
write_fixed_prefix(char *out, const FixedArgs *args)
{
	memset(out, 0, AGG_SERIAL_FIXED_PREFIX);
	out[0] = AGG_SERIAL_FIXED;
	memcpy(out + 4, &args->layout, 4);
	memcpy(out + 8, &args->capacity, 8);
	memcpy(out + 16, &args->fpp, 8);
	out[24] = args->has_layout ? 1 : 0;
}

static void
read_fixed_prefix(const bytea *b, FixedArgs *args)
{
	const char *in = VARDATA(b);

	if (VARSIZE(b) - VARHDRSZ < AGG_SERIAL_FIXED_PREFIX || (uint8) in[24] > 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized bloom_agg state")));
	memcpy(&args->layout, in + 4, 4);
	memcpy(&args->capacity, in + 8, 8);
	memcpy(&args->fpp, in + 16, 8);
	args->has_layout = in[24] == 1;
}

Datum
bloom_agg_serialize(PG_FUNCTION_ARGS)
{
	BloomAggState *state = (BloomAggState *) PG_GETARG_POINTER(0);
	bytea	   *result;

	agg_memory_context(fcinfo, "bloom_agg_serialize");
	if (state->filter == NULL)
		PG_RETURN_BYTEA_P(hc_state_serialize(AGG_SERIAL_DATASIZED, state->rows,
											 state->hashes));
	bf_inserter_flush(&state->inserter, state->filter);
	result = filter_to_bytea(state->filter, AGG_SERIAL_FIXED_PREFIX, &bloom_type);
	write_fixed_prefix(VARDATA(result), &state->args);
	PG_RETURN_BYTEA_P(result);
}

Datum
bloom_agg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_deserialize");
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	char		kind = VARSIZE(b) > VARHDRSZ ? *VARDATA(b) : '\0';
	BloomAggState *state;
	MemoryContext old;
	char		head[4];

	if (kind != AGG_SERIAL_FIXED && kind != AGG_SERIAL_DATASIZED[0])
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized bloom_agg state")));
	old = MemoryContextSwitchTo(aggcxt);
	state = palloc0(sizeof(BloomAggState));
	if (kind == AGG_SERIAL_FIXED)
	{
		read_fixed_prefix(b, &state->args);
		state->filter = filter_from_bytea(b, AGG_SERIAL_FIXED_PREFIX,
										  ERRCODE_DATA_CORRUPTED, &bloom_type);
		if (state->filter->layout != state->args.layout)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid serialized bloom_agg state"),
					 errdetail("The filter's layout is not the one of its arguments.")));
	}
	else
		state->hashes = hc_state_deserialize(b, "bloom_agg", head, &state->rows,
											 aggcxt, fcinfo);
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
 * Adds f to the state by OR or AND.  Data-sized filters of different sizes
 * meet at the smaller size: a larger state is folded down first (once per
 * halving, not per row), a larger f is folded on the fly.
 */
static SetOpState *
setop_add(SetOpState *state, const BloomFilter *f, bool intersect, MemoryContext aggcxt)
{
	if (state == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(aggcxt);

		state = palloc(sizeof(SetOpState));
		state->filter = filter_copy(f);
		MemoryContextSwitchTo(old);
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
	MemoryContext aggcxt = agg_memory_context(fcinfo, intersect ? "bloom_intersect_agg" : "bloom_union_agg");
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
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom set operation combine");
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

	agg_memory_context(fcinfo, "bloom set operation final");
	if (state == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(state->filter);
}

Datum
bloom_setop_agg_serialize(PG_FUNCTION_ARGS)
{
	SetOpState *state = (SetOpState *) PG_GETARG_POINTER(0);

	agg_memory_context(fcinfo, "bloom set operation serialize");
	PG_RETURN_BYTEA_P(filter_to_bytea(state->filter, 0, &bloom_type));
}

Datum
bloom_setop_agg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom set operation deserialize");
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	SetOpState *state;
	MemoryContext old = MemoryContextSwitchTo(aggcxt);

	state = palloc(sizeof(SetOpState));
	state->filter = filter_from_bytea(b, 0, ERRCODE_DATA_CORRUPTED, &bloom_type);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(state);
}
