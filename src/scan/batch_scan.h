/*
 * batch_scan.h
 *	  The batched probe scan: a custom scan that replaces the sequential
 *	  scan of a table filtered by bloom_contains(filter, column) and probes
 *	  the filter a batch of rows at a time (src/scan/batch_scan.c).
 */
#ifndef BLOOMFILTER_BATCH_SCAN_H
#define BLOOMFILTER_BATCH_SCAN_H

/*
 * Registers the scan's setting (bloomfilter.enable_batch_scan), its plan
 * node and its planner hook.  Called once, from _PG_init.
 */
extern void bloom_scan_init(void);

#endif							/* BLOOMFILTER_BATCH_SCAN_H */
