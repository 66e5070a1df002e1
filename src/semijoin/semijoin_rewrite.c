/*
 * semijoin_rewrite.c
 *	  The rewrite of a statement by the semijoin prefilter
 *	  (semijoin_internal.h): each query level and the queries below it
 *	  analyzed into candidates, the chosen ones decided by the cost rule;
 *	  then, for each chosen one, the filter written into the Query:
 *
 *		bloom_contains_typed((SELECT bloom_agg(build.k, capacity, fpp, 'blocked')
 *							  FROM build WHERE <build's own quals>),
 *							 foreign.k, '<k's declared type>',
 *							 '<the filter's collation>', '<our encoding>')
 *
 *	  added to the qual list evaluated at or below the foreign scan; for a
 *	  composite key (several equijoin clauses between the two relations)
 *
 *		bloom_contains_tuple((SELECT bloom_agg(bloom_tuple_hash(build.k1,
 *							  build.k2), capacity, fpp, 'blocked')
 *							  FROM build WHERE ...),
 *							 '{<declared types>}', '<our encoding>',
 *							 foreign.k1, foreign.k2)
 *
 *	  A probe of an expression is guarded by the check of the columns it
 *	  reads, NOT bloom_columns_agree(...) OR <probe>, and a build read
 *	  from another server is hashed locally: semijoin_types.c says which
 *	  value each side hashes.
 *
 *	  Runs in the planner hook, before each planning of the statement
 *	  (semijoin.c); matching is in semijoin_match.c, the estimates and the
 *	  rule in semijoin_cost.c.
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"

#include "pg_compat.h"
#include "semijoin/semijoin.h"
#include "semijoin/semijoin_internal.h"
#include "semijoin/semijoin_types.h"
#include "semijoin/tuple_probe.h"
#include "semijoin/typed_probe.h"

/* ---------------------------------------------------------------------
 * The candidates of a statement
 * --------------------------------------------------------------------- */

/* The queries right below q: its subqueries in FROM, then its WITH queries. */
static List *
queries_below(Query *q)
{
	List	   *below = NIL;
	ListCell   *lc;

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_SUBQUERY)
			below = lappend(below, rte->subquery);
	}
	foreach(lc, q->cteList)
	{
		Node	   *cte_query = ((CommonTableExpr *) lfirst(lc))->ctequery;

		if (IsA(cte_query, Query))
			below = lappend(below, cte_query);
	}
	return below;
}

/* Collects the sub-selects of SubLinks in an expression (not below them). */
static bool
sublink_queries_walker(Node *node, List **queries)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
	{
		*queries = lappend(*queries, ((SubLink *) node)->subselect);
		return false;
	}
	return expression_tree_walker(node, sublink_queries_walker, queries);
}

/*
 * The sub-selects of q's WHERE and join conditions: their relation may be
 * a probe side (a foreign table inside IN or EXISTS).
 */
static List *
sublink_queries(Query *q)
{
	List	   *queries = NIL;

	if (q->hasSubLinks && q->jointree != NULL)
		(void) sublink_queries_walker((Node *) q->jointree, &queries);
	return queries;
}

/*
 * True if the range table of q or of a query below it (in FROM, WITH, or
 * a sub-select of its conditions) may hold a probe side (no catalog
 * access): the gate a statement without a foreign table stops at.
 */
bool
may_have_probe(Query *q)
{
	ListCell   *lc;

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_RELATION &&
			(rte->relkind == RELKIND_FOREIGN_TABLE || rte->relkind == RELKIND_PARTITIONED_TABLE))
			return true;
	}
	foreach(lc, queries_below(q))
	{
		if (may_have_probe(lfirst(lc)))
			return true;
	}
	foreach(lc, sublink_queries(q))
	{
		if (IsA(lfirst(lc), Query) && may_have_probe(lfirst(lc)))
			return true;
	}
	return false;
}

/* The candidates of q's own level; the chosen ones join a->chosen. */
static void
analyze_level(Query *q, Analysis *a)
{
	QueryContext cx = {0};
	ListCell   *lc;

	cx.query = q;
	cx.analysis = a;
	cx.root = estimator_root(q, a->boundParams);
	match_level(&cx);
	a->chosen = list_concat(a->chosen, choose_candidates(&cx));
	estimator_done(cx.root);
	foreach(lc, cx.sub_roots)
		estimator_done(lfirst(lc));
}

/*
 * The candidates of q and the queries below it: each joins a->candidates,
 * the chosen ones also a->chosen.
 */
void
analyze_query(Query *q, Analysis *a)
{
	ListCell   *lc;

	if (!may_have_probe(q))
		return;
	if (q->commandType == CMD_SELECT && q->jointree != NULL)
		analyze_level(q, a);
	foreach(lc, queries_below(q))
		analyze_query(lfirst(lc), a);
}

/* ---------------------------------------------------------------------
 * The filter expression
 * --------------------------------------------------------------------- */

/*
 * The sub-select's copy rte of an entry of parent gets the entry's
 * permissions (since 16 kept in the Query, not the entry).
 */
static void
copy_permission(Query *parent, RangeTblEntry *rte, Query *sub)
{
#if COMPAT_HAVE_PERMINFO
	if (rte->perminfoindex != 0)
	{
		RTEPermissionInfo *perm = getRTEPermissionInfo(parent->rteperminfos, rte);

		sub->rteperminfos = list_make1(copyObject(perm));
		rte->perminfoindex = 1;
	}
#endif
}

static TargetEntry *
agg_argument(Expr *expr, int resno)
{
	return makeTargetEntry(expr, resno, NULL, false);
}

/*
 * bloom_agg(key, capacity, fpp, SEMIJOIN_FILTER_LAYOUT), with the
 * candidate's capacity and fpp: the layout the cost rule sized.
 */
static Aggref *
filter_aggref(const Candidate *c, Expr *key, const SemijoinObjects *objects)
{
	Aggref	   *agg = makeNode(Aggref);
	Const	   *capacity = makeConst(INT8OID, -1, InvalidOid, 8,
									 Int64GetDatum((int64) c->capacity), false, FLOAT8PASSBYVAL);
	Const	   *fpp = makeConst(FLOAT8OID, -1, InvalidOid, 8, Float8GetDatum(c->fpp),
								false, FLOAT8PASSBYVAL);
	Const	   *layout = makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
								   CStringGetTextDatum(SEMIJOIN_FILTER_LAYOUT), false, false);

	agg->aggfnoid = objects->agg_fn;
	agg->aggtype = objects->bloom_type;
	agg->inputcollid = c->collation;
	agg->aggargtypes = list_make4_oid(exprType((Node *) key), INT8OID, FLOAT8OID, TEXTOID);
	agg->args = list_make4(agg_argument(key, 1), agg_argument((Expr *) capacity, 2),
						   agg_argument((Expr *) fpp, 3), agg_argument((Expr *) layout, 4));
	agg->aggkind = AGGKIND_NORMAL;
	agg->aggsplit = AGGSPLIT_SIMPLE;
	agg->aggno = -1;
	agg->aggtransno = -1;
	agg->location = -1;
	return agg;
}

/*
 * What the filter holds per build row, over the build query's range
 * table: the key, or a composite key's bloom_tuple_hash(k1, k2, ...).
 */
static Expr *
filter_key(const Candidate *c, const SemijoinObjects *objects)
{
	if (c->nkeys <= 1)
		return copyObject(c->build_key);
	return (Expr *) makeFuncExpr(objects->tuple_hash_fn, INT8OID, copyObject(c->build_key_list),
								 InvalidOid, c->build_collation, COERCE_EXPLICIT_CALL);
}

/* SELECT bloom_agg(key, capacity, fpp, layout) FROM build WHERE <its quals> */
static Query *
filter_subselect(const Candidate *c, const SemijoinObjects *objects)
{
	Query	   *parent = c->build_query;
	Query	   *sub = makeNode(Query);
	RangeTblEntry *rte = copyObject(rt_fetch(c->build_rti, parent->rtable));
	Expr	   *key = filter_key(c, objects);
	Node	   *quals = (Node *) copyObject(c->build_quals);
	Index		rti = c->build_rti;
	RangeTblRef *ref = makeNode(RangeTblRef);

	/*
	 * The build relation becomes the sub-select's only entry.  Its Vars are
	 * never nulled there: the scope walk took them from where the relation
	 * is not on the nullable side of an outer join.
	 */
	ChangeVarNodes((Node *) key, rti, 1, 0);
	ChangeVarNodes(quals, rti, 1, 0);
	ChangeVarNodes((Node *) rte->securityQuals, rti, 1, 0);

	sub->commandType = CMD_SELECT;
	sub->querySource = QSRC_ORIGINAL;
	sub->canSetTag = true;
	sub->hasAggs = true;
	sub->hasRowSecurity = parent->hasRowSecurity;
	/* the entry keeps its security quals (row-level security) */
	rte->inFromCl = true;
	copy_permission(parent, rte, sub);
	sub->rtable = list_make1(rte);
	ref->rtindex = 1;
	sub->jointree = makeFromExpr(list_make1(ref),
								 quals ? (Node *) make_ands_explicit((List *) quals) : NULL);
	/* a build read from another server is hashed here, never there */
	if (semijoin_build_may_be_remote(rte))
		sub = semijoin_local_build(sub, &key);
	sub->targetList = list_make1(makeTargetEntry((Expr *) filter_aggref(c, key, objects), 1,
												 pstrdup("bloom_agg"), false));
	return sub;
}

/*
 * bloom_contains_typed((SELECT bloom_agg(...) ...), probe column,
 * '<its declared type>', '<the filter's collation>', '<our encoding>') at
 * the slot: the remote side probes only if its column is what the foreign
 * table declares (typed_probe_agrees), and passes every row otherwise.
 * An expression is shipped in the form semijoin_shipped_value gives, and
 * the probe guarded by the check of its columns (semijoin_checked_probe).
 */
static void
add_filter(const Candidate *c, const SemijoinObjects *objects)
{
	SubLink    *sublink = makeNode(SubLink);
	List	   *values = c->nkeys > 1 ? c->probe_value_list : list_make1(c->probe_value);
	List	   *shipped = NIL;
	ListCell   *lc;
	FuncExpr   *probe;

	sublink->subLinkType = EXPR_SUBLINK;
	sublink->subselect = (Node *) filter_subselect(c, objects);
	sublink->location = -1;
	foreach(lc, values)
		shipped = lappend(shipped, semijoin_shipped_value(lfirst(lc), objects->declared_value_fn));
	if (c->nkeys > 1)
		probe = makeFuncExpr(objects->tuple_probe_fn, BOOLOID,
							 tuple_probe_args((Node *) sublink, shipped),
							 InvalidOid, c->probe_collation, COERCE_EXPLICIT_CALL);
	else
		probe = makeFuncExpr(objects->probe_fn, BOOLOID,
							 typed_probe_args((Node *) sublink, linitial(shipped), c->collation),
							 InvalidOid, c->collation, COERCE_EXPLICIT_CALL);
	*c->slot = make_and_qual(*c->slot,
							 semijoin_checked_probe((Node *) probe, values,
													objects->columns_agree_fn));
	c->query->hasSubLinks = true;
}

/*
 * Adds the filters of a's chosen candidates to their queries; returns the
 * relations the filtered foreign scans read.
 */
List *
add_filters(const Analysis *a)
{
	List	   *filtered_relids = NIL;
	ListCell   *lc;

	foreach(lc, a->chosen)
	{
		Candidate  *c = lfirst(lc);

		add_filter(c, a->objects);
		filtered_relids = list_concat(filtered_relids, c->probe_relids);
	}
	return filtered_relids;
}
