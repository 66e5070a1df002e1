/*
 * semijoin.h
 *	  The automatic semijoin prefilter: a planner hook that adds
 *	  bloom_contains_typed((SELECT bloom_agg(...) FROM <build side>),
 *	  <remote key>, <its declared type, collation and encoding>) to a join
 *	  with a postgres_fdw foreign table when the planner's estimates say that
 *	  it pays.  The rule: doc/semijoin.md; the files: semijoin_internal.h.
 */
#ifndef BLOOMFILTER_SEMIJOIN_H
#define BLOOMFILTER_SEMIJOIN_H

/* Defines the bloomfilter.semijoin_* settings and installs the hook. */
extern void bloom_semijoin_init(void);

/*
 * The layout of the filters the prefilter builds, bloom_agg(key, capacity,
 * fpp, SEMIJOIN_FILTER_LAYOUT): blocked, the cheapest to build (one cache
 * line per value) for a few percent more bytes at the rule's rates.
 */
#define SEMIJOIN_FILTER_LAYOUT	"blocked"

/*
 * The bytes of that filter for capacity values at rate fpp (semijoin_cost.c):
 * semijoin_filter_bytes_estimate is arithmetic, a lower bound within 1% for
 * filters of 10^5 values or more (smaller ones round up to whole blocks); semijoin_filter_bytes is the filter's own sizing
 * (up to about a millisecond), -1 when no filter of 1 GB or less can do.
 */
extern double semijoin_filter_bytes_estimate(double capacity, double fpp);
extern double semijoin_filter_bytes(double capacity, double fpp);

#endif							/* BLOOMFILTER_SEMIJOIN_H */
