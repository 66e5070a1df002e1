/*
 * summary_own_writes.c
 *	  A transaction's own rows under summary pruning (doc/summaries.md,
 *	  "A transaction's own rows").
 *
 *	  The keys of the rows a transaction writes reach the summary (a delta
 *	  row or the shared buffer) only when it commits, yet the transaction
 *	  itself sees those rows at once: later statements, and within the
 *	  writing statement its RI checks, its triggers of any name and timing,
 *	  and the volatile functions it calls.  So from the moment a statement
 *	  may write a partition tree, no summary prunes anything in that tree
 *	  for the rest of the transaction.  The moment is the statement's start,
 *	  before its first row: the executor-start hook notes the statement's
 *	  result relations (INSERT, UPDATE, DELETE, MERGE, ON CONFLICT, writable
 *	  CTEs; statements run by functions and triggers pass the same hook) and
 *	  the utility hook notes COPY FROM, which writes without starting an
 *	  executor for a ModifyTable.  Trees, not summaries: a row written
 *	  through any table of a tree may land in a leaf of any summary of that
 *	  tree, and noting a tree needs no catalog read (the root comes from the
 *	  per-backend cache of ancestors).
 *
 *	  Where writes pass no hook, nothing is pruned at all: in a logical
 *	  replication worker (its apply writes rows without an executor start,
 *	  and its only reads are triggers' and RI checks'), in a parallel worker
 *	  of a transaction that has written (it does not share the leader's
 *	  notes), and in the transaction that loaded the library (what it wrote
 *	  before went unnoted).  The row trigger's pending keys remain a second
 *	  guard (bloom_summary_keys_pending).
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "replication/logicalworker.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/varlena.h"

#include "pg_compat.h"
#include "summaries/summary_writer.h"
#include "summaries/summary_own_writes.h"
#include "summaries/summary_prune_internal.h"

/* Trees noted one by one; past this, the transaction prunes nothing. */
#define OWN_TREES_MAX	32

static Oid	own_trees[OWN_TREES_MAX];
static int	n_own_trees = 0;
static bool own_trees_overflow = false;

/* The library was loaded inside a transaction, which has not ended yet. */
static bool loaded_in_this_transaction = false;
/* ... or before the session's first statement (preloaded). */
static bool loaded_at_session_start = false;

static ProcessUtility_hook_type prev_process_utility = NULL;

/* Notes the partition tree of relid as written by this transaction. */
static void
note_tree(Oid relid)
{
	Oid			root;

	if (!OidIsValid(relid))
		return;
	root = summary_tree_root(relid);
	for (int i = 0; i < n_own_trees; i++)
		if (own_trees[i] == root)
			return;
	if (n_own_trees == OWN_TREES_MAX)
	{
		own_trees_overflow = true;
		return;
	}
	own_trees[n_own_trees++] = root;
}

void
summary_own_writes_note_statement(QueryDesc *queryDesc)
{
	PlannedStmt *stmt = queryDesc->plannedstmt;
	ListCell   *lc;

	if (stmt == NULL || (stmt->commandType == CMD_SELECT && !stmt->hasModifyingCTE))
		return;
	/* every ModifyTable's targets, those of writable CTEs included */
	foreach(lc, stmt->resultRelations)
	{
		RangeTblEntry *rte = rt_fetch(lfirst_int(lc), stmt->rtable);

		if (rte->rtekind == RTE_RELATION)
			note_tree(rte->relid);
	}
}

bool
summary_own_writes_prune_nothing(void)
{
	if (own_trees_overflow || loaded_in_this_transaction || IsLogicalWorker())
		return true;
	return IsParallelWorker() && TransactionIdIsValid(GetTopTransactionIdIfAny());
}

bool
summary_own_rows_may_be_in(int32 summary_id, Oid leaf)
{
	Oid			root;

	if (n_own_trees > 0)
	{
		root = summary_tree_root(leaf);
		for (int i = 0; i < n_own_trees; i++)
			if (own_trees[i] == root)
				return true;
	}
	return bloom_summary_keys_pending(summary_id);
}

bool
summary_library_preloaded(void)
{
	return loaded_at_session_start;
}

/*
 * bloom_summary_pruning_active(): whether every statement of this session
 * passes through the planner hook (the library was preloaded) with
 * bloomfilter.enable_summary_pruning on.
 */
PG_FUNCTION_INFO_V1(bloom_summary_pruning_active);
Datum
bloom_summary_pruning_active(PG_FUNCTION_ARGS)
{
	const char *setting = GetConfigOption("bloomfilter.enable_summary_pruning", true, false);
	bool		on = true;

	if (setting != NULL && !parse_bool(setting, &on))
		on = true;
	PG_RETURN_BOOL(loaded_at_session_start && on);
}

/* COPY FROM writes rows without an executor start of a ModifyTable. */
static void
own_writes_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
						   ProcessUtilityContext context, ParamListInfo params,
						   QueryEnvironment *queryEnv, DestReceiver *dest,
						   QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if (IsA(parsetree, CopyStmt) && ((CopyStmt *) parsetree)->is_from &&
		((CopyStmt *) parsetree)->relation != NULL)
		note_tree(RangeVarGetRelid(((CopyStmt *) parsetree)->relation, NoLock, true));
	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params,
							 queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
								queryEnv, dest, qc);
}

static void
own_writes_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			n_own_trees = 0;
			own_trees_overflow = false;
			loaded_in_this_transaction = false;
			break;
		default:
			break;
	}
}

/* Whether the list of libraries in setting names this library. */
static bool
listed_in(const char *setting)
{
	const char *value = GetConfigOption(setting, true, false);
	char	   *raw;
	List	   *names = NIL;
	ListCell   *lc;
	bool		found = false;

	if (value == NULL || value[0] == '\0')
		return false;
	raw = pstrdup(value);
	if (!SplitDirectoriesString(raw, ',', &names))
		return false;
	foreach(lc, names)
	{
		char	   *name = lfirst(lc);
		char	   *base = strrchr(name, '/');
		size_t		len;

		base = base != NULL ? base + 1 : name;
		len = strlen(base);
		if (len > 3 && strcmp(base + len - 3, ".so") == 0)
			base[len - 3] = '\0';
		found |= strcmp(base, "bloomfilter") == 0;
	}
	return found;
}

void
summary_own_writes_init(void)
{
	/*
	 * shared_preload_libraries loads the library in the postmaster, outside
	 * any transaction; session_preload_libraries (and
	 * local_preload_libraries) at the session's start, before its first
	 * statement, inside the start-up transaction.  Otherwise a function
	 * call or LOAD loads it, inside a transaction that may have written.
	 */
	loaded_in_this_transaction = IsTransactionState();
	loaded_at_session_start = !loaded_in_this_transaction ||
		listed_in("session_preload_libraries") || listed_in("local_preload_libraries");
	RegisterXactCallback(own_writes_xact_callback, NULL);
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = own_writes_process_utility;
}
