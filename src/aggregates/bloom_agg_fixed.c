/*
 * bloom_agg_fixed.c
 *	  bloom_agg(value, capacity, fpp [, layout]), the fixed-shape form: the
 *	  shape comes from the first row of each group, and every later row
 *	  must give the same arguments.  The state keeps the filter itself,
 *	  except for the matrix layout, whose state collects the value hashes
 *	  and inserts them in the final function (deferred insertion, below),
 *	  so that every plan builds one filter in one order.  The hashed twin
 *	  (bloom_agg_hashed.c) and the partial states (bloom_agg_partial.c)
 *	  call down into the shape and argument checks here.  Design:
 *	  doc/aggregates.md.
 */
#include "postgres.h"

#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "aggregates/bloom_agg_internal.h"
#include "types/interop_value.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

PG_FUNCTION_INFO_V1(bloom_agg_fixed_trans);
PG_FUNCTION_INFO_V1(bloom_agg_fixed_final);

/*
 * An empty filter for an aggregate state, in an allocation of its own
 * (*alloc) with the filter on a 64-byte boundary in it: its words are then
 * too (64 bytes in), so each block of the blocked layout is one cache line
 * and an insert touches, and prefetches, one line, not two (palloc aligns
 * to 8 or 16 bytes only).  A big filter is touched at random on every row,
 * so TLB misses cost as much as cache misses; on Linux it asks for
 * transparent huge pages before the memory is first touched (only a hint:
 * where THP is off, nothing changes).
 */
#define STATE_FILTER_ALIGN	64
#define HUGE_PAGE_BYTES		((Size) 2 * 1024 * 1024)

static BloomFilter *
alloc_state_filter(const BloomShape *shape, void **alloc)
{
	/* with the matrix layout's row counters after the bits */
	uint64		bytes = bf_shape_bytes(shape);
	BloomFilter *f;

	/* the shape check bounds nbits, so this is a defence in depth */
	if (bytes > MaxAllocSize - STATE_FILTER_ALIGN)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom filter of %llu bytes exceeds the 1 GB limit",
						(unsigned long long) bytes)));
	*alloc = palloc((Size) bytes + STATE_FILTER_ALIGN);
	f = (BloomFilter *) TYPEALIGN(STATE_FILTER_ALIGN, (uintptr_t) *alloc);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (bytes >= 4 * HUGE_PAGE_BYTES)
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
 * Filter f moved to the start of its allocation alloc (if alloc is known),
 * where a result must be: the executor may ask the memory context of the
 * pointer it gets.  One move of the bytes, in the final function.
 */
static BloomFilter *
filter_at_start(BloomFilter *f, void *alloc)
{
	if (alloc == NULL || (void *) f == alloc)
		return f;
	memmove(alloc, f, VARSIZE(f));
	return (BloomFilter *) alloc;
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
void
bloom_agg_check_same_args(const FixedArgs *first, const FixedArgs *other, const char *other_is)
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
void
bloom_agg_check_row_args(FunctionCallInfo fcinfo, const FixedArgs *first)
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
	bloom_agg_check_same_args(first, &args, "a later row has");
}

/*
 * The state of a group's first row, shaped by that row's arguments.
 * own_call: the Aggref is this aggregate's call (agg_call_is_own), so its
 * constant arguments tell that rows cannot disagree.
 */
BloomAggState *
bloom_agg_fixed_state_new(FunctionCallInfo fcinfo, bool own_call)
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
		state->filter = alloc_state_filter(&shape, &state->filter_alloc);
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

void
bloom_agg_deferred_add(BloomAggState *state, uint64 value_hash)
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
	bloom_agg_deferred_add(state, bloom_hasher_value_hash(&cache->hashers[0], PG_GETARG_DATUM(1), 0,
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
	void	   *alloc;

	bloom_shape_for_capacity(state->args.capacity, state->args.fpp, state->args.layout, &shape);
	f = alloc_state_filter(&shape, &alloc);
	bf_builder_start(&builder, f);
	hc_iterate(state->hashes, bloom_agg_build_from_record, &builder);
	bf_builder_finish(&builder);
	/* the builder counted one insert per distinct hash */
	if (f->inserted > state->rows)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid bloom_agg state"),
				 errdetail("It holds more distinct values than rows.")));
	f->inserted = state->rows;
	return filter_at_start(f, alloc);
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
		state = bloom_agg_fixed_state_new(fcinfo, true);
	else if (state->check_rows)
		bloom_agg_check_row_args(fcinfo, &state->args);
	if (state->deferred)
	{
		deferred_add_value(fcinfo, state);
		PG_RETURN_POINTER(state);
	}
	if (!PG_ARGISNULL(1))
	{
		FilterCallCache *cache = bloom_call_cache(fcinfo, 1);
		BloomFilter *f = state->filter;

		/* an interop layout: the other system's hash of the value's bytes */
		bf_inserter_add(&state->inserter, f, bf_layout_interop(f->layout)
						? bloom_interop_hash(bloom_interop_encoder_for_arg(fcinfo, &cache->interop,
																			f, 1),
											 f, PG_GETARG_DATUM(1))
						: bloom_hasher_hash(&cache->hashers[0], PG_GETARG_DATUM(1),
											f->seed, f->hash_scheme));
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
BloomFilter *
bloom_agg_fixed_result(FunctionCallInfo fcinfo, BloomAggState *state, bool own_call)
{
	if (state == NULL)
		return own_call ? fixed_filter_without_rows(fcinfo) : NULL;
	if (state->deferred)
		return deferred_result(state);
	bf_inserter_flush(&state->inserter, state->filter);
	/* later rows of a window go into the moved filter */
	state->filter = filter_at_start(state->filter, state->filter_alloc);
	state->filter_alloc = state->filter;
	return state->filter;
}

Datum
bloom_agg_fixed_final(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomFilter *f;

	agg_memory_context(fcinfo, "bloom_agg_fixed_final");
	f = bloom_agg_fixed_result(fcinfo, state, true);
	if (f == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(f);
}
