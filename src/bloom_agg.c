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
#include "utils/expandeddatum.h"
#include "utils/float.h"
#include "utils/memutils.h"

#include "bloomfilter.h"
#include "core/base64.h"
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
PG_FUNCTION_INFO_V1(bloom_union_agg_step);
PG_FUNCTION_INFO_V1(bloom_intersect_agg_step);
PG_FUNCTION_INFO_V1(bloom_union_state_combine);
PG_FUNCTION_INFO_V1(bloom_intersect_state_combine);
PG_FUNCTION_INFO_V1(bloom_setop_state_final);
PG_FUNCTION_INFO_V1(bloom_setop_state_in);
PG_FUNCTION_INFO_V1(bloom_setop_state_out);
PG_FUNCTION_INFO_V1(bloom_setop_state_recv);
PG_FUNCTION_INFO_V1(bloom_setop_state_send);

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

/* Adds one collected hash (they come in ascending order) to the filter. */
static void
build_from_record(const uint64 *rec, void *arg)
{
	bf_builder_add((BfBuilder *) arg, rec[0]);
}

/*
 * The data-sized filter of a set of distinct value hashes (NULL: none),
 * with this seed and no insert count: up to BLOOM_EXPLICIT_MAX of them, the
 * list itself; beyond, the bit array sized for their exact count, every
 * hash inserted.  The result depends only on the set, so a parallel plan
 * gives the serial plan's filter.
 */
static BloomFilter *
collected_filter(HashCollector *hashes, uint64 seed)
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
Datum
bloom_agg_datasized_final(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);
	BloomFilter *f;

	agg_memory_context(fcinfo, "bloom_agg_final");
	f = collected_filter(state ? state->hashes : NULL, 0);
	if (state)
		f->inserted = state->rows;
	PG_RETURN_BLOOM(f);
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
		f = collected_filter(state->listed, state->list->seed);
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
		bytea	   *hashes = hc_state_serialize(head, state->list->inserted, state->listed);

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
	hc = hc_state_deserialize(hashes, "bloom_union_agg", head, &inserted, aggcxt, fcinfo);
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
setop_deserialize(bytea *b, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
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
 * bloom_intersect_agg as a SQL type.  A state of type internal cannot
 * leave the server, so a distributed planner (Citus) would ship every row
 * to one node; with a type of its own, each shard aggregates its rows and
 * only the partial states travel, to be combined where the query began.
 * PostgreSQL's parallel aggregation moves the same partial states.
 *
 * In memory a state is an expanded object: the SetOpState above behind an
 * ExpandedObjectHeader whose context is a child of the aggregate context,
 * so the executor keeps the read-write pointer the transition function
 * returns without copying it, and the filters of a group are combined in
 * place, as with the internal state.  The state's own memory (filters,
 * collected hashes) stays in the aggregate context, as before.  Its flat
 * form, what tables, tuple queues and other servers see, is the serialized
 * state (bloom_setop_agg_serialize): one format, checked in full wherever
 * it comes from (input, receive, a partial state to combine).
 * --------------------------------------------------------------------- */

typedef struct SetOpExpanded
{
	ExpandedObjectHeader hdr;
	SetOpState *state;
	bytea	   *flat;			/* the flat form, from get_flat_size to
								 * flatten_into; NULL when not computed */
} SetOpExpanded;

static Size
setop_get_flat_size(ExpandedObjectHeader *eohptr)
{
	SetOpExpanded *e = (SetOpExpanded *) eohptr;

	if (e->flat == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(e->hdr.eoh_context);

		e->flat = setop_serialize(e->state);
		MemoryContextSwitchTo(old);
	}
	return VARSIZE(e->flat);
}

static void
setop_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	SetOpExpanded *e = (SetOpExpanded *) eohptr;

	Assert(e->flat != NULL && allocated_size == VARSIZE(e->flat));
	memcpy(result, e->flat, allocated_size);
	pfree(e->flat);
	e->flat = NULL;
}

static const ExpandedObjectMethods setop_expanded_methods = {
	setop_get_flat_size,
	setop_flatten_into
};

/* A new expanded state around state (in aggcxt). */
static SetOpExpanded *
setop_expanded_new(MemoryContext aggcxt, SetOpState *state)
{
	MemoryContext cxt = AllocSetContextCreate(aggcxt, "bloom set operation state",
											  ALLOCSET_SMALL_SIZES);
	SetOpExpanded *e = MemoryContextAllocZero(cxt, sizeof(SetOpExpanded));

	EOH_init_header(&e->hdr, &setop_expanded_methods, cxt);
	e->state = state;
	return e;
}

/* kind: 0 union, 1 intersection, -1 either (a final function's argument). */
static void
check_state_kind(const SetOpState *state, int kind)
{
	if (kind >= 0 && state->intersect != (kind == 1))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a bloom_%s_agg state given to bloom_%s_agg",
						state->intersect ? "intersect" : "union",
						kind == 1 ? "intersect" : "union")));
}

/* Our expanded state behind a datum, or NULL if it is not one. */
static SetOpExpanded *
setop_expanded_of(Datum d, bool writable)
{
	Pointer		p = DatumGetPointer(d);

	if (writable ? !VARATT_IS_EXTERNAL_EXPANDED_RW(p) : !VARATT_IS_EXTERNAL_EXPANDED(p))
		return NULL;
	if (DatumGetEOHP(d)->eoh_methods != &setop_expanded_methods)
		return NULL;
	return (SetOpExpanded *) DatumGetEOHP(d);
}

/*
 * A state read from argument argno (not NULL) into aggcxt and checked: a
 * flat state, or a copy of an expanded one, so the caller may change it.
 */
static SetOpState *
setop_state_read(FunctionCallInfo fcinfo, int argno, int kind, MemoryContext aggcxt)
{
	/* detoasting flattens an expanded state */
	SetOpState *state = setop_deserialize((bytea *) PG_DETOAST_DATUM(PG_GETARG_DATUM(argno)),
										  aggcxt, fcinfo);

	check_state_kind(state, kind);
	return state;
}

/*
 * The state in argument argno, to read only, NULL if none: in memory
 * (ours, expanded), or flat (from a tuple, another process or another
 * server), then read and checked into aggcxt.
 */
static SetOpState *
setop_state_arg(FunctionCallInfo fcinfo, int argno, int kind, MemoryContext aggcxt)
{
	SetOpExpanded *e;

	if (PG_ARGISNULL(argno))
		return NULL;
	e = setop_expanded_of(PG_GETARG_DATUM(argno), false);
	if (e == NULL)
		return setop_state_read(fcinfo, argno, kind, aggcxt);
	check_state_kind(e->state, kind);
	return e->state;
}

/*
 * The transition state to change in place: argument 0 if it is our
 * read-write expanded object (the executor's transition value), else a new
 * one, empty or read from argument 0; the caller returns its read-write
 * pointer.
 */
static SetOpExpanded *
setop_state_for_update(FunctionCallInfo fcinfo, bool intersect, MemoryContext aggcxt)
{
	SetOpExpanded *e = PG_ARGISNULL(0) ? NULL : setop_expanded_of(PG_GETARG_DATUM(0), true);

	if (e)
	{
		check_state_kind(e->state, intersect);
		/* a flat form computed before is out of date from now on */
		if (e->flat)
			pfree(e->flat);
		e->flat = NULL;
		return e;
	}
	if (PG_ARGISNULL(0))
		return setop_expanded_new(aggcxt, setop_state_new(aggcxt, intersect));
	return setop_expanded_new(aggcxt, setop_state_read(fcinfo, 0, intersect, aggcxt));
}

static Datum
setop_state_step(FunctionCallInfo fcinfo, bool intersect)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, intersect ? "bloom_intersect_agg" : "bloom_union_agg");
	SetOpExpanded *e;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	e = setop_state_for_update(fcinfo, intersect, aggcxt);
	setop_add(fcinfo, e->state, PG_GETARG_BLOOM(1), aggcxt);
	PG_RETURN_DATUM(EOHPGetRWDatum(&e->hdr));
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
	SetOpExpanded *a;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	/* a copy: combining moves b's lists into a */
	b = setop_state_read(fcinfo, 1, intersect, aggcxt);
	a = setop_state_for_update(fcinfo, intersect, aggcxt);
	setop_combine_into(fcinfo, a->state, b, aggcxt);
	PG_RETURN_DATUM(EOHPGetRWDatum(&a->hdr));
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
	BloomFilter *f = setop_result(setop_state_arg(fcinfo, 0, -1, aggcxt));

	if (f == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(f);
}

/*
 * Text I/O: base64 of the flat form (what bloom_setop_state_send sends),
 * as for bloom.  Input and receive check the whole state, as a partial
 * state to combine is checked.
 */
static bytea *
setop_state_checked(const uint8 *bytes, size_t len)
{
	bytea	   *b;
	SetOpState *state;

	if (len > MaxAllocSize - VARHDRSZ)
		corrupted_setop_state("too long");
	b = palloc(VARHDRSZ + len);
	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), bytes, len);
	state = setop_deserialize(b, CurrentMemoryContext, NULL);
	if (state->listed)
		hc_free(state->listed);
	return b;
}

Datum
bloom_setop_state_in(PG_FUNCTION_ARGS)
{
	const char *str = PG_GETARG_CSTRING(0);
	size_t		len = strlen(str);
	size_t		nbytes;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint8	   *bytes = palloc(bf_base64_decoded_max(len) + 1);

	if (!bf_base64_decode(str, len, bytes, &nbytes, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type bloom_setop_state: %s", errbuf)));
	PG_RETURN_BYTEA_P(setop_state_checked(bytes, nbytes));
}

Datum
bloom_setop_state_out(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	size_t		len = VARSIZE_ANY_EXHDR(b);
	uint64		textlen = bf_base64_encoded_len(len);
	char	   *out;

	if (textlen + 1 > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_setop_state of %zu bytes is too large for its text form", len)));
	out = palloc((Size) textlen + 1);
	bf_base64_encode((const uint8 *) VARDATA_ANY(b), len, out);
	out[textlen] = '\0';
	PG_RETURN_CSTRING(out);
}

Datum
bloom_setop_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	bytea	   *b = setop_state_checked((const uint8 *) buf->data + buf->cursor,
										buf->len - buf->cursor);

	buf->cursor = buf->len;
	PG_RETURN_BYTEA_P(b);
}

Datum
bloom_setop_state_send(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_P(0);

	PG_RETURN_BYTEA_P(b);
}
