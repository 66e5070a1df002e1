/*
 * joinfilter_internal.h
 *	  What the planning of runtime join filters (joinfilter_plan.c) and the
 *	  two nodes that run them (joinfilter_nodes.c) share: the nodes'
 *	  constructors and the limits of the plan-time rule.
 *
 *	  A filter joins its two nodes through one PARAM_EXEC slot that the
 *	  planning adds to the statement and no expression reads: the slot of
 *	  each execution (its EState) holds that execution's filter, so two
 *	  portals of one statement, or a recheck of EvalPlanQual, never share
 *	  one.
 */
#ifndef BLOOMFILTER_JOINFILTER_INTERNAL_H
#define BLOOMFILTER_JOINFILTER_INTERNAL_H

#include "nodes/plannodes.h"

#define JOIN_FILTER_BUILD_NAME	"JoinFilterBuild"
#define JOIN_FILTER_PROBE_NAME	"JoinFilterProbe"

/* The plan-time rule (doc/join_filters.md, "When it declines"). */
typedef struct JoinFilterLimits
{
	int			min_outer_rows; /* fewer estimated outer rows: declined */
	double		max_build_ratio;	/* build rows above this share of outer rows: declined */
	int			min_hash_bytes; /* a smaller hash table (in cache) ... */
} JoinFilterLimits;

/* ... is declined where the join keeps more than this share of outer rows */
#define JOIN_FILTER_SMALL_HASH_MAX_PASS 0.3

/* What both nodes of one filter know. */
typedef struct JoinFilterSpec
{
	int			slot;			/* the PARAM_EXEC slot of the filter */
	int			number;			/* the filter's number in EXPLAIN, from 1 */
	Oid			hash_fn;		/* the join's hash function of this side */
	Oid			collation;		/* the join clause's collation */
} JoinFilterSpec;

/*
 * The node above a Hash node's child that adds the child's keys (key, an
 * expression over the child's output) to the filter; capacity from the
 * row estimate.
 */
extern Plan *make_build_node(Plan *child, const JoinFilterSpec *spec, Expr *key,
							 double capacity, int plan_node_id);

/*
 * The node above an outer-side plan that drops rows whose column resno is
 * surely not among the keys.  build_has_params: the build side depends on
 * executor parameters, so it may be rebuilt after a rescan of this node.
 */
extern Plan *make_probe_node(Plan *child, const JoinFilterSpec *spec, AttrNumber resno,
							 bool build_has_params, int plan_node_id);

extern bool is_probe_node(Plan *plan);

extern void join_filter_nodes_register(void);

/* Adds the filters of every hash join of stmt that passes the rules. */
extern void join_filter_add(PlannedStmt *stmt, const JoinFilterLimits *limits);

#endif							/* BLOOMFILTER_JOINFILTER_INTERNAL_H */
