/*
 * multibloom_agg.h
 *	  What multibloom_agg.c offers other files: the entry points that
 *	  legacy_entry_points.c binds under their 1.0 C names, and the
 *	  internal-state entry points of multibloom_union_agg in the 1.0 install
 *	  script.  Include postgres.h first.
 */
#ifndef MULTIBLOOM_AGG_H
#define MULTIBLOOM_AGG_H

#include "fmgr.h"

extern PGDLLEXPORT Datum multibloom_agg_fixed_trans(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum multibloom_agg_fixed_final(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum multibloom_agg_serialize(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum multibloom_agg_deserialize(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum multibloom_agg_datasized_trans(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum multibloom_agg_datasized_combine(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum multibloom_agg_datasized_serialize(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum multibloom_agg_datasized_deserialize(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum multibloom_agg_datasized_final(PG_FUNCTION_ARGS);

extern Datum multibloom_union_internal_trans(FunctionCallInfo fcinfo);
extern Datum multibloom_internal_final(FunctionCallInfo fcinfo);

#endif							/* MULTIBLOOM_AGG_H */
