/*
 * bloom_setop_agg.c
 *	  bloom_union_agg and bloom_intersect_agg, with parallel support: the
 *	  set operation state, its serialized form, and the SQL type
 *	  bloom_setop_state that carries it since 1.2 (agg_state.h), so a
 *	  distributed planner (Citus) runs the aggregates per shard.  The
 *	  internal-state entry points of the 1.0 and 1.1 scripts are at the
 *	  end, called from legacy_entry_points.c.  Calls down only into
 *	  bloom_agg_datasized.c (the filter of collected hashes).
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "aggregates/bloom_agg_internal.h"

PG_FUNCTION_INFO_V1(bloom_union_agg_step);
PG_FUNCTION_INFO_V1(bloom_intersect_agg_step);
PG_FUNCTION_INFO_V1(bloom_union_state_combine);
PG_FUNCTION_INFO_V1(bloom_intersect_state_combine);
PG_FUNCTION_INFO_V1(bloom_setop_state_final);
PG_FUNCTION_INFO_V1(bloom_setop_state_send);

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
		hc_iterate(state->listed, bloom_agg_build_from_record, &builder);
		bf_builder_finish(&builder);
		f->inserted = state->bits->inserted;
	}
	else
	{
		f = bloom_agg_collected_filter(state->listed, state->list->seed,
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

/*
 * The entry points of the union and the intersection aggregate for one
 * step: each calls impl with intersect false or true.
 */
#define SETOP_ENTRY_POINTS(union_name, intersect_name, impl) \
	Datum \
	union_name(PG_FUNCTION_ARGS) \
	{ \
		return impl(fcinfo, false); \
	} \
	Datum \
	intersect_name(PG_FUNCTION_ARGS) \
	{ \
		return impl(fcinfo, true); \
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

SETOP_ENTRY_POINTS(bloom_union_agg_step, bloom_intersect_agg_step, setop_state_step)

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

SETOP_ENTRY_POINTS(bloom_union_state_combine, bloom_intersect_state_combine,
				   setop_state_combine)

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

/* bloom_setop_state's text input and output and its binary input. */
AGG_STATE_IO_FUNCTIONS(bloom_setop_state, setop_state_type);

/* Binary send of every state type: the flat form as it is. */
Datum
bloom_setop_state_send(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(PG_GETARG_BYTEA_P(0));
}

/* ---------------------------------------------------------------------
 * The state as internal: the aggregates of the 1.0 and 1.1 install
 * scripts, whose C names legacy_entry_points.c keeps.  Since 1.2 the state
 * is the SQL type bloom_setop_state (above); both read and write the same
 * serialized form.
 * --------------------------------------------------------------------- */

Datum
bloom_setop_internal_trans(FunctionCallInfo fcinfo, bool intersect)
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
bloom_setop_internal_combine(FunctionCallInfo fcinfo, bool intersect)
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
bloom_setop_internal_final(FunctionCallInfo fcinfo)
{
	SetOpState *state = PG_ARGISNULL(0) ? NULL : (SetOpState *) PG_GETARG_POINTER(0);
	BloomFilter *f;

	agg_memory_context(fcinfo, "bloom set operation final");
	f = setop_result(state);
	if (f == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(f);
}

Datum
bloom_setop_internal_serialize(FunctionCallInfo fcinfo)
{
	agg_memory_context(fcinfo, "bloom set operation serialize");
	PG_RETURN_BYTEA_P(setop_serialize((SetOpState *) PG_GETARG_POINTER(0)));
}

Datum
bloom_setop_internal_deserialize(FunctionCallInfo fcinfo)
{
	MemoryContext aggcxt = agg_memory_context(fcinfo, "bloom set operation deserialize");

	PG_RETURN_POINTER(setop_deserialize(PG_GETARG_BYTEA_P(0), aggcxt, fcinfo));
}
