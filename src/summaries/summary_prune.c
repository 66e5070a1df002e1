/*
 * summary_prune.c
 *	  Pruning by managed summaries (doc/summaries.md, "How queries use a
 *	  summary"): a query whose quals fix a summary's key reads only the
 *	  leaf partitions whose filter, with its visible deltas, may hold one of
 *	  the key's values.
 *
 *	  A plan can be cached and run again after writers added keys, so a plan
 *	  carries no decision, only the questions.  After planning (planner
 *	  hook), each scan of a leaf partition covered by a summary whose quals
 *	  fix the key (key = constant or $n, key IN (...), key = ANY($n), an OR
 *	  of those; for a multibloom summary, some of its columns) becomes a
 *	  candidate, and the plan is wrapped in a marker node listing the
 *	  candidates.  At executor start, under the query's snapshot and with
 *	  its parameter values, the catalog decides each candidate
 *	  (summary_prune_catalog.c), and the executor receives a copy of the
 *	  plan without the marker, in which each scan that cannot return a row
 *	  is replaced by an empty node, shown by EXPLAIN.  The cached plan is
 *	  never changed: the copy shares every subtree that holds no replaced
 *	  scan.
 *
 *	  The replacement is exact wherever the scan sits (Append, MergeAppend,
 *	  parallel append, partitionwise joins, outer joins): the scan's own
 *	  quals already restrict it to the key's values, so the empty node
 *	  returns what the scan would have returned.  Parallel workers receive
 *	  the rewritten plan, so they run the leader's decisions.
 *
 *	  A scan whose key is fixed by an executor parameter (the outer value
 *	  of a nested loop, of a LATERAL or correlated sub-select) cannot be
 *	  decided at executor start: it is wrapped in a guard node that reads
 *	  the leaf's filters once per execution and, at each (re)start, returns
 *	  nothing without starting the scan when they rule out the parameter's
 *	  values.  A pruned plan also keeps only the JIT options its remaining
 *	  cost passes.  The empty and guard nodes are summary_scan_nodes.c.
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/nodeCustom.h"
#include "jit/jit.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "pg_compat.h"
#include PG_COMPAT_EXPLAIN_STATE_H
#include PG_COMPAT_EXPLAIN_FORMAT_H
#include "helpers/plan_tree.h"
#include "summaries/summary_own_writes.h"
#include "summaries/summary_prune.h"
#include "summaries/summary_prune_internal.h"

static bool enable_summary_pruning = true;

static planner_hook_type prev_planner_hook = NULL;
static ExecutorStart_hook_type prev_executor_start = NULL;

/* ---------------------------------------------------------------------
 * The marker: never executed (the skipped and guarded scans that take a
 * candidate scan's place are in summary_scan_nodes.c)
 * --------------------------------------------------------------------- */

#define MARKER_NAME		"BloomSummaryPrune"

static Node *marker_create_state(CustomScan *cscan);

static const CustomScanMethods marker_methods = {
	.CustomName = MARKER_NAME,
	.CreateCustomScanState = marker_create_state,
};

static Node *
marker_create_state(CustomScan *cscan)
{
	/* the executor-start hook removes the marker from every plan it runs */
	elog(ERROR, "a plan marked for summary pruning reached the executor without its hook");
	return NULL;
}

/* ---------------------------------------------------------------------
 * Walking a plan's nodes
 * --------------------------------------------------------------------- */

typedef bool (*ScanVisitor) (Scan *scan, void *arg);

/* A scan of one table's rows: a node a summary may skip or guard. */
static bool
is_table_scan(Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_ForeignScan:
			return true;
		default:
			return false;
	}
}

/*
 * Calls visit for each scan node of the tree, not below a custom scan (of
 * another extension: what its children may return is its own business).
 */
static void
walk_scans(Plan *plan, ScanVisitor visit, void *arg)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	check_stack_depth();
	if (is_table_scan(plan))
	{
		/* a foreign join's scan (scanrelid 0) is of no one table */
		if (!IsA(plan, ForeignScan) || ((Scan *) plan)->scanrelid > 0)
			visit((Scan *) plan, arg);
		return;
	}
	switch (nodeTag(plan))
	{
		case T_Append:
			foreach(lc, ((Append *) plan)->appendplans)
				walk_scans(lfirst(lc), visit, arg);
			return;
		case T_MergeAppend:
			foreach(lc, ((MergeAppend *) plan)->mergeplans)
				walk_scans(lfirst(lc), visit, arg);
			return;
		case T_SubqueryScan:
			walk_scans(((SubqueryScan *) plan)->subplan, visit, arg);
			return;
		case T_CustomScan:
			/* another extension's node: its children are its own business */
			return;
		default:
			walk_scans(plan->lefttree, visit, arg);
			walk_scans(plan->righttree, visit, arg);
			return;
	}
}

/*
 * A flat copy of a plan node of a type whose children replace_scans
 * knows, or NULL for any other.
 */
static Plan *
flat_copy(Plan *plan)
{
	Size		size;
	Plan	   *copy;

	switch (nodeTag(plan))
	{
#define SIZE_OF(T) case T_##T: size = sizeof(T); break
			SIZE_OF(Append);
			SIZE_OF(MergeAppend);
			SIZE_OF(SubqueryScan);
			SIZE_OF(Result);
			SIZE_OF(ProjectSet);
			SIZE_OF(Gather);
			SIZE_OF(GatherMerge);
			SIZE_OF(Material);
			SIZE_OF(Memoize);
			SIZE_OF(Sort);
			SIZE_OF(IncrementalSort);
			SIZE_OF(Group);
			SIZE_OF(Agg);
			SIZE_OF(WindowAgg);
			SIZE_OF(Unique);
			SIZE_OF(SetOp);
			SIZE_OF(LockRows);
			SIZE_OF(Limit);
			SIZE_OF(Hash);
			SIZE_OF(HashJoin);
			SIZE_OF(MergeJoin);
			SIZE_OF(NestLoop);
			SIZE_OF(RecursiveUnion);
#undef SIZE_OF
		default:
			return NULL;
	}
	copy = palloc(size);
	memcpy(copy, plan, size);
	return copy;
}

typedef struct Replacement
{
	Bitmapset  *ids;			/* plan_node_ids of the scans to replace */
	Bitmapset  *guard_ids;		/* plan_node_ids of the scans to guard */
	int			nids;			/* above every candidate's plan_node_id */
	const char **keys;			/* by plan_node_id: the key names to show */
	List	  **guards;			/* by plan_node_id: a guard's candidates */
	Cost		removed_cost;	/* the replaced scans' estimated total cost */
	bool		leave_out;		/* skipped scans left out of Appends (not EXPLAIN) */
	int			nleft_out;
	int			next_node_id;	/* for the guards, above every node's id */
} Replacement;

static Plan *replace_scans(Plan *plan, Replacement *r);

/*
 * The list with each plan replaced; the same list if none changed.  With
 * leave_out, a skipped scan is NULL in it (summary_leave_out.c removes
 * it): no node is made for it.
 */
static List *
replace_in_list(List *plans, Replacement *r, bool leave_out)
{
	List	   *result = NIL;
	bool		changed = false;
	ListCell   *lc;

	foreach(lc, plans)
	{
		Plan	   *p = lfirst(lc);

		if (leave_out && is_table_scan(p) && bms_is_member(p->plan_node_id, r->ids))
		{
			r->removed_cost += p->total_cost;
			r->nleft_out++;
			p = NULL;
		}
		else
			p = replace_scans(p, r);

		changed |= p != lfirst(lc);
		result = lappend(result, p);
	}
	if (!changed)
	{
		list_free(result);
		return plans;
	}
	return result;
}

/*
 * The tree with the scans of r replaced by empty nodes: the same pointer
 * where nothing below changed, else new nodes on the path to each replaced
 * scan (a deep copy below a node of a type flat_copy does not know).
 */
static Plan *
replace_scans(Plan *plan, Replacement *r)
{
	Plan	   *left;
	Plan	   *right;
	Plan	   *copy;
	List	   *children = NIL;
	List	   *new_children;

	if (plan == NULL)
		return NULL;
	check_stack_depth();
	if (is_table_scan(plan))
	{
		if (bms_is_member(plan->plan_node_id, r->ids))
		{
			r->removed_cost += plan->total_cost;
			return make_skipped((Scan *) plan, r->keys[plan->plan_node_id]);
		}
		if (bms_is_member(plan->plan_node_id, r->guard_ids))
			return make_guard((Scan *) plan, r->keys[plan->plan_node_id],
							  r->guards[plan->plan_node_id], r->next_node_id++);
		return plan;
	}
	switch (nodeTag(plan))
	{
		case T_Append:
			children = ((Append *) plan)->appendplans;
			break;
		case T_MergeAppend:
			children = ((MergeAppend *) plan)->mergeplans;
			break;
		case T_CustomScan:
			return plan;		/* walk_scans does not look below either */
		case T_SubqueryScan:
			children = list_make1(((SubqueryScan *) plan)->subplan);
			break;
		default:
			break;
	}
	new_children = replace_in_list(children, r,
								   r->leave_out && skipped_may_be_left_out(plan));
	left = replace_scans(plan->lefttree, r);
	right = replace_scans(plan->righttree, r);
	if (new_children == children && left == plan->lefttree && right == plan->righttree)
		return plan;
	copy = flat_copy(plan);
	if (copy == NULL)
	{
		/* a node of another type: a deep copy, then the replacement in it */
		Plan	   *deep = copyObject(plan);

		deep->lefttree = left;
		deep->righttree = right;
		return deep;
	}
	copy->lefttree = left;
	copy->righttree = right;
	switch (nodeTag(copy))
	{
		case T_Append:
			((Append *) copy)->appendplans = new_children;
			leave_out_skipped(copy);
			break;
		case T_MergeAppend:
			((MergeAppend *) copy)->mergeplans = new_children;
			leave_out_skipped(copy);
			break;
		case T_SubqueryScan:
			((SubqueryScan *) copy)->subplan = linitial(new_children);
			break;
		default:
			break;
	}
	return copy;
}

/* ---------------------------------------------------------------------
 * Planning: the candidates
 *
 * A candidate is a List: plan_node_id, summary_id, leaf, key names (a
 * String), then per key attribute a List (fixed, value type, collation,
 * sources), where each source is a List (is_array, expression) and the
 * expression a Const, an external Param or an ArrayExpr of those.
 * --------------------------------------------------------------------- */

typedef struct PlanWalk
{
	PlannedStmt *stmt;
	SummaryPlanState state;
	List	   *candidates;
} PlanWalk;

/* The table column a Var of the scan stands for, or InvalidAttrNumber. */
static AttrNumber
scan_column(Scan *scan, Node *node)
{
	Var		   *var;
	List	   *tlist = NIL;

	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node == NULL || !IsA(node, Var))
		return InvalidAttrNumber;
	var = (Var *) node;
	if (var->varlevelsup != 0)
		return InvalidAttrNumber;
	if (var->varno == INDEX_VAR)
	{
		TargetEntry *tle;

		if (IsA(scan, IndexOnlyScan))
			tlist = ((IndexOnlyScan *) scan)->indextlist;
		else if (IsA(scan, ForeignScan))
			tlist = ((ForeignScan *) scan)->fdw_scan_tlist;
		tle = var->varattno >= 1 && var->varattno <= list_length(tlist)
			? list_nth(tlist, var->varattno - 1) : NULL;
		if (tle == NULL)
			return InvalidAttrNumber;
		return scan_column(scan, (Node *) tle->expr);
	}
	if ((Index) var->varno != scan->scanrelid)
		return InvalidAttrNumber;
	return var->varattno;
}

/*
 * A value a scan's rows are compared with that is fixed for one scan: a
 * Const or an external parameter (known at executor start), or an
 * executor parameter (known when the scan starts or is rescanned, such as
 * a nested loop's outer value).
 */
static bool
is_scan_value(Node *node)
{
	return IsA(node, Const) ||
		(IsA(node, Param) && (((Param *) node)->paramkind == PARAM_EXTERN ||
							  ((Param *) node)->paramkind == PARAM_EXEC));
}

/*
 * True if opno is the equality of the key column's hash opfamily (so a
 * value equal to the column's hashes as the column's value does), and
 * equality under the operator's collation implies equality under the
 * column's, under which the filter was built.
 */
static bool
fixing_operator_lookup(Oid opno, Oid inputcollid, Oid coltype, Oid colcollation)
{
	TypeCacheEntry *tc = lookup_type_cache(coltype, TYPECACHE_HASH_OPFAMILY);

	if (!OidIsValid(tc->hash_opf) || !op_in_opfamily(opno, tc->hash_opf) ||
		get_op_opfamily_strategy(opno, tc->hash_opf) != HTEqualStrategyNumber)
		return false;
	return !OidIsValid(inputcollid) || inputcollid == colcollation ||
		get_collation_isdeterministic(inputcollid);
}

/*
 * The last answer of fixing_operator_lookup, within one call of the
 * planner hook (summary_planner forgets it first): the scans of a query's
 * hundreds of leaves ask the same question, three catalog lookups each.
 */
static struct
{
	bool		valid;
	Oid			opno;
	Oid			inputcollid;
	Oid			coltype;
	Oid			colcollation;
	bool		answer;
}			last_fixing;

static bool
fixing_operator(Oid opno, Oid inputcollid, Oid coltype, Oid colcollation)
{
	if (!last_fixing.valid || last_fixing.opno != opno ||
		last_fixing.inputcollid != inputcollid || last_fixing.coltype != coltype ||
		last_fixing.colcollation != colcollation)
	{
		last_fixing.answer = fixing_operator_lookup(opno, inputcollid, coltype, colcollation);
		last_fixing.opno = opno;
		last_fixing.inputcollid = inputcollid;
		last_fixing.coltype = coltype;
		last_fixing.colcollation = colcollation;
		last_fixing.valid = true;
	}
	return last_fixing.answer;
}

static List *fixing_sources(Scan *scan, Node *qual, AttrNumber attno, Oid coltype,
							Oid colcollation, Oid *valtype);

/*
 * The sources of a boolean expression fixing column attno, and their
 * type, or NIL.  An OR fixes the column when each arm does, with values of
 * one type: a row passes the OR only through an arm, so its key equals a
 * value of that arm, and the union of the arms' sources holds it.  An arm
 * that is a null or false constant passes no row and adds nothing.  An AND
 * (an arm such as "k = 5 AND v > 0") fixes the column when one of its
 * terms does.  Any other arm, or values of another type, fixes nothing.
 */
static List *
bool_fixing_sources(Scan *scan, BoolExpr *expr, AttrNumber attno, Oid coltype,
					Oid colcollation, Oid *valtype)
{
	List	   *sources = NIL;
	ListCell   *lc;

	check_stack_depth();
	*valtype = InvalidOid;
	if (expr->boolop == AND_EXPR)
	{
		foreach(lc, expr->args)
		{
			sources = fixing_sources(scan, lfirst(lc), attno, coltype, colcollation, valtype);
			if (sources != NIL)
				return sources;
		}
		return NIL;
	}
	if (expr->boolop != OR_EXPR)
		return NIL;
	foreach(lc, expr->args)
	{
		Node	   *arm = lfirst(lc);
		Oid			armtype = InvalidOid;
		List	   *armsources;

		if (IsA(arm, Const) && exprType(arm) == BOOLOID &&
			(((Const *) arm)->constisnull || !DatumGetBool(((Const *) arm)->constvalue)))
			continue;
		armsources = fixing_sources(scan, arm, attno, coltype, colcollation, &armtype);
		if (armsources == NIL || (OidIsValid(*valtype) && armtype != *valtype))
			return NIL;
		*valtype = armtype;
		sources = list_concat(sources, armsources);
	}
	return sources;
}

/*
 * The sources (see above) of a qual fixing column attno of the scan, and
 * the values' type, or NIL.
 */
static List *
fixing_sources(Scan *scan, Node *qual, AttrNumber attno, Oid coltype, Oid colcollation,
			   Oid *valtype)
{
	if (IsA(qual, BoolExpr))
		return bool_fixing_sources(scan, (BoolExpr *) qual, attno, coltype, colcollation,
								   valtype);
	if (IsA(qual, OpExpr) && list_length(((OpExpr *) qual)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) qual;
		Node	   *l = linitial(op->args);
		Node	   *r = lsecond(op->args);
		Node	   *value;

		if (scan_column(scan, l) == attno)
			value = r;
		else if (scan_column(scan, r) == attno)
			value = l;
		else
			return NIL;
		while (IsA(value, RelabelType))
			value = (Node *) ((RelabelType *) value)->arg;
		if (!is_scan_value(value) ||
			!fixing_operator(op->opno, op->inputcollid, coltype, colcollation))
			return NIL;
		*valtype = exprType(value);
		return list_make1(list_make2(makeInteger(0), value));
	}
	if (IsA(qual, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *saop = (ScalarArrayOpExpr *) qual;
		Node	   *array = lsecond(saop->args);
		List	   *sources = NIL;
		ListCell   *lc;

		if (!saop->useOr || scan_column(scan, linitial(saop->args)) != attno ||
			!fixing_operator(saop->opno, saop->inputcollid, coltype, colcollation))
			return NIL;
		if (is_scan_value(array))
		{
			*valtype = get_element_type(exprType(array));
			return OidIsValid(*valtype) ? list_make1(list_make2(makeInteger(1), array)) : NIL;
		}
		if (!IsA(array, ArrayExpr) || ((ArrayExpr *) array)->multidims)
			return NIL;
		*valtype = ((ArrayExpr *) array)->element_typeid;
		foreach(lc, ((ArrayExpr *) array)->elements)
		{
			Node	   *e = lfirst(lc);

			while (IsA(e, RelabelType))
				e = (Node *) ((RelabelType *) e)->arg;
			if (!is_scan_value(e) || exprType(e) != *valtype)
				return NIL;
			sources = lappend(sources, list_make2(makeInteger(0), e));
		}
		return sources;
	}
	return NIL;
}

/* The quals of a scan that restrict its rows (implicit AND). */
static List *
scan_quals(Scan *scan)
{
	List	   *quals = scan->plan.qual;

	if (IsA(scan, IndexScan))
		quals = list_concat_copy(quals, ((IndexScan *) scan)->indexqualorig);
	else if (IsA(scan, IndexOnlyScan))
		quals = list_concat_copy(quals, ((IndexOnlyScan *) scan)->recheckqual);
	else if (IsA(scan, BitmapHeapScan))
		quals = list_concat_copy(quals, ((BitmapHeapScan *) scan)->bitmapqualorig);
	else if (IsA(scan, ForeignScan))
		quals = list_concat_copy(quals, ((ForeignScan *) scan)->fdw_recheck_quals);
	return quals;
}

/* The candidate of the scan under summary s, or NULL if no key is fixed. */
static List *
candidate_for(Scan *scan, Oid leaf, SummaryOfLeaf *s, List *quals)
{
	List	   *attrs = NIL;
	char	   *keys = NULL;	/* the fixed columns' names, for EXPLAIN */

	for (int k = 0; k < s->nkeys; k++)
	{
		List	   *sources = NIL;
		Oid			valtype = InvalidOid;
		ListCell   *lc;

		foreach(lc, quals)
		{
			sources = fixing_sources(scan, lfirst(lc), s->attnos[k], s->types[k],
									 s->collations[k], &valtype);
			if (sources != NIL)
				break;
		}
		attrs = lappend(attrs, list_make4(makeInteger(sources != NIL),
										  makeInteger((int) valtype),
										  makeInteger((int) s->collations[k]), sources));
		if (sources != NIL)
			keys = keys ? psprintf("%s, %s", keys, s->names[k]) : pstrdup(s->names[k]);
	}
	if (keys == NULL)
		return NIL;
	return list_concat(list_make4(makeInteger(scan->plan.plan_node_id),
								  makeInteger(s->summary_id), makeInteger((int) leaf),
								  makeString(keys)),
					   attrs);
}

static bool
find_candidates(Scan *scan, void *arg)
{
	PlanWalk   *walk = arg;
	RangeTblEntry *rte;
	List	   *summaries;
	List	   *quals;
	ListCell   *lc;

	if (scan->scanrelid == 0 || scan->scanrelid > list_length(walk->stmt->rtable))
		return false;
	rte = rt_fetch(scan->scanrelid, walk->stmt->rtable);
	if (rte->rtekind != RTE_RELATION ||
		(rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_FOREIGN_TABLE))
		return false;
	summaries = summaries_of_leaf(&walk->state, rte->relid);
	if (summaries == NIL)
		return false;
	quals = scan_quals(scan);
	foreach(lc, summaries)
	{
		List	   *c = candidate_for(scan, rte->relid, lfirst(lc), quals);

		if (c != NIL)
			walk->candidates = lappend(walk->candidates, c);
	}
	return true;
}

/* The plan wrapped in the marker listing the candidates. */
static Plan *
make_marker(Plan *top, List *candidates)
{
	CustomScan *marker = makeNode(CustomScan);

	marker->scan.plan.startup_cost = top->startup_cost;
	marker->scan.plan.total_cost = top->total_cost;
	marker->scan.plan.plan_rows = top->plan_rows;
	marker->scan.plan.plan_width = top->plan_width;
	marker->scan.plan.parallel_safe = top->parallel_safe;
	marker->scan.plan.plan_node_id = -1;
	/* what a portal reads of the plan before the executor starts */
	marker->scan.plan.targetlist = top->targetlist;
	if (ExecSupportsBackwardScan(top))
		marker->flags |= CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	marker->custom_plans = list_make1(top);
	marker->custom_private = candidates;
	marker->methods = &marker_methods;
	return (Plan *) marker;
}

static PlannedStmt *
summary_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
{
	PlannedStmt *stmt;
	PlanWalk	walk;
	ListCell   *lc;

	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions, boundParams);

	if (!enable_summary_pruning || stmt->commandType != CMD_SELECT ||
		stmt->hasModifyingCTE || !summary_catalog_installed())
		return stmt;
	memset(&walk, 0, sizeof(walk));
	last_fixing.valid = false;
	walk.stmt = stmt;
	walk_scans(stmt->planTree, find_candidates, &walk);
	foreach(lc, stmt->subplans)
		walk_scans(lfirst(lc), find_candidates, &walk);
	if (walk.candidates != NIL)
		stmt->planTree = make_marker(stmt->planTree, walk.candidates);
	return stmt;
}

/* ---------------------------------------------------------------------
 * Executor start: the values, the decisions, the plan to run
 * --------------------------------------------------------------------- */

/* True if a value of the candidate is an executor parameter. */
static bool
has_exec_params(List *candidate)
{
	ListCell   *lc;
	ListCell   *s;

	for_each_from(lc, candidate, 4)
	{
		List	   *attr = lfirst(lc);

		if (!intVal(linitial(attr)))
			continue;
		foreach(s, (List *) lfourth(attr))
		{
			Node	   *e = lsecond((List *) lfirst(s));

			if (IsA(e, Param) && ((Param *) e)->paramkind == PARAM_EXEC)
				return true;
		}
	}
	return false;
}

/* The largest plan_node_id of the tree. */
static int
max_plan_node_id(Plan *plan)
{
	int			max;
	ListCell   *lc;

	if (plan == NULL)
		return -1;
	check_stack_depth();
	max = Max(plan->plan_node_id, Max(max_plan_node_id(plan->lefttree),
									  max_plan_node_id(plan->righttree)));
	if (IsA(plan, SubqueryScan))
		max = Max(max, max_plan_node_id(((SubqueryScan *) plan)->subplan));
	foreach(lc, plan_child_list(plan))
		max = Max(max, max_plan_node_id(lfirst(lc)));
	return max;
}

/*
 * The JIT flags of a statement whose estimated cost fell to cost: the
 * planner chose them for the plan before any scan was skipped, by the
 * thresholds of jit_above_cost and its siblings (standard_planner); the
 * statement keeps only those the remaining cost still passes.  A pruned
 * plan of a few scans would otherwise compile expressions for tens of
 * milliseconds to save far less.  Flags are only ever removed.
 */
static void
lower_jit_flags(PlannedStmt *stmt, Cost cost)
{
	if (!(stmt->jitFlags & PGJIT_PERFORM))
		return;
	if (jit_above_cost < 0 || cost <= jit_above_cost)
	{
		stmt->jitFlags = PGJIT_NONE;
		return;
	}
	if (jit_optimize_above_cost < 0 || cost <= jit_optimize_above_cost)
		stmt->jitFlags &= ~PGJIT_OPT3;
	if (jit_inline_above_cost < 0 || cost <= jit_inline_above_cost)
		stmt->jitFlags &= ~PGJIT_INLINE;
}

/*
 * The statement to run: the marker removed, and, if pruning is on, each
 * candidate scan the summary rules out replaced by an empty node.
 */
static PlannedStmt *
decided_statement(PlannedStmt *stmt, QueryDesc *queryDesc, int eflags)
{
	CustomScan *marker = (CustomScan *) stmt->planTree;
	PlannedStmt *result = makeNode(PlannedStmt);
	Replacement r;
	List	   *probes = NIL;
	List	   *candidates = NIL;
	List	   *guarded = NIL;
	SummaryProbe *like = NULL;
	List	   *like_candidate = NIL;
	ListCell   *lc;
	ListCell   *lp;

	memcpy(result, stmt, sizeof(PlannedStmt));
	result->planTree = linitial(marker->custom_plans);
	if (!enable_summary_pruning || queryDesc->snapshot == InvalidSnapshot ||
		summary_own_writes_prune_nothing())
		return result;
	foreach(lc, marker->custom_private)
	{
		SummaryProbe *p;

		/* rows of this transaction may be there, their keys in no summary */
		if (summary_own_rows_may_be_in(intVal(lsecond((List *) lfirst(lc))),
									   (Oid) intVal(lthird((List *) lfirst(lc)))))
			continue;
		if (has_exec_params(lfirst(lc)))
		{
			guarded = lappend(guarded, lfirst(lc));
			continue;
		}
		p = probe_like(lfirst(lc), queryDesc->params, like, like_candidate);
		if (p != NULL)
		{
			like = p;
			like_candidate = lfirst(lc);
			probes = lappend(probes, p);
			candidates = lappend(candidates, lfirst(lc));
		}
	}
	summary_decide(probes, queryDesc->snapshot);
	memset(&r, 0, sizeof(r));
	/* EXPLAIN shows every skipped scan (summary_leave_out.c) */
	r.leave_out = !(eflags & EXEC_FLAG_EXPLAIN_ONLY) && queryDesc->instrument_options == 0;
	foreach(lc, marker->custom_private)
		r.nids = Max(r.nids, intVal(linitial((List *) lfirst(lc))) + 1);
	r.keys = palloc0(sizeof(char *) * r.nids);
	r.guards = palloc0(sizeof(List *) * r.nids);
	forboth(lc, candidates, lp, probes)
	{
		List	   *c = lfirst(lc);
		int			id = intVal(linitial(c));

		if (!((SummaryProbe *) lfirst(lp))->prune || bms_is_member(id, r.ids))
			continue;
		r.ids = bms_add_member(r.ids, id);
		r.keys[id] = strVal(lfourth(c));
	}
	/* the scans decided at each start, unless skipped already */
	foreach(lc, guarded)
	{
		List	   *c = lfirst(lc);
		int			id = intVal(linitial(c));

		if (bms_is_member(id, r.ids))
			continue;
		if (r.guards[id] == NIL)
			r.keys[id] = strVal(lfourth(c));
		r.guards[id] = lappend(r.guards[id], c);
		r.guard_ids = bms_add_member(r.guard_ids, id);
	}
	if (r.ids == NULL && r.guard_ids == NULL)
		return result;
	if (r.guard_ids != NULL)
	{
		r.next_node_id = max_plan_node_id(result->planTree) + 1;
		foreach(lc, stmt->subplans)
			r.next_node_id = Max(r.next_node_id, max_plan_node_id(lfirst(lc)) + 1);
	}
	result->planTree = replace_scans(result->planTree, &r);
	/* the main tree's cost only: a subplan's is not simply part of it */
	lower_jit_flags(result, result->planTree->total_cost - r.removed_cost);
	result->subplans = NIL;
	foreach(lc, stmt->subplans)
		result->subplans = lappend(result->subplans, replace_scans(lfirst(lc), &r));
	if (r.nleft_out > 0)
		ereport(DEBUG1,
				(errmsg_internal("%d scans skipped by summary left out of the plan run",
								 r.nleft_out)));
	return result;
}

static void
summary_executor_start(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;

	bool		rewritten = false;

	/* before the first row: the trees this statement may write */
	summary_own_writes_note_statement(queryDesc);
	if (stmt != NULL && stmt->planTree != NULL && IsA(stmt->planTree, CustomScan) &&
		((CustomScan *) stmt->planTree)->methods == &marker_methods)
	{
		queryDesc->plannedstmt = decided_statement(stmt, queryDesc, eflags);
		rewritten = queryDesc->plannedstmt->planTree != linitial(((CustomScan *) stmt->planTree)->custom_plans);
	}
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
	/* for EXPLAIN: the scans skipped among each Append's children left */
	if (rewritten && queryDesc->planstate != NULL)
		(void) count_skipped(queryDesc->planstate, NULL);
}

void
summary_prune_init(void)
{
	DefineCustomBoolVariable("bloomfilter.enable_summary_pruning",
							 "Skips the partitions a managed summary rules out for the key values of a query.",
							 "Decided at executor start, under the query's snapshot: doc/summaries.md.",
							 &enable_summary_pruning, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	summary_catalog_init();
	summary_own_writes_init();
	RegisterCustomScanMethods(&marker_methods);
	summary_scan_nodes_register();
	prev_planner_hook = planner_hook;
	planner_hook = summary_planner;
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = summary_executor_start;
}
