/*
 * joinfilter_plan.c
 *	  Where the runtime join filters go, in a finished plan: for each hash
 *	  join that drops its unmatched outer rows, a JoinFilterBuild between
 *	  the Hash node and its child, and a JoinFilterProbe as far down the
 *	  outer side as the key column is carried unchanged and dropping a row
 *	  cannot change what the nodes above it do with the others.  The rules
 *	  and why they hold: doc/join_filters.md.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "executor/hashjoin.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/clauses.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

#include "pg_compat.h"
#include "helpers/plan_tree.h"
#include "joinfilter/joinfilter_internal.h"

/* The filter's capacity: twice the build side's estimate, within these. */
#define MIN_CAPACITY		1024.0
#define MAX_CAPACITY		(4.0 * 1024 * 1024)

typedef struct FilterPlanning
{
	PlannedStmt *stmt;
	const JoinFilterLimits *limits;
	int			next_node_id;	/* plan_node_id of the next node added */
	int			nfilters;
} FilterPlanning;

/* ---------------------------------------------------------------------
 * Walking the plan
 * --------------------------------------------------------------------- */

/* Calls fn on plan and every plan below it, parents first. */
static void
walk_plan(Plan *plan, void (*fn) (Plan *, void *), void *arg)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	fn(plan, arg);
	walk_plan(plan->lefttree, fn, arg);
	walk_plan(plan->righttree, fn, arg);
	foreach(lc, plan_child_list(plan))
		walk_plan(lfirst(lc), fn, arg);
	if (IsA(plan, SubqueryScan))
		walk_plan(((SubqueryScan *) plan)->subplan, fn, arg);
}

static void
walk_statement(PlannedStmt *stmt, void (*fn) (Plan *, void *), void *arg)
{
	ListCell   *lc;

	walk_plan(stmt->planTree, fn, arg);
	foreach(lc, stmt->subplans)
		walk_plan(lfirst(lc), fn, arg);
}

static void
note_max_id(Plan *plan, void *arg)
{
	int		   *max = arg;

	*max = Max(*max, plan->plan_node_id);
}

static void
note_hash_join(Plan *plan, void *arg)
{
	List	  **joins = arg;

	if (IsA(plan, HashJoin))
		*joins = lappend(*joins, plan);
}

/* ---------------------------------------------------------------------
 * The rules
 * --------------------------------------------------------------------- */

/*
 * Join types that drop an outer row no inner row matches: a filter of the
 * inner keys may then drop it earlier.  Never LEFT, FULL or ANTI, which
 * return such rows.
 */
static bool
drops_unmatched_outer(JoinType jointype)
{
	switch (jointype)
	{
		case JOIN_INNER:
		case JOIN_SEMI:
		case JOIN_RIGHT:
#if COMPAT_HAVE_JOIN_RIGHT_ANTI
		case JOIN_RIGHT_ANTI:
#endif
#if COMPAT_HAVE_JOIN_RIGHT_SEMI
		case JOIN_RIGHT_SEMI:
#endif
			return true;
		default:
			return false;
	}
}

/*
 * True if evaluating these expressions for fewer rows could change a
 * result: a volatile function (nextval, random) or a subplan, whose calls
 * the filter would change.
 */
static bool
calls_matter(Node *exprs)
{
	return contain_volatile_functions(exprs) || contain_subplans(exprs);
}

/* True if a node's own expressions may run for fewer rows. */
static bool
node_exprs_safe(Plan *plan)
{
	if (calls_matter((Node *) plan->qual) || calls_matter((Node *) plan->targetlist))
		return false;
	if (IsA(plan, HashJoin) || IsA(plan, NestLoop))
		return !calls_matter((Node *) ((Join *) plan)->joinqual) &&
			!(IsA(plan, HashJoin) && calls_matter((Node *) ((HashJoin *) plan)->hashclauses));
	if (IsA(plan, Result))
		return !calls_matter(((Result *) plan)->resconstantqual);
	return true;
}

/* The Var that column resno of plan's output is, or NULL if it is computed. */
static Var *
carried_var(Plan *plan, AttrNumber resno)
{
	TargetEntry *tle = get_tle_by_resno(plan->targetlist, resno);

	if (tle == NULL || !IsA(tle->expr, Var))
		return NULL;
	return (Var *) tle->expr;
}

/*
 * The bytes of the hash table a Hash node builds, estimated as PostgreSQL
 * sizes it (ExecChooseHashTableSize): per row, the tuple with its headers
 * and one bucket pointer.
 */
static double
hash_table_bytes(Plan *build)
{
	double		tuple = HJTUPLE_OVERHEAD + MAXALIGN(SizeofMinimalTupleHeader) +
		MAXALIGN(build->plan_width) + sizeof(HashJoinTuple);

	return build->plan_rows * tuple;
}

/*
 * True if the Hash node's table is small enough to stay in cache: below
 * min_hash_bytes, and in one batch (a join that spills writes the outer
 * rows of its later batches to files; a row the filter drops is not
 * written).
 */
static bool
hash_table_in_cache(const JoinFilterLimits *limits, Plan *build)
{
	double		bytes = hash_table_bytes(build);

	return bytes < limits->min_hash_bytes && bytes <= get_hash_memory_limit();
}

/*
 * The share of outer rows the join keeps, the most a filter passes: an
 * inner join's rows may exceed the outer rows where build keys repeat, so
 * capped at 1 (then the join counts as not selective).
 */
static double
expected_pass_share(Plan *join, Plan *outer)
{
	if (outer->plan_rows <= 0)
		return 1.0;
	return Min(join->plan_rows / outer->plan_rows, 1.0);
}

/*
 * The plan-time rule: a filter pays where the outer side is large and the
 * build side small beside it (the outer rows stand for the outer side's
 * distinct keys, which they bound), and where a dropped row saves more
 * than a filter probe costs: not where the hash table is in cache (its
 * probe about as cheap as the filter's) and the join keeps many rows.  The
 * run-time rule of the probe switches off the filters this lets through
 * that pass most rows.
 */
static bool
worth_filtering(const JoinFilterLimits *limits, Plan *join, Plan *outer, Plan *build)
{
	if (outer->plan_rows < limits->min_outer_rows)
		return false;
	if (build->plan_rows > limits->max_build_ratio * outer->plan_rows)
		return false;
	return !(hash_table_in_cache(limits, build) &&
			 expected_pass_share(join, outer) > JOIN_FILTER_SMALL_HASH_MAX_PASS);
}

/* ---------------------------------------------------------------------
 * Placing the probe
 * --------------------------------------------------------------------- */

typedef struct Placement
{
	FilterPlanning *fp;
	JoinFilterSpec spec;		/* the outer side's hash function */
	bool		build_has_params;
	Oid			key_type;
	int			nprobes;
} Placement;

static void place_probe(Placement *pl, Plan **at, AttrNumber resno);

/* Column resno of a join's output, where it comes from a side it may filter. */
static bool
place_below_join(Placement *pl, Join *join, AttrNumber resno)
{
	Var		   *var = carried_var(&join->plan, resno);

	if (join->jointype != JOIN_INNER || var == NULL)
		return false;
	if (var->varno == OUTER_VAR)
	{
		place_probe(pl, &join->plan.lefttree, var->varattno);
		return true;
	}
	/* a hash join's inner side is its hash table, built once: never below it */
	if (var->varno == INNER_VAR && IsA(join, NestLoop))
	{
		place_probe(pl, &join->plan.righttree, var->varattno);
		return true;
	}
	return false;
}

/* Every child of an Append or MergeAppend: its column resno is theirs. */
static bool
place_below_append(Placement *pl, List *children, Plan *append, AttrNumber resno)
{
	Var		   *var = carried_var(append, resno);
	ListCell   *lc;

	if (var == NULL || var->varno != OUTER_VAR)
		return false;
	foreach(lc, children)
		place_probe(pl, (Plan **) &lfirst(lc), var->varattno);
	return true;
}

/* Below a node through which rows go one by one, the column unchanged. */
static bool
place_below(Placement *pl, Plan *plan, AttrNumber resno)
{
	Var		   *var;

	if (!node_exprs_safe(plan))
		return false;
	switch (nodeTag(plan))
	{
		case T_HashJoin:
		case T_NestLoop:
			return place_below_join(pl, (Join *) plan, resno);
		case T_Append:
			return place_below_append(pl, ((Append *) plan)->appendplans, plan, resno);
		case T_MergeAppend:
			return place_below_append(pl, ((MergeAppend *) plan)->mergeplans, plan, resno);
		case T_Result:
			var = carried_var(plan, resno);
			if (plan->lefttree == NULL || var == NULL || var->varno != OUTER_VAR)
				return false;
			place_probe(pl, &plan->lefttree, var->varattno);
			return true;
		default:
			/*
			 * Scans are where it should go; any other node (Sort, Material,
			 * an aggregate, a Gather, a merge join, ...) keeps rows, counts
			 * them or moves them between processes, so the probe stays
			 * above it.
			 */
			return false;
	}
}

/*
 * Places the probe of column resno of *at's output: below *at where the
 * rules allow, else above it (replacing *at by the probe).
 */
static void
place_probe(Placement *pl, Plan **at, AttrNumber resno)
{
	Plan	   *plan = *at;
	TargetEntry *tle = get_tle_by_resno(plan->targetlist, resno);

	if (tle == NULL || exprType((Node *) tle->expr) != pl->key_type)
		return;
	if (place_below(pl, plan, resno))
		return;
	*at = make_probe_node(plan, &pl->spec, resno, pl->build_has_params,
						  pl->fp->next_node_id++);
	pl->nprobes++;
}

/* ---------------------------------------------------------------------
 * One hash join
 * --------------------------------------------------------------------- */

/* A new filter's slot: a PARAM_EXEC parameter no expression reads. */
static int
new_filter_slot(PlannedStmt *stmt)
{
	stmt->paramExecTypes = lappend_oid(stmt->paramExecTypes, INTERNALOID);
	return list_length(stmt->paramExecTypes) - 1;
}

/*
 * The join's outer key i if it is a column of the outer plan, else NULL.  A
 * relabeling (a collation, a binary-compatible type) leaves the value as it
 * is, and the join's hash function and collation are used either way.
 */
static Var *
outer_key(HashJoin *hj, int i)
{
	Node	   *key = list_nth(hj->hashkeys, i);

	while (IsA(key, RelabelType))
		key = (Node *) ((RelabelType *) key)->arg;
	if (!IsA(key, Var) || ((Var *) key)->varno != OUTER_VAR)
		return NULL;
	return (Var *) key;
}

/*
 * The filter of the join's key i, if it may have one: the outer key a
 * column of the outer plan, the inner key safe to evaluate a second time,
 * the join's operator with hash functions.
 */
static bool
filter_key(HashJoin *hj, Hash *hash, int i, Placement *pl, Oid *inner_hash_fn)
{
	Var		   *outer = outer_key(hj, i);
	Node	   *inner = list_nth(hash->hashkeys, i);
	Oid			op = list_nth_oid(hj->hashoperators, i);
	Oid			outer_hash_fn;

	if (outer == NULL)
		return false;
	if (calls_matter(inner))
		return false;
	if (!get_op_hash_functions(op, &outer_hash_fn, inner_hash_fn))
		return false;
	pl->spec.hash_fn = outer_hash_fn;
	pl->spec.collation = list_nth_oid(hj->hashcollations, i);
	pl->key_type = outer->vartype;
	return true;
}

static void
consider_join(FilterPlanning *fp, HashJoin *hj)
{
	Hash	   *hash = (Hash *) innerPlan(hj);
	int			nkeys = list_length(hj->hashkeys);

	/*
	 * A parallel hash join's participants each build a share of the table;
	 * their filters would have to be united before any probes.  Not built.
	 */
	if (!IsA(hash, Hash) || hash->plan.parallel_aware || hj->join.plan.parallel_aware)
		return;
	if (!drops_unmatched_outer(hj->join.jointype) ||
		!worth_filtering(fp->limits, &hj->join.plan, outerPlan(hj), &hash->plan) ||
		list_length(hash->hashkeys) != nkeys)
		return;
	for (int i = 0; i < nkeys; i++)
	{
		Placement	pl = {.fp = fp};
		JoinFilterSpec build_spec;
		Oid			inner_hash_fn;
		double		capacity;

		if (!filter_key(hj, hash, i, &pl, &inner_hash_fn))
			continue;
		pl.spec.slot = new_filter_slot(fp->stmt);
		pl.spec.number = ++fp->nfilters;
		pl.build_has_params = !bms_is_empty(hash->plan.allParam);
		place_probe(&pl, &hj->join.plan.lefttree, outer_key(hj, i)->varattno);
		if (pl.nprobes == 0)
		{
			fp->nfilters--;
			continue;
		}
		build_spec = pl.spec;
		build_spec.hash_fn = inner_hash_fn;
		capacity = Min(Max(2.0 * hash->plan.plan_rows, MIN_CAPACITY), MAX_CAPACITY);
		hash->plan.lefttree = make_build_node(hash->plan.lefttree, &build_spec,
											  list_nth(hash->hashkeys, i), capacity,
											  fp->next_node_id++);
		/* one key's filter: a row whose key is not among them joins nothing */
		return;
	}
}

void
join_filter_add(PlannedStmt *stmt, const JoinFilterLimits *limits)
{
	FilterPlanning fp = {.stmt = stmt, .limits = limits};
	List	   *joins = NIL;
	int			max_id = 0;
	ListCell   *lc;

	walk_statement(stmt, note_hash_join, &joins);
	if (joins == NIL)
		return;
	walk_statement(stmt, note_max_id, &max_id);
	fp.next_node_id = max_id + 1;
	foreach(lc, joins)
		consider_join(&fp, lfirst(lc));
}
