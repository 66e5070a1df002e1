/*
 * summary_writer.c
 *	  The write path of managed summaries
 *	  (extension/install/65_managed_summaries.sql,
 *	  doc/summaries.md): bloom_summary_collect, the AFTER INSERT OR UPDATE
 *	  row trigger of a summarised partitioned table (cloned by PostgreSQL
 *	  onto every leaf partition, present and future), and the flush that
 *	  turns the collected keys into delta rows.
 *
 *	  A row trigger only copies the row's key values (and, for one key
 *	  column, their value hashes) into a buffer of the backend, one per
 *	  (summary, leaf partition).  Just before the transaction commits (or
 *	  is prepared), each buffer becomes ONE row of bloom_summary_delta: up
 *	  to 240 keys of one column, the list of their hashes that bloom_agg
 *	  would build, inserted as a heap tuple without SPI (the common case of
 *	  small transactions); otherwise the filter built in SQL by bloom_agg of
 *	  the summary's shape (or multibloom_agg_fixed), so the hash scheme is
 *	  the refresh's.  With the library preloaded, a commit's buffer of
 *	  one column and at most 240 keys goes to the shared buffer instead
 *	  (summary_buffer.c), after a marker row when the partition's slot has
 *	  no committed one; prepared transactions and full slots write rows.
 *	  Writers thus only insert rows: they never update or lock a shared row
 *	  and never wait for each other.  Statement triggers would not do: a
 *	  statement on the parent does not fire the leaves' statement triggers,
 *	  its transition table does not say which leaf a row went to, and
 *	  logical replication's apply fires no statement trigger at all.
 *
 *	  A transaction that aborts takes its buffers (and any delta it wrote)
 *	  with it.  A statement or subtransaction that fails leaves its keys in
 *	  the buffer: a superset, which costs false positives, never a miss.  A
 *	  buffer that grows past FLUSH_EARLY_KEYS keys is written at once, but
 *	  only outside subtransactions: a delta written inside a subtransaction
 *	  that rolls back would take the keys of the outer rows with it.
 *
 *	  After writing a delta, the writer may merge the partition's pending
 *	  deltas into its filter (summary_merge.c: the count of the deltas,
 *	  the partition's lock, and the pieces of the merge called from SQL).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/heapam.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "pg_compat.h"
#include "summaries/summary_buffer.h"
#include "summaries/summary_catalog.h"
#include "summaries/summary_writer.h"
#include "summaries/summary_writer_internal.h"
#include "core/layout_explicit.h"
#include "types/bloomfilter.h"

PG_FUNCTION_INFO_V1(bloom_summary_collect);
PG_FUNCTION_INFO_V1(bloom_summary_may_manage);

/* a buffer this large is written before commit, outside subtransactions */
#define FLUSH_EARLY_KEYS	65536

static HTAB *buffers = NULL;
static bool flushing = false;

bool
bloom_summary_keys_pending(int32 summary_id)
{
	HASH_SEQ_STATUS status;
	KeyBuffer  *buf;

	if (buffers == NULL)
		return false;
	hash_seq_init(&status, buffers);
	while ((buf = hash_seq_search(&status)) != NULL)
	{
		if (buf->key.summary_id == summary_id && (buf->nkeys > 0 || buf->nhashes > 0))
		{
			hash_seq_term(&status);
			return true;
		}
	}
	return false;
}

static void
buffers_forget(void)
{
	if (summary_key_context != NULL)
		MemoryContextDelete(summary_key_context);
	summary_key_context = NULL;
	buffers = NULL;
}

static void
buffers_create(void)
{
	HASHCTL		ctl;

	summary_key_context = AllocSetContextCreate(TopMemoryContext,
										   "bloom summary key buffers",
										   ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(BufferKey);
	ctl.entrysize = sizeof(KeyBuffer);
	ctl.hcxt = summary_key_context;
	buffers = hash_create("bloom summary key buffers", 16, &ctl,
						  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

/* The SQL that writes one buffer as a delta row ($1 summary, $2 partition, $3.. key arrays). */
static char *
delta_insert_sql(KeyBuffer *buf)
{
	StringInfoData sql;
	const char *ext = quote_identifier(get_namespace_name(buf->schema));
	bool		multi = buf->ncolumns > 1;
	bool		fixed = multi || buf->nkeys > EXPLICIT_LIST_KEYS;
	int			i;

	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "INSERT INTO %s.bloom_summary_delta (summary_id, partition, %s, nkeys) SELECT $1, $2, ",
					 ext, multi ? "mfilter" : "filter");
	if (multi)
		appendStringInfo(&sql, "%s.multibloom_agg_fixed(d.capacity, d.fpp", ext);
	else if (fixed)
		appendStringInfo(&sql, "%s.bloom_agg(u.k1, d.capacity, d.fpp", ext);
	else
		appendStringInfo(&sql, "%s.bloom_agg(u.k1", ext);
	for (i = multi ? 0 : 1; i < buf->ncolumns; i++)
		appendStringInfo(&sql, ", u.k%d", i + 1);
	appendStringInfoString(&sql, "), pg_catalog.count(*) FROM ROWS FROM (");
	for (i = 0; i < buf->ncolumns; i++)
		appendStringInfo(&sql, "%spg_catalog.unnest($%d)", i > 0 ? ", " : "", i + 3);
	appendStringInfoString(&sql, ") AS u(");
	for (i = 0; i < buf->ncolumns; i++)
		appendStringInfo(&sql, "%sk%d", i > 0 ? ", " : "", i + 1);
	appendStringInfo(&sql, "), %s.bloom_summary_def d WHERE d.summary_id OPERATOR(pg_catalog.=) $1", ext);
	if (!multi)
		appendStringInfoString(&sql, " AND u.k1 IS NOT NULL");
	appendStringInfoString(&sql, " GROUP BY d.summary_id");
	return sql.data;
}

/*
 * Prepared statements, kept for the backend's life: the delta insert per
 * (schema, summary, list or fixed form, key types), and the merge check.
 * A plan whose objects change is replanned by the plan cache.
 */
typedef struct PlanKey
{
	Oid			schema;
	int32		summary_id;
	bool		fixed;
	int			ncolumns;
	Oid			types[MAX_KEY_COLUMNS];
} PlanKey;

typedef struct PlanEntry
{
	PlanKey		key;
	SPIPlanPtr	plan;
} PlanEntry;

static HTAB *plans = NULL;

static SPIPlanPtr
delta_insert_plan(KeyBuffer *buf, Oid *argtypes)
{
	PlanKey		key;
	PlanEntry  *entry;
	bool		found;

	if (plans == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(PlanKey);
		ctl.entrysize = sizeof(PlanEntry);
		plans = hash_create("bloom summary plans", 16, &ctl, HASH_ELEM | HASH_BLOBS);
	}
	memset(&key, 0, sizeof(key));
	key.schema = buf->schema;
	key.summary_id = buf->key.summary_id;
	key.fixed = buf->ncolumns > 1 || buf->nkeys > EXPLICIT_LIST_KEYS;
	key.ncolumns = buf->ncolumns;
	memcpy(key.types, buf->types, sizeof(Oid) * buf->ncolumns);
	entry = hash_search(plans, &key, HASH_ENTER, &found);
	if (!found)
	{
		entry->plan = NULL;
		PG_TRY();
		{
			entry->plan = summary_prepare_kept(delta_insert_sql(buf), buf->ncolumns + 2, argtypes);
		}
		PG_CATCH();
		{
			hash_search(plans, &key, HASH_REMOVE, NULL);
			PG_RE_THROW();
		}
		PG_END_TRY();
	}
	return entry->plan;
}

/*
 * Inserts a row of bloom_summary_delta for the buffer's partition as a heap
 * tuple with its index entries (CatalogTupleInsert, which TOASTs): filter
 * (NULL for a marker), nkeys, and buffer_epoch (a marker's; else NULL).  No
 * statement to plan or run on the writers' path, and no privilege check,
 * the trigger writing for the catalog's owner.
 */
static void
delta_row_insert(KeyBuffer *buf, BloomFilter *filter, int64 nkeys, bool marker)
{
	Relation	rel = summary_delta_open(buf->schema, RowExclusiveLock);
	Datum		values[SUMMARY_DELTA_NATTS];
	bool		nulls[SUMMARY_DELTA_NATTS] = {false, false, filter == NULL, true, false, false, !marker};
	HeapTuple	tuple;

	values[SUMMARY_DELTA_SUMMARY_ID - 1] = Int32GetDatum(buf->key.summary_id);
	values[SUMMARY_DELTA_PARTITION - 1] = ObjectIdGetDatum(buf->key.partition);
	values[SUMMARY_DELTA_FILTER - 1] = PointerGetDatum(filter);
	values[SUMMARY_DELTA_MFILTER - 1] = (Datum) 0;
	values[SUMMARY_DELTA_NKEYS - 1] = Int64GetDatum(nkeys);
	values[SUMMARY_DELTA_ADDED_AT - 1] = TimestampTzGetDatum(GetCurrentTransactionStartTimestamp());
	values[SUMMARY_DELTA_BUFFER_EPOCH - 1] = marker ? Int64GetDatum(summary_buffer_epoch()) : (Datum) 0;
	tuple = heap_form_tuple(RelationGetDescr(rel), values, nulls);
	CatalogTupleInsert(rel, tuple);
	heap_freetuple(tuple);
	table_close(rel, NoLock);
}

/* An explicit list of n sorted, distinct value hashes, as bloom_agg(key) lists them. */
static BloomFilter *
hash_list(const uint64 *hashes, int n, int64 inserted)
{
	BloomShape	shape;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;

	if (!bf_shape_collected((double) n, 0, &shape, errbuf))
		elog(ERROR, "bloom summary: cannot size a delta: %s", errbuf);
	f = bloom_alloc(&shape);
	f->hash_scheme = BLOOM_HASH_SCHEME_NEWEST;
	f->flags |= BLOOM_FLAG_AUTOSIZED;
	summary_insert_hashes(f, hashes, n);
	f->inserted = inserted;
	return f;
}

/*
 * The delta of at most EXPLICIT_LIST_KEYS keys of one column, built here
 * as bloom_agg(key) builds it (the list of the distinct value hashes, seed
 * 0, the newest hash scheme).
 */
static void
delta_list_insert(KeyBuffer *buf)
{
	int			n = summary_hashes_distinct(buf->hashes, buf->nhashes);

	delta_row_insert(buf, hash_list(buf->hashes, n, buf->nhashes), buf->nhashes, false);
}

/*
 * Appends the buffer's keys to the shared buffer (summary_buffer.c), with
 * a marker row first when the partition's slot has no committed one.
 * False when the shared buffer has no room: the caller writes a delta row.
 * Sets buf->merge_due when the partition's buffered keys are due for a
 * merge and this writer has taken its lock.
 */
static bool
shared_append(KeyBuffer *buf)
{
	int			n = summary_hashes_distinct(buf->hashes, buf->nhashes);
	bool		merge_due;
	SummaryBufferResult r;

	r = summary_buffer_append(buf->key.summary_id, buf->key.partition, buf->hashes, n,
							  false, summary_merge_keys, &merge_due);
	if (r == SUMMARY_BUFFER_NEEDS_MARKER)
	{
		delta_row_insert(buf, NULL, 0, true);
		r = summary_buffer_append(buf->key.summary_id, buf->key.partition, buf->hashes, n,
								  true, summary_merge_keys, &merge_due);
	}
	if (merge_due && !IsolationUsesXactSnapshot() && summary_merge_lock_try(buf))
	{
		buf->merge_due = true;
		buf->nmerge_tids = 0;
	}
	return r == SUMMARY_BUFFER_APPENDED;
}

/*
 * Writes the buffers of one key column and few keys without SPI; marks
 * those due for a merge check.  Returns whether any buffer is left for
 * buffers_flush's SPI pass (larger deltas, merge checks).
 */
static bool
buffers_write_lists(KeyBuffer *only, bool may_merge)
{
	HASH_SEQ_STATUS status;
	KeyBuffer  *buf;
	bool		left = false;

	if (only == NULL)
		hash_seq_init(&status, buffers);
	while ((buf = only != NULL ? only : hash_seq_search(&status)) != NULL)
	{
		if (buf->nkeys > 0 && buf->hashes != NULL && buf->nhashes <= EXPLICIT_LIST_KEYS)
		{
			bool		appended;

			/* prepared transactions may outlive the buffer: delta rows */
			buf->merge_due = false;
			appended = buf->nhashes > 0 && may_merge && summary_buffer_usable() &&
				shared_append(buf);
			if (!appended)
			{
				if (buf->nhashes > 0)
					delta_list_insert(buf);
				buf->merge_due = buf->merge_due ||
					(summary_merge_check_due(buf, may_merge) && summary_merge_wanted(buf));
			}
			buf->nkeys = 0;
			buf->nhashes = 0;
		}
		left |= buf->nkeys > 0 || buf->merge_due;
		if (only != NULL)
			break;
	}
	return left;
}

/* Writes one buffer as a delta row, then lets the writer try a merge. */
static void
buffer_write(KeyBuffer *buf, bool may_merge)
{
	Datum		args[MAX_KEY_COLUMNS + 2];
	Oid			argtypes[MAX_KEY_COLUMNS + 2];
	int			i;
	int			rc;

	args[0] = Int32GetDatum(buf->key.summary_id);
	argtypes[0] = INT4OID;
	args[1] = ObjectIdGetDatum(buf->key.partition);
	argtypes[1] = REGCLASSOID;
	if (buf->nkeys == 0)
	{
		if (buf->merge_due)
			goto merge;
		return;
	}
	for (i = 0; i < buf->ncolumns; i++)
	{
		int16		typlen;
		bool		typbyval;
		char		typalign;
		int			dims[1];
		int			lbs[1];

		get_typlenbyvalalign(buf->types[i], &typlen, &typbyval, &typalign);
		dims[0] = buf->nkeys;
		lbs[0] = 1;
		args[i + 2] = PointerGetDatum(construct_md_array(buf->values[i], buf->nulls[i], 1,
														 dims, lbs, buf->types[i],
														 typlen, typbyval, typalign));
		argtypes[i + 2] = get_array_type(buf->types[i]);
		if (!OidIsValid(argtypes[i + 2]))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("bloom summary %d: key type %s has no array type",
							buf->key.summary_id, format_type_be(buf->types[i]))));
	}
	rc = SPI_execute_plan(delta_insert_plan(buf, argtypes), args, NULL, false, 0);
	if (rc != SPI_OK_INSERT)
		elog(ERROR, "bloom summary: writing a delta failed: %s", SPI_result_code_string(rc));

	buf->merge_due = summary_merge_check_due(buf, may_merge) && summary_merge_wanted(buf);
merge:
	if (buf->merge_due)
	{
		buf->merge_due = false;
		args[2] = PointerGetDatum(summary_merge_tid_array(buf));
		rc = SPI_execute_plan(summary_merge_listed_plan(buf->schema), args, NULL, false, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "bloom summary: merging deltas failed: %s", SPI_result_code_string(rc));
	}
}

/*
 * Writes the buffers (all, or the one given) as delta rows, as the owner of
 * the extension's tables: writers need no privilege on the summary's
 * catalog, and the SQL runs as a restricted operation.
 */
static void
buffers_flush(KeyBuffer *only, bool may_merge)
{
	Oid			save_userid;
	int			save_sec_context;
	Oid			owner;
	KeyBuffer  *first = only;

	if (buffers == NULL || flushing)
		return;
	if (first == NULL)
	{
		HASH_SEQ_STATUS status;

		hash_seq_init(&status, buffers);
		first = hash_seq_search(&status);
		if (first == NULL)
			return;
		hash_seq_term(&status);
	}
	/* an error aborts the transaction, whose callback resets the flag */
	flushing = true;
	if (!buffers_write_lists(only, may_merge))
	{
		flushing = false;
		if (only == NULL)
			buffers_forget();
		return;
	}
	owner = summary_catalog_owner(first->schema);

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	PG_TRY();
	{
		bool		pushed = false;
		int			guc_level;

		if (!ActiveSnapshotSet())
		{
			PushActiveSnapshot(GetTransactionSnapshot());
			pushed = true;
		}
		SetUserIdAndSecContext(owner, save_sec_context |
							   SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
		/* as the catalog's owner, nothing of the writer's search_path */
		guc_level = NewGUCNestLevel();
		(void) set_config_option("search_path", "pg_catalog, pg_temp",
								 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
								 true, 0, false);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "bloom summary: SPI_connect failed");
		if (only != NULL)
		{
			buffer_write(only, may_merge);
			only->nkeys = 0;
			only->nhashes = 0;
		}
		else
		{
			HASH_SEQ_STATUS status;
			KeyBuffer  *buf;

			hash_seq_init(&status, buffers);
			while ((buf = hash_seq_search(&status)) != NULL)
			{
				buffer_write(buf, may_merge);
				buf->nkeys = 0;
				buf->nhashes = 0;
			}
		}
		SPI_finish();
		AtEOXact_GUC(false, guc_level);
		SetUserIdAndSecContext(save_userid, save_sec_context);
		if (pushed)
			PopActiveSnapshot();
	}
	PG_FINALLY();
	{
		flushing = false;
	}
	PG_END_TRY();
	if (only == NULL)
		buffers_forget();
}

static void
summary_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			buffers_flush(NULL, event == XACT_EVENT_PRE_COMMIT);
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			buffers_forget();
			flushing = false;
			break;
		default:
			break;
	}
}

void
bloom_summary_writer_init(void)
{
	DefineCustomIntVariable("bloomfilter.summary_merge_check_every",
							"A writer checks whether a partition's summary deltas are due for a merge after this many of its deltas.",
							"1 checks after every delta.",
							&summary_merge_check_every, 32, 1, 1000000,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.summary_merge_deltas",
							"A partition's summary deltas are merged into its filter once there are this many.",
							NULL,
							&summary_merge_deltas, 128, 1, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.summary_merge_keys",
							"A partition's summary deltas are merged into its filter once they hold this many keys.",
							NULL,
							&summary_merge_keys, 10000, 1, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	RegisterXactCallback(summary_xact_callback, NULL);
}

/* The buffer of (summary, partition), created with the row's key types. */
static KeyBuffer *
buffer_for(TriggerData *trigdata, int32 summary_id, Oid schema, int ncolumns, const int *attnums)
{
	BufferKey	key;
	KeyBuffer  *buf;
	bool		found;
	TupleDesc	tupdesc = RelationGetDescr(trigdata->tg_relation);
	int			i;

	if (buffers == NULL)
		buffers_create();
	key.summary_id = summary_id;
	key.partition = RelationGetRelid(trigdata->tg_relation);
	buf = hash_search(buffers, &key, HASH_ENTER, &found);
	if (!found)
	{
		buf->schema = schema;
		buf->ncolumns = ncolumns;
		buf->nkeys = 0;
		buf->capacity = 16;
		buf->nhashes = 0;
		buf->hashes = NULL;
		buf->merge_due = false;
		buf->merge_tids = NULL;
		buf->nmerge_tids = 0;
		buf->merge_tids_size = 0;
		if (ncolumns == 1)
		{
			Form_pg_attribute att = TupleDescAttr(tupdesc, attnums[0] - 1);

			memset(&buf->hasher, 0, sizeof(buf->hasher));
			bloom_hasher_init(&buf->hasher, att->atttypid, att->attcollation, summary_key_context);
			buf->hashes = MemoryContextAlloc(summary_key_context, sizeof(uint64) * buf->capacity);
		}
		for (i = 0; i < ncolumns; i++)
		{
			buf->types[i] = TupleDescAttr(tupdesc, attnums[i] - 1)->atttypid;
			buf->values[i] = MemoryContextAlloc(summary_key_context, sizeof(Datum) * buf->capacity);
			buf->nulls[i] = MemoryContextAlloc(summary_key_context, sizeof(bool) * buf->capacity);
		}
	}
	return buf;
}

static void
buffer_append(KeyBuffer *buf, TupleDesc tupdesc, HeapTuple tuple, const int *attnums)
{
	int			i;

	if (buf->nkeys == buf->capacity)
	{
		buf->capacity *= 2;
		for (i = 0; i < buf->ncolumns; i++)
		{
			buf->values[i] = repalloc(buf->values[i], sizeof(Datum) * buf->capacity);
			buf->nulls[i] = repalloc(buf->nulls[i], sizeof(bool) * buf->capacity);
		}
		if (buf->hashes != NULL)
			buf->hashes = repalloc(buf->hashes, sizeof(uint64) * buf->capacity);
	}
	for (i = 0; i < buf->ncolumns; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, attnums[i] - 1);
		bool		isnull;
		Datum		value = heap_getattr(tuple, attnums[i], tupdesc, &isnull);

		buf->nulls[i][buf->nkeys] = isnull;
		buf->values[i][buf->nkeys] = isnull ? (Datum) 0 :
			datumCopy(value, att->attbyval, att->attlen);
		if (buf->hashes != NULL && !isnull)
			buf->hashes[buf->nhashes++] =
				bloom_hasher_value_hash(&buf->hasher, value, 0, BLOOM_HASH_SCHEME_NEWEST);
	}
	buf->nkeys++;
}

/* Whether an UPDATE left every key column as it was (nothing new to add). */
static bool
keys_unchanged(TupleDesc tupdesc, HeapTuple oldtup, HeapTuple newtup, int ncolumns, const int *attnums)
{
	int			i;

	for (i = 0; i < ncolumns; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, attnums[i] - 1);
		bool		oldnull;
		bool		newnull;
		Datum		oldv = heap_getattr(oldtup, attnums[i], tupdesc, &oldnull);
		Datum		newv = heap_getattr(newtup, attnums[i], tupdesc, &newnull);

		if (oldnull != newnull)
			return false;
		if (!oldnull && !datum_image_eq(oldv, newv, att->attbyval, att->attlen))
			return false;
	}
	return true;
}

/*
 * bloom_summary_collect(summary_id, key_column [, ...]): AFTER INSERT OR
 * UPDATE ... FOR EACH ROW.  Buffers the row's keys for its leaf partition.
 */
Datum
bloom_summary_collect(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	Trigger    *trigger;
	TupleDesc	tupdesc;
	HeapTuple	tuple;
	int32		summary_id;
	int			ncolumns;
	int			attnums[MAX_KEY_COLUMNS];
	MemoryContext old;
	KeyBuffer  *buf;
	int			i;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event) ||
		TRIGGER_FIRED_BY_DELETE(trigdata->tg_event) ||
		TRIGGER_FIRED_BY_TRUNCATE(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("bloom_summary_collect must be an AFTER INSERT OR UPDATE ... FOR EACH ROW trigger"),
				 errhint("bloom_summary_create() creates it.")));
	trigger = trigdata->tg_trigger;
	if (trigger->tgnargs < 2 || trigger->tgnargs - 1 > MAX_KEY_COLUMNS)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("bloom_summary_collect takes a summary id and 1 to %d key columns",
						MAX_KEY_COLUMNS)));
	summary_id = pg_strtoint32(trigger->tgargs[0]);
	ncolumns = trigger->tgnargs - 1;
	tupdesc = RelationGetDescr(trigdata->tg_relation);
	for (i = 0; i < ncolumns; i++)
	{
		attnums[i] = SPI_fnumber(tupdesc, trigger->tgargs[i + 1]);
		if (attnums[i] <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("bloom summary %d: column \"%s\" of %s does not exist",
							summary_id, trigger->tgargs[i + 1],
							RelationGetRelationName(trigdata->tg_relation)),
					 errhint("A summarised key column cannot be renamed or dropped: drop the summary first (bloom_summary_drop).")));
	}

	if (TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
	{
		tuple = trigdata->tg_newtuple;
		if (keys_unchanged(tupdesc, trigdata->tg_trigtuple, tuple, ncolumns, attnums))
			return PointerGetDatum(NULL);
	}
	else
		tuple = trigdata->tg_trigtuple;

	buf = buffer_for(trigdata, summary_id, get_func_namespace(fcinfo->flinfo->fn_oid),
					 ncolumns, attnums);
	for (i = 0; i < ncolumns; i++)
		if (buf->types[i] != TupleDescAttr(tupdesc, attnums[i] - 1)->atttypid)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("bloom summary %d: the type of column \"%s\" changed in this transaction",
							summary_id, trigger->tgargs[i + 1])));
	old = MemoryContextSwitchTo(summary_key_context);
	buffer_append(buf, tupdesc, tuple, attnums);
	MemoryContextSwitchTo(old);

	if (buf->nkeys >= FLUSH_EARLY_KEYS && GetCurrentTransactionNestLevel() == 1)
		buffers_flush(buf, false);
	return PointerGetDatum(NULL);
}

/*
 * bloom_summary_may_manage(relation): whether the current user has the
 * privileges of the relation's owner (the row security of the summary
 * catalog).  A relation that no longer exists: false.
 */
Datum
bloom_summary_may_manage(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	HeapTuple	tup;
	Oid			owner;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		PG_RETURN_BOOL(false);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	PG_RETURN_BOOL(has_privs_of_role(GetUserId(), owner));
}

