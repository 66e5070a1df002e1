/*
 * plan_tree.c
 *	  The lists of child plans of a finished plan's nodes, for the walkers
 *	  of the summary pruning and of the semijoin checks.  One table of the
 *	  node types and their fields, so that the walkers agree on them.
 */
#include "postgres.h"

#include <stddef.h>

#include "helpers/plan_tree.h"

/* The node types whose children are a List, and where the List is. */
static const struct
{
	NodeTag		tag;
	size_t		offset;
}			child_lists[] = {
	{T_Append, offsetof(Append, appendplans)},
	{T_MergeAppend, offsetof(MergeAppend, mergeplans)},
	{T_BitmapAnd, offsetof(BitmapAnd, bitmapplans)},
	{T_BitmapOr, offsetof(BitmapOr, bitmapplans)},
	{T_CustomScan, offsetof(CustomScan, custom_plans)},
};

List *
plan_child_list(Plan *plan)
{
	for (int i = 0; i < lengthof(child_lists); i++)
	{
		if (nodeTag(plan) == child_lists[i].tag)
			return *(List **) ((char *) plan + child_lists[i].offset);
	}
	return NIL;
}
