/*
 * bloom.h
 *	  What other wings call of the SQL type "bloom" (bloom.c) directly,
 *	  not through the function manager's lookup: the plain probe, which the
 *	  typed and composite probes (semijoin/typed_probe.c,
 *	  semijoin/tuple_probe.c) call once their checks pass.
 */
#ifndef BLOOMFILTER_BLOOM_H
#define BLOOMFILTER_BLOOM_H

#include "fmgr.h"

/* bloom_contains(filter, value): true if value may be in the filter. */
extern Datum bloom_contains(PG_FUNCTION_ARGS);

#endif							/* BLOOMFILTER_BLOOM_H */
