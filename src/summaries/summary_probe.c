/*
 * summary_probe.c
 *	  The probe of a pruning candidate: the key values this execution gives
 *	  it (constants, external parameters, and, for a guard at each rescan,
 *	  executor parameters), read without running anything.  Its own file
 *	  because both sides of pruning ask it: the executor-start decisions
 *	  (summary_prune.c) and the guard's rescans (summary_scan_nodes.c),
 *	  which must not call each other.
 */
#include "postgres.h"

#include "nodes/execnodes.h"
#include "nodes/params.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "nodes/value.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

#include "summaries/summary_prune_internal.h"

/*
 * Adds the non-null values of one source; false if it has no value yet
 * (an executor parameter before the scan starts, econtext NULL, or the
 * output of an initplan not run yet: deciding must not run it).
 */
static bool
add_source_values(Node *expr, bool is_array, Oid valtype, ParamListInfo params,
				  ExprContext *econtext, List **values)
{
	Datum		value;
	bool		isnull;
	Oid			type;

	if (IsA(expr, ArrayExpr))
		return false;
	if (IsA(expr, Const))
	{
		value = ((Const *) expr)->constvalue;
		isnull = ((Const *) expr)->constisnull;
		type = ((Const *) expr)->consttype;
	}
	else if (((Param *) expr)->paramkind == PARAM_EXEC)
	{
		Param	   *param = (Param *) expr;
		ParamExecData *prm;

		if (econtext == NULL || econtext->ecxt_param_exec_vals == NULL ||
			param->paramid < 0)
			return false;
		prm = &econtext->ecxt_param_exec_vals[param->paramid];
		if (prm->execPlan != NULL)
			return false;
		value = prm->value;
		isnull = prm->isnull;
		type = param->paramtype;
	}
	else
	{
		Param	   *param = (Param *) expr;
		ParamExternData workspace;
		ParamExternData *prm;

		if (params == NULL || param->paramid <= 0 || param->paramid > params->numParams)
			return false;
		if (params->paramFetch != NULL)
			prm = params->paramFetch(params, param->paramid, false, &workspace);
		else
			prm = &params->params[param->paramid - 1];
		if (prm == NULL || !OidIsValid(prm->ptype) || prm->ptype != param->paramtype)
			return false;
		value = prm->value;
		isnull = prm->isnull;
		type = prm->ptype;
	}
	if (isnull)
		return true;			/* equal to nothing */
	if (is_array)
	{
		ArrayType  *arr = DatumGetArrayTypeP(value);
		int16		elmlen;
		bool		elmbyval;
		char		elmalign;
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		if (ARR_ELEMTYPE(arr) != valtype)
			return false;
		get_typlenbyvalalign(valtype, &elmlen, &elmbyval, &elmalign);
		deconstruct_array(arr, valtype, elmlen, elmbyval, elmalign, &elems, &nulls, &n);
		for (int i = 0; i < n; i++)
			if (!nulls[i])
				*values = lappend(*values, (void *) DatumGetPointer(elems[i]));
		return true;
	}
	if (type != valtype)
		return false;
	*values = lappend(*values, (void *) DatumGetPointer(value));
	return true;
}

SummaryProbe *
summary_probe_alloc(int nkeys)
{
	Size		header = MAXALIGN(sizeof(SummaryProbe));
	Size		datums = MAXALIGN(sizeof(Datum *) * nkeys);
	Size		ints = MAXALIGN(sizeof(Oid) * nkeys);
	char	   *chunk = palloc0(header + datums + 3 * ints + nkeys * sizeof(bool));
	SummaryProbe *p = (SummaryProbe *) chunk;

	chunk += header;
	p->values = (Datum **) chunk;
	chunk += datums;
	p->valtypes = (Oid *) chunk;
	p->collations = (Oid *) (chunk + ints);
	p->nvalues = (int *) (chunk + 2 * ints);
	p->fixed = (bool *) (chunk + 3 * ints);
	p->nkeys = nkeys;
	return p;
}

/* True if the two candidates ask the same of the same summary (not the leaf). */
static bool
same_question(List *a, List *b)
{
	ListCell   *la;
	ListCell   *lb;

	if (list_length(a) != list_length(b) || intVal(lsecond(a)) != intVal(lsecond(b)))
		return false;
	forboth(la, a, lb, b)
	{
		/* plan_node_id, summary_id, leaf, key names: not the question */
		if (foreach_current_index(la) >= 4 && !equal(lfirst(la), lfirst(lb)))
			return false;
	}
	return true;
}

SummaryProbe *
probe_like(List *candidate, ParamListInfo params, SummaryProbe *like, List *like_candidate)
{
	SummaryProbe *p;

	if (like == NULL || !same_question(candidate, like_candidate))
		return probe_of(candidate, params, NULL);
	p = palloc(sizeof(SummaryProbe));
	memcpy(p, like, sizeof(SummaryProbe));
	p->leaf = (Oid) intVal(lthird(candidate));
	p->prune = false;
	return p;
}

/*
 * The probe of a candidate with this execution's values (and, given
 * econtext, its executor parameters' current values), or NULL.
 */
SummaryProbe *
probe_of(List *candidate, ParamListInfo params, ExprContext *econtext)
{
	SummaryProbe *p;
	int			k = 0;
	double		combinations = 1;
	ListCell   *lc;

	if (list_length(candidate) - 4 > SUMMARY_MAX_KEYS)
		return NULL;
	p = summary_probe_alloc(Max(list_length(candidate) - 4, 0));
	p->summary_id = intVal(lsecond(candidate));
	p->leaf = (Oid) intVal(lthird(candidate));
	for_each_from(lc, candidate, 4)
	{
		List	   *attr = lfirst(lc);
		ListCell   *s;
		List	   *values = NIL;

		p->fixed[k] = intVal(linitial(attr)) != 0;
		p->valtypes[k] = (Oid) intVal(lsecond(attr));
		p->collations[k] = (Oid) intVal(lthird(attr));
		if (p->fixed[k])
		{
			foreach(s, (List *) lfourth(attr))
			{
				List	   *source = lfirst(s);

				if (!add_source_values(lsecond(source), intVal(linitial(source)) != 0,
									   p->valtypes[k], params, econtext, &values))
					return NULL;
			}
			p->nvalues[k] = list_length(values);
			p->values[k] = palloc(sizeof(Datum) * Max(1, p->nvalues[k]));
			for (int i = 0; i < p->nvalues[k]; i++)
				p->values[k][i] = PointerGetDatum(list_nth(values, i));
			combinations *= p->nvalues[k];
		}
		k++;
	}
	p->nkeys = k;
	if (combinations > SUMMARY_MAX_PROBES)
		return NULL;
	return p;
}
