/*
 * tuple_probe.h
 *	  The composite-key probe of the semijoin prefilter, SQL-callable in
 *	  tuple_probe.c: bloom_tuple_hash(VARIADIC "any"), the one value a
 *	  filter of key tuples holds per tuple, and
 *	  bloom_contains_tuple(filter, declared_types, declared_encoding,
 *	  VARIADIC "any"), its typed probe; and what the rewrite needs to write
 *	  a call of the probe.
 */
#ifndef BLOOMFILTER_TUPLE_PROBE_H
#define BLOOMFILTER_TUPLE_PROBE_H

#include "nodes/primnodes.h"

/* The probe's arguments before the key's values: filter, types, encoding. */
#define TUPLE_PROBE_FIXED_NARGS	3

/* Most columns of a composite key (as multibloom's attributes). */
#define TUPLE_MAX_COLUMNS	32

/*
 * The arguments of a probe of the key values (columns, or expressions of
 * one column) with filter: the filter, the values' declared types, this
 * database's encoding, the values.
 */
extern List *tuple_probe_args(Node *filter, List *values);

/*
 * The arguments of bloom_columns_agree for the columns an expression key
 * reads: their declared types, this database's encoding, the columns.
 */
extern List *columns_agree_args(List *columns);

/*
 * Marks the start (true) or end (false) of a planning of a statement the
 * semijoin rewrite added checks to: only there is a check over a foreign
 * table's columns kept as written.
 */
extern void columns_agree_planning(bool start);

#endif							/* BLOOMFILTER_TUPLE_PROBE_H */
