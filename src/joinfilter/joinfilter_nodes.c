/*
 * joinfilter_nodes.c
 *	  The two custom scans of a runtime join filter: JoinFilterBuild, between
 *	  a Hash node and its child, which passes every row on unchanged and adds
 *	  its key to the filter; and JoinFilterProbe, above a plan of the join's
 *	  outer side, which drops a row whose key the filter surely lacks.  Both
 *	  hash with the join's own hash functions, so a key the join would find
 *	  equal is a key the filter holds.  joinfilter_plan.c decides where they
 *	  go; this file is what runs there.
 *
 *	  Each node keeps its child as its outer plan (lefttree), so EXPLAIN
 *	  shows and deparses it as any node's child, and its target list refers
 *	  to the child's columns one by one; it returns the child's slots as
 *	  they are and never projects.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "executor/nodeCustom.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgrprotos.h"

#include "pg_compat.h"
#include PG_COMPAT_EXPLAIN_STATE_H
#include PG_COMPAT_EXPLAIN_FORMAT_H
#include "core/filter.h"
#include "joinfilter/joinfilter_internal.h"

/* The filter's rate at its capacity; its layout: one cache line a probe. */
#define FILTER_FPP				0.01
/* More distinct keys than this many times the capacity: the filter gives up. */
#define FILTER_OVERFILL			2
/* The run-time switch-off: after each this many rows tested ... */
#define SWITCH_OFF_EVERY		4096
/* ... a filter that passed more than this share of them is switched off. */
#define SWITCH_OFF_PASS_RATE	0.9

/*
 * One filter of one execution, in its EState's query memory; its
 * PARAM_EXEC slot points to it.  complete: the build side was read to its
 * end since the last reset; generation counts those ends.
 */
typedef struct SharedFilter
{
	EState	   *owner;
	BloomFilter *filter;		/* NULL until the first row is built */
	double		capacity;
	bool		complete;
	bool		overflowed;		/* more keys than it can tell apart: passes all */
	uint64		generation;
	int64		keys;			/* values that set a bit (distinct, nearly) */
} SharedFilter;

/*
 * The filter of this execution.  Whichever node starts first creates it (the
 * outer side starts before the inner one); a slot copied from another
 * execution (EvalPlanQual copies its parent's parameters) is replaced.
 */
static SharedFilter *
shared_filter(EState *estate, int slot)
{
	ParamExecData *prm;
	SharedFilter *shared;

	if (slot < 0 || slot >= list_length(estate->es_plannedstmt->paramExecTypes))
		elog(ERROR, "join filter slot %d out of range", slot);
	prm = &estate->es_param_exec_vals[slot];
	shared = prm->isnull ? NULL : (SharedFilter *) DatumGetPointer(prm->value);
	if (shared == NULL || shared->owner != estate)
	{
		shared = MemoryContextAllocZero(estate->es_query_cxt, sizeof(SharedFilter));
		shared->owner = estate;
		prm->value = PointerGetDatum(shared);
		prm->isnull = false;
	}
	return shared;
}

/* The spec a node's custom_private holds: slot, number, hash function, collation. */
static List *
spec_to_list(const JoinFilterSpec *spec)
{
	return list_make4(makeInteger(spec->slot), makeInteger(spec->number),
					  makeInteger((int) spec->hash_fn), makeInteger((int) spec->collation));
}

static void
spec_from_list(List *l, JoinFilterSpec *spec)
{
	spec->slot = intVal(linitial(l));
	spec->number = intVal(lsecond(l));
	spec->hash_fn = (Oid) intVal(lthird(l));
	spec->collation = (Oid) intVal(lfourth(l));
}

/* What both nodes' states start with. */
typedef struct FilterNodeState
{
	CustomScanState css;
	JoinFilterSpec spec;
	SharedFilter *shared;
	FmgrInfo	hash_fn;
} FilterNodeState;

/* The join's 32-bit hash of a value, as the filter's value hash. */
static uint64
key_hash(FilterNodeState *s, Datum value)
{
	return (uint64) DatumGetUInt32(FunctionCall1Coll(&s->hash_fn, s->spec.collation, value));
}

/* Starts the child and the filter; the node returns the child's slots. */
static void
filter_node_begin(FilterNodeState *s, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) s->css.ss.ps.plan;
	PlanState  *child;
	bool		fixed;

	spec_from_list(cscan->custom_private, &s->spec);
	child = ExecInitNode(outerPlan(cscan), estate, eflags);
	outerPlanState(&s->css) = child;
	s->css.ss.ps.resultops = ExecGetResultSlotOps(child, &fixed);
	s->css.ss.ps.resultopsfixed = fixed;
	s->css.ss.ps.resultopsset = true;
	fmgr_info(s->spec.hash_fn, &s->hash_fn);
	s->shared = shared_filter(estate, s->spec.slot);
}

static void
filter_node_end(CustomScanState *node)
{
	ExecEndNode(outerPlanState(node));
}

/* The child rescans itself when next run if its parameters changed. */
static void
rescan_child(CustomScanState *node)
{
	if (outerPlanState(node)->chgParam == NULL)
		ExecReScan(outerPlanState(node));
}

/* ---------------------------------------------------------------------
 * The build: below the Hash node
 * --------------------------------------------------------------------- */

typedef struct BuildState
{
	FilterNodeState f;
	ExprState  *key;
} BuildState;

static void
build_begin(CustomScanState *node, EState *estate, int eflags)
{
	BuildState *b = (BuildState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	filter_node_begin(&b->f, estate, eflags);
	b->key = ExecInitExpr(linitial(cscan->custom_exprs), &node->ss.ps);
	b->f.shared->capacity = intVal(list_nth(cscan->custom_private, 4));
}

/* An empty filter for the capacity, or none (then it overflowed). */
static void
allocate_filter(SharedFilter *shared, MemoryContext cxt)
{
	BloomShape	shape;
	char		errbuf[BLOOM_ERRBUF_SIZE];

	if (!bf_shape_for(shared->capacity, FILTER_FPP, BLOOM_LAYOUT_BLOCKED, &shape, errbuf))
	{
		shared->overflowed = true;
		return;
	}
	shared->filter = MemoryContextAllocZero(cxt, bf_shape_bytes(&shape));
	bf_init(shared->filter, &shape);
}

/* Adds the key of the child's row; a NULL key joins nothing and is left out. */
static void
build_add(BuildState *b, TupleTableSlot *slot)
{
	SharedFilter *shared = b->f.shared;
	ExprContext *econtext = b->f.css.ss.ps.ps_ExprContext;
	MemoryContext old;
	Datum		value;
	bool		isnull;

	if (shared->filter == NULL)
		allocate_filter(shared, b->f.css.ss.ps.state->es_query_cxt);
	if (shared->overflowed)
		return;
	ResetExprContext(econtext);
	econtext->ecxt_outertuple = slot;
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	value = ExecEvalExpr(b->key, econtext, &isnull);
	if (!isnull && bf_insert(shared->filter, bf_hash_derive(key_hash(&b->f, value))))
		shared->keys++;
	MemoryContextSwitchTo(old);
	if (shared->keys > FILTER_OVERFILL * shared->capacity)
		shared->overflowed = true;
}

static TupleTableSlot *
build_exec(CustomScanState *node)
{
	BuildState *b = (BuildState *) node;
	SharedFilter *shared = b->f.shared;
	TupleTableSlot *slot = ExecProcNode(outerPlanState(node));

	if (TupIsNull(slot))
	{
		if (!shared->complete)
		{
			/* every key is in: from now on a key it lacks joins nothing */
			if (shared->filter == NULL && !shared->overflowed)
				allocate_filter(shared, node->ss.ps.state->es_query_cxt);
			shared->complete = true;
			shared->generation++;
		}
		return NULL;
	}
	if (!shared->complete)
		build_add(b, slot);
	return slot;
}

/* The build side is read again: the filter is emptied and incomplete. */
static void
build_rescan(CustomScanState *node)
{
	SharedFilter *shared = ((BuildState *) node)->f.shared;

	if (shared->filter != NULL)
	{
		BloomShape	shape;

		bf_get_shape(shared->filter, &shape);
		memset(shared->filter, 0, bf_shape_bytes(&shape));
		bf_init(shared->filter, &shape);
	}
	shared->complete = false;
	shared->overflowed = false;
	shared->keys = 0;
	rescan_child(node);
}

/*
 * "Builds Runtime Filter: N"; with COSTS its capacity and size (from the
 * estimates); with ANALYZE the keys it holds, and whether it overflowed.
 */
static void
build_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	BuildState *b = (BuildState *) node;
	SharedFilter *shared = b->f.shared;

	ExplainPropertyInteger("Builds Runtime Filter", NULL, b->f.spec.number, es);
	if (es->costs)
	{
		BloomShape	shape;
		char		errbuf[BLOOM_ERRBUF_SIZE];

		ExplainPropertyFloat("Runtime Filter Capacity", NULL, shared->capacity, 0, es);
		if (bf_shape_for(shared->capacity, FILTER_FPP, BLOOM_LAYOUT_BLOCKED, &shape, errbuf))
			ExplainPropertyInteger("Runtime Filter Size", "kB",
								   (int64) ((bf_shape_bytes(&shape) + 1023) / 1024), es);
	}
	if (es->analyze)
	{
		ExplainPropertyInteger("Runtime Filter Keys", NULL, shared->keys, es);
		if (shared->overflowed)
			ExplainPropertyBool("Runtime Filter Overflowed", true, es);
	}
}

/* ---------------------------------------------------------------------
 * The probe: on the outer side
 * --------------------------------------------------------------------- */

typedef struct ProbeState
{
	FilterNodeState f;
	AttrNumber	resno;			/* the key's column in the child's output */
	bool		build_has_params;
	uint64		need_generation;	/* a build older than this is not trusted */
	bool		switched_off;
	int64		tested;
	int64		removed;
} ProbeState;

static void
probe_begin(CustomScanState *node, EState *estate, int eflags)
{
	ProbeState *p = (ProbeState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	filter_node_begin(&p->f, estate, eflags);
	p->resno = (AttrNumber) intVal(list_nth(cscan->custom_private, 4));
	p->build_has_params = intVal(list_nth(cscan->custom_private, 5)) != 0;
}

/*
 * True if the filter may drop rows now: its build side was read to the
 * end, it did not overflow, the run-time rule did not switch it off, and
 * it is the build of this scan (after a rescan of this node, a build side
 * with parameters may be rebuilt for other keys: until it is, the old
 * filter is not trusted).  Until then every row passes, also the outer row
 * the join fetches before its build.
 */
static bool
probe_usable(ProbeState *p)
{
	SharedFilter *shared = p->f.shared;

	return !p->switched_off && shared->complete && !shared->overflowed &&
		shared->filter != NULL && shared->generation >= p->need_generation;
}

/* True if the row's key may be among the build side's keys. */
static bool
probe_passes(ProbeState *p, TupleTableSlot *slot)
{
	ExprContext *econtext = p->f.css.ss.ps.ps_ExprContext;
	MemoryContext old;
	Datum		value;
	bool		isnull;
	bool		found;

	value = slot_getattr(slot, p->resno, &isnull);
	if (isnull)
		return true;
	ResetExprContext(econtext);
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	found = bf_contains_value(p->f.shared->filter, key_hash(&p->f, value));
	MemoryContextSwitchTo(old);
	return found;
}

/* Counts a test, under EXPLAIN ANALYZE also where parallel query adds up. */
static void
probe_count(ProbeState *p, bool passed)
{
	Instrumentation *instr = p->f.css.ss.ps.instrument;

	p->tested++;
	p->removed += !passed;
	if (instr != NULL)
	{
		instr->nfiltered1 += !passed;
		instr->nfiltered2 += 1;
	}
	if (p->tested % SWITCH_OFF_EVERY == 0 &&
		(double) (p->tested - p->removed) > SWITCH_OFF_PASS_RATE * (double) p->tested)
		p->switched_off = true;
}

static TupleTableSlot *
probe_exec(CustomScanState *node)
{
	ProbeState *p = (ProbeState *) node;

	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(outerPlanState(node));
		bool		passed;

		if (TupIsNull(slot) || !probe_usable(p))
			return slot;
		passed = probe_passes(p, slot);
		probe_count(p, passed);
		if (passed)
			return slot;
		CHECK_FOR_INTERRUPTS();
	}
}

/* The filter is kept; only a build side with parameters must be built anew. */
static void
probe_rescan(CustomScanState *node)
{
	ProbeState *p = (ProbeState *) node;

	if (p->build_has_params)
		p->need_generation = p->f.shared->generation + 1;
	rescan_child(node);
}

/*
 * "Applies Runtime Filter: N"; with ANALYZE "Runtime Filter Rows: tested
 * T, removed R" (in every process of a parallel query) and whether the
 * run-time rule switched it off (in this process).
 */
static void
probe_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ProbeState *p = (ProbeState *) node;
	Instrumentation *instr = node->ss.ps.instrument;
	int64		removed = instr != NULL ? (int64) instr->nfiltered1 : p->removed;
	int64		tested = instr != NULL ? (int64) instr->nfiltered2 : p->tested;

	ExplainPropertyInteger("Applies Runtime Filter", NULL, p->f.spec.number, es);
	if (!es->analyze)
		return;
	if (es->format == EXPLAIN_FORMAT_TEXT)
		ExplainPropertyText("Runtime Filter Rows",
							psprintf("tested " INT64_FORMAT ", removed " INT64_FORMAT,
									 tested, removed), es);
	else
	{
		ExplainPropertyInteger("Runtime Filter Rows Tested", NULL, tested, es);
		ExplainPropertyInteger("Runtime Filter Rows Removed", NULL, removed, es);
	}
	if (p->switched_off)
		ExplainPropertyBool("Runtime Filter Switched Off", true, es);
}

static void
probe_mark(CustomScanState *node)
{
	ExecMarkPos(outerPlanState(node));
}

static void
probe_restore(CustomScanState *node)
{
	ExecRestrPos(outerPlanState(node));
}

/* ---------------------------------------------------------------------
 * The methods and the constructors
 * --------------------------------------------------------------------- */

static Node *create_state(CustomScan *cscan);

static const CustomScanMethods build_methods = {
	.CustomName = JOIN_FILTER_BUILD_NAME,
	.CreateCustomScanState = create_state,
};

static const CustomScanMethods probe_methods = {
	.CustomName = JOIN_FILTER_PROBE_NAME,
	.CreateCustomScanState = create_state,
};

static const CustomExecMethods build_exec_methods = {
	.CustomName = JOIN_FILTER_BUILD_NAME,
	.BeginCustomScan = build_begin,
	.ExecCustomScan = build_exec,
	.EndCustomScan = filter_node_end,
	.ReScanCustomScan = build_rescan,
	.ExplainCustomScan = build_explain,
};

static const CustomExecMethods probe_exec_methods = {
	.CustomName = JOIN_FILTER_PROBE_NAME,
	.BeginCustomScan = probe_begin,
	.ExecCustomScan = probe_exec,
	.EndCustomScan = filter_node_end,
	.ReScanCustomScan = probe_rescan,
	.MarkPosCustomScan = probe_mark,
	.RestrPosCustomScan = probe_restore,
	.ExplainCustomScan = probe_explain,
};

/* The state of either node: they differ in their state and executor methods. */
static Node *
create_state(CustomScan *cscan)
{
	bool		build = cscan->methods == &build_methods;
	CustomScanState *state = (CustomScanState *)
		newNode(build ? sizeof(BuildState) : sizeof(ProbeState), T_CustomScanState);

	state->methods = build ? &build_exec_methods : &probe_exec_methods;
	return (Node *) state;
}

/*
 * A node above child that returns the child's rows as they are: the
 * child's estimates and parameters, a target list of the child's columns,
 * its own plan_node_id (parallel query finds nodes' instrumentation by id).
 */
static CustomScan *
make_filter_node(Plan *child, const CustomScanMethods *methods, int plan_node_id)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *plan = &cscan->scan.plan;
	ListCell   *lc;

	plan->startup_cost = child->startup_cost;
	plan->total_cost = child->total_cost;
	plan->plan_rows = child->plan_rows;
	plan->plan_width = child->plan_width;
	plan->parallel_safe = child->parallel_safe;
	plan->plan_node_id = plan_node_id;
	plan->extParam = bms_copy(child->extParam);
	plan->allParam = bms_copy(child->allParam);
	plan->lefttree = child;
	foreach(lc, child->targetlist)
	{
		TargetEntry *tle = lfirst(lc);
		Var		   *var = makeVarFromTargetEntry(OUTER_VAR, tle);

		plan->targetlist = lappend(plan->targetlist,
								   makeTargetEntry((Expr *) var, tle->resno, tle->resname,
												   tle->resjunk));
	}
	cscan->scan.scanrelid = 0;
	cscan->methods = methods;
	if (ExecSupportsBackwardScan(child))
		cscan->flags |= CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	return cscan;
}

Plan *
make_build_node(Plan *child, const JoinFilterSpec *spec, Expr *key, double capacity,
				int plan_node_id)
{
	CustomScan *cscan = make_filter_node(child, &build_methods, plan_node_id);

	cscan->custom_private = lappend(spec_to_list(spec), makeInteger((int) capacity));
	cscan->custom_exprs = list_make1(copyObject(key));
	return (Plan *) cscan;
}

Plan *
make_probe_node(Plan *child, const JoinFilterSpec *spec, AttrNumber resno,
				bool build_has_params, int plan_node_id)
{
	CustomScan *cscan = make_filter_node(child, &probe_methods, plan_node_id);

	cscan->custom_private = list_concat(spec_to_list(spec),
										list_make2(makeInteger(resno),
												   makeInteger(build_has_params ? 1 : 0)));
	return (Plan *) cscan;
}

bool
is_probe_node(Plan *plan)
{
	return IsA(plan, CustomScan) && ((CustomScan *) plan)->methods == &probe_methods;
}

void
join_filter_nodes_register(void)
{
	RegisterCustomScanMethods(&build_methods);
	RegisterCustomScanMethods(&probe_methods);
}
