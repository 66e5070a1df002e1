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

#endif							/* BLOOMFILTER_SEMIJOIN_H */
