/*
 * semijoin.c
 *	  The automatic semijoin prefilter (doc/semijoin.md).
 *
 *	  A planner hook rewrites the Query before planning, the way the manual
 *	  recipe reads: for an equijoin  foreign.k = build.k  where the foreign
 *	  table belongs to a postgres_fdw server whose "extensions" option lists
 *	  bloomfilter, it adds to the foreign side the conjunct
 *
 *		bloom_contains((SELECT bloom_agg(build.k, capacity, fpp)
 *						FROM build WHERE <build's own quals>), foreign.k)
 *
 *	  The sub-select is uncorrelated, so the planner makes it an InitPlan:
 *	  it runs once, and postgres_fdw ships the probe in the Remote SQL with
 *	  the filter as a parameter.  Rows of the foreign table whose key no
 *	  build row has can join nothing, so removing them changes no result.
 *
 *	  Where it is correct (the gates of is_build_side, probe_scans,
 *	  keys_hash_alike and the scope walk): inner joins, and the nullable side
 *	  of an outer join built from its preserved side; keys whose types hash
 *	  alike under the join operator's hash opfamily; no volatile build qual;
 *	  not when the build side is on the probe's own server (postgres_fdw may
 *	  push the whole join); not when the plan rescans the filtered foreign
 *	  scan with nested-loop parameters (plan_rescans_filter).
 *
 *	  Where it pays (estimate_candidate): a closed-form rule on the planner's
 *	  statistics, written down in doc/semijoin.md.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_am.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "parser/parse_func.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "partitioning/partdesc.h"
#include "rewrite/rewriteManip.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "pg_compat.h"
#include "planner/semijoin.h"

#define EXTENSION_NAME		"bloomfilter"

/* ---------------------------------------------------------------------
 * Settings
 * --------------------------------------------------------------------- */

typedef enum SemijoinLog
{
	SEMIJOIN_LOG_OFF,
	SEMIJOIN_LOG_NOTICE,
	SEMIJOIN_LOG_LOG
} SemijoinLog;

static const struct config_enum_entry semijoin_log_options[] = {
	{"off", SEMIJOIN_LOG_OFF, false},
	{"notice", SEMIJOIN_LOG_NOTICE, false},
	{"log", SEMIJOIN_LOG_LOG, false},
	{"on", SEMIJOIN_LOG_NOTICE, true},
	{NULL, 0, false}
};

static bool semijoin_prefilter = true;
static int	semijoin_log = SEMIJOIN_LOG_OFF;
static int	semijoin_min_rows_saved = 10000;
static double semijoin_max_pass_rate = 0.5;
static int	semijoin_max_filter_kb = 16384;

/*
 * The constants of the rule (doc/semijoin.md): the filter travels as text,
 * about 4/3 of its binary size; it must save at least SAVE_FACTOR times the
 * bytes it costs to send; the fpp is chosen within [FPP_MIN, FPP_MAX]; the
 * capacity asked of bloom_agg is CAPACITY_MARGIN times the estimated
 * distinct build keys, so an estimate a little low still meets the fpp.
 */
#define TEXT_FACTOR			(4.0 / 3.0)
#define SAVE_FACTOR			2.0
#define FPP_MIN				0.0001
#define FPP_MAX				0.1
#define CAPACITY_MARGIN		1.25
#define CAPACITY_MIN		16.0
/* bloomfilter.semijoin_max_filter_size at most 1 GB, the largest filter */
#define MAX_FILTER_KB		(1024 * 1024)
/* bytes of a DataRow message and of each field's length word */
#define ROW_OVERHEAD_BYTES	7.0
#define FIELD_OVERHEAD_BYTES 4.0

static planner_hook_type prev_planner_hook = NULL;

/* ---------------------------------------------------------------------
 * What differs between the majors (the tests are in pg_compat.h)
 * --------------------------------------------------------------------- */

/* The schema an extension is installed in (also used by distributed_agg.c). */
Oid
bf_extension_schema(Oid ext)
{
#if BF_HAVE_GET_EXTENSION_SCHEMA
	return get_extension_schema(ext);
#else
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			schema = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		schema = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return schema;
#endif
}

/* True if the current user may execute the function (also distributed_agg.c). */
bool
bf_may_execute(Oid fn)
{
#if BF_HAVE_OBJECT_ACLCHECK
	return object_aclcheck(ProcedureRelationId, fn, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK;
#else
	return pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK;
#endif
}

/*
 * The sub-select's copy rte of an entry of parent gets the entry's
 * permissions (since 16 kept in the Query, not the entry).
 */
static void
bf_copy_permission(Query *parent, RangeTblEntry *rte, Query *sub)
{
#if BF_HAVE_PERMINFO
	if (rte->perminfoindex != 0)
	{
		RTEPermissionInfo *perm = getRTEPermissionInfo(parent->rteperminfos, rte);

		sub->rteperminfos = list_make1(copyObject(perm));
		rte->perminfoindex = 1;
	}
#endif
}

/* ---------------------------------------------------------------------
 * The extension's objects, by name in its own schema
 * --------------------------------------------------------------------- */

typedef struct BloomObjects
{
	Oid			schema;
	Oid			bloom_type;
	Oid			contains_fn;	/* bloom_contains(bloom, anyelement) */
	Oid			agg_fn;			/* bloom_agg(anyelement, bigint, float8) */
} BloomObjects;

/*
 * Cached per backend.  Checked on each use with one syscache probe (the
 * function must still exist under its name and schema), so a dropped or
 * re-created extension is looked up again.
 */
static BloomObjects cached_objects;

static bool
cached_objects_valid(void)
{
	HeapTuple	tup;
	bool		valid;
	Form_pg_proc proc;

	if (!OidIsValid(cached_objects.contains_fn))
		return false;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(cached_objects.contains_fn));
	if (!HeapTupleIsValid(tup))
		return false;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	valid = proc->pronamespace == cached_objects.schema &&
		strcmp(NameStr(proc->proname), "bloom_contains") == 0;
	ReleaseSysCache(tup);
	return valid;
}

/* The function schema_name.name(argtypes), or InvalidOid (also distributed_agg.c). */
Oid
bf_function_in_schema(const char *schema_name, const char *name, int nargs,
					  const Oid *argtypes)
{
	List	   *qualified = list_make2(makeString(pstrdup(schema_name)),
									   makeString(pstrdup(name)));

	return LookupFuncName(qualified, nargs, argtypes, true);
}

/* The extension's objects, or false if it is not installed in this database. */
static bool
lookup_objects(BloomObjects *out)
{
	Oid			ext;
	char	   *schema_name;
	Oid			contains_args[2];
	Oid			agg_args[3] = {ANYELEMENTOID, INT8OID, FLOAT8OID};

	if (cached_objects_valid())
	{
		*out = cached_objects;
		return true;
	}
	memset(&cached_objects, 0, sizeof(cached_objects));
	ext = get_extension_oid(EXTENSION_NAME, true);
	if (!OidIsValid(ext))
		return false;
	out->schema = bf_extension_schema(ext);
	schema_name = get_namespace_name(out->schema);
	if (schema_name == NULL)
		return false;
	out->bloom_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									  CStringGetDatum("bloom"),
									  ObjectIdGetDatum(out->schema));
	contains_args[0] = out->bloom_type;
	contains_args[1] = ANYELEMENTOID;
	out->contains_fn = bf_function_in_schema(schema_name, "bloom_contains", 2, contains_args);
	out->agg_fn = bf_function_in_schema(schema_name, "bloom_agg", 3, agg_args);
	if (!OidIsValid(out->bloom_type) || !OidIsValid(out->contains_fn) ||
		!OidIsValid(out->agg_fn))
		return false;
	cached_objects = *out;
	return true;
}

/* ---------------------------------------------------------------------
 * Logging the decisions
 * --------------------------------------------------------------------- */

static int
log_level(void)
{
	return semijoin_log == SEMIJOIN_LOG_LOG ? LOG : NOTICE;
}

static char *
column_name(Oid relid, AttrNumber attno)
{
	char	   *rel = get_rel_name(relid);
	char	   *att = get_attname(relid, attno, true);

	return psprintf("%s.%s", rel ? rel : "?", att ? att : "?");
}

/* ---------------------------------------------------------------------
 * The probe side: a foreign table postgres_fdw can ship the probe to
 * --------------------------------------------------------------------- */

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
	foreach(lc, server->options)
	{
		DefElem    *def = lfirst(lc);
		List	   *names;
		ListCell   *n;

		if (strcmp(def->defname, "extensions") != 0)
			continue;
		if (!SplitIdentifierString(pstrdup(defGetString(def)), ',', &names))
			return false;
		foreach(n, names)
		{
			if (strcmp((char *) lfirst(n), EXTENSION_NAME) == 0)
				return true;
		}
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
 * cannot be shipped.  *servers: the servers scanned.
 */
static int
probe_scans(RangeTblEntry *rte, List **servers, const char **why)
{
	List	   *rels;
	ListCell   *lc;
	int			scans = 0;

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
		*servers = list_append_unique_oid(*servers, serverid);
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
	{
		JoinExpr   *j = (JoinExpr *) node;

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
}

/* ---------------------------------------------------------------------
 * Candidates: an equijoin clause between a probe member and a build member
 * --------------------------------------------------------------------- */

typedef struct Candidate
{
	Query	   *query;			/* the query level rewritten */
	Node	  **slot;
	Index		probe_rti;
	Query	   *build_query;	/* whose range table holds the build relation */
	PlannerInfo *build_root;	/* estimates over build_query */
	Index		build_rti;
	Expr	   *probe_key;		/* as written in the clause */
	Expr	   *build_key;
	Oid			collation;		/* the join operator's input collation */
	List	   *probe_quals;	/* the probe member's own conjuncts */
	List	   *build_quals;	/* the build member's own conjuncts, copyable */
	int			scans;			/* foreign scans receiving the filter */
	List	   *probe_relids;	/* relations the probe scans read */

	/* the estimates (estimate_candidate) */
	double		probe_rows;
	double		probe_keys;
	double		build_rows;
	double		build_keys;
	double		row_bytes;
	double		fpp;
	double		capacity;
	double		pass_rate;
	double		filter_bytes;	/* sent, all scans together */
	double		rows_saved;
	double		bytes_saved;
} Candidate;

/* The column of query level levelsup under binary-compatible relabeling. */
static Var *
key_var_of_level(Node *node, Index levelsup)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node && IsA(node, Var) && ((Var *) node)->varlevelsup == levelsup &&
		((Var *) node)->varattno > 0)
		return (Var *) node;
	return NULL;
}

/* A key column of the query level itself, or NULL. */
static Var *
key_var(Node *node)
{
	return key_var_of_level(node, 0);
}

/*
 * True if a filter of values of type build_type, probed with values of
 * type probe_type, agrees with opno: both types' default hash opclasses
 * (the ones bloom_agg and bloom_contains hash with) are of one family, and
 * opno is that family's equality.  Equal values then hash alike (int4 and
 * int8 do; int4 and numeric do not).
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

/* Why rte cannot be a build side on the probe's servers, or NULL. */
static const char *
build_side_problem(RangeTblEntry *rte, List *probe_servers)
{
	if (rte->rtekind != RTE_RELATION)
		return "the other side is not a table";
	if (rte->tablesample != NULL)
		return "the other side is sampled";
	if (rte->relkind == RELKIND_FOREIGN_TABLE &&
		list_member_oid(probe_servers, GetForeignTable(rte->relid)->serverid))
		return "both sides are on the same server (postgres_fdw may push the whole join)";
	return NULL;
}

typedef struct QueryContext
{
	Query	   *query;
	PlannerInfo *root;			/* for estimates: see estimator_root */
	const BloomObjects *objects;
	List	   *candidates;
	List	   *sub_roots;		/* estimator roots of sub-selects */
} QueryContext;

static PlannerInfo *estimator_root(Query *q, ParamListInfo boundParams);

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
 * A candidate for  probe_key = build->key  under operator op, with the
 * probe a member of link->probe; declined candidates are logged with the
 * reason.
 */
static void
match_clause(QueryContext *cx, Link *link, OpExpr *op, Var *probe_var, Expr *probe_key,
			 BuildSide *build)
{
	RangeTblEntry *probe_rte = rt_fetch(probe_var->varno, cx->query->rtable);
	RangeTblEntry *build_rte = rt_fetch(build->var->varno, build->query->rtable);
	Candidate  *c;
	List	   *servers;
	const char *why = NULL;
	bool		volatile_qual = false;
	int			scans;

	if (probe_rte->rtekind != RTE_RELATION ||
		(probe_rte->relkind != RELKIND_FOREIGN_TABLE &&
		 probe_rte->relkind != RELKIND_PARTITIONED_TABLE))
		return;
	scans = probe_scans(probe_rte, &servers, &why);
	if (scans > 0)
		why = build_side_problem(build_rte, servers);
	if (why == NULL && !keys_hash_alike(op->opno, exprType((Node *) build->key),
										exprType((Node *) probe_key)))
		why = "the key types do not hash alike under the join operator";
	if (why == NULL && OidIsValid(op->inputcollid) &&
		exprCollation((Node *) probe_key) != op->inputcollid)
		why = "the join compares under another collation than the remote column's";

	c = palloc0(sizeof(Candidate));
	c->query = cx->query;
	c->slot = link->slot;
	c->probe_rti = probe_var->varno;
	c->build_query = build->query;
	c->build_root = build->root;
	c->build_rti = build->var->varno;
	c->probe_key = probe_key;
	c->build_key = build->key;
	c->collation = op->inputcollid;
	c->scans = scans;
	if (why == NULL)
	{
		c->probe_quals = own_conjuncts(cx->root, link->probe->conjuncts, c->probe_rti,
									   &volatile_qual);
		if (link->clauses != NULL)
			c->probe_quals = list_concat(c->probe_quals,
										 own_conjuncts(cx->root, make_ands_implicit((Expr *) link->clauses),
													   c->probe_rti, &volatile_qual));
		volatile_qual = false;
		c->build_quals = own_conjuncts(build->root, build->conjuncts, c->build_rti,
									   &volatile_qual);
		if (volatile_qual)
			why = "a condition on the other side is volatile";
	}
	if (why != NULL)
	{
		if (semijoin_log != SEMIJOIN_LOG_OFF)
			ereport(log_level(),
					(errmsg("bloomfilter: no semijoin prefilter on %s from %s: %s",
							column_name(probe_rte->relid, probe_var->varattno),
							column_name(build_rte->relid, build->var->varattno), why)));
		return;
	}
	c->probe_relids = scanned_relations(probe_rte);
	cx->candidates = lappend(cx->candidates, c);
}

/* A join clause  a.k = b.k  of the link, tried both ways round. */
static void
match_join_clause(QueryContext *cx, Link *link, OpExpr *op)
{
	Expr	   *lexpr = linitial(op->args);
	Expr	   *rexpr = lsecond(op->args);
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

/*
 * A semi join written as a sub-select, a conjunct of the probe's scope:
 *   probe.k IN (SELECT b.k FROM b WHERE ...)
 *   EXISTS (SELECT ... FROM b WHERE b.k = probe.k AND ...)
 * Rows of the probe without a match fail the conjunct, as in a join.
 */
static void
match_sublink(QueryContext *cx, Link *link, SubLink *sublink)
{
	Query	   *sub = (Query *) sublink->subselect;
	BuildSide	build = {sub, NULL, NIL, NULL, NULL};
	ListCell   *lc;

	if (!simple_subselect(sub))
		return;
	build.conjuncts = make_ands_implicit((Expr *) sub->jointree->quals);
	if (sublink->subLinkType == ANY_SUBLINK)
	{
		OpExpr	   *op = (OpExpr *) sublink->testexpr;
		TargetEntry *te = linitial(sub->targetList);
		Expr	   *probe_key;
		Var		   *probe_var;

		if (op == NULL || !IsA(op, OpExpr) || list_length(op->args) != 2 ||
			list_length(sub->targetList) != 1 || !IsA(lsecond(op->args), Param))
			return;
		probe_key = linitial(op->args);
		probe_var = key_var((Node *) probe_key);
		build.key = te->expr;
		build.var = key_var((Node *) te->expr);
		if (probe_var == NULL || build.var == NULL ||
			!bms_is_member(probe_var->varno, link->probe->members))
			return;
		build.root = estimator_root(sub, cx->root->glob->boundParams);
		cx->sub_roots = lappend(cx->sub_roots, build.root);
		match_clause(cx, link, op, probe_var, probe_key, &build);
		return;
	}
	if (sublink->subLinkType != EXISTS_SUBLINK)
		return;
	foreach(lc, build.conjuncts)
	{
		OpExpr	   *op = lfirst(lc);
		int			side;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			continue;
		for (side = 0; side < 2; side++)
		{
			Expr	   *outer = list_nth(op->args, side);
			Expr	   *inner = list_nth(op->args, 1 - side);
			Var		   *outer_var = key_var_of_level((Node *) outer, 1);
			Expr	   *probe_key;
			Var		   *probe_var;

			build.var = key_var((Node *) inner);
			if (outer_var == NULL || build.var == NULL ||
				!bms_is_member(outer_var->varno, link->probe->members))
				continue;
			/* the probe key as seen from the probe's own level */
			probe_key = copyObject(outer);
			IncrementVarSublevelsUp((Node *) probe_key, -1, 0);
			probe_var = key_var((Node *) probe_key);
			build.key = inner;
			if (build.root == NULL)
			{
				build.root = estimator_root(sub, cx->root->glob->boundParams);
				cx->sub_roots = lappend(cx->sub_roots, build.root);
			}
			match_clause(cx, link, op, probe_var, probe_key, &build);
		}
	}
}

static void
match_link(QueryContext *cx, Link *link)
{
	List	   *clauses;
	ListCell   *lc;

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
}

/* ---------------------------------------------------------------------
 * The estimates (doc/semijoin.md, "The rule")
 * --------------------------------------------------------------------- */

/*
 * A PlannerInfo over the query's range table, enough for the selectivity
 * and distinct-value estimates of single relations, built before planning.
 */
static PlannerInfo *
estimator_root(Query *q, ParamListInfo boundParams)
{
	PlannerGlobal *glob = makeNode(PlannerGlobal);
	PlannerInfo *root = makeNode(PlannerInfo);

	Query	   *parse = palloc(sizeof(Query));
	ListCell   *lc;

	/*
	 * A copy of the range table whose entries say "inherits" only when the
	 * relation has children, as the planner will find (the parser marks
	 * every relation named without ONLY), so that a plain table's own
	 * statistics are read, not those of an inheritance tree.
	 */
	memcpy(parse, q, sizeof(Query));
	parse->rtable = NIL;
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = palloc(sizeof(RangeTblEntry));

		memcpy(rte, lfirst(lc), sizeof(RangeTblEntry));
		if (rte->rtekind == RTE_RELATION && rte->inh)
			rte->inh = has_subclass(rte->relid);
		parse->rtable = lappend(parse->rtable, rte);
	}
	glob->boundParams = boundParams;
	root->parse = parse;
	root->glob = glob;
	root->query_level = 1;
	root->planner_cxt = CurrentMemoryContext;
	root->wt_param_id = -1;
	setup_simple_rel_arrays(root);
	return root;
}

static void
estimator_done(PlannerInfo *root)
{
	if (root->glob->partition_directory != NULL)
		DestroyPartitionDirectory(root->glob->partition_directory);
}

/* The relation's estimated rows, or -1 without statistics. */
static double
relation_rows(PlannerInfo *root, Index rti)
{
	RelOptInfo *rel = root->simple_rel_array[rti];
	RangeTblEntry *rte = root->simple_rte_array[rti];

	if (rel == NULL)
		rel = build_simple_rel(root, rti, NULL);
	if (rte->inh || rel->tuples <= 0)
	{
		/* an inheritance parent or a foreign table: what ANALYZE stored */
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(rte->relid));

		if (HeapTupleIsValid(tup))
		{
			rel->tuples = ((Form_pg_class) GETSTRUCT(tup))->reltuples;
			ReleaseSysCache(tup);
		}
	}
	return rel->tuples > 0 ? rel->tuples : -1;
}

/*
 * Distinct values of key among rows of the relation's total, after a
 * selection keeps rows of them (the expected number of distinct values in a
 * random sample, as the planner's own group estimates assume).  *known:
 * the column has statistics.
 */
static double
selected_distinct(PlannerInfo *root, Expr *key, double total, double rows, bool *known)
{
	VariableStatData vardata;
	bool		isdefault;
	double		nd;

	examine_variable(root, (Node *) key, 0, &vardata);
	nd = get_variable_numdistinct(&vardata, &isdefault);
	ReleaseVariableStats(vardata);
	*known = !isdefault;
	nd = Min(nd, total);
	if (rows >= total || nd <= 0)
		return Max(Min(nd, rows), 1.0);
	return Max(nd * (1.0 - pow(1.0 - rows / total, total / nd)), 1.0);
}

/* Bytes of a row the foreign scan ships: the columns the query uses. */
static double
shipped_row_bytes(Query *q, Index rti, Oid relid)
{
	Bitmapset  *attnos = NULL;
	double		bytes = ROW_OVERHEAD_BYTES;
	int			i = -1;

	pull_varattnos((Node *) q->targetList, rti, &attnos);
	pull_varattnos((Node *) q->jointree, rti, &attnos);
	pull_varattnos(q->havingQual, rti, &attnos);
	while ((i = bms_next_member(attnos, i)) >= 0)
	{
		AttrNumber	attno = i + FirstLowInvalidHeapAttributeNumber;
		int32		width;

		if (attno <= 0)
			continue;
		width = get_attavgwidth(relid, attno);
		if (width <= 0)
		{
			Oid			type;
			int32		typmod;
			Oid			coll;

			get_atttypetypmodcoll(relid, attno, &type, &typmod, &coll);
			width = get_typavgwidth(type, typmod);
		}
		bytes += FIELD_OVERHEAD_BYTES + width;
	}
	return bytes;
}

/* Bytes of a classic filter of capacity values at rate fpp. */
static double
filter_bytes_for(double capacity, double fpp)
{
	return ceil(-capacity * log(fpp) / (M_LN2 * M_LN2) / 8.0);
}

/*
 * The fpp that minimizes the bytes sent: the filter's text on every scan,
 * plus the false positives among the rows it should stop.
 */
static double
choose_fpp(const Candidate *c, double contained)
{
	double		stoppable = c->probe_rows * (1.0 - contained) * c->row_bytes;
	double		fpp;

	if (stoppable <= 0)
		return FPP_MAX;
	fpp = c->scans * TEXT_FACTOR * c->capacity / (8.0 * M_LN2 * M_LN2 * stoppable);
	return Max(FPP_MIN, Min(FPP_MAX, fpp));
}

/*
 * The conditions a build row passes: its own conjuncts and its row-level
 * security policies (which the copied entry keeps).  Those with a
 * sub-select are left to the planner's default.
 */
static List *
build_restrictions(const Candidate *c)
{
	RangeTblEntry *rte = rt_fetch(c->build_rti, c->build_query->rtable);
	List	   *quals = list_copy(c->build_quals);
	ListCell   *lc;

	/* before planning, each is an expression (one per policy level) */
	foreach(lc, rte->securityQuals)
	{
		ListCell   *q;

		foreach(q, make_ands_implicit((Expr *) lfirst(lc)))
		{
			if (!checkExprHasSubLink(lfirst(q)))
				quals = lappend(quals, lfirst(q));
		}
	}
	return quals;
}

/* Fills the estimates of c; returns why it does not pay, or NULL. */
static const char *
estimate_candidate(QueryContext *cx, Candidate *c)
{
	PlannerInfo *root = cx->root;
	RangeTblEntry *probe_rte = rt_fetch(c->probe_rti, cx->query->rtable);
	double		probe_total = relation_rows(root, c->probe_rti);
	double		build_total = relation_rows(c->build_root, c->build_rti);
	double		contained;
	bool		known;

	if (probe_total < 0)
		return "the foreign table has no statistics (ANALYZE it)";
	if (build_total < 0)
		return "the other side has no statistics (ANALYZE it)";
	c->probe_rows = Max(1.0, probe_total *
						clauselist_selectivity(root, c->probe_quals, 0, JOIN_INNER, NULL));
	c->build_rows = Max(1.0, build_total *
						clauselist_selectivity(c->build_root, build_restrictions(c), 0,
											   JOIN_INNER, NULL));
	c->probe_keys = selected_distinct(root, c->probe_key, probe_total, c->probe_rows, &known);
	if (!known)
		return "the foreign key column has no statistics (ANALYZE the foreign table)";
	c->build_keys = selected_distinct(c->build_root, c->build_key, build_total, c->build_rows, &known);
	if (!known)
		c->build_keys = c->build_rows;
	c->row_bytes = shipped_row_bytes(cx->query, c->probe_rti, probe_rte->relid);
	c->capacity = Max(CAPACITY_MIN, ceil(c->build_keys * CAPACITY_MARGIN));

	/* containment: the build keys are among the probe keys */
	contained = Min(1.0, c->build_keys / c->probe_keys);
	c->fpp = choose_fpp(c, contained);
	c->pass_rate = contained + c->fpp * (1.0 - contained);
	c->filter_bytes = c->scans * TEXT_FACTOR * filter_bytes_for(c->capacity, c->fpp);
	c->rows_saved = c->probe_rows * (1.0 - c->pass_rate);
	c->bytes_saved = c->rows_saved * c->row_bytes;

	if (c->pass_rate > semijoin_max_pass_rate)
		return "the filter would pass too many rows (bloomfilter.semijoin_max_pass_rate)";
	if (c->rows_saved < semijoin_min_rows_saved)
		return "too few rows saved (bloomfilter.semijoin_min_rows_saved)";
	if (c->filter_bytes > semijoin_max_filter_kb * 1024.0)
		return "the filter would be too big (bloomfilter.semijoin_max_filter_size)";
	if (c->bytes_saved < SAVE_FACTOR * c->filter_bytes)
		return "the filter costs more bytes than it saves";
	if (c->build_rows > c->rows_saved)
		return "the build side has more rows than the filter saves";
	return NULL;
}

static void
log_estimate(const Candidate *c, const char *why)
{
	RangeTblEntry *probe = rt_fetch(c->probe_rti, c->query->rtable);
	RangeTblEntry *build = rt_fetch(c->build_rti, c->build_query->rtable);
	Var		   *pv = key_var((Node *) c->probe_key);
	Var		   *bv = key_var((Node *) c->build_key);

	if (semijoin_log == SEMIJOIN_LOG_OFF)
		return;
	ereport(log_level(),
			(errmsg("bloomfilter: %s semijoin prefilter on %s from %s%s%s",
					why ? "no" : "added",
					column_name(probe->relid, pv->varattno),
					column_name(build->relid, bv->varattno),
					why ? ": " : "", why ? why : ""),
			 errdetail("probe rows %.0f, keys %.0f, row bytes %.0f; build rows %.0f, keys %.0f; "
					   "fpp %.4g, capacity %.0f, pass rate %.3f; filter %.0f bytes in %d scan(s); "
					   "saves %.0f rows, %.0f bytes",
					   c->probe_rows, c->probe_keys, c->row_bytes, c->build_rows, c->build_keys,
					   c->fpp, c->capacity, c->pass_rate, c->filter_bytes, c->scans,
					   c->rows_saved, c->bytes_saved)));
}

/* ---------------------------------------------------------------------
 * The filter expression
 * --------------------------------------------------------------------- */

static TargetEntry *
agg_argument(Expr *expr, int resno)
{
	return makeTargetEntry(expr, resno, NULL, false);
}

/* SELECT bloom_agg(key, capacity, fpp) FROM build WHERE <its quals> */
static Query *
filter_subselect(const Candidate *c, const BloomObjects *objects)
{
	Query	   *parent = c->build_query;
	Query	   *sub = makeNode(Query);
	RangeTblEntry *rte = copyObject(rt_fetch(c->build_rti, parent->rtable));
	Expr	   *key = copyObject(c->build_key);
	Node	   *quals = (Node *) copyObject(c->build_quals);
	Index		rti = c->build_rti;
	Aggref	   *agg = makeNode(Aggref);

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
	bf_copy_permission(parent, rte, sub);
	sub->rtable = list_make1(rte);
	sub->jointree = makeFromExpr(list_make1(makeNode(RangeTblRef)),
								 quals ? (Node *) make_ands_explicit((List *) quals) : NULL);
	((RangeTblRef *) linitial(sub->jointree->fromlist))->rtindex = 1;

	agg->aggfnoid = objects->agg_fn;
	agg->aggtype = objects->bloom_type;
	agg->inputcollid = c->collation;
	agg->aggargtypes = list_make3_oid(exprType((Node *) key), INT8OID, FLOAT8OID);
	agg->args = list_make3(agg_argument(key, 1),
						   agg_argument((Expr *) makeConst(INT8OID, -1, InvalidOid, 8,
														   Int64GetDatum((int64) c->capacity),
														   false, FLOAT8PASSBYVAL), 2),
						   agg_argument((Expr *) makeConst(FLOAT8OID, -1, InvalidOid, 8,
														   Float8GetDatum(c->fpp),
														   false, FLOAT8PASSBYVAL), 3));
	agg->aggkind = AGGKIND_NORMAL;
	agg->aggsplit = AGGSPLIT_SIMPLE;
	agg->aggno = -1;
	agg->aggtransno = -1;
	agg->location = -1;
	sub->targetList = list_make1(makeTargetEntry((Expr *) agg, 1, pstrdup("bloom_agg"), false));
	return sub;
}

/* bloom_contains((SELECT bloom_agg(...) ...), probe key) at the slot */
static void
add_filter(const Candidate *c, const BloomObjects *objects)
{
	SubLink    *sublink = makeNode(SubLink);
	FuncExpr   *probe;

	sublink->subLinkType = EXPR_SUBLINK;
	sublink->subselect = (Node *) filter_subselect(c, objects);
	sublink->location = -1;
	probe = makeFuncExpr(objects->contains_fn, BOOLOID,
						 list_make2(sublink, copyObject(c->probe_key)),
						 InvalidOid, c->collation, COERCE_EXPLICIT_CALL);
	*c->slot = (Node *) make_and_qual(*c->slot, (Node *) probe);
	c->query->hasSubLinks = true;
}

/* ---------------------------------------------------------------------
 * The rewrite of one query level, then of its subqueries
 * --------------------------------------------------------------------- */

/* True if the range table may hold a probe side (no catalog access). */
static bool
may_have_probe(Query *q)
{
	ListCell   *lc;

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_RELATION &&
			(rte->relkind == RELKIND_FOREIGN_TABLE || rte->relkind == RELKIND_PARTITIONED_TABLE))
			return true;
		if (rte->rtekind == RTE_SUBQUERY && may_have_probe(rte->subquery))
			return true;
	}
	foreach(lc, q->cteList)
	{
		CommonTableExpr *cte = lfirst(lc);

		if (IsA(cte->ctequery, Query) && may_have_probe((Query *) cte->ctequery))
			return true;
	}
	return false;
}

/*
 * The best candidate of each (probe relation, slot): the one that saves
 * the most bytes.
 */
static List *
choose_candidates(QueryContext *cx)
{
	List	   *chosen = NIL;
	ListCell   *lc;

	foreach(lc, cx->candidates)
	{
		Candidate  *c = lfirst(lc);
		const char *why = estimate_candidate(cx, c);
		ListCell   *other;
		bool		replaced = false;

		log_estimate(c, why);
		if (why != NULL)
			continue;
		foreach(other, chosen)
		{
			Candidate  *o = lfirst(other);

			if (o->probe_rti == c->probe_rti && o->slot == c->slot)
			{
				if (c->bytes_saved > o->bytes_saved)
					lfirst(other) = c;
				replaced = true;
			}
		}
		if (!replaced)
			chosen = lappend(chosen, c);
	}
	return chosen;
}

static List *analyze_query(Query *q, ParamListInfo boundParams, const BloomObjects *objects);

/* The candidates chosen in q's own level. */
static List *
analyze_level(Query *q, ParamListInfo boundParams, const BloomObjects *objects)
{
	QueryContext cx = {0};
	Scope	   *top = new_scope(&q->jointree->quals);
	List	   *links = NIL;
	ListCell   *lc;
	List	   *chosen;

	cx.query = q;
	cx.objects = objects;
	cx.root = estimator_root(q, boundParams);
	walk_jointree((Node *) q->jointree, top, &links);
	add_link(&links, top, top, NULL, top->slot);
	foreach(lc, links)
		match_link(&cx, lfirst(lc));
	chosen = choose_candidates(&cx);
	estimator_done(cx.root);
	foreach(lc, cx.sub_roots)
		estimator_done(lfirst(lc));
	return chosen;
}

/* The candidates chosen in q and the queries below it. */
static List *
analyze_query(Query *q, ParamListInfo boundParams, const BloomObjects *objects)
{
	List	   *chosen = NIL;
	ListCell   *lc;

	if (!may_have_probe(q))
		return NIL;
	if (q->commandType == CMD_SELECT && q->jointree != NULL)
		chosen = analyze_level(q, boundParams, objects);
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_SUBQUERY)
			chosen = list_concat(chosen, analyze_query(rte->subquery, boundParams, objects));
	}
	foreach(lc, q->cteList)
	{
		CommonTableExpr *cte = lfirst(lc);

		if (IsA(cte->ctequery, Query))
			chosen = list_concat(chosen, analyze_query((Query *) cte->ctequery,
													   boundParams, objects));
	}
	return chosen;
}

/* ---------------------------------------------------------------------
 * After planning: a filtered foreign scan must not be rescanned with
 * changing parameters (of a nested loop, a correlated sub-select or a
 * lateral subquery), which would send the filter again on every rescan.
 * Parameters that InitPlans set (the filter's own) are computed once.
 * --------------------------------------------------------------------- */

typedef struct PlanScan
{
	Bitmapset  *initplan_params;
	List	   *foreign_scans;
} PlanScan;

static void
scan_plan(Plan *plan, PlanScan *ps)
{
	ListCell   *lc;
	List	   *children = NIL;

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
	else if (IsA(plan, Append))
		children = ((Append *) plan)->appendplans;
	else if (IsA(plan, MergeAppend))
		children = ((MergeAppend *) plan)->mergeplans;
	else if (IsA(plan, SubqueryScan))
		scan_plan(((SubqueryScan *) plan)->subplan, ps);
	else if (IsA(plan, CustomScan))
		children = ((CustomScan *) plan)->custom_plans;
	foreach(lc, children)
		scan_plan(lfirst(lc), ps);
	scan_plan(plan->lefttree, ps);
	scan_plan(plan->righttree, ps);
}

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

static bool
plan_rescans_filter(PlannedStmt *stmt, List *filtered_relids)
{
	PlanScan	ps = {0};
	ListCell   *lc;

	scan_plan(stmt->planTree, &ps);
	foreach(lc, stmt->subplans)
		scan_plan(lfirst(lc), &ps);
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
 * The hook
 * --------------------------------------------------------------------- */

static PlannedStmt *
plan_next(Query *parse, const char *query_string, int cursorOptions, ParamListInfo boundParams)
{
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

/*
 * Adds the chosen filters to parse; returns a copy of parse as it was (to
 * plan again without them), or NULL if nothing was added.
 */
static Query *
rewrite(Query *parse, ParamListInfo boundParams, List **filtered_relids)
{
	BloomObjects objects;
	List	   *chosen;
	Query	   *pristine;
	ListCell   *lc;

	if (!may_have_probe(parse) || !lookup_objects(&objects))
		return NULL;
	if (!bf_may_execute(objects.contains_fn) || !bf_may_execute(objects.agg_fn))
		return NULL;
	chosen = analyze_query(parse, boundParams, &objects);
	if (chosen == NIL)
		return NULL;
	pristine = copyObject(parse);
	foreach(lc, chosen)
	{
		Candidate  *c = lfirst(lc);

		add_filter(c, &objects);
		*filtered_relids = list_concat(*filtered_relids, c->probe_relids);
	}
	return pristine;
}

static PlannedStmt *
semijoin_planner(Query *parse, const char *query_string, int cursorOptions,
				 ParamListInfo boundParams)
{
	Query	   *pristine = NULL;
	List	   *filtered_relids = NIL;
	PlannedStmt *stmt;

	if (semijoin_prefilter)
		pristine = rewrite(parse, boundParams, &filtered_relids);
	stmt = plan_next(parse, query_string, cursorOptions, boundParams);
	if (pristine != NULL && plan_rescans_filter(stmt, filtered_relids))
	{
		if (semijoin_log != SEMIJOIN_LOG_OFF)
			ereport(log_level(),
					(errmsg("bloomfilter: semijoin prefilter removed: the plan rescans the foreign table with changing parameters")));
		stmt = plan_next(pristine, query_string, cursorOptions, boundParams);
	}
	return stmt;
}

void
bloom_semijoin_init(void)
{
	DefineCustomBoolVariable("bloomfilter.semijoin_prefilter",
							 "Adds a Bloom prefilter to joins with postgres_fdw foreign tables when it pays.",
							 "The rule: doc/semijoin.md.  Needs the library loaded "
							 "(session_preload_libraries or shared_preload_libraries).",
							 &semijoin_prefilter, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomEnumVariable("bloomfilter.semijoin_log",
							 "Reports each semijoin prefilter decision with its estimates.",
							 "off, notice (to the client) or log (to the server log).",
							 &semijoin_log, SEMIJOIN_LOG_OFF, semijoin_log_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.semijoin_min_rows_saved",
							"Least number of foreign rows a semijoin prefilter must save.",
							NULL, &semijoin_min_rows_saved, 10000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("bloomfilter.semijoin_max_pass_rate",
							 "Largest estimated share of foreign rows a semijoin prefilter may pass.",
							 NULL, &semijoin_max_pass_rate, 0.5, 0.0, 1.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.semijoin_max_filter_size",
							"Largest semijoin prefilter sent to the remote servers, all scans together.",
							NULL, &semijoin_max_filter_kb, 16384, 1, MAX_FILTER_KB,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);

	prev_planner_hook = planner_hook;
	planner_hook = semijoin_planner;
}
