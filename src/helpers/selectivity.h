/*
 * selectivity.h
 *	  The planner's estimates of membership probes (selectivity.c), for
 *	  the probes that stand for bloom_contains: the typed probe
 *	  (typed_probe.c) answers its selectivity request with bloom_contains'.
 */
#ifndef BLOOMFILTER_SELECTIVITY_H
#define BLOOMFILTER_SELECTIVITY_H

#include "fmgr.h"

/* The planner support function of bloom_contains and bloom_contained_by. */
extern Datum bloom_contains_support(PG_FUNCTION_ARGS);

#endif							/* BLOOMFILTER_SELECTIVITY_H */
