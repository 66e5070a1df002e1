/*
 * semijoin_internal.h
 *	  What the files of the automatic semijoin prefilter share, and only
 *	  they: the candidate filter with its decision and estimates, one
 *	  analysis of a statement, and each file's entry points.  The public
 *	  header is semijoin.h (the init alone); the rule is doc/semijoin.md.
 *
 *	  The files call one way, from the hook down:
 *
 *		semijoin.c			the settings, the hook, the plan-again loop
 *		semijoin_rewrite.c	each query level analyzed; the filters added
 *		semijoin_match.c	the join tree walked, clauses matched into candidates
 *		semijoin_keys.c		each side of a clause as a key; composite keys
 *		semijoin_cost.c		the planner's estimates and the cost rule
 *		semijoin_plan.c		checks on the finished plan, and the log
 *
 *	  A file calls only files below it in this list (semijoin_match.c
 *	  calls semijoin_cost.c for the estimates of a sub-select, and it and
 *	  semijoin_keys.c call semijoin_plan.c for the columns an earlier plan
 *	  kept local); the typed probe (typed_probe.h), the composite probe
 *	  (tuple_probe.h) and the extension's objects (extension_objects.h)
 *	  sit below all of them, and semijoin_types.h (which value each side hashes, shared with the
 *	  Citus repartition prefilter) between them and the files above.
 */
#ifndef BLOOMFILTER_SEMIJOIN_INTERNAL_H
#define BLOOMFILTER_SEMIJOIN_INTERNAL_H

#include "nodes/params.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"

/* The settings the rule reads (bloomfilter.semijoin_*, defined in semijoin.c). */
typedef struct SemijoinLimits
{
	int			min_rows_saved;
	double		max_pass_rate;
	int			max_filter_kb;
} SemijoinLimits;

/* The extension's objects the rewrite writes into the query. */
typedef struct SemijoinObjects
{
	Oid			bloom_type;
	Oid			probe_fn;		/* bloom_contains_typed(bloom, anyelement, text, text, text) */
	Oid			agg_fn;			/* bloom_agg(anyelement, bigint, float8, text) */
	Oid			tuple_hash_fn;	/* bloom_tuple_hash(VARIADIC "any") */
	Oid			tuple_probe_fn; /* bloom_contains_tuple(bloom, text[], text, VARIADIC "any") */
	Oid			columns_agree_fn;	/* bloom_columns_agree(text[], text, VARIADIC "any") */
	Oid			declared_value_fn;	/* bloom_declared_value(anyelement) */
} SemijoinObjects;

/* A candidate filter: an equijoin clause between a probe and a build member. */
typedef struct Candidate
{
	Query	   *query;			/* the query level rewritten (holds the probe) */
	PlannerInfo *probe_root;	/* estimates over query */
	Node	  **slot;			/* the qual list the filter joins */
	Index		probe_rti;
	Query	   *build_query;	/* whose range table holds the build relation */
	PlannerInfo *build_root;	/* estimates over build_query */
	Index		build_rti;
	Expr	   *probe_key;		/* as written in the clause */
	Var		   *probe_var;		/* its column (an expression's first) */
	Expr	   *probe_value;	/* what the remote probes: the column, or the expression */
	Var		   *build_var;
	Expr	   *build_key;
	Oid			collation;		/* the join operator's input collation */
	List	   *probe_quals;	/* the probe member's own conjuncts */
	List	   *build_quals;	/* the build member's own conjuncts, copyable */
	int			scans;			/* foreign scans receiving the filter */
	double		local_share;	/* share of the probe's rows joined locally */
	List	   *probe_relids;	/* relations the probe scans read */

	/*
	 * A composite key (nkeys > 1): one filter of the build side's key
	 * tuples.  The fields above then describe its first column (probe_key,
	 * probe_var, build_var, build_key) and collation is not used.
	 */
	int			nkeys;
	List	   *probe_key_list; /* Expr: each key as written */
	List	   *probe_var_list; /* Var: each key's column (an expression's
								 * first), which name the key */
	List	   *probe_value_list;	/* Expr: the values probed, each the
									 * column or the expression */
	List	   *build_key_list; /* Expr: each build key */
	Oid			probe_collation;	/* the tuple probe's input collation */
	Oid			build_collation;	/* bloom_tuple_hash's, on the build side */

	/* the decision: why the filter is not in the plan, NULL if it is */
	const char *why;
	bool		estimated;		/* the estimates below are filled */
	char	   *probe_column;	/* "table.column", for the log */
	char	   *build_column;

	/* the estimates (estimate_candidate) */
	double		probe_rows;
	double		probe_keys;
	double		build_rows;
	double		build_keys;
	double		row_bytes;
	double		fpp;
	double		capacity;
	double		pass_rate;
	double		filter_bytes;	/* sent, all scans together */
	double		rows_saved;
	double		bytes_saved;
} Candidate;

/*
 * A column whose probe postgres_fdw kept as a local condition of its
 * foreign scan in an earlier plan of the statement (the partitions of a
 * table share its column names).
 */
typedef struct UnshippedColumn
{
	Oid			relid;
	char	   *attname;
} UnshippedColumn;

/*
 * The unshipped name of an expression key: all expression keys of a
 * relation are declined together once a probe of one was kept local.
 */
#define EXPRESSION_KEY_NAME "(expression)"

/* One analysis of the statement: every candidate of every query level. */
typedef struct Analysis
{
	const SemijoinLimits *limits;
	const SemijoinObjects *objects;
	ParamListInfo boundParams;
	List	   *unshipped;		/* UnshippedColumn: declined */
	List	   *candidates;		/* all, in the order found, for the log */
	List	   *chosen;			/* those to add */
} Analysis;

/* The analysis of one query level. */
typedef struct QueryContext
{
	Query	   *query;
	PlannerInfo *root;			/* for estimates: see estimator_root */
	Analysis   *analysis;
	List	   *candidates;		/* of this query level, not declined */
	List	   *sub_roots;		/* estimator roots of sub-selects */
} QueryContext;

/* semijoin_rewrite.c */
extern bool may_have_probe(Query *q);
extern void analyze_query(Query *q, Analysis *a);
extern List *add_filters(const Analysis *a);

/* semijoin_match.c */
extern void match_level(QueryContext *cx);

/* semijoin_keys.c */
extern Var *key_var_of_level(Node *node, Index levelsup);
extern Var *key_var(Node *node);
extern Expr *probe_value_of(Expr *key);
extern Expr *without_join_aliases(Query *q, Expr *expr);
extern Expr *any_clause_target(OpExpr *op, List *targets);
extern char *key_name(Oid relid, Var *var, Expr *key);
extern const char *key_types_problem(OpExpr *op, Candidate *c, Expr *build_key);
extern void match_composites(QueryContext *cx, int first);

/* semijoin_cost.c */
extern PlannerInfo *estimator_root(Query *q, ParamListInfo boundParams);
extern void estimator_done(PlannerInfo *root);
extern List *choose_candidates(QueryContext *cx);

/* semijoin_plan.c */
extern bool plan_rescans_filter(PlannedStmt *stmt, List *filtered_relids);
extern List *local_probe_columns(PlannedStmt *stmt, const SemijoinObjects *objects);
extern bool column_among(List *columns, List *relids, Var *var, RangeTblEntry *rte);
extern char *key_columns_name(Oid relid, List *vars);
extern bool key_among(List *columns, List *relids, const char *name);
extern void log_candidates(List *candidates, int elevel);

#endif							/* BLOOMFILTER_SEMIJOIN_INTERNAL_H */
