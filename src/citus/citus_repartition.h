/*
 * citus_repartition.h
 *	  The Bloom prefilter of Citus repartition joins (doc/distributed.md,
 *	  "Citus repartition joins"): before Citus plans an inner join of
 *	  distributed tables that are not co-located on the join keys, the keys
 *	  (one column, an expression, or a tuple of them) of each pair's
 *	  selective side are gathered into a filter, and the other side's rows
 *	  are probed with it in the map tasks, before they are partitioned and
 *	  shipped.
 */
#ifndef BLOOMFILTER_CITUS_REPARTITION_H
#define BLOOMFILTER_CITUS_REPARTITION_H

/*
 * Defines bloomfilter.citus_repartition and its threshold, and installs the
 * planner and executor-start hooks.
 */
extern void bloom_citus_repartition_init(void);

#endif							/* BLOOMFILTER_CITUS_REPARTITION_H */
