/*
 * citus_repartition_plan.c
 *	  The plans that carry a Citus repartition prefilter (doc/distributed.md,
 *	  "Citus repartition joins"): marked when they are made, consumed when
 *	  they start, and planned again where their filter may be stale.  Its
 *	  own file because it is the executor-start half of the feature, apart
 *	  from the planner hook in citus_repartition.c that decides and builds
 *	  the filters; that hook hands it each plan it changed.
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

#include "access/parallel.h"
#include "executor/executor.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "citus/citus_repartition_internal.h"

static ExecutorStart_hook_type prev_executor_start = NULL;

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
uint32
repart_mark_plan(PlannedStmt *stmt)
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

void
repart_save_statement(uint32 serial, Query *parse, const char *query_string, int cursor_options)
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

/* Called once, from bloom_citus_repartition_init. */
void
repart_install_executor_start(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = repart_executor_start;
}
