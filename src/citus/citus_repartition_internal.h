/*
 * citus_repartition_internal.h
 *	  What the two files of the Citus repartition prefilter share, and only
 *	  they: citus_repartition.c (the settings, the planner hook, the
 *	  repartition joins found, the filters built and probed) hands each
 *	  plan it changed to citus_repartition_plan.c (the plan marked, the
 *	  statement kept, and the executor-start hook that plans it again where
 *	  its filter may be stale).  The public header is citus_repartition.h.
 */
#ifndef BLOOMFILTER_CITUS_REPARTITION_INTERNAL_H
#define BLOOMFILTER_CITUS_REPARTITION_INTERNAL_H

#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"

/* Marks stmt as carrying a filter; its serial number. */
extern uint32 repart_mark_plan(PlannedStmt *stmt);

/* Keeps the statement of the plan of serial, before the rewrite. */
extern void repart_save_statement(uint32 serial, Query *parse, const char *query_string,
								  int cursor_options);

/* Installs the executor-start hook that consumes the marked plans. */
extern void repart_install_executor_start(void);

#endif							/* BLOOMFILTER_CITUS_REPARTITION_INTERNAL_H */
