/*
 * semijoin.h
 *	  The automatic semijoin prefilter: a planner hook that adds
 *	  bloom_contains_typed((SELECT bloom_agg(...) FROM <build side>),
 *	  <remote key>, <its declared type, collation and encoding>) to a join
 *	  with a postgres_fdw foreign table when the planner's estimates say that
 *	  it pays, and the typed probe itself (SQL-callable, in semijoin.c).
 *	  The rule: doc/semijoin.md.
 */
#ifndef BLOOMFILTER_SEMIJOIN_H
#define BLOOMFILTER_SEMIJOIN_H

/* Defines the bloomfilter.semijoin_* settings and installs the hook. */
extern void bloom_semijoin_init(void);

/* Catalog helpers that differ between the majors, shared by the planner hooks. */
extern Oid	bf_extension_schema(Oid ext);
extern bool bf_may_execute(Oid fn);
extern Oid	bf_function_in_schema(const char *schema_name, const char *name, int nargs,
								  const Oid *argtypes);

#endif							/* BLOOMFILTER_SEMIJOIN_H */
