/*
 * semijoin_keys.c
 *	  The keys of a candidate of the automatic semijoin prefilter
 *	  (semijoin_internal.h): each side of an equijoin clause resolved to a
 *	  key (a column through binary-compatible relabels, a column of a
 *	  join's alias resolved to its base relation's, an expression of one
 *	  relation, the sub-select's column an IN compares with through the
 *	  parser's casts), the names of keys for the log, the type and
 *	  collation checks of a key pair, and the composite candidates of the
 *	  key tuples of several clauses between one probe and one build
 *	  relation.
 *
 *	  Its own file because what a key is does not depend on where in the
 *	  statement the clause stands: semijoin_match.c walks the join tree,
 *	  its join clauses and IN/EXISTS sub-selects and asks here what each
 *	  side is.  Which value each side hashes, and the proof that the two
 *	  agree, is semijoin_types.c's.
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "semijoin/semijoin_internal.h"
#include "semijoin/semijoin_types.h"
#include "semijoin/tuple_probe.h"

/* ---------------------------------------------------------------------
 * A clause's side as a key: a column through relabels, or an expression
 * of one relation; columns of joins resolved to their base relation's;
 * the sub-select's column an IN compares with
 * --------------------------------------------------------------------- */

/* What key_var_of_level learns of an expression's columns. */
typedef struct KeyColumns
{
	Index		levelsup;
	Var		   *first;			/* the first column met */
	bool		ok;				/* all of one relation of the level, nothing else */
} KeyColumns;

static bool
key_columns_walker(Node *node, KeyColumns *kc)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varlevelsup != kc->levelsup || var->varattno <= 0 ||
			(kc->first != NULL && var->varno != kc->first->varno))
		{
			kc->ok = false;
			return true;
		}
		if (kc->first == NULL)
			kc->first = var;
		return false;
	}
	if (IsA(node, SubLink) || IsA(node, Param) || IsA(node, Aggref) ||
		IsA(node, WindowFunc) || IsA(node, PlaceHolderVar) || IsA(node, GroupingFunc))
	{
		kc->ok = false;
		return true;
	}
	return expression_tree_walker(node, key_columns_walker, kc);
}

/*
 * The column of a key of query level levelsup: the key itself under
 * binary-compatible relabeling; for an expression key, the first column
 * of the one relation it reads (the relation it belongs to).  NULL if the
 * key reads no relation or several, another query level, a system column,
 * a sub-select or a parameter, or is volatile.
 */
Var *
key_var_of_level(Node *node, Index levelsup)
{
	KeyColumns	kc = {levelsup, NULL, true};
	Node	   *plain = node;

	while (plain && IsA(plain, RelabelType))
		plain = (Node *) ((RelabelType *) plain)->arg;
	if (plain && IsA(plain, Var))
		return ((Var *) plain)->varlevelsup == levelsup && ((Var *) plain)->varattno > 0
			? (Var *) plain : NULL;
	if (node == NULL || contain_volatile_functions(node))
		return NULL;
	(void) key_columns_walker(node, &kc);
	return kc.ok ? kc.first : NULL;
}

/* The value a probe of key tests: the column, or the expression (without a top relabeling). */
Expr *
probe_value_of(Expr *key)
{
	while (IsA(key, RelabelType))
		key = ((RelabelType *) key)->arg;
	return key;
}

/* A key column of the query level itself, or NULL. */
Var *
key_var(Node *node)
{
	return key_var_of_level(node, 0);
}

/*
 * A key through join aliases: a column of a join (a USING column of a
 * nested join, a column of a join written in parentheses) resolved to the
 * column of the base relation it is; expr itself otherwise (a FULL join's
 * merged column is an expression of both sides, and stays one).
 */
Expr *
without_join_aliases(Query *q, Expr *expr)
{
	Expr	   *e = expr;

	for (;;)
	{
		Node	   *plain = (Node *) e;
		Var		   *var;
		RangeTblEntry *rte;

		while (IsA(plain, RelabelType))
			plain = (Node *) ((RelabelType *) plain)->arg;
		if (!IsA(plain, Var))
			return e;
		var = (Var *) plain;
		if (var->varlevelsup != 0 || var->varattno <= 0 || var->varno > list_length(q->rtable))
			return e;
		rte = rt_fetch(var->varno, q->rtable);
		if (rte->rtekind != RTE_JOIN || var->varattno > list_length(rte->joinaliasvars) ||
			list_nth(rte->joinaliasvars, var->varattno - 1) == NULL)
			return e;
		e = list_nth(rte->joinaliasvars, var->varattno - 1);
	}
}

/* The Param under the implicit casts the parser put on  $n, or NULL. */
static Param *
param_under_casts(Node *node)
{
	for (;;)
	{
		if (IsA(node, RelabelType) &&
			((RelabelType *) node)->relabelformat == COERCE_IMPLICIT_CAST)
			node = (Node *) ((RelabelType *) node)->arg;
		else if (IsA(node, FuncExpr) &&
				 ((FuncExpr *) node)->funcformat == COERCE_IMPLICIT_CAST)
			node = linitial(((FuncExpr *) node)->args);
		else
			return IsA(node, Param) ? (Param *) node : NULL;
	}
}

/* The casts of  $n  applied to the sub-select's column te instead. */
static Node *
cast_target_mutator(Node *node, TargetEntry *te)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_SUBLINK &&
		((Param *) node)->paramid == te->resno)
		return copyObject((Node *) te->expr);
	return expression_tree_mutator(node, cast_target_mutator, te);
}

/*
 * What the ANY clause  outer = $n  compares with: the sub-select's n-th
 * column, through the implicit casts the parser put on $n (n IN (SELECT
 * i ...) with n numeric and i bigint compares with i::numeric); NULL if
 * it is not that.
 */
Expr *
any_clause_target(OpExpr *op, List *targets)
{
	Node	   *compared = lsecond(op->args);
	Param	   *param = param_under_casts(compared);
	TargetEntry *te;

	if (param == NULL || param->paramkind != PARAM_SUBLINK ||
		param->paramid < 1 || param->paramid > list_length(targets))
		return NULL;
	te = list_nth(targets, param->paramid - 1);
	if (te->resjunk || te->resno != param->paramid)
		return NULL;
	return compared == (Node *) param ? te->expr : (Expr *) cast_target_mutator(compared, te);
}

/* ---------------------------------------------------------------------
 * The names of keys, for the log
 * --------------------------------------------------------------------- */

/* "table.column", for the log. */
static char *
column_name(Oid relid, AttrNumber attno)
{
	char	   *rel = get_rel_name(relid);
	char	   *att = get_attname(relid, attno, true);

	return psprintf("%s.%s", rel ? rel : "?", att ? att : "?");
}

/*
 * Forgets the syntactic names of columns (a column of a join's alias, met
 * through it): the key is deparsed over its relation alone.
 */
static bool
forget_join_names(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		((Var *) node)->varnosyn = ((Var *) node)->varno;
		((Var *) node)->varattnosyn = ((Var *) node)->varattno;
		return false;
	}
	return expression_tree_walker(node, forget_join_names, context);
}

/* "table.column", or for an expression key "table.<the expression>", for the log. */
char *
key_name(Oid relid, Var *var, Expr *key)
{
	Expr	   *value = probe_value_of(key);
	Node	   *copy;
	char	   *rel = get_rel_name(relid);

	if (IsA(value, Var))
		return column_name(relid, var->varattno);
	copy = copyObject((Node *) value);
	ChangeVarNodes(copy, var->varno, 1, var->varlevelsup);
	IncrementVarSublevelsUp(copy, -(int) var->varlevelsup, 0);
	(void) forget_join_names(copy, NULL);
	return psprintf("%s.%s", rel ? rel : "?",
					deparse_expression(copy, deparse_context_for(rel ? rel : "?", relid),
									   false, false));
}

/* ---------------------------------------------------------------------
 * The type checks of a key pair
 * --------------------------------------------------------------------- */

/*
 * Why the candidate's probe value cannot be tested against a filter of
 * build_key under the join operator op, or NULL.  The remote side probes
 * the value (the column, or the expression, never a relabeling of it), so
 * its type must hash like the build key's (semijoin_types.c: which value
 * each side hashes), and the join must compare under its collation.
 */
const char *
key_types_problem(OpExpr *op, Candidate *c, Expr *build_key)
{
	Node	   *value = (Node *) c->probe_value;
	const char *why;

	if ((why = semijoin_hash_problem(op->opno, exprType((Node *) build_key),
									 exprType(value))) != NULL)
		return why;
	if (OidIsValid(op->inputcollid) &&
		(exprCollation((Node *) c->probe_key) != op->inputcollid ||
		 exprCollation(value) != op->inputcollid))
		return "the join compares under another collation than the remote column's";
	return NULL;
}

/* ---------------------------------------------------------------------
 * Composite keys: several equijoin clauses between one probe and one
 * build relation make one candidate of the key tuples
 * --------------------------------------------------------------------- */

/* True if a and b filter one probe relation at one slot from one build relation. */
static bool
same_sides(const Candidate *a, const Candidate *b)
{
	return a->probe_rti == b->probe_rti && a->slot == b->slot &&
		a->build_query == b->build_query && a->build_rti == b->build_rti;
}

/* True if a candidate among keys probes the value of c already. */
static bool
probes_value(List *keys, const Candidate *c)
{
	ListCell   *lc;

	foreach(lc, keys)
	{
		if (equal(((Candidate *) lfirst(lc))->probe_value, c->probe_value))
			return true;
	}
	return false;
}

/*
 * The one collation of the keys that have one (InvalidOid if none);
 * false if two differ.
 */
static bool
common_collation(List *exprs, Oid *collation)
{
	ListCell   *lc;

	*collation = InvalidOid;
	foreach(lc, exprs)
	{
		Oid			coll = exprCollation(lfirst(lc));

		if (!OidIsValid(coll))
			continue;
		if (OidIsValid(*collation) && coll != *collation)
			return false;
		*collation = coll;
	}
	return true;
}

/* Why the composite candidate c of the single-column keys cannot be added, or NULL. */
static const char *
composite_problem(QueryContext *cx, Candidate *c, List *keys)
{
	RangeTblEntry *probe_rte = rt_fetch(c->probe_rti, c->query->rtable);
	ListCell   *lc;

	if (!OidIsValid(cx->analysis->objects->tuple_probe_fn) ||
		!OidIsValid(cx->analysis->objects->tuple_hash_fn))
		return "the extension has no composite-key probe (bloom_contains_tuple): update it";
	if (c->nkeys > TUPLE_MAX_COLUMNS)
		return "the key has too many columns";
	foreach(lc, keys)
	{
		Oid			coll = ((Candidate *) lfirst(lc))->collation;

		if (OidIsValid(coll) && !get_collation_isdeterministic(coll))
			return "a key column compares under a nondeterministic collation";
	}
	if (!common_collation(c->probe_value_list, &c->probe_collation) ||
		!common_collation(c->build_key_list, &c->build_collation))
		return "the key columns have different collations";
	if (key_among(cx->analysis->unshipped, c->probe_relids,
				  key_columns_name(probe_rte->relid, c->probe_var_list)))
		return "postgres_fdw does not ship a probe of these columns: the filter would "
			"cost without saving";
	return NULL;
}

/*
 * "table.(k1, k2)" of a composite key with an expression among its keys,
 * from the keys' own names ("table.k1", "table.<expression>").
 */
static char *
composite_name(Oid relid, List *keys, bool probe)
{
	char	   *rel = get_rel_name(relid);
	size_t		skip = strlen(rel ? rel : "?") + 1;
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s.(", rel ? rel : "?");
	foreach(lc, keys)
	{
		Candidate  *k = lfirst(lc);
		const char *name = probe ? k->probe_column : k->build_column;

		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) > 0 ? ", " : "",
						 strlen(name) > skip ? name + skip : name);
	}
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/* True if a key among keys is an expression, on the probe side or the build side. */
static bool
has_expression_key(List *keys)
{
	ListCell   *lc;

	foreach(lc, keys)
	{
		Candidate  *k = lfirst(lc);

		if (!IsA(k->probe_value, Var) || !IsA(k->build_key, Var))
			return true;
	}
	return false;
}

/* The composite candidate of keys (single-column candidates of one pair of sides). */
static void
add_composite(QueryContext *cx, List *keys)
{
	Candidate  *first = linitial(keys);
	Candidate  *c = palloc(sizeof(Candidate));
	RangeTblEntry *probe_rte = rt_fetch(first->probe_rti, first->query->rtable);
	RangeTblEntry *build_rte = rt_fetch(first->build_rti, first->build_query->rtable);
	List	   *build_vars = NIL;
	ListCell   *lc;

	*c = *first;
	c->nkeys = list_length(keys);
	c->probe_key_list = c->probe_var_list = c->probe_value_list = c->build_key_list = NIL;
	foreach(lc, keys)
	{
		Candidate  *k = lfirst(lc);

		c->probe_key_list = lappend(c->probe_key_list, k->probe_key);
		c->probe_var_list = lappend(c->probe_var_list, k->probe_var);
		c->probe_value_list = lappend(c->probe_value_list, k->probe_value);
		c->build_key_list = lappend(c->build_key_list, k->build_key);
		build_vars = lappend(build_vars, k->build_var);
	}
	c->collation = InvalidOid;
	c->probe_column = psprintf("%s.%s", get_rel_name(probe_rte->relid),
							   key_columns_name(probe_rte->relid, c->probe_var_list));
	c->build_column = psprintf("%s.%s", get_rel_name(build_rte->relid),
							   key_columns_name(build_rte->relid, build_vars));
	if (has_expression_key(keys))
	{
		c->probe_column = composite_name(probe_rte->relid, keys, true);
		c->build_column = composite_name(build_rte->relid, keys, false);
	}
	c->why = composite_problem(cx, c, keys);
	cx->analysis->candidates = lappend(cx->analysis->candidates, c);
	if (c->why == NULL)
		cx->candidates = lappend(cx->candidates, c);
}

/*
 * The composite candidates among the candidates found from position first
 * on: those not declined, grouped by their sides, one column each.
 */
void
match_composites(QueryContext *cx, int first)
{
	List	   *found = list_copy_tail(cx->analysis->candidates, first);
	List	   *grouped = NIL;
	ListCell   *lc;

	foreach(lc, found)
	{
		Candidate  *c = lfirst(lc);
		List	   *keys = NIL;
		ListCell   *o;

		if (c->why != NULL || c->nkeys > 1 || list_member_ptr(grouped, c))
			continue;
		foreach(o, found)
		{
			Candidate  *other = lfirst(o);

			if (other->why != NULL || other->nkeys > 1 || !same_sides(c, other) ||
				list_member_ptr(grouped, other))
				continue;
			grouped = lappend(grouped, other);
			if (!probes_value(keys, other))
				keys = lappend(keys, other);
		}
		if (list_length(keys) > 1)
			add_composite(cx, keys);
	}
}
