/*
 * bloom_agg_hashed.c
 *	  bloom_agg_hashed, bloom_agg over the values' hashes, and its state
 *	  type bloom_agg_state (agg_state.h), whose flat form is bloom_agg's
 *	  serialized state: what a distributed planner (Citus) runs per shard
 *	  (citus/citus_agg_rewrite.c).  Calls down into the data-sized and
 *	  fixed-shape forms and their partial states.
 */
#include "postgres.h"

#include "aggregates/bloom_agg_internal.h"

PG_FUNCTION_INFO_V1(bloom_agg_hashed_trans);
PG_FUNCTION_INFO_V1(bloom_agg_hashed_fixed_trans);
PG_FUNCTION_INFO_V1(bloom_agg_state_combine);
PG_FUNCTION_INFO_V1(bloom_agg_hashed_final);
PG_FUNCTION_INFO_V1(bloom_agg_hashed_fixed_final);
PG_FUNCTION_INFO_V1(bloom_agg_state_result);

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
	bytea	   *flat = bloom_agg_serialize_state((BloomAggState *) state, STATE_LEAD);

	VARDATA(flat)[0] = BLOOM_AGG_STATE_FORMAT;
	return flat;
}

static void *
bloom_agg_state_from_flat(const bytea *flat, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	if (VARSIZE(flat) <= VARHDRSZ || VARDATA(flat)[0] != BLOOM_AGG_STATE_FORMAT)
		bloom_agg_bad_serial_state("unknown format");
	return bloom_agg_deserialize_state(flat, STATE_LEAD, aggcxt, fcinfo);
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
		e = agg_state_wrap(&bloom_agg_state_type, bloom_agg_datasized_state_new(fcinfo, aggcxt), aggcxt);
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
	BloomAggState *state = bloom_agg_fixed_state_new(fcinfo, agg_call_is_own(fcinfo));

	/* value hashes of the stored schemes mean nothing to an interop layout */
	if (state->filter != NULL && bf_layout_interop(state->filter->layout))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("bloom_agg_hashed cannot build a filter of the foreign layout \"%s\"",
						bf_layout_name(state->filter->layout)),
				 errhint("A foreign filter hashes the values themselves: use bloom_agg(value, capacity, fpp, layout).")));
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
		bloom_agg_check_row_args(fcinfo, &state->args);
	if (state->deferred)
	{
		if (!PG_ARGISNULL(1))
			bloom_agg_deferred_add(state, (uint64) PG_GETARG_INT64(1));
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
	bloom_agg_combine_into(a->state, b);
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

	PG_RETURN_BLOOM(bloom_agg_datasized_result(check_form(state, false)));
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

	f = bloom_agg_fixed_result(fcinfo, check_form(state, true), state == NULL && agg_call_is_own(fcinfo));
	if (f == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(f);
}

/*
 * bloom_agg_state_result(state, datasized): the filter of a combined state,
 * outside an aggregate: what the final function of its form gives (a state
 * of the other form is an ERROR).  A NULL state (no rows) gives the empty
 * data-sized filter if datasized, else NULL.  The Citus rewrite's binary
 * route (citus/citus_agg_transfer.c) combines the shards' states with an
 * aggregate that returns the state and calls this on it.
 */
Datum
bloom_agg_state_result(PG_FUNCTION_ARGS)
{
	bool		datasized = !PG_ARGISNULL(1) && PG_GETARG_BOOL(1);
	bool		read = false;
	BloomAggState *state = NULL;
	BloomFilter *f;

	if (!PG_ARGISNULL(0))
		state = check_form(agg_state_arg_plain(fcinfo, 0, &bloom_agg_state_type, &read),
						   !datasized);
	else if (!datasized)
		PG_RETURN_NULL();
	if (datasized)
		f = bloom_agg_datasized_result(state);
	else
		f = bloom_agg_fixed_result(fcinfo, state, false);
	if (state != NULL)
		agg_state_plain_done(&bloom_agg_state_type, state, read);
	PG_RETURN_BLOOM(f);
}

/* bloom_agg_state's text input and output and its binary input. */
AGG_STATE_IO_FUNCTIONS(bloom_agg_state, bloom_agg_state_type);
