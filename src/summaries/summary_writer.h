/*
 * summary_writer.h
 *	  The write path of managed summaries: the row trigger
 *	  bloom_summary_collect and the flush of its buffers into delta rows
 *	  before commit (summary_writer.c), and the merge of the deltas
 *	  (summary_merge.c).
 */
#ifndef BLOOMFILTER_SUMMARY_WRITER_H
#define BLOOMFILTER_SUMMARY_WRITER_H

#include "utils/rel.h"

/* Defines the settings and registers the transaction callback; from _PG_init. */
extern void bloom_summary_writer_init(void);

/*
 * Whether this transaction holds keys of rows it wrote that are in no delta
 * yet for the summary: its own reads must not trust that summary until they
 * are written.  A second guard: statements note the trees they may write
 * before their first row (summaries/summary_own_writes.c).
 */
extern bool bloom_summary_keys_pending(int32 summary_id);

/*
 * The index on (summary_id, partition) of a summary catalog table, or
 * InvalidOid (summary_merge.c).
 */
extern Oid	bloom_summary_catalog_index(Relation rel);

#endif
