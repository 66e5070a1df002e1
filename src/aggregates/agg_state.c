/*
 * agg_state.c
 *	  Transition states that are SQL types, kept in memory as expanded
 *	  objects: see agg_state.h.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "aggregates/agg_state.h"
#include "core/base64.h"
#include "core/text7.h"
#include "types/bloomfilter.h"

static Size
agg_state_get_flat_size(ExpandedObjectHeader *eohptr)
{
	AggStateExpanded *e = (AggStateExpanded *) eohptr;

	if (e->flat == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(e->hdr.eoh_context);

		e->flat = e->type->serialize(e->state);
		MemoryContextSwitchTo(old);
	}
	return VARSIZE(e->flat);
}

static void
agg_state_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	AggStateExpanded *e = (AggStateExpanded *) eohptr;

	Assert(e->flat != NULL && allocated_size == VARSIZE(e->flat));
	memcpy(result, e->flat, allocated_size);
	pfree(e->flat);
	e->flat = NULL;
}

static const ExpandedObjectMethods agg_state_methods = {
	agg_state_get_flat_size,
	agg_state_flatten_into
};

AggStateExpanded *
agg_state_wrap(const AggStateType *type, void *state, MemoryContext aggcxt)
{
	MemoryContext cxt = AllocSetContextCreate(aggcxt, "bloomfilter aggregate state",
												  ALLOCSET_SMALL_SIZES);
	AggStateExpanded *e = MemoryContextAllocZero(cxt, sizeof(AggStateExpanded));

	EOH_init_header(&e->hdr, &agg_state_methods, cxt);
	e->type = type;
	e->state = state;
	return e;
}

/* Our expanded state of that type behind a datum, or NULL if it is not one. */
static AggStateExpanded *
expanded_of(Datum d, const AggStateType *type, bool writable)
{
	Pointer		p = DatumGetPointer(d);
	AggStateExpanded *e;

	if (writable ? !VARATT_IS_EXTERNAL_EXPANDED_RW(p) : !VARATT_IS_EXTERNAL_EXPANDED(p))
		return NULL;
	if (DatumGetEOHP(d)->eoh_methods != &agg_state_methods)
		return NULL;
	e = (AggStateExpanded *) DatumGetEOHP(d);
	return e->type == type ? e : NULL;
}

void *
agg_state_read(FunctionCallInfo fcinfo, int argno, const AggStateType *type,
			   MemoryContext aggcxt)
{
	/* detoasting flattens an expanded state */
	return type->deserialize((bytea *) PG_DETOAST_DATUM(PG_GETARG_DATUM(argno)),
							 aggcxt, fcinfo);
}

void *
agg_state_arg(FunctionCallInfo fcinfo, int argno, const AggStateType *type,
			  MemoryContext aggcxt)
{
	AggStateExpanded *e;

	if (PG_ARGISNULL(argno))
		return NULL;
	e = expanded_of(PG_GETARG_DATUM(argno), type, false);
	if (e == NULL)
		return agg_state_read(fcinfo, argno, type, aggcxt);
	return e->state;
}

void *
agg_state_arg_plain(FunctionCallInfo fcinfo, int argno, const AggStateType *type,
					bool *read)
{
	AggStateExpanded *e = expanded_of(PG_GETARG_DATUM(argno), type, false);

	*read = e == NULL;
	if (e != NULL)
		return e->state;
	/* no aggregate to register a cleanup with: the caller releases it */
	return type->deserialize((bytea *) PG_DETOAST_DATUM(PG_GETARG_DATUM(argno)),
							 CurrentMemoryContext, NULL);
}

void
agg_state_plain_done(const AggStateType *type, void *state, bool read)
{
	if (read && type->release)
		type->release(state);
}

AggStateExpanded *
agg_state_for_update(FunctionCallInfo fcinfo, const AggStateType *type,
					 MemoryContext aggcxt)
{
	AggStateExpanded *e;

	if (PG_ARGISNULL(0))
		return NULL;
	e = expanded_of(PG_GETARG_DATUM(0), type, true);
	if (e == NULL)
		return agg_state_wrap(type, agg_state_read(fcinfo, 0, type, aggcxt), aggcxt);
	/* a flat form computed before is out of date from now on */
	if (e->flat)
		pfree(e->flat);
	e->flat = NULL;
	return e;
}

void
agg_state_corrupted(const AggStateType *type, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("%s", type->damaged),
			 errdetail("%s", detail)));
}

/* The flat form of len bytes as a bytea, checked as a partial state is. */
static bytea *
checked_flat(const uint8 *bytes, size_t len, const AggStateType *type)
{
	MemoryContext cxt;
	MemoryContext old;
	bytea	   *b;
	void	   *state;

	if (len > MaxAllocSize - VARHDRSZ)
		agg_state_corrupted(type, "too long");
	b = palloc(VARHDRSZ + len);
	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), bytes, len);
	/* read to be checked only, then dropped with its memory */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "agg state check",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	state = type->deserialize(b, cxt, NULL);
	if (type->release)
		type->release(state);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return b;
}

/*
 * The text form: TEXT7_MARK and the seven-bit text of the flat form
 * (core/text7.h), the denser text Citus moves between nodes, unless the
 * base64 of the flat form (the text form of 1.2's first states, still
 * read) is shorter, which random bits never make it.
 */
#define TEXT7_MARK '~'

bytea *
agg_state_text_in(const char *str, const AggStateType *type)
{
	size_t		len = strlen(str);
	uint64		nbytes;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	bytea	   *flat;
	uint8	   *bytes;

	if (str[0] != TEXT7_MARK)
	{
		bytes = text_form_decode(str, &len, type->typname, NULL);
		return checked_flat(bytes, len, type);
	}
	if (!bf_text7_decoded_len(str + 1, len - 1, &nbytes, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: %s", type->typname, errbuf)));
	/* checked before allocating: a short text of zero runs is long in bytes */
	if (nbytes > MaxAllocSize - VARHDRSZ)
		agg_state_corrupted(type, "too long");
	bytes = palloc(nbytes + 1);
	bf_text7_decode(str + 1, len - 1, bytes);
	flat = checked_flat(bytes, nbytes, type);
	pfree(bytes);
	return flat;
}

char *
agg_state_text_out(const bytea *flat, const AggStateType *type)
{
	const uint8 *bytes = (const uint8 *) VARDATA_ANY(flat);
	size_t		len = VARSIZE_ANY_EXHDR(flat);
	uint64		dense = bf_text7_encoded_len(bytes, len);
	char	   *out;

	if (dense + 2 > MaxAllocSize || dense >= bf_base64_encoded_len(len))
	{
		if (!text_form_fits(len))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s of %zu bytes is too large for its text form", type->typname, len)));
		return text_form_encode(bytes, len);
	}
	out = palloc(dense + 2);
	out[0] = TEXT7_MARK;
	bf_text7_encode(bytes, len, out + 1);
	out[dense + 1] = '\0';
	return out;
}

bytea *
agg_state_recv(StringInfo buf, const AggStateType *type)
{
	bytea	   *b = checked_flat((const uint8 *) buf->data + buf->cursor,
								 buf->len - buf->cursor, type);

	buf->cursor = buf->len;
	return b;
}
