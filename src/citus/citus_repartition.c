/*
 * citus_repartition.c
 *	  The Bloom prefilter of Citus repartition joins (doc/distributed.md,
 *	  "Citus repartition joins").
 *
 *	  Citus joins two distributed tables that are not co-located on the
 *	  join key by re-partitioning one side or both: each shard of a moved
 *	  side runs a map query (worker_partition_query_result) that hashes its
 *	  rows into intermediate results, which are fetched to the node of the
 *	  merge task before any row is joined.  A restriction on one table
 *	  reaches that table's map query; a sub-select or a CTE does not (Citus
 *	  refuses the join).  So the filter travels as a constant:
 *
 *		fact f JOIN dim d ON f.k = d.id WHERE d.grp = 3
 *		  -> ... AND bloom_contains('<keys of d where grp = 3>', f.k)
 *
 *	  This file does that in a planner hook that runs before Citus's
 *	  (shared_preload_libraries = 'citus,bloomfilter' installs ours last,
 *	  so it is called first): in an inner join of up to MAX_TABLES tables
 *	  it takes each pair of hash-distributed tables joined by equalities
 *	  that Citus cannot push down whole, estimates from a sample how much
 *	  of the pair's selective side its restrictions keep (the share of the
 *	  other side's shuffled rows that survives), and if that share is
 *	  small enough runs the build (bloom_agg over the selective side's key,
 *	  through Citus, per shard) and adds the probe to the query.  A pair
 *	  joined on several equalities gets one filter of its key tuples
 *	  (bloom_tuple_hash, as the postgres_fdw rewrite's composite filter),
 *	  and a key may be an expression of one table's columns beside a
 *	  column equality.  A side that a filter restricts may be the build
 *	  side of its other pairs in turn (cust -> orders -> items).
 *	  Everything it cannot judge it leaves alone.
 *
 *	  The constant must never outlive the execution it was computed for;
 *	  citus_repartition_plan.c marks the plans that carry one and plans
 *	  them again where they would be run with a filter that may be stale.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/typcache.h"

#include "pg_compat.h"
#include "citus/citus_repartition.h"
#include "citus/citus_repartition_internal.h"
#include "helpers/extension_objects.h"
#include "semijoin/semijoin_types.h"
#include "semijoin/tuple_probe.h"	/* TUPLE_MAX_COLUMNS */

/* ---------------------------------------------------------------------
 * Settings and hook state
 * --------------------------------------------------------------------- */

static bool repart_enabled = true;
static double repart_max_fraction = 0.5;

/* The sample that estimates the selected fraction: pages, in percent. */
#define SAMPLE_PERCENT		"1"
/* Fewer sampled rows than this say too little: all rows are counted. */
#define SAMPLE_MIN_ROWS		100

static planner_hook_type prev_planner_hook = NULL;

/*
 * Nesting of our planner hook: the statements it runs itself (the build,
 * the sample, the metadata look-up) and the planner calls Citus makes
 * while planning are never rewritten.
 */
static int	planner_depth = 0;

/* ---------------------------------------------------------------------
 * The shape: inner joins of distributed tables on equalities
 * --------------------------------------------------------------------- */

/* Most tables of a statement considered (each may cost a sample and a build). */
#define MAX_TABLES			8

/* A fraction not measured yet. */
#define NOT_MEASURED		(-2.0)

typedef struct JoinTable
{
	Index		varno;
	RangeTblEntry *rte;
	char		partmethod;		/* Citus: 'h' hash, 'n' reference, ... */
	int			colocation;
	AttrNumber	distattno;		/* the distribution column */
	List	   *quals;			/* restrictions on this table alone */
	double		fraction;		/* the share its restrictions keep, or NOT_MEASURED */
	char	   *fromwhere;		/* from_where(), once measured; in SPI's context */
} JoinTable;

/*
 * The equalities between two tables: keys[i] are t[i]'s sides, in the same
 * order (a column, or an expression of t[i]'s columns alone).
 */
typedef struct JoinEdge
{
	JoinTable  *t[2];
	List	   *keys[2];
	int			build;			/* the chosen build side (0 or 1), or -1 */
	int			round;			/* the round its filter was built in, or 0 */
	Datum		filter;			/* in the planner's context, not SPI's */
} JoinEdge;

/*
 * The conjuncts of the WHERE clause and of inner joins' ON clauses; false
 * for any other join.
 */
static bool
collect_conjuncts(Node *jtnode, List **conjuncts)
{
	if (jtnode == NULL || IsA(jtnode, RangeTblRef))
		return true;
	if (IsA(jtnode, FromExpr))
	{
		FromExpr   *from = (FromExpr *) jtnode;
		ListCell   *lc;

		foreach(lc, from->fromlist)
			if (!collect_conjuncts(lfirst(lc), conjuncts))
				return false;
		*conjuncts = list_concat(*conjuncts, make_ands_implicit((Expr *) from->quals));
		return true;
	}
	if (IsA(jtnode, JoinExpr))
	{
		JoinExpr   *join = (JoinExpr *) jtnode;

		if (join->jointype != JOIN_INNER)
			return false;
		if (!collect_conjuncts(join->larg, conjuncts) ||
			!collect_conjuncts(join->rarg, conjuncts))
			return false;
		*conjuncts = list_concat(*conjuncts, make_ands_implicit((Expr *) join->quals));
		return true;
	}
	return false;
}

/*
 * The plain tables of the range table (the rest being joins), 2 to
 * MAX_TABLES of them, or false.
 */
static bool
collect_tables(Query *parse, JoinTable *tables, int *ntables)
{
	ListCell   *lc;

	*ntables = 0;
	foreach(lc, parse->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		JoinTable  *t;

		if (rte->rtekind == RTE_JOIN)
			continue;
		if (semijoin_relation_problem(rte) != NULL || *ntables == MAX_TABLES)
			return false;
		t = &tables[(*ntables)++];
		memset(t, 0, sizeof(*t));
		t->varno = foreach_current_index(lc) + 1;
		t->rte = rte;
		t->fraction = NOT_MEASURED;
	}
	return *ntables >= 2;
}

static Var *
plain_column(Node *node)
{
	if (node != NULL && IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		((Var *) node)->varattno > 0)
		return (Var *) node;
	return NULL;
}

static bool
has_param_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, has_param_walker, context);
}

/* Whether a whole-row or system column is in the expression. */
static bool
has_special_column_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varattno <= 0 || ((Var *) node)->varlevelsup != 0;
	return expression_tree_walker(node, has_special_column_walker, context);
}

/*
 * The table a join key is of: one table's columns alone, evaluated the
 * same on every node and in the build (nothing volatile, no parameter, no
 * sub-select, aggregate or window function).  NULL otherwise.
 */
static JoinTable *
key_table(Node *key, JoinTable *tables, int ntables)
{
	Relids		varnos = pull_varnos(NULL, key);
	int			varno;

	if (!bms_get_singleton_member(varnos, &varno) || contain_volatile_functions(key) ||
		has_param_walker(key, NULL) || has_special_column_walker(key, NULL) ||
		contain_agg_clause(key) || contain_window_function(key) || contain_subplans(key))
		return NULL;
	for (int i = 0; i < ntables; i++)
		if ((int) tables[i].varno == varno)
			return &tables[i];
	return NULL;
}

/*
 * Whether equality op on values of type (under collation) is one a filter
 * of the values' hashes can stand for: the semijoin prefilter's rule
 * (semijoin_types.c: the type's default hash family's equality, values
 * that cross nodes unchanged), under a deterministic collation.  Both
 * sides' keys are hashed as the join compares them: each side's SQL is
 * deparsed with its implicit casts shown (filter_key_sql).
 */
static bool
filterable_equality(Oid opno, Oid type, Oid collation)
{
	return semijoin_hash_problem(opno, type, type) == NULL &&
		(!OidIsValid(collation) || get_collation_isdeterministic(collation));
}

/* The edge between tables a and b, made if new; its side of a in *aside. */
static JoinEdge *
edge_of(List **edges, JoinTable *a, JoinTable *b, int *aside)
{
	JoinEdge   *e;
	ListCell   *lc;

	foreach(lc, *edges)
	{
		e = lfirst(lc);
		if (e->t[0] == a && e->t[1] == b)
			*aside = 0;
		else if (e->t[0] == b && e->t[1] == a)
			*aside = 1;
		else
			continue;
		return e;
	}
	e = palloc0(sizeof(JoinEdge));
	e->t[0] = a;
	e->t[1] = b;
	e->build = -1;
	*edges = lappend(*edges, e);
	*aside = 0;
	return e;
}

/*
 * The equalities between two tables, grouped by the pair of tables: an
 * equality of two same-typed keys, each of one table alone, by that type's
 * default equality.  A pair's several equalities make a composite key (up
 * to TUPLE_MAX_COLUMNS; more are left out, which only makes the filter
 * pass more).
 */
static List *
find_edges(List *conjuncts, JoinTable *tables, int ntables)
{
	List	   *edges = NIL;
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		OpExpr	   *op = (OpExpr *) lfirst(lc);
		Node	   *l,
				   *r;
		JoinTable  *lt,
				   *rt;
		JoinEdge   *e;
		int			lside;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			continue;
		l = linitial(op->args);
		r = lsecond(op->args);
		if (exprType(l) != exprType(r) ||
			!filterable_equality(op->opno, exprType(l), op->inputcollid))
			continue;
		lt = key_table(l, tables, ntables);
		rt = key_table(r, tables, ntables);
		if (lt == NULL || rt == NULL || lt == rt)
			continue;
		e = edge_of(&edges, lt, rt, &lside);
		if (list_length(e->keys[0]) == TUPLE_MAX_COLUMNS)
			continue;
		e->keys[lside] = lappend(e->keys[lside], l);
		e->keys[1 - lside] = lappend(e->keys[1 - lside], r);
	}
	return edges;
}

/*
 * Assigns each conjunct on one table alone to that table, where the build
 * can repeat it: no parameters (but those of a custom plan, replaced by
 * their values), nothing volatile (run twice, it could select other
 * rows).  A restriction left out only makes the filter bigger, never
 * wrong.
 */
static void
assign_quals(List *conjuncts, ParamListInfo boundParams, JoinTable *tables, int ntables)
{
	PlannerGlobal glob = {.type = T_PlannerGlobal, .boundParams = boundParams};
	PlannerInfo root = {.type = T_PlannerInfo, .glob = &glob};
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		Node	   *qual = lfirst(lc);
		Relids		varnos = pull_varnos(NULL, qual);
		int			varno;

		/* a custom plan's parameters are this execution's values */
		if (boundParams != NULL && has_param_walker(qual, NULL))
			qual = estimate_expression_value(&root, qual);

		if (!bms_get_singleton_member(varnos, &varno) ||
			contain_volatile_functions(qual) || has_param_walker(qual, NULL))
			continue;
		for (int i = 0; i < ntables; i++)
			if ((int) tables[i].varno == varno)
				tables[i].quals = lappend(tables[i].quals, qual);
	}
}

/* ---------------------------------------------------------------------
 * Citus's metadata
 * --------------------------------------------------------------------- */

static bool
citus_installed(void)
{
	return OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE));
}

/*
 * The table's distribution, from pg_dist_partition read directly (by its
 * index on logicalrelid where it has one): no statement is run for joins
 * of tables Citus does not distribute.  False if not distributed.
 */
static bool
read_distribution(JoinTable *side)
{
	Oid			catalog = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	Oid			index = get_relname_relid("pg_dist_partition_logical_relid_index",
										  PG_CATALOG_NAMESPACE);
	AttrNumber	relid_att = get_attnum(catalog, "logicalrelid");
	AttrNumber	method_att = get_attnum(catalog, "partmethod");
	AttrNumber	key_att = get_attnum(catalog, "partkey");
	AttrNumber	coloc_att = get_attnum(catalog, "colocationid");
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		found = false;

	if (relid_att == InvalidAttrNumber || method_att == InvalidAttrNumber ||
		key_att == InvalidAttrNumber || coloc_att == InvalidAttrNumber)
		return false;
	rel = table_open(catalog, AccessShareLock);
	ScanKeyInit(&key, relid_att, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(side->rte->relid));
	scan = systable_beginscan(rel, index, OidIsValid(index), NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		TupleDesc	desc = RelationGetDescr(rel);
		bool		method_null,
					key_null,
					coloc_null;
		Datum		method = heap_getattr(tuple, method_att, desc, &method_null);
		Datum		partkey = heap_getattr(tuple, key_att, desc, &key_null);
		Datum		coloc = heap_getattr(tuple, coloc_att, desc, &coloc_null);

		if (!method_null && !coloc_null)
		{
			side->partmethod = DatumGetChar(method);
			side->colocation = DatumGetInt32(coloc);
			found = true;
			/* a reference table has no distribution column */
			if (!key_null)
			{
				Node	   *keynode = stringToNode(TextDatumGetCString(partkey));

				side->distattno = IsA(keynode, Var) ? ((Var *) keynode)->varattno : InvalidAttrNumber;
			}
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

static bool
setting_on(const char *name)
{
	const char *value = GetConfigOption(name, true, false);

	return value != NULL && strcmp(value, "on") == 0;
}

/*
 * Whether Citus moves the probe side's rows to join it with the build
 * side: both hash-distributed and joined on at least one equality of two
 * columns (Citus refuses a join of distributed tables on expressions
 * alone); not when an equality joins their co-located distribution
 * columns (the join is pushed down whole), nor when a single-table
 * repartition may keep the probe side in place (an equality is on its
 * distribution column).
 */
static bool
probe_side_moves(JoinEdge *e, int build)
{
	JoinTable  *b = e->t[build];
	JoinTable  *p = e->t[1 - build];
	bool		column_pair = false;
	ListCell   *lb,
			   *lp;

	if (b->partmethod != 'h' || p->partmethod != 'h' ||
		b->distattno == InvalidAttrNumber || p->distattno == InvalidAttrNumber)
		return false;
	forboth(lb, e->keys[build], lp, e->keys[1 - build])
	{
		Var		   *bv = plain_column(lfirst(lb));
		Var		   *pv = plain_column(lfirst(lp));
		bool		build_on_dist,
					probe_on_dist;

		if (bv == NULL || pv == NULL)
			continue;
		column_pair = true;
		build_on_dist = bv->varattno == b->distattno;
		probe_on_dist = pv->varattno == p->distattno;
		if (build_on_dist && probe_on_dist && b->colocation == p->colocation)
			return false;
		if (probe_on_dist && setting_on("citus.enable_single_hash_repartition_joins"))
			return false;
	}
	return column_pair;
}

/* ---------------------------------------------------------------------
 * The build side's statements
 * --------------------------------------------------------------------- */

/* Node over the table's varno, deparsed over alias r. */
static char *
deparse_over_r(JoinTable *t, Node *node, bool showimplicit)
{
	List	   *dpcontext = deparse_context_for("r", t->rte->relid);
	Node	   *copy = copyObject(node);

	ChangeVarNodes(copy, t->varno, 1, 0);
	return deparse_expression(copy, dpcontext, true, showimplicit);
}

/* "FROM [ONLY] schema.table r WHERE <quals>", with the quals over alias r. */
static char *
from_where(JoinTable *t)
{
	Oid			relid = t->rte->relid;
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, " FROM %s%s r WHERE %s",
					 t->rte->inh ? "" : "ONLY ",
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												get_rel_name(relid)),
					 deparse_over_r(t, (Node *) make_ands_explicit(t->quals), false));
	return buf.data;
}

/*
 * What the filter holds per build row, over alias r: the key, or a
 * composite key's bloom_tuple_hash(k1, k2, ...).  Implicit casts are
 * written out: the value hashed is the one the join compares.
 */
static char *
filter_key_sql(JoinTable *t, List *keys)
{
	StringInfoData buf;
	ListCell   *lc;

	if (list_length(keys) == 1)
		return deparse_over_r(t, linitial(keys), true);
	initStringInfo(&buf);
	appendStringInfo(&buf, "%s.bloom_tuple_hash(",
					 quote_identifier(get_namespace_name(extension_schema())));
	foreach(lc, keys)
		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) > 0 ? ", " : "",
						 deparse_over_r(t, lfirst(lc), true));
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/*
 * Runs "SELECT count(*), count(*) FILTER (WHERE <quals>) FROM ... [sample]"
 * and sets the two counts; false if it returned no row.
 */
static bool
count_selected(const char *fromwhere, const char *sample, int64 *rows, int64 *selected)
{
	char	   *from = pstrdup(fromwhere);
	char	   *where = strstr(from, " WHERE ");
	bool		isnull;

	*where = '\0';
	if (SPI_execute(psprintf("SELECT count(*), count(*) FILTER (WHERE %s)%s%s",
							 where + strlen(" WHERE "), from, sample),
					true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		return false;
	*rows = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*selected = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	return true;
}

/*
 * The share of the table's rows its restrictions keep: from a sample of 1%
 * of its pages, or, where that holds too few rows to tell (a small table),
 * from all of them; -1 if unknown.  Measured once per table.
 */
static double
selected_fraction(JoinTable *t)
{
	int64		rows,
				selected;

	if (t->fraction != NOT_MEASURED)
		return t->fraction;
	t->fromwhere = from_where(t);
	if (!count_selected(t->fromwhere, " TABLESAMPLE SYSTEM (" SAMPLE_PERCENT ")", &rows, &selected) ||
		(rows < SAMPLE_MIN_ROWS && !count_selected(t->fromwhere, "", &rows, &selected)))
		t->fraction = -1;
	else
		t->fraction = rows == 0 ? 0 : (double) selected / (double) rows;
	elog(DEBUG1, "bloomfilter: Citus repartition join: %s keeps %s of its rows in the sample",
		 get_rel_name(t->rte->relid),
		 t->fraction < 0 ? "an unknown share" : psprintf("%.4f", t->fraction));
	return t->fraction;
}

/*
 * The filter of the build side's selected keys (bloom_agg, which Citus
 * runs per shard through the aggregate rewrite), copied out of SPI; false
 * when no row is selected (the aggregate's NULL).
 */
static bool
build_filter(JoinEdge *e)
{
	JoinTable  *t = e->t[e->build];
	char	   *sql = psprintf("SELECT %s.bloom_agg(%s)%s",
							   quote_identifier(get_namespace_name(extension_schema())),
							   filter_key_sql(t, e->keys[e->build]), t->fromwhere);
	bool		isnull;
	Datum		value;

	if (SPI_execute(sql, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		return false;
	value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return false;
	e->filter = SPI_datumTransfer(value, false, -1);
	return true;
}

/* ---------------------------------------------------------------------
 * The rewrite
 * --------------------------------------------------------------------- */

/* The functions the probes call. */
typedef struct ProbeFunctions
{
	Oid			bloom_type;
	Oid			contains;		/* bloom_contains(bloom, anyelement) */
	Oid			tuple_hash;		/* bloom_tuple_hash(VARIADIC "any") */
} ProbeFunctions;

static bool
probe_functions(ProbeFunctions *fns)
{
	Oid			contains_args[2] = {InvalidOid, ANYELEMENTOID};
	Oid			hash_args[1] = {ANYOID};

	fns->bloom_type = extension_type("bloom");
	contains_args[0] = fns->bloom_type;
	fns->contains = extension_function("bloom_contains", 2, contains_args);
	fns->tuple_hash = extension_function("bloom_tuple_hash", 1, hash_args);
	return OidIsValid(fns->contains) && may_execute(fns->contains) &&
		OidIsValid(fns->tuple_hash) && may_execute(fns->tuple_hash);
}

/* The first collation of the keys, as the probe's input collation. */
static Oid
keys_collation(List *keys)
{
	ListCell   *lc;

	foreach(lc, keys)
		if (OidIsValid(exprCollation(lfirst(lc))))
			return exprCollation(lfirst(lc));
	return InvalidOid;
}

/*
 * The probe of the edge's filter on its probe side: bloom_contains(filter,
 * key) for one key, bloom_contains(filter, bloom_tuple_hash(k1, k2, ...))
 * for a composite one.  (The typed bloom_contains_tuple of the
 * postgres_fdw rewrite would come to the same: its support function turns
 * it into this form where it is planned on a table, and on a coordinator
 * the distributed table is one; Citus's nodes share the tables' types.)
 */
static Node *
probe_expr(JoinEdge *e, const ProbeFunctions *fns)
{
	List	   *keys = copyObject(e->keys[1 - e->build]);
	Const	   *filter = makeConst(fns->bloom_type, -1, InvalidOid, -1, e->filter, false, false);
	Oid			collation = keys_collation(keys);
	Node	   *value;

	if (list_length(keys) == 1)
		value = linitial(keys);
	else
		value = (Node *) makeFuncExpr(fns->tuple_hash, INT8OID, keys, InvalidOid, collation,
									  COERCE_EXPLICIT_CALL);
	return (Node *) makeFuncExpr(fns->contains, BOOLOID, list_make2(filter, value),
								 InvalidOid, exprCollation(value), COERCE_EXPLICIT_CALL);
}

/* "table.column" or "table.(k1, k2, ...)", for the DEBUG lines. */
static char *
describe_keys(JoinTable *t, List *keys)
{
	List	   *dpcontext = deparse_context_for(get_rel_name(t->rte->relid), t->rte->relid);
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s.%s", get_rel_name(t->rte->relid), list_length(keys) > 1 ? "(" : "");
	foreach(lc, keys)
	{
		Node	   *key = copyObject(lfirst(lc));

		ChangeVarNodes(key, t->varno, 1, 0);
		appendStringInfo(&buf, "%s%s", foreach_current_index(lc) > 0 ? ", " : "",
						 deparse_expression(key, dpcontext, false, false));
	}
	if (list_length(keys) > 1)
		appendStringInfoChar(&buf, ')');
	return buf.data;
}

/* The statement shapes considered at all; cheap tests first. */
static bool
candidate_statement(Query *parse)
{
	return parse->commandType == CMD_SELECT && parse->utilityStmt == NULL &&
		parse->cteList == NIL && parse->setOperations == NULL &&
		parse->rowMarks == NIL && !parse->hasSubLinks &&
		list_length(parse->rtable) >= 2;
}

/*
 * The edge's build side: of its two tables with restrictions whose
 * partner Citus moves, the one that keeps the least of itself, if it
 * keeps at most bloomfilter.citus_repartition_max_fraction.  False when
 * neither qualifies.
 */
static bool
choose_build_side(JoinEdge *e)
{
	double		best_fraction = 2;

	e->build = -1;
	for (int i = 0; i < 2; i++)
	{
		double		fraction;

		if (e->t[i]->quals == NIL || !probe_side_moves(e, i))
			continue;
		fraction = selected_fraction(e->t[i]);
		if (fraction < 0 || fraction > repart_max_fraction)
			continue;
		if (fraction < best_fraction)
		{
			e->build = i;
			best_fraction = fraction;
		}
	}
	return e->build >= 0;
}

/*
 * The build side's filter restricts the probe side from now on: where the
 * probe side is the build side of another pair, its filter holds only the
 * keys of its rows that pass this one (cust -> orders -> items: the items
 * of the selected customers' orders).  Each filter still holds the keys of
 * every row that can join, since every row of the result passes every
 * probe.  The probe is made in the planner's context (this runs inside
 * SPI's) and the side's share is measured again.
 */
static void
restrict_probe_side(JoinEdge *e, const ProbeFunctions *fns, MemoryContext planner_cxt)
{
	JoinTable  *probe = e->t[1 - e->build];
	MemoryContext old = MemoryContextSwitchTo(planner_cxt);

	probe->quals = lappend(probe->quals, probe_expr(e, fns));
	MemoryContextSwitchTo(old);
	probe->fraction = NOT_MEASURED;
}

/*
 * Builds the filter of each pair that qualifies, in rounds: the first
 * judges the pairs by the query's own restrictions, as a join of two
 * tables is judged; the filters built in a round restrict their probe
 * sides for the next, where a pair without a filter yet may qualify
 * through them.  (So the first round chooses as it would without the
 * rounds: a fact table that one dimension's filter restricts is not made
 * the build side for another dimension's keys in the same round.)
 * Each pair gets at most one filter; a round that builds none ends it.
 */
static void
build_filters(List *edges, const ProbeFunctions *fns, MemoryContext planner_cxt)
{
	for (int round = 1;; round++)
	{
		bool		progress = false;
		ListCell   *lc;

		foreach(lc, edges)
		{
			JoinEdge   *e = lfirst(lc);

			if (e->round == 0 && choose_build_side(e) && build_filter(e))
			{
				e->round = round;
				progress = true;
			}
		}
		if (!progress)
			return;
		foreach(lc, edges)
		{
			JoinEdge   *e = lfirst(lc);

			if (e->round == round)
				restrict_probe_side(e, fns, planner_cxt);
		}
	}
}

/*
 * Rewrites parse if it qualifies; true if a filter was added, and then
 * *original is a copy of the statement without it.  Each pair of joined
 * tables gets at most one filter, on the side Citus moves.
 */
static bool
try_rewrite(Query *parse, ParamListInfo boundParams, Query **original)
{
	JoinTable	tables[MAX_TABLES];
	int			ntables;
	List	   *conjuncts = NIL;
	List	   *edges;
	List	   *built = NIL;
	ProbeFunctions fns;
	MemoryContext planner_cxt = CurrentMemoryContext;
	ListCell   *lc;

	if (!candidate_statement(parse) || !collect_tables(parse, tables, &ntables) ||
		!collect_conjuncts((Node *) parse->jointree, &conjuncts))
		return false;
	edges = find_edges(conjuncts, tables, ntables);
	if (edges == NIL || !OidIsValid(extension_schema()) || !citus_installed())
		return false;
	for (int i = 0; i < ntables; i++)
		if (!read_distribution(&tables[i]))
			return false;
	if (!probe_functions(&fns))
		return false;
	assign_quals(conjuncts, boundParams, tables, ntables);
	if (SPI_connect() != SPI_OK_CONNECT)
		return false;
	build_filters(edges, &fns, planner_cxt);
	SPI_finish();

	/*
	 * Only now the list of the edges built: whatever was allocated between
	 * SPI_connect and SPI_finish (lists, the tables' fromwhere) was in
	 * SPI's context and is gone.  The new nodes belong to the planner's.
	 */
	foreach(lc, edges)
		if (((JoinEdge *) lfirst(lc))->round > 0)
			built = lappend(built, lfirst(lc));
	if (built == NIL)
		return false;
	*original = copyObject(parse);
	foreach(lc, built)
	{
		JoinEdge   *e = lfirst(lc);

		parse->jointree->quals = make_and_qual(parse->jointree->quals, probe_expr(e, &fns));
		elog(DEBUG1, "bloomfilter: Citus repartition join: %s probed with the keys of %s",
			 describe_keys(e->t[1 - e->build], e->keys[1 - e->build]),
			 get_rel_name(e->t[e->build]->rte->relid));
	}
	return true;
}

static PlannedStmt *
repart_planner(Query *parse, const char *query_string, int cursorOptions,
			   ParamListInfo boundParams)
{
	volatile bool added = false;
	Query	   *volatile original = NULL;
	PlannedStmt *volatile stmt = NULL;

	planner_depth++;
	PG_TRY();
	{
		if (repart_enabled && planner_depth == 1)
			added = try_rewrite(parse, boundParams, (Query **) &original);
		if (prev_planner_hook)
			stmt = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
		else
			stmt = standard_planner(parse, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		planner_depth--;
	}
	PG_END_TRY();
	if (added)
		repart_save_statement(repart_mark_plan(stmt), original, query_string, cursorOptions);
	return stmt;
}

void
bloom_citus_repartition_init(void)
{
	DefineCustomBoolVariable("bloomfilter.citus_repartition",
							 "Adds a Bloom prefilter to joins that Citus plans as repartition joins.",
							 "On a Citus coordinator: the keys of the side with restrictions are gathered "
							 "first, and the other side's rows are probed before they are shuffled.",
							 &repart_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("bloomfilter.citus_repartition_max_fraction",
							 "The largest share of its rows the build side may keep for the repartition prefilter.",
							 "Estimated from a sample of the build side's pages; above it the join is left alone.",
							 &repart_max_fraction, 0.5, 0.0, 1.0, PGC_USERSET, 0, NULL, NULL, NULL);

	prev_planner_hook = planner_hook;
	planner_hook = repart_planner;
	repart_install_executor_start();
}
