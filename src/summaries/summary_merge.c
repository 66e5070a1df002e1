/*
 * summary_merge.c
 *	  The merge of managed summaries (extension/install/65_managed_summaries.sql,
 *	  doc/summaries.md): a partition's pending deltas, and the keys the
 *	  shared buffer holds for it, united into its filter in
 *	  bloom_summary_part.  Its own file because it is the other half of the
 *	  write path: summary_writer.c collects keys and writes deltas; this
 *	  file decides when a writer merges, and holds the C functions that
 *	  the merges and the refresh call from SQL (bloom_summary_merge_locked,
 *	  _merge_listed, bloom_summary_refresh_leaf; the discard of a leaf that
 *	  leaves a summary).
 *
 *	  After writing a delta, the writer may merge the partition's pending
 *	  deltas into its filter: it counts them here, newest first, and if
 *	  they pass the threshold and the partition's advisory lock is free
 *	  (tried, never waited for), unites exactly the deltas it counted
 *	  (bloom_summary_merge_listed).  At READ COMMITTED only: under a
 *	  transaction snapshot the merge could fail on a row merged
 *	  concurrently, and fail the commit with it.
 *
 *	  The merge's aggregate is here too (bloom_summary_unite_agg): it
 *	  inserts the hashes of listed deltas into the partition's fixed-shape
 *	  filter in place, which bloom_union refuses (a list unites only with
 *	  data-sized filters).  So is the take of the shared buffer's keys
 *	  (bloom_summary_unite_buffered) with the retirement of the markers
 *	  that vouched for them.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "pg_compat.h"
#include "summaries/summary_buffer.h"
#include "summaries/summary_catalog.h"
#include "summaries/summary_writer.h"
#include "summaries/summary_writer_internal.h"
#include "core/layout_explicit.h"
#include "types/bloomfilter.h"

PG_FUNCTION_INFO_V1(bloom_summary_unite);
PG_FUNCTION_INFO_V1(bloom_summary_unite_trans);
PG_FUNCTION_INFO_V1(bloom_summary_unite_final);
PG_FUNCTION_INFO_V1(bloom_summary_unite_buffered);
PG_FUNCTION_INFO_V1(bloom_summary_buffer_discard);

/* settings (documented in doc/summaries.md; bloom_summary_writer_init defines them) */
int			summary_merge_check_every = 32;
int			summary_merge_deltas = 128;
int			summary_merge_keys = 10000;

/* The merge check's statement, prepared for the backend's life. */
static SPIPlanPtr merge_listed = NULL;
static Oid	merge_listed_schema = InvalidOid;
static uint32 flush_count = 0;

SPIPlanPtr
summary_merge_listed_plan(Oid schema)
{
	Oid			argtypes[3] = {INT4OID, REGCLASSOID, TIDARRAYOID};

	if (merge_listed == NULL || merge_listed_schema != schema)
	{
		merge_listed = NULL;
		merge_listed = summary_prepare_kept(psprintf("SELECT %s.bloom_summary_merge_listed($1, $2, $3)",
											 quote_identifier(get_namespace_name(schema))),
									3, argtypes);
		merge_listed_schema = schema;
	}
	return merge_listed;
}


/* The deltas counted for a merge, as a tid[]. */
ArrayType *
summary_merge_tid_array(KeyBuffer *buf)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(buf->nmerge_tids, 1));
	int			i;

	for (i = 0; i < buf->nmerge_tids; i++)
		elems[i] = PointerGetDatum(&buf->merge_tids[i]);
	return construct_array(elems, buf->nmerge_tids, TIDOID, sizeof(ItemPointerData),
						   false, TYPALIGN_SHORT);
}


/* Whether the next delta of a partition checks for a merge. */
bool
summary_merge_check_due(KeyBuffer *buf, bool may_merge)
{
	flush_count++;
	return may_merge && !IsolationUsesXactSnapshot() &&
		(buf->nkeys > EXPLICIT_LIST_KEYS ||
		 summary_merge_check_every <= 1 || flush_count % summary_merge_check_every == 0);
}


/*
 * An index of a summary catalog table (bloom_summary_part or _delta) whose
 * first two columns are attributes 1 and 2 (summary_id, partition), or
 * Invalid: the writers' and the readers' way to a partition's rows.
 */
Oid
bloom_summary_catalog_index(Relation rel)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	Oid			found = InvalidOid;

	foreach(lc, indexes)
	{
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index index;

		if (!HeapTupleIsValid(tup))
			continue;
		index = (Form_pg_index) GETSTRUCT(tup);
		if (index->indnkeyatts >= 2 && index->indkey.values[0] == 1 &&
			index->indkey.values[1] == 2 && index->indisvalid &&
			heap_attisnull(tup, Anum_pg_index_indpred, NULL))
			found = index->indexrelid;
		ReleaseSysCache(tup);
		if (OidIsValid(found))
			break;
	}
	list_free(indexes);
	return found;
}


/* Takes the partition's advisory lock (bloom_summary_lock_key) if it is free. */
bool
summary_merge_lock_try(KeyBuffer *buf)
{
	int64		lock_key = (int64) ((((uint64) (uint32) buf->key.summary_id) << 32) |
									(uint64) buf->key.partition);

	return DatumGetBool(DirectFunctionCall1(pg_try_advisory_xact_lock_int8,
											Int64GetDatum(lock_key)));
}


/*
 * Whether the partition's deltas, this transaction's included, have passed
 * bloomfilter.summary_merge_deltas or bloomfilter.summary_merge_keys (at
 * least two of them: one delta alone is merged by nobody); if so, every
 * delta of the partition visible now is left in buf->merge_tids for the
 * merge.
 *
 * The deltas are counted newest first, by a backward scan of the index on
 * (summary_id, partition), whose entries of one partition are in the order
 * of their heap TIDs; until the threshold is passed the scan looks at no
 * more than MERGE_SCAN_FACTOR times it (plus 64) of entries.  The deltas
 * of merges done since the last vacuum stay in the index as dead entries,
 * and a count of all of them at every check (a count(*)) made each check
 * slower the longer vacuum waited.  A count that stops short only delays
 * a merge.  Past the threshold the writer takes the partition's lock (or
 * stops there) and the scan goes on, up to MERGE_SCAN_MAX entries in all,
 * so that the merge takes every delta, also those that were being
 * committed when the last merge counted and lie behind its dead entries;
 * the scan marks the dead entries it passes (LP_DEAD), which the next
 * scans skip without reading the heap.  The cap bounds one merge's time
 * and memory.
 */
#define MERGE_SCAN_FACTOR	2
#define MERGE_SCAN_MAX		65536

static bool
merge_threshold_passed(KeyBuffer *buf)
{
	Oid			relid = get_relname_relid(SUMMARY_DELTA_TABLE, buf->schema);
	Relation	rel;
	Relation	irel;
	Oid			index;
	ScanKeyData keys[2];
	SysScanDesc sscan;
	Snapshot	snapshot;
	int64		limit = Min((int64) summary_merge_deltas * MERGE_SCAN_FACTOR + 64, MERGE_SCAN_MAX);

	int64		seen = 0;
	int64		nkeys = 0;
	bool		passed = false;

	buf->nmerge_tids = 0;
	if (!OidIsValid(relid))
		return false;
	/* this transaction's delta becomes visible to the scan */
	CommandCounterIncrement();
	rel = table_open(relid, AccessShareLock);
	index = bloom_summary_catalog_index(rel);
	if (!OidIsValid(index))
	{
		/* without the index only bloom_summary_merge() merges */
		table_close(rel, AccessShareLock);
		return false;
	}
	irel = index_open(index, AccessShareLock);
	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(buf->key.summary_id));
	ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(buf->key.partition));
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	sscan = systable_beginscan_ordered(rel, irel, snapshot, 2, keys);
	/* index_getnext_slot, but counting the entries looked at */
	while (seen < limit && index_getnext_tid(sscan->iscan, BackwardScanDirection) != NULL)
	{
		bool		isnull;
		Datum		n;

		seen++;
		if (!index_fetch_heap(sscan->iscan, sscan->slot))
			continue;
		n = slot_getattr(sscan->slot, SUMMARY_DELTA_NKEYS, &isnull);
		nkeys += isnull ? 0 : DatumGetInt64(n);
		if (buf->nmerge_tids == buf->merge_tids_size)
		{
			buf->merge_tids_size = Max(64, buf->merge_tids_size * 2);
			buf->merge_tids = buf->merge_tids == NULL ?
				MemoryContextAlloc(summary_key_context, sizeof(ItemPointerData) * buf->merge_tids_size) :
				repalloc(buf->merge_tids, sizeof(ItemPointerData) * buf->merge_tids_size);
		}
		buf->merge_tids[buf->nmerge_tids++] = sscan->slot->tts_tid;
		if (!passed && buf->nmerge_tids >= 2 &&
			(buf->nmerge_tids >= summary_merge_deltas || nkeys >= summary_merge_keys))
		{
			/*
			 * Past the threshold: the partition's lock first, so that a
			 * writer that will not merge does not scan further.
			 */
			if (!summary_merge_lock_try(buf))
				break;
			passed = true;
			limit = MERGE_SCAN_MAX;
		}
	}
	systable_endscan_ordered(sscan);
	UnregisterSnapshot(snapshot);
	index_close(irel, AccessShareLock);
	table_close(rel, AccessShareLock);
	if (!passed)
		buf->nmerge_tids = 0;
	return passed;
}


/*
 * After a delta that is due for a check: whether this writer merges the
 * partition's deltas now.  Only when the threshold has passed and the
 * partition's advisory lock (bloom_summary_lock_key) is free: it is taken
 * without waiting and held until commit, so a writer never waits for a
 * merge or a refresh, and two writers never merge one partition at once.
 */
bool
summary_merge_wanted(KeyBuffer *buf)
{
	return merge_threshold_passed(buf);
}


/* Inserts n value hashes into f (any layout, the list's included). */
void
summary_insert_hashes(BloomFilter *f, const uint64 *hashes, uint64 n)
{
	BfBuilder	builder;

	bf_builder_start(&builder, f);
	for (uint64 i = 0; i < n; i++)
		bf_builder_add(&builder, hashes[i]);
	bf_builder_finish(&builder);
}


/*
 * bloom_summary_unite(part, delta): part | delta, where delta may also be
 * the explicit list of a small statement's keys (bloom_agg over at most 240
 * keys) and part a filter of the summary's fixed shape: the listed value
 * hashes are inserted into a copy of part, which keeps its shape.
 * bloom_union refuses that pair (a list combines only with data-sized
 * filters); every other pair is bloom_union's.  NULL is the identity.
 */
static void *
MemoryContextAllocCopy(MemoryContext cxt, const void *src, Size size)
{
	void	   *copy = MemoryContextAlloc(cxt, size);

	memcpy(copy, src, size);
	return copy;
}

/* Whether delta's listed hashes can be inserted into part as they are. */
static bool
list_into_bits(const BloomFilter *part, const BloomFilter *delta)
{
	return bf_is_explicit(delta) && !bf_is_explicit(part) && part->seed == delta->seed &&
		bf_scheme_wide(part->hash_scheme) == bf_scheme_wide(delta->hash_scheme);
}

static void
insert_list(BloomFilter *part, const BloomFilter *delta)
{
	summary_insert_hashes(part, delta->words, bf_explicit_count(delta));
}

/*
 * bloom_summary_unite_agg's transition: the united filter, kept in the
 * aggregate's memory and changed in place when a list comes (a merge of
 * 10^5 single-key deltas would otherwise copy the filter 10^5 times).
 */
Datum
bloom_summary_unite_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	BloomFilter *state = PG_ARGISNULL(0) ? NULL : (BloomFilter *) PG_GETARG_POINTER(0);
	const BloomFilter *delta;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "bloom_summary_unite_trans called in a non-aggregate context");
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(state);
	delta = PG_GETARG_BLOOM(1);
	if (state == NULL)
		state = MemoryContextAllocCopy(aggcxt, delta, VARSIZE(delta));
	else if (list_into_bits(state, delta))
	{
		insert_list(state, delta);
		state->inserted += delta->inserted;
	}
	else
	{
		BloomFilter *united = bloom_setop(state, delta, false);

		pfree(state);
		state = MemoryContextAllocCopy(aggcxt, united, VARSIZE(united));
	}
	PG_RETURN_POINTER(state);
}

Datum
bloom_summary_unite_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_BLOOM(filter_copy(PG_GETARG_POINTER(0)));
}

Datum
bloom_summary_unite(PG_FUNCTION_ARGS)
{
	const BloomFilter *part;
	const BloomFilter *delta;

	if (PG_ARGISNULL(0) && PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	if (PG_ARGISNULL(0))
		PG_RETURN_DATUM(PG_GETARG_DATUM(1));
	part = PG_GETARG_BLOOM(0);
	delta = PG_GETARG_BLOOM(1);
	if (list_into_bits(part, delta))
	{
		BloomFilter *united = filter_copy(part);

		insert_list(united, delta);
		united->inserted = part->inserted + delta->inserted;
		PG_RETURN_BLOOM(united);
	}
	PG_RETURN_BLOOM(bloom_setop(part, delta, false));
}

/*
 * Whether the current user may change the summary rows of leaf: it has the
 * privileges of the owner of leaf, of one of its ancestors, or of the
 * summary catalog (the writers' merges run as that owner).
 */
static bool
may_change_leaf(Oid leaf, Oid schema)
{
	List	   *rels = lcons_oid(leaf, get_partition_ancestors(leaf));
	ListCell   *lc;

	if (has_privs_of_role(GetUserId(), summary_catalog_owner(schema)))
		return true;
	foreach(lc, rels)
	{
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(lfirst_oid(lc)));
		bool		owner;

		if (!HeapTupleIsValid(tup))
			continue;
		owner = has_privs_of_role(GetUserId(), ((Form_pg_class) GETSTRUCT(tup))->relowner);
		ReleaseSysCache(tup);
		if (owner)
			return true;
	}
	return false;
}

/*
 * Deletes the markers of this epoch of (summary, leaf) that snapshot sees:
 * they vouch for no key the shared buffer still has to keep (see
 * summary_buffer.c).
 */
static void
markers_retire(Oid schema, int32 summary_id, Oid leaf, Snapshot snapshot)
{
	Relation	rel = summary_delta_open(schema, RowExclusiveLock);
	Oid			index;
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tup;
	int64		epoch = summary_buffer_epoch();

	index = bloom_summary_catalog_index(rel);
	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(summary_id));
	ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(leaf));
	scan = systable_beginscan(rel, index, OidIsValid(index), snapshot, 2, keys);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		e = heap_getattr(tup, SUMMARY_DELTA_BUFFER_EPOCH, RelationGetDescr(rel), &isnull);

		if (!isnull && DatumGetInt64(e) == epoch)
			simple_heap_delete(rel, &tup->t_self);
	}
	systable_endscan(scan);
	table_close(rel, NoLock);
}

/*
 * bloom_summary_unite_buffered(part, summary_id, leaf): part with the keys
 * the shared buffer holds for (summary, leaf) inserted, for a merge that
 * writes the result to the partition's row; the buffer drops them once
 * this transaction has committed and every snapshot sees it, and the
 * markers they no longer need are deleted.  A filter of another shape
 * than the buffer's hashes (a seed or hash scheme of its own) is returned
 * as it is, the buffer left alone.
 */
Datum
bloom_summary_unite_buffered(PG_FUNCTION_ARGS)
{
	const BloomFilter *part = PG_GETARG_BLOOM(0);
	int32		summary_id = PG_GETARG_INT32(1);
	Oid			leaf = PG_GETARG_OID(2);
	Oid			schema = get_func_namespace(fcinfo->flinfo->fn_oid);
	BloomFilter *united;
	Snapshot	retire;
	uint64	   *hashes;
	int			n;
	int			nnew;

	if (!may_change_leaf(leaf, schema))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s or of a table it is a partition of",
						get_rel_name(leaf))));
	if (bf_is_explicit(part) || part->seed != 0 ||
		bf_scheme_wide(part->hash_scheme) != bf_scheme_wide(BLOOM_HASH_SCHEME_NEWEST))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	hashes = summary_buffer_take(summary_id, leaf, &n, &nnew, &retire);
	if (retire != NULL)
	{
		markers_retire(schema, summary_id, leaf, retire);
		UnregisterSnapshot(retire);
	}
	if (n == 0)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	united = filter_copy(part);
	summary_insert_hashes(united, hashes, n);
	united->inserted += nnew;
	PG_RETURN_BLOOM(united);
}

/*
 * bloom_summary_buffer_discard(summary_id, leaf): the keys the shared
 * buffer holds for a leaf that leaves the summary (dropped, detached, or
 * the summary dropped) leave it once this transaction has committed, so
 * that its slot serves another partition.  Does nothing for a caller that
 * may not change an existing leaf's rows; true if keys were discarded.
 */
Datum
bloom_summary_buffer_discard(PG_FUNCTION_ARGS)
{
	int32		summary_id = PG_GETARG_INT32(0);
	Oid			leaf = PG_GETARG_OID(1);
	Snapshot	retire;
	int			n;
	int			nnew;

	if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(leaf)) &&
		!may_change_leaf(leaf, get_func_namespace(fcinfo->flinfo->fn_oid)))
		PG_RETURN_BOOL(false);
	(void) summary_buffer_take(summary_id, leaf, &n, &nnew, &retire);
	if (retire != NULL)
		UnregisterSnapshot(retire);
	PG_RETURN_BOOL(n > 0);
}
