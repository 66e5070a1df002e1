/*
 * batch_scan_internal.h
 *	  What the two halves of the batched probe scan share: the planner's
 *	  (batch_scan.c: recognizing the probe, the path, the plan) and the
 *	  executor's (batch_scan_exec.c: reading, probing and returning rows,
 *	  parallel scans, EXPLAIN).  The planner half calls down into the
 *	  executor half only through batch_scan_create_state.
 */
#ifndef BLOOMFILTER_BATCH_SCAN_INTERNAL_H
#define BLOOMFILTER_BATCH_SCAN_INTERNAL_H

#include "nodes/execnodes.h"
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"

#define BATCH_SCAN_NAME		"BloomBatchScan"

/*
 * Rows read, hashed and probed together: enough that the misses of a batch
 * cover the latency of one, and few enough that the pins of the ring's
 * slots (one each, on the page they hold) stay under the 64 past which
 * PostgreSQL 15's resource owner keeps them in a hash table, where the
 * identical pins of one page cluster (10% of the scan's time at 64 rows;
 * doc/performance.md).
 */
#define BATCH_ROWS			32

#define EXPR_FILTER		0
#define EXPR_KEY		1
#define EXPR_PROBE		2
#define EXPR_BEFORE		3		/* and on: the quals before the probe */

/* The quals tested before the probe, from the plan. */
static inline List *
plan_quals_before(CustomScan *cscan)
{
	return list_copy_tail(cscan->custom_exprs, EXPR_BEFORE);
}

/* The executor state of a plan node of the scan (CreateCustomScanState). */
extern Node *batch_scan_create_state(CustomScan *cscan);

#endif							/* BLOOMFILTER_BATCH_SCAN_INTERNAL_H */
