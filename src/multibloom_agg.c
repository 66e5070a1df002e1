/*
 * multibloom_agg.c
 *	  The aggregates of multibloom, all parallel (combine, serial and
 *	  deserial functions):
 *	  - multibloom_agg(VARIADIC "any"): data-sized, every part sized for
 *	    its own distinct count at fpp 0.01;
 *	  - multibloom_agg_fixed(capacity, fpp, VARIADIC "any"): fixed-shape,
 *	    the shape of multibloom_empty(number of values, capacity, fpp);
 *	  - multibloom_union_agg(f): the union of filters.
 *	  Entry points of one form name it (multibloom_agg_datasized_final,
 *	  multibloom_agg_fixed_final); those the fixed-shape form shares with
 *	  multibloom_union_agg do not (multibloom_agg_combine).
 */
#include "postgres.h"

#include "nodes/primnodes.h"

#include "hash_collector.h"
#include "multibloom.h"

PG_FUNCTION_INFO_V1(multibloom_agg_fixed_trans);
PG_FUNCTION_INFO_V1(multibloom_agg_fixed_final);
PG_FUNCTION_INFO_V1(multibloom_union_agg_trans);
PG_FUNCTION_INFO_V1(multibloom_agg_combine);
PG_FUNCTION_INFO_V1(multibloom_union_agg_step);
PG_FUNCTION_INFO_V1(multibloom_agg_serialize);
PG_FUNCTION_INFO_V1(multibloom_agg_deserialize);
PG_FUNCTION_INFO_V1(multibloom_agg_final);
PG_FUNCTION_INFO_V1(multibloom_agg_datasized_trans);
PG_FUNCTION_INFO_V1(multibloom_agg_datasized_combine);
PG_FUNCTION_INFO_V1(multibloom_agg_datasized_serialize);
PG_FUNCTION_INFO_V1(multibloom_agg_datasized_deserialize);
PG_FUNCTION_INFO_V1(multibloom_agg_datasized_final);

/*
 * Number of values per row of the aggregate call (after first_value_argno
 * leading arguments), or 0 when the call passes an explicit VARIADIC array.
 */
static int
agg_row_width(FunctionCallInfo fcinfo, int first_value_argno)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);

	if (aggref == NULL || aggref->aggvariadic)
		return 0;
	return list_length(aggref->args) - first_value_argno;
}

/* ---------------------------------------------------------------------
 * The aggregates that keep a filter: multibloom_agg_fixed (fixed-shape)
 * and multibloom_union_agg.  The state is a multibloom in the aggregate's
 * memory context; partial states travel in the binary format, and OR is
 * order-independent, so a parallel plan gives the serial plan's bits.
 * --------------------------------------------------------------------- */

typedef struct FilterAggState
{
	MultiBloom *mb;
	int64		capacity;		/* fixed-shape: the first row's arguments */
	double		fpp;
} FilterAggState;

/* multibloom_agg_fixed(capacity, fpp, VARIADIC "any") transition. */
Datum
multibloom_agg_fixed_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_agg_fixed");
	FilterAggState *state = PG_ARGISNULL(0) ? NULL : (FilterAggState *) PG_GETARG_POINTER(0);
	FilterCallCache *cache = multibloom_call_cache(fcinfo, 3);
	MultiBloomRow row;
	int64		capacity;
	double		fpp;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("multibloom_agg_fixed: capacity and fpp must not be NULL")));
	capacity = PG_GETARG_INT64(1);
	fpp = PG_GETARG_FLOAT8(2);

	if (state == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(aggcxt);

		state = palloc0(sizeof(FilterAggState));
		state->mb = multibloom_empty_for_capacity(multibloom_row_width(fcinfo, cache, 3),
												  capacity, fpp);
		state->capacity = capacity;
		state->fpp = fpp;
		MemoryContextSwitchTo(old);
	}
	else if (state->capacity != capacity || state->fpp != fpp)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("multibloom_agg_fixed: capacity and fpp must be the same for every row of a group"),
				 errdetail("The group began with capacity " INT64_FORMAT " and fpp %g, a later row has capacity " INT64_FORMAT " and fpp %g.",
						   state->capacity, state->fpp, capacity, fpp)));

	multibloom_read_row(fcinfo, cache, 3, state->mb->nattrs, "multibloom_agg_fixed", &row);
	mbf_add_row(state->mb, row.hashes, row.isnull);
	PG_RETURN_POINTER(state);
}

/* Unites src into the state (creating it in aggcxt from a copy). */
static FilterAggState *
state_union(FilterAggState *state, const MultiBloom *src, MemoryContext aggcxt)
{
	MemoryContext old;
	MultiBloom *smaller;

	if (state == NULL)
	{
		old = MemoryContextSwitchTo(aggcxt);
		state = palloc0(sizeof(FilterAggState));
		state->mb = filter_copy(src);
		MemoryContextSwitchTo(old);
		return state;
	}
	multibloom_check_compatible(state->mb, src);
	if (mbf_union_fits(state->mb, src))
	{
		mbf_union_into(state->mb, src);
		return state;
	}
	/* data-sized parts of src are smaller: the state shrinks to them */
	old = MemoryContextSwitchTo(aggcxt);
	smaller = multibloom_union_new(state->mb, src);
	MemoryContextSwitchTo(old);
	pfree(state->mb);
	state->mb = smaller;
	return state;
}

/* multibloom_union_agg(f) transition: NULL filters are skipped. */
Datum
multibloom_union_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_union_agg");
	FilterAggState *state = PG_ARGISNULL(0) ? NULL : (FilterAggState *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}
	PG_RETURN_POINTER(state_union(state, PG_GETARG_MULTIBLOOM(1), aggcxt));
}

/*
 * multibloom_union_agg's transition and combine function since 1.2: the
 * state is the multibloom itself, so partial states leave the server as
 * filters (Citus runs the aggregate per shard) and parallel workers send
 * them in the binary format.  The state, a copy in the aggregate's memory
 * made by the executor from the first filter, is united in place and
 * returned as is, so no row copies it; only when the union is smaller (a
 * data-sized part folds) is a new value returned, which the executor
 * copies, freeing the old one.  NULL filters are skipped.
 */
Datum
multibloom_union_agg_step(PG_FUNCTION_ARGS)
{
	MultiBloom *state;
	const MultiBloom *src;

	agg_memory_context(fcinfo, "multibloom_union_agg");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	src = PG_GETARG_MULTIBLOOM(1);
	/* the executor copies the first filter into the aggregate's memory */
	if (PG_ARGISNULL(0))
		PG_RETURN_POINTER(src);
	/* the state is the aggregate's own: changed in place (a copy if toasted) */
	state = (MultiBloom *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	multibloom_check_compatible(state, src);
	if (!mbf_union_fits(state, src))
		PG_RETURN_POINTER(multibloom_union_new(state, src));
	mbf_union_into(state, src);
	PG_RETURN_POINTER(state);
}

Datum
multibloom_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_agg_combine");
	FilterAggState *s1 = PG_ARGISNULL(0) ? NULL : (FilterAggState *) PG_GETARG_POINTER(0);
	FilterAggState *s2 = PG_ARGISNULL(1) ? NULL : (FilterAggState *) PG_GETARG_POINTER(1);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
	{
		s1 = state_union(NULL, s2->mb, aggcxt);
		s1->capacity = s2->capacity;
		s1->fpp = s2->fpp;
		PG_RETURN_POINTER(s1);
	}
	PG_RETURN_POINTER(state_union(s1, s2->mb, aggcxt));
}

/* Partial state: capacity (8 bytes), fpp (8), then the binary format. */
#define FILTER_STATE_PREFIX	16

Datum
multibloom_agg_serialize(PG_FUNCTION_ARGS)
{
	FilterAggState *state = (FilterAggState *) PG_GETARG_POINTER(0);
	bytea	   *result = filter_to_bytea(state->mb, FILTER_STATE_PREFIX, &multibloom_type);

	memcpy(VARDATA(result), &state->capacity, 8);
	memcpy(VARDATA(result) + 8, &state->fpp, 8);
	PG_RETURN_BYTEA_P(result);
}

Datum
multibloom_agg_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	size_t		len = VARSIZE_ANY_EXHDR(b);
	FilterAggState *state;

	if (len < FILTER_STATE_PREFIX)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid multibloom aggregate state of %zu bytes", len)));
	state = palloc0(sizeof(FilterAggState));
	memcpy(&state->capacity, VARDATA_ANY(b), 8);
	memcpy(&state->fpp, VARDATA_ANY(b) + 8, 8);
	state->mb = filter_from_bytea(b, FILTER_STATE_PREFIX, ERRCODE_DATA_CORRUPTED,
								  &multibloom_type);
	PG_RETURN_POINTER(state);
}

/* The result is a copy, so the state may go on changing (window frames). */
Datum
multibloom_agg_final(PG_FUNCTION_ARGS)
{
	FilterAggState *state = PG_ARGISNULL(0) ? NULL : (FilterAggState *) PG_GETARG_POINTER(0);

	if (state == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(filter_copy(state->mb));
}

/*
 * multibloom_agg_fixed over no rows: the transition never ran, so the shape
 * comes from the call's constant arguments, an empty filter like
 * multibloom_empty.  When they are not constants the result is NULL.
 */
Datum
multibloom_agg_fixed_final(PG_FUNCTION_ARGS)
{
	FilterAggState *state = PG_ARGISNULL(0) ? NULL : (FilterAggState *) PG_GETARG_POINTER(0);
	Datum		capacity,
				fpp;
	int			nattrs;

	if (state != NULL)
		PG_RETURN_POINTER(filter_copy(state->mb));
	nattrs = agg_row_width(fcinfo, 2);
	if (nattrs < 1 || !agg_const_arg(fcinfo, 0, &capacity) || !agg_const_arg(fcinfo, 1, &fpp))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(multibloom_empty_for_capacity(nattrs, DatumGetInt64(capacity),
													DatumGetFloat8(fpp)));
}

/* ---------------------------------------------------------------------
 * multibloom_agg(VARIADIC "any"): data-sized.
 *
 * The state collects each distinct row as a record of nattrs + 1 words in
 * a hash collector (bounded by work_mem, spilling to temporary files): the
 * attributes' 64-bit hashes (0 for NULL), then a bitmap of the NULL
 * attributes.  The final function counts what each part must hold: each
 * attribute's distinct values, and the distinct complete rows for the
 * verification filter, sizes every part for its own count at fpp 0.01, and
 * inserts every distinct row.  The result depends only on the set of
 * distinct rows, so a parallel plan gives the serial plan's bits.
 * --------------------------------------------------------------------- */

#define MULTIBLOOM_AGG_FPP	0.01

typedef struct DataSizedState
{
	HashCollector *rows_seen;	/* distinct rows, nattrs + 1 words each */
	uint64		rows;			/* rows aggregated, repeats included */
	int			nattrs;
} DataSizedState;

static DataSizedState *
new_datasized_state(MemoryContext aggcxt, int nattrs, FunctionCallInfo fcinfo)
{
	DataSizedState *state = MemoryContextAllocZero(aggcxt, sizeof(DataSizedState));

	state->nattrs = nattrs;
	state->rows_seen = hc_create(aggcxt, nattrs + 1, hc_work_mem_limit(), fcinfo);
	return state;
}

Datum
multibloom_agg_datasized_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_agg");
	DataSizedState *state = PG_ARGISNULL(0) ? NULL : (DataSizedState *) PG_GETARG_POINTER(0);
	FilterCallCache *cache = multibloom_call_cache(fcinfo, 1);
	MultiBloomRow row;
	uint64		record[MULTIBLOOM_MAX_ATTRS + 1];
	uint64		nullmap = 0;

	if (state == NULL)
	{
		int			nattrs = multibloom_row_width(fcinfo, cache, 1);

		multibloom_check_nattrs(nattrs);
		state = new_datasized_state(aggcxt, nattrs, fcinfo);
	}
	multibloom_read_row(fcinfo, cache, 1, state->nattrs, "multibloom_agg", &row);
	for (int i = 0; i < state->nattrs; i++)
	{
		record[i] = row.hashes[i];
		if (row.isnull[i])
			nullmap |= UINT64CONST(1) << i;
	}
	record[state->nattrs] = nullmap;
	hc_add(state->rows_seen, record);
	state->rows++;
	PG_RETURN_POINTER(state);
}

Datum
multibloom_agg_datasized_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_agg_combine");
	DataSizedState *s1 = PG_ARGISNULL(0) ? NULL : (DataSizedState *) PG_GETARG_POINTER(0);
	DataSizedState *s2 = PG_ARGISNULL(1) ? NULL : (DataSizedState *) PG_GETARG_POINTER(1);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = new_datasized_state(aggcxt, s2->nattrs, fcinfo);
	/* workers that each saw rows of one width, but not the same one */
	if (s1->nattrs != s2->nattrs)
		multibloom_report_count_mismatch("multibloom_agg", s2->nattrs, s1->nattrs);
	hc_merge(s1->rows_seen, s2->rows_seen);
	s1->rows += s2->rows;
	PG_RETURN_POINTER(s1);
}

/* Partial state: nattrs (4 bytes), rows (8), then the collector's set. */
Datum
multibloom_agg_datasized_serialize(PG_FUNCTION_ARGS)
{
	DataSizedState *state = (DataSizedState *) PG_GETARG_POINTER(0);
	int32		nattrs = state->nattrs;
	char		head[4];

	StaticAssertStmt(sizeof(nattrs) == sizeof(head), "nattrs is the 4-byte head");
	memcpy(head, &nattrs, sizeof(head));
	PG_RETURN_BYTEA_P(hc_state_serialize(head, state->rows, state->rows_seen));
}

Datum
multibloom_agg_datasized_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_agg_deserialize");
	DataSizedState *state = MemoryContextAllocZero(aggcxt, sizeof(DataSizedState));
	char		head[4];
	int32		nattrs;

	state->rows_seen = hc_state_deserialize(PG_GETARG_BYTEA_P(0), "multibloom_agg", head,
											&state->rows, aggcxt, fcinfo);
	memcpy(&nattrs, head, sizeof(nattrs));
	if (nattrs < 1 || nattrs > MULTIBLOOM_MAX_ATTRS || state->rows_seen->width != nattrs + 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized multibloom_agg state: %d attributes", nattrs)));
	state->nattrs = nattrs;
	PG_RETURN_POINTER(state);
}

/* What the parts must hold, gathered in one pass over the distinct rows. */
typedef struct PartCounts
{
	int			nattrs;
	uint64		attr0_distinct; /* rows come sorted on attribute 1 */
	uint64		attr0_last;
	bool		attr0_seen;
	HashCollector *attr_values[MULTIBLOOM_MAX_ATTRS];	/* attributes 2.. */
	uint64		complete_rows;
} PartCounts;

static void
count_parts(const uint64 *rec, void *arg)
{
	PartCounts *pc = (PartCounts *) arg;
	uint64		nullmap = rec[pc->nattrs];

	if (!(nullmap & 1) && (!pc->attr0_seen || rec[0] != pc->attr0_last))
	{
		pc->attr0_distinct++;
		pc->attr0_last = rec[0];
		pc->attr0_seen = true;
	}
	for (int i = 1; i < pc->nattrs; i++)
		if (!(nullmap & (UINT64CONST(1) << i)))
			hc_add1(pc->attr_values[i], rec[i]);
	if (nullmap == 0)
		pc->complete_rows++;
}

static void
insert_row_record(const uint64 *rec, void *arg)
{
	MultiBloom *mb = (MultiBloom *) arg;
	bool		isnull[MULTIBLOOM_MAX_ATTRS];

	for (int i = 0; i < mb->nattrs; i++)
		isnull[i] = (rec[mb->nattrs] >> i) & 1;
	mbf_add_row(mb, rec, isnull);
}

/* The smallest data-sized filter: every part for one value, empty. */
static MultiBloom *
datasized_filter(int nattrs, const double *caps, double row_capacity)
{
	BloomShape	shapes[MULTIBLOOM_MAX_ATTRS + 1];
	char		errbuf[BLOOM_ERRBUF_SIZE];
	MultiBloom *mb;

	if (!mbf_shapes_for(nattrs, caps, row_capacity, MULTIBLOOM_AGG_FPP, shapes, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("multibloom_agg cannot size a filter: %s", errbuf),
				 errhint("Give a capacity and a false-positive probability: multibloom_agg_fixed(capacity, fpp, ...).")));
	mb = multibloom_alloc(nattrs, shapes);
	mb->flags |= MULTIBLOOM_FLAG_AUTOSIZED;
	for (int i = 0; i <= nattrs; i++)
		mbf_part(mb, i)->flags |= BLOOM_FLAG_AUTOSIZED;
	return mb;
}

/*
 * Pass 1 over the distinct rows: what each part must hold, caps[i] for
 * attribute i, the result for the verification filter.
 */
static double
part_capacities(DataSizedState *state, double *caps)
{
	PartCounts	pc;
	Size		limit;

	memset(&pc, 0, sizeof(pc));
	pc.nattrs = state->nattrs;
	limit = Max(hc_work_mem_limit() / Max(state->nattrs - 1, 1), 64 * 1024);
	for (int i = 1; i < state->nattrs; i++)
		pc.attr_values[i] = hc_create(CurrentMemoryContext, 1, limit, NULL);
	hc_iterate(state->rows_seen, count_parts, &pc);
	caps[0] = (double) Max(pc.attr0_distinct, 1);
	for (int i = 1; i < state->nattrs; i++)
	{
		caps[i] = (double) Max(hc_count(pc.attr_values[i]), 1);
		hc_free(pc.attr_values[i]);
	}
	return (double) Max(pc.complete_rows, 1);
}

Datum
multibloom_agg_datasized_final(PG_FUNCTION_ARGS)
{
	DataSizedState *state = PG_ARGISNULL(0) ? NULL : (DataSizedState *) PG_GETARG_POINTER(0);
	double		caps[MULTIBLOOM_MAX_ATTRS];
	double		row_capacity;
	MultiBloom *mb;

	if (state == NULL)
	{
		/* no rows: an empty filter for the call's number of values */
		int			nattrs = agg_row_width(fcinfo, 0);

		if (nattrs < 1 || nattrs > MULTIBLOOM_MAX_ATTRS)
			PG_RETURN_NULL();
		for (int i = 0; i < nattrs; i++)
			caps[i] = 1;
		PG_RETURN_POINTER(datasized_filter(nattrs, caps, 1));
	}

	row_capacity = part_capacities(state, caps);
	/* pass 2: every distinct row into parts sized for their own counts */
	mb = datasized_filter(state->nattrs, caps, row_capacity);
	hc_iterate(state->rows_seen, insert_row_record, mb);
	mb->rows = state->rows;
	PG_RETURN_POINTER(mb);
}
