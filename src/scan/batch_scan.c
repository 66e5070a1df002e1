/*
 * batch_scan.c
 *	  The batched probe scan (custom scan "BloomBatchScan"): a sequential
 *	  scan of a table whose quals hold bloom_contains(filter, column), or
 *	  filter @> column, column <@ filter, that probes the filter a batch of
 *	  rows at a time.
 *
 *	  Why: a filter larger than the CPU caches costs one memory miss per row
 *	  probed, and the executor evaluates a qual one row at a time, so the
 *	  misses never overlap.  This scan reads BATCH_ROWS rows into a ring of
 *	  slots, hashes their keys, and lets the core probe them together
 *	  (bf_probe_batch: every cache line prefetched before the first test),
 *	  then runs the remaining quals and the projection on the rows the
 *	  filter passed, in scan order.
 *
 *	  A statement does with it exactly what it does with the plain
 *	  sequential scan: the same rows in the same order, the same errors and
 *	  side effects, and the same cursor behaviour.
 *	  - Quals: the plain scan tests a row's quals in the planner's order
 *	    (order_qual_clauses).  The quals placed before the probe are tested
 *	    on each row as it is read, before it joins a batch; the others run
 *	    after the probe, on the rows returned, one at a time.  Testing the
 *	    first ones ahead, on rows the plain scan may never reach (a LIMIT, a
 *	    cursor fetched in pieces), must be unobservable: the scan is offered
 *	    only when each of them is free of volatile functions, subplans and
 *	    functions that are not leakproof (which may fail, or tell, on some
 *	    values).  The filter is evaluated at the first row that passes them,
 *	    and checked, with the key type's hash function looked up, at the
 *	    first such row with a non-NULL key: where bloom_contains would meet
 *	    them.
 *	  - Cursors: the row returned is the node's scan tuple slot
 *	    (ss_ScanTupleSlot), empty between scans, so WHERE CURRENT OF finds
 *	    it (execCurrent.c); and the scan runs backward, a row at a time, so
 *	    a SCROLL cursor keeps it (without a Material node on top, which
 *	    WHERE CURRENT OF cannot see through) and a cursor declared without
 *	    SCROLL or NO SCROLL may fetch backward as with the plain scan.
 *
 *	  Where it is offered (the planner hook): a plain heap table scanned
 *	  sequentially, a probe whose filter is evaluated once per scan (a
 *	  constant, a bind parameter, the InitPlan of the semijoin recipe: any
 *	  expression without Vars, volatile functions or subplans) and whose
 *	  value is a plain column of the table, quals before the probe as said
 *	  above, and a query that locks no rows and modifies nothing (so
 *	  EvalPlanQual never re-runs it; the recheck below is still exact).  The
 *	  partial sequential scan gets a parallel-aware twin that shares the
 *	  table through a ParallelTableScanDesc, as nodeSeqscan.c does.
 *
 *	  Costs: the path costs what the sequential scan costs, less the
 *	  per-row cost of the probe it takes over, plus the per-row cost of a
 *	  batched probe (cheaper: no function call, and the misses overlap), on
 *	  the rows that reach the probe, so the planner chooses it exactly where
 *	  the plain scan would evaluate the probe.  bloomfilter.enable_batch_scan
 *	  = off keeps it out.
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/detoast.h"
#include "access/tableam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_operator.h"
#include "catalog/namespace.h"
#include "catalog/pg_proc.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "types/bloomfilter.h"
#include "scan/batch_scan.h"
#include "scan/batch_scan_internal.h"
#include "helpers/extension_objects.h"

#include PG_COMPAT_EXPLAIN_STATE_H
#include PG_COMPAT_EXPLAIN_FORMAT_H

/*
 * The batched probe's cost per row, as a share of the plain probe's (the
 * function call, the argument cache and the miss it takes over): measured
 * at 0.2-0.5 (doc/performance.md), and never above 1, since the batch does
 * the plain probe's work less the call; costed at 0.9, so the planner
 * prefers the batched scan by a margin the measurements cover.
 */
#define BATCH_PROBE_COST_SHARE	0.9

static bool enable_batch_scan = true;
static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

/* ---------------------------------------------------------------------
 * Recognizing a probe
 * --------------------------------------------------------------------- */

/* A probe clause taken apart: the filter, the probed column, the collation. */
typedef struct ProbeParts
{
	Expr	   *filter;
	Var		   *key;
	Oid			collation;
} ProbeParts;

/*
 * Which argument of funcid holds the filter, if funcid is one of this
 * library's probes: 0 for bloom_contains (and @>), 1 for
 * bloom_contained_by (<@); -1 for any other function.  The functions are
 * the extension's own, found in its schema by extension_objects.c, so this
 * holds whatever the search_path and never matches a function of another
 * extension or of the user that shares a name.
 */
static int
probe_filter_argno(Oid funcid)
{
	Oid			bloom_type = extension_type("bloom");
	Oid			contains_args[2] = {bloom_type, ANYELEMENTOID};
	Oid			contained_args[2] = {ANYELEMENTOID, bloom_type};

	if (!OidIsValid(bloom_type))
		return -1;
	if (funcid == extension_function("bloom_contains", 2, contains_args))
		return 0;
	if (funcid == extension_function("bloom_contained_by", 2, contained_args))
		return 1;
	return -1;
}

/* A filter argument evaluated once per scan: no Vars, nothing volatile, no subplan. */
static bool
filter_is_scan_constant(Node *filter)
{
	return !contain_var_clause(filter) && !contain_volatile_functions(filter) &&
		!contain_subplans(filter);
}

/*
 * True if clause is a probe of a plain user column of relation relid by a
 * filter fixed for the scan; fills parts.
 */
static bool
probe_clause_parts(Expr *clause, Index relid, ProbeParts *parts)
{
	Oid			funcid;
	List	   *args;
	Oid			collation;
	int			filter_argno;
	Node	   *filter;
	Node	   *key;

	if (IsA(clause, FuncExpr))
	{
		funcid = ((FuncExpr *) clause)->funcid;
		args = ((FuncExpr *) clause)->args;
		collation = ((FuncExpr *) clause)->inputcollid;
	}
	else if (IsA(clause, OpExpr))
	{
		set_opfuncid((OpExpr *) clause);
		funcid = ((OpExpr *) clause)->opfuncid;
		args = ((OpExpr *) clause)->args;
		collation = ((OpExpr *) clause)->inputcollid;
	}
	else
		return false;
	if (list_length(args) != 2 || (filter_argno = probe_filter_argno(funcid)) < 0)
		return false;
	filter = list_nth(args, filter_argno);
	key = list_nth(args, 1 - filter_argno);
	if (!IsA(key, Var) || ((Var *) key)->varno != relid ||
		((Var *) key)->varlevelsup != 0 || ((Var *) key)->varattno <= 0 ||
		!filter_is_scan_constant(filter))
		return false;
	parts->filter = (Expr *) filter;
	parts->key = (Var *) key;
	parts->collation = collation;
	return true;
}

/*
 * A clause's place in the order in which the plain scan tests its quals
 * (order_qual_clauses, createplan.c): by security level, a cheap leakproof
 * clause counting as level 0, then by cost per row; clauses of equal place
 * keep the order of the list.
 */
typedef struct QualPlace
{
	Index		security_level;
	Cost		cost;
} QualPlace;

static QualPlace
qual_place(PlannerInfo *root, RestrictInfo *ri)
{
	QualCost	cost;
	QualPlace	place;

	cost_qual_eval_node(&cost, (Node *) ri, root);
	place.cost = cost.per_tuple;
	place.security_level = ri->leakproof && place.cost < 10 * cpu_operator_cost
		? 0 : ri->security_level;
	return place;
}

static bool
place_before(QualPlace a, QualPlace b)
{
	return a.security_level < b.security_level ||
		(a.security_level == b.security_level && a.cost < b.cost);
}

/*
 * The probe the plain scan tests first among a relation's restriction
 * clauses, or NULL.  A probe written above a security barrier (row-level
 * security, a security_barrier view), whose quals run first, is not taken:
 * the plain scan keeps those.
 */
static RestrictInfo *
find_probe(PlannerInfo *root, RelOptInfo *rel)
{
	RestrictInfo *first = NULL;
	QualPlace	first_place = {0};
	ListCell   *lc;

	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		ProbeParts	parts;
		QualPlace	place;

		if (ri->pseudoconstant || ri->security_level > rel->baserestrict_min_security ||
			!probe_clause_parts(ri->clause, rel->relid, &parts))
			continue;
		place = qual_place(root, ri);
		if (first == NULL || place_before(place, first_place))
		{
			first = ri;
			first_place = place;
		}
	}
	return first;
}

/*
 * True if testing clause on a row ahead of the plain scan's time is
 * unobservable: nothing volatile (no side effect, the same answer), no
 * subplan, and no function applied to the row's values that is not
 * leakproof (a leakproof function raises no error that depends on its
 * arguments; division, casts and most others may).
 */
static bool
testable_ahead(RestrictInfo *ri)
{
	Node	   *clause = (Node *) ri->clause;

	return !contain_volatile_functions(clause) && !contain_subplans(clause) &&
		!contain_leaked_vars(clause);
}

/*
 * The quals the plain scan tests before the probe, in *before; false if one
 * of them cannot be tested ahead (testable_ahead), so the scan cannot
 * batch the probe without changing what the statement does.
 */
static bool
quals_before_probe(PlannerInfo *root, RelOptInfo *rel, RestrictInfo *probe, List **before)
{
	QualPlace	probe_place = qual_place(root, probe);
	bool		after_probe_in_list = false;
	ListCell   *lc;

	*before = NIL;
	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		QualPlace	place;

		if (ri == probe)
		{
			after_probe_in_list = true;
			continue;
		}
		if (ri->pseudoconstant)
			continue;
		place = qual_place(root, ri);
		if (place_before(place, probe_place) ||
			(!after_probe_in_list && !place_before(probe_place, place)))
		{
			if (!testable_ahead(ri))
				return false;
			*before = lappend(*before, ri);
		}
	}
	return true;
}

/* ---------------------------------------------------------------------
 * Paths
 * --------------------------------------------------------------------- */

static Plan *plan_batch_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
							 List *tlist, List *clauses, List *custom_plans);

static const CustomPathMethods batch_path_methods = {
	.CustomName = BATCH_SCAN_NAME,
	.PlanCustomPath = plan_batch_scan,
};

/* True if the relation is a heap table (its slots are buffer heap slots). */
static bool
is_heap_table(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		heap;

	if (!HeapTupleIsValid(tuple))
		return false;
	heap = ((Form_pg_class) GETSTRUCT(tuple))->relam == HEAP_TABLE_AM_OID;
	ReleaseSysCache(tuple);
	return heap;
}

/* True if the query may lock or modify rows, so EvalPlanQual could re-run a scan. */
static bool
query_may_recheck(PlannerInfo *root)
{
	return root->parse->commandType != CMD_SELECT || root->rowMarks != NIL ||
		root->parse->rowMarks != NIL;
}

/*
 * The batched twin of a sequential scan path: the same rows, parallelism
 * and disabled state, and the cost less what batching saves on the rows
 * that reach the probe (the rows scanned, for a partial path the share of
 * one process, that pass the quals tested before it).  A serial scan runs
 * backward too.
 */
static CustomPath *
batch_path_from(PlannerInfo *root, RelOptInfo *rel, Path *seqscan, RestrictInfo *probe,
				List *before)
{
	CustomPath *cpath = makeNode(CustomPath);
	QualCost	probe_cost;
	double		probed;
	double		saved;

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = seqscan->pathtarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = seqscan->parallel_aware;
	cpath->path.parallel_safe = seqscan->parallel_safe;
	cpath->path.parallel_workers = seqscan->parallel_workers;
	cpath->path.rows = seqscan->rows;
	cpath->path.pathkeys = NIL;
	path_copy_disabled_nodes(&cpath->path, seqscan);

	cost_qual_eval_node(&probe_cost, (Node *) probe->clause, root);
	probed = rel->tuples;
	if (rel->rows > 0 && seqscan->parallel_aware)
		probed *= Min(1.0, seqscan->rows / rel->rows);
	if (before != NIL)
		probed *= clauselist_selectivity(root, before, 0, JOIN_INNER, NULL);
	saved = probed * probe_cost.per_tuple * (1.0 - BATCH_PROBE_COST_SHARE);
	cpath->path.startup_cost = seqscan->startup_cost + probe_cost.startup;
	cpath->path.total_cost = Max(cpath->path.startup_cost, seqscan->total_cost - saved);

	if (!seqscan->parallel_aware)
		cpath->flags |= CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
#ifdef CUSTOMPATH_SUPPORT_PROJECTION
	cpath->flags |= CUSTOMPATH_SUPPORT_PROJECTION;
#endif
	cpath->custom_private = list_make2(probe, before);
	cpath->methods = &batch_path_methods;
	return cpath;
}

/* The unparameterized sequential scan among paths, or NULL. */
static Path *
find_seqscan(List *paths)
{
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path->pathtype == T_SeqScan && path->param_info == NULL)
			return path;
	}
	return NULL;
}

static void
batch_scan_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	RestrictInfo *probe;
	List	   *before;
	Path	   *seqscan;
	Path	   *partial;

	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);

	if (!enable_batch_scan ||
		(rel->reloptkind != RELOPT_BASEREL && rel->reloptkind != RELOPT_OTHER_MEMBER_REL) ||
		rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_RELATION ||
		rte->tablesample != NULL || rel->baserestrictinfo == NIL ||
		query_may_recheck(root))
		return;
	if ((probe = find_probe(root, rel)) == NULL || !is_heap_table(rte->relid) ||
		!quals_before_probe(root, rel, probe, &before))
		return;

	/* both found before add_path, which may free the paths it beats */
	seqscan = find_seqscan(rel->pathlist);
	partial = find_seqscan(rel->partial_pathlist);
	if (seqscan != NULL)
		add_path(rel, (Path *) batch_path_from(root, rel, seqscan, probe, before));
	if (partial != NULL && partial->parallel_aware)
		add_partial_path(rel, (Path *) batch_path_from(root, rel, partial, probe, before));
}

/* ---------------------------------------------------------------------
 * Plan
 *
 * custom_exprs: the filter, the probed column, the whole probe clause (for
 * EXPLAIN), then the quals tested before the probe, so that setrefs.c
 * fixes the Params and Vars in them.  The plan's qual: the quals tested
 * after it, in the planner's order.
 * --------------------------------------------------------------------- */

static const CustomScanMethods batch_scan_methods = {
	.CustomName = BATCH_SCAN_NAME,
	.CreateCustomScanState = batch_scan_create_state,
};

static Plan *
plan_batch_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				List *tlist, List *clauses, List *custom_plans)
{
	RestrictInfo *probe = linitial_node(RestrictInfo, best_path->custom_private);
	List	   *before = lsecond(best_path->custom_private);
	CustomScan *cscan = makeNode(CustomScan);
	List	   *quals = NIL;
	ProbeParts	parts;
	ListCell   *lc;

	if (!probe_clause_parts(probe->clause, rel->relid, &parts))
		elog(ERROR, "batched probe scan: the probe clause is no longer recognized");

	cscan->custom_exprs = list_make3(parts.filter, parts.key, probe->clause);
	foreach(lc, before)
		cscan->custom_exprs = lappend(cscan->custom_exprs, lfirst_node(RestrictInfo, lc)->clause);

	/* the quals after the probe, in the order the planner gave them */
	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (ri != probe && !ri->pseudoconstant && !list_member_ptr(before, ri))
			quals = lappend(quals, ri->clause);
	}

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = quals;
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_private = list_make1_oid(parts.collation);
	cscan->methods = &batch_scan_methods;
	return &cscan->scan.plan;
}
/* ---------------------------------------------------------------------
 * Registration
 * --------------------------------------------------------------------- */

void
bloom_scan_init(void)
{
	DefineCustomBoolVariable("bloomfilter.enable_batch_scan",
							 "Lets the planner scan tables filtered by bloom_contains with the batched probe scan.",
							 "The batched scan probes the filter for many rows at once, so the cache misses of a large filter overlap.",
							 &enable_batch_scan,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	RegisterCustomScanMethods(&batch_scan_methods);
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = batch_scan_pathlist;
}
