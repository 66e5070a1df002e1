/*
 * semijoin_types.c
 *	  Which value each side of a semijoin prefilter hashes
 *	  (doc/semijoin.md, "Which value each side hashes").
 *
 * The safety model.  A filter changes no result when every value the
 * probe side tests is hashed as the build side hashed the value it equals
 * under the join operator:
 *
 *  - the local value is the join operator's input on each side, after
 *    every cast, relabeling and collation the local executor applies;
 *  - the remote value is what the shipped SQL computes, on the remote
 *    server's own column types.
 *
 * A filter is shipped, or a build runs on another server, only where the
 * two are proven equal; elsewhere the rewrite declines (with the reason
 * in its log) or the remote side passes every row.  The proof, side by
 * side:
 *
 *  - The keys.  Both sides are of tables (semijoin_relation_problem): a
 *    key over a function, VALUES, a sub-select, a CTE or a join is
 *    declined.  Both hash with their types' default hash opclasses, of one
 *    family whose equality is the join operator, and the values cross
 *    servers unchanged (semijoin_hash_problem).
 *
 *  - The build side hashes its key as written in the join, every implicit
 *    cast included.  It is computed locally: a build relation read from
 *    another server is wrapped in a sub-select that postgres_fdw cannot
 *    push an aggregate into (semijoin_local_build), so bloom_agg never
 *    runs on a server whose column types may differ from the declared ones
 *    (a text declared over a remote uuid) and whose SQL would lose the
 *    implicit casts (postgres_fdw drops them when it writes SQL: a build
 *    key i::numeric becomes i, hashed as int8).
 *
 *  - The probe side.  A plain column is probed by the typed probe, which
 *    checks on the remote that the column's type is the declared one
 *    (typed_probe.c).  An expression (an implicit cast of a column
 *    included: char(8) compared with text is text(k)) is shipped with
 *    every implicit cast made explicit and every column cast explicitly to
 *    its declared type (semijoin_shipped_value), so the remote computes it
 *    on the declared types and postgres_fdw drops nothing; and it is
 *    guarded by bloom_columns_agree over the columns it reads
 *    (semijoin_checked_probe, tuple_probe.c), which holds on the remote
 *    only where every column has the declared type by the typed probe's
 *    rule.  Where it does not, the remote planner folds the guard and
 *    drops the probe: every row passes, and the expression is never
 *    computed on a column it was not written for (upper(u) over a remote
 *    uuid parses as upper(u::text) and is not evaluated).
 *
 * Everything here is plain node work and syscache lookups, run only for a
 * query that has a candidate filter.
 */
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"

#include "semijoin/semijoin_types.h"
#include "semijoin/tuple_probe.h"
#include "semijoin/typed_probe.h"

const char *
semijoin_relation_problem(RangeTblEntry *rte)
{
	if (rte->rtekind != RTE_RELATION)
		return "the other side is not a table (a function, VALUES, a sub-select, a CTE "
			"or a join): its key is not hashed";
	if (rte->tablesample != NULL)
		return "the other side is sampled";
	return NULL;
}

/*
 * True if both types' default hash opclasses (those bloom_agg and the
 * probes hash with) are of one family whose equality is opno: equal
 * values then hash alike (int4 and int8 do; int4 and numeric do not).
 */
static bool
keys_hash_alike(Oid opno, Oid build_type, Oid probe_type)
{
	Oid			build_opc = GetDefaultOpClass(build_type, HASH_AM_OID);
	Oid			probe_opc = GetDefaultOpClass(probe_type, HASH_AM_OID);
	Oid			family;

	if (!OidIsValid(build_opc) || !OidIsValid(probe_opc))
		return false;
	family = get_opclass_family(build_opc);
	if (family != get_opclass_family(probe_opc))
		return false;
	return get_op_opfamily_strategy(opno, family) == HTEqualStrategyNumber;
}

const char *
semijoin_hash_problem(Oid opno, Oid build_type, Oid probe_type)
{
	if (!keys_hash_alike(opno, build_type, probe_type))
		return "the key types do not hash alike under the join operator";
	return type_cannot_cross(probe_type);
}

const char *
semijoin_expression_problem(Node *value)
{
	ListCell   *lc;

	foreach(lc, pull_var_clause(value, 0))
	{
		Var		   *column = lfirst(lc);
		const char *why;

		if (OidIsValid(column->varcollid) && !get_collation_isdeterministic(column->varcollid))
			return "a column of the key expression has a nondeterministic collation "
				"(the remote column check holds for deterministic ones only)";
		if ((why = type_cannot_cross(column->vartype)) != NULL)
			return why;
	}
	return NULL;
}

/* True if a function, operator or type is built in or of an extension in extensions. */
static bool
object_ships(Oid classid, Oid objectid, List *extensions)
{
	Oid			ext;
	ListCell   *lc;

	if (objectid < FirstGenbkiObjectId)
		return true;
	ext = getExtensionOfObject(classid, objectid);
	if (!OidIsValid(ext))
		return false;
	foreach(lc, extensions)
	{
		if (get_extension_oid(lfirst(lc), true) == ext)
			return true;
	}
	return false;
}

/*
 * False where an expression holds a node postgres_fdw does not deparse, or
 * a function, operator or type that is neither built in nor of an
 * extension the server lists (its is_foreign_expr, conservatively: the
 * nodes every supported major ships).
 */
static bool
expression_ships_walker(Node *node, List *extensions)
{
	if (node == NULL)
		return false;
	if (!object_ships(TypeRelationId, exprType(node), extensions))
		return true;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_RelabelType:
		case T_BoolExpr:
		case T_NullTest:
		case T_ArrayExpr:
		case T_List:
			break;
		case T_FuncExpr:
			if (!object_ships(ProcedureRelationId, ((FuncExpr *) node)->funcid, extensions))
				return true;
			break;
		case T_OpExpr:
		case T_DistinctExpr:
			if (!object_ships(OperatorRelationId, ((OpExpr *) node)->opno, extensions))
				return true;
			break;
		case T_ScalarArrayOpExpr:
			if (!object_ships(OperatorRelationId, ((ScalarArrayOpExpr *) node)->opno, extensions))
				return true;
			break;
		default:
			return true;
	}
	return expression_tree_walker(node, expression_ships_walker, extensions);
}

bool
semijoin_expression_ships(Node *expr, List *extensions)
{
	return !expression_ships_walker(expr, extensions);
}

bool
semijoin_build_may_be_remote(RangeTblEntry *rte)
{
	if (rte->relkind == RELKIND_FOREIGN_TABLE || rte->relkind == RELKIND_PARTITIONED_TABLE)
		return true;
	return rte->inh && has_subclass(rte->relid);
}

Query *
semijoin_local_build(Query *inner, Expr **key)
{
	Query	   *outer = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *ref = makeNode(RangeTblRef);
	Var		   *column = makeVar(1, 1, exprType((Node *) *key), exprTypmod((Node *) *key),
								 exprCollation((Node *) *key), 0);

	/*
	 * OFFSET 0 keeps the sub-select from being pulled up: the aggregate's
	 * input is then a sub-select, never a foreign scan, and postgres_fdw
	 * ships only the scan (the columns and the quals), not the key's
	 * expression nor the aggregate.
	 */
	inner->targetList = list_make1(makeTargetEntry(*key, 1, pstrdup("key"), false));
	inner->limitOffset = (Node *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
											Int64GetDatum(0), false, FLOAT8PASSBYVAL);
	inner->hasAggs = false;

	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = inner;
	rte->eref = makeAlias("semijoin_build", list_make1(makeString(pstrdup("key"))));
	rte->inFromCl = true;
	ref->rtindex = 1;

	outer->commandType = CMD_SELECT;
	outer->querySource = QSRC_ORIGINAL;
	outer->canSetTag = true;
	outer->hasAggs = true;
	outer->hasRowSecurity = inner->hasRowSecurity;
	outer->rtable = list_make1(rte);
	outer->jointree = makeFromExpr(list_make1(ref), NULL);
	*key = (Expr *) column;
	return outer;
}

/* A column read as its declared type (its domain's base type), written as an explicit cast. */
static Node *
declared_column(Var *var, Oid declared_value_fn)
{
	int32		typmod = var->vartypmod;
	Oid			base = getBaseTypeAndTypmod(var->vartype, &typmod);

	return (Node *) makeFuncExpr(declared_value_fn, base, list_make1(copyObject(var)),
								 var->varcollid, var->varcollid, COERCE_EXPLICIT_CAST);
}

static Node *
shipped_value_mutator(Node *node, Oid *declared_value_fn)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
		return declared_column((Var *) node, *declared_value_fn);
	if (IsA(node, FuncExpr) && ((FuncExpr *) node)->funcformat == COERCE_IMPLICIT_CAST)
	{
		FuncExpr   *cast = (FuncExpr *) expression_tree_mutator(node, shipped_value_mutator,
																 declared_value_fn);

		cast->funcformat = COERCE_EXPLICIT_CAST;
		return (Node *) cast;
	}
	if (IsA(node, RelabelType) && ((RelabelType *) node)->relabelformat == COERCE_IMPLICIT_CAST)
	{
		RelabelType *relabel = (RelabelType *) expression_tree_mutator(node, shipped_value_mutator,
																	   declared_value_fn);

		relabel->relabelformat = COERCE_EXPLICIT_CAST;
		return (Node *) relabel;
	}
	return expression_tree_mutator(node, shipped_value_mutator, declared_value_fn);
}

Node *
semijoin_shipped_value(Node *value, Oid declared_value_fn)
{
	if (IsA(value, Var))
		return copyObject(value);
	return shipped_value_mutator(value, &declared_value_fn);
}

Node *
semijoin_checked_probe(Node *probe, List *values, Oid columns_agree_fn)
{
	List	   *columns = NIL;
	ListCell   *lc;
	FuncExpr   *check;

	foreach(lc, values)
	{
		Node	   *value = lfirst(lc);

		if (!IsA(value, Var))
			columns = list_concat_unique(columns, pull_var_clause(value, 0));
	}
	if (columns == NIL)
		return probe;
	check = makeFuncExpr(columns_agree_fn, BOOLOID, columns_agree_args(columns),
						 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	return (Node *) make_orclause(list_make2(make_notclause((Expr *) check), probe));
}
