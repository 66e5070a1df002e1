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
 *	  so it is called first): it recognises an inner join of exactly two
 *	  hash-distributed tables on one equality of same-typed columns that
 *	  Citus cannot push down whole, estimates from a sample how much of
 *	  the selective side its restrictions keep (the share of the other
 *	  side's shuffled rows that survives), and if that share is small
 *	  enough runs the build (bloom_agg over the selective side, through
 *	  Citus, per shard) and adds the probe to the query.  Everything it
 *	  cannot judge it leaves alone.
 *
 *	  The constant must never outlive the execution it was computed for.
 *	  A plan that carries one is marked with two invalidation items of a
 *	  cache no planner records (pg_foreign_data_wrapper): one common to all
 *	  such plans and one with the plan's serial number.  When the plan
 *	  starts executing, the executor-start hook fires the serial's
 *	  invalidation in this backend, so a plan cache that holds it (PREPARE,
 *	  protocol-level statements, PL/pgSQL) builds a new plan, with a new
 *	  filter, before its next use.  A plan started a second time without
 *	  passing through the plan cache's check (a SQL function called again
 *	  in one statement, an unsaved SPI plan, the unnamed protocol statement
 *	  bound twice) is replaced there and then by a new plan of the
 *	  statement, kept for that purpose (the last few), or refused with an
 *	  error if it is no longer kept; never run with a filter that may be
 *	  stale.  So is a plan whose run's snapshot may see more than the one
 *	  its filter was built under (READ COMMITTED takes the statement's
 *	  snapshot after planning): it is planned again under the run's.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/parallel.h"
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
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "pg_compat.h"
#include "planner/citus_repartition.h"
#include "planner/extension_objects.h"

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
static ExecutorStart_hook_type prev_executor_start = NULL;

/*
 * Nesting of our planner hook: the statements it runs itself (the build,
 * the sample, the metadata look-up) and the planner calls Citus makes
 * while planning are never rewritten.
 */
static int	planner_depth = 0;

/* ---------------------------------------------------------------------
 * Plans that carry a filter
 * --------------------------------------------------------------------- */

/*
 * Plans made and not yet started, by serial number, with what decides the
 * visibility of the snapshot the filter was built under: its bounds, the
 * transactions it saw running (sorted), and this transaction's command.
 */
#define PENDING_SLOTS		256

typedef struct PendingPlan
{
	uint32		serial;
	bool		known;			/* a snapshot was active when it was built */
	TransactionId xmin;
	TransactionId xmax;
	CommandId	command;
	uint32		xcnt;
	TransactionId *xip;			/* xcnt, sorted, in TopMemoryContext */
} PendingPlan;

static PendingPlan pending[PENDING_SLOTS];
static uint32 next_serial = 0;

static uint32
marker_hash(void)
{
	return GetSysCacheHashValue1(FOREIGNDATAWRAPPEROID, ObjectIdGetDatum(InvalidOid));
}

static PlanInvalItem *
inval_item(uint32 hash)
{
	PlanInvalItem *item = makeNode(PlanInvalItem);

	item->cacheId = FOREIGNDATAWRAPPEROID;
	item->hashValue = hash;
	return item;
}

static int
xid_order(const void *a, const void *b)
{
	TransactionId x = *(const TransactionId *) a;
	TransactionId y = *(const TransactionId *) b;

	return (x > y) - (x < y);
}

/* The running transactions of snap, sorted, in cxt. */
static TransactionId *
sorted_xip(Snapshot snap, MemoryContext cxt)
{
	TransactionId *xip = MemoryContextAlloc(cxt, sizeof(TransactionId) * Max(snap->xcnt, 1));

	memcpy(xip, snap->xip, sizeof(TransactionId) * snap->xcnt);
	qsort(xip, snap->xcnt, sizeof(TransactionId), xid_order);
	return xip;
}

/* Records, for the plan of serial, the snapshot its filter is built under. */
static void
remember_snapshot(PendingPlan *p, uint32 serial)
{
	Snapshot	snap = ActiveSnapshotSet() ? GetActiveSnapshot() : NULL;

	if (p->xip != NULL)
		pfree(p->xip);
	p->xip = NULL;
	p->serial = serial;
	p->known = snap != NULL;
	if (snap == NULL)
		return;
	p->xmin = snap->xmin;
	p->xmax = snap->xmax;
	p->command = snap->curcid;
	p->xcnt = snap->xcnt;
	p->xip = sorted_xip(snap, TopMemoryContext);
}

/* Marks stmt as carrying a filter: the marker, then its serial number. */
static uint32
mark_plan(PlannedStmt *stmt)
{
	uint32		serial;

	if (++next_serial == 0)
		next_serial = 1;
	serial = next_serial;
	remember_snapshot(&pending[serial % PENDING_SLOTS], serial);
	stmt->invalItems = lappend(stmt->invalItems, inval_item(marker_hash()));
	stmt->invalItems = lappend(stmt->invalItems, inval_item(serial));
	return serial;
}

/* The serial number of a marked plan, or 0. */
static uint32
plan_serial(PlannedStmt *stmt)
{
	uint32		marker = marker_hash();
	ListCell   *lc;

	foreach(lc, stmt->invalItems)
	{
		PlanInvalItem *item = lfirst_node(PlanInvalItem, lc);
		ListCell   *next = lnext(stmt->invalItems, lc);

		if (item->cacheId == FOREIGNDATAWRAPPEROID && item->hashValue == marker &&
			next != NULL)
			return lfirst_node(PlanInvalItem, next)->hashValue;
	}
	return 0;
}

/*
 * The statements of the last marked plans, as they were before the
 * rewrite, to plan again where a plan is started twice.
 */
#define SAVED_SLOTS			16

typedef struct SavedStatement
{
	uint32		serial;
	MemoryContext context;
	Query	   *parse;
	char	   *query_string;
	int			cursor_options;
} SavedStatement;

static SavedStatement saved[SAVED_SLOTS];

static void
save_statement(uint32 serial, Query *parse, const char *query_string, int cursor_options)
{
	SavedStatement *slot = &saved[serial % SAVED_SLOTS];
	MemoryContext old;

	if (slot->context != NULL)
		MemoryContextDelete(slot->context);
	slot->context = AllocSetContextCreate(TopMemoryContext, "bloomfilter repartition statement",
										  ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(slot->context);
	slot->serial = serial;
	slot->parse = copyObject(parse);
	slot->query_string = query_string ? pstrdup(query_string) : NULL;
	slot->cursor_options = cursor_options;
	MemoryContextSwitchTo(old);
}

static void consume_marked_plan(QueryDesc *queryDesc, bool check_snapshot);

/*
 * A marked plan started a second time: a new plan of the same statement
 * (with a new filter) takes its place in the query descriptor.
 */
static void
replan(QueryDesc *queryDesc, uint32 serial)
{
	SavedStatement *slot = &saved[serial % SAVED_SLOTS];
	MemoryContext old;

	if (slot->context == NULL || slot->serial != serial)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a plan with a Citus repartition prefilter cannot be executed twice"),
				 errdetail("The filter was computed from the data when the plan was made, and the statement is no longer kept to plan it again."),
				 errhint("Execute a prepared statement (PREPARE, or a named protocol-level statement), which is replanned, or set bloomfilter.citus_repartition = off.")));
	old = MemoryContextSwitchTo(GetMemoryChunkContext(queryDesc));
	/* the new filter is built under the snapshot the plan will run with */
	if (queryDesc->snapshot != NULL)
		PushActiveSnapshot(queryDesc->snapshot);
	/* with this execution's parameter values, as a custom plan has them */
	queryDesc->plannedstmt = planner(copyObject(slot->parse), slot->query_string,
									 slot->cursor_options, queryDesc->params);
	if (queryDesc->snapshot != NULL)
		PopActiveSnapshot();
	MemoryContextSwitchTo(old);
	consume_marked_plan(queryDesc, false);
}

/*
 * Whether the snapshot a plan runs with may see rows the snapshot its
 * filter was built under did not (in READ COMMITTED each statement's
 * snapshot is taken after planning): other bounds, other transactions
 * running, or another command of this transaction.  A snapshot that was
 * not known counts as different.
 */
static bool
snapshot_moved(const PendingPlan *p, Snapshot run)
{
	TransactionId *xip;
	bool		moved;

	if (run == NULL)
		return false;			/* no snapshot: nothing the filter can miss */
	if (!p->known || run->snapshot_type != SNAPSHOT_MVCC || run->xmin != p->xmin ||
		run->xmax != p->xmax || run->curcid != p->command || run->xcnt != p->xcnt)
		return true;
	xip = sorted_xip(run, CurrentMemoryContext);
	moved = memcmp(xip, p->xip, sizeof(TransactionId) * p->xcnt) != 0;
	pfree(xip);
	return moved;
}

/*
 * Before a marked plan runs: its filter is used now, for the last time.
 * The plan cache is told (so it replans before the next use), and a plan
 * that already ran once, or whose snapshot has moved since its filter was
 * built, is replaced by a new plan built under the run's snapshot.
 */
static void
consume_marked_plan(QueryDesc *queryDesc, bool check_snapshot)
{
	uint32		serial = plan_serial(queryDesc->plannedstmt);
	PendingPlan *p;

	if (serial == 0 || IsParallelWorker())
		return;
	CallSyscacheCallbacks(FOREIGNDATAWRAPPEROID, serial);
	p = &pending[serial % PENDING_SLOTS];
	if (p->serial != serial ||
		(check_snapshot && snapshot_moved(p, queryDesc->snapshot)))
	{
		if (p->serial == serial)
			elog(DEBUG1, "bloomfilter: Citus repartition join: planned again under the snapshot it runs with (xmax %u then %u, running %u then %u, command %u then %u)",
				 p->xmax, queryDesc->snapshot->xmax, p->xcnt, queryDesc->snapshot->xcnt,
				 p->command, queryDesc->snapshot->curcid);
		p->serial = 0;
		replan(queryDesc, serial);
		return;
	}
	p->serial = 0;
}

static void
repart_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (queryDesc->plannedstmt != NULL && queryDesc->plannedstmt->invalItems != NIL)
		consume_marked_plan(queryDesc, true);
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

/* ---------------------------------------------------------------------
 * The shape: an inner join of two tables on one equality
 * --------------------------------------------------------------------- */

typedef struct JoinSide
{
	Index		varno;
	RangeTblEntry *rte;
	Var		   *key;			/* this side's join column */
	char		partmethod;		/* Citus: 'h' hash, 'n' reference, ... */
	int			colocation;
	AttrNumber	distattno;		/* the distribution column */
	List	   *quals;			/* restrictions on this side alone */
} JoinSide;

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

/* The two plain tables of the range table (the rest being joins), or false. */
static bool
two_tables(Query *parse, JoinSide *a, JoinSide *b)
{
	int			found = 0;
	ListCell   *lc;

	foreach(lc, parse->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		JoinSide   *side;

		if (rte->rtekind == RTE_JOIN)
			continue;
		if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL || found == 2)
			return false;
		side = found++ == 0 ? a : b;
		side->varno = foreach_current_index(lc) + 1;
		side->rte = rte;
	}
	return found == 2;
}

static Var *
plain_column(Node *node)
{
	if (node != NULL && IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		((Var *) node)->varattno > 0)
		return (Var *) node;
	return NULL;
}

/*
 * The first equality between a column of a and a column of b of the same
 * type, by that type's default equality.  Sets the sides' keys.
 */
static bool
find_equijoin(List *conjuncts, JoinSide *a, JoinSide *b)
{
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		OpExpr	   *op = (OpExpr *) lfirst(lc);
		Var		   *l,
				   *r;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			continue;
		l = plain_column(linitial(op->args));
		r = plain_column(lsecond(op->args));
		if (l == NULL || r == NULL || l->vartype != r->vartype ||
			op->opno != lookup_type_cache(l->vartype, TYPECACHE_EQ_OPR)->eq_opr)
			continue;
		if (l->varno == a->varno && r->varno == b->varno)
		{
			a->key = l;
			b->key = r;
			return true;
		}
		if (l->varno == b->varno && r->varno == a->varno)
		{
			a->key = r;
			b->key = l;
			return true;
		}
	}
	return false;
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

/*
 * Assigns each conjunct on one side alone to that side, where the build
 * can repeat it: no parameters (but those of a custom plan, replaced by
 * their values), nothing volatile (run twice, it could select other rows).  A restriction left out only makes the filter
 * bigger, never wrong.
 */
static void
assign_quals(List *conjuncts, ParamListInfo boundParams, JoinSide *a, JoinSide *b)
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

		if (bms_get_singleton_member(varnos, &varno) &&
			!contain_volatile_functions(qual) && !has_param_walker(qual, NULL))
		{
			if (varno == (int) a->varno)
				a->quals = lappend(a->quals, qual);
			else if (varno == (int) b->varno)
				b->quals = lappend(b->quals, qual);
		}
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
 * The side's distribution, from pg_dist_partition read directly (by its
 * index on logicalrelid where it has one): no statement is run for joins
 * of tables Citus does not distribute.  False if not distributed.
 */
static bool
read_distribution(JoinSide *side)
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

		if (!method_null && !key_null && !coloc_null)
		{
			Node	   *keynode = stringToNode(TextDatumGetCString(partkey));

			side->partmethod = DatumGetChar(method);
			side->colocation = DatumGetInt32(coloc);
			if (IsA(keynode, Var))
			{
				side->distattno = ((Var *) keynode)->varattno;
				found = true;
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
 * Whether Citus moves the probe side's rows: not when the two tables are
 * joined on their co-located distribution columns (the join is pushed
 * down whole), nor when a single-table repartition keeps the probe side in
 * place (its key is its distribution column).
 */
static bool
probe_side_moves(JoinSide *build, JoinSide *probe)
{
	bool		build_on_dist = build->key->varattno == build->distattno;
	bool		probe_on_dist = probe->key->varattno == probe->distattno;

	if (build_on_dist && probe_on_dist && build->colocation == probe->colocation)
		return false;
	if (probe_on_dist && setting_on("citus.enable_single_hash_repartition_joins"))
		return false;
	return true;
}

/* ---------------------------------------------------------------------
 * The build side's statements
 * --------------------------------------------------------------------- */

/* "FROM [ONLY] schema.table r WHERE <quals>", with the quals over alias r. */
static char *
from_where(JoinSide *side)
{
	Oid			relid = side->rte->relid;
	List	   *dpcontext = deparse_context_for("r", relid);
	Node	   *quals = copyObject((Node *) make_ands_explicit(side->quals));
	StringInfoData buf;

	ChangeVarNodes(quals, side->varno, 1, 0);
	initStringInfo(&buf);
	appendStringInfo(&buf, " FROM %s%s r WHERE %s",
					 side->rte->inh ? "" : "ONLY ",
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												get_rel_name(relid)),
					 deparse_expression(quals, dpcontext, true, false));
	return buf.data;
}

static char *
key_name(JoinSide *side)
{
	return psprintf("r.%s", quote_identifier(get_attname(side->rte->relid,
														 side->key->varattno, false)));
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
 * The share of the side's rows its restrictions keep: from a sample of 1%
 * of its pages, or, where that holds too few rows to tell (a small table),
 * from all of them; -1 if unknown.
 */
static double
selected_fraction(const char *fromwhere)
{
	int64		rows,
				selected;

	if (!count_selected(fromwhere, " TABLESAMPLE SYSTEM (" SAMPLE_PERCENT ")", &rows, &selected))
		return -1;
	if (rows < SAMPLE_MIN_ROWS &&
		!count_selected(fromwhere, "", &rows, &selected))
		return -1;
	return rows == 0 ? 0 : (double) selected / (double) rows;
}

/*
 * The filter of the side's selected keys (bloom_agg, which Citus runs per
 * shard through the aggregate rewrite), copied out of SPI; false when no
 * row is selected (the aggregate's NULL).
 */
static bool
build_filter(JoinSide *side, const char *fromwhere, Datum *filter)
{
	char	   *sql = psprintf("SELECT %s.bloom_agg(%s)%s",
							   quote_identifier(get_namespace_name(extension_schema())),
							   key_name(side), fromwhere);
	bool		isnull;
	Datum		value;

	if (SPI_execute(sql, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		return false;
	value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return false;
	*filter = SPI_datumTransfer(value, false, -1);
	return true;
}

/* ---------------------------------------------------------------------
 * The rewrite
 * --------------------------------------------------------------------- */

/* Adds bloom_contains(filter, probe.key) to the WHERE clause. */
static void
add_probe(Query *parse, JoinSide *probe, Datum filter, Oid bloom_type, Oid contains)
{
	Var		   *key = copyObject(probe->key);
	Const	   *value = makeConst(bloom_type, -1, InvalidOid, -1, filter, false, false);
	FuncExpr   *call = makeFuncExpr(contains, BOOLOID, list_make2(value, key),
									InvalidOid, exprCollation((Node *) key),
									COERCE_EXPLICIT_CALL);

	parse->jointree->quals = make_and_qual(parse->jointree->quals, (Node *) call);
}

/* The statement shapes considered at all; cheap tests first. */
static bool
candidate_statement(Query *parse)
{
	return parse->commandType == CMD_SELECT && parse->utilityStmt == NULL &&
		parse->cteList == NIL && parse->setOperations == NULL &&
		parse->rowMarks == NIL && !parse->hasSubLinks &&
		list_length(parse->rtable) >= 2 && list_length(parse->rtable) <= 3;
}

/*
 * Of the sides with restrictions, the one that keeps the least of itself,
 * if it keeps at most bloomfilter.citus_repartition_max_fraction; its
 * from_where in *fromwhere.  NULL when neither qualifies.
 */
static JoinSide *
choose_build_side(JoinSide *a, JoinSide *b, char **fromwhere)
{
	JoinSide   *sides[2] = {a, b};
	JoinSide   *best = NULL;
	double		best_fraction = 2;

	for (int i = 0; i < 2; i++)
	{
		JoinSide   *build = sides[i];
		JoinSide   *probe = sides[1 - i];
		char	   *fw;
		double		fraction;

		if (build->quals == NIL || !probe_side_moves(build, probe))
			continue;
		fw = from_where(build);
		fraction = selected_fraction(fw);
		elog(DEBUG1, "bloomfilter: Citus repartition join: %s keeps %s of its rows in the sample",
			 get_rel_name(build->rte->relid),
			 fraction < 0 ? "an unknown share" : psprintf("%.4f", fraction));
		if (fraction < 0 || fraction > repart_max_fraction)
			continue;
		if (fraction < best_fraction)
		{
			best = build;
			best_fraction = fraction;
			*fromwhere = fw;
		}
	}
	return best;
}

/*
 * Rewrites parse if it qualifies; true if a filter was added, and then
 * *original is a copy of the statement without it.
 */
static bool
try_rewrite(Query *parse, ParamListInfo boundParams, Query **original)
{
	JoinSide	a = {0},
				b = {0};
	List	   *conjuncts = NIL;
	Oid			bloom_type,
				contains;
	Oid			contains_args[2];
	JoinSide   *build = NULL,
			   *probe;
	char	   *fromwhere = NULL;
	Datum		filter;
	bool		added = false;

	if (!candidate_statement(parse) || !two_tables(parse, &a, &b) ||
		!collect_conjuncts((Node *) parse->jointree, &conjuncts) ||
		!find_equijoin(conjuncts, &a, &b) || !OidIsValid(extension_schema()) ||
		!citus_installed())
		return false;
	if (!read_distribution(&a) || a.partmethod != 'h' ||
		!read_distribution(&b) || b.partmethod != 'h')
		return false;
	bloom_type = extension_type("bloom");
	contains_args[0] = bloom_type;
	contains_args[1] = ANYELEMENTOID;
	contains = extension_function("bloom_contains", 2, contains_args);
	if (!OidIsValid(contains) || !may_execute(contains))
		return false;
	assign_quals(conjuncts, boundParams, &a, &b);
	if (a.quals == NIL && b.quals == NIL)
		return false;
	if (SPI_connect() != SPI_OK_CONNECT)
		return false;
	if ((build = choose_build_side(&a, &b, &fromwhere)) != NULL &&
		build_filter(build, fromwhere, &filter))
		added = true;
	SPI_finish();
	if (!added)
		return false;
	/* after SPI_finish: the new nodes belong to the planner's context */
	probe = build == &a ? &b : &a;
	*original = copyObject(parse);
	add_probe(parse, probe, filter, bloom_type, contains);
	elog(DEBUG1, "bloomfilter: Citus repartition join: %s.%s probed with the keys of %s",
		 get_rel_name(probe->rte->relid),
		 get_attname(probe->rte->relid, probe->key->varattno, false),
		 get_rel_name(build->rte->relid));
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
		save_statement(mark_plan(stmt), original, query_string, cursorOptions);
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
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = repart_executor_start;
}
