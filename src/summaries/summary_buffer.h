/*
 * summary_buffer.h
 *	  The shared buffer of managed summaries' pending keys
 *	  (summary_buffer.c): small transactions' key hashes appended in shared
 *	  memory instead of one delta row each, vouched for by a marker row.
 */
#ifndef BLOOMFILTER_SUMMARY_BUFFER_H
#define BLOOMFILTER_SUMMARY_BUFFER_H

#include "postgres.h"

#include "utils/snapshot.h"

/* Sorts and deduplicates hashes[0 .. n) in place; returns how many remain. */
extern int	summary_hashes_distinct(uint64 *hashes, int n);

/* True if hash is among sorted[0 .. n) (ascending). */
extern bool summary_hashes_contain(const uint64 *sorted, int n, uint64 hash);

/* Defines the settings; reserves shared memory when preloaded.  From _PG_init. */
extern void summary_buffer_init(void);

/*
 * Whether writers of this session append to the shared buffer: the library
 * was preloaded, bloomfilter.summary_buffer is on, and this is a primary.
 */
extern bool summary_buffer_usable(void);

/* Whether a marker row of this epoch vouches for keys this server's buffer holds. */
extern bool summary_buffer_epoch_is_current(int64 epoch);

/* The epoch markers written now carry (only while the buffer is usable). */
extern int64 summary_buffer_epoch(void);

typedef enum SummaryBufferResult
{
	SUMMARY_BUFFER_APPENDED,	/* the hashes are in the buffer */
	SUMMARY_BUFFER_NEEDS_MARKER,	/* write a marker row first, then again */
	SUMMARY_BUFFER_NO_ROOM		/* no slot, or no room: write a delta row */
} SummaryBufferResult;

/*
 * Appends the n (sorted, distinct) value hashes of this transaction's new
 * keys of (summary, partition).  marker_written: this transaction has
 * written a marker row of this epoch for the partition.  *merge_due is set
 * when the partition's unmerged keys have passed the merge threshold.
 */
extern SummaryBufferResult summary_buffer_append(int32 summary_id, Oid partition,
												 const uint64 *hashes, int n,
												 bool marker_written, int merge_threshold,
												 bool *merge_due);

/*
 * True if the buffer may hold one of the n value hashes (seed 0, the
 * newest hash scheme) for (summary, partition).
 */
extern bool summary_buffer_may_hold(int32 summary_id, Oid partition,
									const uint64 *hashes, int n);

/*
 * The buffered hashes of (summary, partition), sorted and distinct, in
 * palloc'd memory (*n of them; NULL when none).
 */
extern uint64 *summary_buffer_copy(int32 summary_id, Oid partition, int *n);

/*
 * A merge's take: every buffered hash of (summary, partition), sorted and
 * distinct (palloc'd, *n of them; *nnew were taken by no committed merge
 * before), dropped from the buffer once this transaction has committed and
 * every snapshot sees it and the writers of those hashes committed.
 * *retire (registered; the caller unregisters it) is the snapshot under
 * which the partition's markers of this epoch may be deleted, or NULL.
 */
extern uint64 *summary_buffer_take(int32 summary_id, Oid partition, int *n, int *nnew,
								   Snapshot *retire);

/* Whether (summary, partition) has buffered hashes no merge took (*n). */
extern bool summary_buffer_pending(int32 summary_id, Oid partition, int64 *n);

#endif
