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
#include "utils/array.h"

#include "aggregates/agg_state.h"
#include "aggregates/hash_collector.h"
#include "aggregates/multibloom_agg.h"
#include "types/multibloom.h"

PG_FUNCTION_INFO_V1(multibloom_agg_fixed_trans);
PG_FUNCTION_INFO_V1(multibloom_agg_fixed_final);
PG_FUNCTION_INFO_V1(multibloom_union_agg_step);
PG_FUNCTION_INFO_V1(multibloom_agg_datasized_trans);
PG_FUNCTION_INFO_V1(multibloom_agg_datasized_final);
PG_FUNCTION_INFO_V1(multibloom_agg_hashed_trans);
PG_FUNCTION_INFO_V1(multibloom_agg_fixed_hashed_trans);
PG_FUNCTION_INFO_V1(multibloom_agg_state_combine);
PG_FUNCTION_INFO_V1(multibloom_agg_hashed_final);
PG_FUNCTION_INFO_V1(multibloom_agg_hashed_empty_datasized);
PG_FUNCTION_INFO_V1(multibloom_agg_fixed_hashed_final);
PG_FUNCTION_INFO_V1(multibloom_agg_state_result);

/*
 * Number of values per row of the aggregate call (after first_value_argno
 * leading arguments), or 0 when the call passes an explicit VARIADIC array.
 * Counted from the argument types, which the final step of a parallel plan
 * keeps, while its arguments are replaced by the one partial state.
 */
static int
agg_row_width(FunctionCallInfo fcinfo, int first_value_argno)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);

	if (aggref == NULL || aggref->aggvariadic)
		return 0;
	return list_length(aggref->aggargtypes) - first_value_argno;
}

/* A final function's result: mb, or SQL NULL when mb is NULL. */
static Datum
filter_or_null(FunctionCallInfo fcinfo, MultiBloom *mb)
{
	if (mb == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(mb);
}

/* ---------------------------------------------------------------------
 * Partial states of the two forms with an internal state, fixed-shape and
 * data-sized, for parallel aggregation: their combine, serialize and
 * deserialize functions take the same steps, with the form's own.
 * --------------------------------------------------------------------- */

typedef struct PartialForm
{
	/* s2 merged into s1, or into a new state in aggcxt if s1 is NULL */
	void	   *(*combine) (void *s1, void *s2, MemoryContext aggcxt,
							FunctionCallInfo fcinfo);
	/* the serialized state, after lead bytes left for the caller */
	bytea	   *(*serialize) (void *state, Size lead);
	/* a state serialize wrote (after lead bytes), read and checked */
	void	   *(*deserialize) (const bytea *b, Size lead, MemoryContext aggcxt,
								FunctionCallInfo fcinfo);
} PartialForm;

/* The combine function: a NULL state is no rows. */
static Datum
partial_combine(FunctionCallInfo fcinfo, const char *fname, const PartialForm *form)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, fname);
	void	   *s1 = PG_ARGISNULL(0) ? NULL : PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	PG_RETURN_POINTER(form->combine(s1, PG_GETARG_POINTER(1), aggcxt, fcinfo));
}

static Datum
partial_serialize(FunctionCallInfo fcinfo, const char *fname, const PartialForm *form)
{
	agg_memory_context(fcinfo, fname);
	PG_RETURN_BYTEA_P(form->serialize(PG_GETARG_POINTER(0), 0));
}

static Datum
partial_deserialize(FunctionCallInfo fcinfo, const char *fname, const PartialForm *form)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, fname);

	PG_RETURN_POINTER(form->deserialize(PG_GETARG_BYTEA_P(0), 0, aggcxt, fcinfo));
}

/*
 * prefix_combine, prefix_serialize and prefix_deserialize of a form, each
 * naming itself in the ERROR for a call outside an aggregate.
 */
#define PARTIAL_STATE_FUNCTIONS(prefix, form) \
	PG_FUNCTION_INFO_V1(prefix##_combine); \
	PG_FUNCTION_INFO_V1(prefix##_serialize); \
	PG_FUNCTION_INFO_V1(prefix##_deserialize); \
	Datum \
	prefix##_combine(PG_FUNCTION_ARGS) \
	{ \
		return partial_combine(fcinfo, #prefix "_combine", &(form)); \
	} \
	Datum \
	prefix##_serialize(PG_FUNCTION_ARGS) \
	{ \
		return partial_serialize(fcinfo, #prefix "_serialize", &(form)); \
	} \
	Datum \
	prefix##_deserialize(PG_FUNCTION_ARGS) \
	{ \
		return partial_deserialize(fcinfo, #prefix "_deserialize", &(form)); \
	} \
	extern int	no_such_variable	/* takes the semicolon, as in fmgr.h */

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

/*
 * The fixed-shape state for this row's capacity and fpp (arguments 1 and
 * 2) and nattrs values: a new one in aggcxt for a group's first row, else
 * the group's, which must have been shaped by the same arguments.
 */
static FilterAggState *
fixed_state_for_row(FunctionCallInfo fcinfo, FilterAggState *state, int nattrs,
					MemoryContext aggcxt)
{
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
		state->mb = multibloom_empty_for_capacity(nattrs, capacity, fpp);
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
	return state;
}

/*
 * multibloom_agg_fixed(capacity, fpp, VARIADIC "any") transition.  Parallel
 * to multibloom_agg_datasized_trans by design: the same steps over another
 * state (here a filter sized up front, there the rows' hashes collected
 * for the final function to size one).
 */
Datum
multibloom_agg_fixed_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_agg_fixed");
	FilterAggState *state = PG_ARGISNULL(0) ? NULL : (FilterAggState *) PG_GETARG_POINTER(0);
	FilterCallCache *cache = multibloom_call_cache(fcinfo, 3);
	MultiBloomRow row;

	state = fixed_state_for_row(fcinfo, state,
								state ? 0 : multibloom_row_width(fcinfo, cache, 3), aggcxt);
	multibloom_read_row(fcinfo, cache, 3, state->mb->nattrs, mbf_hash_scheme(state->mb),
						"multibloom_agg_fixed", &row);
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

/*
 * multibloom_union_agg(f) transition of 1.0 (internal state, bound as
 * multibloom_union_agg_trans in legacy_entry_points.c): NULL filters are
 * skipped.
 */
Datum
multibloom_union_internal_trans(FunctionCallInfo fcinfo)
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

/* Partial state: capacity (8 bytes), fpp (8), then the binary format. */
#define FILTER_STATE_PREFIX	16

/* Combine: s2's filter united into s1, or a copy of s2 if s1 is NULL. */
static void *
fixed_combine(void *arg1, void *arg2, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	FilterAggState *s1 = (FilterAggState *) arg1;
	FilterAggState *s2 = (FilterAggState *) arg2;

	if (s1 != NULL)
		return state_union(s1, s2->mb, aggcxt);
	s1 = state_union(NULL, s2->mb, aggcxt);
	s1->capacity = s2->capacity;
	s1->fpp = s2->fpp;
	return s1;
}

/* The partial state after lead bytes left for the caller. */
static bytea *
fixed_serialize(void *arg, Size lead)
{
	FilterAggState *state = (FilterAggState *) arg;
	bytea	   *result = filter_to_bytea(state->mb, lead + FILTER_STATE_PREFIX, &multibloom_type);

	memset(VARDATA(result), 0, lead);
	memcpy(VARDATA(result) + lead, &state->capacity, 8);
	memcpy(VARDATA(result) + lead + 8, &state->fpp, 8);
	return result;
}

/*
 * A state fixed_serialize wrote, read in the current memory context (not
 * aggcxt: the combine function copies the filter it keeps).
 */
static void *
fixed_deserialize(const bytea *b, Size lead, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	size_t		len = VARSIZE_ANY_EXHDR(b);
	FilterAggState *state;

	if (len < lead + FILTER_STATE_PREFIX)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid multibloom aggregate state of %zu bytes", len)));
	state = palloc0(sizeof(FilterAggState));
	memcpy(&state->capacity, VARDATA_ANY(b) + lead, 8);
	memcpy(&state->fpp, VARDATA_ANY(b) + lead + 8, 8);
	state->mb = filter_from_bytea(b, lead + FILTER_STATE_PREFIX, ERRCODE_DATA_CORRUPTED,
								  &multibloom_type);
	return state;
}

static const PartialForm fixed_form = {fixed_combine, fixed_serialize, fixed_deserialize};

/* multibloom_agg_combine, multibloom_agg_serialize, multibloom_agg_deserialize */
PARTIAL_STATE_FUNCTIONS(multibloom_agg, fixed_form);

/*
 * Final function of 1.0 (multibloom_agg_final in legacy_entry_points.c).
 * The result is a copy, so the state may go on changing (window frames).
 */
Datum
multibloom_internal_final(FunctionCallInfo fcinfo)
{
	FilterAggState *state = PG_ARGISNULL(0) ? NULL : (FilterAggState *) PG_GETARG_POINTER(0);

	return filter_or_null(fcinfo, state ? filter_copy(state->mb) : NULL);
}

/*
 * multibloom_agg_fixed over no rows: the transition never ran, so the shape
 * comes from the call's constant arguments, an empty filter like
 * multibloom_empty.  When they are not constants the result is NULL.
 */
static MultiBloom *
fixed_without_rows(FunctionCallInfo fcinfo, int nattrs)
{
	Datum		capacity,
				fpp;

	if (nattrs < 1 || !agg_const_arg(fcinfo, 0, &capacity) || !agg_const_arg(fcinfo, 1, &fpp))
		return NULL;
	return multibloom_empty_for_capacity(nattrs, DatumGetInt64(capacity), DatumGetFloat8(fpp));
}

Datum
multibloom_agg_fixed_final(PG_FUNCTION_ARGS)
{
	FilterAggState *state = PG_ARGISNULL(0) ? NULL : (FilterAggState *) PG_GETARG_POINTER(0);

	if (state != NULL)
		PG_RETURN_POINTER(filter_copy(state->mb));
	return filter_or_null(fcinfo, fixed_without_rows(fcinfo, agg_row_width(fcinfo, 2)));
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

/* A row as a record: its hashes, then the bitmap of its NULL attributes. */
static void
datasized_add_row(DataSizedState *state, const MultiBloomRow *row)
{
	uint64		record[MULTIBLOOM_MAX_ATTRS + 1];
	uint64		nullmap = 0;

	for (int i = 0; i < state->nattrs; i++)
	{
		record[i] = row->hashes[i];
		if (row->isnull[i])
			nullmap |= UINT64CONST(1) << i;
	}
	record[state->nattrs] = nullmap;
	hc_add(state->rows_seen, record);
	state->rows++;
}

/*
 * multibloom_agg(VARIADIC "any") transition: parallel to
 * multibloom_agg_fixed_trans by design (see there).
 */
Datum
multibloom_agg_datasized_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_agg");
	DataSizedState *state = PG_ARGISNULL(0) ? NULL : (DataSizedState *) PG_GETARG_POINTER(0);
	FilterCallCache *cache = multibloom_call_cache(fcinfo, 1);
	MultiBloomRow row;

	if (state == NULL)
	{
		int			nattrs = multibloom_row_width(fcinfo, cache, 1);

		multibloom_check_nattrs(nattrs);
		state = new_datasized_state(aggcxt, nattrs, fcinfo);
	}
	/* the hashes of the scheme the final filter is written under */
	multibloom_read_row(fcinfo, cache, 1, state->nattrs, BLOOM_HASH_SCHEME_NEWEST,
						"multibloom_agg", &row);
	datasized_add_row(state, &row);
	PG_RETURN_POINTER(state);
}

/* Moves the rows of s2 into s1. */
static void
datasized_merge(DataSizedState *s1, DataSizedState *s2)
{
	/* workers that each saw rows of one width, but not the same one */
	if (s1->nattrs != s2->nattrs)
		multibloom_report_count_mismatch("multibloom_agg", s2->nattrs, s1->nattrs);
	hc_merge(s1->rows_seen, s2->rows_seen);
	s1->rows += s2->rows;
}

/* Combine: s2's rows moved into s1, or into a new state if s1 is NULL. */
static void *
datasized_combine(void *arg1, void *arg2, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	DataSizedState *s1 = (DataSizedState *) arg1;
	DataSizedState *s2 = (DataSizedState *) arg2;

	if (s1 == NULL)
		s1 = new_datasized_state(aggcxt, s2->nattrs, fcinfo);
	datasized_merge(s1, s2);
	return s1;
}

/*
 * Partial state, after lead bytes left for the caller: nattrs (4 bytes),
 * rows (8), then the collector's set.
 */
static bytea *
datasized_serialize(void *arg, Size lead)
{
	DataSizedState *state = (DataSizedState *) arg;
	int32		nattrs = state->nattrs;
	char		head[4];

	StaticAssertStmt(sizeof(nattrs) == sizeof(head), "nattrs is the 4-byte head");
	memcpy(head, &nattrs, sizeof(head));
	return hc_state_serialize(lead, head, state->rows, state->rows_seen);
}

static void *
datasized_deserialize(const bytea *b, Size lead, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	DataSizedState *state = MemoryContextAllocZero(aggcxt, sizeof(DataSizedState));
	char		head[4];
	int32		nattrs;

	state->rows_seen = hc_state_deserialize(b, lead, "multibloom_agg", head,
											&state->rows, aggcxt, fcinfo);
	memcpy(&nattrs, head, sizeof(nattrs));
	if (nattrs < 1 || nattrs > MULTIBLOOM_MAX_ATTRS || state->rows_seen->width != nattrs + 1)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized multibloom_agg state: %d attributes", nattrs)));
	state->nattrs = nattrs;
	return state;
}

static const PartialForm datasized_form = {
	datasized_combine, datasized_serialize, datasized_deserialize
};

/*
 * multibloom_agg_datasized_combine, multibloom_agg_datasized_serialize,
 * multibloom_agg_datasized_deserialize
 */
PARTIAL_STATE_FUNCTIONS(multibloom_agg_datasized, datasized_form);

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

/* No rows: an empty filter for nattrs values, NULL if that is not a width. */
static MultiBloom *
datasized_without_rows(int nattrs)
{
	double		caps[MULTIBLOOM_MAX_ATTRS];

	if (nattrs < 1 || nattrs > MULTIBLOOM_MAX_ATTRS)
		return NULL;
	for (int i = 0; i < nattrs; i++)
		caps[i] = 1;
	return datasized_filter(nattrs, caps, 1);
}

static MultiBloom *
datasized_result(DataSizedState *state)
{
	double		caps[MULTIBLOOM_MAX_ATTRS];
	double		row_capacity;
	MultiBloom *mb;

	row_capacity = part_capacities(state, caps);
	/* pass 2: every distinct row into parts sized for their own counts */
	mb = datasized_filter(state->nattrs, caps, row_capacity);
	hc_iterate(state->rows_seen, insert_row_record, mb);
	mb->rows = state->rows;
	return mb;
}

Datum
multibloom_agg_datasized_final(PG_FUNCTION_ARGS)
{
	DataSizedState *state = PG_ARGISNULL(0) ? NULL : (DataSizedState *) PG_GETARG_POINTER(0);

	if (state != NULL)
		PG_RETURN_POINTER(datasized_result(state));
	return filter_or_null(fcinfo, datasized_without_rows(agg_row_width(fcinfo, 0)));
}

/* ---------------------------------------------------------------------
 * The hashed aggregates: multibloom_agg_hashed(hashes bigint[]) and
 * multibloom_agg_fixed_hashed(capacity, fpp, hashes bigint[]) (also
 * named multibloom_agg_sized_hashed), the forms above over rows given as
 * their attributes' hashes (element i: bloom_hash(attribute i + 1,
 * i + 1)), with declared types a distributed planner can check on the
 * shards.  The row width is the array's length.  Their state is the SQL
 * type multibloom_agg_state (agg_state.h): the state of the form above,
 * expanded; its flat form is a format byte, a form byte ('S' data-sized,
 * 'F' fixed-shape), then that form's serialized state.
 * --------------------------------------------------------------------- */

#define MULTIBLOOM_AGG_STATE_FORMAT 1
#define STATE_LEAD				2	/* the format and form bytes */

typedef struct HashedState
{
	DataSizedState *datasized;	/* exactly one of the two is set */
	FilterAggState *fixed;
} HashedState;

static bytea *
hashed_state_flat(void *arg)
{
	HashedState *state = (HashedState *) arg;
	bytea	   *flat = state->fixed ? fixed_serialize(state->fixed, STATE_LEAD)
		: datasized_serialize(state->datasized, STATE_LEAD);

	VARDATA(flat)[0] = MULTIBLOOM_AGG_STATE_FORMAT;
	VARDATA(flat)[1] = state->fixed ? 'F' : 'S';
	return flat;
}

static void *
hashed_state_from_flat(const bytea *flat, MemoryContext aggcxt, FunctionCallInfo fcinfo)
{
	HashedState *state = MemoryContextAllocZero(aggcxt, sizeof(HashedState));
	char		form = VARSIZE(flat) >= VARHDRSZ + STATE_LEAD ? VARDATA(flat)[1] : '\0';
	MemoryContext old;

	if (VARSIZE(flat) < VARHDRSZ + STATE_LEAD ||
		VARDATA(flat)[0] != MULTIBLOOM_AGG_STATE_FORMAT || (form != 'F' && form != 'S'))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized multibloom_agg state"),
				 errdetail("unknown format")));
	if (form == 'S')
	{
		state->datasized = datasized_deserialize(flat, STATE_LEAD, aggcxt, fcinfo);
		return state;
	}
	old = MemoryContextSwitchTo(aggcxt);
	state->fixed = fixed_deserialize(flat, STATE_LEAD, aggcxt, fcinfo);
	MemoryContextSwitchTo(old);
	return state;
}

static void
hashed_state_release(void *arg)
{
	HashedState *state = (HashedState *) arg;

	if (state->datasized)
		hc_free(state->datasized->rows_seen);
}

static const AggStateType multibloom_agg_state_type = {
	"multibloom_agg_state",
	"invalid serialized multibloom_agg state",
	hashed_state_flat,
	hashed_state_from_flat,
	hashed_state_release
};

/* ERROR unless the state is of the form the function expects. */
static HashedState *
check_form(HashedState *state, bool fixed)
{
	if (state != NULL && (state->fixed != NULL) != fixed)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a %s multibloom_agg_state given to a %s aggregate",
						fixed ? "data-sized" : "fixed-shape",
						fixed ? "fixed-shape" : "data-sized")));
	return state;
}

static AggStateExpanded *
hashed_state_wrap(DataSizedState *datasized, FilterAggState *fixed, MemoryContext aggcxt)
{
	HashedState *state = MemoryContextAllocZero(aggcxt, sizeof(HashedState));

	state->datasized = datasized;
	state->fixed = fixed;
	return agg_state_wrap(&multibloom_agg_state_type, state, aggcxt);
}

/*
 * The state of a hashed transition call.  At the first row it is made: the
 * fixed form's from its arguments before the hashes (capacity, fpp), the
 * data-sized form's as wide as the row.  At a later row the fixed form's
 * arguments are checked against its filter.
 */
static AggStateExpanded *
hashed_state_for_row(FunctionCallInfo fcinfo, bool fixed, int argno, MemoryContext aggcxt)
{
	AggStateExpanded *e = agg_state_for_update(fcinfo, &multibloom_agg_state_type, aggcxt);
	int			nattrs;

	if (e != NULL)
	{
		if (fixed)
			fixed_state_for_row(fcinfo, check_form(e->state, true)->fixed, 0, aggcxt);
		return e;
	}
	nattrs = multibloom_hashed_row_width(fcinfo, argno);
	if (fixed)
		return hashed_state_wrap(NULL, fixed_state_for_row(fcinfo, NULL, nattrs, aggcxt), aggcxt);
	multibloom_check_nattrs(nattrs);
	return hashed_state_wrap(new_datasized_state(aggcxt, nattrs, fcinfo), NULL, aggcxt);
}

/* The transition of either hashed form: the hashes at argno are one row. */
static Datum
hashed_trans(FunctionCallInfo fcinfo, bool fixed, int argno)
{
	const char *fname = fixed ? "multibloom_agg_fixed" : "multibloom_agg";
	MemoryContext aggcxt = agg_memory_context(fcinfo, fname);
	AggStateExpanded *e = hashed_state_for_row(fcinfo, fixed, argno, aggcxt);
	HashedState *state = check_form(e->state, fixed);
	MultiBloomRow row;

	multibloom_read_hashed_row(fcinfo, argno,
							   fixed ? state->fixed->mb->nattrs : state->datasized->nattrs,
							   fname, &row);
	if (fixed)
		mbf_add_row(state->fixed->mb, row.hashes, row.isnull);
	else
		datasized_add_row(state->datasized, &row);
	PG_RETURN_DATUM(agg_state_datum(e));
}

/* multibloom_agg_hashed(hashes bigint[]) transition. */
Datum
multibloom_agg_hashed_trans(PG_FUNCTION_ARGS)
{
	return hashed_trans(fcinfo, false, 1);
}

/* multibloom_agg_fixed_hashed(capacity, fpp, hashes bigint[]) transition. */
Datum
multibloom_agg_fixed_hashed_trans(PG_FUNCTION_ARGS)
{
	return hashed_trans(fcinfo, true, 3);
}

/* Combine function of both forms: b is read into a private copy. */
Datum
multibloom_agg_state_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_agg_state_combine");
	HashedState *b;
	AggStateExpanded *e;
	HashedState *a;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	b = agg_state_read(fcinfo, 1, &multibloom_agg_state_type, aggcxt);
	e = agg_state_for_update(fcinfo, &multibloom_agg_state_type, aggcxt);
	if (e == NULL)
		PG_RETURN_DATUM(agg_state_datum(agg_state_wrap(&multibloom_agg_state_type, b, aggcxt)));
	a = check_form(e->state, b->fixed != NULL);
	if (a->fixed)
	{
		state_union(a->fixed, b->fixed->mb, aggcxt);
		/* b's filter, a private copy now united into a's, is not needed again */
		pfree(b->fixed->mb);
	}
	else
		datasized_merge(a->datasized, b->datasized);
	PG_RETURN_DATUM(agg_state_datum(e));
}

/*
 * The number of attributes of this aggregate's own call over no rows: the
 * length of its array argument argno written as ARRAY[...] or a constant;
 * else 0.
 */
static int
hashed_call_width(FunctionCallInfo fcinfo, int argno)
{
	Node	   *arg;

	if (!agg_call_is_own(fcinfo))
		return 0;
	arg = agg_arg_expr(fcinfo, argno);
	if (arg != NULL && IsA(arg, ArrayExpr) && !((ArrayExpr *) arg)->multidims)
		return list_length(((ArrayExpr *) arg)->elements);
	if (arg != NULL && IsA(arg, Const) && !((Const *) arg)->constisnull)
	{
		ArrayType  *arr = DatumGetArrayTypeP(((Const *) arg)->constvalue);

		if (ARR_NDIM(arr) == 1)
			return ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	}
	return 0;
}

Datum
multibloom_agg_hashed_final(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_agg");
	HashedState *state = agg_state_arg(fcinfo, 0, &multibloom_agg_state_type, aggcxt);

	if (check_form(state, false) != NULL)
		PG_RETURN_POINTER(datasized_result(state->datasized));
	return filter_or_null(fcinfo, datasized_without_rows(hashed_call_width(fcinfo, 0)));
}

/*
 * multibloom_agg_hashed_empty(nattrs): what multibloom_agg returns over no
 * rows of nattrs values, for the planner rewrite's COALESCE where the final
 * function cannot see the row width (a distributed plan's coordinator).
 */
Datum
multibloom_agg_hashed_empty_datasized(PG_FUNCTION_ARGS)
{
	int32		nattrs = PG_GETARG_INT32(0);
	MultiBloom *mb = datasized_without_rows(nattrs);

	if (mb == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("multibloom_agg_hashed_empty: nattrs must be between 1 and %d, not %d",
						MULTIBLOOM_MAX_ATTRS, nattrs)));
	PG_RETURN_POINTER(mb);
}

Datum
multibloom_agg_fixed_hashed_final(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "multibloom_agg_fixed");
	HashedState *state = agg_state_arg(fcinfo, 0, &multibloom_agg_state_type, aggcxt);

	if (check_form(state, true) != NULL)
		PG_RETURN_POINTER(filter_copy(state->fixed->mb));
	return filter_or_null(fcinfo, fixed_without_rows(fcinfo, hashed_call_width(fcinfo, 2)));
}

/* multibloom_agg_state_result(state): as bloom_agg_state_result. */
Datum
multibloom_agg_state_result(PG_FUNCTION_ARGS)
{
	bool		read;
	HashedState *state = agg_state_arg_plain(fcinfo, 0, &multibloom_agg_state_type, &read);
	MultiBloom *mb;

	if (state->fixed != NULL)
		mb = filter_copy(state->fixed->mb);
	else
		mb = datasized_result(state->datasized);
	agg_state_plain_done(&multibloom_agg_state_type, state, read);
	PG_RETURN_POINTER(mb);
}

AGG_STATE_IO_FUNCTIONS(multibloom_agg_state, multibloom_agg_state_type);
