/*
 * batch_scan_exec.c
 *	  The executor half of the batched probe scan (batch_scan.c says what
 *	  the scan is and why): the node's state, reading rows into the ring of
 *	  slots, testing the quals placed before the probe, probing a batch,
 *	  returning the rows that passed forward and backward, rescans,
 *	  parallel scans, and EXPLAIN.  It runs from ExecInitNode to ExecEndNode
 *	  of a plan that batch_scan.c made.
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/detoast.h"
#include "access/tableam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_operator.h"
#include "catalog/namespace.h"
#include "catalog/pg_proc.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "types/bloomfilter.h"
#include "core/interop_format.h"
#include "types/interop_value.h"
#include "scan/batch_scan_internal.h"
#include "helpers/extension_objects.h"

#include PG_COMPAT_EXPLAIN_STATE_H
#include PG_COMPAT_EXPLAIN_FORMAT_H

/* ---------------------------------------------------------------------
 * Execution
 *
 * Forward, the scan reads a batch: up to BATCH_ROWS rows that pass the
 * quals tested before the probe (each tested as it is read) into a ring of
 * slots, hashes their keys and probes them together, then returns the rows
 * the filter passed one per call, in scan order; the table scan is then
 * ahead of the row returned by the rest of the batch.  Backward, it first
 * steps the table scan back to the row returned last, then reads and tests
 * one row at a time, as the plain scan does.  The row returned is the
 * node's scan tuple slot until the next call.
 * --------------------------------------------------------------------- */

typedef struct BatchScanState
{
	CustomScanState css;
	ExprState  *quals_before;	/* the quals tested before the probe, or NULL */
	ExprState  *filter_expr;	/* evaluated once per scan */
	AttrNumber	key_attno;		/* the probed column */
	BloomHasher hasher;			/* of the column's type and the collation */
	MemoryContext filter_cxt;	/* holds the filter; reset per evaluation */
	bool		filter_evaluated;	/* filter_value is this scan's filter */
	bool		filter_isnull;
	Datum		filter_value;
	const BloomFilter *filter;	/* filter_value checked and aligned; NULL
								 * until the first non-NULL key */
	ParallelTableScanDesc pscan;	/* shared, in a parallel plan */
	TupleTableSlot *own_slot;	/* the node's scan slot: a backward read's
								 * row, or empty */
	bool		at_end;			/* the last forward read found no row */
	int64		nread;			/* rows the table scan read for the batch */
	int			nbatch;			/* rows in the batch */
	int			next;			/* next row of the batch to look at */
	TupleTableSlot *slots[BATCH_ROWS];
	int64		ordinal[BATCH_ROWS];	/* with quals before the probe:
										 * slots[i] holds the batch's
										 * ordinal[i]-th row read (from 1) */
	uint64		hashes[BATCH_ROWS];
	bool		passed[BATCH_ROWS];
	/* an interop filter (bf_layout_interop): the keys' hashes as the other system computes them */
	InteropEncoder interop;
	BloomHash	interop_hashes[BATCH_ROWS];
} BatchScanState;

static void begin_batch_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_batch_scan(CustomScanState *node);
static void end_batch_scan(CustomScanState *node);
static void rescan_batch_scan(CustomScanState *node);
static Size estimate_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt);
static void initialize_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt,
									  void *coordinate);
static void reinitialize_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt,
										void *coordinate);
static void initialize_worker_batch_scan(CustomScanState *node, shm_toc *toc,
										 void *coordinate);
static void explain_batch_scan(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomExecMethods batch_exec_methods = {
	.CustomName = BATCH_SCAN_NAME,
	.BeginCustomScan = begin_batch_scan,
	.ExecCustomScan = exec_batch_scan,
	.EndCustomScan = end_batch_scan,
	.ReScanCustomScan = rescan_batch_scan,
	.EstimateDSMCustomScan = estimate_dsm_batch_scan,
	.InitializeDSMCustomScan = initialize_dsm_batch_scan,
	.ReInitializeDSMCustomScan = reinitialize_dsm_batch_scan,
	.InitializeWorkerCustomScan = initialize_worker_batch_scan,
	.ExplainCustomScan = explain_batch_scan,
};

Node *
batch_scan_create_state(CustomScan *cscan)
{
	BatchScanState *state = palloc0(sizeof(BatchScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &batch_exec_methods;
#if PG_CUSTOM_SCAN_HAS_SLOT_OPS
	/* the scan returns the table's own slots (a heap table: planned so) */
	state->css.slotOps = &TTSOpsBufferHeapTuple;
#endif
	return (Node *) state;
}

#if !PG_CUSTOM_SCAN_HAS_SLOT_OPS
/*
 * Before PostgreSQL 16 the scan slot of a custom scan is virtual, and the
 * quals and projection are compiled for virtual slots.  This scan returns
 * the table's buffer heap slots: set them up again for those.
 */
static void
use_table_slots(BatchScanState *state, EState *estate)
{
	ScanState  *ss = &state->css.ss;

	ExecInitScanTupleSlot(estate, ss, RelationGetDescr(ss->ss_currentRelation),
						  table_slot_callbacks(ss->ss_currentRelation));
	ExecAssignScanProjectionInfoWithVarno(ss, ((Scan *) ss->ps.plan)->scanrelid);
	ss->ps.qual = ExecInitQual(ss->ps.plan->qual, &ss->ps);
}
#endif

static void
begin_batch_scan(CustomScanState *node, EState *estate, int eflags)
{
	BatchScanState *state = (BatchScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	Var		   *key = list_nth_node(Var, cscan->custom_exprs, EXPR_KEY);

	if (table_slot_callbacks(rel) != &TTSOpsBufferHeapTuple)
		elog(ERROR, "batched probe scan of \"%s\": not a heap table",
			 RelationGetRelationName(rel));
#if !PG_CUSTOM_SCAN_HAS_SLOT_OPS
	use_table_slots(state, estate);
#endif
	state->own_slot = node->ss.ss_ScanTupleSlot;
	state->quals_before = ExecInitQual(plan_quals_before(cscan), &node->ss.ps);
	state->filter_expr = ExecInitExpr(list_nth(cscan->custom_exprs, EXPR_FILTER),
									  &node->ss.ps);
	state->key_attno = key->varattno;
	state->filter_cxt = AllocSetContextCreate(estate->es_query_cxt, "bloom batch scan filter",
											  ALLOCSET_DEFAULT_SIZES);
	for (int i = 0; i < BATCH_ROWS; i++)
		state->slots[i] = table_slot_create(rel, &estate->es_tupleTable);
}

/*
 * A private copy of a filter whose words start on a 64-byte boundary, so a
 * block of the blocked layout is one cache line (as the probes of
 * bloom_contains see it, bloomfilter.c).
 */
static const BloomFilter *
aligned_filter(const BloomFilter *f)
{
	Size		bytes = VARSIZE(f);
	char	   *mem;
	BloomFilter *copy;

	if ((uintptr_t) f % 64 == 0)
		return f;
	mem = palloc(bytes + 64);
	copy = (BloomFilter *) TYPEALIGN(64, mem);
	memcpy(copy, f, bytes);
	return copy;
}

/*
 * Evaluates the filter for this scan.  Called at the first row that passes
 * the quals before the probe, where the plain scan first evaluates the
 * probe's arguments: when no row does, the filter is never evaluated (its
 * InitPlan does not run).
 */
static void
evaluate_filter(BatchScanState *state)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	MemoryContext old;

	MemoryContextReset(state->filter_cxt);
	state->filter = NULL;
	old = MemoryContextSwitchTo(state->filter_cxt);
	state->filter_value = ExecEvalExpr(state->filter_expr, econtext, &state->filter_isnull);
	MemoryContextSwitchTo(old);
	state->filter_evaluated = true;
}

/*
 * Sets up the key's hasher and checks the filter, detoasted and aligned
 * once.  Called at the first non-NULL key a non-NULL filter probes, where
 * bloom_contains (strict) is first called and meets the same errors in the
 * same order: a NULL key or filter never needs the key type's hash
 * function.
 */
static void
prepare_filter(BatchScanState *state)
{
	CustomScan *cscan = (CustomScan *) state->css.ss.ps.plan;
	Var		   *key = list_nth_node(Var, cscan->custom_exprs, EXPR_KEY);
	const BloomFilter *detoasted;
	MemoryContext old;

	if (state->hasher.kind == BLOOM_HASH_UNSET)
		bloom_hasher_init(&state->hasher, key->vartype, linitial_oid(cscan->custom_private),
						  state->css.ss.ps.state->es_query_cxt);
	old = MemoryContextSwitchTo(state->filter_cxt);
	detoasted = filter_from_datum(state->filter_value, &bloom_type);
	state->filter = aligned_filter(detoasted);
	/* a detoasted copy copied again would hold memory for the whole scan */
	if (state->filter != detoasted && (Pointer) detoasted != DatumGetPointer(state->filter_value))
		pfree((void *) detoasted);
	MemoryContextSwitchTo(old);
	if (bf_layout_interop(state->filter->layout))
		bloom_interop_encoder_prepare(&state->interop, state->filter, key->vartype);
}

/* The table scan, started on first use when no parallel scan started it. */
static TableScanDesc
table_scan(BatchScanState *state)
{
	ScanState  *ss = &state->css.ss;

	if (ss->ss_currentScanDesc == NULL)
		ss->ss_currentScanDesc = table_beginscan(ss->ss_currentRelation,
												 ss->ps.state->es_snapshot, 0, NULL);
	return ss->ss_currentScanDesc;
}

/*
 * True if a row passes the quals the plain scan tests before the probe; a
 * row that does not counts in "Rows Removed by Filter".
 */
static inline bool
passes_quals_before(BatchScanState *state, TupleTableSlot *slot)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	if (state->quals_before == NULL)
		return true;
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	if (ExecQual(state->quals_before, econtext))
		return true;
	InstrCountFiltered1(&state->css.ss, 1);
	return false;
}

/*
 * True if the filter can probe the keys of these rows: it is not NULL and,
 * when one of the keys is not NULL, prepared (prepare_filter) if it was
 * not yet.  Evaluates the filter first if this scan has not.
 */
static bool
filter_ready(BatchScanState *state, TupleTableSlot **slots, int n)
{
	if (!state->filter_evaluated)
		evaluate_filter(state);
	if (state->filter_isnull)
		return false;
	if (likely(state->filter != NULL))
		return true;
	for (int i = 0; i < n; i++)
		if (!slot_attisnull(slots[i], state->key_attno))
		{
			prepare_filter(state);
			return true;
		}
	return false;
}

/*
 * The probed column's hash of a row, or false if it is NULL; filter_ready
 * has seen the row.
 */
static inline bool
key_hash(BatchScanState *state, TupleTableSlot *slot, uint64 *hash)
{
	bool		isnull;
	Datum		key = slot_getattr(slot, state->key_attno, &isnull);

	if (isnull)
		return false;
	*hash = bloom_hasher_value_hash(&state->hasher, key, state->filter->seed,
									state->filter->hash_scheme);
	return true;
}

/* The same for an interop filter: the other system's hash of the key. */
static inline bool
key_interop_hash(BatchScanState *state, TupleTableSlot *slot, BloomHash *hash)
{
	bool		isnull;
	Datum		key = slot_getattr(slot, state->key_attno, &isnull);

	if (isnull)
		return false;
	*hash = bloom_interop_hash(&state->interop, state->filter, key);
	return true;
}

/* probe_batch for an interop filter: every key's hash, then bf_interop_query_batch. */
static int
probe_interop_batch(BatchScanState *state, int n, bool *nonnull)
{
	for (int i = 0; i < n; i++)
		if (!(nonnull[i] = key_interop_hash(state, state->slots[i], &state->interop_hashes[i])))
			state->interop_hashes[i] = (BloomHash) {0, 0};
	return bf_interop_query_batch(state->filter, &state->interop.mod, state->interop_hashes, n,
								  state->passed);
}

/*
 * The probe of one row, as bloom_contains answers it (NULL counting as
 * false), hashed in the per-tuple context.
 */
static bool
probe_row(BatchScanState *state, TupleTableSlot *slot)
{
	MemoryContext old;
	uint64		hash;
	bool		member;

	if (!filter_ready(state, &slot, 1))
		return false;
	old = MemoryContextSwitchTo(state->css.ss.ps.ps_ExprContext->ecxt_per_tuple_memory);
	if (bf_layout_interop(state->filter->layout))
	{
		BloomHash	h;

		member = key_interop_hash(state, slot, &h) &&
			bf_interop_query(state->filter, &state->interop.mod, h);
	}
	else
		member = key_hash(state, slot, &hash) && bf_contains_value(state->filter, hash);
	MemoryContextSwitchTo(old);
	return member;
}

/*
 * Probes the n rows of the batch together: sets passed[].  Keys are hashed
 * in the per-tuple context, which ExecScan resets (a type hashed through
 * fmgr may allocate).
 */
static void
probe_batch(BatchScanState *state, int n)
{
	MemoryContext old;
	bool		nonnull[BATCH_ROWS];
	bool		some_null = false;
	int			npassed;

	if (!filter_ready(state, state->slots, n))
	{
		/* a NULL filter or NULL keys: nothing passes (bloom_contains is strict) */
		memset(state->passed, 0, n * sizeof(bool));
		InstrCountFiltered2(&state->css.ss, n);
		return;
	}
	old = MemoryContextSwitchTo(state->css.ss.ps.ps_ExprContext->ecxt_per_tuple_memory);
	if (bf_layout_interop(state->filter->layout))
	{
		npassed = probe_interop_batch(state, n, nonnull);
		for (int i = 0; i < n; i++)
			some_null |= !nonnull[i];
		MemoryContextSwitchTo(old);
	}
	else
	{
		for (int i = 0; i < n; i++)
		{
			nonnull[i] = key_hash(state, state->slots[i], &state->hashes[i]);
			if (!nonnull[i])
			{
				state->hashes[i] = 0;
				some_null = true;
			}
		}
		MemoryContextSwitchTo(old);
		npassed = bf_probe_batch(state->filter, state->hashes, n, state->passed);
	}
	for (int i = 0; some_null && i < n; i++)
		if (state->passed[i] && !nonnull[i])
		{
			/* NULL is never a member (bloom_contains answers NULL) */
			state->passed[i] = false;
			npassed--;
		}
	InstrCountFiltered2(&state->css.ss, n - npassed);
}

/*
 * Reads the next row into slot; false at the end of the table.  The heap
 * scan stores every row it returns through one tuple header of its own
 * (the scan's current tuple), which the next row overwrites; a row kept in
 * the ring while later rows are read gets its own copy of the header.  The
 * row's data stays where it is, in the page the slot keeps pinned.
 */
static inline bool
read_row(TableScanDesc scan, TupleTableSlot *slot)
{
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;

	if (!table_scan_getnextslot(scan, ForwardScanDirection, slot))
		return false;
	bslot->base.tupdata = *bslot->base.tuple;
	bslot->base.tuple = &bslot->base.tupdata;
	return true;
}

/*
 * Reads up to BATCH_ROWS rows into the ring: the number read.  Without
 * quals before the probe, every row read joins the batch (slots[i] holds
 * the batch's (i + 1)-th row read).
 */
static int
read_rows(BatchScanState *state, TableScanDesc scan)
{
	int			n = 0;

	while (n < BATCH_ROWS && read_row(scan, state->slots[n]))
		n++;
	state->nread = n;
	return n;
}

/*
 * Reads rows until BATCH_ROWS of them pass the quals before the probe, or
 * the table ends: the number that passed, whose places among the rows read
 * go to ordinal[].
 */
static int
read_rows_passing(BatchScanState *state, TableScanDesc scan)
{
	int			n = 0;

	state->nread = 0;
	while (n < BATCH_ROWS && read_row(scan, state->slots[n]))
	{
		state->nread++;
		if (passes_quals_before(state, state->slots[n]))
			state->ordinal[n++] = state->nread;
		else
			CHECK_FOR_INTERRUPTS();
	}
	return n;
}

/* Reads the next batch and probes it; false at the end of the table. */
static bool
read_batch(BatchScanState *state)
{
	TableScanDesc scan = table_scan(state);
	int			n;

	state->nbatch = 0;
	state->next = 0;
	state->nread = 0;
	if (state->at_end)
		return false;
	n = state->quals_before == NULL ? read_rows(state, scan) : read_rows_passing(state, scan);
	state->at_end = n < BATCH_ROWS;
	if (n == 0)
		return false;
	probe_batch(state, n);
	state->nbatch = n;
	return true;
}

/* The next row of the batches that the filter passed, or NULL at the end. */
static TupleTableSlot *
next_batched_row(BatchScanState *state)
{
	for (;;)
	{
		while (state->next < state->nbatch)
		{
			int			i = state->next++;

			if (state->passed[i])
				return state->slots[i];
		}
		if (!read_batch(state))
			return NULL;
	}
}

/*
 * Steps the table scan back to the row returned last, which a forward read
 * leaves behind by the rest of the batch, plus one if it met the end of the
 * table (a heap scan past its end starts a backward read at the last row).
 * Empties the batch.
 */
static void
step_back_to_current_row(BatchScanState *state, TableScanDesc scan)
{
	if (state->nbatch > 0)
	{
		int64		steps;

		Assert(state->next > 0);
		steps = state->nread + (state->at_end ? 1 : 0) -
			(state->quals_before == NULL ? state->next : state->ordinal[state->next - 1]);
		while (steps-- > 0)
			if (!table_scan_getnextslot(scan, BackwardScanDirection, state->own_slot))
				elog(ERROR, "batched probe scan: the table scan lost its place");
		for (int i = 0; i < state->nbatch; i++)
			ExecClearTuple(state->slots[i]);
	}
	state->nbatch = 0;
	state->next = 0;
	state->nread = 0;
	state->at_end = false;
}

/*
 * The previous row that passes the quals before the probe and the probe,
 * read backward one row at a time as the plain scan reads it; NULL at the
 * start of the table.
 */
static TupleTableSlot *
prev_passed_row(BatchScanState *state)
{
	TableScanDesc scan = table_scan(state);
	TupleTableSlot *slot = state->own_slot;

	step_back_to_current_row(state, scan);
	while (table_scan_getnextslot(scan, BackwardScanDirection, slot))
	{
		if (passes_quals_before(state, slot))
		{
			if (probe_row(state, slot))
				return slot;
			InstrCountFiltered2(&state->css.ss, 1);
		}
		CHECK_FOR_INTERRUPTS();
	}
	return NULL;
}

/*
 * ExecScan's access method: the next row in the executor's direction that
 * passes the quals before the probe and the probe, or NULL.  The row is
 * left in the node's scan tuple slot, where WHERE CURRENT OF reads the
 * cursor's current row (execCurrent.c), and an empty slot at either end.
 */
static TupleTableSlot *
next_passed_row(ScanState *ss)
{
	BatchScanState *state = (BatchScanState *) ss;
	TupleTableSlot *slot;

	if (ScanDirectionIsBackward(ss->ps.state->es_direction))
		slot = prev_passed_row(state);
	else
		slot = next_batched_row(state);
	ss->ss_ScanTupleSlot = slot != NULL ? slot : ExecClearTuple(state->own_slot);
	return slot;
}

/*
 * ExecScan's recheck (EvalPlanQual): the quals before the probe and the
 * probe of one row.
 */
static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	BatchScanState *state = (BatchScanState *) ss;

	return passes_quals_before(state, slot) && probe_row(state, slot);
}

static TupleTableSlot *
exec_batch_scan(CustomScanState *node)
{
	return ExecScan(&node->ss, next_passed_row, recheck_row);
}

/* Empties the batch and the scan slot: the scan is on no row. */
static void
clear_rows(BatchScanState *state)
{
	for (int i = 0; i < BATCH_ROWS; i++)
		ExecClearTuple(state->slots[i]);
	state->css.ss.ss_ScanTupleSlot = ExecClearTuple(state->own_slot);
	state->nbatch = 0;
	state->next = 0;
	state->nread = 0;
	state->at_end = false;
}

static void
end_batch_scan(CustomScanState *node)
{
	clear_rows((BatchScanState *) node);
	if (node->ss.ss_currentScanDesc != NULL)
		table_endscan(node->ss.ss_currentScanDesc);
}

/* Rescans read the table again; a changed parameter changes the filter. */
static void
rescan_batch_scan(CustomScanState *node)
{
	BatchScanState *state = (BatchScanState *) node;

	clear_rows(state);
	if (node->ss.ps.chgParam != NULL)
		state->filter_evaluated = false;
	if (node->ss.ss_currentScanDesc != NULL)
		table_rescan(node->ss.ss_currentScanDesc, NULL);
}

/* ---- parallel scans: the table shared as nodeSeqscan.c shares it ---- */

static Size
estimate_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt)
{
	return table_parallelscan_estimate(node->ss.ss_currentRelation,
									   node->ss.ps.state->es_snapshot);
}

static void
initialize_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	BatchScanState *state = (BatchScanState *) node;

	state->pscan = (ParallelTableScanDesc) coordinate;
	table_parallelscan_initialize(node->ss.ss_currentRelation, state->pscan,
								  node->ss.ps.state->es_snapshot);
	node->ss.ss_currentScanDesc = table_beginscan_parallel(node->ss.ss_currentRelation,
														   state->pscan);
}

static void
reinitialize_dsm_batch_scan(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	table_parallelscan_reinitialize(node->ss.ss_currentRelation,
									(ParallelTableScanDesc) coordinate);
}

static void
initialize_worker_batch_scan(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	BatchScanState *state = (BatchScanState *) node;

	state->pscan = (ParallelTableScanDesc) coordinate;
	node->ss.ss_currentScanDesc = table_beginscan_parallel(node->ss.ss_currentRelation,
														   state->pscan);
}

/* ---- EXPLAIN: the probe, the quals before it, and with ANALYZE the rows they removed ---- */

static Oid
operator_namespace(Oid opno)
{
	HeapTuple	tuple = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	Oid			namespace;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for operator %u", opno);
	namespace = ((Form_pg_operator) GETSTRUCT(tuple))->oprnamespace;
	ReleaseSysCache(tuple);
	return namespace;
}

/* A function's or operator's name as SQL would write it from here. */
static char *
qualified_name(const char *name, Oid namespace, bool visible)
{
	if (visible)
		return pstrdup(quote_identifier(name));
	return quote_qualified_identifier(get_namespace_name(namespace), name);
}

/*
 * The probe as EXPLAIN shows it.  A constant filter is shown by its size,
 * not its bytes: a filter of megabytes (as a remote server receives a
 * shipped one) would otherwise fill the plan and the logs.
 */
static char *
probe_text(Expr *probe, Const *filter, const char *key)
{
	char		size[64];

	snprintf(size, sizeof(size), "<constant filter, %s>",
			 filter->constisnull ? "NULL"
			 : psprintf("%zu bytes", toast_raw_datum_size(filter->constvalue)));
	if (IsA(probe, OpExpr))
	{
		Oid			opno = ((OpExpr *) probe)->opno;
		char	   *name = get_opname(opno);
		bool		filter_first = equal(linitial(((OpExpr *) probe)->args), filter);

		if (!OperatorIsVisible(opno))
			name = psprintf("OPERATOR(%s.%s)",
							quote_identifier(get_namespace_name(operator_namespace(opno))), name);
		return filter_first ? psprintf("(%s %s %s)", size, name, key)
			: psprintf("(%s %s %s)", key, name, size);
	}
	else
	{
		Oid			funcid = ((FuncExpr *) probe)->funcid;
		char	   *name = qualified_name(get_func_name(funcid), get_func_namespace(funcid),
										  FunctionIsVisible(funcid));

		return equal(linitial(((FuncExpr *) probe)->args), filter)
			? psprintf("%s(%s, %s)", name, size, key)
			: psprintf("%s(%s, %s)", name, key, size);
	}
}

static void
explain_batch_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Expr	   *probe = list_nth(cscan->custom_exprs, EXPR_PROBE);
	Node	   *filter = list_nth(cscan->custom_exprs, EXPR_FILTER);
	List	   *before = plan_quals_before(cscan);
	List	   *context;

	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
	if (IsA(filter, Const))
		ExplainPropertyText("Bloom Filter",
							probe_text(probe, (Const *) filter,
									   deparse_expression(list_nth(cscan->custom_exprs, EXPR_KEY),
														  context, es->verbose, false)),
							es);
	else
		ExplainPropertyText("Bloom Filter",
							deparse_expression((Node *) probe, context, es->verbose, false), es);
	if (before != NIL)
		ExplainPropertyText("Filter Before Bloom Filter",
							deparse_expression((Node *) make_ands_explicit(before), context,
											   es->verbose, false), es);
	if (es->analyze && node->ss.ps.instrument != NULL)
	{
		Instrumentation *instr = node->ss.ps.instrument;
		double		nloops = instr->nloops;

		/* explain.c shows the rows the quals removed only with a Filter */
		if (before != NIL && cscan->scan.plan.qual == NIL &&
			(instr->nfiltered1 > 0 || es->format != EXPLAIN_FORMAT_TEXT))
			ExplainPropertyFloat("Rows Removed by Filter", NULL,
								 nloops > 0 ? instr->nfiltered1 / nloops : 0.0, 0, es);
		ExplainPropertyFloat("Rows Removed by Bloom Filter", NULL,
							 nloops > 0 ? instr->nfiltered2 / nloops : 0.0, 0, es);
	}
}

