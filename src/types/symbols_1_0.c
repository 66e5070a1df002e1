/*
 * symbols_1_0.c
 *	  Entry points under their 1.0 names, for databases not yet updated:
 *	  the 1.0 install script binds its SQL functions to these C names, and
 *	  a database keeps them until ALTER EXTENSION bloomfilter UPDATE.  Each
 *	  old name calls the function that replaced it, unchanged.
 */
#include "postgres.h"

#include "fmgr.h"

#define ENTRY_POINT_1_0(old_name, new_name) \
	extern Datum new_name(PG_FUNCTION_ARGS); \
	PG_FUNCTION_INFO_V1(old_name); \
	Datum \
	old_name(PG_FUNCTION_ARGS) \
	{ \
		return new_name(fcinfo); \
	}

/* bloom_agg(value): the data-sized form */
ENTRY_POINT_1_0(bloom_agg_trans, bloom_agg_datasized_trans)
ENTRY_POINT_1_0(bloom_agg_final, bloom_agg_datasized_final)

/* multibloom_agg_sized(capacity, fpp, ...): the fixed-shape form */
ENTRY_POINT_1_0(multibloom_agg_sized_trans, multibloom_agg_fixed_trans)
ENTRY_POINT_1_0(multibloom_agg_sized_final, multibloom_agg_fixed_final)
ENTRY_POINT_1_0(multibloom_agg_serial, multibloom_agg_serialize)
ENTRY_POINT_1_0(multibloom_agg_deserial, multibloom_agg_deserialize)

/* multibloom_agg(...): the data-sized form */
ENTRY_POINT_1_0(multibloom_agg_trans, multibloom_agg_datasized_trans)
ENTRY_POINT_1_0(multibloom_agg_auto_combine, multibloom_agg_datasized_combine)
ENTRY_POINT_1_0(multibloom_agg_auto_serial, multibloom_agg_datasized_serialize)
ENTRY_POINT_1_0(multibloom_agg_auto_deserial, multibloom_agg_datasized_deserialize)
ENTRY_POINT_1_0(multibloom_agg_auto_final, multibloom_agg_datasized_final)
