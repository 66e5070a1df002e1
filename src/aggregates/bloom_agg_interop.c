/*
 * bloom_agg_interop.c
 *	  bloom_agg(value, capacity, fpp, layout, options): a filter of an interop
 *	  layout (parquet, guava, guava32, spark, spark2) with the options that
 *	  say how values become the other system's bytes (doc/interop.md), the
 *	  aggregate form of bloom_empty(capacity, fpp, layout, options) and
 *	  bloom_add_all.  The state is the filter itself and a prefetching
 *	  inserter; every row must give the first row's capacity, fpp, layout
 *	  and options.  No partial form: the four-argument bloom_agg builds
 *	  interop layouts with their default encodings in parallel plans.
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "aggregates/bloom_agg_internal.h"
#include "types/interop_value.h"

PG_FUNCTION_INFO_V1(bloom_agg_interop_trans);
PG_FUNCTION_INFO_V1(bloom_agg_interop_final);

/* Arguments of the call: value, capacity, fpp, layout, options. */
enum
{
	ARG_VALUE = 1, ARG_CAPACITY, ARG_FPP, ARG_LAYOUT, ARG_OPTIONS
};

typedef struct InteropAggState
{
	BloomFilter *filter;
	BfInserter	inserter;
	InteropEncoder encoder;
	int64		capacity;		/* the first row's shaping arguments */
	float8		fpp;
	text	   *layout;
	text	   *options;
} InteropAggState;

static void
require_args(FunctionCallInfo fcinfo)
{
	for (int i = ARG_CAPACITY; i <= ARG_OPTIONS; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("bloom_agg: capacity, fpp, layout and options must not be NULL")));
}

/* The filter of the first row's arguments; only interop layouts take options. */
static BloomFilter *
interop_filter(FunctionCallInfo fcinfo, int64 capacity, double fpp, text *layout, text *options)
{
	BloomShape	shape;
	uint64		word = bloom_interop_shape(capacity, fpp, text_to_cstring(layout),
										   text_to_cstring(options), &shape);
	BloomFilter *f;

	if (!bf_layout_interop(shape.layout))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_agg with options builds only the foreign layouts, not \"%s\"",
						text_to_cstring(layout)),
				 errhint("Use bloom_agg(value, capacity, fpp, layout) for a native layout.")));
	f = bloom_alloc(&shape);
	f->seed = word;
	return f;
}

static InteropAggState *
state_new(FunctionCallInfo fcinfo)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_interop_trans");
	MemoryContext old = MemoryContextSwitchTo(aggcxt);
	InteropAggState *state = palloc0(sizeof(InteropAggState));

	state->capacity = PG_GETARG_INT64(ARG_CAPACITY);
	state->fpp = PG_GETARG_FLOAT8(ARG_FPP);
	state->layout = PG_GETARG_TEXT_P_COPY(ARG_LAYOUT);
	state->options = PG_GETARG_TEXT_P_COPY(ARG_OPTIONS);
	state->filter = interop_filter(fcinfo, state->capacity, state->fpp, state->layout,
								   state->options);
	bloom_interop_encoder_prepare(&state->encoder, state->filter,
								  get_fn_expr_argtype(fcinfo->flinfo, ARG_VALUE));
	bf_inserter_init(&state->inserter);
	MemoryContextSwitchTo(old);
	return state;
}

static bool
same_text(text *a, text *b)
{
	return VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
		memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
}

/* A later row gives the first row's arguments, or an ERROR. */
static void
check_row(FunctionCallInfo fcinfo, const InteropAggState *state)
{
	if (PG_GETARG_INT64(ARG_CAPACITY) != state->capacity ||
		PG_GETARG_FLOAT8(ARG_FPP) != state->fpp ||
		!same_text(PG_GETARG_TEXT_PP(ARG_LAYOUT), state->layout) ||
		!same_text(PG_GETARG_TEXT_PP(ARG_OPTIONS), state->options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_agg: capacity, fpp, layout and options must be the same for every row of a group"),
				 errhint("Give constants, or group by the arguments.")));
}

Datum
bloom_agg_interop_trans(PG_FUNCTION_ARGS)
{
	InteropAggState *state = PG_ARGISNULL(0) ? NULL : (InteropAggState *) PG_GETARG_POINTER(0);

	require_args(fcinfo);
	if (state == NULL)
		state = state_new(fcinfo);
	else
		check_row(fcinfo, state);
	if (!PG_ARGISNULL(ARG_VALUE))
		bf_inserter_add(&state->inserter, state->filter,
						bloom_interop_hash(&state->encoder, state->filter,
										   PG_GETARG_DATUM(ARG_VALUE)));
	PG_RETURN_POINTER(state);
}

/*
 * The filter; over no rows, the empty filter of the call's constant
 * arguments (NULL when they are not constants).
 */
Datum
bloom_agg_interop_final(PG_FUNCTION_ARGS)
{
	InteropAggState *state = PG_ARGISNULL(0) ? NULL : (InteropAggState *) PG_GETARG_POINTER(0);
	Datum		args[4];

	agg_memory_context(fcinfo, "bloom_agg_interop_final");
	if (state != NULL)
	{
		bf_inserter_flush(&state->inserter, state->filter);
		PG_RETURN_BLOOM(state->filter);
	}
	for (int i = 0; i < 4; i++)
		if (!agg_const_arg(fcinfo, i + 1, &args[i]))
			PG_RETURN_NULL();
	PG_RETURN_BLOOM(interop_filter(fcinfo, DatumGetInt64(args[0]), DatumGetFloat8(args[1]),
								   DatumGetTextPP(args[2]), DatumGetTextPP(args[3])));
}
