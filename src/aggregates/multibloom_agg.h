/*
 * multibloom_agg.h
 *	  What multibloom_agg.c offers other files: the internal-state entry
 *	  points of multibloom_union_agg in the 1.0 install script, which
 *	  legacy_entry_points.c binds under their old C names.  Include
 *	  postgres.h first.
 */
#ifndef MULTIBLOOM_AGG_H
#define MULTIBLOOM_AGG_H

#include "fmgr.h"

extern Datum multibloom_union_internal_trans(FunctionCallInfo fcinfo);
extern Datum multibloom_internal_final(FunctionCallInfo fcinfo);

#endif							/* MULTIBLOOM_AGG_H */
