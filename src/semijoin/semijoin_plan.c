/*
 * semijoin_plan.c
 *	  Checks on the plan of a statement the semijoin rewrite changed, and
 *	  the log of the decisions (semijoin_internal.h).
 *
 *	  Runs in the planner hook after each planning of the rewritten
 *	  statement (semijoin.c, plan_with_filters):
 *	  - a filtered foreign scan must not be rescanned with changing
 *	    parameters (of a nested loop, a correlated sub-select or a lateral
 *	    subquery), which would send the filter again on every rescan;
 *	    parameters that InitPlans set (the filter's own) are computed once;
 *	  - a probe postgres_fdw did not ship stays in the foreign scan's own
 *	    qual, evaluated locally on every row fetched: the filter is then
 *	    built and probed for nothing, so its column is declined and the
 *	    statement analyzed again.  postgres_fdw's rules (is_foreign_expr)
 *	    are its own and change between majors, so the plan itself is asked.
 *	  Once the plan returned is known, the log (bloomfilter.semijoin_log)
 *	  reports every candidate of its analysis.
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "lib/stringinfo.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

#include "pg_compat.h"
#include "helpers/plan_tree.h"
#include "semijoin/semijoin_internal.h"
#include "semijoin/tuple_probe.h"
#include "semijoin/typed_probe.h"

/* ---------------------------------------------------------------------
 * The foreign scans of a plan
 * --------------------------------------------------------------------- */

/* What the checks need of a plan: its foreign scans and its InitPlans' parameters. */
typedef struct PlanScan
{
	Bitmapset  *initplan_params;
	List	   *foreign_scans;
} PlanScan;

static void
scan_plan(Plan *plan, PlanScan *ps)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	foreach(lc, plan->initPlan)
	{
		ListCell   *p;

		foreach(p, ((SubPlan *) lfirst(lc))->setParam)
			ps->initplan_params = bms_add_member(ps->initplan_params, lfirst_int(p));
	}
	if (IsA(plan, ForeignScan))
		ps->foreign_scans = lappend(ps->foreign_scans, plan);
	else if (IsA(plan, SubqueryScan))
		scan_plan(((SubqueryScan *) plan)->subplan, ps);
	/* a BitmapAnd's or BitmapOr's are index scans: neither foreign nor with InitPlans */
	foreach(lc, plan_child_list(plan))
		scan_plan(lfirst(lc), ps);
	scan_plan(plan->lefttree, ps);
	scan_plan(plan->righttree, ps);
}

/* The foreign scans of the statement's plan and of its sub-plans. */
static PlanScan
scan_statement(PlannedStmt *stmt)
{
	PlanScan	ps = {0};
	ListCell   *lc;

	scan_plan(stmt->planTree, &ps);
	foreach(lc, stmt->subplans)
		scan_plan(lfirst(lc), &ps);
	return ps;
}

/* ---------------------------------------------------------------------
 * Rescans with changing parameters
 * --------------------------------------------------------------------- */

/* True if the scan reads one of the relations (by OID). */
static bool
scan_reads(ForeignScan *fs, List *rtable, List *relids)
{
	int			rti = -1;

	while ((rti = bms_next_member(fs->fs_relids, rti)) >= 0)
	{
		RangeTblEntry *rte = rt_fetch(rti, rtable);

		if (rte->rtekind == RTE_RELATION && list_member_oid(relids, rte->relid))
			return true;
	}
	return false;
}

/*
 * True if the plan rescans a foreign scan of one of the filtered
 * relations with parameters that are not the InitPlans' (the filter would
 * be sent again on every rescan).
 */
bool
plan_rescans_filter(PlannedStmt *stmt, List *filtered_relids)
{
	PlanScan	ps = scan_statement(stmt);
	ListCell   *lc;

	foreach(lc, ps.foreign_scans)
	{
		ForeignScan *fs = lfirst(lc);
		Bitmapset  *params = pull_paramids((Expr *) fs->fdw_exprs);

		if (!bms_is_subset(params, ps.initplan_params) &&
			scan_reads(fs, stmt->rtable, filtered_relids))
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------------
 * Probes kept local
 *
 * A condition postgres_fdw cannot send (a type, collation or function it
 * does not ship) stays in the foreign scan's own qual.
 * --------------------------------------------------------------------- */

typedef struct LocalProbes
{
	const SemijoinObjects *objects;
	ForeignScan *scan;
	List	   *rtable;
	List	   *columns;		/* UnshippedColumn */
} LocalProbes;

/* The table column a value of the scan's qual is, or NULL. */
static Var *
scanned_column(LocalProbes *lp, Node *value)
{
	Var		   *var;

	if (!IsA(value, Var))
		return NULL;
	var = (Var *) value;
	/* a scan of a pushed-down join refers to its own target list */
	if (var->varno == INDEX_VAR && var->varattno >= 1 &&
		var->varattno <= list_length(lp->scan->fdw_scan_tlist))
	{
		Node	   *expr = (Node *) ((TargetEntry *) list_nth(lp->scan->fdw_scan_tlist,
															 var->varattno - 1))->expr;

		if (!IsA(expr, Var))
			return NULL;
		var = (Var *) expr;
	}
	if (IS_SPECIAL_VARNO(var->varno) || var->varno > list_length(lp->rtable) ||
		var->varattno <= 0 || rt_fetch(var->varno, lp->rtable)->rtekind != RTE_RELATION)
		return NULL;
	return var;
}

static void
note_unshipped(LocalProbes *lp, Oid relid, char *attname)
{
	UnshippedColumn *column = palloc(sizeof(UnshippedColumn));

	column->relid = relid;
	column->attname = attname;
	lp->columns = lappend(lp->columns, column);
}

/* Records the column a local probe tests, or that it tests an expression key. */
static void
note_local_probe(LocalProbes *lp, Node *value)
{
	Var		   *var = scanned_column(lp, value);
	Oid			relid;

	if (var == NULL && !IsA(value, Var))
	{
		/* an expression of the table's columns */
		List	   *vars = pull_var_clause(value, 0);

		if (vars != NIL && (var = scanned_column(lp, linitial(vars))) != NULL)
			note_unshipped(lp, rt_fetch(var->varno, lp->rtable)->relid,
						   pstrdup(EXPRESSION_KEY_NAME));
		return;
	}
	if (var == NULL)
		return;
	relid = rt_fetch(var->varno, lp->rtable)->relid;
	note_unshipped(lp, relid, get_attname(relid, var->varattno, false));
}

/* Records the key columns a local composite probe tests, as one name. */
static void
note_local_tuple_probe(LocalProbes *lp, List *values)
{
	List	   *vars = NIL;
	Oid			relid = InvalidOid;
	ListCell   *lc;

	foreach(lc, values)
	{
		Node	   *value = lfirst(lc);
		Var		   *var = scanned_column(lp, value);
		List	   *inner;

		/* an expression key is named by its first column, as the candidate's */
		if (var == NULL && !IsA(value, Var) && (inner = pull_var_clause(value, 0)) != NIL)
			var = scanned_column(lp, linitial(inner));
		if (var == NULL)
			return;
		relid = rt_fetch(var->varno, lp->rtable)->relid;
		vars = lappend(vars, var);
	}
	if (vars != NIL)
		note_unshipped(lp, relid, key_columns_name(relid, vars));
}

static bool
find_local_probes(Node *node, LocalProbes *lp)
{
	if (node == NULL)
		return false;
	if (IsA(node, FuncExpr))
	{
		FuncExpr   *fe = (FuncExpr *) node;

		if (fe->funcid == lp->objects->probe_fn && list_length(fe->args) == TYPED_PROBE_NARGS)
			note_local_probe(lp, lsecond(fe->args));
		else if (fe->funcid == lp->objects->tuple_probe_fn &&
				 list_length(fe->args) > TUPLE_PROBE_FIXED_NARGS)
			note_local_tuple_probe(lp, list_copy_tail(fe->args, TUPLE_PROBE_FIXED_NARGS));
	}
	return expression_tree_walker(node, find_local_probes, lp);
}

/* The columns whose typed probe a foreign scan of stmt evaluates locally. */
List *
local_probe_columns(PlannedStmt *stmt, const SemijoinObjects *objects)
{
	PlanScan	ps = scan_statement(stmt);
	LocalProbes lp = {objects, NULL, stmt->rtable, NIL};
	ListCell   *lc;

	foreach(lc, ps.foreign_scans)
	{
		lp.scan = lfirst(lc);
		find_local_probes((Node *) lp.scan->scan.plan.qual, &lp);
	}
	return lp.columns;
}

/*
 * The name a composite key is recorded under among the unshipped columns
 * (and logged as): "(a, b)", its columns in order.
 */
char *
key_columns_name(Oid relid, List *vars)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '(');
	foreach(lc, vars)
	{
		char	   *att = get_attname(relid, ((Var *) lfirst(lc))->varattno, true);

		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) > 0 ? ", " : "",
						 att ? att : "?");
	}
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/* True if the composite key of that name (scanning relids) is among columns. */
bool
key_among(List *columns, List *relids, const char *name)
{
	ListCell   *lc;

	foreach(lc, columns)
	{
		UnshippedColumn *u = lfirst(lc);

		if (strcmp(u->attname, name) == 0 && list_member_oid(relids, u->relid))
			return true;
	}
	return false;
}

/*
 * True if the column (var of rte, scanning relids) is among columns, a list
 * of UnshippedColumn.
 */
bool
column_among(List *columns, List *relids, Var *var, RangeTblEntry *rte)
{
	char	   *attname = get_attname(rte->relid, var->varattno, true);
	ListCell   *lc;

	foreach(lc, columns)
	{
		UnshippedColumn *u = lfirst(lc);

		if (attname != NULL && strcmp(u->attname, attname) == 0 &&
			list_member_oid(relids, u->relid))
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------------
 * The log of the decisions
 * --------------------------------------------------------------------- */

/*
 * Reports the decision on c at elevel: "added" only for a filter the final
 * plan holds, "no" with the reason for every other.
 */
static void
log_candidate(const Candidate *c, int elevel)
{
	if (!c->estimated)
	{
		ereport(elevel,
				(errmsg("bloomfilter: no semijoin prefilter on %s from %s: %s",
						c->probe_column, c->build_column, c->why)));
		return;
	}
	ereport(elevel,
			(errmsg("bloomfilter: %s semijoin prefilter on %s from %s%s%s",
					c->why ? "no" : "added", c->probe_column, c->build_column,
					c->why ? ": " : "", c->why ? c->why : ""),
			 errdetail("probe rows %.0f, keys %.0f, row bytes %.0f; build rows %.0f, keys %.0f; "
					   "fpp %.4g, capacity %.0f, pass rate %.3f; filter %.0f bytes in %d scan(s); "
					   "saves %.0f rows, %.0f bytes",
					   c->probe_rows, c->probe_keys, c->row_bytes, c->build_rows, c->build_keys,
					   c->fpp, c->capacity, c->pass_rate, c->filter_bytes, c->scans,
					   c->rows_saved, c->bytes_saved)));
}

/*
 * Reports every candidate of the analysis whose plan is returned, at
 * elevel (NOTICE or LOG).
 */
void
log_candidates(List *candidates, int elevel)
{
	ListCell   *lc;

	foreach(lc, candidates)
		log_candidate(lfirst(lc), elevel);
}

