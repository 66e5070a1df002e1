/*
 * summary_prune.h
 *	  Pruning by managed summaries: a scan of a leaf partition whose quals
 *	  fix a summary's key is replaced, at executor start, by an empty node
 *	  when the partition's filter and its visible deltas hold none of the
 *	  key's values (doc/summaries.md, "How queries use a summary").
 */
#ifndef BLOOMFILTER_SUMMARY_PRUNE_H
#define BLOOMFILTER_SUMMARY_PRUNE_H

/*
 * Defines bloomfilter.enable_summary_pruning and registers the planner and
 * executor-start hooks and the custom nodes.  Called once, from _PG_init.
 */
extern void summary_prune_init(void);

#endif							/* BLOOMFILTER_SUMMARY_PRUNE_H */
