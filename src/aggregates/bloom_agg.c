/*
 * bloom_agg.c
 *	  Aggregates: bloom_agg (data-sized, or of a fixed shape), its twin
 *	  over values' hashes bloom_agg_hashed, bloom_union_agg and
 *	  bloom_intersect_agg, with parallel support.
 *
 *	  bloom_agg's transition state is internal and mutated in place (that
 *	  of the others is a SQL type, agg_state.h, changed in place too): the
 *	  fixed-shape form keeps the filter itself, the data-sized form keeps the
 *	  distinct raw hashes of the values in a HashCollector (bounded by
 *	  work_mem, spilling to temporary files) and builds the filter in the
 *	  final function, when the number of distinct values is known.  The
 *	  fixed shape of the matrix layout collects the hashes too, and inserts
 *	  them in the final function, so that every plan builds one filter in
 *	  one order.  The design and its costs are described in
 *	  doc/aggregates.md.
 *
 *	  Entry points of one form name it (bloom_agg_datasized_final,
 *	  bloom_agg_fixed_final); those of both forms do not (bloom_agg_combine).
 */
#include "postgres.h"

#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "aggregates/agg_state.h"
#include "types/bloomfilter.h"
#include "aggregates/hash_collector.h"

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
PG_FUNCTION_INFO_V1(bloom_union_agg_step);
PG_FUNCTION_INFO_V1(bloom_intersect_agg_step);
PG_FUNCTION_INFO_V1(bloom_union_state_combine);
PG_FUNCTION_INFO_V1(bloom_intersect_state_combine);
PG_FUNCTION_INFO_V1(bloom_setop_state_final);
PG_FUNCTION_INFO_V1(bloom_setop_state_in);
PG_FUNCTION_INFO_V1(bloom_setop_state_out);
PG_FUNCTION_INFO_V1(bloom_setop_state_recv);
PG_FUNCTION_INFO_V1(bloom_setop_state_send);
PG_FUNCTION_INFO_V1(bloom_agg_hashed_trans);
PG_FUNCTION_INFO_V1(bloom_agg_hashed_fixed_trans);
PG_FUNCTION_INFO_V1(bloom_agg_state_combine);
PG_FUNCTION_INFO_V1(bloom_agg_hashed_final);
PG_FUNCTION_INFO_V1(bloom_agg_hashed_fixed_final);
PG_FUNCTION_INFO_V1(bloom_agg_state_in);
PG_FUNCTION_INFO_V1(bloom_agg_state_out);
PG_FUNCTION_INFO_V1(bloom_agg_state_recv);

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
 * (sized to the data, or a fixed shape of the matrix layout) is set.
 *
 * The matrix layout places a value by the fill of its candidate rows, so
 * its bits depend on the values inserted before it, and the union of
 * filters built apart holds more bits than one filter of the same values
 * (a higher rate, an estimate too high).  Its fixed shape therefore
 * collects the distinct value hashes like the data-sized form (deferred)
 * and inserts them all into one filter in the final function, in
 * ascending order: the same filter in every plan and for every row order.
 */
typedef struct BloomAggState
{
	BloomFilter *filter;		/* fixed shape: the filter being built */
	HashCollector *hashes;		/* sized to the data, or deferred: distinct
								 * raw hashes */
	uint64		rows;			/* sized to the data, or deferred: non-null
								 * values added */
	bool		deferred;		/* fixed shape of the matrix layout: filter
								 * is NULL, the values are in hashes */
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

/*
 * A deferred (matrix) state: the fixed-shape prefix with kind 'M', then
 * the collected hashes as the data-sized kind writes them, under this word.
 */
#define AGG_SERIAL_DEFERRED 'M'
static const char AGG_SERIAL_DEFERRED_HEAD[4] = {'M', ' ', ' ', ' '};

/* True for both fixed-shape states: a filter, or deferred hashes. */
static inline bool
state_is_fixed(const BloomAggState *state)
{
	return state->filter != NULL || state->deferred;
}

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

		/*
		 * the raw hash with seed 0, of the scheme the final filter is
		 * written under: it derives its bits from it
		 */
		hc_add1(state->hashes,
				bloom_hasher_value_hash(&cache->hashers[0], PG_GETARG_DATUM(1), 0,
										BLOOM_HASH_SCHEME_NEWEST));
		state->rows++;
	}
	PG_RETURN_POINTER(state);
}

/* Adds one collected hash (they come in ascending order) to the filter. */
static void
build_from_record(const uint64 *rec, void *arg)
{
	bf_builder_add((BfBuilder *) arg, rec[0]);
}

/*
 * The data-sized filter of a set of distinct value hashes (NULL: none),
 * with this seed, under the hash scheme they were computed for (the newest
 * for bloom_agg), and no insert count: up to BLOOM_EXPLICIT_MAX of them, the
 * list itself; beyond, the bit array sized for their exact count, every
 * hash inserted.  The result depends only on the set, so a parallel plan
 * gives the serial plan's filter.
 */
static BloomFilter *
collected_filter(HashCollector *hashes, uint64 seed, uint8 scheme)
{
	uint64		ndistinct = hashes ? hc_count(hashes) : 0;
	BloomShape	shape;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;
	BfBuilder	builder;

	if (!bf_shape_collected((double) ndistinct, seed, &shape, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_agg cannot size a filter: %s", errbuf),
				 errhint("Give a capacity and a false-positive probability: bloom_agg(value, capacity, fpp).")));
	f = bloom_alloc(&shape);
	f->hash_scheme = scheme;
	f->flags |= BLOOM_FLAG_AUTOSIZED;
	if (hashes)
	{
		bf_builder_start(&builder, f);
		hc_iterate(hashes, build_from_record, &builder);
		bf_builder_finish(&builder);
	}
	f->inserted = 0;
	return f;
}

/*
 * No rows give the empty list: the identity of every union of data-sized
 * filters.
 */
static BloomFilter *
datasized_result(BloomAggState *state)
{
	BloomFilter *f = collected_filter(state ? state->hashes : NULL, 0, BLOOM_HASH_SCHEME_NEWEST);

	if (state)
		f->inserted = state->rows;
	return f;
}

Datum
bloom_agg_datasized_final(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);

	agg_memory_context(fcinfo, "bloom_agg_final");
	PG_RETURN_BLOOM(datasized_result(state));
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
	/* with the matrix layout's row counters after the bits */
	uint64		bytes = bf_shape_bytes(shape);
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

/*
 * The state of a group's first row, shaped by that row's arguments.
 * own_call: the Aggref is this aggregate's call (agg_call_is_own), so its
 * constant arguments tell that rows cannot disagree.
 */
static BloomAggState *
new_fixed_state(FunctionCallInfo fcinfo, bool own_call)
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
	if (shape.layout == BLOOM_LAYOUT_MATRIX)
	{
		/* the hashes are taken with seed 0, the seed of every such shape */
		Assert(shape.seed == 0);
		state->hashes = hc_create(aggcxt, 1, hc_work_mem_limit(), fcinfo);
		state->deferred = true;
	}
	else
		state->filter = alloc_state_filter(&shape);
	MemoryContextSwitchTo(old);
	state->args = args;
	state->check_rows = !own_call || !shape_args_constant(fcinfo);
	return state;
}

/* ---------------------------------------------------------------------
 * The fixed shape of the matrix layout: deferred insertion
 *
 * The transition collects the distinct value hashes (seed 0, the seed of
 * every bloom_empty(capacity, fpp, layout) shape) and the row count, as the
 * data-sized form does; partial states carry them; the final function
 * inserts them into one filter of the shape in ascending order of the
 * hash.  So the filter is bloom_add_all(bloom_empty(capacity, fpp,
 * 'matrix'), the distinct hashes in ascending order) with the insert count
 * of the rows: one filter built in one order, whatever the plan (serial,
 * parallel, per shard) and the order of the rows.
 * --------------------------------------------------------------------- */

static void
deferred_add(BloomAggState *state, uint64 value_hash)
{
	hc_add1(state->hashes, value_hash);
	state->rows++;
}

/* The transition of bloom_agg(value, capacity, fpp, 'matrix') for one row. */
static void
deferred_add_value(FunctionCallInfo fcinfo, BloomAggState *state)
{
	FilterCallCache *cache;

	if (PG_ARGISNULL(1))
		return;
	cache = bloom_call_cache(fcinfo, 1);
	/* seed 0 and the newest scheme, as the data-sized aggregate collects */
	deferred_add(state, bloom_hasher_value_hash(&cache->hashers[0], PG_GETARG_DATUM(1), 0,
												BLOOM_HASH_SCHEME_NEWEST));
}

/*
 * The filter of a deferred state, in the current memory context: every
 * collected hash inserted once, in ascending order (so full_at counts the
 * distinct values before the first that met only full rows), then the
 * insert count of the rows.  A state read from elsewhere may hold more
 * distinct hashes than rows, which no aggregate gives.
 */
static BloomFilter *
deferred_result(BloomAggState *state)
{
	BloomShape	shape;
	BloomFilter *f;
	BfBuilder	builder;

	bloom_shape_for_capacity(state->args.capacity, state->args.fpp, state->args.layout, &shape);
	f = alloc_state_filter(&shape);
	bf_builder_start(&builder, f);
	hc_iterate(state->hashes, build_from_record, &builder);
	bf_builder_finish(&builder);
	/* the builder counted one insert per distinct hash */
	if (f->inserted > state->rows)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid bloom_agg state"),
				 errdetail("It holds more distinct values than rows.")));
	f->inserted = state->rows;
	return f;
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
		state = new_fixed_state(fcinfo, true);
	else if (state->check_rows)
		check_row_args(fcinfo, &state->args);
	if (state->deferred)
	{
		deferred_add_value(fcinfo, state);
		PG_RETURN_POINTER(state);
	}
	if (!PG_ARGISNULL(1))
	{
		FilterCallCache *cache = bloom_call_cache(fcinfo, 1);

		bf_inserter_add(&state->inserter, state->filter,
						bloom_hasher_hash(&cache->hashers[0], PG_GETARG_DATUM(1),
										  state->filter->seed, state->filter->hash_scheme));
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

/*
 * The result of a fixed-shape state, or over no rows of fixed_filter_without_rows
 * (own_call: the Aggref is this aggregate's call), maybe NULL.  The
 * executor copies a result that lives in the aggregate's memory.
 */
static BloomFilter *
fixed_result(FunctionCallInfo fcinfo, BloomAggState *state, bool own_call)
{
	if (state == NULL)
		return own_call ? fixed_filter_without_rows(fcinfo) : NULL;
	if (state->deferred)
		return deferred_result(state);
	bf_inserter_flush(&state->inserter, state->filter);
	return state->filter;
}

Datum
bloom_agg_fixed_final(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomFilter *f;

	agg_memory_context(fcinfo, "bloom_agg_fixed_final");
	f = fixed_result(fcinfo, state, true);
	if (f == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(f);
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
		a->deferred = b->deferred;
		a->args = b->args;
	}
	MemoryContextSwitchTo(old);
	return a;
}

static void
different_forms(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("bloom_agg: partial states of different forms")));
}

/*
 * Combines partial state b into a (b's collected hashes move into a's).
 * States of different forms come only from a damaged or forged state: the
 * planner never combines the states of two different aggregates.
 */
static void
combine_into(BloomAggState *a, BloomAggState *b)
{
	if (state_is_fixed(a) != state_is_fixed(b))
		different_forms();
	if (a->deferred || b->deferred)
	{
		check_same_args(&a->args, &b->args, "another part of it has");
		/* the same arguments give the same layout: only a forged state differs */
		if (a->deferred != b->deferred)
			different_forms();
		hc_merge(a->hashes, b->hashes);
		a->rows += b->rows;
	}
	else if (a->filter)
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
	combine_into(a, b);
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
bad_serial_state(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid serialized bloom_agg state"),
			 detail ? errdetail("%s", detail) : 0));
}

/* The arguments at in (at least AGG_SERIAL_FIXED_PREFIX bytes), checked. */
static void
read_fixed_prefix(const char *in, FixedArgs *args)
{
	if ((uint8) in[24] > 1)
		bad_serial_state(NULL);
	/* the padding after the kind byte and after has_layout is zero */
	for (int i = 1; i < AGG_SERIAL_FIXED_PREFIX; i++)
		if ((i < 4 || i > 24) && in[i] != 0)
			bad_serial_state("nonzero padding");
	memcpy(&args->layout, in + 4, 4);
	memcpy(&args->capacity, in + 8, 8);
	memcpy(&args->fpp, in + 16, 8);
	args->has_layout = in[24] == 1;
}

/*
 * The filter must have the shape its arguments give, as the transition
 * made it: a state read from elsewhere may lie.
 */
static void
check_filter_shape(const BloomFilter *f, const FixedArgs *args)
{
	BloomShape	want;
	BloomShape	have;
	char		errbuf[BLOOM_ERRBUF_SIZE];

	if (args->layout != f->layout || args->capacity < 1 ||
		!bf_shape_for((double) args->capacity, args->fpp, args->layout, &want, errbuf))
		bad_serial_state("The filter's arguments are not valid.");
	bf_get_shape(f, &have);
	if (want.layout != have.layout || want.nbits != have.nbits ||
		want.nhashes != have.nhashes || want.seed != have.seed ||
		want.rows != have.rows || want.locators != have.locators)
		bad_serial_state("The filter's shape is not the one of its arguments.");
}

/*
 * A deferred state: the fixed-shape prefix (kind 'M'), then the collected
 * hashes under AGG_SERIAL_DEFERRED_HEAD.
 */
static bytea *
serialize_deferred(BloomAggState *state, Size lead)
{
	bytea	   *result = hc_state_serialize(lead + AGG_SERIAL_FIXED_PREFIX,
											AGG_SERIAL_DEFERRED_HEAD, state->rows,
											state->hashes);

	write_fixed_prefix(VARDATA(result) + lead, &state->args);
	VARDATA(result)[lead] = AGG_SERIAL_DEFERRED;
	return result;
}

/*
 * A deferred state serialize_deferred wrote (after lead bytes) into state,
 * checked: arguments that give a matrix shape, then the collected hashes.
 */
static void
deserialize_deferred(const bytea *b, Size lead, BloomAggState *state,
					 MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	BloomShape	shape;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	char		head[4];

	if (VARSIZE(b) - VARHDRSZ - lead < AGG_SERIAL_FIXED_PREFIX)
		bad_serial_state(NULL);
	read_fixed_prefix(VARDATA(b) + lead, &state->args);
	if (state->args.layout != BLOOM_LAYOUT_MATRIX || state->args.capacity < 1 ||
		!bf_shape_for((double) state->args.capacity, state->args.fpp, state->args.layout,
					  &shape, errbuf))
		bad_serial_state("The filter's arguments are not valid.");
	state->hashes = hc_state_deserialize(b, lead + AGG_SERIAL_FIXED_PREFIX, "bloom_agg", head,
										 &state->rows, aggcxt, fcinfo);
	if (memcmp(head, AGG_SERIAL_DEFERRED_HEAD, sizeof(head)) != 0 || state->hashes->width != 1)
		bad_serial_state("bad header");
	state->deferred = true;
	/* rows added to it later are compared with its arguments */
	state->check_rows = true;
}

/* The serialized state after lead bytes left for the caller. */
static bytea *
serialize_state(BloomAggState *state, Size lead)
{
	bytea	   *result;

	if (state->deferred)
		return serialize_deferred(state, lead);
	if (state->filter == NULL)
		return hc_state_serialize(lead, AGG_SERIAL_DATASIZED, state->rows, state->hashes);
	bf_inserter_flush(&state->inserter, state->filter);
	result = filter_to_bytea(state->filter, lead + AGG_SERIAL_FIXED_PREFIX, &bloom_type);
	memset(VARDATA(result), 0, lead);
	write_fixed_prefix(VARDATA(result) + lead, &state->args);
	return result;
}

/*
 * A state serialize_state wrote (after lead bytes), read into aggcxt and
 * checked (ERROR data_corrupted); fcinfo as for hc_state_deserialize.
 */
static BloomAggState *
deserialize_state(const bytea *b, Size lead, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	Size		len = VARSIZE(b) - VARHDRSZ;
	char		kind = len > lead ? VARDATA(b)[lead] : '\0';
	BloomAggState *state;
	MemoryContext old;
	char		head[4];

	if (kind != AGG_SERIAL_FIXED && kind != AGG_SERIAL_DATASIZED[0] &&
		kind != AGG_SERIAL_DEFERRED)
		bad_serial_state(NULL);
	old = MemoryContextSwitchTo(aggcxt);
	state = palloc0(sizeof(BloomAggState));
	if (kind == AGG_SERIAL_DEFERRED)
		deserialize_deferred(b, lead, state, aggcxt, fcinfo);
	else if (kind == AGG_SERIAL_FIXED)
	{
		if (len - lead < AGG_SERIAL_FIXED_PREFIX)
			bad_serial_state(NULL);
		read_fixed_prefix(VARDATA(b) + lead, &state->args);
		/* a matrix state carries its values' hashes, never a filter */
		if (state->args.layout == BLOOM_LAYOUT_MATRIX)
			bad_serial_state("A matrix filter's state is not a filter.");
		state->filter = filter_from_bytea(b, lead + AGG_SERIAL_FIXED_PREFIX,
										  ERRCODE_DATA_CORRUPTED, &bloom_type);
		check_filter_shape(state->filter, &state->args);
		/* rows added to it later are compared with its arguments */
		state->check_rows = true;
	}
	else
	{
		state->hashes = hc_state_deserialize(b, lead, "bloom_agg", head, &state->rows,
											 aggcxt, fcinfo);
		if (memcmp(head, AGG_SERIAL_DATASIZED, sizeof(head)) != 0 || state->hashes->width != 1)
			bad_serial_state("bad header");
	}
	MemoryContextSwitchTo(old);
	return state;
}

Datum
bloom_agg_serialize(PG_FUNCTION_ARGS)
{
	agg_memory_context(fcinfo, "bloom_agg_serialize");
	PG_RETURN_BYTEA_P(serialize_state((BloomAggState *) PG_GETARG_POINTER(0), 0));
}

Datum
bloom_agg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_deserialize");

	PG_RETURN_POINTER(deserialize_state(PG_GETARG_BYTEA_P(0), 0, aggcxt, fcinfo));
}

/* ---------------------------------------------------------------------
 * bloom_union_agg, bloom_intersect_agg
 *
 * Bit arrays and explicit lists are kept apart until the final function,
 * so the result depends neither on the order of the rows nor on the plan:
 * the bit arrays are combined as they come (OR / AND, data-sized ones
 * folded onto the smallest, an empty one the identity of union); a union's
 * lists have their hashes collected (bounded by work_mem, spilling like
 * bloom_agg's), to be added to the bit array at its size at the end, or to
 * make the data-sized filter of their count when there is no bit array; an
 * intersection's lists are intersected, and at the end keep the hashes the
 * bit array may hold.  Each filter is checked against both parts as it
 * comes, by bloom_union's and bloom_intersect's rules.
 * --------------------------------------------------------------------- */

typedef struct SetOpState
{
	bool		intersect;
	BloomFilter *bits;			/* the bit arrays combined, or NULL */
	BloomFilter *list;			/* intersection: the lists intersected; union:
								 * the lists' header (seed, flags, summed insert
								 * count) without hashes; NULL: no list yet */
	HashCollector *listed;		/* union: the lists' hashes */
} SetOpState;

static const char *
setop_name(bool intersect)
{
	return intersect ? "intersect" : "unite";
}

static SetOpState *
setop_state_new(MemoryContext aggcxt, bool intersect)
{
	SetOpState *state = MemoryContextAllocZero(aggcxt, sizeof(SetOpState));

	state->intersect = intersect;
	return state;
}

/* *slot combined with f (a copy of f if *slot is NULL), in aggcxt. */
static void
slot_combine(BloomFilter **slot, const BloomFilter *f, bool intersect, MemoryContext aggcxt)
{
	MemoryContext old;
	BloomFilter *result;
	BfSetop		op;

	if (*slot == NULL)
	{
		old = MemoryContextSwitchTo(aggcxt);
		*slot = filter_copy(f);
		MemoryContextSwitchTo(old);
		return;
	}
	bloom_setop_plan(*slot, f, intersect, &op);
	if (bf_setop_in_place(&op))
	{
		bf_setop_build(*slot, *slot, f, &op);
		return;
	}
	old = MemoryContextSwitchTo(aggcxt);
	result = bloom_setop_result(*slot, f, &op);
	MemoryContextSwitchTo(old);
	pfree(*slot);
	*slot = result;
}

/* The union's list header: f's, without hashes; creates the collector. */
static void
union_list_start(FunctionCallInfo fcinfo, SetOpState *state, const BloomFilter *f,
				 MemoryContext aggcxt)
{
	Size		head = offsetof(BloomFilter, words);

	state->list = MemoryContextAlloc(aggcxt, head);
	memcpy(state->list, f, head);
	SET_VARSIZE(state->list, head);
	state->list->nbits = 0;
	state->listed = hc_create(aggcxt, 1, hc_work_mem_limit(), fcinfo);
}

/* Adds list f to a union's collected lists. */
static void
union_add_list(FunctionCallInfo fcinfo, SetOpState *state, const BloomFilter *f,
			   MemoryContext aggcxt)
{
	if (state->list == NULL)
		union_list_start(fcinfo, state, f, aggcxt);
	else
	{
		bloom_check_compatible(state->list, f, "unite");
		state->list->inserted = bf_add_saturating(state->list->inserted, f->inserted);
	}
	for (uint64 i = 0; i < bf_explicit_count(f); i++)
		hc_add1(state->listed, f->words[i]);
}

/* Adds one filter to the state, checked against what it holds. */
static void
setop_add(FunctionCallInfo fcinfo, SetOpState *state, const BloomFilter *f,
		  MemoryContext aggcxt)
{
	const char *operation = setop_name(state->intersect);

	if (bf_is_explicit(f))
	{
		if (state->bits)
			bloom_check_compatible(state->bits, f, operation);
		if (state->intersect)
			slot_combine(&state->list, f, true, aggcxt);
		else
			union_add_list(fcinfo, state, f, aggcxt);
	}
	else
	{
		if (state->list)
			bloom_check_compatible(state->list, f, operation);
		slot_combine(&state->bits, f, state->intersect, aggcxt);
	}
}

static Datum
setop_trans(FunctionCallInfo fcinfo, bool intersect)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, intersect ? "bloom_intersect_agg" : "bloom_union_agg");
	SetOpState *state = PG_ARGISNULL(0) ? NULL : (SetOpState *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(state);
	if (state == NULL)
		state = setop_state_new(aggcxt, intersect);
	setop_add(fcinfo, state, PG_GETARG_BLOOM(1), aggcxt);
	PG_RETURN_POINTER(state);
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

/* Moves b's lists into a's (b is left without them). */
static void
combine_lists(FunctionCallInfo fcinfo, SetOpState *a, SetOpState *b, MemoryContext aggcxt)
{
	if (a->bits)
		bloom_check_compatible(a->bits, b->list, setop_name(a->intersect));
	if (a->intersect)
	{
		slot_combine(&a->list, b->list, true, aggcxt);
		return;
	}
	if (a->list == NULL)
		union_list_start(fcinfo, a, b->list, aggcxt);
	else
	{
		bloom_check_compatible(a->list, b->list, "unite");
		a->list->inserted = bf_add_saturating(a->list->inserted, b->list->inserted);
	}
	hc_merge(a->listed, b->listed);
}

/* Combines partial state b into a (b is left without its lists). */
static void
setop_combine_into(FunctionCallInfo fcinfo, SetOpState *a, SetOpState *b,
				   MemoryContext aggcxt)
{
	if (b->bits)
	{
		if (a->list)
			bloom_check_compatible(a->list, b->bits, setop_name(a->intersect));
		slot_combine(&a->bits, b->bits, a->intersect, aggcxt);
	}
	if (b->list)
		combine_lists(fcinfo, a, b, aggcxt);
}

static Datum
setop_combine(FunctionCallInfo fcinfo, bool intersect)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom set operation combine");
	SetOpState *a = PG_ARGISNULL(0) ? NULL : (SetOpState *) PG_GETARG_POINTER(0);
	SetOpState *b = PG_ARGISNULL(1) ? NULL : (SetOpState *) PG_GETARG_POINTER(1);

	if (b == NULL)
		PG_RETURN_POINTER(a);
	if (a == NULL)
		a = setop_state_new(aggcxt, intersect);
	setop_combine_into(fcinfo, a, b, aggcxt);
	PG_RETURN_POINTER(a);
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

/*
 * A union's lists and bit array: the listed values inserted into the bit
 * array at its size; without a bit array (or with an empty one, the
 * identity), the data-sized filter of the collected hashes.
 */
static BloomFilter *
union_result(SetOpState *state)
{
	BloomFilter *f;
	BfBuilder	builder;

	if (state->bits && !bf_is_empty(state->bits))
	{
		f = filter_copy(state->bits);
		bf_builder_start(&builder, f);
		hc_iterate(state->listed, build_from_record, &builder);
		bf_builder_finish(&builder);
		f->inserted = state->bits->inserted;
	}
	else
	{
		f = collected_filter(state->listed, state->list->seed,
							 bf_scheme_for_values_of(state->list->hash_scheme));
		if (state->bits)
			f->inserted = state->bits->inserted;
	}
	f->inserted = bf_add_saturating(f->inserted, state->list->inserted);
	f->flags &= state->list->flags;
	return f;
}

/*
 * The result of a state; NULL when it holds no non-null filter, as for
 * other aggregates over nothing.  It may be a part of the state: the
 * executor copies a result that lives in the aggregate's memory.
 */
static BloomFilter *
setop_result(SetOpState *state)
{
	if (state == NULL || (state->bits == NULL && state->list == NULL))
		return NULL;
	if (state->list == NULL)
		return state->bits;
	if (state->intersect)
		return state->bits ? bloom_setop(state->list, state->bits, true) : state->list;
	return union_result(state);
}

Datum
bloom_setop_agg_final(PG_FUNCTION_ARGS)
{
	SetOpState *state = PG_ARGISNULL(0) ? NULL : (SetOpState *) PG_GETARG_POINTER(0);
	BloomFilter *f;

	agg_memory_context(fcinfo, "bloom set operation final");
	f = setop_result(state);
	if (f == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(f);
}

/*
 * Serialized state, also the flat form of the SQL type bloom_setop_state
 * (below), so it is read from tables and other servers too: 'U' or 'I',
 * whether the bit array and the list are there (0 or 1), the format
 * version (SETOP_SERIAL_VERSION); the lengths
 * of their binary forms (8 bytes each, 0 when absent); the bit array's
 * binary form, then the list's, each padded to 8 bytes; for a union with a
 * list, the collected hashes: the whole partial state of the collector
 * (hc_state_serialize, its row count the lists' summed insert count), a
 * bytea of its own, 8-byte aligned, to the end.
 */
#define SETOP_SERIAL_HEAD	(VARHDRSZ + 4 + 16)
#define SETOP_SERIAL_VERSION 0

static void
append_filter(StringInfo buf, const BloomFilter *f)
{
	uint64		len = bf_wire_bytes(f);

	enlargeStringInfo(buf, (int) len + 8);
	bf_serialize(f, (uint8 *) buf->data + buf->len);
	buf->len += (int) len;
	while (buf->len % 8 != 0)
		appendStringInfoChar(buf, '\0');
}

static bytea *
setop_serialize(SetOpState *state)
{
	StringInfoData buf;
	char		head[4] = {state->intersect ? 'I' : 'U', state->bits != NULL,
	state->list != NULL, SETOP_SERIAL_VERSION};
	uint64		lens[2] = {state->bits ? bf_wire_bytes(state->bits) : 0,
	state->list ? bf_wire_bytes(state->list) : 0};

	initStringInfo(&buf);
	appendStringInfoSpaces(&buf, VARHDRSZ);
	appendBinaryStringInfo(&buf, head, sizeof(head));
	appendBinaryStringInfo(&buf, (const char *) lens, sizeof(lens));
	if (state->bits)
		append_filter(&buf, state->bits);
	if (state->list)
		append_filter(&buf, state->list);
	if (state->list && !state->intersect)
	{
		bytea	   *hashes = hc_state_serialize(0, head, state->list->inserted, state->listed);

		appendBinaryStringInfo(&buf, (const char *) hashes, VARSIZE(hashes));
		pfree(hashes);
	}
	SET_VARSIZE(buf.data, buf.len);
	return (bytea *) buf.data;
}

Datum
bloom_setop_agg_serialize(PG_FUNCTION_ARGS)
{
	agg_memory_context(fcinfo, "bloom set operation serialize");
	PG_RETURN_BYTEA_P(setop_serialize((SetOpState *) PG_GETARG_POINTER(0)));
}

static void
corrupted_setop_state(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("invalid serialized bloom set operation state"),
			 errdetail("%s", detail)));
}

/* A filter of len bytes at the cursor, checked; the cursor moves past its padding. */
static BloomFilter *
read_filter(StringInfo si, uint64 len, bool want_list)
{
	BloomFilter *f;

	if (len > (uint64) (si->len - si->cursor))
		corrupted_setop_state("a filter is longer than the state");
	f = filter_from_wire((const uint8 *) si->data + si->cursor, (size_t) len,
						 ERRCODE_DATA_CORRUPTED, &bloom_type);
	if (bf_is_explicit(f) != want_list)
		corrupted_setop_state("a filter of the wrong representation");
	si->cursor += (int) TYPEALIGN(8, len);
	if (si->cursor > si->len)
		corrupted_setop_state("a filter's padding is missing");
	return f;
}

/* The union's collected hashes: the collector's own state, to the end. */
static HashCollector *
read_collected(StringInfo si, BloomFilter *list, MemoryContext aggcxt,
			   FunctionCallInfo fcinfo)
{
	bytea	   *hashes = (bytea *) (si->data + si->cursor);
	char		head[4];
	uint64		inserted;
	HashCollector *hc;

	if (si->len - si->cursor < VARHDRSZ || VARSIZE(hashes) != si->len - si->cursor)
		corrupted_setop_state("the collected hashes are not the rest of the state");
	hc = hc_state_deserialize(hashes, 0, "bloom_union_agg", head, &inserted, aggcxt, fcinfo);
	if (hc->width != 1 || inserted != list->inserted)
		corrupted_setop_state("the collected hashes do not match the lists");
	si->cursor = si->len;
	return hc;
}

/*
 * The state serialized in b, read into cxt and checked (ERROR
 * data_corrupted if anything is wrong).  fcinfo: the aggregate support
 * function calling, or NULL when the caller frees the collected hashes.
 */
static SetOpState *
setop_deserialize(const bytea *flat, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	bytea	   *b = (bytea *) flat;
	StringInfoData si;
	SetOpState *state;
	MemoryContext old;
	char		head[4];
	uint64		lens[2];

	/* the collected hashes are read in place: they must be aligned */
	if ((uintptr_t) b % sizeof(uint64) != 0)
	{
		bytea	   *copy = palloc(VARSIZE(b));

		memcpy(copy, b, VARSIZE(b));
		b = copy;
	}
	if (VARSIZE(b) < SETOP_SERIAL_HEAD)
		corrupted_setop_state("too short for its header");
	memcpy(head, VARDATA(b), sizeof(head));
	memcpy(lens, VARDATA(b) + sizeof(head), sizeof(lens));
	if ((head[0] != 'U' && head[0] != 'I') || (head[1] & ~1) || (head[2] & ~1) ||
		head[3] != SETOP_SERIAL_VERSION ||
		(lens[0] == 0) == head[1] || (lens[1] == 0) == head[2])
		corrupted_setop_state("bad header");
	si.data = (char *) b;
	si.len = VARSIZE(b);
	si.maxlen = si.len;
	si.cursor = SETOP_SERIAL_HEAD;

	old = MemoryContextSwitchTo(aggcxt);
	state = setop_state_new(aggcxt, head[0] == 'I');
	if (head[1])
		state->bits = read_filter(&si, lens[0], false);
	if (head[2])
		state->list = read_filter(&si, lens[1], true);
	if (head[2] && !state->intersect)
		state->listed = read_collected(&si, state->list, aggcxt, fcinfo);
	MemoryContextSwitchTo(old);
	if (si.cursor != si.len)
		corrupted_setop_state("trailing bytes");
	/* the aggregate checked them as they came; a state from elsewhere may lie */
	if (state->bits && state->list)
		bloom_check_compatible(state->bits, state->list, setop_name(state->intersect));
	return state;
}

Datum
bloom_setop_agg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom set operation deserialize");

	PG_RETURN_POINTER(setop_deserialize(PG_GETARG_BYTEA_P(0), aggcxt, fcinfo));
}

/* ---------------------------------------------------------------------
 * bloom_setop_state: the transition state of bloom_union_agg and
 * bloom_intersect_agg as a SQL type (agg_state.h), so a distributed
 * planner (Citus) runs them per shard and only the partial states travel.
 * In memory it is the SetOpState above, expanded; its flat form is the
 * serialized state (bloom_setop_agg_serialize).
 * --------------------------------------------------------------------- */

static bytea *
setop_flat(void *state)
{
	return setop_serialize((SetOpState *) state);
}

static void *
setop_from_flat(const bytea *flat, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	return setop_deserialize(flat, aggcxt, fcinfo);
}

static void
setop_release(void *arg)
{
	SetOpState *state = (SetOpState *) arg;

	if (state->listed)
		hc_free(state->listed);
}

static const AggStateType setop_state_type = {
	"bloom_setop_state",
	"invalid serialized bloom set operation state",
	setop_flat,
	setop_from_flat,
	setop_release
};

/* kind: 0 union, 1 intersection, -1 either (a final function's argument). */
static SetOpState *
check_state_kind(SetOpState *state, int kind)
{
	if (state != NULL && kind >= 0 && state->intersect != (kind == 1))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a bloom_%s_agg state given to bloom_%s_agg",
						state->intersect ? "intersect" : "union",
						kind == 1 ? "intersect" : "union")));
	return state;
}

/*
 * The transition state to change in place (agg_state_for_update), a new
 * empty one when there is none yet.
 */
static AggStateExpanded *
setop_state_for_update(FunctionCallInfo fcinfo, bool intersect, MemoryContext aggcxt)
{
	AggStateExpanded *e = agg_state_for_update(fcinfo, &setop_state_type, aggcxt);

	if (e == NULL)
		return agg_state_wrap(&setop_state_type, setop_state_new(aggcxt, intersect), aggcxt);
	check_state_kind(e->state, intersect);
	return e;
}

static Datum
setop_state_step(FunctionCallInfo fcinfo, bool intersect)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, intersect ? "bloom_intersect_agg" : "bloom_union_agg");
	AggStateExpanded *e;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	e = setop_state_for_update(fcinfo, intersect, aggcxt);
	setop_add(fcinfo, e->state, PG_GETARG_BLOOM(1), aggcxt);
	PG_RETURN_DATUM(agg_state_datum(e));
}

Datum
bloom_union_agg_step(PG_FUNCTION_ARGS)
{
	return setop_state_step(fcinfo, false);
}

Datum
bloom_intersect_agg_step(PG_FUNCTION_ARGS)
{
	return setop_state_step(fcinfo, true);
}

static Datum
setop_state_combine(FunctionCallInfo fcinfo, bool intersect)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom set operation combine");
	SetOpState *b;
	AggStateExpanded *a;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	/* a copy: combining moves b's lists into a */
	b = check_state_kind(agg_state_read(fcinfo, 1, &setop_state_type, aggcxt), intersect);
	a = setop_state_for_update(fcinfo, intersect, aggcxt);
	setop_combine_into(fcinfo, a->state, b, aggcxt);
	PG_RETURN_DATUM(agg_state_datum(a));
}

Datum
bloom_union_state_combine(PG_FUNCTION_ARGS)
{
	return setop_state_combine(fcinfo, false);
}

Datum
bloom_intersect_state_combine(PG_FUNCTION_ARGS)
{
	return setop_state_combine(fcinfo, true);
}

/* Final function of both: the state's kind says which it is. */
Datum
bloom_setop_state_final(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom set operation final");
	BloomFilter *f = setop_result(agg_state_arg(fcinfo, 0, &setop_state_type, aggcxt));

	if (f == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(f);
}

Datum
bloom_setop_state_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(agg_state_text_in(PG_GETARG_CSTRING(0), &setop_state_type));
}

Datum
bloom_setop_state_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(agg_state_text_out(PG_GETARG_BYTEA_PP(0), &setop_state_type));
}

Datum
bloom_setop_state_recv(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(agg_state_recv((StringInfo) PG_GETARG_POINTER(0), &setop_state_type));
}

/* Binary send of every state type: the flat form as it is. */
Datum
bloom_setop_state_send(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(PG_GETARG_BYTEA_P(0));
}

/* ---------------------------------------------------------------------
 * bloom_agg_hashed: bloom_agg over the values' 64-bit hashes
 * (bloom_hash(value, 0)) instead of the values.  Its arguments have
 * declared types a distributed planner can check on the shards, and its
 * state is the SQL type bloom_agg_state (agg_state.h): the BloomAggState
 * of bloom_agg, expanded, whose flat form is bloom_agg's serialized state
 * after a format byte.  So bloom_agg_hashed(bloom_hash(x, 0), ...)
 * gives bloom_agg(x, ...)'s bytes, errors and insert counts, in every
 * plan.
 *
 * Under Citus these functions run inside Citus's own aggregates: the
 * Aggref is then read only when it is this aggregate's call
 * (agg_call_is_own).
 * --------------------------------------------------------------------- */

#define BLOOM_AGG_STATE_FORMAT	1
#define STATE_LEAD				1	/* the format byte */

static bytea *
bloom_agg_state_flat(void *state)
{
	bytea	   *flat = serialize_state((BloomAggState *) state, STATE_LEAD);

	VARDATA(flat)[0] = BLOOM_AGG_STATE_FORMAT;
	return flat;
}

static void *
bloom_agg_state_from_flat(const bytea *flat, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	if (VARSIZE(flat) <= VARHDRSZ || VARDATA(flat)[0] != BLOOM_AGG_STATE_FORMAT)
		bad_serial_state("unknown format");
	return deserialize_state(flat, STATE_LEAD, aggcxt, fcinfo);
}

static void
bloom_agg_state_release(void *arg)
{
	BloomAggState *state = (BloomAggState *) arg;

	if (state->hashes)
		hc_free(state->hashes);
}

static const AggStateType bloom_agg_state_type = {
	"bloom_agg_state",
	"invalid serialized bloom_agg state",
	bloom_agg_state_flat,
	bloom_agg_state_from_flat,
	bloom_agg_state_release
};

/* ERROR unless the state is of the form the function expects. */
static BloomAggState *
check_form(BloomAggState *state, bool fixed)
{
	if (state != NULL && state_is_fixed(state) != fixed)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a %s bloom_agg_state given to a %s bloom_agg_hashed",
						fixed ? "data-sized" : "fixed-shape",
						fixed ? "fixed-shape" : "data-sized")));
	return state;
}

/* bloom_agg_hashed(hash): the data-sized form's transition. */
Datum
bloom_agg_hashed_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_hashed_trans");
	AggStateExpanded *e = agg_state_for_update(fcinfo, &bloom_agg_state_type, aggcxt);
	BloomAggState *state;

	if (e == NULL)
		e = agg_state_wrap(&bloom_agg_state_type, new_datasized_state(fcinfo, aggcxt), aggcxt);
	state = check_form(e->state, false);
	if (!PG_ARGISNULL(1))
	{
		hc_add1(state->hashes, (uint64) PG_GETARG_INT64(1));
		state->rows++;
	}
	PG_RETURN_DATUM(agg_state_datum(e));
}

/*
 * The fixed-shape forms' state of a group's first row.  A hash is the one
 * bloom_agg computes with the filter's seed only if that seed is 0, as it
 * is for every shape of bloom_empty(capacity, fpp [, layout]).
 */
static AggStateExpanded *
new_hashed_fixed_state(FunctionCallInfo fcinfo, MemoryContext aggcxt)
{
	BloomAggState *state = new_fixed_state(fcinfo, agg_call_is_own(fcinfo));

	if (state->filter != NULL && state->filter->seed != 0)
		elog(ERROR, "bloom_agg_hashed: a fixed shape of seed " UINT64_FORMAT,
			 state->filter->seed);
	return agg_state_wrap(&bloom_agg_state_type, state, aggcxt);
}

/* bloom_agg_hashed(hash, capacity, fpp [, layout]): transition. */
Datum
bloom_agg_hashed_fixed_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_hashed_fixed_trans");
	AggStateExpanded *e = agg_state_for_update(fcinfo, &bloom_agg_state_type, aggcxt);
	bool		first_row = e == NULL;
	BloomAggState *state;

	if (first_row)
		e = new_hashed_fixed_state(fcinfo, aggcxt);
	state = check_form(e->state, true);
	if (!first_row && state->check_rows)
		check_row_args(fcinfo, &state->args);
	if (state->deferred)
	{
		if (!PG_ARGISNULL(1))
			deferred_add(state, (uint64) PG_GETARG_INT64(1));
		PG_RETURN_DATUM(agg_state_datum(e));
	}
	if (!PG_ARGISNULL(1))
		bf_inserter_add(&state->inserter, state->filter,
						bf_hash_derive((uint64) PG_GETARG_INT64(1)));
	PG_RETURN_DATUM(agg_state_datum(e));
}

/* Combine function of every form: b is read into a private copy. */
Datum
bloom_agg_state_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_state_combine");
	BloomAggState *b;
	AggStateExpanded *a;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	b = agg_state_read(fcinfo, 1, &bloom_agg_state_type, aggcxt);
	a = agg_state_for_update(fcinfo, &bloom_agg_state_type, aggcxt);
	if (a == NULL)
		PG_RETURN_DATUM(agg_state_datum(agg_state_wrap(&bloom_agg_state_type, b, aggcxt)));
	combine_into(a->state, b);
	/* b's filter, a private copy now ORed into a's, is not needed again */
	if (b->filter)
		pfree(b->filter);
	PG_RETURN_DATUM(agg_state_datum(a));
}

/* Over no rows: the empty list, as bloom_agg(value) gives. */
Datum
bloom_agg_hashed_final(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_hashed_final");
	BloomAggState *state = agg_state_arg(fcinfo, 0, &bloom_agg_state_type, aggcxt);

	PG_RETURN_BLOOM(datasized_result(check_form(state, false)));
}

/*
 * Over no rows: the empty filter of the call's constant shape when the
 * Aggref is this call, else NULL.
 */
Datum
bloom_agg_hashed_fixed_final(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_hashed_fixed_final");
	BloomAggState *state = agg_state_arg(fcinfo, 0, &bloom_agg_state_type, aggcxt);
	BloomFilter *f;

	f = fixed_result(fcinfo, check_form(state, true), state == NULL && agg_call_is_own(fcinfo));
	if (f == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(f);
}

Datum
bloom_agg_state_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(agg_state_text_in(PG_GETARG_CSTRING(0), &bloom_agg_state_type));
}

Datum
bloom_agg_state_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(agg_state_text_out(PG_GETARG_BYTEA_PP(0), &bloom_agg_state_type));
}

Datum
bloom_agg_state_recv(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(agg_state_recv((StringInfo) PG_GETARG_POINTER(0), &bloom_agg_state_type));
}
