/*
 * joinfilter.c
 *	  The settings of the runtime join filters and the planner hook that adds
 *	  them to finished plans (joinfilter_plan.c) when bloomfilter.join_filter
 *	  is on.  doc/join_filters.md.
 */
#include "postgres.h"

#include <limits.h>

#include "optimizer/planner.h"
#include "utils/guc.h"

#include "pg_compat.h"
#include "joinfilter/joinfilter.h"
#include "joinfilter/joinfilter_internal.h"

static bool join_filter = false;
static JoinFilterLimits limits = {
	.min_outer_rows = 1000,
	.max_build_ratio = 0.5,
	.min_hash_bytes = 1024 * 1024,
};

static planner_hook_type prev_planner_hook = NULL;

static PlannedStmt *
join_filter_planner(Query *parse, const char *query_string, int cursorOptions,
					ParamListInfo boundParams)
{
	PlannedStmt *stmt;

	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions, boundParams);
	if (join_filter)
		join_filter_add(stmt, &limits);
	return stmt;
}

void
bloom_join_filter_init(void)
{
	DefineCustomBoolVariable("bloomfilter.join_filter",
							 "Filters the outer side of hash joins by a Bloom filter of their build side.",
							 "The rules: doc/join_filters.md.  Needs the library loaded "
							 "(session_preload_libraries or shared_preload_libraries).",
							 &join_filter, false, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.join_filter_min_outer_rows",
							"Fewest estimated outer rows of a hash join that gets a runtime filter.",
							NULL, &limits.min_outer_rows, 1000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("bloomfilter.join_filter_max_build_ratio",
							 "Largest ratio of estimated build rows to outer rows of a hash join that gets a runtime filter.",
							 NULL, &limits.max_build_ratio, 0.5, 0.0, 1e10,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.join_filter_min_hash_bytes",
							"Estimated hash table size below which a hash join keeping more than 30% of its outer rows gets no runtime filter.",
							"Such a hash table is in cache: probing it costs about what the filter costs.  0 turns this rule off.",
							&limits.min_hash_bytes, 1024 * 1024, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_BYTE, NULL, NULL, NULL);
	join_filter_nodes_register();
	prev_planner_hook = planner_hook;
	planner_hook = join_filter_planner;
}
