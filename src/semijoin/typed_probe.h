/*
 * typed_probe.h
 *	  The typed probe bloom_contains_typed(filter, value, declared_type,
 *	  declared_collation, declared_encoding), SQL-callable in typed_probe.c,
 *	  and what the semijoin rewrite needs to write a call of it.
 */
#ifndef BLOOMFILTER_TYPED_PROBE_H
#define BLOOMFILTER_TYPED_PROBE_H

#include "nodes/pathnodes.h"
#include "nodes/primnodes.h"

/* The probe's arguments: the filter, the value, and three declared ones. */
#define TYPED_PROBE_NARGS	5

/*
 * The arguments of a probe of value (a column, or an expression of the
 * foreign table's columns) with filter, hashed under collation: the
 * filter, the value, and what this server declares the values to be (its
 * type, the collation, the database encoding).
 */
extern List *typed_probe_args(Node *filter, Node *value, Oid collation);

/*
 * Why values of this type cannot be probed on another server at all, or
 * NULL: the rewrite declines such keys (the remote side would pass every
 * row).
 */
extern const char *type_cannot_cross(Oid type);

/*
 * True if a value of (type, typmod) under collation, on this server, is the
 * value a server that declares it declared_type (format_type's qualified
 * name), under declared_collation ('' for any deterministic one), in a
 * database of declared_encoding sees, and hashes alike: the typed probe's
 * rule, for each value of a composite key (tuple_probe.c).
 */
extern bool typed_value_agrees(Oid type, int32 typmod, Oid collation, const char *declared_type,
							   const char *declared_collation, const char *declared_encoding);

/* The declared type of a column, as the typed probes name it. */
extern char *column_type_spec(Var *column);

/*
 * The range-table entry of a column, from the planner's query levels, or
 * NULL if it is not a user column of one: where a probe of it is planned
 * (the typed probe's column, each column of a composite probe).
 */
extern RangeTblEntry *column_entry(PlannerInfo *root, Var *var);

#endif							/* BLOOMFILTER_TYPED_PROBE_H */
