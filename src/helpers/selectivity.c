/*
 * selectivity.c
 *	  Planner estimates for membership probes: bloom_contains(filter, column)
 *	  and the operators f @> column, column <@ f.
 *
 *	  Without help the planner guesses a third of the rows for a boolean
 *	  function (and 0.1% for the operators), whatever the filter holds, so
 *	  the joins and aggregates above a prefilter are planned for the wrong
 *	  row count.  A probe passes the rows whose value is in the filter's set
 *	  plus a false-positive share of the others:
 *
 *		sel = (1 - nullfrac) * (c + fpp * (1 - c)),   c = min(1, n / nd)
 *
 *	  where n is the number of distinct values in the filter, nd the
 *	  column's number of distinct values (from its statistics) and fpp the
 *	  filter's false-positive rate.  c assumes the filter's values are drawn
 *	  from the column's (the containment assumption that join estimates
 *	  make too).
 *
 *	  Where n and fpp come from:
 *	  - a constant filter (a literal, or an expression folded at plan time):
 *	    from its fill, as bloom_cardinality() and bloom_fpp() compute them;
 *	  - a filter computed by an uncorrelated scalar subquery (an InitPlan,
 *	    e.g. (SELECT bloom_agg(id) FROM customers WHERE ...)): its value is
 *	    unknown until run time, but the subquery is already planned, so n is
 *	    the planner's estimate of the number of distinct aggregated values
 *	    and fpp the aggregate's fpp argument (0.01 by default);
 *	  - anything else (a query parameter, a column of another table): no
 *	    estimate is made and the planner keeps its default.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

#include "helpers/selectivity.h"
#include "types/bloomfilter.h"

PG_FUNCTION_INFO_V1(bloom_contains_support);
PG_FUNCTION_INFO_V1(bloom_contains_restrict);

/* fpp of a filter built by an aggregate call that does not give one */
#define DEFAULT_AGG_FPP		0.01

/* What the planner can know about a filter before running the query. */
typedef struct FilterEstimate
{
	double		ndistinct;		/* distinct values in the filter */
	double		fpp;			/* its false-positive rate */
} FilterEstimate;

/* A filter that is a constant: read its fill. */
static bool
estimate_const_filter(Const *c, FilterEstimate *est)
{
	const BloomFilter *f;

	if (c->constisnull)
	{
		/* a strict probe of a NULL filter passes nothing */
		est->ndistinct = 0.0;
		est->fpp = 0.0;
		return true;
	}
	f = filter_from_datum(c->constvalue, &bloom_type);
	est->ndistinct = bf_estimate_count(f);
	est->fpp = bf_estimate_fpp(f);
	return true;
}

/* Finds the first Aggref in an expression. */
static bool
find_aggref_walker(Node *node, Aggref **found)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		*found = (Aggref *) node;
		return true;
	}
	return expression_tree_walker(node, find_aggref_walker, (void *) found);
}

/* The scan/join relation of a planned (sub)query: the aggregate's input. */
static RelOptInfo *
input_rel_of(PlannerInfo *subroot)
{
	int			relid;

	if (bms_is_empty(subroot->all_baserels))
		return NULL;
	if (bms_get_singleton_member(subroot->all_baserels, &relid))
		return find_base_rel(subroot, relid);
	return find_join_rel(subroot, subroot->all_baserels);
}

/* False-positive rate of a classic filter of m bits and k hashes holding n values. */
static double
shape_fpp(double m, double k, double n)
{
	if (m <= 0.0 || k <= 0.0)
		return 1.0;
	return pow(1.0 - exp(-k * Max(n, 0.0) / m), k);
}

/* The value of node if it is a non-null constant of type typid. */
static bool
const_of_type(Node *node, Oid typid, Datum *value)
{
	if (!IsA(node, Const) || ((Const *) node)->constisnull ||
		((Const *) node)->consttype != typid)
		return false;
	*value = ((Const *) node)->constvalue;
	return true;
}

/*
 * The fpp a subquery's filter will have once it holds n values:
 * - bloom_agg(x, capacity, fpp [, layout]) with constant sizes: the
 *   rate of the shape bloom_empty(capacity, fpp) at n values;
 * - bloom_add_all(<constant filter>, array_agg(x)) and the like: the rate
 *   of that filter's shape with n more values;
 * - otherwise the sizing aggregate's target, 0.01.
 */
static double
initplan_fpp(Aggref *agg, Expr *top, double n)
{
	Datum		capacity;
	Datum		fpp;
	Datum		filter;

	if (list_length(agg->args) >= 3 &&
		const_of_type((Node *) lsecond_node(TargetEntry, agg->args)->expr, INT8OID, &capacity) &&
		const_of_type((Node *) lthird_node(TargetEntry, agg->args)->expr, FLOAT8OID, &fpp))
	{
		BloomShape	shape;
		char		errbuf[BLOOM_ERRBUF_SIZE];

		if (bf_shape_for((double) DatumGetInt64(capacity), DatumGetFloat8(fpp),
						 BLOOM_LAYOUT_CLASSIC, &shape, errbuf))
			return shape_fpp((double) shape.nbits, (double) shape.nhashes, n);
		return DEFAULT_AGG_FPP;
	}
	if (IsA(top, FuncExpr) && list_length(((FuncExpr *) top)->args) >= 1 &&
		const_of_type(linitial(((FuncExpr *) top)->args),
					  ((FuncExpr *) top)->funcresulttype, &filter))
	{
		const BloomFilter *f = filter_from_datum(filter, &bloom_type);
		double		held = bf_estimate_count(f);

		if (isfinite(held))
			return shape_fpp((double) f->nbits, (double) f->nhashes, held + n);
		return 1.0;
	}
	return DEFAULT_AGG_FPP;
}

/*
 * A filter computed by an InitPlan: (SELECT agg(x ...) FROM ...).  The
 * number of distinct values of the aggregated expression x in the
 * subquery's input is what the filter will hold.  Aggregates of filters
 * (bloom_union_agg) are not understood: their input is not values.
 */
static bool
estimate_initplan_filter(PlannerInfo *root, Param *param, FilterEstimate *est)
{
	for (PlannerInfo *r = root; r != NULL; r = r->parent_root)
	{
		ListCell   *lc;

		foreach(lc, r->init_plans)
		{
			SubPlan    *sp = lfirst_node(SubPlan, lc);
			PlannerInfo *subroot;
			TargetEntry *tle;
			Aggref	   *agg = NULL;
			Node	   *value;
			RelOptInfo *input;

			if (!list_member_int(sp->setParam, param->paramid))
				continue;
			if (sp->plan_id < 1 || sp->plan_id > list_length(r->glob->subroots))
				return false;
			subroot = list_nth(r->glob->subroots, sp->plan_id - 1);
			if (subroot == NULL || subroot->parse->targetList == NIL)
				return false;
			tle = linitial_node(TargetEntry, subroot->parse->targetList);
			if (!find_aggref_walker((Node *) tle->expr, &agg) || agg->args == NIL)
				return false;
			value = (Node *) linitial_node(TargetEntry, agg->args)->expr;
			if (exprType(value) == exprType((Node *) agg))
				return false;	/* filters in, filter out: not values */
			input = input_rel_of(subroot);
			if (input == NULL || input->rows <= 0)
				return false;
			est->ndistinct = estimate_num_groups(subroot, list_make1(value),
												 input->rows, NULL, NULL);
			est->fpp = initplan_fpp(agg, tle->expr, est->ndistinct);
			return true;
		}
	}
	return false;
}

static bool
estimate_filter(PlannerInfo *root, Node *filter, FilterEstimate *est)
{
	filter = estimate_expression_value(root, filter);
	if (IsA(filter, Const))
		return estimate_const_filter((Const *) filter, est);
	if (IsA(filter, Param) && ((Param *) filter)->paramkind == PARAM_EXEC)
		return estimate_initplan_filter(root, (Param *) filter, est);
	return false;
}

/*
 * Selectivity of probing value (an expression of one relation) against
 * filter, or -1 when no estimate can be made.
 */
static Selectivity
probe_selectivity(PlannerInfo *root, Node *filter, Node *value, int varRelid)
{
	FilterEstimate est;
	VariableStatData vardata;
	double		nd;
	double		nullfrac = 0.0;
	double		covered;
	bool		isdefault;
	Selectivity sel;

	if (!estimate_filter(root, filter, &est))
		return -1.0;

	examine_variable(root, value, varRelid, &vardata);
	nd = get_variable_numdistinct(&vardata, &isdefault);
	if (HeapTupleIsValid(vardata.statsTuple))
		nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;
	ReleaseVariableStats(vardata);

	/* a full filter estimates infinity: it covers the whole column */
	if (!isfinite(est.ndistinct) || nd <= 0.0)
		covered = 1.0;
	else
		covered = Min(1.0, Max(0.0, est.ndistinct) / nd);
	sel = (1.0 - nullfrac) * (covered + est.fpp * (1.0 - covered));
	CLAMP_PROBABILITY(sel);
	return sel;
}

/*
 * Splits a probe's two arguments into filter and value: the filter is the
 * one declared as bloom (first for bloom_contains and @>, second for
 * bloom_contained_by and <@).
 */
static void
split_probe_args(Oid funcid, List *args, Node **filter, Node **value)
{
	Oid		   *argtypes;
	int			nargs;

	get_func_signature(funcid, &argtypes, &nargs);
	if (nargs == 2 && argtypes[0] == ANYELEMENTOID)
	{
		*value = linitial(args);
		*filter = lsecond(args);
	}
	else
	{
		*filter = linitial(args);
		*value = lsecond(args);
	}
}

/*
 * Planner support function of bloom_contains(filter, value) and
 * bloom_contained_by(value, filter): restriction selectivity.  Join
 * clauses and filters that cannot be estimated keep the planner's default.
 */
Datum
bloom_contains_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestSelectivity *req;
	Node	   *filter;
	Node	   *value;
	Selectivity sel;

	if (!IsA(rawreq, SupportRequestSelectivity))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestSelectivity *) rawreq;
	if (req->is_join || list_length(req->args) != 2)
		PG_RETURN_POINTER(NULL);

	split_probe_args(req->funcid, req->args, &filter, &value);
	sel = probe_selectivity(req->root, filter, value, req->varRelid);
	if (sel < 0.0)
		PG_RETURN_POINTER(NULL);
	req->selectivity = sel;
	PG_RETURN_POINTER(req);
}

/*
 * Restriction estimator of the operators @> and <@ (oprrest).  Without an
 * estimate it answers 0.001, as contsel, the estimator they had before.
 */
#define DEFAULT_OPERATOR_SEL	0.001

Datum
bloom_contains_restrict(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	Node	   *filter;
	Node	   *value;
	Selectivity sel;

	if (list_length(args) != 2)
		PG_RETURN_FLOAT8(DEFAULT_OPERATOR_SEL);
	split_probe_args(get_opcode(operator), args, &filter, &value);
	sel = probe_selectivity(root, filter, value, varRelid);
	PG_RETURN_FLOAT8(sel < 0.0 ? DEFAULT_OPERATOR_SEL : sel);
}
