/*
 * legacy_entry_points.c
 *	  The C entry points that only the scripts of released versions bind:
 *	  bloomfilter--1.0.sql creates every function below, and
 *	  bloomfilter--1.0--1.1.sql keeps them (it renames some SQL functions,
 *	  never their C names); no piece of the current install script
 *	  (extension/install/) names them, and bloomfilter--1.1--1.2.sql
 *	  rebinds or replaces their functions.  They must stay in the library:
 *	  a database created at 1.0 that has not run ALTER EXTENSION
 *	  bloomfilter UPDATE (to 1.1 or 1.2) keeps its old function
 *	  definitions, and calls these names in the new library.  Each is a
 *	  thin wrapper around the current implementation, whose behaviour it
 *	  keeps.  They are gathered here so that no other file holds an entry
 *	  point of an old script.
 *
 *	  Nothing calls them but the server; they call down into the aggregate
 *	  files (bloom_setop_agg.c, multibloom_agg.c, bloom_agg_datasized.c).
 */
#include "postgres.h"

#include "fmgr.h"

#include "aggregates/bloom_agg_internal.h"
#include "aggregates/multibloom_agg.h"

/*
 * An old C name that calls the entry point that replaced it, unchanged
 * (declared by the header of the file that defines it).
 */
#define RENAMED_ENTRY_POINT(old_name, new_name) \
	PG_FUNCTION_INFO_V1(old_name); \
	Datum \
	old_name(PG_FUNCTION_ARGS) \
	{ \
		return new_name(fcinfo); \
	}

/* An old C name of an internal-state form: calls impl(fcinfo, args...). */
#define INTERNAL_STATE_ENTRY_POINT(old_name, ...) \
	PG_FUNCTION_INFO_V1(old_name); \
	Datum \
	old_name(PG_FUNCTION_ARGS) \
	{ \
		return __VA_ARGS__; \
	}

/*
 * bloomfilter--1.0.sql: bloom_agg(value), the data-sized form, under its
 * 1.0 names.
 */
RENAMED_ENTRY_POINT(bloom_agg_trans, bloom_agg_datasized_trans)
RENAMED_ENTRY_POINT(bloom_agg_final, bloom_agg_datasized_final)

/*
 * bloomfilter--1.0.sql: multibloom_agg_sized(capacity, fpp, ...), the
 * fixed-shape form (multibloom_agg_fixed since 1.1).
 */
RENAMED_ENTRY_POINT(multibloom_agg_sized_trans, multibloom_agg_fixed_trans)
RENAMED_ENTRY_POINT(multibloom_agg_sized_final, multibloom_agg_fixed_final)
RENAMED_ENTRY_POINT(multibloom_agg_serial, multibloom_agg_serialize)
RENAMED_ENTRY_POINT(multibloom_agg_deserial, multibloom_agg_deserialize)

/* bloomfilter--1.0.sql: multibloom_agg(...), the data-sized form. */
RENAMED_ENTRY_POINT(multibloom_agg_trans, multibloom_agg_datasized_trans)
RENAMED_ENTRY_POINT(multibloom_agg_auto_combine, multibloom_agg_datasized_combine)
RENAMED_ENTRY_POINT(multibloom_agg_auto_serial, multibloom_agg_datasized_serialize)
RENAMED_ENTRY_POINT(multibloom_agg_auto_deserial, multibloom_agg_datasized_deserialize)
RENAMED_ENTRY_POINT(multibloom_agg_auto_final, multibloom_agg_datasized_final)

/*
 * bloomfilter--1.0.sql: multibloom_union_agg with an internal state (a
 * multibloom since 1.2, multibloom_union_agg_step), and the final
 * function it shares with multibloom_agg_sized.
 */
INTERNAL_STATE_ENTRY_POINT(multibloom_union_agg_trans, multibloom_union_internal_trans(fcinfo))
INTERNAL_STATE_ENTRY_POINT(multibloom_agg_final, multibloom_internal_final(fcinfo))

/*
 * bloomfilter--1.0.sql: bloom_union_agg and bloom_intersect_agg with an
 * internal state (the SQL type bloom_setop_state since 1.2).
 */
INTERNAL_STATE_ENTRY_POINT(bloom_union_agg_trans, bloom_setop_internal_trans(fcinfo, false))
INTERNAL_STATE_ENTRY_POINT(bloom_intersect_agg_trans, bloom_setop_internal_trans(fcinfo, true))
INTERNAL_STATE_ENTRY_POINT(bloom_union_agg_combine, bloom_setop_internal_combine(fcinfo, false))
INTERNAL_STATE_ENTRY_POINT(bloom_intersect_agg_combine, bloom_setop_internal_combine(fcinfo, true))
INTERNAL_STATE_ENTRY_POINT(bloom_setop_agg_final, bloom_setop_internal_final(fcinfo))
INTERNAL_STATE_ENTRY_POINT(bloom_setop_agg_serialize, bloom_setop_internal_serialize(fcinfo))
INTERNAL_STATE_ENTRY_POINT(bloom_setop_agg_deserialize, bloom_setop_internal_deserialize(fcinfo))
