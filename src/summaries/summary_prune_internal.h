/*
 * summary_prune_internal.h
 *	  What the parts of summary pruning share: summary_prune.c (the hooks,
 *	  the quals that fix a key, the plan rewritten at executor start),
 *	  summary_scan_nodes.c (the skipped and guarded scans put in the
 *	  rewritten plan) and summary_prune_catalog.c (the managed summaries'
 *	  catalog: which summaries cover a leaf, and whether a leaf may hold a
 *	  key's values under the query's snapshot).
 */
#ifndef BLOOMFILTER_SUMMARY_PRUNE_INTERNAL_H
#define BLOOMFILTER_SUMMARY_PRUNE_INTERNAL_H

#include "access/htup.h"
#include "nodes/execnodes.h"
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "core/multibloom.h"
#include "types/bloomfilter.h"

/* As many key columns as a multibloom has attributes at most. */
#define SUMMARY_MAX_KEYS	MULTIBLOOM_MAX_ATTRS

/* More combinations of values than this are not probed (no pruning). */
#define SUMMARY_MAX_PROBES	4096

/* One summary covering a leaf partition, as the planner needs it. */
typedef struct SummaryOfLeaf
{
	int32		summary_id;
	int			nkeys;			/* 1: bloom filters; more: multibloom */
	AttrNumber	attnos[SUMMARY_MAX_KEYS];	/* the key columns in the leaf */
	Oid			types[SUMMARY_MAX_KEYS];
	Oid			collations[SUMMARY_MAX_KEYS];
	char	   *names[SUMMARY_MAX_KEYS];	/* the key columns' names */
} SummaryOfLeaf;

/*
 * The summaries covering the leaf partition leaf (a list of SummaryOfLeaf,
 * read-only: it may be the per-backend cache's), or NIL.  Reads the
 * catalog of summaries at most once per planned statement (state is the
 * caller's, zeroed before the first call); a leaf's list is kept per
 * backend until the leaf's relcache entry is invalidated or the catalog's
 * definitions change.
 */
typedef struct SummaryPlanState
{
	bool		loaded;
	List	   *defs;			/* SummaryDefRow *, from the catalog */
	uint64		signature;		/* of defs: a cached list is for these */
} SummaryPlanState;

/* Registers the relcache callback of the caches here; from _PG_init. */
extern void summary_catalog_init(void);

extern bool summary_catalog_installed(void);

/*
 * The root of relid's partition tree (relid itself if it is no partition),
 * from the per-backend cache of ancestors.
 */
extern Oid	summary_tree_root(Oid relid);
extern List *summaries_of_leaf(SummaryPlanState *state, Oid leaf);

/*
 * A probe of one leaf under one summary: for each of the summary's key
 * attributes, the values the scan's quals allow (fixed[i] false: any value,
 * a wildcard of a multibloom probe).  Values are of type valtypes[i],
 * hashed under collations[i] (the key column's).
 */
typedef struct SummaryProbe
{
	int32		summary_id;
	Oid			leaf;
	int			nkeys;
	/* nkeys entries each; probes of one execution may share them (read-only) */
	bool	   *fixed;
	Oid		   *valtypes;
	Oid		   *collations;
	int		   *nvalues;
	Datum	  **values;			/* non-null values only */
	bool		prune;			/* the answer */
} SummaryProbe;

/* summary_probe.c: a probe of nkeys keys, zeroed, its arrays in one chunk. */
extern SummaryProbe *summary_probe_alloc(int nkeys);

/*
 * Decides each probe (SummaryProbe *) of the list: prune is set when the
 * leaf's part row is trusted and neither its filter nor any delta visible
 * under snapshot may hold one of the combinations of values.
 */
extern void summary_decide(List *probes, Snapshot snapshot);

/*
 * The filters of one leaf under one summary, visible under snapshot, read
 * once and copied into the current memory context, for scans rescanned
 * with new parameter values (a nested loop's inner side).  shape gives the
 * summary, the leaf and the values' types and collations.
 * summary_leaf_may_hold is false only when the leaf's part row is trusted
 * and no loaded filter may hold a combination of the values of probe (of
 * the same shape).
 */
typedef struct SummaryLeafFilters SummaryLeafFilters;

extern SummaryLeafFilters *summary_leaf_load(const SummaryProbe *shape, Snapshot snapshot);
extern bool summary_leaf_may_hold(SummaryLeafFilters *filters, const SummaryProbe *probe);

/*
 * summary_filter_cache.c: the filter in column attno of a catalog row tup
 * of rel (raw, not null), detoasted and checked once per row version
 * (type: bloom or multibloom), from the per-backend cache.
 */
extern const void *summary_cached_filter(Relation rel, HeapTuple tup, AttrNumber attno,
										 Datum raw, const FilterType *type);

/*
 * summary_probe.c: the probe of a candidate scan (summary_prune.c, "Planning") with this
 * execution's values (and, given econtext, its executor parameters'
 * current values), or NULL.
 */
extern SummaryProbe *probe_of(List *candidate, ParamListInfo params, ExprContext *econtext);

/*
 * The same with executor-start values only, sharing the arrays of like (the
 * probe of like_candidate, or NULL) when the two candidates' keys and
 * sources are equal: the scans of one query's leaves under one summary
 * usually are, and thousands of them are decided at once.
 */
extern SummaryProbe *probe_like(List *candidate, ParamListInfo params,
								SummaryProbe *like, List *like_candidate);

/* summary_scan_nodes.c: registers both nodes' methods; from summary_prune_init. */
extern void summary_scan_nodes_register(void);

/* The empty node that takes a skipped scan's place: same relation and output. */
extern Plan *make_skipped(Scan *scan, const char *keys);

/*
 * summary_leave_out.c: whether the skipped scans among plan's children may
 * be left out of it (an Append or MergeAppend that PostgreSQL's partition
 * pruning does not number); and, in plan, a copy whose children list holds
 * NULL for each one left out, those removed.
 */
extern bool skipped_may_be_left_out(Plan *plan);
extern void leave_out_skipped(Plan *plan);

/*
 * The guard of a scan keyed by an executor parameter: the scan below it,
 * decided at each (re)start with its candidates' filters.
 */
extern Plan *make_guard(Scan *scan, const char *keys, List *candidates, int plan_node_id);

/*
 * For EXPLAIN: sets the counts of skipped children on the first of each
 * Append's or MergeAppend's in the executed tree ps.
 */
extern bool count_skipped(PlanState *ps, void *context);

#endif							/* BLOOMFILTER_SUMMARY_PRUNE_INTERNAL_H */
