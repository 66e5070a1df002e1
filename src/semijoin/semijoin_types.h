/*
 * semijoin_types.h
 *	  Which value each side of a semijoin prefilter hashes, and the proof
 *	  that the two are the same (semijoin_types.c): the gates the semijoin
 *	  rewrite (semijoin_match.c, semijoin_rewrite.c) and the Citus
 *	  repartition prefilter (citus_repartition.c) share, and the forms in
 *	  which the rewrite writes a probe and a build so that the proof holds.
 */
#ifndef BLOOMFILTER_SEMIJOIN_TYPES_H
#define BLOOMFILTER_SEMIJOIN_TYPES_H

#include "nodes/parsenodes.h"

/*
 * Why a relation cannot hold a key whose values the rewrite hashes, or
 * NULL: only a table (local or foreign, or a partitioned one) does; a
 * function, VALUES, a sub-select, a CTE or a join is declined.
 */
extern const char *semijoin_relation_problem(RangeTblEntry *rte);

/*
 * Why a filter of values of type build_type, probed with values of type
 * probe_type, cannot stand for equality opno, or NULL: both types' default
 * hash opclasses are of one family whose equality is opno, and the
 * values cross to another server unchanged.
 */
extern const char *semijoin_hash_problem(Oid opno, Oid build_type, Oid probe_type);

/*
 * Why the probe side's expression key cannot be checked on the remote
 * side, or NULL: a column it reads has a nondeterministic collation, or
 * a type whose values do not cross servers unchanged (bloom_columns_agree
 * holds for neither).
 */
extern const char *semijoin_expression_problem(Node *value);

/*
 * True if postgres_fdw ships expr to a server whose extensions option
 * lists extensions: only nodes every supported major deparses (columns,
 * constants, function and operator calls, binary-compatible casts,
 * boolean tests, arrays), each function, operator and type built in or
 * of a listed extension (its is_foreign_expr, conservatively).
 */
extern bool semijoin_expression_ships(Node *expr, List *extensions);

/*
 * True if the build relation's rows are read from another server (a
 * foreign table, or a table with foreign partitions or children): its
 * filter is then built locally (semijoin_local_build).
 */
extern bool semijoin_build_may_be_remote(RangeTblEntry *rte);

/*
 * The filter's sub-select built locally: inner (one relation with its
 * quals) becomes  (SELECT key FROM ... OFFSET 0) s  and *key the column
 * of s the aggregate reads; returns the query over s.
 */
extern Query *semijoin_local_build(Query *inner, Expr **key);

/*
 * The probe value as it is shipped: every cast the local executor applies
 * written explicitly, and every column read through an explicit cast to
 * its declared type (declared_value_fn).  A plain column is returned as
 * it is.
 */
extern Node *semijoin_shipped_value(Node *value, Oid declared_value_fn);

/*
 * The probe guarded by the column check where a value is an expression:
 * NOT bloom_columns_agree(<declared types>, <encoding>, columns...) OR probe.
 */
extern Node *semijoin_checked_probe(Node *probe, List *values, Oid columns_agree_fn);

#endif							/* BLOOMFILTER_SEMIJOIN_TYPES_H */
