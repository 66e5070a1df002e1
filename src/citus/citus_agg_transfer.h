/*
 * citus_agg_transfer.h
 *	  The binary route of the hashed aggregates' partial states through
 *	  Citus (doc/aggregates.md, "On Citus: the rewrite", what travels):
 *	  the shard aggregates named hll_add_agg and the result functions, and
 *	  the call the rewrite (citus_agg_rewrite.c) puts in place of a twin.
 */
#ifndef BLOOMFILTER_CITUS_AGG_TRANSFER_H
#define BLOOMFILTER_CITUS_AGG_TRANSFER_H

#include "nodes/primnodes.h"

/* What the binary route needs of one hashed twin. */
typedef struct TransferObjects
{
	Oid			shard_agg;		/* bloomfilter_citus.hll_add_agg(twin's args) */
	Oid			state_type;		/* its result: the twin's state type */
	Oid			result;			/* bloom_agg_state_result or multibloom_... */
} TransferObjects;

/* Defines bloomfilter.citus_binary_states. */
extern void citus_agg_transfer_init(void);

/* The setting: true if the rewrite may take the binary route. */
extern bool citus_binary_states_enabled(void);

/*
 * The objects of the twin of those argument types (multi: a multibloom
 * twin), or false if the extension has not got them all (before 1.2, or
 * dropped).
 */
extern bool transfer_objects_lookup(int nargs, const Oid *argtypes, bool multi,
									TransferObjects *out);

/*
 * The call that replaces twin (an Aggref of the twin, its arguments final)
 * on the binary route: result(shard_agg(args) [, datasized]) of twin's
 * result type; NULL if the user may not execute the route's functions.
 */
extern Node *transfer_call(const TransferObjects *objects, const Aggref *twin,
						   bool multi, bool datasized);

#endif							/* BLOOMFILTER_CITUS_AGG_TRANSFER_H */
