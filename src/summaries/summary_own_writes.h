/*
 * summary_own_writes.h
 *	  The partition trees this transaction may have written
 *	  (summary_own_writes.c): a summary prunes nothing on them until the
 *	  transaction ends, since the keys of its own rows reach the summary
 *	  only at commit.
 */
#ifndef BLOOMFILTER_SUMMARY_OWN_WRITES_H
#define BLOOMFILTER_SUMMARY_OWN_WRITES_H

#include "executor/execdesc.h"

/*
 * Registers the utility hook (COPY FROM) and the transaction callback, and
 * notes whether the library was preloaded; from summary_prune_init.
 */
extern void summary_own_writes_init(void);

/*
 * Notes the tables a statement about to start may write (its result
 * relations: INSERT, UPDATE, DELETE, MERGE, ON CONFLICT, writable CTEs);
 * from the executor-start hook, before any row is written.
 */
extern void summary_own_writes_note_statement(QueryDesc *queryDesc);

/*
 * True if no summary may prune anything in this statement: in a logical
 * replication worker, in a parallel worker of a transaction that wrote, in
 * the transaction that loaded the library (its earlier writes went
 * unnoted), or once more trees were written than are noted one by one.
 */
extern bool summary_own_writes_prune_nothing(void);

/*
 * True if rows this transaction wrote may be in leaf while their keys are in
 * no row of the summary it can see: a statement that may write the leaf's
 * partition tree has started, or the row trigger holds keys of the summary.
 * Such a leaf is neither skipped nor guarded.
 */
extern bool summary_own_rows_may_be_in(int32 summary_id, Oid leaf);

/*
 * True if the library was loaded before this session's first transaction
 * (shared_preload_libraries or session_preload_libraries): only then does
 * every statement of the session pass through the planner hook.
 */
extern bool summary_library_preloaded(void);

#endif							/* BLOOMFILTER_SUMMARY_OWN_WRITES_H */
