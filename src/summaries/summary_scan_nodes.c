/*
 * summary_scan_nodes.c
 *	  The two custom scans that take a candidate scan's place in the plan
 *	  summary pruning runs (summary_prune.c): BloomSummarySkipped, the empty
 *	  node of a scan the summary ruled out at executor start, and
 *	  BloomSummaryGuard, the node above a scan whose key is fixed by an
 *	  executor parameter, decided again at each (re)start.  Their methods,
 *	  executor callbacks and EXPLAIN lines are their own file: summary_prune.c
 *	  decides which scans to replace, this file is what runs in their place.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "executor/nodeCustom.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"

#include "pg_compat.h"
#include PG_COMPAT_EXPLAIN_STATE_H
#include PG_COMPAT_EXPLAIN_FORMAT_H
#include "summaries/summary_prune_internal.h"

/*
 * Each node has its own name, scan methods, state and executor methods,
 * parallel to the other's by design (two nodes in EXPLAIN and in
 * RegisterCustomScanMethods); the scan methods stand in one table, and
 * one function creates either state.
 */
static Node *scan_node_create_state(CustomScan *cscan);

#define SKIPPED_NAME	"BloomSummarySkipped"
#define GUARD_NAME		"BloomSummaryGuard"

typedef enum ScanNode
{
	SKIPPED_NODE,
	GUARD_NODE,
} ScanNode;

/* The scan methods of both nodes: a name each, one function for their states. */
static const CustomScanMethods scan_methods[] = {
	[SKIPPED_NODE] = {.CustomName = SKIPPED_NAME, .CreateCustomScanState = scan_node_create_state},
	[GUARD_NODE] = {.CustomName = GUARD_NAME, .CreateCustomScanState = scan_node_create_state},
};

/* ---------------------------------------------------------------------
 * The empty scan: a scan the summary ruled out at executor start
 * --------------------------------------------------------------------- */

/*
 * The state of a skipped scan.  The first skipped child of an Append or
 * MergeAppend also holds how many of its children (those left after
 * partition pruning at executor start) were skipped, for EXPLAIN.
 */
typedef struct SkippedState
{
	CustomScanState css;
	int			nskipped;		/* 0: not the first skipped child */
	int			nchildren;
} SkippedState;

static void
skipped_begin(CustomScanState *node, EState *estate, int eflags)
{
}

static TupleTableSlot *
skipped_exec(CustomScanState *node)
{
	return NULL;
}

static void
skipped_end(CustomScanState *node)
{
}

static void
skipped_rescan(CustomScanState *node)
{
}

/*
 * "Skipped by Summary: <key columns>"; on the first skipped scan of an
 * Append or MergeAppend also "Partitions Skipped by Summary: N of M", the
 * scans of its M children the summary replaced.
 */
static void
skipped_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	SkippedState *state = (SkippedState *) node;

	ExplainPropertyText("Skipped by Summary", strVal(linitial(cscan->custom_private)), es);
	if (state->nskipped > 0)
		ExplainPropertyText("Partitions Skipped by Summary",
							psprintf("%d of %d", state->nskipped, state->nchildren), es);
}

static const CustomExecMethods skipped_exec_methods = {
	.CustomName = SKIPPED_NAME,
	.BeginCustomScan = skipped_begin,
	.ExecCustomScan = skipped_exec,
	.EndCustomScan = skipped_end,
	.ReScanCustomScan = skipped_rescan,
	.ExplainCustomScan = skipped_explain,
};

static bool
is_skipped_state(PlanState *ps)
{
	return IsA(ps, CustomScanState) &&
		((CustomScanState *) ps)->methods == &skipped_exec_methods;
}

/* Sets the counts of skipped children on the first of each Append's. */
bool
count_skipped(PlanState *ps, void *context)
{
	PlanState **children = NULL;
	int			n = 0;
	SkippedState *first = NULL;
	int			nskipped = 0;

	if (ps == NULL)
		return false;
	if (IsA(ps, AppendState))
	{
		children = ((AppendState *) ps)->appendplans;
		n = ((AppendState *) ps)->as_nplans;
	}
	else if (IsA(ps, MergeAppendState))
	{
		children = ((MergeAppendState *) ps)->mergeplans;
		n = ((MergeAppendState *) ps)->ms_nplans;
	}
	for (int i = 0; i < n; i++)
	{
		if (!is_skipped_state(children[i]))
			continue;
		if (first == NULL)
			first = (SkippedState *) children[i];
		nskipped++;
	}
	if (first != NULL)
	{
		first->nskipped = nskipped;
		first->nchildren = n;
	}
	return planstate_tree_walker(ps, count_skipped, context);
}

/* The empty node that takes a skipped scan's place: same relation and output. */
Plan *
make_skipped(Scan *scan, const char *keys)
{
	CustomScan *cscan = makeNode(CustomScan);

	cscan->scan.plan = scan->plan;	/* costs, output, plan_node_id, params */
	cscan->scan.plan.type = T_CustomScan;
	cscan->scan.plan.qual = NIL;
	cscan->scan.plan.lefttree = NULL;
	cscan->scan.plan.righttree = NULL;
	cscan->scan.plan.parallel_aware = false;
	cscan->scan.plan.plan_rows = 0;
	cscan->scan.scanrelid = scan->scanrelid;
	/* EXPLAIN names the relations a plan's custom scans list here */
	cscan->custom_relids = bms_make_singleton(scan->scanrelid);
	/* where the scan's output refers to a scan tuple of its own */
	if (IsA(scan, IndexOnlyScan))
		cscan->custom_scan_tlist = ((IndexOnlyScan *) scan)->indextlist;
	else if (IsA(scan, ForeignScan))
		cscan->custom_scan_tlist = ((ForeignScan *) scan)->fdw_scan_tlist;
	cscan->custom_private = list_make1(makeString(pstrdup(keys)));
	cscan->methods = &scan_methods[SKIPPED_NODE];
	return (Plan *) cscan;
}

/* ---------------------------------------------------------------------
 * The guard: a scan whose key is fixed by an executor parameter (a nested
 * loop's outer value, a correlated subquery's), decided at each rescan
 * --------------------------------------------------------------------- */

typedef struct GuardState
{
	CustomScanState css;
	PlanState  *child;			/* the scan guarded */
	List	   *candidates;		/* of the scan, see "Planning" in summary_prune.c */
	SummaryLeafFilters **filters;	/* per candidate, read at the first decision */
	bool		decided;		/* since the last (re)start */
	bool		pruned;			/* the decision: the scan returns nothing */
	bool		child_rescan;	/* the child is to be rescanned before it runs */
	int64		decisions;
	int64		prunings;
} GuardState;

/* The probe of a candidate without values: its summary, leaf and types. */
static SummaryProbe *
shape_of(List *candidate)
{
	SummaryProbe *p = summary_probe_alloc(Min(Max(list_length(candidate) - 4, 0),
											  SUMMARY_MAX_KEYS));
	ListCell   *lc;
	int			k = 0;

	p->summary_id = intVal(lsecond(candidate));
	p->leaf = (Oid) intVal(lthird(candidate));
	for_each_from(lc, candidate, 4)
	{
		List	   *attr = lfirst(lc);

		if (k >= p->nkeys)
			break;
		p->fixed[k] = intVal(linitial(attr)) != 0;
		p->valtypes[k] = (Oid) intVal(lsecond(attr));
		p->collations[k] = (Oid) intVal(lthird(attr));
		k++;
	}
	return p;
}

static void
guard_begin(CustomScanState *node, EState *estate, int eflags)
{
	GuardState *g = (GuardState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	bool		fixed;

	g->child = ExecInitNode(linitial(cscan->custom_plans), estate, eflags);
	node->custom_ps = list_make1(g->child);
	g->candidates = lsecond(cscan->custom_private);
	/* the guard returns its child's slots as they are */
	node->ss.ps.resultops = ExecGetResultSlotOps(g->child, &fixed);
	node->ss.ps.resultopsfixed = fixed;
	node->ss.ps.resultopsset = true;
}

/*
 * True if no row of the leaf can match this scan's values: under the
 * query's snapshot, the filters of some candidate's summary (read at the
 * first decision of this execution) cannot hold them.
 */
static bool
guard_prunes(GuardState *g)
{
	EState	   *estate = g->css.ss.ps.state;
	ExprContext *econtext = g->css.ss.ps.ps_ExprContext;
	int			n = list_length(g->candidates);
	bool		prune = false;
	MemoryContext old;

	if (g->filters == NULL)
	{
		old = MemoryContextSwitchTo(estate->es_query_cxt);
		g->filters = palloc0(sizeof(SummaryLeafFilters *) * n);
		for (int i = 0; i < n; i++)
			g->filters[i] = summary_leaf_load(shape_of(list_nth(g->candidates, i)),
											  estate->es_snapshot);
		MemoryContextSwitchTo(old);
	}
	ResetExprContext(econtext);
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	for (int i = 0; i < n && !prune; i++)
	{
		SummaryProbe *p = probe_of(list_nth(g->candidates, i), estate->es_param_list_info,
								   econtext);

		prune = p != NULL && !summary_leaf_may_hold(g->filters[i], p);
	}
	MemoryContextSwitchTo(old);
	return prune;
}

static TupleTableSlot *
guard_exec(CustomScanState *node)
{
	GuardState *g = (GuardState *) node;

	if (!g->decided)
	{
		Instrumentation *instr = node->ss.ps.instrument;

		g->pruned = guard_prunes(g);
		g->decided = true;
		g->decisions++;
		g->prunings += g->pruned;
		/*
		 * Under EXPLAIN ANALYZE also in the node's instrumentation, which
		 * parallel query adds up over the workers for the leader: the
		 * guard has no qual, so nothing else counts there.
		 */
		if (instr != NULL)
		{
			instr->nfiltered1 += g->pruned;
			instr->nfiltered2 += 1;
		}
	}
	if (g->pruned)
		return NULL;
	if (g->child_rescan)
	{
		g->child_rescan = false;
		/* with changed parameters, the child rescans itself when run */
		if (g->child->chgParam == NULL)
			ExecReScan(g->child);
	}
	return ExecProcNode(g->child);
}

static void
guard_end(CustomScanState *node)
{
	ExecEndNode(((GuardState *) node)->child);
}

/* A new start: decided again when next run, the child rescanned only then. */
static void
guard_rescan(CustomScanState *node)
{
	GuardState *g = (GuardState *) node;

	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(g->child, node->ss.ps.chgParam);
	g->decided = false;
	g->child_rescan = true;
}

static void
guard_mark(CustomScanState *node)
{
	GuardState *g = (GuardState *) node;

	if (!g->pruned)
		ExecMarkPos(g->child);
}

static void
guard_restore(CustomScanState *node)
{
	GuardState *g = (GuardState *) node;

	if (!g->pruned)
		ExecRestrPos(g->child);
}

/*
 * "Guarded by Summary: <key columns>"; with ANALYZE, "Scans Skipped by
 * Summary: N of M": of the M starts of the scan (in every process of a
 * parallel query; none, no line), N returned nothing without reading the
 * leaf.
 */
static void
guard_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	GuardState *g = (GuardState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Instrumentation *instr = node->ss.ps.instrument;
	int64		prunings = instr != NULL ? (int64) instr->nfiltered1 : g->prunings;
	int64		decisions = instr != NULL ? (int64) instr->nfiltered2 : g->decisions;

	ExplainPropertyText("Guarded by Summary", strVal(linitial(cscan->custom_private)), es);
	if (es->analyze && decisions > 0)
		ExplainPropertyText("Scans Skipped by Summary",
							psprintf(INT64_FORMAT " of " INT64_FORMAT, prunings, decisions),
							es);
}

static const CustomExecMethods guard_exec_methods = {
	.CustomName = GUARD_NAME,
	.BeginCustomScan = guard_begin,
	.ExecCustomScan = guard_exec,
	.EndCustomScan = guard_end,
	.ReScanCustomScan = guard_rescan,
	.MarkPosCustomScan = guard_mark,
	.RestrPosCustomScan = guard_restore,
	.ExplainCustomScan = guard_explain,
};

/*
 * The state of either node.  One function for both tables of scan methods:
 * the nodes differ in their state and executor callbacks only, so their
 * two tables of executor methods stay parallel by design.
 */
static Node *
scan_node_create_state(CustomScan *cscan)
{
	bool		guard = cscan->methods == &scan_methods[GUARD_NODE];
	Size		size = guard ? sizeof(GuardState) : sizeof(SkippedState);
	CustomScanState *state = (CustomScanState *) newNode(size, T_CustomScanState);

	state->methods = guard ? &guard_exec_methods : &skipped_exec_methods;
	return (Node *) state;
}

/*
 * The guard of a scan: same relation and output, the scan below it; its
 * own plan_node_id (parallel query finds nodes' instrumentation by id).
 */
Plan *
make_guard(Scan *scan, const char *keys, List *candidates, int plan_node_id)
{
	CustomScan *cscan = (CustomScan *) make_skipped(scan, keys);

	cscan->scan.plan.plan_rows = scan->plan.plan_rows;
	cscan->scan.plan.plan_node_id = plan_node_id;
	cscan->scan.plan.initPlan = NIL;	/* the scan's own, run by it */
	if (ExecSupportsBackwardScan((Plan *) scan))
		cscan->flags |= CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	cscan->custom_plans = list_make1(scan);
	cscan->custom_private = list_make2(linitial(cscan->custom_private), candidates);
	cscan->methods = &scan_methods[GUARD_NODE];
	return (Plan *) cscan;
}

void
summary_scan_nodes_register(void)
{
	RegisterCustomScanMethods(&scan_methods[SKIPPED_NODE]);
	RegisterCustomScanMethods(&scan_methods[GUARD_NODE]);
}
