/*
 * bloom_agg_internal.h
 *	  What the files of bloom_agg and of the bloom set-operation aggregates
 *	  share, private to src/aggregates/: bloom_agg's transition state (in
 *	  memory, in partial states, and as the SQL type bloom_agg_state), and
 *	  the functions by which one file calls down into another.  Calls go
 *	  one way only:
 *
 *	    legacy_entry_points.c  -> bloom_setop_agg.c (and multibloom_agg.c)
 *	    bloom_agg_hashed.c     -> bloom_agg_partial.c, bloom_agg_fixed.c,
 *	                              bloom_agg_datasized.c
 *	    bloom_agg_partial.c    -> bloom_agg_fixed.c
 *	    bloom_agg_fixed.c      -> bloom_agg_datasized.c
 *	    bloom_setop_agg.c      -> bloom_agg_datasized.c
 *
 *	  Include postgres.h first.
 */
#ifndef BLOOM_AGG_INTERNAL_H
#define BLOOM_AGG_INTERNAL_H

#include "fmgr.h"

#include "aggregates/agg_state.h"
#include "aggregates/hash_collector.h"
#include "types/bloomfilter.h"

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
 * (sized to the data, or a fixed shape of the matrix layout) is set.
 *
 * The matrix layout places a value by the fill of its candidate rows, so
 * its bits depend on the values inserted before it, and the union of
 * filters built apart holds more bits than one filter of the same values
 * (a higher rate, an estimate too high).  Its fixed shape therefore
 * collects the distinct value hashes like the data-sized form (deferred)
 * and inserts them all into one filter in the final function, in
 * ascending order: the same filter in every plan and for every row order.
 */
typedef struct BloomAggState
{
	BloomFilter *filter;		/* fixed shape: the filter being built */
	void	   *filter_alloc;	/* fixed shape built here: the allocation
								 * holding filter, which may start up to 63
								 * bytes into it (a cache line boundary) */
	HashCollector *hashes;		/* sized to the data, or deferred: distinct
								 * raw hashes */
	uint64		rows;			/* sized to the data, or deferred: non-null
								 * values added */
	bool		deferred;		/* fixed shape of the matrix layout: filter
								 * is NULL, the values are in hashes */
	BfInserter	inserter;		/* fixed shape: values not yet in filter
								 * (flushed before it is read or combined) */
	FixedArgs	args;			/* fixed shape: the arguments of its shape */
	bool		check_rows;		/* fixed shape: the arguments are not
								 * constants, so each row is compared */
} BloomAggState;

/* True for both fixed-shape states: a filter, or deferred hashes. */
static inline bool
state_is_fixed(const BloomAggState *state)
{
	return state->filter != NULL || state->deferred;
}

/* bloom_agg_datasized.c */

/* Entry points legacy_entry_points.c also binds under their 1.0 names. */
extern PGDLLEXPORT Datum bloom_agg_datasized_trans(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum bloom_agg_datasized_final(PG_FUNCTION_ARGS);

/* A new data-sized state in aggcxt: an empty collector of raw hashes. */
extern BloomAggState *bloom_agg_datasized_state_new(FunctionCallInfo fcinfo, MemoryContext aggcxt);

/* hc_iterate callback: adds one collected hash to the BfBuilder arg. */
extern void bloom_agg_build_from_record(const uint64 *rec, void *arg);

/* The data-sized filter of a set of distinct hashes (NULL: none). */
extern BloomFilter *bloom_agg_collected_filter(HashCollector *hashes, uint64 seed, uint8 scheme);

/* The result of a data-sized state (NULL: no rows, the empty list). */
extern BloomFilter *bloom_agg_datasized_result(BloomAggState *state);

/* bloom_agg_fixed.c */

/* ERROR unless two parts of a group were shaped by the same arguments. */
extern void bloom_agg_check_same_args(const FixedArgs *first, const FixedArgs *other,
							const char *other_is);

/* ERROR unless a later row gives the group's first row's arguments. */
extern void bloom_agg_check_row_args(FunctionCallInfo fcinfo, const FixedArgs *first);

/* The fixed-shape state of a group's first row. */
extern BloomAggState *bloom_agg_fixed_state_new(FunctionCallInfo fcinfo, bool own_call);

/* Adds one value hash to a deferred (matrix) state. */
extern void bloom_agg_deferred_add(BloomAggState *state, uint64 value_hash);

/* The result of a fixed-shape state, or over no rows; maybe NULL. */
extern BloomFilter *bloom_agg_fixed_result(FunctionCallInfo fcinfo, BloomAggState *state,
								 bool own_call);

/* bloom_agg_partial.c */

/* Combines partial state b into a (b's collected hashes move into a's). */
extern void bloom_agg_combine_into(BloomAggState *a, BloomAggState *b);

/* ERROR data_corrupted: a damaged serialized bloom_agg state. */
extern void bloom_agg_bad_serial_state(const char *detail);

/* The serialized state after lead bytes left for the caller. */
extern bytea *bloom_agg_serialize_state(BloomAggState *state, Size lead);

/* A state bloom_agg_serialize_state wrote (after lead bytes), read and checked. */
extern BloomAggState *bloom_agg_deserialize_state(const bytea *b, Size lead, MemoryContext aggcxt,
										FunctionCallInfo fcinfo);

/*
 * bloom_setop_agg.c: the internal-state aggregates of the 1.0 and 1.1
 * scripts, bound through legacy_entry_points.c.
 */
extern Datum bloom_setop_internal_trans(FunctionCallInfo fcinfo, bool intersect);
extern Datum bloom_setop_internal_combine(FunctionCallInfo fcinfo, bool intersect);
extern Datum bloom_setop_internal_final(FunctionCallInfo fcinfo);
extern Datum bloom_setop_internal_serialize(FunctionCallInfo fcinfo);
extern Datum bloom_setop_internal_deserialize(FunctionCallInfo fcinfo);

#endif							/* BLOOM_AGG_INTERNAL_H */
