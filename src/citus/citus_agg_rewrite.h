/*
 * citus_agg_rewrite.h
 *	  The rewrite of bloom_agg and multibloom_agg into their hashed twins,
 *	  which Citus can run per shard and combine on the coordinator
 *	  (doc/aggregates.md, "On Citus: the rewrite").
 */
#ifndef BLOOMFILTER_CITUS_AGG_REWRITE_H
#define BLOOMFILTER_CITUS_AGG_REWRITE_H

/* Defines bloomfilter.distributed_aggregates and installs the planner hook. */
extern void bloom_distributed_agg_init(void);

#endif							/* BLOOMFILTER_CITUS_AGG_REWRITE_H */
