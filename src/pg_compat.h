/*
 * pg_compat.h
 *	  The differences between the PostgreSQL majors bloomfilter supports
 *	  (15, 17 and 18), in one place: each is a PG_VERSION_NUM test that gives
 *	  the rest of the code one spelling for all of them.
 *
 *	  Include it right after postgres.h (bloomfilter.h does), before any
 *	  other PostgreSQL header: it brings in what newer majors moved out of
 *	  postgres.h.
 */
#ifndef BLOOMFILTER_PG_COMPAT_H
#define BLOOMFILTER_PG_COMPAT_H

#ifndef PG_VERSION_NUM
#error "include postgres.h before pg_compat.h"
#endif

/*
 * The varlena macros (VARSIZE, VARDATA, VARATT_IS_EXTENDED, ...) moved from
 * postgres.h to varatt.h in PostgreSQL 16, which postgres.h no longer
 * includes; access/detoast.h needs them.
 */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * Functions that never return.  PostgreSQL 18 replaced the attribute
 * written after the declarator, pg_attribute_noreturn(), by pg_noreturn,
 * written first (it may be C11's _Noreturn); older majors only have the
 * attribute.  Write "pg_noreturn extern void f(...);": on older majors it
 * is GCC's attribute, which may stand first too.
 */
#if PG_VERSION_NUM < 180000 && !defined(pg_noreturn)
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * Planner structures (the semijoin prefilter in src/semijoin/semijoin_rewrite.c,
 * the extension's objects in src/helpers/extension_objects.c):
 * - PostgreSQL 16 moved a range-table entry's permissions into a list of
 *   RTEPermissionInfo in its Query (rte->perminfoindex);
 * - PostgreSQL 16 made get_extension_schema() public, and replaced
 *   pg_proc_aclcheck() by object_aclcheck().
 */
#define COMPAT_HAVE_PERMINFO			(PG_VERSION_NUM >= 160000)
#define COMPAT_HAVE_GET_EXTENSION_SCHEMA (PG_VERSION_NUM >= 160000)
#define COMPAT_HAVE_OBJECT_ACLCHECK		(PG_VERSION_NUM >= 160000)

/*
 * EXPLAIN: PostgreSQL 18 moved ExplainState to commands/explain_state.h and
 * the ExplainProperty* functions to commands/explain_format.h.  Write
 * #include PG_COMPAT_EXPLAIN_STATE_H (and _FORMAT_H) instead.
 */
#if PG_VERSION_NUM >= 180000
#define PG_COMPAT_EXPLAIN_STATE_H	"commands/explain_state.h"
#define PG_COMPAT_EXPLAIN_FORMAT_H	"commands/explain_format.h"
#else
#define PG_COMPAT_EXPLAIN_STATE_H	"commands/explain.h"
#define PG_COMPAT_EXPLAIN_FORMAT_H	"commands/explain.h"
#endif

/*
 * A path's count of disabled nodes (enable_seqscan = off and the like):
 * PostgreSQL 18 counts them in the path; older majors add disable_cost to
 * the cost instead, which a path copied from another's cost keeps anyway.
 */
#if PG_VERSION_NUM >= 180000
#define path_copy_disabled_nodes(dst, src)	((dst)->disabled_nodes = (src)->disabled_nodes)
#else
#define path_copy_disabled_nodes(dst, src)	((void) 0)
#endif

/*
 * A custom scan states the slots it returns (CustomScanState.slotOps) from
 * PostgreSQL 16 on; before, its scan slot is always virtual.
 */
#define PG_CUSTOM_SCAN_HAS_SLOT_OPS	(PG_VERSION_NUM >= 160000)

/*
 * Extended hash functions that are hashint8extended under another name:
 * PostgreSQL 18 gave timestamptz and xid8 their own (before, their
 * opclasses named timestamp_hash_extended and hashint8extended).  InvalidOid
 * where a major has none, so a comparison with it is false.
 */
#if PG_VERSION_NUM >= 180000
#define COMPAT_F_TIMESTAMPTZ_HASH_EXTENDED	F_TIMESTAMPTZ_HASH_EXTENDED
#define COMPAT_F_HASHXID8EXTENDED			F_HASHXID8EXTENDED
#else
#define COMPAT_F_TIMESTAMPTZ_HASH_EXTENDED	InvalidOid
#define COMPAT_F_HASHXID8EXTENDED			InvalidOid
#endif

/*
 * Join types (the runtime join filters of src/joinfilter/): PostgreSQL 16
 * added JOIN_RIGHT_ANTI, 18 JOIN_RIGHT_SEMI; both drop unmatched outer rows.
 */
#define COMPAT_HAVE_JOIN_RIGHT_ANTI		(PG_VERSION_NUM >= 160000)
#define COMPAT_HAVE_JOIN_RIGHT_SEMI		(PG_VERSION_NUM >= 180000)

#endif							/* BLOOMFILTER_PG_COMPAT_H */
