/*
 * summary_buffer.c
 *	  The shared buffer of managed summaries' pending keys (doc/summaries.md,
 *	  "The shared buffer").  With the library in shared_preload_libraries, a
 *	  small transaction's new keys of a leaf partition are appended here,
 *	  as the 64-bit value hashes a list delta would hold, instead of one
 *	  delta row per transaction: a delta row costs a heap tuple, an index
 *	  entry and, once merged, a delete, which was most of what a summary
 *	  added to a single-row insert.  A merge unites the buffered hashes into
 *	  the partition's filter like a delta.
 *
 *	  The buffer is memory: a crash or restart loses it, and a hot standby
 *	  never sees it.  So every buffered key is vouched for by a marker, a
 *	  row of bloom_summary_delta without a filter that carries this server's
 *	  epoch (random, drawn when the shared memory is made, and told apart
 *	  per database) and commits with the rows of the writer that relies on
 *	  it.  A reader that sees a marker of its own server's and database's
 *	  epoch reads the buffer too; a marker of another epoch (after a
 *	  restart, on a standby, after a dump and restore, in a database copied
 *	  by CREATE DATABASE) keeps the partition from being skipped until a
 *	  refresh.  Writers insert a marker only when the slot of the partition
 *	  has no committed one: once per slot and merge, not per transaction.
 *
 *	  The invariant (doc/summaries.md, "The shared buffer's invariant"):
 *	  hashes leave the buffer, and markers retire, only when every snapshot
 *	  that can see the writer's rows also sees the filter that now holds
 *	  their keys.  Why the rules keep it (test/unit/test_summary_protocol.c
 *	  checks them over every interleaving of a bounded model, and the specs
 *	  of test/isolation/ replay the interleavings that broke older rules):
 *	  - a writer appends before it commits, so a reader whose snapshot sees
 *	    the writer's rows finds its hashes here, unless a merge took them;
 *	  - a take (a merge's or a refresh's) records the next xid to be
 *	    assigned: the merge and every writer whose hash is in the slot had
 *	    an xid below it.  The hashes leave only once the merge committed
 *	    and that xid minus one precedes the oldest xmin of every backend
 *	    (GlobalVisCheckRemovableXid on the shared horizon: REPEATABLE READ
 *	    transactions, other databases and replication slots included).
 *	    Then no snapshot, present or future, counts the merge or any of
 *	    those writers as running: whoever sees a writer sees the merged
 *	    filter.  The latest completed xid would not do: a writer still
 *	    committing (in clog, not yet out of the proc array) may have a
 *	    later xid; nor would clog: a commit is invisible to snapshots until
 *	    it leaves the proc array, which TransactionIdIsInProgress tells;
 *	  - a take copies every hash still here, also those a committed merge
 *	    took: a refresh builds its filter from the rows its snapshot sees,
 *	    which may miss a writer that merge saw only here;
 *	  - a take retires markers: under the slot's lock it clears the slot's
 *	    marker and takes a snapshot, and deletes only markers visible to
 *	    that snapshot, whose writers (and the writers that relied on them)
 *	    appended before it took the hashes, so the filter it writes holds
 *	    their keys and the delete becomes visible with that filter; a
 *	    writer that appends after it finds no marker and writes its own,
 *	    which that snapshot cannot see;
 *	  - a hot standby never reads this buffer: it has no epoch, so a marker
 *	    it sees keeps the partition from being skipped, and the markers a
 *	    merge deletes are replayed with the filter that holds their keys.
 *	  The slots' keys are (database, summary, partition); a slot whose
 *	  hashes have all left is given to another partition when needed.
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "summaries/summary_buffer.h"
#include "summaries/summary_wait.h"

PG_FUNCTION_INFO_V1(bloom_summary_buffer_epoch_sql);
PG_FUNCTION_INFO_V1(bloom_summary_buffered_keys);

#define TRANCHE_NAME	"bloomfilter summary buffer"

typedef struct BufferSlot
{
	Oid			dbid;			/* InvalidOid: free */
	int32		summary_id;
	Oid			partition;
	uint32		nhashes;
	uint64		base_seq;		/* sequence number of hashes[0] */
	/* the latest merge that took the slot's hashes */
	TransactionId take_xid;		/* Invalid: none pending */
	bool		take_committed;	/* known to have committed */
	uint64		take_seq;		/* it took the hashes before this number */
	TransactionId take_horizon; /* the next xid when it took them: that
								 * merge and every writer of those hashes
								 * had an xid below it */
	/* the marker vouching for the hashes appended now */
	TransactionId marker_xid;	/* Invalid: none: the next writer writes one */
	bool		marker_committed;
	uint64		hashes[FLEXIBLE_ARRAY_MEMBER];
} BufferSlot;

typedef struct BufferShared
{
	int64		epoch;
	int			nslots;
	int			capacity;		/* hashes per slot */
} BufferShared;

/* settings (doc/summaries.md) */
static int	buffer_partitions = 64;
static int	buffer_keys = 16384;
static bool buffer_enabled = true;

static BufferShared *shared = NULL;
static LWLockPadded *locks = NULL;	/* [0]: slot assignment; [1 + i]: slot i */
static int	slot_hint = -1;		/* the slot this backend used last */
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static Size
slot_size(int capacity)
{
	return MAXALIGN(offsetof(BufferSlot, hashes) + sizeof(uint64) * (Size) capacity);
}

static Size
buffer_size(void)
{
	return MAXALIGN(sizeof(BufferShared)) + slot_size(buffer_keys) * (Size) buffer_partitions;
}

static BufferSlot *
slot_at(int i)
{
	return (BufferSlot *) ((char *) shared + MAXALIGN(sizeof(BufferShared)) +
						   slot_size(shared->capacity) * (Size) i);
}

static LWLock *
slot_lock(int i)
{
	return &locks[1 + i].lock;
}

static void
buffer_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(buffer_size());
	RequestNamedLWLockTranche(TRANCHE_NAME, 1 + buffer_partitions);
}

static void
buffer_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("bloomfilter summary buffer", buffer_size(), &found);
	if (!found)
	{
		uint64		epoch = 0;

		/* any other server's epoch (a restart, a standby) differs */
		if (!pg_strong_random(&epoch, sizeof(epoch)))
			epoch = (uint64) GetCurrentTimestamp() ^ ((uint64) MyProcPid << 32);
		memset(shared, 0, buffer_size());
		shared->epoch = (int64) (epoch & INT64CONST(0x7FFFFFFFFFFFFFFF));
		shared->nslots = buffer_partitions;
		shared->capacity = buffer_keys;
	}
	locks = GetNamedLWLockTranche(TRANCHE_NAME);
	LWLockRelease(AddinShmemInitLock);
}

void
summary_buffer_init(void)
{
	DefineCustomBoolVariable("bloomfilter.summary_buffer",
							 "Writers append small transactions' summary keys to the shared buffer instead of writing a delta row each.",
							 "Only when the library is in shared_preload_libraries.",
							 &buffer_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
	summary_wait_init();
	/* settings of the postmaster may be defined only while it preloads */
	if (!process_shared_preload_libraries_in_progress)
		return;
	DefineCustomIntVariable("bloomfilter.summary_buffer_partitions",
							"Leaf partitions whose summary keys the shared buffer holds at once (0: no buffer).",
							NULL, &buffer_partitions, 64, 0, 4096,
							PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.summary_buffer_keys",
							"Key hashes the shared buffer holds per leaf partition.",
							NULL, &buffer_keys, 16384, 256, 1 << 22,
							PGC_POSTMASTER, 0, NULL, NULL, NULL);
	if (buffer_partitions == 0)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = buffer_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = buffer_shmem_startup;
}

bool
summary_buffer_usable(void)
{
	return shared != NULL && buffer_enabled && !RecoveryInProgress();
}

/*
 * The epoch markers of this database carry: the server's, told apart per
 * database, so that the markers of a database copied by CREATE DATABASE
 * (its partitions keep their OIDs, its slots stay the template's) are of
 * another epoch in the copy.
 */
static int64
database_epoch(void)
{
	return (int64) ((uint64) shared->epoch ^
					((uint64) MyDatabaseId * UINT64CONST(0x9E3779B97F4A7C15)));
}

bool
summary_buffer_epoch_is_current(int64 epoch)
{
	return shared != NULL && !RecoveryInProgress() && epoch == database_epoch();
}

int64
summary_buffer_epoch(void)
{
	Assert(shared != NULL);
	return database_epoch();
}

static bool
slot_is(BufferSlot *slot, int32 summary_id, Oid partition)
{
	return slot->dbid == MyDatabaseId && slot->summary_id == summary_id &&
		slot->partition == partition;
}

typedef enum XidOutcome
{
	XID_RUNNING,				/* this transaction's, or in progress */
	XID_COMMITTED,
	XID_ABORTED					/* or crashed */
} XidOutcome;

static XidOutcome
xid_outcome(TransactionId xid)
{
	if (TransactionIdIsCurrentTransactionId(xid) || TransactionIdIsInProgress(xid))
		return XID_RUNNING;
	return TransactionIdDidCommit(xid) ? XID_COMMITTED : XID_ABORTED;
}

/*
 * Drops the hashes a committed merge took once every snapshot sees that
 * merge and every writer of those hashes as committed; forgets a merge
 * that aborted.  Caller holds the slot's lock exclusively.
 */
static void
slot_settle(BufferSlot *slot)
{
	TransactionId xid = slot->take_xid;
	TransactionId newest;
	uint64		drop;

	if (!TransactionIdIsValid(xid))
		return;
	if (!slot->take_committed)
	{
		XidOutcome	outcome = xid_outcome(xid);

		if (outcome == XID_RUNNING)
			return;
		if (outcome == XID_ABORTED)
		{
			/* aborted: nothing was merged, every hash is due again */
			slot->take_xid = InvalidTransactionId;
			slot->take_seq = slot->base_seq;
			return;
		}
		slot->take_committed = true;
	}
	/*
	 * Not before the merge and every writer whose hashes it took (all with
	 * xids below take_horizon) precede the oldest xmin of every backend,
	 * of every database, REPEATABLE READ transactions and replication
	 * slots included: then no snapshot, present or future, counts any of
	 * them as running.  A snapshot that still sees the filter before the
	 * merge (a marker it retired is still visible to it) keeps the hashes
	 * here, and so does a refresh whose snapshot does not see a writer.
	 * Neither "committed in clog" nor the latest completed xid would do:
	 * a commit stays invisible until it leaves the proc array, and a
	 * writer still committing may have an xid above every completed one.
	 */
	newest = slot->take_horizon;
	TransactionIdRetreat(newest);
	if (!GlobalVisCheckRemovableXid(NULL, newest))
		return;
	drop = Min(slot->take_seq - slot->base_seq, (uint64) slot->nhashes);
	memmove(slot->hashes, slot->hashes + drop, sizeof(uint64) * (slot->nhashes - drop));
	slot->nhashes -= drop;
	slot->base_seq += drop;
	slot->take_xid = InvalidTransactionId;
	slot->take_committed = false;
}

/* Whether the slot's marker has committed (remembered once known). */
static bool
slot_marker_committed(BufferSlot *slot)
{
	TransactionId xid = slot->marker_xid;

	if (!TransactionIdIsValid(xid))
		return false;
	if (slot->marker_committed)
		return true;
	switch (xid_outcome(xid))
	{
		case XID_RUNNING:
			break;
		case XID_COMMITTED:
			slot->marker_committed = true;
			break;
		case XID_ABORTED:
			slot->marker_xid = InvalidTransactionId;	/* write another */
			break;
	}
	return slot->marker_committed;
}

/*
 * The slot of (summary, partition), locked in mode; with create, a free or
 * emptied slot is assigned to it.  -1 if none.
 */
static int
slot_find(int32 summary_id, Oid partition, bool create, LWLockMode mode)
{
	int			found = -1;
	int			i;

	if (slot_hint >= 0 && slot_hint < shared->nslots)
	{
		LWLockAcquire(slot_lock(slot_hint), mode);
		if (slot_is(slot_at(slot_hint), summary_id, partition))
			return slot_hint;
		LWLockRelease(slot_lock(slot_hint));
	}
	/* slots change hands only under the assignment lock */
	LWLockAcquire(&locks[0].lock, create ? LW_EXCLUSIVE : LW_SHARED);
	for (i = 0; i < shared->nslots && found < 0; i++)
		if (slot_is(slot_at(i), summary_id, partition))
			found = i;
	for (i = 0; create && found < 0 && i < shared->nslots; i++)
	{
		BufferSlot *slot = slot_at(i);

		LWLockAcquire(slot_lock(i), LW_EXCLUSIVE);
		if (OidIsValid(slot->dbid))
			slot_settle(slot);
		if (!OidIsValid(slot->dbid) ||
			(slot->nhashes == 0 && !TransactionIdIsValid(slot->take_xid)))
		{
			slot->dbid = MyDatabaseId;
			slot->summary_id = summary_id;
			slot->partition = partition;
			slot->nhashes = 0;
			slot->take_xid = InvalidTransactionId;
			slot->take_committed = false;
			slot->marker_xid = InvalidTransactionId;
			slot->marker_committed = false;
			found = i;
		}
		LWLockRelease(slot_lock(i));
	}
	LWLockRelease(&locks[0].lock);
	if (found < 0)
		return -1;
	LWLockAcquire(slot_lock(found), mode);
	if (!slot_is(slot_at(found), summary_id, partition))
	{
		/* reassigned between the locks: rare; the caller falls back */
		LWLockRelease(slot_lock(found));
		return -1;
	}
	slot_hint = found;
	return found;
}

/* Hashes appended and not taken by a merge. */
static uint64
slot_unmerged(BufferSlot *slot)
{
	uint64		end = slot->base_seq + slot->nhashes;
	uint64		taken = Max(slot->take_seq, slot->base_seq);

	return end > taken ? end - taken : 0;
}

SummaryBufferResult
summary_buffer_append(int32 summary_id, Oid partition, const uint64 *hashes, int n,
					  bool marker_written, int merge_threshold, bool *merge_due)
{
	TransactionId xid = GetTopTransactionIdIfAny();
	BufferSlot *slot;
	uint64		threshold;
	int			i;

	*merge_due = false;
	if (!summary_buffer_usable() || !TransactionIdIsValid(xid))
		return SUMMARY_BUFFER_NO_ROOM;
	i = slot_find(summary_id, partition, true, LW_EXCLUSIVE);
	if (i < 0)
		return SUMMARY_BUFFER_NO_ROOM;
	slot = slot_at(i);
	if (marker_written)
	{
		if (!slot_marker_committed(slot))
		{
			slot->marker_xid = xid;
			slot->marker_committed = false;
		}
	}
	else if (!slot_marker_committed(slot))
	{
		LWLockRelease(slot_lock(i));
		return SUMMARY_BUFFER_NEEDS_MARKER;
	}
	if (slot->nhashes + (uint32) n > (uint32) shared->capacity)
		slot_settle(slot);
	if (slot->nhashes + (uint32) n > (uint32) shared->capacity)
	{
		*merge_due = !TransactionIdIsValid(slot->take_xid);
		LWLockRelease(slot_lock(i));
		return SUMMARY_BUFFER_NO_ROOM;
	}
	memcpy(slot->hashes + slot->nhashes, hashes, sizeof(uint64) * n);
	slot->nhashes += n;
	threshold = (uint64) Min(merge_threshold, shared->capacity / 2);
	/* the last merge's hashes may leave once it is seen by all: the next may start */
	if (TransactionIdIsValid(slot->take_xid) &&
		(slot_unmerged(slot) >= threshold || slot->nhashes > (uint32) shared->capacity / 2))
		slot_settle(slot);
	*merge_due = !TransactionIdIsValid(slot->take_xid) && slot_unmerged(slot) >= threshold;
	LWLockRelease(slot_lock(i));
	test_wait_at(TEST_WAIT_BUFFER_APPEND_AFTER);
	return SUMMARY_BUFFER_APPENDED;
}

static int
u64_cmp(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

bool
summary_hashes_contain(const uint64 *sorted, int n, uint64 hash)
{
	return n > 0 && bsearch(&hash, sorted, n, sizeof(uint64), u64_cmp) != NULL;
}

int
summary_hashes_distinct(uint64 *hashes, int n)
{
	int			m = 0;

	qsort(hashes, n, sizeof(uint64), u64_cmp);
	for (int i = 0; i < n; i++)
		if (m == 0 || hashes[m - 1] != hashes[i])
			hashes[m++] = hashes[i];
	return m;
}

/*
 * A copy of the slot's hashes from the start'th on, in palloc'd memory;
 * caller holds the lock.
 */
static uint64 *
slot_copy(BufferSlot *slot, uint32 start, int *n)
{
	uint64	   *copy;

	*n = (int) (slot->nhashes - Min(start, slot->nhashes));
	if (*n == 0)
		return NULL;
	copy = palloc(sizeof(uint64) * *n);
	memcpy(copy, slot->hashes + start, sizeof(uint64) * *n);
	return copy;
}

uint64 *
summary_buffer_take(int32 summary_id, Oid partition, int *n, int *nnew, Snapshot *retire)
{
	TransactionId xid = GetTopTransactionId();
	BufferSlot *slot;
	uint64	   *copy;
	int			i;

	*n = 0;
	*nnew = 0;
	*retire = NULL;
	if (shared == NULL || RecoveryInProgress())
		return NULL;
	i = slot_find(summary_id, partition, false, LW_EXCLUSIVE);
	if (i < 0)
	{
		/*
		 * Nothing buffered: every marker vouches for hashes already merged.
		 * No slot can be assigned while the assignment lock is held, and a
		 * writer assigns one before it writes its marker.
		 */
		LWLockAcquire(&locks[0].lock, LW_SHARED);
		for (i = 0; i < shared->nslots; i++)
			if (slot_is(slot_at(i), summary_id, partition))
				break;
		if (i == shared->nslots)
			*retire = RegisterSnapshot(GetLatestSnapshot());
		LWLockRelease(&locks[0].lock);
		return NULL;
	}
	slot = slot_at(i);
	slot_settle(slot);
	/*
	 * Every hash still here, also those a committed merge took: a refresh
	 * builds its filter from the rows its snapshot sees, which may miss a
	 * writer that merge saw only in the buffer (a union is idempotent).
	 */
	*nnew = (int) slot_unmerged(slot);
	copy = slot_copy(slot, 0, n);
	/*
	 * The markers this snapshot sees vouch for no hash appended after now:
	 * from here on a writer finds no marker in the slot and writes its own.
	 */
	*retire = RegisterSnapshot(GetLatestSnapshot());
	slot->take_xid = xid;
	slot->take_committed = false;
	slot->take_seq = slot->base_seq + slot->nhashes;
	/* every writer of the hashes taken had its xid before this one */
	slot->take_horizon = ReadNextTransactionId();
	slot->marker_xid = InvalidTransactionId;
	slot->marker_committed = false;
	LWLockRelease(slot_lock(i));
	test_wait_at(TEST_WAIT_MERGE_TAKE_AFTER);
	if (copy != NULL)
		*n = summary_hashes_distinct(copy, *n);
	return copy;
}

/* Values looked up in the slot under its lock; more are looked up in a copy. */
#define SCAN_UNDER_LOCK_VALUES	4

bool
summary_buffer_may_hold(int32 summary_id, Oid partition, const uint64 *hashes, int n)
{
	BufferSlot *slot;
	bool		found = false;
	uint64	   *copy;
	int			ncopy;
	int			i;

	if (shared == NULL)
		return true;
	if (n > SCAN_UNDER_LOCK_VALUES)
	{
		/* writers wait for the lock: sort and search outside it */
		copy = summary_buffer_copy(summary_id, partition, &ncopy);
		for (i = 0; i < n && !found; i++)
			found = summary_hashes_contain(copy, ncopy, hashes[i]);
		if (copy != NULL)
			pfree(copy);
		return found;
	}
	i = slot_find(summary_id, partition, false, LW_SHARED);
	if (i < 0)
		return false;			/* nothing buffered: every hash was merged */
	slot = slot_at(i);
	for (uint32 j = 0; j < slot->nhashes && !found; j++)
		for (int v = 0; v < n; v++)
			if (slot->hashes[j] == hashes[v])
			{
				found = true;
				break;
			}
	LWLockRelease(slot_lock(i));
	return found;
}

uint64 *
summary_buffer_copy(int32 summary_id, Oid partition, int *n)
{
	uint64	   *copy;
	int			i;

	*n = 0;
	if (shared == NULL)
		return NULL;
	i = slot_find(summary_id, partition, false, LW_SHARED);
	if (i < 0)
		return NULL;
	copy = slot_copy(slot_at(i), 0, n);
	LWLockRelease(slot_lock(i));
	if (copy != NULL)
		*n = summary_hashes_distinct(copy, *n);
	return copy;
}

/*
 * Whether (summary, partition) has buffered hashes no merge took; how many
 * in *n.
 */
bool
summary_buffer_pending(int32 summary_id, Oid partition, int64 *n)
{
	int			i;

	*n = 0;
	if (shared == NULL)
		return false;
	i = slot_find(summary_id, partition, false, LW_EXCLUSIVE);
	if (i < 0)
		return false;
	/* what a merge that aborted took counts again */
	slot_settle(slot_at(i));
	*n = (int64) slot_unmerged(slot_at(i));
	LWLockRelease(slot_lock(i));
	return *n > 0;
}

/* bloom_summary_buffer_epoch(): the epoch of this server's buffer, or NULL. */
Datum
bloom_summary_buffer_epoch_sql(PG_FUNCTION_ARGS)
{
	if (shared == NULL || RecoveryInProgress())
		PG_RETURN_NULL();
	PG_RETURN_INT64(database_epoch());
}

/* bloom_summary_buffered_keys(summary_id, leaf): hashes buffered, not yet merged. */
Datum
bloom_summary_buffered_keys(PG_FUNCTION_ARGS)
{
	int64		n;

	(void) summary_buffer_pending(PG_GETARG_INT32(0), PG_GETARG_OID(1), &n);
	PG_RETURN_INT64(n);
}
