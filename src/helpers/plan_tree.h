/*
 * plan_tree.h
 *	  What the walkers of finished plans share (plan_tree.c): the summary
 *	  pruning and the semijoin checks each walk a plan, for their own ends.
 */
#ifndef BLOOMFILTER_PLAN_TREE_H
#define BLOOMFILTER_PLAN_TREE_H

#include "nodes/pg_list.h"
#include "nodes/plannodes.h"

/*
 * The child plans a node holds in a List (Append, MergeAppend, BitmapAnd,
 * BitmapOr, CustomScan), NIL for any other node.  The lefttree, the
 * righttree and a SubqueryScan's subplan are the caller's to walk.
 */
extern List *plan_child_list(Plan *plan);

#endif							/* BLOOMFILTER_PLAN_TREE_H */
