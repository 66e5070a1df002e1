/*
 * summary_leave_out.c
 *	  The skipped scans left out of the Appends of the plan that runs.
 *
 *	  A skipped scan (summary_scan_nodes.c) returns nothing, but the
 *	  executor still starts and ends it as a node: it opens the leaf, makes
 *	  two slots and an expression context, and PostgreSQL keeps the
 *	  contexts of a query in a list to which each is prepended and from
 *	  whose head each is removed, both moving the whole list.  Over
 *	  thousands of skipped partitions that work grows with the square of
 *	  their number and was most of the time a decision took.  An Append or
 *	  MergeAppend returns the rows of its children, so a child that returns
 *	  nothing can be left out of it without changing a row or their order.
 *
 *	  Not left out: under EXPLAIN (the skipped scans are what it shows of
 *	  the summary's work; summary_prune.c decides), and below an Append or
 *	  MergeAppend that PostgreSQL prunes at executor start or at run time,
 *	  whose pruning information numbers its children (it removes most of
 *	  them itself then).
 */
#include "postgres.h"

#include "nodes/plannodes.h"

#include "summaries/summary_prune_internal.h"

bool
skipped_may_be_left_out(Plan *plan)
{
#if PG_VERSION_NUM >= 180000
	if (IsA(plan, Append))
		return ((Append *) plan)->part_prune_index < 0;
	if (IsA(plan, MergeAppend))
		return ((MergeAppend *) plan)->part_prune_index < 0;
#else
	if (IsA(plan, Append))
		return ((Append *) plan)->part_prune_info == NULL;
	if (IsA(plan, MergeAppend))
		return ((MergeAppend *) plan)->part_prune_info == NULL;
#endif
	return false;
}

void
leave_out_skipped(Plan *plan)
{
	List	  **children;
	List	   *kept = NIL;
	int			partial_from = -1;	/* an Append's first partial child */
	int			kept_before_partial = 0;
	int			nasync = 0;
	ListCell   *lc;

	if (IsA(plan, Append))
	{
		children = &((Append *) plan)->appendplans;
		partial_from = ((Append *) plan)->first_partial_plan;
	}
	else if (IsA(plan, MergeAppend))
		children = &((MergeAppend *) plan)->mergeplans;
	else
		return;
	if (!list_member_ptr(*children, NULL))
		return;
	foreach(lc, *children)
	{
		Plan	   *child = lfirst(lc);

		if (child == NULL)
			continue;
		kept = lappend(kept, child);
		kept_before_partial += foreach_current_index(lc) < partial_from;
		nasync += child->async_capable;
	}
	*children = kept;
	if (IsA(plan, Append))
	{
		/* the partial children follow the others: counted again */
		((Append *) plan)->first_partial_plan = kept_before_partial;
		((Append *) plan)->nasyncplans = nasync;
	}
}
