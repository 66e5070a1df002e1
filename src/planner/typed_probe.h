/*
 * typed_probe.h
 *	  The typed probe bloom_contains_typed(filter, value, declared_type,
 *	  declared_collation, declared_encoding), SQL-callable in typed_probe.c,
 *	  and what the semijoin rewrite needs to write a call of it.
 */
#ifndef BLOOMFILTER_TYPED_PROBE_H
#define BLOOMFILTER_TYPED_PROBE_H

#include "nodes/primnodes.h"

/* The probe's arguments: the filter, the value, and three declared ones. */
#define TYPED_PROBE_NARGS	5

/*
 * The arguments of a probe of column with filter, hashed under collation:
 * the filter, the column, and what this server declares the column's
 * values to be (its type, the collation, the database encoding).
 */
extern List *typed_probe_args(Node *filter, Var *column, Oid collation);

/*
 * Why values of this type cannot be probed on another server at all, or
 * NULL: the rewrite declines such keys (the remote side would pass every
 * row).
 */
extern const char *type_cannot_cross(Oid type);

#endif							/* BLOOMFILTER_TYPED_PROBE_H */
