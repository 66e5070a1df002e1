/*
 * semijoin.c
 *	  The automatic semijoin prefilter (doc/semijoin.md): its settings, the
 *	  planner hook, and the loop that plans the rewritten statement until
 *	  every filter it keeps is shipped.
 *
 *	  A planner hook rewrites the Query before planning, the way the manual
 *	  recipe reads: for an equijoin  foreign.k = build.k  where the foreign
 *	  table belongs to a postgres_fdw server whose "extensions" option lists
 *	  bloomfilter, it adds to the foreign side the conjunct
 *
 *		bloom_contains_typed((SELECT bloom_agg(build.k, capacity, fpp)
 *							  FROM build WHERE <build's own quals>),
 *							 foreign.k, '<k's declared type>',
 *							 '<the filter's collation>', '<our encoding>')
 *
 *	  The sub-select is uncorrelated, so the planner makes it an InitPlan:
 *	  it runs once, and postgres_fdw ships the probe in the Remote SQL with
 *	  the filter as a parameter.  Rows of the foreign table whose key no
 *	  build row has can join nothing, so removing them changes no result.
 *	  The probe is typed because a foreign table may declare its column with
 *	  another type than the remote one (typed_probe.c).  A key on several
 *	  columns gets one filter of the key tuples, probed by
 *	  bloom_contains_tuple (tuple_probe.c).
 *
 *	  The files, called one way from here down (semijoin_internal.h):
 *	  semijoin_rewrite.c analyzes each query level and adds the filters;
 *	  semijoin_match.c finds the candidates where a filter is correct;
 *	  semijoin_cost.c decides where it pays; semijoin_plan.c checks the
 *	  plan (no rescans of a filtered scan with changing parameters, no
 *	  probe kept local) and logs the decisions of the plan returned.
 *
 *	  A statement with no foreign or partitioned table stops at the first
 *	  gate (may_have_probe, no catalog access); one with such a table
 *	  finds the extension's objects in extension_objects.c's cache.
 */
#include "postgres.h"

#include <limits.h>

#include "catalog/pg_type.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "utils/guc.h"

#include "pg_compat.h"
#include "helpers/extension_objects.h"
#include "semijoin/semijoin.h"
#include "semijoin/semijoin_internal.h"
#include "semijoin/tuple_probe.h"
#include "semijoin/typed_probe.h"

/* ---------------------------------------------------------------------
 * Settings
 * --------------------------------------------------------------------- */

/*
 * bloomfilter.semijoin_log: off, or the level the decisions are reported
 * at (to the client, or to the server log)
 */
#define SEMIJOIN_LOG_OFF	0

static const struct config_enum_entry semijoin_log_options[] = {
	{.name = "off", .val = SEMIJOIN_LOG_OFF},
	{.name = "notice", .val = NOTICE},
	{.name = "log", .val = LOG},
	/* accepted for notice, not listed */
	{.name = "on", .val = NOTICE, .hidden = true},
	{.name = NULL}
};

static bool semijoin_prefilter = true;
static int	semijoin_log = SEMIJOIN_LOG_OFF;
static SemijoinLimits limits = {
	.min_rows_saved = 10000,
	.max_pass_rate = 0.5,
	.max_filter_kb = 16384,
};

/* bloomfilter.semijoin_max_filter_size at most 1 GB, the largest filter */
#define MAX_FILTER_KB		(1024 * 1024)

static planner_hook_type prev_planner_hook = NULL;

/* ---------------------------------------------------------------------
 * The extension's objects, from extension_objects.c
 * --------------------------------------------------------------------- */

/*
 * The objects, or false if any is missing: the extension is not installed
 * in this database, or its SQL objects are older than 1.2, without
 * bloom_contains_typed (the rewrite then declines, since only the typed
 * probe is safe to ship).
 */
static bool
lookup_objects(SemijoinObjects *out)
{
	Oid			probe_args[TYPED_PROBE_NARGS] = {InvalidOid, ANYELEMENTOID, TEXTOID, TEXTOID,
	TEXTOID};
	static const Oid agg_args[4] = {ANYELEMENTOID, INT8OID, FLOAT8OID, TEXTOID};
	static const Oid tuple_hash_args[1] = {ANYOID};
	Oid			tuple_probe_args[4] = {InvalidOid, TEXTARRAYOID, TEXTOID, ANYOID};
	static const Oid columns_agree_args[3] = {TEXTARRAYOID, TEXTOID, ANYOID};
	static const Oid declared_value_args[1] = {ANYELEMENTOID};

	out->bloom_type = extension_type("bloom");
	if (!OidIsValid(out->bloom_type))
		return false;
	probe_args[0] = out->bloom_type;
	out->probe_fn = extension_function("bloom_contains_typed", TYPED_PROBE_NARGS, probe_args);
	out->agg_fn = extension_function("bloom_agg", 4, agg_args);
	out->tuple_hash_fn = extension_function("bloom_tuple_hash", 1, tuple_hash_args);
	tuple_probe_args[0] = out->bloom_type;
	out->tuple_probe_fn = extension_function("bloom_contains_tuple", 4, tuple_probe_args);
	out->columns_agree_fn = extension_function("bloom_columns_agree", 3, columns_agree_args);
	out->declared_value_fn = extension_function("bloom_declared_value", 1, declared_value_args);
	return OidIsValid(out->probe_fn) && OidIsValid(out->agg_fn);
}

/*
 * The objects, or NULL; looked up again only once extension_objects.c's
 * cache was reset.  A reset during the lookup (it takes locks) leaves the
 * version kept behind the current one, so the next call looks again.
 */
static const SemijoinObjects *
semijoin_objects(void)
{
	static SemijoinObjects kept;
	static bool kept_found = false;
	static uint64 kept_version = 0;
	uint64		version = extension_objects_version();

	if (version != kept_version)
	{
		kept_found = lookup_objects(&kept);
		kept_version = version;
	}
	return kept_found ? &kept : NULL;
}

/* ---------------------------------------------------------------------
 * The hook
 * --------------------------------------------------------------------- */

static PlannedStmt *
plan_next(Query *parse, const char *query_string, int cursorOptions, ParamListInfo boundParams)
{
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

static void
set_reason(List *candidates, const char *why)
{
	ListCell   *lc;

	foreach(lc, candidates)
	{
		Candidate  *c = lfirst(lc);

		if (c->why == NULL)
			c->why = why;
	}
}

/* True if the candidate's probe is among the local probes of a plan. */
static bool
probe_among(List *local, const Candidate *c, RangeTblEntry *rte)
{
	if (c->nkeys > 1)
		return key_among(local, c->probe_relids, key_columns_name(rte->relid, c->probe_var_list));
	if (!IsA(c->probe_value, Var))
		return key_among(local, c->probe_relids, EXPRESSION_KEY_NAME);
	return column_among(local, c->probe_relids, c->probe_var, rte);
}

/*
 * Declines the chosen candidates whose probe a foreign scan of the plan
 * kept local, and remembers their columns for the next analysis; false if
 * there is none.
 */
static bool
decline_local_probes(Analysis *a, List *local)
{
	ListCell   *lc;
	bool		any = false;

	foreach(lc, a->chosen)
	{
		Candidate  *c = lfirst(lc);
		RangeTblEntry *rte = rt_fetch(c->probe_rti, c->query->rtable);

		if (!probe_among(local, c, rte))
			continue;
		c->why = "postgres_fdw kept the probe local";
		any = true;
	}
	if (any)
		a->unshipped = list_concat(a->unshipped, local);
	return any;
}

/* plan_next of a statement the filters were added to (their checks kept). */
static PlannedStmt *
plan_rewritten(Query *q, const char *query_string, int cursorOptions,
			   ParamListInfo boundParams)
{
	PlannedStmt *volatile stmt = NULL;

	columns_agree_planning(true);
	PG_TRY();
	{
		stmt = plan_next(q, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		columns_agree_planning(false);
	}
	PG_END_TRY();
	return stmt;
}

/*
 * Plans parse with the filters that pay and that postgres_fdw ships:
 * analyze, add the chosen filters, plan; if the plan rescans a filtered
 * foreign scan, plan the statement as it was; if a foreign scan keeps a
 * probe as a local condition (the probe would cost without saving),
 * analyze again without that column, and so on: each planning declines at
 * least one more column, so there are at most as many as the columns
 * chosen, plus one.  Logs the decisions of the last analysis, which are
 * those of the plan returned.
 */
static PlannedStmt *
plan_with_filters(Query *parse, const char *query_string, int cursorOptions,
				  ParamListInfo boundParams, const SemijoinObjects *objects)
{
	Analysis	a = {0};
	Query	   *pristine = NULL;
	Query	   *q = parse;
	PlannedStmt *stmt;

	a.limits = &limits;
	a.objects = objects;
	a.boundParams = boundParams;
	for (;;)
	{
		List	   *filtered_relids;

		a.candidates = NIL;
		a.chosen = NIL;
		analyze_query(q, &a);
		if (a.chosen == NIL)
		{
			stmt = plan_next(q, query_string, cursorOptions, boundParams);
			break;
		}
		if (pristine == NULL)
			pristine = copyObject(q);
		filtered_relids = add_filters(&a);
		stmt = plan_rewritten(q, query_string, cursorOptions, boundParams);
		if (plan_rescans_filter(stmt, filtered_relids))
		{
			set_reason(a.chosen, "the plan rescans the foreign table with changing parameters");
			stmt = plan_next(pristine, query_string, cursorOptions, boundParams);
			break;
		}
		if (!decline_local_probes(&a, local_probe_columns(stmt, objects)))
			break;
		q = copyObject(pristine);
	}
	if (semijoin_log != SEMIJOIN_LOG_OFF)
		log_candidates(a.candidates, semijoin_log);
	return stmt;
}

static PlannedStmt *
semijoin_planner(Query *parse, const char *query_string, int cursorOptions,
				 ParamListInfo boundParams)
{
	const SemijoinObjects *objects;

	if (!semijoin_prefilter || !may_have_probe(parse) ||
		(objects = semijoin_objects()) == NULL ||
		!may_execute(objects->probe_fn) || !may_execute(objects->agg_fn))
		return plan_next(parse, query_string, cursorOptions, boundParams);
	return plan_with_filters(parse, query_string, cursorOptions, boundParams, objects);
}

void
bloom_semijoin_init(void)
{
	DefineCustomBoolVariable("bloomfilter.semijoin_prefilter",
							 "Adds a Bloom prefilter to joins with postgres_fdw foreign tables when it pays.",
							 "The rule: doc/semijoin.md.  Needs the library loaded "
							 "(session_preload_libraries or shared_preload_libraries).",
							 &semijoin_prefilter, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomEnumVariable("bloomfilter.semijoin_log",
							 "Reports each semijoin prefilter decision with its estimates.",
							 "off, notice (to the client) or log (to the server log).",
							 &semijoin_log, SEMIJOIN_LOG_OFF, semijoin_log_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.semijoin_min_rows_saved",
							"Least number of foreign rows a semijoin prefilter must save.",
							NULL, &limits.min_rows_saved, 10000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("bloomfilter.semijoin_max_pass_rate",
							 "Largest estimated share of foreign rows a semijoin prefilter may pass.",
							 NULL, &limits.max_pass_rate, 0.5, 0.0, 1.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.semijoin_max_filter_size",
							"Largest semijoin prefilter sent to the remote servers, all scans together.",
							NULL, &limits.max_filter_kb, 16384, 1, MAX_FILTER_KB,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);

	prev_planner_hook = planner_hook;
	planner_hook = semijoin_planner;
}
