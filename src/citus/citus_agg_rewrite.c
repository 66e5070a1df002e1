/*
 * citus_agg_rewrite.c
 *	  The rewrite of the polymorphic aggregates for Citus (doc/aggregates.md,
 *	  "On Citus: the rewrite").
 *
 *	  Citus runs an aggregate per shard and combines the partial states on
 *	  the coordinator only if its state type is not a pseudo-type and the
 *	  workers can match its declared argument types with the actual ones.
 *	  bloom_agg and multibloom_agg (internal state, anyelement and VARIADIC
 *	  "any" arguments) meet neither, so Citus would gather their rows.  Each
 *	  form has a hashed twin that takes the values' 64-bit hashes and builds
 *	  the same filter, bit for bit:
 *
 *		bloom_agg(v [, n, p [, layout]])
 *			-> bloom_agg_hashed(bloom_hash(v, 0) [, n, p [, layout]])
 *		multibloom_agg(a, b, ...)
 *			-> multibloom_agg_hashed(ARRAY[bloom_hash(a, 1),
 *										   bloom_hash(b, 2), ...])
 *		multibloom_agg_fixed(n, p, a, ...), multibloom_agg_sized(...)
 *			-> multibloom_agg_fixed_hashed(n, p, ARRAY[...]), ..._sized_hashed
 *
 *	  A planner hook makes the substitution before Citus plans the
 *	  statement.  Citus hands a final function a NULL state and none of the
 *	  call's arguments when no row arrived, so where a call may see no row a
 *	  fixed-shape call with a constant shape becomes COALESCE(twin, <the
 *	  empty filter of that shape>), and a data-sized multibloom call
 *	  COALESCE(twin, <the empty data-sized filter of that width>): what the
 *	  polymorphic forms return over no rows.  The fallbacks are STABLE
 *	  calls (bloom_agg_hashed_empty, multibloom_agg_hashed_empty), so a plan
 *	  does not carry a filter-sized constant.
 *
 *	  On a statement that reads a Citus table each twin is then written as
 *	  its binary route (citus_agg_transfer.c): the same twin run as
 *	  bloomfilter_citus.hll_add_agg, whose state Citus fetches in binary,
 *	  under the result function that finishes the combined state.
 *
 *	  Cost to the statements it leaves alone: a walk of the query levels'
 *	  flags (hasAggs), and for statements with aggregates one walk of the
 *	  tree comparing aggregate OIDs cached per backend.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "pg_compat.h"
#include "core/filter.h"
#include "core/multibloom.h"
#include "citus/citus_agg_rewrite.h"
#include "citus/citus_agg_transfer.h"
#include "helpers/extension_objects.h"

/* ---------------------------------------------------------------------
 * The setting
 * --------------------------------------------------------------------- */

typedef enum DistaggMode
{
	DISTAGG_OFF,
	DISTAGG_AUTO,
	DISTAGG_ON
} DistaggMode;

static const struct config_enum_entry distagg_options[] = {
	{"auto", DISTAGG_AUTO, false},
	{"on", DISTAGG_ON, false},
	{"off", DISTAGG_OFF, false},
	{"true", DISTAGG_ON, true},
	{"false", DISTAGG_OFF, true},
	{NULL, 0, false}
};

static int	distagg_mode = DISTAGG_AUTO;

static planner_hook_type prev_planner_hook = NULL;

/* ---------------------------------------------------------------------
 * The forms and their twins
 * --------------------------------------------------------------------- */

typedef enum AggForm
{
	FORM_BLOOM,					/* bloom_agg(value) */
	FORM_BLOOM_FIXED,			/* bloom_agg(value, capacity, fpp) */
	FORM_BLOOM_LAYOUT,			/* bloom_agg(value, capacity, fpp, layout) */
	FORM_MULTI,					/* multibloom_agg(VARIADIC "any") */
	FORM_MULTI_FIXED,			/* multibloom_agg_fixed(capacity, fpp, VARIADIC "any") */
	FORM_MULTI_SIZED,			/* multibloom_agg_sized: the same, its 1.0 name */
	NUM_FORMS
} AggForm;

#define MAX_FORM_ARGS	4

typedef struct FormSpec
{
	const char *name;
	int			nargs;
	Oid			argtypes[MAX_FORM_ARGS];
	const char *twin;
	Oid			twin_argtypes[MAX_FORM_ARGS];
	bool		multi;			/* shape first, then the values (VARIADIC) */
	int			nshape;			/* capacity, fpp [, layout] */
} FormSpec;

static const FormSpec forms[NUM_FORMS] = {
	[FORM_BLOOM] = {"bloom_agg", 1, {ANYELEMENTOID},
	"bloom_agg_hashed", {INT8OID}, false, 0},
	[FORM_BLOOM_FIXED] = {"bloom_agg", 3, {ANYELEMENTOID, INT8OID, FLOAT8OID},
	"bloom_agg_hashed", {INT8OID, INT8OID, FLOAT8OID}, false, 2},
	[FORM_BLOOM_LAYOUT] = {"bloom_agg", 4, {ANYELEMENTOID, INT8OID, FLOAT8OID, TEXTOID},
	"bloom_agg_hashed", {INT8OID, INT8OID, FLOAT8OID, TEXTOID}, false, 3},
	[FORM_MULTI] = {"multibloom_agg", 1, {ANYOID},
	"multibloom_agg_hashed", {INT8ARRAYOID}, true, 0},
	[FORM_MULTI_FIXED] = {"multibloom_agg_fixed", 3, {INT8OID, FLOAT8OID, ANYOID},
	"multibloom_agg_fixed_hashed", {INT8OID, FLOAT8OID, INT8ARRAYOID}, true, 2},
	[FORM_MULTI_SIZED] = {"multibloom_agg_sized", 3, {INT8OID, FLOAT8OID, ANYOID},
	"multibloom_agg_sized_hashed", {INT8OID, FLOAT8OID, INT8ARRAYOID}, true, 2},
};

/* ---------------------------------------------------------------------
 * The extension's objects, from extension_objects.c
 *
 * The OIDs of every form are resolved together and kept while the owner's
 * cache version stays, so a statement with aggregates costs no lookup;
 * an extension that is not installed is remembered too.
 * --------------------------------------------------------------------- */

typedef struct AggObjects
{
	Oid			poly[NUM_FORMS];
	Oid			twin[NUM_FORMS];
	Oid			value_hash;		/* bloom_hash(anyelement, bigint) */
	/*
	 * The fallbacks over no rows: bloom_empty and multibloom_empty declared
	 * STABLE, so that the plan holds a call, not a filter-sized constant
	 */
	Oid			bloom_empty;	/* bloom_agg_hashed_empty(bigint, float8) */
	Oid			bloom_empty_layout; /* bloom_agg_hashed_empty(bigint, float8, text) */
	Oid			multibloom_empty;	/* multibloom_agg_hashed_empty(integer, bigint, float8) */
	Oid			multibloom_empty_datasized; /* multibloom_agg_hashed_empty(integer) */
	/* the binary route of each twin (citus_agg_transfer.c), if transfer_ok */
	TransferObjects transfer[NUM_FORMS];
	bool		transfer_ok;
} AggObjects;

static AggObjects resolved_objects;
static bool resolved_found = false;
static uint64 resolved_version = 0;

/* The objects, or false if any is missing (not installed, or before 1.2). */
static bool
lookup_objects(AggObjects *out)
{
	static const Oid value_hash_args[] = {ANYELEMENTOID, INT8OID};
	static const Oid empty_args[] = {INT8OID, FLOAT8OID, TEXTOID};
	static const Oid multi_empty_args[] = {INT4OID, INT8OID, FLOAT8OID};

	if (!OidIsValid(extension_schema()))
		return false;
	for (int i = 0; i < NUM_FORMS; i++)
	{
		out->poly[i] = extension_function(forms[i].name, forms[i].nargs, forms[i].argtypes);
		out->twin[i] = extension_function(forms[i].twin, forms[i].nargs,
										  forms[i].twin_argtypes);
		if (!OidIsValid(out->poly[i]) || !OidIsValid(out->twin[i]))
			return false;
	}
	out->transfer_ok = true;
	for (int i = 0; i < NUM_FORMS; i++)
		out->transfer_ok &= transfer_objects_lookup(forms[i].nargs, forms[i].twin_argtypes,
													forms[i].multi, &out->transfer[i]);
	out->value_hash = extension_function("bloom_hash", 2, value_hash_args);
	out->bloom_empty = extension_function("bloom_agg_hashed_empty", 2, empty_args);
	out->bloom_empty_layout = extension_function("bloom_agg_hashed_empty", 3, empty_args);
	out->multibloom_empty = extension_function("multibloom_agg_hashed_empty", 3,
											   multi_empty_args);
	out->multibloom_empty_datasized = extension_function("multibloom_agg_hashed_empty", 1,
														 multi_empty_args);
	return OidIsValid(out->value_hash) && OidIsValid(out->bloom_empty) &&
		OidIsValid(out->bloom_empty_layout) && OidIsValid(out->multibloom_empty) &&
		OidIsValid(out->multibloom_empty_datasized);
}

/*
 * The objects, or NULL.  The lookup itself may accept invalidations (it
 * takes locks): one that arrives meanwhile leaves the result unkept.
 */
static const AggObjects *
agg_objects(AggObjects *scratch)
{
	uint64		version = extension_objects_version();
	bool		found;

	if (version == resolved_version)
		return resolved_found ? &resolved_objects : NULL;
	found = lookup_objects(scratch);
	if (version == extension_objects_version())
	{
		resolved_objects = *scratch;
		resolved_found = found;
		resolved_version = version;
	}
	return found ? scratch : NULL;
}

static int
form_of(const AggObjects *objects, Oid aggfnoid)
{
	for (int i = 0; i < NUM_FORMS; i++)
	{
		if (objects->poly[i] == aggfnoid)
			return i;
	}
	return -1;
}

/* ---------------------------------------------------------------------
 * The gates: aggregates at any level, ours among them, a Citus table
 * --------------------------------------------------------------------- */

static bool any_level_has_aggs(Query *q);

static bool
sublink_has_aggs(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return any_level_has_aggs((Query *) node);
	return expression_tree_walker(node, sublink_has_aggs, context);
}

/* Flags only, unless a level has sub-selects in its expressions. */
static bool
any_level_has_aggs(Query *q)
{
	ListCell   *lc;

	if (q->hasAggs)
		return true;
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_SUBQUERY && any_level_has_aggs(rte->subquery))
			return true;
	}
	foreach(lc, q->cteList)
	{
		CommonTableExpr *cte = lfirst(lc);

		if (IsA(cte->ctequery, Query) && any_level_has_aggs((Query *) cte->ctequery))
			return true;
	}
	return q->hasSubLinks &&
		query_tree_walker(q, sublink_has_aggs, NULL,
						  QTW_IGNORE_RT_SUBQUERIES | QTW_IGNORE_CTE_SUBQUERIES);
}

typedef struct StatementScan
{
	const AggObjects *objects;
	bool		has_ours;
	List	   *relids;			/* every relation the statement names */
} StatementScan;

static bool
scan_statement(Node *node, StatementScan *scan)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, scan_statement, scan,
								 QTW_EXAMINE_RTES_BEFORE);
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION)
			scan->relids = list_append_unique_oid(scan->relids, rte->relid);
		return false;
	}
	if (IsA(node, Aggref) && form_of(scan->objects, ((Aggref *) node)->aggfnoid) >= 0)
		scan->has_ours = true;
	return expression_tree_walker(node, scan_statement, scan);
}

/* True if one of the relations is listed in Citus's pg_dist_partition. */
static bool
reads_citus_table(List *relids)
{
	Oid			partition_relid;
	Oid			index_relid;
	AttrNumber	attno;
	Relation	rel;
	ListCell   *lc;
	bool		found = false;

	if (relids == NIL || !OidIsValid(get_extension_oid("citus", true)))
		return false;
	partition_relid = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	index_relid = get_relname_relid("pg_dist_partition_logical_relid_index",
									PG_CATALOG_NAMESPACE);
	if (!OidIsValid(partition_relid) || !OidIsValid(index_relid))
		return false;
	attno = get_attnum(partition_relid, "logicalrelid");
	if (attno == InvalidAttrNumber)
		return false;
	rel = table_open(partition_relid, AccessShareLock);
	foreach(lc, relids)
	{
		ScanKeyData key;
		SysScanDesc scan;

		ScanKeyInit(&key, attno, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(lfirst_oid(lc)));
		scan = systable_beginscan(rel, index_relid, true, NULL, 1, &key);
		found = HeapTupleIsValid(systable_getnext(scan));
		systable_endscan(scan);
		if (found)
			break;
	}
	table_close(rel, AccessShareLock);
	return found;
}

/* ---------------------------------------------------------------------
 * One call: its twin
 * --------------------------------------------------------------------- */

typedef struct RewriteContext
{
	const AggObjects *objects;
	ParamListInfo boundParams;
	List	   *levels;			/* the Query of each level, innermost first */
	List	   *replaced;		/* OIDs of the aggregates replaced */
	bool		binary;			/* the twins' binary route through Citus */
} RewriteContext;

/*
 * Only plain calls: no DISTINCT or ORDER BY inside, no explicit VARIADIC
 * array, no ordered-set or hypothetical aggregate.
 */
static bool
plain_call(const Aggref *agg)
{
	return agg->aggkind == AGGKIND_NORMAL && agg->aggdirectargs == NIL &&
		agg->aggorder == NIL && agg->aggdistinct == NIL &&
		!agg->aggvariadic && !agg->aggstar;
}

/*
 * A value bloom_hash(anyelement) takes as the aggregate does: not an
 * untyped literal (which the aggregate hashes as text of its C string),
 * not a pseudo-type.
 */
static bool
value_hashable(Node *value)
{
	Oid			type = exprType(value);

	return type != UNKNOWNOID && get_typtype(type) != TYPTYPE_PSEUDO;
}

static Node *
value_hash(const AggObjects *objects, Node *value, Oid collation, int64 seed)
{
	Const	   *seed_const = makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
									   Int64GetDatum(seed), false, FLOAT8PASSBYVAL);

	return (Node *) makeFuncExpr(objects->value_hash, INT8OID,
								 list_make2(value, seed_const),
								 InvalidOid, collation, COERCE_EXPLICIT_CALL);
}

/*
 * ARRAY[bloom_hash(a, 1), bloom_hash(b, 2), ...]: attribute i
 * (0-based) with seed i + 1, under its own expression's collation, as
 * multibloom_agg hashes it.
 */
static Node *
hash_of_values(const AggObjects *objects, List *values)
{
	ArrayExpr  *array = makeNode(ArrayExpr);
	ListCell   *lc;

	array->array_typeid = INT8ARRAYOID;
	array->array_collid = InvalidOid;
	array->element_typeid = INT8OID;
	array->multidims = false;
	array->location = -1;
	foreach(lc, values)
	{
		Node	   *value = lfirst(lc);

		array->elements = lappend(array->elements,
								  value_hash(objects, value, exprCollation(value),
											 (int64) mbf_attr_seed(foreach_current_index(lc) + 1)));
	}
	return (Node *) array;
}

/*
 * The call's argument expressions, split into the shape (capacity, fpp
 * [, layout]) and the values; false if their numbers do not fit the form.
 */
static bool
split_args(const FormSpec *spec, const Aggref *agg, List **shape, List **values)
{
	List	   *exprs = NIL;
	ListCell   *lc;
	int			nvalues;

	foreach(lc, agg->args)
		exprs = lappend(exprs, ((TargetEntry *) lfirst(lc))->expr);
	if (spec->multi)
	{
		*shape = list_copy_head(exprs, spec->nshape);
		*values = list_copy_tail(exprs, spec->nshape);
	}
	else
	{
		*values = list_copy_head(exprs, 1);
		*shape = list_copy_tail(exprs, 1);
	}
	nvalues = list_length(*values);
	return nvalues >= 1 && nvalues <= (spec->multi ? MULTIBLOOM_MAX_ATTRS : 1) &&
		list_length(*shape) == spec->nshape;
}

/*
 * The twin's arguments, or NIL if a value is not one to rewrite: the shape
 * arguments unchanged, the values replaced by their hashes.
 */
static List *
twin_args(const AggObjects *objects, const FormSpec *spec, const Aggref *agg,
		  List *shape, List *values)
{
	ListCell   *lc;

	foreach(lc, values)
	{
		if (!value_hashable(lfirst(lc)))
			return NIL;
	}
	if (spec->multi)
		return lappend(list_copy(shape), hash_of_values(objects, values));
	/* bloom_agg hashes under the call's input collation */
	return lcons(value_hash(objects, linitial(values), agg->inputcollid, 0),
				 list_copy(shape));
}

static Aggref *
make_twin(const Aggref *agg, Oid twin_oid, List *args)
{
	Aggref	   *twin = makeNode(Aggref);
	ListCell   *lc;

	memcpy(twin, agg, sizeof(Aggref));
	twin->aggfnoid = twin_oid;
	twin->aggargtypes = NIL;
	twin->args = NIL;
	foreach(lc, args)
	{
		Expr	   *arg = lfirst(lc);

		twin->aggargtypes = lappend_oid(twin->aggargtypes, exprType((Node *) arg));
		twin->args = lappend(twin->args,
							 makeTargetEntry(arg, foreach_current_index(lc) + 1, NULL, false));
	}
	return twin;
}

/* ---------------------------------------------------------------------
 * The empty filter of a constant shape, for COALESCE
 * --------------------------------------------------------------------- */

/*
 * The shape arguments as the planner will see them: constants folded, and
 * in a custom plan the statement's parameters substituted.  NIL unless all
 * are non-null constants.
 */
static List *
constant_shape(List *shape, ParamListInfo boundParams)
{
	PlannerGlobal glob = {.type = T_PlannerGlobal,.boundParams = boundParams};
	PlannerInfo root = {.type = T_PlannerInfo,.glob = &glob};
	List	   *folded = NIL;
	ListCell   *lc;

	foreach(lc, shape)
	{
		Node	   *arg = eval_const_expressions(&root, copyObject(lfirst(lc)));

		if (!IsA(arg, Const) || ((Const *) arg)->constisnull)
			return NIL;
		folded = lappend(folded, arg);
	}
	return folded;
}

/*
 * True if bloom_empty or multibloom_empty accepts the shape.  Checked
 * without raising the error, so a shape that would fail only where the
 * aggregate runs does not fail at planning time instead.
 */
static bool
shape_valid(const FormSpec *spec, List *shape, int nvalues)
{
	int64		capacity = DatumGetInt64(((Const *) linitial(shape))->constvalue);
	double		fpp = DatumGetFloat8(((Const *) lsecond(shape))->constvalue);
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomShape	shapes[MULTIBLOOM_MAX_ATTRS + 1];

	if (capacity < 1)
		return false;
	if (spec->multi)
	{
		double		caps[MULTIBLOOM_MAX_ATTRS];
		uint64_t	bytes;

		for (int i = 0; i < nvalues; i++)
			caps[i] = (double) capacity;
		return mbf_shapes_for(nvalues, caps, (double) capacity, fpp, shapes, errbuf) &&
			mbf_struct_bytes(nvalues, shapes, &bytes, errbuf);
	}
	else
	{
		int			layout = BLOOM_LAYOUT_CLASSIC;

		if (spec->nshape > 2)
			layout = bf_layout_from_name(TextDatumGetCString(((Const *) lthird(shape))->constvalue));
		return layout >= 0 &&
			bf_shape_for((double) capacity, fpp, layout, &shapes[0], errbuf) &&
			bf_shape_bytes(&shapes[0]) <= MaxAllocSize;
	}
}

/* bloom_empty(n, p [, layout]) or multibloom_empty(nvalues, n, p). */
static Node *
empty_filter(const AggObjects *objects, const FormSpec *spec, List *shape,
			 int nvalues, Oid type)
{
	Oid			fn = spec->nshape > 2 ? objects->bloom_empty_layout : objects->bloom_empty;

	if (spec->multi)
	{
		fn = objects->multibloom_empty;
		shape = lcons(makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
								Int32GetDatum(nvalues), false, true),
					  shape);
	}
	if (!may_execute(fn))
		return NULL;
	return (Node *) makeFuncExpr(fn, type, shape, InvalidOid, InvalidOid,
								 COERCE_EXPLICIT_CALL);
}

/* multibloom_agg_hashed_empty(nvalues), or NULL if the user may not run it. */
static Node *
empty_datasized_multibloom(const AggObjects *objects, int nvalues, Oid type)
{
	Oid			fn = objects->multibloom_empty_datasized;

	if (!may_execute(fn))
		return NULL;
	return (Node *) makeFuncExpr(fn, type,
								 list_make1(makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
													  Int32GetDatum(nvalues), false, true)),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * True if the call may see no row: its level is not grouped (or groups by
 * grouping sets, which may hold the empty one), or a FILTER may reject
 * every row of a group.
 */
static bool
may_see_no_row(const Aggref *agg, RewriteContext *cx)
{
	Query	   *level;

	if ((int) agg->agglevelsup >= list_length(cx->levels))
		return true;
	level = list_nth(cx->levels, agg->agglevelsup);
	return agg->aggfilter != NULL || level->groupingSets != NIL ||
		level->groupClause == NIL;
}

/* ---------------------------------------------------------------------
 * The walk: every Aggref at every level
 * --------------------------------------------------------------------- */

static Node *
rewrite_aggref(Aggref *agg, RewriteContext *cx)
{
	const AggObjects *objects = cx->objects;
	int			form = form_of(objects, agg->aggfnoid);
	const FormSpec *spec;
	List	   *shape;
	List	   *values;
	List	   *args;
	List	   *constants;
	Node	   *fallback = NULL;
	Aggref	   *twin;
	Node	   *call;

	if (form < 0 || !plain_call(agg))
		return (Node *) agg;
	spec = &forms[form];
	if (!split_args(spec, agg, &shape, &values))
		return (Node *) agg;
	args = twin_args(objects, spec, agg, shape, values);
	if (args == NIL || !may_execute(agg->aggfnoid) ||
		!may_execute(objects->twin[form]) || !may_execute(objects->value_hash))
		return (Node *) agg;
	if (spec->multi && spec->nshape == 0 && may_see_no_row(agg, cx))
	{
		/*
		 * The data-sized multibloom's final function finds the row width in
		 * its own call, which a distributed plan's coordinator does not run
		 */
		fallback = empty_datasized_multibloom(objects, list_length(values), agg->aggtype);
		if (fallback == NULL)
			return (Node *) agg;
	}
	else if (spec->nshape > 0 && may_see_no_row(agg, cx))
	{
		constants = constant_shape(shape, cx->boundParams);
		if (constants != NIL && shape_valid(spec, constants, list_length(values)))
		{
			fallback = empty_filter(objects, spec, constants, list_length(values),
									agg->aggtype);
			if (fallback == NULL)
				return (Node *) agg;
		}
	}
	twin = make_twin(agg, objects->twin[form], args);
	call = (Node *) twin;
	if (cx->binary)
	{
		Node	   *transfer = transfer_call(&objects->transfer[form], twin, spec->multi,
											 spec->nshape == 0);

		if (transfer != NULL)
			call = transfer;
	}
	cx->replaced = list_append_unique_oid(cx->replaced, agg->aggfnoid);
	if (fallback != NULL)
	{
		CoalesceExpr *coalesce = makeNode(CoalesceExpr);

		coalesce->coalescetype = agg->aggtype;
		coalesce->coalescecollid = agg->aggcollid;
		coalesce->args = list_make2(call, fallback);
		coalesce->location = -1;
		return (Node *) coalesce;
	}
	return call;
}

static Query *rewrite_level(Query *q, RewriteContext *cx);

static Node *
rewrite_mutator(Node *node, RewriteContext *cx)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
		return (Node *) rewrite_level((Query *) node, cx);
	if (IsA(node, Aggref))
	{
		/* first its arguments and FILTER, which may hold sub-selects */
		node = expression_tree_mutator(node, rewrite_mutator, cx);
		return rewrite_aggref((Aggref *) node, cx);
	}
	return expression_tree_mutator(node, rewrite_mutator, cx);
}

/* Rewrites q in place, and the levels below it. */
static Query *
rewrite_level(Query *q, RewriteContext *cx)
{
	cx->levels = lcons(q, cx->levels);
	q = query_tree_mutator(q, rewrite_mutator, cx, QTW_DONT_COPY_QUERY);
	cx->levels = list_delete_first(cx->levels);
	return q;
}

/*
 * Rewrites parse in place if the gates let it; returns the OIDs of the
 * aggregates replaced.
 */
static List *
rewrite_statement(Query *parse, ParamListInfo boundParams)
{
	AggObjects scratch;
	StatementScan scan = {0};
	RewriteContext cx = {0};
	bool		citus;

	if (!any_level_has_aggs(parse))
		return NIL;
	scan.objects = agg_objects(&scratch);
	if (scan.objects == NULL)
		return NIL;
	scan_statement((Node *) parse, &scan);
	if (!scan.has_ours)
		return NIL;
	citus = reads_citus_table(scan.relids);
	if (distagg_mode == DISTAGG_AUTO && !citus)
		return NIL;
	cx.objects = scan.objects;
	/* elsewhere the twins, which have combine functions, run in parallel */
	cx.binary = citus && scan.objects->transfer_ok && citus_binary_states_enabled();
	cx.boundParams = boundParams;
	rewrite_level(parse, &cx);
	return cx.replaced;
}

/* ---------------------------------------------------------------------
 * The hook
 * --------------------------------------------------------------------- */

/*
 * The plan depends on the aggregates it no longer calls: a change to one
 * (DROP, REVOKE) must invalidate it as it would the plain plan.
 */
static void
depend_on_replaced(PlannedStmt *stmt, List *replaced)
{
	ListCell   *lc;

	foreach(lc, replaced)
	{
		PlanInvalItem *item = makeNode(PlanInvalItem);

		item->cacheId = PROCOID;
		item->hashValue = GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(lfirst_oid(lc)));
		stmt->invalItems = lappend(stmt->invalItems, item);
	}
}

static PlannedStmt *
distagg_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
{
	List	   *replaced = NIL;
	PlannedStmt *stmt;

	if (distagg_mode != DISTAGG_OFF && parse->commandType != CMD_UTILITY)
		replaced = rewrite_statement(parse, boundParams);
	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions, boundParams);
	depend_on_replaced(stmt, replaced);
	return stmt;
}

void
bloom_distributed_agg_init(void)
{
	DefineCustomEnumVariable("bloomfilter.distributed_aggregates",
							 "Rewrites bloom_agg and multibloom_agg so that Citus aggregates them per shard.",
							 "auto: in statements that read a Citus table; on: in every statement; off: never. "
							 "Needs the library loaded (session_preload_libraries or shared_preload_libraries).",
							 &distagg_mode, DISTAGG_AUTO, distagg_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	citus_agg_transfer_init();
	prev_planner_hook = planner_hook;
	planner_hook = distagg_planner;
}
