/*
 * summary_writer_internal.h
 *	  What the two halves of the managed summaries' write path share:
 *	  summary_writer.c (the row trigger, its buffers and their flush into
 *	  delta rows) and summary_merge.c (the writers' merge of a partition's
 *	  deltas, and the SQL-callable pieces of every merge), with what both
 *	  call in summary_writer_common.c below them.
 */
#ifndef BLOOMFILTER_SUMMARY_WRITER_INTERNAL_H
#define BLOOMFILTER_SUMMARY_WRITER_INTERNAL_H

#include "executor/spi.h"
#include "utils/array.h"
#include "utils/rel.h"

#include "types/bloomfilter.h"

#define MAX_KEY_COLUMNS		32
/* deltas of at most this many keys are data-sized filters (explicit lists) */
#define EXPLICIT_LIST_KEYS	240

/* settings (documented in doc/summaries.md), defined in summary_merge.c */
extern int	summary_merge_check_every;
extern int	summary_merge_deltas;
extern int	summary_merge_keys;

typedef struct BufferKey
{
	int32		summary_id;
	Oid			partition;
} BufferKey;

typedef struct KeyBuffer
{
	BufferKey	key;
	Oid			schema;			/* the extension's schema */
	int			ncolumns;
	Oid			types[MAX_KEY_COLUMNS];
	int			nkeys;
	int			capacity;
	Datum	   *values[MAX_KEY_COLUMNS];
	bool	   *nulls[MAX_KEY_COLUMNS];
	/* one key column: the value hashes of the non-null keys, as bloom_agg's */
	BloomHasher hasher;
	uint64	   *hashes;
	int			nhashes;
	bool		merge_due;		/* written; its counted deltas are to be merged */
	ItemPointerData *merge_tids;	/* the deltas counted for the merge */
	int			nmerge_tids;
	int			merge_tids_size;
} KeyBuffer;

/*
 * The memory of the buffers (and of their counted deltas) of this
 * transaction (summary_writer_common.c; made by the writer).
 */
extern MemoryContext summary_key_context;

/* summary_writer_common.c, below both halves */
extern Oid	summary_catalog_owner(Oid schema);
extern Relation summary_delta_open(Oid schema, LOCKMODE lockmode);
extern SPIPlanPtr summary_prepare_kept(const char *sql, int nargs, Oid *argtypes);

/* summary_merge.c */
extern SPIPlanPtr summary_merge_listed_plan(Oid schema);
extern ArrayType *summary_merge_tid_array(KeyBuffer *buf);
extern bool summary_merge_check_due(KeyBuffer *buf, bool may_merge);
extern bool summary_merge_lock_try(KeyBuffer *buf);
extern bool summary_merge_wanted(KeyBuffer *buf);
extern void summary_insert_hashes(BloomFilter *f, const uint64 *hashes, uint64 n);

#endif							/* BLOOMFILTER_SUMMARY_WRITER_INTERNAL_H */
