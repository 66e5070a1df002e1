/*
 * bloom_agg_partial.c
 *	  bloom_agg's partial states, for both forms: the combine function and
 *	  the serialized state that parallel workers send (and that
 *	  bloom_agg_state, bloom_agg_hashed.c, wraps as its flat form).  Every
 *	  state read is checked in full, since the flat form also comes from
 *	  tables and other servers.  Runs in parallel and distributed plans.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "aggregates/bloom_agg_internal.h"

PG_FUNCTION_INFO_V1(bloom_agg_combine);
PG_FUNCTION_INFO_V1(bloom_agg_serialize);
PG_FUNCTION_INFO_V1(bloom_agg_deserialize);

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
void
bloom_agg_combine_into(BloomAggState *a, BloomAggState *b)
{
	if (state_is_fixed(a) != state_is_fixed(b))
		different_forms();
	if (a->deferred || b->deferred)
	{
		bloom_agg_check_same_args(&a->args, &b->args, "another part of it has");
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
		bloom_agg_check_same_args(&a->args, &b->args, "another part of it has");
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
	bloom_agg_combine_into(a, b);
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

void
bloom_agg_bad_serial_state(const char *detail)
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
		bloom_agg_bad_serial_state(NULL);
	/* the padding after the kind byte and after has_layout is zero */
	for (int i = 1; i < AGG_SERIAL_FIXED_PREFIX; i++)
		if ((i < 4 || i > 24) && in[i] != 0)
			bloom_agg_bad_serial_state("nonzero padding");
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
		bloom_agg_bad_serial_state("The filter's arguments are not valid.");
	bf_get_shape(f, &have);
	if (want.layout != have.layout || want.nbits != have.nbits ||
		want.nhashes != have.nhashes || want.seed != have.seed ||
		want.rows != have.rows || want.locators != have.locators)
		bloom_agg_bad_serial_state("The filter's shape is not the one of its arguments.");
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
		bloom_agg_bad_serial_state(NULL);
	read_fixed_prefix(VARDATA(b) + lead, &state->args);
	if (state->args.layout != BLOOM_LAYOUT_MATRIX || state->args.capacity < 1 ||
		!bf_shape_for((double) state->args.capacity, state->args.fpp, state->args.layout,
					  &shape, errbuf))
		bloom_agg_bad_serial_state("The filter's arguments are not valid.");
	state->hashes = hc_state_deserialize(b, lead + AGG_SERIAL_FIXED_PREFIX, "bloom_agg", head,
										 &state->rows, aggcxt, fcinfo);
	if (memcmp(head, AGG_SERIAL_DEFERRED_HEAD, sizeof(head)) != 0 || state->hashes->width != 1)
		bloom_agg_bad_serial_state("bad header");
	state->deferred = true;
	/* rows added to it later are compared with its arguments */
	state->check_rows = true;
}

/* The serialized state after lead bytes left for the caller. */
bytea *
bloom_agg_serialize_state(BloomAggState *state, Size lead)
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
 * A state bloom_agg_serialize_state wrote (after lead bytes), read into aggcxt and
 * checked (ERROR data_corrupted); fcinfo as for hc_state_deserialize.
 */
BloomAggState *
bloom_agg_deserialize_state(const bytea *b, Size lead, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	Size		len = VARSIZE(b) - VARHDRSZ;
	char		kind = len > lead ? VARDATA(b)[lead] : '\0';
	BloomAggState *state;
	MemoryContext old;
	char		head[4];

	if (kind != AGG_SERIAL_FIXED && kind != AGG_SERIAL_DATASIZED[0] &&
		kind != AGG_SERIAL_DEFERRED)
		bloom_agg_bad_serial_state(NULL);
	old = MemoryContextSwitchTo(aggcxt);
	state = palloc0(sizeof(BloomAggState));
	if (kind == AGG_SERIAL_DEFERRED)
		deserialize_deferred(b, lead, state, aggcxt, fcinfo);
	else if (kind == AGG_SERIAL_FIXED)
	{
		if (len - lead < AGG_SERIAL_FIXED_PREFIX)
			bloom_agg_bad_serial_state(NULL);
		read_fixed_prefix(VARDATA(b) + lead, &state->args);
		/* a matrix state carries its values' hashes, never a filter */
		if (state->args.layout == BLOOM_LAYOUT_MATRIX)
			bloom_agg_bad_serial_state("A matrix filter's state is not a filter.");
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
			bloom_agg_bad_serial_state("bad header");
	}
	MemoryContextSwitchTo(old);
	return state;
}

Datum
bloom_agg_serialize(PG_FUNCTION_ARGS)
{
	agg_memory_context(fcinfo, "bloom_agg_serialize");
	PG_RETURN_BYTEA_P(bloom_agg_serialize_state((BloomAggState *) PG_GETARG_POINTER(0), 0));
}

Datum
bloom_agg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom_agg_deserialize");

	PG_RETURN_POINTER(bloom_agg_deserialize_state(PG_GETARG_BYTEA_P(0), 0, aggcxt, fcinfo));
}
