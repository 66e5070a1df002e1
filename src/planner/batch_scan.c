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
#include "planner/batch_scan.h"
#include "planner/extension_objects.h"

#include PG_COMPAT_EXPLAIN_STATE_H
#include PG_COMPAT_EXPLAIN_FORMAT_H

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

#define EXPR_FILTER		0
#define EXPR_KEY		1
#define EXPR_PROBE		2
#define EXPR_BEFORE		3		/* and on: the quals before the probe */

static Node *create_batch_scan_state(CustomScan *cscan);

static const CustomScanMethods batch_scan_methods = {
	.CustomName = BATCH_SCAN_NAME,
	.CreateCustomScanState = create_batch_scan_state,
};

/* The quals tested before the probe, from the plan. */
static List *
plan_quals_before(CustomScan *cscan)
{
	return list_copy_tail(cscan->custom_exprs, EXPR_BEFORE);
}

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
 * Execution
 *
 * Forward, the scan reads a batch: up to BATCH_ROWS rows that pass the
 * quals tested before the probe (each tested as it is read) into a ring of
 * slots, hashes their keys and probes them together, then returns the rows
 * the filter passed one per call, in scan order; the table scan is then
 * ahead of the row returned by the rest of the batch.  Backward, it first
 * steps the table scan back to the row returned last, then reads and tests
 * one row at a time, as the plain scan does.  The row returned is the
 * node's scan tuple slot until the next call.
 * --------------------------------------------------------------------- */

typedef struct BatchScanState
{
	CustomScanState css;
	ExprState  *quals_before;	/* the quals tested before the probe, or NULL */
	ExprState  *filter_expr;	/* evaluated once per scan */
	AttrNumber	key_attno;		/* the probed column */
	BloomHasher hasher;			/* of the column's type and the collation */
	MemoryContext filter_cxt;	/* holds the filter; reset per evaluation */
	bool		filter_evaluated;	/* filter_value is this scan's filter */
	bool		filter_isnull;
	Datum		filter_value;
	const BloomFilter *filter;	/* filter_value checked and aligned; NULL
								 * until the first non-NULL key */
	ParallelTableScanDesc pscan;	/* shared, in a parallel plan */
	TupleTableSlot *own_slot;	/* the node's scan slot: a backward read's
								 * row, or empty */
	bool		at_end;			/* the last forward read found no row */
	int64		nread;			/* rows the table scan read for the batch */
	int			nbatch;			/* rows in the batch */
	int			next;			/* next row of the batch to look at */
	TupleTableSlot *slots[BATCH_ROWS];
	int64		ordinal[BATCH_ROWS];	/* with quals before the probe:
										 * slots[i] holds the batch's
										 * ordinal[i]-th row read (from 1) */
	uint64		hashes[BATCH_ROWS];
	bool		passed[BATCH_ROWS];
} BatchScanState;

static void begin_batch_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_batch_scan(CustomScanState *node);
static void end_batch_scan(CustomScanState *node);
static void rescan_batch_scan(CustomScanState *node);
static Size estimate_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt);
static void initialize_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt,
									  void *coordinate);
static void reinitialize_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt,
										void *coordinate);
static void initialize_worker_batch_scan(CustomScanState *node, shm_toc *toc,
										 void *coordinate);
static void explain_batch_scan(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomExecMethods batch_exec_methods = {
	.CustomName = BATCH_SCAN_NAME,
	.BeginCustomScan = begin_batch_scan,
	.ExecCustomScan = exec_batch_scan,
	.EndCustomScan = end_batch_scan,
	.ReScanCustomScan = rescan_batch_scan,
	.EstimateDSMCustomScan = estimate_dsm_batch_scan,
	.InitializeDSMCustomScan = initialize_dsm_batch_scan,
	.ReInitializeDSMCustomScan = reinitialize_dsm_batch_scan,
	.InitializeWorkerCustomScan = initialize_worker_batch_scan,
	.ExplainCustomScan = explain_batch_scan,
};

static Node *
create_batch_scan_state(CustomScan *cscan)
{
	BatchScanState *state = palloc0(sizeof(BatchScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &batch_exec_methods;
#if PG_CUSTOM_SCAN_HAS_SLOT_OPS
	/* the scan returns the table's own slots (a heap table: planned so) */
	state->css.slotOps = &TTSOpsBufferHeapTuple;
#endif
	return (Node *) state;
}

#if !PG_CUSTOM_SCAN_HAS_SLOT_OPS
/*
 * Before PostgreSQL 16 the scan slot of a custom scan is virtual, and the
 * quals and projection are compiled for virtual slots.  This scan returns
 * the table's buffer heap slots: set them up again for those.
 */
static void
use_table_slots(BatchScanState *state, EState *estate)
{
	ScanState  *ss = &state->css.ss;

	ExecInitScanTupleSlot(estate, ss, RelationGetDescr(ss->ss_currentRelation),
						  table_slot_callbacks(ss->ss_currentRelation));
	ExecAssignScanProjectionInfoWithVarno(ss, ((Scan *) ss->ps.plan)->scanrelid);
	ss->ps.qual = ExecInitQual(ss->ps.plan->qual, &ss->ps);
}
#endif

static void
begin_batch_scan(CustomScanState *node, EState *estate, int eflags)
{
	BatchScanState *state = (BatchScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	Var		   *key = list_nth_node(Var, cscan->custom_exprs, EXPR_KEY);

	if (table_slot_callbacks(rel) != &TTSOpsBufferHeapTuple)
		elog(ERROR, "batched probe scan of \"%s\": not a heap table",
			 RelationGetRelationName(rel));
#if !PG_CUSTOM_SCAN_HAS_SLOT_OPS
	use_table_slots(state, estate);
#endif
	state->own_slot = node->ss.ss_ScanTupleSlot;
	state->quals_before = ExecInitQual(plan_quals_before(cscan), &node->ss.ps);
	state->filter_expr = ExecInitExpr(list_nth(cscan->custom_exprs, EXPR_FILTER),
									  &node->ss.ps);
	state->key_attno = key->varattno;
	state->filter_cxt = AllocSetContextCreate(estate->es_query_cxt, "bloom batch scan filter",
											  ALLOCSET_DEFAULT_SIZES);
	for (int i = 0; i < BATCH_ROWS; i++)
		state->slots[i] = table_slot_create(rel, &estate->es_tupleTable);
}

/*
 * A private copy of a filter whose words start on a 64-byte boundary, so a
 * block of the blocked layout is one cache line (as the probes of
 * bloom_contains see it, bloomfilter.c).
 */
static const BloomFilter *
aligned_filter(const BloomFilter *f)
{
	Size		bytes = VARSIZE(f);
	char	   *mem;
	BloomFilter *copy;

	if ((uintptr_t) f % 64 == 0)
		return f;
	mem = palloc(bytes + 64);
	copy = (BloomFilter *) TYPEALIGN(64, mem);
	memcpy(copy, f, bytes);
	return copy;
}

/*
 * Evaluates the filter for this scan.  Called at the first row that passes
 * the quals before the probe, where the plain scan first evaluates the
 * probe's arguments: when no row does, the filter is never evaluated (its
 * InitPlan does not run).
 */
static void
evaluate_filter(BatchScanState *state)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	MemoryContext old;

	MemoryContextReset(state->filter_cxt);
	state->filter = NULL;
	old = MemoryContextSwitchTo(state->filter_cxt);
	state->filter_value = ExecEvalExpr(state->filter_expr, econtext, &state->filter_isnull);
	MemoryContextSwitchTo(old);
	state->filter_evaluated = true;
}

/*
 * Sets up the key's hasher and checks the filter, detoasted and aligned
 * once.  Called at the first non-NULL key a non-NULL filter probes, where
 * bloom_contains (strict) is first called and meets the same errors in the
 * same order: a NULL key or filter never needs the key type's hash
 * function.
 */
static void
prepare_filter(BatchScanState *state)
{
	CustomScan *cscan = (CustomScan *) state->css.ss.ps.plan;
	Var		   *key = list_nth_node(Var, cscan->custom_exprs, EXPR_KEY);
	const BloomFilter *detoasted;
	MemoryContext old;

	if (state->hasher.kind == BLOOM_HASH_UNSET)
		bloom_hasher_init(&state->hasher, key->vartype, linitial_oid(cscan->custom_private),
						  state->css.ss.ps.state->es_query_cxt);
	old = MemoryContextSwitchTo(state->filter_cxt);
	detoasted = filter_from_datum(state->filter_value, &bloom_type);
	state->filter = aligned_filter(detoasted);
	/* a detoasted copy copied again would hold memory for the whole scan */
	if (state->filter != detoasted && (Pointer) detoasted != DatumGetPointer(state->filter_value))
		pfree((void *) detoasted);
	MemoryContextSwitchTo(old);
}

/* The table scan, started on first use when no parallel scan started it. */
static TableScanDesc
table_scan(BatchScanState *state)
{
	ScanState  *ss = &state->css.ss;

	if (ss->ss_currentScanDesc == NULL)
		ss->ss_currentScanDesc = table_beginscan(ss->ss_currentRelation,
												 ss->ps.state->es_snapshot, 0, NULL);
	return ss->ss_currentScanDesc;
}

/*
 * True if a row passes the quals the plain scan tests before the probe; a
 * row that does not counts in "Rows Removed by Filter".
 */
static inline bool
passes_quals_before(BatchScanState *state, TupleTableSlot *slot)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	if (state->quals_before == NULL)
		return true;
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	if (ExecQual(state->quals_before, econtext))
		return true;
	InstrCountFiltered1(&state->css.ss, 1);
	return false;
}

/*
 * True if the filter can probe the keys of these rows: it is not NULL and,
 * when one of the keys is not NULL, prepared (prepare_filter) if it was
 * not yet.  Evaluates the filter first if this scan has not.
 */
static bool
filter_ready(BatchScanState *state, TupleTableSlot **slots, int n)
{
	if (!state->filter_evaluated)
		evaluate_filter(state);
	if (state->filter_isnull)
		return false;
	if (likely(state->filter != NULL))
		return true;
	for (int i = 0; i < n; i++)
		if (!slot_attisnull(slots[i], state->key_attno))
		{
			prepare_filter(state);
			return true;
		}
	return false;
}

/*
 * The probed column's hash of a row, or false if it is NULL; filter_ready
 * has seen the row.
 */
static inline bool
key_hash(BatchScanState *state, TupleTableSlot *slot, uint64 *hash)
{
	bool		isnull;
	Datum		key = slot_getattr(slot, state->key_attno, &isnull);

	if (isnull)
		return false;
	*hash = bloom_hasher_value_hash(&state->hasher, key, state->filter->seed,
									state->filter->hash_scheme);
	return true;
}

/*
 * The probe of one row, as bloom_contains answers it (NULL counting as
 * false), hashed in the per-tuple context.
 */
static bool
probe_row(BatchScanState *state, TupleTableSlot *slot)
{
	MemoryContext old;
	uint64		hash;
	bool		member;

	if (!filter_ready(state, &slot, 1))
		return false;
	old = MemoryContextSwitchTo(state->css.ss.ps.ps_ExprContext->ecxt_per_tuple_memory);
	member = key_hash(state, slot, &hash) && bf_contains_value(state->filter, hash);
	MemoryContextSwitchTo(old);
	return member;
}

/*
 * Probes the n rows of the batch together: sets passed[].  Keys are hashed
 * in the per-tuple context, which ExecScan resets (a type hashed through
 * fmgr may allocate).
 */
static void
probe_batch(BatchScanState *state, int n)
{
	MemoryContext old;
	bool		nonnull[BATCH_ROWS];
	bool		some_null = false;
	int			npassed;

	if (!filter_ready(state, state->slots, n))
	{
		/* a NULL filter or NULL keys: nothing passes (bloom_contains is strict) */
		memset(state->passed, 0, n * sizeof(bool));
		InstrCountFiltered2(&state->css.ss, n);
		return;
	}
	old = MemoryContextSwitchTo(state->css.ss.ps.ps_ExprContext->ecxt_per_tuple_memory);
	for (int i = 0; i < n; i++)
	{
		nonnull[i] = key_hash(state, state->slots[i], &state->hashes[i]);
		if (!nonnull[i])
		{
			state->hashes[i] = 0;
			some_null = true;
		}
	}
	MemoryContextSwitchTo(old);
	npassed = bf_probe_batch(state->filter, state->hashes, n, state->passed);
	for (int i = 0; some_null && i < n; i++)
		if (state->passed[i] && !nonnull[i])
		{
			/* NULL is never a member (bloom_contains answers NULL) */
			state->passed[i] = false;
			npassed--;
		}
	InstrCountFiltered2(&state->css.ss, n - npassed);
}

/*
 * Reads the next row into slot; false at the end of the table.  The heap
 * scan stores every row it returns through one tuple header of its own
 * (the scan's current tuple), which the next row overwrites; a row kept in
 * the ring while later rows are read gets its own copy of the header.  The
 * row's data stays where it is, in the page the slot keeps pinned.
 */
static inline bool
read_row(TableScanDesc scan, TupleTableSlot *slot)
{
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;

	if (!table_scan_getnextslot(scan, ForwardScanDirection, slot))
		return false;
	bslot->base.tupdata = *bslot->base.tuple;
	bslot->base.tuple = &bslot->base.tupdata;
	return true;
}

/*
 * Reads up to BATCH_ROWS rows into the ring: the number read.  Without
 * quals before the probe, every row read joins the batch (slots[i] holds
 * the batch's (i + 1)-th row read).
 */
static int
read_rows(BatchScanState *state, TableScanDesc scan)
{
	int			n = 0;

	while (n < BATCH_ROWS && read_row(scan, state->slots[n]))
		n++;
	state->nread = n;
	return n;
}

/*
 * Reads rows until BATCH_ROWS of them pass the quals before the probe, or
 * the table ends: the number that passed, whose places among the rows read
 * go to ordinal[].
 */
static int
read_rows_passing(BatchScanState *state, TableScanDesc scan)
{
	int			n = 0;

	state->nread = 0;
	while (n < BATCH_ROWS && read_row(scan, state->slots[n]))
	{
		state->nread++;
		if (passes_quals_before(state, state->slots[n]))
			state->ordinal[n++] = state->nread;
		else
			CHECK_FOR_INTERRUPTS();
	}
	return n;
}

/* Reads the next batch and probes it; false at the end of the table. */
static bool
read_batch(BatchScanState *state)
{
	TableScanDesc scan = table_scan(state);
	int			n;

	state->nbatch = 0;
	state->next = 0;
	state->nread = 0;
	if (state->at_end)
		return false;
	n = state->quals_before == NULL ? read_rows(state, scan) : read_rows_passing(state, scan);
	state->at_end = n < BATCH_ROWS;
	if (n == 0)
		return false;
	probe_batch(state, n);
	state->nbatch = n;
	return true;
}

/* The next row of the batches that the filter passed, or NULL at the end. */
static TupleTableSlot *
next_batched_row(BatchScanState *state)
{
	for (;;)
	{
		while (state->next < state->nbatch)
		{
			int			i = state->next++;

			if (state->passed[i])
				return state->slots[i];
		}
		if (!read_batch(state))
			return NULL;
	}
}

/*
 * Steps the table scan back to the row returned last, which a forward read
 * leaves behind by the rest of the batch, plus one if it met the end of the
 * table (a heap scan past its end starts a backward read at the last row).
 * Empties the batch.
 */
static void
step_back_to_current_row(BatchScanState *state, TableScanDesc scan)
{
	if (state->nbatch > 0)
	{
		int64		steps;

		Assert(state->next > 0);
		steps = state->nread + (state->at_end ? 1 : 0) -
			(state->quals_before == NULL ? state->next : state->ordinal[state->next - 1]);
		while (steps-- > 0)
			if (!table_scan_getnextslot(scan, BackwardScanDirection, state->own_slot))
				elog(ERROR, "batched probe scan: the table scan lost its place");
		for (int i = 0; i < state->nbatch; i++)
			ExecClearTuple(state->slots[i]);
	}
	state->nbatch = 0;
	state->next = 0;
	state->nread = 0;
	state->at_end = false;
}

/*
 * The previous row that passes the quals before the probe and the probe,
 * read backward one row at a time as the plain scan reads it; NULL at the
 * start of the table.
 */
static TupleTableSlot *
prev_passed_row(BatchScanState *state)
{
	TableScanDesc scan = table_scan(state);
	TupleTableSlot *slot = state->own_slot;

	step_back_to_current_row(state, scan);
	while (table_scan_getnextslot(scan, BackwardScanDirection, slot))
	{
		if (passes_quals_before(state, slot))
		{
			if (probe_row(state, slot))
				return slot;
			InstrCountFiltered2(&state->css.ss, 1);
		}
		CHECK_FOR_INTERRUPTS();
	}
	return NULL;
}

/*
 * ExecScan's access method: the next row in the executor's direction that
 * passes the quals before the probe and the probe, or NULL.  The row is
 * left in the node's scan tuple slot, where WHERE CURRENT OF reads the
 * cursor's current row (execCurrent.c), and an empty slot at either end.
 */
static TupleTableSlot *
next_passed_row(ScanState *ss)
{
	BatchScanState *state = (BatchScanState *) ss;
	TupleTableSlot *slot;

	if (ScanDirectionIsBackward(ss->ps.state->es_direction))
		slot = prev_passed_row(state);
	else
		slot = next_batched_row(state);
	ss->ss_ScanTupleSlot = slot != NULL ? slot : ExecClearTuple(state->own_slot);
	return slot;
}

/*
 * ExecScan's recheck (EvalPlanQual): the quals before the probe and the
 * probe of one row.
 */
static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	BatchScanState *state = (BatchScanState *) ss;

	return passes_quals_before(state, slot) && probe_row(state, slot);
}

static TupleTableSlot *
exec_batch_scan(CustomScanState *node)
{
	return ExecScan(&node->ss, next_passed_row, recheck_row);
}

/* Empties the batch and the scan slot: the scan is on no row. */
static void
clear_rows(BatchScanState *state)
{
	for (int i = 0; i < BATCH_ROWS; i++)
		ExecClearTuple(state->slots[i]);
	state->css.ss.ss_ScanTupleSlot = ExecClearTuple(state->own_slot);
	state->nbatch = 0;
	state->next = 0;
	state->nread = 0;
	state->at_end = false;
}

static void
end_batch_scan(CustomScanState *node)
{
	clear_rows((BatchScanState *) node);
	if (node->ss.ss_currentScanDesc != NULL)
		table_endscan(node->ss.ss_currentScanDesc);
}

/* Rescans read the table again; a changed parameter changes the filter. */
static void
rescan_batch_scan(CustomScanState *node)
{
	BatchScanState *state = (BatchScanState *) node;

	clear_rows(state);
	if (node->ss.ps.chgParam != NULL)
		state->filter_evaluated = false;
	if (node->ss.ss_currentScanDesc != NULL)
		table_rescan(node->ss.ss_currentScanDesc, NULL);
}

/* ---- parallel scans: the table shared as nodeSeqscan.c shares it ---- */

static Size
estimate_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt)
{
	return table_parallelscan_estimate(node->ss.ss_currentRelation,
									   node->ss.ps.state->es_snapshot);
}

static void
initialize_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	BatchScanState *state = (BatchScanState *) node;

	state->pscan = (ParallelTableScanDesc) coordinate;
	table_parallelscan_initialize(node->ss.ss_currentRelation, state->pscan,
								  node->ss.ps.state->es_snapshot);
	node->ss.ss_currentScanDesc = table_beginscan_parallel(node->ss.ss_currentRelation,
														   state->pscan);
}

static void
reinitialize_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	table_parallelscan_reinitialize(node->ss.ss_currentRelation,
									(ParallelTableScanDesc) coordinate);
}

static void
initialize_worker_batch_scan(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	BatchScanState *state = (BatchScanState *) node;

	state->pscan = (ParallelTableScanDesc) coordinate;
	node->ss.ss_currentScanDesc = table_beginscan_parallel(node->ss.ss_currentRelation,
														   state->pscan);
}

/* ---- EXPLAIN: the probe, the quals before it, and with ANALYZE the rows they removed ---- */

static Oid
operator_namespace(Oid opno)
{
	HeapTuple	tuple = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	Oid			namespace;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for operator %u", opno);
	namespace = ((Form_pg_operator) GETSTRUCT(tuple))->oprnamespace;
	ReleaseSysCache(tuple);
	return namespace;
}

/* A function's or operator's name as SQL would write it from here. */
static char *
qualified_name(const char *name, Oid namespace, bool visible)
{
	if (visible)
		return pstrdup(quote_identifier(name));
	return quote_qualified_identifier(get_namespace_name(namespace), name);
}

/*
 * The probe as EXPLAIN shows it.  A constant filter is shown by its size,
 * not its bytes: a filter of megabytes (as a remote server receives a
 * shipped one) would otherwise fill the plan and the logs.
 */
static char *
probe_text(Expr *probe, Const *filter, const char *key)
{
	char		size[64];

	snprintf(size, sizeof(size), "<constant filter, %s>",
			 filter->constisnull ? "NULL"
			 : psprintf("%zu bytes", toast_raw_datum_size(filter->constvalue)));
	if (IsA(probe, OpExpr))
	{
		Oid			opno = ((OpExpr *) probe)->opno;
		char	   *name = get_opname(opno);
		bool		filter_first = equal(linitial(((OpExpr *) probe)->args), filter);

		if (!OperatorIsVisible(opno))
			name = psprintf("OPERATOR(%s.%s)",
							quote_identifier(get_namespace_name(operator_namespace(opno))), name);
		return filter_first ? psprintf("(%s %s %s)", size, name, key)
			: psprintf("(%s %s %s)", key, name, size);
	}
	else
	{
		Oid			funcid = ((FuncExpr *) probe)->funcid;
		char	   *name = qualified_name(get_func_name(funcid), get_func_namespace(funcid),
										  FunctionIsVisible(funcid));

		return equal(linitial(((FuncExpr *) probe)->args), filter)
			? psprintf("%s(%s, %s)", name, size, key)
			: psprintf("%s(%s, %s)", name, key, size);
	}
}

static void
explain_batch_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Expr	   *probe = list_nth(cscan->custom_exprs, EXPR_PROBE);
	Node	   *filter = list_nth(cscan->custom_exprs, EXPR_FILTER);
	List	   *before = plan_quals_before(cscan);
	List	   *context;

	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
	if (IsA(filter, Const))
		ExplainPropertyText("Bloom Filter",
							probe_text(probe, (Const *) filter,
									   deparse_expression(list_nth(cscan->custom_exprs, EXPR_KEY),
														  context, es->verbose, false)),
							es);
	else
		ExplainPropertyText("Bloom Filter",
							deparse_expression((Node *) probe, context, es->verbose, false), es);
	if (before != NIL)
		ExplainPropertyText("Filter Before Bloom Filter",
							deparse_expression((Node *) make_ands_explicit(before), context,
											   es->verbose, false), es);
	if (es->analyze && node->ss.ps.instrument != NULL)
	{
		Instrumentation *instr = node->ss.ps.instrument;
		double		nloops = instr->nloops;

		/* explain.c shows the rows the quals removed only with a Filter */
		if (before != NIL && cscan->scan.plan.qual == NIL &&
			(instr->nfiltered1 > 0 || es->format != EXPLAIN_FORMAT_TEXT))
			ExplainPropertyFloat("Rows Removed by Filter", NULL,
								 nloops > 0 ? instr->nfiltered1 / nloops : 0.0, 0, es);
		ExplainPropertyFloat("Rows Removed by Bloom Filter", NULL,
							 nloops > 0 ? instr->nfiltered2 / nloops : 0.0, 0, es);
	}
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
