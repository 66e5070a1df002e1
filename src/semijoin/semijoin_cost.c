/*
 * semijoin_cost.c
 *	  The planner's estimates and the cost rule of doc/semijoin.md ("The
 *	  rule"): for each candidate of a query level, the rows and distinct
 *	  keys of both sides, the bytes of a shipped row, the fpp and capacity
 *	  of the filter, what it passes and saves; whether it pays; and the
 *	  best candidate of each probe relation and slot.
 *
 *	  Runs in the planner hook, before planning: the estimates come from a
 *	  PlannerInfo built over each query level's range table
 *	  (estimator_root), the way the planner itself estimates single
 *	  relations.  The limits are the bloomfilter.semijoin_* settings.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_statistic_ext.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "partitioning/partdesc.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "core/filter.h"
#include "pg_compat.h"
#include "semijoin/semijoin.h"
#include "semijoin/semijoin_internal.h"

/*
 * The constants of the rule (doc/semijoin.md): the filter travels as text,
 * about 4/3 of its binary size; it must save at least SAVE_FACTOR times the
 * bytes it costs to send; the fpp is chosen within [FPP_MIN, FPP_MAX]; the
 * capacity asked of bloom_agg is CAPACITY_MARGIN times the estimated
 * distinct build keys, so an estimate a little low still meets the fpp.
 */
#define TEXT_FACTOR			(4.0 / 3.0)
#define SAVE_FACTOR			2.0
#define FPP_MIN				0.0001
#define FPP_MAX				0.1
#define CAPACITY_MARGIN		1.25
#define CAPACITY_MIN		16.0
/* bytes of a DataRow message and of each field's length word */
#define ROW_OVERHEAD_BYTES	7.0
#define FIELD_OVERHEAD_BYTES 4.0

/*
 * A PlannerInfo over the query's range table, enough for the selectivity
 * and distinct-value estimates of single relations, built before planning.
 */
PlannerInfo *
estimator_root(Query *q, ParamListInfo boundParams)
{
	PlannerGlobal *glob = makeNode(PlannerGlobal);
	PlannerInfo *root = makeNode(PlannerInfo);

	Query	   *parse = palloc(sizeof(Query));
	ListCell   *lc;

	/*
	 * A copy of the range table whose entries say "inherits" only when the
	 * relation has children, as the planner will find (the parser marks
	 * every relation named without ONLY), so that a plain table's own
	 * statistics are read, not those of an inheritance tree.
	 */
	memcpy(parse, q, sizeof(Query));
	parse->rtable = NIL;
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = palloc(sizeof(RangeTblEntry));

		memcpy(rte, lfirst(lc), sizeof(RangeTblEntry));
		if (rte->rtekind == RTE_RELATION && rte->inh)
			rte->inh = has_subclass(rte->relid);
		parse->rtable = lappend(parse->rtable, rte);
	}
	glob->boundParams = boundParams;
	root->parse = parse;
	root->glob = glob;
	root->query_level = 1;
	root->planner_cxt = CurrentMemoryContext;
	root->wt_param_id = -1;
	setup_simple_rel_arrays(root);
	return root;
}

/* Releases what an estimator root holds open. */
void
estimator_done(PlannerInfo *root)
{
	if (root->glob->partition_directory != NULL)
		DestroyPartitionDirectory(root->glob->partition_directory);
}

/* The relation's estimated rows, or -1 without statistics. */
static double
relation_rows(PlannerInfo *root, Index rti)
{
	RelOptInfo *rel = root->simple_rel_array[rti];
	RangeTblEntry *rte = root->simple_rte_array[rti];

	if (rel == NULL)
		rel = build_simple_rel(root, rti, NULL);
	if (rte->inh || rel->tuples <= 0)
	{
		/* an inheritance parent or a foreign table: what ANALYZE stored */
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(rte->relid));

		if (HeapTupleIsValid(tup))
		{
			rel->tuples = ((Form_pg_class) GETSTRUCT(tup))->reltuples;
			ReleaseSysCache(tup);
		}
	}
	return rel->tuples > 0 ? rel->tuples : -1;
}

/*
 * Distinct values of key among rows of the relation's total, after a
 * selection keeps rows of them (the expected number of distinct values in a
 * random sample, as the planner's own group estimates assume).  *known:
 * the column has statistics.
 */
static double
selected_distinct(PlannerInfo *root, Expr *key, double total, double rows, bool *known)
{
	VariableStatData vardata;
	bool		isdefault;
	double		nd;

	examine_variable(root, (Node *) key, 0, &vardata);
	nd = get_variable_numdistinct(&vardata, &isdefault);
	ReleaseVariableStats(vardata);
	*known = !isdefault;
	nd = Min(nd, total);
	if (rows >= total || nd <= 0)
		return Max(Min(nd, rows), 1.0);
	return Max(nd * (1.0 - pow(1.0 - rows / total, total / nd)), 1.0);
}

/*
 * True if the keys are columns of one relation that extended statistics
 * of kind ndistinct cover (all of them in one statistics object).
 */
static bool
has_ndistinct_statistics(PlannerInfo *root, List *keys)
{
	Relids		varnos = pull_varnos(root, (Node *) keys);
	Bitmapset  *attnos = NULL;
	RelOptInfo *rel;
	int			relid;
	ListCell   *lc;

	if (!bms_get_singleton_member(varnos, &relid) ||
		(rel = root->simple_rel_array[relid]) == NULL)
		return false;
	foreach(lc, keys)
	{
		Node	   *key = lfirst(lc);

		while (IsA(key, RelabelType))
			key = (Node *) ((RelabelType *) key)->arg;
		if (!IsA(key, Var) || ((Var *) key)->varattno <= 0)
			return false;
		attnos = bms_add_member(attnos, ((Var *) key)->varattno);
	}
	foreach(lc, rel->statlist)
	{
		StatisticExtInfo *info = lfirst(lc);

		if (info->kind == STATS_EXT_NDISTINCT && bms_is_subset(attnos, info->keys))
			return true;
	}
	return false;
}

/*
 * Distinct tuples of the keys among all total rows of the relation, from
 * the planner's group estimate where extended statistics (ndistinct)
 * cover the columns.
 */
static double
ndistinct_tuples(PlannerInfo *root, List *keys, double total)
{
	Relids		varnos = pull_varnos(root, (Node *) keys);
	int			relid = -1;

	/* estimate_num_groups scales by rows / tuples: the rows are all of them */
	while ((relid = bms_next_member(varnos, relid)) >= 0)
	{
		RelOptInfo *rel = root->simple_rel_array[relid];

		if (rel != NULL && rel->rows <= 0)
			rel->rows = total;
	}
	return estimate_num_groups(root, keys, total, NULL, NULL);
}

/* The one column the Vars are (all the same column), or NULL. */
static Var *
one_column(List *vars)
{
	Var		   *first = vars != NIL ? linitial(vars) : NULL;
	ListCell   *lc;

	foreach(lc, vars)
	{
		Var		   *var = lfirst(lc);

		if (var->varno != first->varno || var->varattno != first->varattno)
			return NULL;
	}
	return first;
}

/*
 * Distinct values of one key (a column, or an expression) among rows of
 * total: an expression without statistics of its own takes the count of
 * the one column it reads (see key_distinct).
 */
static double
one_key_distinct(PlannerInfo *root, Expr *key, double total, double rows, bool *known)
{
	double		nd = selected_distinct(root, key, total, rows, known);
	Var		   *column;

	if (*known || IsA(key, Var) ||
		(column = one_column(pull_var_clause((Node *) key, 0))) == NULL)
		return nd;
	return selected_distinct(root, (Expr *) column, total, rows, known);
}

/*
 * Distinct tuples of the keys among rows of the relation's total, as
 * selected_distinct: of all total rows, from extended statistics
 * (ndistinct) where they cover the columns, otherwise the product of the
 * columns' distinct counts capped by the rows; then scaled to the rows
 * selected.  *known: every column has statistics.
 */
static double
selected_distinct_tuples(PlannerInfo *root, List *keys, double total, double rows, bool *known)
{
	double		nd = 1.0;
	ListCell   *lc;

	*known = true;
	foreach(lc, keys)
	{
		bool		column_known;

		nd *= one_key_distinct(root, lfirst(lc), total, total, &column_known);
		*known &= column_known;
	}
	if (has_ndistinct_statistics(root, keys))
		nd = ndistinct_tuples(root, keys, total);
	nd = Min(nd, total);
	if (rows >= total || nd <= 0)
		return Max(Min(nd, rows), 1.0);
	return Max(nd * (1.0 - pow(1.0 - rows / total, total / nd)), 1.0);
}

/*
 * Distinct keys (a column, an expression, or a composite key's tuples)
 * among rows of total.  An expression without statistics of its own
 * (CREATE STATISTICS on it) has at most as many distinct values as the
 * one column it reads: that column's count is taken, which overestimates
 * the keys of an expression that folds values together (date_trunc).
 */
static double
key_distinct(PlannerInfo *root, Expr *key, List *keys, double total, double rows, bool *known)
{
	if (list_length(keys) > 1)
		return selected_distinct_tuples(root, keys, total, rows, known);
	return one_key_distinct(root, key, total, rows, known);
}

/* Bytes of a row the foreign scan ships: the columns the query uses. */
static double
shipped_row_bytes(Query *q, Index rti, Oid relid)
{
	Bitmapset  *attnos = NULL;
	double		bytes = ROW_OVERHEAD_BYTES;
	int			i = -1;

	pull_varattnos((Node *) q->targetList, rti, &attnos);
	pull_varattnos((Node *) q->jointree, rti, &attnos);
	pull_varattnos(q->havingQual, rti, &attnos);
	while ((i = bms_next_member(attnos, i)) >= 0)
	{
		AttrNumber	attno = i + FirstLowInvalidHeapAttributeNumber;
		int32		width;

		if (attno <= 0)
			continue;
		width = get_attavgwidth(relid, attno);
		if (width <= 0)
		{
			Oid			type;
			int32		typmod;
			Oid			coll;

			get_atttypetypmodcoll(relid, attno, &type, &typmod, &coll);
			width = get_typavgwidth(type, typmod);
		}
		bytes += FIELD_OVERHEAD_BYTES + width;
	}
	return bytes;
}

/* Bytes of a classic filter of capacity values at rate fpp. */
static double
classic_bytes_for(double capacity, double fpp)
{
	return ceil(-capacity * log(fpp) / (M_LN2 * M_LN2) / 8.0);
}

/*
 * What the blocked layout's sizing (bf_shape_for, src/core/sizing.c) adds
 * to the classic filter's bytes at fpp = 10^(-1 - i/4), i = 0 .. 12: the
 * least factor over capacities from 300 to 2 * 10^8, rounded down.  Small
 * filters add more (whole 64-byte blocks, up to 1.42 at capacity 300), so
 * the estimate is a lower bound (checked on a grid of 3322 shapes from
 * capacity 300 to 1.3 * 10^8 and fpp 0.1 to 0.0001: at most 0.04% over,
 * between the points), and a filter that pays by it is sized exactly
 * (semijoin_filter_bytes) before it is chosen.
 */
static const double blocked_overhead[] = {
	1.009, 1.011, 1.017, 1.025, 1.034, 1.043, 1.054,
	1.068, 1.081, 1.096, 1.113, 1.130, 1.149
};

#define BLOCKED_OVERHEAD_STEPS	(lengthof(blocked_overhead) - 1)

/*
 * The bytes of the filter the rewrite builds for capacity values at rate
 * fpp, a lower bound (interpolated in log(fpp) between the points of
 * blocked_overhead): plain arithmetic, for every candidate.
 */
double
semijoin_filter_bytes_estimate(double capacity, double fpp)
{
	double		pos = -4.0 * (log10(fpp) + 1.0);
	int			i;
	double		overhead;

	pos = Max(0.0, Min((double) BLOCKED_OVERHEAD_STEPS, pos));
	i = Min((int) pos, (int) BLOCKED_OVERHEAD_STEPS - 1);
	overhead = blocked_overhead[i] + (pos - i) * (blocked_overhead[i + 1] - blocked_overhead[i]);
	return ceil(classic_bytes_for(capacity, fpp) * overhead);
}

/*
 * The bytes of the filter bloom_agg(key, capacity, fpp,
 * SEMIJOIN_FILTER_LAYOUT) builds, as its sizing makes it; -1 when no such
 * filter can be made (over 1 GB).  A search over shapes of up to about a
 * millisecond, so it is asked only of filters that pay by the estimate,
 * and the last answer is kept (a statement planned again asks again).
 */
double
semijoin_filter_bytes(double capacity, double fpp)
{
	static double last_capacity = -1.0;
	static double last_fpp = -1.0;
	static double last_bytes = -1.0;
	BloomShape	shape;
	char		errbuf[BLOOM_ERRBUF_SIZE];

	capacity = floor(capacity);
	if (capacity == last_capacity && fpp == last_fpp)
		return last_bytes;
	last_bytes = -1.0;
	if (bf_shape_for(capacity, fpp, BLOOM_LAYOUT_BLOCKED, &shape, errbuf))
		last_bytes = (double) bf_shape_bytes(&shape);
	last_capacity = capacity;
	last_fpp = fpp;
	return last_bytes;
}

/*
 * The fpp that minimizes the bytes sent: the filter's text on every scan,
 * plus the false positives among the rows it should stop.
 */
static double
choose_fpp(const Candidate *c, double contained)
{
	double		stoppable = c->probe_rows * c->local_share * (1.0 - contained) * c->row_bytes;
	double		fpp;

	if (stoppable <= 0)
		return FPP_MAX;
	fpp = c->scans * TEXT_FACTOR * c->capacity / (8.0 * M_LN2 * M_LN2 * stoppable);
	return Max(FPP_MIN, Min(FPP_MAX, fpp));
}

/*
 * The conditions a build row passes: its own conjuncts and its row-level
 * security policies (which the copied entry keeps).  Those with a
 * sub-select are left to the planner's default.
 */
static List *
build_restrictions(const Candidate *c)
{
	RangeTblEntry *rte = rt_fetch(c->build_rti, c->build_query->rtable);
	List	   *quals = list_copy(c->build_quals);
	ListCell   *lc;

	/* before planning, each is an expression (one per policy level) */
	foreach(lc, rte->securityQuals)
	{
		ListCell   *q;

		foreach(q, make_ands_implicit((Expr *) lfirst(lc)))
		{
			if (!checkExprHasSubLink(lfirst(q)))
				quals = lappend(quals, lfirst(q));
		}
	}
	return quals;
}

/* The rows and distinct keys of both sides; why they are unknown, or NULL. */
static const char *
estimate_sides(QueryContext *cx, Candidate *c)
{
	PlannerInfo *root = c->probe_root;
	double		probe_total = relation_rows(root, c->probe_rti);
	double		build_total = relation_rows(c->build_root, c->build_rti);
	bool		known;

	if (probe_total < 0)
		return "the foreign table has no statistics (ANALYZE it)";
	if (build_total < 0)
		return "the other side has no statistics (ANALYZE it)";
	c->probe_rows = Max(1.0, probe_total *
						clauselist_selectivity(root, c->probe_quals, 0, JOIN_INNER, NULL));
	c->build_rows = Max(1.0, build_total *
						clauselist_selectivity(c->build_root, build_restrictions(c), 0,
											   JOIN_INNER, NULL));
	c->probe_keys = key_distinct(root, c->probe_key, c->probe_key_list, probe_total,
								 c->probe_rows, &known);
	if (!known)
		return "the foreign key column has no statistics (ANALYZE the foreign table)";
	c->build_keys = key_distinct(c->build_root, c->build_key, c->build_key_list, build_total,
								 c->build_rows, &known);
	if (!known)
		c->build_keys = c->build_rows;
	return NULL;
}

/* From the sides' estimates: the filter's shape, and what it passes and saves. */
static void
estimate_filter(QueryContext *cx, Candidate *c)
{
	RangeTblEntry *probe_rte = rt_fetch(c->probe_rti, c->query->rtable);
	double		contained;

	c->row_bytes = shipped_row_bytes(c->query, c->probe_rti, probe_rte->relid);
	c->capacity = Max(CAPACITY_MIN, ceil(c->build_keys * CAPACITY_MARGIN));

	/* containment: the build keys are among the probe keys */
	contained = Min(1.0, c->build_keys / c->probe_keys);
	c->fpp = choose_fpp(c, contained);
	c->pass_rate = contained + c->fpp * (1.0 - contained);
	c->filter_bytes = c->scans * TEXT_FACTOR * semijoin_filter_bytes_estimate(c->capacity, c->fpp);
	/* leaves joined on their own server (local_share < 1) save nothing */
	c->rows_saved = c->probe_rows * c->local_share * (1.0 - c->pass_rate);
	c->bytes_saved = c->rows_saved * c->row_bytes;
}

/* Why the rule declines an estimated candidate, or NULL if it pays. */
static const char *
rule_declines(const Candidate *c, const SemijoinLimits *limits)
{
	if (c->pass_rate > limits->max_pass_rate)
		return "the filter would pass too many rows (bloomfilter.semijoin_max_pass_rate)";
	if (c->rows_saved < limits->min_rows_saved)
		return "too few rows saved (bloomfilter.semijoin_min_rows_saved)";
	if (c->filter_bytes > limits->max_filter_kb * 1024.0)
		return "the filter would be too big (bloomfilter.semijoin_max_filter_size)";
	if (c->bytes_saved < SAVE_FACTOR * c->filter_bytes)
		return "the filter costs more bytes than it saves";
	if (c->build_rows > c->rows_saved)
		return "the build side has more rows than the filter saves";
	return NULL;
}

/* Fills the estimates of c; returns why it does not pay, or NULL. */
static const char *
estimate_candidate(QueryContext *cx, Candidate *c)
{
	const char *why = estimate_sides(cx, c);
	double		bytes;

	if (why != NULL)
		return why;
	estimate_filter(cx, c);
	why = rule_declines(c, cx->analysis->limits);
	if (why != NULL)
		return why;
	/* the estimate is a lower bound: the filter as it will be built */
	bytes = semijoin_filter_bytes(c->capacity, c->fpp);
	if (bytes < 0)
		return "the filter would be too big (bloomfilter.semijoin_max_filter_size)";
	c->filter_bytes = c->scans * TEXT_FACTOR * bytes;
	return rule_declines(c, cx->analysis->limits);
}

/* The cell of the candidate chosen for c's probe relation and slot, or NULL. */
static ListCell *
chosen_for_place(List *chosen, const Candidate *c)
{
	ListCell   *lc;

	foreach(lc, chosen)
	{
		Candidate  *o = lfirst(lc);

		if (o->probe_rti == c->probe_rti && o->slot == c->slot)
			return lc;
	}
	return NULL;
}

/* c, if it pays, joins the chosen or replaces the one of its place that saves less. */
static void
place_candidate(List **chosen, Candidate *c)
{
	ListCell   *lc = chosen_for_place(*chosen, c);

	if (lc == NULL)
		*chosen = lappend(*chosen, c);
	else if (c->bytes_saved > ((Candidate *) lfirst(lc))->bytes_saved)
		lfirst(lc) = c;
}

/* Why a candidate lost to the one chosen for its relation and slot. */
static const char *
replaced_reason(const Candidate *winner)
{
	return psprintf("the filter from %s is preferred for this table: it saves the most bytes",
					winner->build_column);
}

/*
 * The best candidate of each (probe relation, slot) of cx's level: the one
 * that saves the most bytes.  Every other candidate gets its reason.
 */
List *
choose_candidates(QueryContext *cx)
{
	List	   *chosen = NIL;
	ListCell   *lc;

	foreach(lc, cx->candidates)
	{
		Candidate  *c = lfirst(lc);

		c->why = estimate_candidate(cx, c);
		c->estimated = true;
		if (c->why == NULL)
			place_candidate(&chosen, c);
	}
	foreach(lc, cx->candidates)
	{
		Candidate  *c = lfirst(lc);

		if (c->why == NULL && !list_member_ptr(chosen, c))
			c->why = replaced_reason(lfirst(chosen_for_place(chosen, c)));
	}
	return chosen;
}
