/*
 * semijoin_match.c
 *	  The candidates of one query level (semijoin_internal.h): the join
 *	  tree walked into scopes, and each equijoin clause and semi-join
 *	  sub-select between a probe member and a build member matched into a
 *	  Candidate, with the gates that decide where a filter is correct.
 *	  What each side of a clause is as a key (a column, a column of a
 *	  join's alias, an expression of one relation), the type checks of a
 *	  key pair and the composite candidates of several clauses between one
 *	  foreign table and one build relation are semijoin_keys.c's; here an
 *	  expression key of the foreign side is taken only where postgres_fdw
 *	  ships it.  The foreign table may be the sub-select's own relation of
 *	  an IN or EXISTS, the filter then in its WHERE.
 *
 *	  Runs in the planner hook, before planning, once per query level that
 *	  may hold a foreign table (semijoin_rewrite.c, analyze_level).
 *
 *	  Where it is correct: inner joins, and the nullable side of an outer
 *	  join built from its preserved side; keys of tables whose values each
 *	  side hashes alike (semijoin_types.c: which value each side hashes);
 *	  no volatile build qual; not when the build side is on the
 *	  probe's own server (postgres_fdw may push the whole join; for
 *	  partitioned tables leaf by leaf); not on a column whose probe an
 *	  earlier plan of the statement kept local.
 *	  A candidate declined here keeps its reason, for the log.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/dependency.h"
#include "catalog/pg_am.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "optimizer/cost.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "pg_compat.h"
#include "helpers/extension_objects.h"
#include "semijoin/semijoin_internal.h"
#include "semijoin/semijoin_types.h"

/* ---------------------------------------------------------------------
 * The probe side: a foreign table postgres_fdw can ship the probe to
 * --------------------------------------------------------------------- */

/* The extensions a server's "extensions" option lists (NIL if none or malformed). */
static List *
server_extensions(ForeignServer *server)
{
	ListCell   *lc;

	foreach(lc, server->options)
	{
		DefElem    *def = lfirst(lc);
		List	   *names;

		if (strcmp(def->defname, "extensions") != 0)
			continue;
		if (!SplitIdentifierString(pstrdup(defGetString(def)), ',', &names))
			return NIL;
		return names;
	}
	return NIL;
}

/* True if the server is postgres_fdw's and its "extensions" list ours. */
static bool
server_ships_bloomfilter(Oid serverid)
{
	ForeignServer *server = GetForeignServer(serverid);
	ForeignDataWrapper *fdw = GetForeignDataWrapper(server->fdwid);
	char	   *handler;
	ListCell   *lc;

	if (!OidIsValid(fdw->fdwhandler))
		return false;
	handler = get_func_name(fdw->fdwhandler);
	if (handler == NULL || strcmp(handler, "postgres_fdw_handler") != 0)
		return false;
	foreach(lc, server_extensions(server))
	{
		if (strcmp((char *) lfirst(lc), EXTENSION_NAME) == 0)
			return true;
	}
	return false;
}

/*
 * The relations one scan of rte reads: itself, or with inheritance
 * (partitions) every member.
 */
static List *
scanned_relations(RangeTblEntry *rte)
{
	if (rte->inh && has_subclass(rte->relid))
		return find_all_inheritors(rte->relid, NoLock, NULL);
	return list_make1_oid(rte->relid);
}

/*
 * How many foreign scans receive the filter if rte is the probe side: 1 for
 * a foreign table, one per partition for a partitioned table whose leaves
 * are all foreign tables of shipping servers; 0 (with *why) if the probe
 * cannot be shipped.  *leaves and *servers: the leaves scanned and the
 * server of each, in the same order.
 */
static int
probe_scans(RangeTblEntry *rte, List **leaves, List **servers, const char **why)
{
	List	   *rels;
	ListCell   *lc;
	int			scans = 0;

	*leaves = NIL;
	*servers = NIL;
	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL ||
		(rte->relkind != RELKIND_FOREIGN_TABLE && rte->relkind != RELKIND_PARTITIONED_TABLE))
	{
		*why = "not a foreign table";
		return 0;
	}
	rels = scanned_relations(rte);
	foreach(lc, rels)
	{
		Oid			relid = lfirst_oid(lc);
		char		relkind = get_rel_relkind(relid);
		Oid			serverid;

		if (relkind == RELKIND_PARTITIONED_TABLE)
			continue;
		if (relkind != RELKIND_FOREIGN_TABLE)
		{
			*why = "a partition is not a foreign table";
			return 0;
		}
		serverid = GetForeignTable(relid)->serverid;
		if (!server_ships_bloomfilter(serverid))
		{
			*why = "its server is not postgres_fdw with bloomfilter in its extensions option";
			return 0;
		}
		*leaves = lappend_oid(*leaves, relid);
		*servers = lappend_oid(*servers, serverid);
		scans++;
	}
	if (scans == 0)
		*why = "no partition";
	return scans;
}

/* ---------------------------------------------------------------------
 * The scopes of a jointree
 *
 * A scope is a set of base relations inner-joined together, with the
 * conjuncts every row it produces satisfies.  The preserved side of an
 * outer join belongs to the scope around it; the nullable side starts a
 * scope of its own, linked to the preserved one through the join's ON
 * clause.  A filter on a member is added at the scope's slot, a qual list
 * evaluated at or below the member's scan (the WHERE clause, or the ON
 * clause of the outer join whose nullable side the scope is).
 * --------------------------------------------------------------------- */

typedef struct Scope
{
	Relids		members;
	List	   *conjuncts;
	Node	  **slot;			/* NULL: no filter may be added here */
} Scope;

/* Join clauses between a probe scope and the scope that may build for it. */
typedef struct Link
{
	Scope	   *probe;
	Scope	   *build;
	Node	   *clauses;		/* NULL: the probe scope's own conjuncts */
	Node	  **slot;
} Link;

static Scope *
new_scope(Node **slot)
{
	Scope	   *scope = palloc0(sizeof(Scope));

	scope->slot = slot;
	return scope;
}

static void
add_link(List **links, Scope *probe, Scope *build, Node *clauses, Node **slot)
{
	Link	   *link = palloc0(sizeof(Link));

	link->probe = probe;
	link->build = build;
	link->clauses = clauses;
	link->slot = slot;
	*links = lappend(*links, link);
}

static void walk_jointree(Node *node, Scope *scope, List **links);

/* The nullable side of outer join j: its own scope, filtered in j's ON. */
static void
walk_nullable(JoinExpr *j, Node *side, Scope *preserved, List **links)
{
	Scope	   *nullable = new_scope(&j->quals);

	walk_jointree(side, nullable, links);
	add_link(links, nullable, nullable, NULL, &j->quals);
	if (preserved != NULL)
		add_link(links, nullable, preserved, j->quals, &j->quals);
}

/* A side of a full join: filtered only inside, if it is an inner join. */
static void
walk_full_side(Node *side, List **links)
{
	Node	  **slot = NULL;
	Scope	   *scope;

	if (IsA(side, JoinExpr) && ((JoinExpr *) side)->jointype == JOIN_INNER)
		slot = &((JoinExpr *) side)->quals;
	scope = new_scope(slot);
	walk_jointree(side, scope, links);
	add_link(links, scope, scope, NULL, slot);
}

/* A join: its inner sides join the scope, a nullable side starts its own. */
static void
walk_join(JoinExpr *j, Scope *scope, List **links)
{
	switch (j->jointype)
	{
		case JOIN_INNER:
			walk_jointree(j->larg, scope, links);
			walk_jointree(j->rarg, scope, links);
			scope->conjuncts = list_concat(scope->conjuncts,
										   make_ands_implicit((Expr *) j->quals));
			break;
		case JOIN_LEFT:
			walk_jointree(j->larg, scope, links);
			walk_nullable(j, j->rarg, scope, links);
			break;
		case JOIN_RIGHT:
			walk_jointree(j->rarg, scope, links);
			walk_nullable(j, j->larg, scope, links);
			break;
		default:
			/* full join: no side is nullable only */
			walk_full_side(j->larg, links);
			walk_full_side(j->rarg, links);
			break;
	}
}

/* The members and conjuncts of node's scope; the links of the scopes below. */
static void
walk_jointree(Node *node, Scope *scope, List **links)
{
	if (node == NULL)
		return;
	if (IsA(node, RangeTblRef))
		scope->members = bms_add_member(scope->members, ((RangeTblRef *) node)->rtindex);
	else if (IsA(node, FromExpr))
	{
		FromExpr   *f = (FromExpr *) node;
		ListCell   *lc;

		foreach(lc, f->fromlist)
			walk_jointree(lfirst(lc), scope, links);
		scope->conjuncts = list_concat(scope->conjuncts,
									   make_ands_implicit((Expr *) f->quals));
	}
	else if (IsA(node, JoinExpr))
		walk_join((JoinExpr *) node, scope, links);
}

/* ---------------------------------------------------------------------
 * Candidates: an equijoin clause between a probe member and a build member
 * --------------------------------------------------------------------- */

static bool
refers_to_outer_query(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varlevelsup > 0;
	return expression_tree_walker(node, refers_to_outer_query, context);
}

/*
 * The conjuncts that restrict relation rti alone and can be copied into the
 * filter's sub-select.  Others are left out: the filter then holds a
 * superset of the keys, which is still correct.  *volatile_qual: a
 * conjunct of rti is volatile (the caller declines: copying it would
 * evaluate it a second time, with another outcome).
 */
static List *
own_conjuncts(PlannerInfo *root, List *conjuncts, Index rti, bool *volatile_qual)
{
	List	   *own = NIL;
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		Node	   *qual = lfirst(lc);
		Relids		varnos;

		if (checkExprHasSubLink(qual) || refers_to_outer_query(qual, NULL))
			continue;
		varnos = pull_varnos(root, qual);
		if (!bms_is_member(rti, varnos))
			continue;
		if (contain_volatile_functions(qual))
			*volatile_qual = true;
		if (bms_membership(varnos) == BMS_SINGLETON)
			own = lappend(own, qual);
	}
	return own;
}

/* The servers of the foreign tables a scan of rte reads (its leaves). */
static List *
servers_read(RangeTblEntry *rte)
{
	List	   *servers = NIL;
	ListCell   *lc;

	foreach(lc, scanned_relations(rte))
	{
		Oid			relid = lfirst_oid(lc);

		if (get_rel_relkind(relid) == RELKIND_FOREIGN_TABLE)
			servers = list_append_unique_oid(servers, GetForeignTable(relid)->serverid);
	}
	return servers;
}

/*
 * True if postgres_fdw may send the join of probe and build to a server
 * both read: two foreign tables (or a partitioned probe against a foreign
 * table, kept declined as before), or two partitioned tables joined
 * partition by partition (enable_partitionwise_join), each pair of leaves
 * on one server becoming one remote join.  A foreign table against a
 * partitioned build side is never one remote join.
 */
static bool
join_may_go_remote(RangeTblEntry *probe, RangeTblEntry *build)
{
	bool		probe_parted = probe->relkind == RELKIND_PARTITIONED_TABLE;
	bool		build_parted = build->relkind == RELKIND_PARTITIONED_TABLE;

	if (!build_parted)
		return build->relkind == RELKIND_FOREIGN_TABLE;
	return probe_parted && enable_partitionwise_join;
}

/* The rows ANALYZE counted in a relation, 0 if unknown. */
static double
stored_rows(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	double		rows = 0;

	if (HeapTupleIsValid(tup))
	{
		rows = Max(0.0, ((Form_pg_class) GETSTRUCT(tup))->reltuples);
		ReleaseSysCache(tup);
	}
	return rows;
}

/*
 * Why rte cannot be a build side for the probe's leaves (on servers, in
 * the same order), or NULL.  Leaf by leaf: a probe leaf on a server that
 * also holds the build side (or a leaf of it) may be joined there by
 * postgres_fdw, the filter then only adding a scan; if every probe leaf
 * is so, the filter is declined, and otherwise *local_share is the share
 * of the probe's rows (by ANALYZE's counts, else by leaves) whose join is
 * local, the only rows the filter can save.
 */
static const char *
build_side_problem(RangeTblEntry *rte, RangeTblEntry *probe, List *leaves, List *servers,
				   double *local_share)
{
	List	   *build_servers;
	const char *why;
	double		all = 0,
				local = 0;
	int			nlocal = 0;
	ListCell   *l,
			   *s;

	*local_share = 1.0;
	if ((why = semijoin_relation_problem(rte)) != NULL)
		return why;
	if (!join_may_go_remote(probe, rte))
		return NULL;
	build_servers = servers_read(rte);
	forboth(l, leaves, s, servers)
	{
		double		rows = stored_rows(lfirst_oid(l));

		all += rows;
		if (list_member_oid(build_servers, lfirst_oid(s)))
			continue;
		local += rows;
		nlocal++;
	}
	if (nlocal == 0)
		return "both sides are on the same server (postgres_fdw may push the whole join, "
			"or each pair of partitions)";
	*local_share = all > 0 ? local / all : (double) nlocal / list_length(leaves);
	return NULL;
}

/* Where the rows of a build side come from. */
typedef struct BuildSide
{
	Query	   *query;			/* whose range table holds the build relation */
	PlannerInfo *root;			/* estimates over that query */
	List	   *conjuncts;		/* conditions every build row satisfies */
	Var		   *var;			/* the build key's column */
	Expr	   *key;			/* the build key as written */
} BuildSide;

/*
 * Why postgres_fdw would not ship an expression key to every server of
 * the probe, or NULL: a mutable function (the remote would compute it
 * under its own settings), or what semijoin_expression_ships refuses.
 */
static const char *
expression_problem(Node *expr, List *servers)
{
	ListCell   *lc;

	if (contain_mutable_functions(expr))
		return "the key expression is not immutable: postgres_fdw does not ship it";
	foreach(lc, servers)
	{
		if (!semijoin_expression_ships(expr, server_extensions(GetForeignServer(lfirst_oid(lc)))))
			return "the key expression uses a function, operator or type that postgres_fdw does "
				"not ship (not built in, nor of an extension in the server's extensions option)";
	}
	return NULL;
}

/* Why the probe of the candidate's value cannot be added at all, or NULL. */
static const char *
probe_problem(QueryContext *cx, OpExpr *op, Candidate *c, BuildSide *build)
{
	RangeTblEntry *probe_rte = rt_fetch(c->probe_rti, cx->query->rtable);
	RangeTblEntry *build_rte = rt_fetch(build->var->varno, build->query->rtable);
	Node	   *value = (Node *) c->probe_value;
	bool		expression = !IsA(value, Var);
	List	   *leaves;
	List	   *servers;
	const char *why = NULL;

	c->scans = probe_scans(probe_rte, &leaves, &servers, &why);
	if (c->scans == 0)
		return why;
	why = build_side_problem(build_rte, probe_rte, leaves, servers, &c->local_share);
	if (why != NULL)
		return why;

	if ((why = key_types_problem(op, c, build->key)) != NULL)
		return why;
	if (expression && (!OidIsValid(cx->analysis->objects->columns_agree_fn) ||
					   !OidIsValid(cx->analysis->objects->declared_value_fn)))
		return "the extension has no column check for expression keys "
			"(bloom_columns_agree): update it";
	if (expression && ((why = semijoin_expression_problem(value)) != NULL ||
					   (why = expression_problem(value, servers)) != NULL))
		return why;
	if (expression ? key_among(cx->analysis->unshipped, c->probe_relids, EXPRESSION_KEY_NAME)
		: column_among(cx->analysis->unshipped, c->probe_relids, c->probe_var, probe_rte))
		return "postgres_fdw does not ship a probe of this column (its type, collation "
			"or server rules keep it local): the filter would cost without saving";
	return NULL;
}

/* A new candidate for  probe_key = build->key  under op, at the link's slot. */
static Candidate *
new_candidate(QueryContext *cx, Link *link, OpExpr *op, Var *probe_var, Expr *probe_key,
			  BuildSide *build)
{
	RangeTblEntry *probe_rte = rt_fetch(probe_var->varno, cx->query->rtable);
	RangeTblEntry *build_rte = rt_fetch(build->var->varno, build->query->rtable);
	Candidate  *c = palloc0(sizeof(Candidate));

	c->query = cx->query;
	c->probe_root = cx->root;
	c->nkeys = 1;
	c->slot = link->slot;
	c->probe_rti = probe_var->varno;
	c->build_query = build->query;
	c->build_root = build->root;
	c->build_rti = build->var->varno;
	c->probe_key = probe_key;
	c->probe_var = probe_var;
	c->probe_value = probe_value_of(probe_key);
	c->build_var = build->var;
	c->build_key = build->key;
	c->collation = op->inputcollid;
	c->probe_column = key_name(probe_rte->relid, probe_var, probe_key);
	c->build_column = build_rte->rtekind == RTE_RELATION
		? key_name(build_rte->relid, build->var, build->key)
		: psprintf("%s.(key)", build_rte->eref->aliasname);
	c->probe_relids = scanned_relations(probe_rte);
	return c;
}

/*
 * Collects the conjuncts the candidate's estimates and its filter's
 * sub-select use: the probe member's own (in its scope, and in the ON
 * clause that links the scope to the build side) and the build member's.
 * Returns why the filter cannot be added, or NULL.
 */
static const char *
collect_quals(QueryContext *cx, Link *link, BuildSide *build, Candidate *c)
{
	bool		volatile_qual = false;

	c->probe_quals = own_conjuncts(cx->root, link->probe->conjuncts, c->probe_rti,
								   &volatile_qual);
	if (link->clauses != NULL)
		c->probe_quals = list_concat(c->probe_quals,
									 own_conjuncts(cx->root, make_ands_implicit((Expr *) link->clauses),
												   c->probe_rti, &volatile_qual));
	volatile_qual = false;
	c->build_quals = own_conjuncts(build->root, build->conjuncts, c->build_rti,
								   &volatile_qual);
	return volatile_qual ? "a condition on the other side is volatile" : NULL;
}

/*
 * A candidate for  probe_key = build->key  under operator op, with the
 * probe a member of link->probe; declined candidates are kept with the
 * reason, for the log.
 */
static void
match_clause(QueryContext *cx, Link *link, OpExpr *op, Var *probe_var, Expr *probe_key,
			 BuildSide *build)
{
	RangeTblEntry *probe_rte = rt_fetch(probe_var->varno, cx->query->rtable);
	Candidate  *c;

	if (probe_rte->rtekind != RTE_RELATION ||
		(probe_rte->relkind != RELKIND_FOREIGN_TABLE &&
		 probe_rte->relkind != RELKIND_PARTITIONED_TABLE))
		return;
	c = new_candidate(cx, link, op, probe_var, probe_key, build);
	c->why = probe_problem(cx, op, c, build);
	if (c->why == NULL)
		c->why = collect_quals(cx, link, build, c);
	cx->analysis->candidates = lappend(cx->analysis->candidates, c);
	if (c->why == NULL)
		cx->candidates = lappend(cx->candidates, c);
}

/* A join clause  a.k = b.k  of the link, tried both ways round. */
static void
match_join_clause(QueryContext *cx, Link *link, OpExpr *op)
{
	Expr	   *lexpr = without_join_aliases(cx->query, linitial(op->args));
	Expr	   *rexpr = without_join_aliases(cx->query, lsecond(op->args));
	Var		   *left = key_var((Node *) lexpr);
	Var		   *right = key_var((Node *) rexpr);
	BuildSide	build = {cx->query, cx->root, link->build->conjuncts, NULL, NULL};

	if (left == NULL || right == NULL || left->varno == right->varno)
		return;
	if (bms_is_member(left->varno, link->probe->members) &&
		bms_is_member(right->varno, link->build->members))
	{
		build.var = right;
		build.key = rexpr;
		match_clause(cx, link, op, left, lexpr, &build);
	}
	if (bms_is_member(right->varno, link->probe->members) &&
		bms_is_member(left->varno, link->build->members))
	{
		build.var = left;
		build.key = lexpr;
		match_clause(cx, link, op, right, rexpr, &build);
	}
}

/*
 * True if a sub-select reads one relation with a plain WHERE: its rows
 * are that relation's rows that pass the WHERE.
 */
static bool
simple_subselect(Query *sub)
{
	return sub->commandType == CMD_SELECT && list_length(sub->rtable) == 1 &&
		sub->jointree != NULL && list_length(sub->jointree->fromlist) == 1 &&
		IsA(linitial(sub->jointree->fromlist), RangeTblRef) &&
		sub->groupClause == NIL && sub->groupingSets == NIL && sub->havingQual == NULL &&
		!sub->hasAggs && !sub->hasWindowFuncs && !sub->hasTargetSRFs &&
		sub->setOperations == NULL && sub->limitCount == NULL && sub->limitOffset == NULL &&
		sub->cteList == NIL && sub->rowMarks == NIL;
}

/* An estimator root over a sub-select, freed with the level's (analyze_level). */
static PlannerInfo *
sub_root(QueryContext *cx, Query *sub)
{
	PlannerInfo *root = estimator_root(sub, cx->root->glob->boundParams);

	cx->sub_roots = lappend(cx->sub_roots, root);
	return root;
}

/*
 * The clauses of an ANY sub-link's test, each  outer = $n  with $n the
 * sub-select's n-th column: one for  k IN (SELECT ...), one per column
 * for a row  (k1, k2) IN (SELECT x, y ...)  or  (k1, k2) = ANY (...),
 * which the parser makes an AND of them.  NIL for any other test.
 */
static List *
any_sublink_clauses(SubLink *sublink)
{
	Node	   *test = sublink->testexpr;
	List	   *clauses;
	ListCell   *lc;

	if (test == NULL)
		return NIL;
	clauses = is_andclause(test) ? ((BoolExpr *) test)->args : list_make1(test);
	foreach(lc, clauses)
	{
		OpExpr	   *op = lfirst(lc);

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			return NIL;
	}
	return clauses;
}

/*   probe.k IN (SELECT b.k FROM b WHERE ...), and per column of a row IN */
static void
match_any_sublink(QueryContext *cx, Link *link, SubLink *sublink, BuildSide *build)
{
	ListCell   *lc;

	foreach(lc, any_sublink_clauses(sublink))
	{
		OpExpr	   *op = lfirst(lc);
		Expr	   *probe_key = linitial(op->args);
		Var		   *probe_var = key_var((Node *) probe_key);

		build->key = any_clause_target(op, build->query->targetList);
		build->var = build->key ? key_var((Node *) build->key) : NULL;
		if (probe_var == NULL || build->var == NULL ||
			!bms_is_member(probe_var->varno, link->probe->members))
			continue;
		if (build->root == NULL)
			build->root = sub_root(cx, build->query);
		match_clause(cx, link, op, probe_var, probe_key, build);
	}
}

/*
 * A conjunct  inner = outer  of an EXISTS sub-select, outer a column of
 * the probe's level (side: the argument of op that is outer).
 */
static void
match_correlation(QueryContext *cx, Link *link, OpExpr *op, int side, BuildSide *build)
{
	Expr	   *outer = list_nth(op->args, side);
	Expr	   *inner = list_nth(op->args, 1 - side);
	Var		   *outer_var = key_var_of_level((Node *) outer, 1);
	Expr	   *probe_key;

	build->var = key_var((Node *) inner);
	if (outer_var == NULL || build->var == NULL ||
		!bms_is_member(outer_var->varno, link->probe->members))
		return;
	/* the probe key as seen from the probe's own level */
	probe_key = copyObject(outer);
	IncrementVarSublevelsUp((Node *) probe_key, -1, 0);
	build->key = inner;
	if (build->root == NULL)
		build->root = sub_root(cx, build->query);
	match_clause(cx, link, op, key_var((Node *) probe_key), probe_key, build);
}

/*   EXISTS (SELECT ... FROM b WHERE b.k = probe.k AND ...): each conjunct */
static void
match_exists_sublink(QueryContext *cx, Link *link, BuildSide *build)
{
	ListCell   *lc;

	foreach(lc, build->conjuncts)
	{
		OpExpr	   *op = lfirst(lc);

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			continue;
		for (int side = 0; side < 2; side++)
			match_correlation(cx, link, op, side, build);
	}
}

/*
 * The foreign table inside a semi-join sub-select, probed with the keys
 * of a relation of the outer scope (the build side), the filter added to
 * the sub-select's WHERE:
 *
 *		c.k IN (SELECT o.k FROM remote o WHERE ...)
 *		EXISTS (SELECT 1 FROM remote o WHERE o.k = c.k AND ...)
 *
 * The sub-select is a conjunct of the outer scope, so only outer rows that
 * pass the build relation's own conditions there can keep their result;
 * a remote row whose key no such row has decides no kept row.
 */
typedef struct InnerProbe
{
	QueryContext cx;			/* the sub-select's level */
	Link		link;			/* from its one relation to the outer scope */
	Link	   *outer;			/* the outer scope's link (its probe scope holds the build) */
	Query	   *outer_query;
	PlannerInfo *outer_root;
} InnerProbe;

/* A key pair  outer = inner  of the sub-select; outer_key seen from the outer level. */
static void
match_inner_key(InnerProbe *ip, OpExpr *op, Expr *outer_key, Expr *inner_key)
{
	BuildSide	build = {ip->outer_query, ip->outer_root, ip->outer->probe->conjuncts, NULL, outer_key};
	Var		   *probe_var = key_var((Node *) inner_key);

	build.var = key_var((Node *) outer_key);
	if (probe_var == NULL || build.var == NULL ||
		!bms_is_member(build.var->varno, ip->outer->probe->members))
		return;
	match_clause(&ip->cx, &ip->link, op, probe_var, inner_key, &build);
}

/*   outer.k IN (SELECT o.k FROM remote o WHERE ...), and per column of a row IN */
static void
match_inner_any(InnerProbe *ip, SubLink *sublink)
{
	ListCell   *lc;

	foreach(lc, any_sublink_clauses(sublink))
	{
		OpExpr	   *op = lfirst(lc);
		Expr	   *inner_key = any_clause_target(op, ip->cx.query->targetList);

		if (inner_key != NULL)
			match_inner_key(ip, op, linitial(op->args), inner_key);
	}
}

/*   EXISTS (SELECT ... FROM remote o WHERE o.k = outer.k AND ...): each conjunct */
static void
match_inner_exists(InnerProbe *ip)
{
	ListCell   *lc;

	foreach(lc, ip->link.probe->conjuncts)
	{
		OpExpr	   *op = lfirst(lc);

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			continue;
		for (int side = 0; side < 2; side++)
		{
			Expr	   *outer = list_nth(op->args, side);
			Expr	   *outer_key;

			if (key_var_of_level((Node *) outer, 1) == NULL)
				continue;
			/* the build key as seen from the outer level */
			outer_key = copyObject(outer);
			IncrementVarSublevelsUp((Node *) outer_key, -1, 0);
			match_inner_key(ip, op, outer_key, list_nth(op->args, 1 - side));
		}
	}
}

/* The candidates with the sub-select's relation as the probe side. */
static void
match_inner_probe(QueryContext *cx, Link *link, SubLink *sublink, Query *sub)
{
	InnerProbe	ip = {{0}};
	Scope	   *scope = new_scope(&sub->jointree->quals);
	RangeTblEntry *rte = linitial(sub->rtable);

	if (rte->rtekind != RTE_RELATION ||
		(rte->relkind != RELKIND_FOREIGN_TABLE && rte->relkind != RELKIND_PARTITIONED_TABLE))
		return;
	scope->members = bms_make_singleton(((RangeTblRef *) linitial(sub->jointree->fromlist))->rtindex);
	scope->conjuncts = make_ands_implicit((Expr *) sub->jointree->quals);
	ip.cx.query = sub;
	ip.cx.root = sub_root(cx, sub);
	ip.cx.analysis = cx->analysis;
	ip.link.probe = scope;
	ip.link.build = link->probe;
	ip.link.slot = scope->slot;
	ip.outer = link;
	ip.outer_query = cx->query;
	ip.outer_root = cx->root;
	if (sublink->subLinkType == ANY_SUBLINK)
		match_inner_any(&ip, sublink);
	else if (sublink->subLinkType == EXISTS_SUBLINK)
		match_inner_exists(&ip);
	/* their composite candidates: with the link's own (match_link) */
	cx->candidates = list_concat(cx->candidates, ip.cx.candidates);
}

/*
 * A semi join written as a sub-select, a conjunct of a scope (IN or
 * EXISTS).  Rows without a match fail the conjunct, as in a join: the
 * outer relation may be the probe (the sub-select builds), or the
 * sub-select's relation (the outer one builds).
 */
static void
match_sublink(QueryContext *cx, Link *link, SubLink *sublink)
{
	Query	   *sub = (Query *) sublink->subselect;
	BuildSide	build = {sub, NULL, NIL, NULL, NULL};

	if (!simple_subselect(sub))
		return;
	build.conjuncts = make_ands_implicit((Expr *) sub->jointree->quals);
	if (sublink->subLinkType == ANY_SUBLINK)
		match_any_sublink(cx, link, sublink, &build);
	else if (sublink->subLinkType == EXISTS_SUBLINK)
		match_exists_sublink(cx, link, &build);
	match_inner_probe(cx, link, sublink, sub);
}

/* The join clauses and semi-join sub-selects of a link. */
static void
match_link(QueryContext *cx, Link *link)
{
	List	   *clauses;
	ListCell   *lc;
	int			first = list_length(cx->analysis->candidates);

	if (link->slot == NULL)
		return;
	clauses = link->clauses ? make_ands_implicit((Expr *) link->clauses) : link->probe->conjuncts;
	foreach(lc, clauses)
	{
		Node	   *clause = lfirst(lc);

		if (IsA(clause, OpExpr) && list_length(((OpExpr *) clause)->args) == 2)
			match_join_clause(cx, link, (OpExpr *) clause);
		else if (IsA(clause, SubLink) && link->clauses == NULL)
			match_sublink(cx, link, (SubLink *) clause);
	}
	match_composites(cx, first);
}

/*
 * The candidates of cx's query level: every scope of its join tree, and
 * the whole level's WHERE as the top one.  Each joins cx->analysis's
 * list; those not declined also cx->candidates.
 */
void
match_level(QueryContext *cx)
{
	Scope	   *top = new_scope(&cx->query->jointree->quals);
	List	   *links = NIL;
	ListCell   *lc;

	walk_jointree((Node *) cx->query->jointree, top, &links);
	add_link(&links, top, top, NULL, top->slot);
	foreach(lc, links)
		match_link(cx, lfirst(lc));
}
