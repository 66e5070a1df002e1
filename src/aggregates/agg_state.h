/*
 * agg_state.h
 *	  Aggregate transition states that are SQL types (bloom_setop_state,
 *	  bloom_agg_state, multibloom_agg_state) rather than internal, so a
 *	  distributed planner (Citus) can run the aggregate per shard and
 *	  combine the partial states where the query began; PostgreSQL's
 *	  parallel aggregation moves the same partial states.
 *
 *	  In memory a state is an expanded object: the aggregate's own C state
 *	  behind an ExpandedObjectHeader whose context is a child of the
 *	  aggregate context, so the executor keeps the read-write pointer a
 *	  transition function returns without copying it, and the state is
 *	  changed in place, as an internal state is.  The C state's own memory
 *	  (filters, collected hashes) stays in the aggregate context.  Its flat
 *	  form, what tables, tuple queues and other servers see, is the
 *	  serialized state: one format, checked in full wherever it comes from
 *	  (text input, binary receive, a partial state to combine).  The text
 *	  form, which Citus moves between nodes (worker_partial_agg), is '~'
 *	  and the seven-bit text of the flat form (core/text7.h: about 1.16
 *	  characters a byte), or its base64 where that is shorter; input reads
 *	  both.
 *
 *	  Each state type describes itself with an AggStateType; the functions
 *	  below do the rest the same way for all.  Include postgres.h first.
 */
#ifndef AGG_STATE_H
#define AGG_STATE_H

#include "pg_compat.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/expandeddatum.h"

typedef struct AggStateType
{
	const char *typname;		/* the SQL type, for messages */
	const char *damaged;		/* the message of an ERROR for a damaged state */
	/* the flat form of a state, a new bytea in the current memory context */
	bytea	   *(*serialize) (void *state);

	/*
	 * A state read from its flat form (any alignment) into aggcxt, checked:
	 * ERROR data_corrupted if anything is wrong.  fcinfo: the aggregate
	 * support function calling, or NULL when the caller calls release.
	 */
	void	   *(*deserialize) (const bytea *flat, MemoryContext aggcxt,
								FunctionCallInfo fcinfo);
	/*
	 * frees what deserialize left outside memory contexts (temporary
	 * files), or NULL if nothing
	 */
	void		(*release) (void *state);
} AggStateType;

typedef struct AggStateExpanded
{
	ExpandedObjectHeader hdr;
	const AggStateType *type;
	void	   *state;
	bytea	   *flat;			/* the flat form, from get_flat_size to
								 * flatten_into; NULL when not computed */
} AggStateExpanded;

/* A new expanded state around state (which lives in aggcxt). */
extern AggStateExpanded *agg_state_wrap(const AggStateType *type, void *state,
										MemoryContext aggcxt);

/*
 * A private copy of the state in argument argno (not NULL), read from its
 * flat form into aggcxt and checked: the caller may change it.
 */
extern void *agg_state_read(FunctionCallInfo fcinfo, int argno,
							const AggStateType *type, MemoryContext aggcxt);

/*
 * The state in argument argno, to read only, or NULL if the argument is
 * NULL: in memory (ours, expanded), or read from its flat form (a tuple,
 * another process or another server) into aggcxt.
 */
extern void *agg_state_arg(FunctionCallInfo fcinfo, int argno,
						   const AggStateType *type, MemoryContext aggcxt);

/*
 * The state in argument argno (not NULL) for a function called outside an
 * aggregate: ours in memory, or read from its flat form into the current
 * memory context (*read true).  The caller, done with it, calls
 * agg_state_plain_done, which releases what reading it made.
 */
extern void *agg_state_arg_plain(FunctionCallInfo fcinfo, int argno,
								 const AggStateType *type, bool *read);
extern void agg_state_plain_done(const AggStateType *type, void *state, bool read);

/*
 * The transition state in argument 0 to change in place: our read-write
 * expanded object (the executor's transition value), or a new one read
 * from a flat argument; NULL when argument 0 is NULL (the caller makes
 * one).  The caller returns agg_state_datum of it.
 */
extern AggStateExpanded *agg_state_for_update(FunctionCallInfo fcinfo,
											  const AggStateType *type,
											  MemoryContext aggcxt);

static inline Datum
agg_state_datum(AggStateExpanded *e)
{
	return EOHPGetRWDatum(&e->hdr);
}

/* ERROR data_corrupted: a damaged flat form of type (detail says why). */
pg_noreturn extern void agg_state_corrupted(const AggStateType *type, const char *detail);

/* Text I/O and binary receive of a state type: input is checked in full. */
extern bytea *agg_state_text_in(const char *str, const AggStateType *type);
extern char *agg_state_text_out(const bytea *flat, const AggStateType *type);
extern bytea *agg_state_recv(StringInfo buf, const AggStateType *type);

/*
 * The I/O entry points of a state type, all alike: prefix_in, prefix_out
 * and prefix_recv for the type whose AggStateType is type.  (Binary send
 * is the flat form as it is, one function for every state type.)
 */
#define AGG_STATE_IO_FUNCTIONS(prefix, type) \
	PG_FUNCTION_INFO_V1(prefix##_in); \
	PG_FUNCTION_INFO_V1(prefix##_out); \
	PG_FUNCTION_INFO_V1(prefix##_recv); \
	Datum \
	prefix##_in(PG_FUNCTION_ARGS) \
	{ \
		PG_RETURN_BYTEA_P(agg_state_text_in(PG_GETARG_CSTRING(0), &(type))); \
	} \
	Datum \
	prefix##_out(PG_FUNCTION_ARGS) \
	{ \
		PG_RETURN_CSTRING(agg_state_text_out(PG_GETARG_BYTEA_PP(0), &(type))); \
	} \
	Datum \
	prefix##_recv(PG_FUNCTION_ARGS) \
	{ \
		PG_RETURN_BYTEA_P(agg_state_recv((StringInfo) PG_GETARG_POINTER(0), &(type))); \
	} \
	extern int	no_such_variable	/* takes the semicolon, as in fmgr.h */

#endif							/* AGG_STATE_H */
