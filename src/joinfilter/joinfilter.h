/*
 * joinfilter.h
 *	  Runtime join filters: a filter of a hash join's build-side keys,
 *	  applied to the rows of its outer side before they reach the join
 *	  (doc/join_filters.md).  The module registers its setting, its planner
 *	  hook and its two custom scans here.
 */
#ifndef BLOOMFILTER_JOINFILTER_H
#define BLOOMFILTER_JOINFILTER_H

extern void bloom_join_filter_init(void);

#endif							/* BLOOMFILTER_JOINFILTER_H */
