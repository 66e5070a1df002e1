/*
 * semijoin.c
 *	  The automatic semijoin prefilter (doc/semijoin.md).
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
 *	  another type than the remote one: the remote side probes only where
 *	  its value is the one the local side sees (the typed probe's section).
 *
 *	  Where it is correct (the gates of probe_problem, match_clause and
 *	  the scope walk): inner joins, and the nullable side of an outer join
 *	  built from its preserved side; keys whose types hash alike under the
 *	  join operator's hash opfamily; no volatile build qual; not when the
 *	  build side is on the probe's own server (postgres_fdw may push the
 *	  whole join); not when the plan rescans the filtered foreign scan with
 *	  nested-loop parameters (plan_rescans_filter).
 *
 *	  Where it pays (estimate_candidate): a closed-form rule on the planner's
 *	  statistics, written down in doc/semijoin.md; and only where
 *	  postgres_fdw ships the probe, which the plan tells (local_probe_columns:
 *	  a probe kept local declines its column, and the statement is planned
 *	  again).  The log (bloomfilter.semijoin_log) reports the decisions of
 *	  the plan returned, once it is known.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_am.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/foreign.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"
#include "parser/parse_coerce.h"
#include "parser/parse_func.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "partitioning/partdesc.h"
#include "rewrite/rewriteManip.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "pg_compat.h"
#include "planner/semijoin.h"

#define EXTENSION_NAME		"bloomfilter"

/* ---------------------------------------------------------------------
 * Settings
 * --------------------------------------------------------------------- */

typedef enum SemijoinLog
{
	SEMIJOIN_LOG_OFF,
	SEMIJOIN_LOG_NOTICE,
	SEMIJOIN_LOG_LOG
} SemijoinLog;

static const struct config_enum_entry semijoin_log_options[] = {
	{"off", SEMIJOIN_LOG_OFF, false},
	{"notice", SEMIJOIN_LOG_NOTICE, false},
	{"log", SEMIJOIN_LOG_LOG, false},
	{"on", SEMIJOIN_LOG_NOTICE, true},
	{NULL, 0, false}
};

static bool semijoin_prefilter = true;
static int	semijoin_log = SEMIJOIN_LOG_OFF;
static int	semijoin_min_rows_saved = 10000;
static double semijoin_max_pass_rate = 0.5;
static int	semijoin_max_filter_kb = 16384;

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
/* bloomfilter.semijoin_max_filter_size at most 1 GB, the largest filter */
#define MAX_FILTER_KB		(1024 * 1024)
/* bytes of a DataRow message and of each field's length word */
#define ROW_OVERHEAD_BYTES	7.0
#define FIELD_OVERHEAD_BYTES 4.0

static planner_hook_type prev_planner_hook = NULL;

/* ---------------------------------------------------------------------
 * What differs between the majors (the tests are in pg_compat.h)
 * --------------------------------------------------------------------- */

/* The schema an extension is installed in (also used by distributed_agg.c). */
Oid
bf_extension_schema(Oid ext)
{
#if BF_HAVE_GET_EXTENSION_SCHEMA
	return get_extension_schema(ext);
#else
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			schema = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		schema = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return schema;
#endif
}

/* True if the current user may execute the function (also distributed_agg.c). */
bool
bf_may_execute(Oid fn)
{
#if BF_HAVE_OBJECT_ACLCHECK
	return object_aclcheck(ProcedureRelationId, fn, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK;
#else
	return pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK;
#endif
}

/*
 * The sub-select's copy rte of an entry of parent gets the entry's
 * permissions (since 16 kept in the Query, not the entry).
 */
static void
bf_copy_permission(Query *parent, RangeTblEntry *rte, Query *sub)
{
#if BF_HAVE_PERMINFO
	if (rte->perminfoindex != 0)
	{
		RTEPermissionInfo *perm = getRTEPermissionInfo(parent->rteperminfos, rte);

		sub->rteperminfos = list_make1(copyObject(perm));
		rte->perminfoindex = 1;
	}
#endif
}

/* ---------------------------------------------------------------------
 * The extension's objects, by name in its own schema
 * --------------------------------------------------------------------- */

typedef struct BloomObjects
{
	Oid			schema;
	Oid			bloom_type;
	Oid			probe_fn;		/* bloom_contains_typed(bloom, anyelement, text, text, text) */
	Oid			agg_fn;			/* bloom_agg(anyelement, bigint, float8) */
} BloomObjects;

/*
 * Cached per backend.  Checked on each use with one syscache probe (the
 * function must still exist under its name and schema), so a dropped or
 * re-created extension is looked up again.
 */
static BloomObjects cached_objects;

static bool
cached_objects_valid(void)
{
	HeapTuple	tup;
	bool		valid;
	Form_pg_proc proc;

	if (!OidIsValid(cached_objects.probe_fn))
		return false;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(cached_objects.probe_fn));
	if (!HeapTupleIsValid(tup))
		return false;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	valid = proc->pronamespace == cached_objects.schema &&
		strcmp(NameStr(proc->proname), "bloom_contains_typed") == 0;
	ReleaseSysCache(tup);
	return valid;
}

/* The function schema_name.name(argtypes), or InvalidOid (also distributed_agg.c). */
Oid
bf_function_in_schema(const char *schema_name, const char *name, int nargs,
					  const Oid *argtypes)
{
	List	   *qualified = list_make2(makeString(pstrdup(schema_name)),
									   makeString(pstrdup(name)));

	return LookupFuncName(qualified, nargs, argtypes, true);
}

/*
 * The extension's objects, or false if it is not installed in this database
 * (or its SQL objects are older than 1.2, without bloom_contains_typed: the
 * rewrite then declines, since only the typed probe is safe to ship).
 */
static bool
lookup_objects(BloomObjects *out)
{
	Oid			ext;
	char	   *schema_name;
	Oid			probe_args[5] = {InvalidOid, ANYELEMENTOID, TEXTOID, TEXTOID, TEXTOID};
	Oid			agg_args[3] = {ANYELEMENTOID, INT8OID, FLOAT8OID};

	if (cached_objects_valid())
	{
		*out = cached_objects;
		return true;
	}
	memset(&cached_objects, 0, sizeof(cached_objects));
	ext = get_extension_oid(EXTENSION_NAME, true);
	if (!OidIsValid(ext))
		return false;
	out->schema = bf_extension_schema(ext);
	schema_name = get_namespace_name(out->schema);
	if (schema_name == NULL)
		return false;
	out->bloom_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									  CStringGetDatum("bloom"),
									  ObjectIdGetDatum(out->schema));
	probe_args[0] = out->bloom_type;
	out->probe_fn = bf_function_in_schema(schema_name, "bloom_contains_typed", 5, probe_args);
	out->agg_fn = bf_function_in_schema(schema_name, "bloom_agg", 3, agg_args);
	if (!OidIsValid(out->bloom_type) || !OidIsValid(out->probe_fn) ||
		!OidIsValid(out->agg_fn))
		return false;
	cached_objects = *out;
	return true;
}

/* ---------------------------------------------------------------------
 * The typed probe: bloom_contains_typed(filter, value, declared_type,
 * declared_collation, declared_encoding)
 *
 * postgres_fdw lets a foreign table declare a column with another type
 * than the remote column's.  The local side then sees the remote value's
 * text output parsed by the declared type's input function (with the
 * declared typmod): a remote int4 5 arrives as numeric 5, a remote
 * char(6) 'ab    ' as text 'ab    ', a remote numeric(10,2) 1.55 under a
 * declared numeric(10,1) as 1.6.  The filter holds hashes of the values
 * the local side sees, hashed as the declared type; a probe shipped as
 * bloom_contains would hash the remote value as the remote type, and drop
 * rows that match.  (A cast of the remote column to the declared type is
 * no cure: a remote k::text strips char(6)'s padding that the local side
 * keeps, and a remote k::date reads '01/02/2020' under the remote
 * session's DateStyle, the local side under its own.)
 *
 * So the shipped probe says what the filter was built from, and the remote
 * side probes only where its value is the one the local side sees and
 * hashes alike; everywhere else it passes the row, which is always
 * correct.  It probes exactly when (typed_probe_agrees):
 *
 *  - the type: the remote column's type (a domain's base type) and typmod
 *    are the declared ones; or the declared type has no typmod (its input
 *    function then keeps the value as it is); or both are of the integer
 *    family int2/int4/int8 (their text forms are the numbers, and the
 *    family's hashes agree across it), or both are text/varchar and the
 *    declared one has no length (varchar has text's hash functions);
 *  - the value survives its text form between any two servers: no reg*
 *    type (their text is a name, read back as another OID), no money
 *    (lc_monetary), no enum (its hash is the label's OID), no composite;
 *    and unless the type's text is ASCII whatever the value (numbers,
 *    dates and times, booleans, intervals), the two databases have the
 *    same encoding (postgres_fdw's connection converts text between them
 *    otherwise, and the bytes hashed differ), or one is SQL_ASCII (no
 *    conversion);
 *  - the collation, for a collatable type: every deterministic collation
 *    hashes the bytes, so '' stands for any of them; a nondeterministic one
 *    must be the same collation by (qualified) name.
 *
 * Where the probe is planned, its support function decides once: on a
 * table that holds the column, the call becomes bloom_contains (so the
 * batched probe scan and the planner's estimates see the plain probe) or
 * the constant true; on a foreign table (a chain of servers) it stays
 * typed, naming that table's declared type for the next server.  Where it
 * is not planned so, the function decides at its first call.
 * --------------------------------------------------------------------- */

PG_FUNCTION_INFO_V1(bloom_contains_typed);
PG_FUNCTION_INFO_V1(bloom_contains_typed_support);

/* In bloom.c and bloom_support.c: the probe and its planner support. */
extern Datum bloom_contains(PG_FUNCTION_ARGS);
extern Datum bloom_contains_support(PG_FUNCTION_ARGS);

#define TYPED_PROBE_NARGS	5

/* What a probe's value is declared as: its last three arguments. */
typedef struct DeclaredValue
{
	const char *type;			/* type_spec */
	const char *collation;		/* collation_spec */
	const char *encoding;		/* the declaring database's encoding */
} DeclaredValue;

static Const *
text_const(const char *value)
{
	return makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1, CStringGetTextDatum(value),
					 false, false);
}

/* The name of a type with its typmod, schema-qualified: 'numeric(10,2)', 'pg_catalog.date'. */
static char *
type_spec(Oid type, int32 typmod)
{
	return format_type_extended(type, typmod,
								FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
}

/*
 * How a collation hashes: '' for every deterministic collation (and none),
 * the qualified name of a nondeterministic one.
 */
static char *
collation_spec(Oid collation)
{
	HeapTuple	tup;
	Form_pg_collation coll;
	char	   *spec;

	if (!OidIsValid(collation) || get_collation_isdeterministic(collation))
		return pstrdup("");
	tup = SearchSysCache1(COLLOID, ObjectIdGetDatum(collation));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for collation %u", collation);
	coll = (Form_pg_collation) GETSTRUCT(tup);
	spec = pstrdup(quote_qualified_identifier(get_namespace_name(coll->collnamespace),
											  NameStr(coll->collname)));
	ReleaseSysCache(tup);
	return spec;
}

/* True if text crosses between a database of this encoding and this one unchanged. */
static bool
same_text_bytes(const char *encoding)
{
	int			theirs = pg_char_to_encoding(encoding);
	int			ours = GetDatabaseEncoding();

	return theirs == ours || theirs == PG_SQL_ASCII || ours == PG_SQL_ASCII;
}

/* A base type whose text form is ASCII whatever the value. */
static bool
text_form_is_ascii(Oid type)
{
	switch (TypeCategory(type))
	{
		case TYPCATEGORY_NUMERIC:
		case TYPCATEGORY_DATETIME:
		case TYPCATEGORY_BOOLEAN:
		case TYPCATEGORY_TIMESPAN:
			return true;
		default:
			return false;
	}
}

/*
 * True if a value of type, written by its output function on one server
 * and read by its input function on another, is the same value there.
 */
static bool
crosses_unchanged(Oid type, bool same_encoding)
{
	Oid			elem = get_element_type(type);

	if (OidIsValid(elem))
		return crosses_unchanged(getBaseType(elem), same_encoding);
	switch (get_typtype(type))
	{
		case TYPTYPE_BASE:
			break;
		case TYPTYPE_RANGE:
			return crosses_unchanged(getBaseType(get_range_subtype(type)), same_encoding);
		case TYPTYPE_MULTIRANGE:
			return crosses_unchanged(getBaseType(get_range_subtype(get_multirange_range(type))),
									 same_encoding);
		default:
			/* composite, enum, pseudo-types */
			return false;
	}
	switch (type)
	{
		case REGPROCOID:
		case REGPROCEDUREOID:
		case REGOPEROID:
		case REGOPERATOROID:
		case REGCLASSOID:
		case REGCOLLATIONOID:
		case REGTYPEOID:
		case REGROLEOID:
		case REGNAMESPACEOID:
		case REGCONFIGOID:
		case REGDICTIONARYOID:
		case CASHOID:
			return false;
		default:
			return same_encoding || text_form_is_ascii(type);
	}
}

static bool
spec_is_one_of(const char *declared, const Oid *types, int ntypes)
{
	for (int i = 0; i < ntypes; i++)
	{
		if (strcmp(declared, type_spec(types[i], -1)) == 0)
			return true;
	}
	return false;
}

/* True if a value of (type, typmod) read as declared is the same value, hashing alike. */
static bool
declared_type_agrees(Oid type, int32 typmod, const char *declared)
{
	static const Oid integers[] = {INT2OID, INT4OID, INT8OID};
	static const Oid texts[] = {TEXTOID, VARCHAROID};

	if (strcmp(declared, type_spec(type, typmod)) == 0)
		return true;
	if (typmod >= 0 && strcmp(declared, type_spec(type, -1)) == 0)
		return true;
	if (spec_is_one_of(declared, integers, lengthof(integers)))
		return type == INT2OID || type == INT4OID || type == INT8OID;
	if (spec_is_one_of(declared, texts, lengthof(texts)))
		return type == TEXTOID || type == VARCHAROID;
	return false;
}

/*
 * True if a probe of a value of (type, typmod), called under collation,
 * hashes what the filter holds for it: the rules in the comment above.
 */
static bool
typed_probe_agrees(Oid type, int32 typmod, Oid collation, const DeclaredValue *declared)
{
	Oid			base;

	if (!OidIsValid(type))
		return false;
	base = getBaseTypeAndTypmod(type, &typmod);
	if (!crosses_unchanged(base, same_text_bytes(declared->encoding)))
		return false;
	if (!declared_type_agrees(base, typmod, declared->type))
		return false;
	if (!type_is_collatable(base))
		return true;
	return OidIsValid(collation) && strcmp(collation_spec(collation), declared->collation) == 0;
}

/*
 * Why values of this type cannot be probed on another server at all, or
 * NULL: the rewrite declines such keys (the remote side would pass every
 * row).
 */
static const char *
type_cannot_cross(Oid type)
{
	if (!crosses_unchanged(getBaseType(type), true))
		return "values of the key's type do not cross to another server unchanged "
			"(an enum, reg* type, money or composite)";
	return NULL;
}

/* The declared type of a column: its type, or a domain's base type, with the typmod. */
static char *
column_type_spec(Var *column)
{
	int32		typmod = column->vartypmod;
	Oid			base = getBaseTypeAndTypmod(column->vartype, &typmod);

	return type_spec(base, typmod);
}

/* The probe's arguments for a column, hashed under collation. */
static List *
typed_probe_args(Node *filter, Var *column, Oid collation)
{
	return list_make5(filter, column,
					  text_const(column_type_spec(column)),
					  text_const(collation_spec(collation)),
					  text_const(GetDatabaseEncodingName()));
}

/* The call-site state of bloom_contains_typed. */
typedef struct TypedProbeCache
{
	int8		verdict;		/* 1 probe, -1 pass every row, 0 decide per row */
	FmgrInfo	contains;		/* bloom_contains' call site (its own fn_extra) */
	FunctionCallInfo call;		/* its call, the two arguments set per row */
} TypedProbeCache;

/* The decision for this call's value and declared arguments. */
static bool
typed_call_agrees(FunctionCallInfo fcinfo)
{
	Node	   *expr = fcinfo->flinfo->fn_expr;
	Node	   *value;
	DeclaredValue declared;

	if (expr == NULL || !IsA(expr, FuncExpr) ||
		list_length(((FuncExpr *) expr)->args) != TYPED_PROBE_NARGS)
		return false;
	value = lsecond(((FuncExpr *) expr)->args);
	declared.type = text_to_cstring(PG_GETARG_TEXT_PP(2));
	declared.collation = text_to_cstring(PG_GETARG_TEXT_PP(3));
	declared.encoding = text_to_cstring(PG_GETARG_TEXT_PP(4));
	return typed_probe_agrees(exprType(value), exprTypmod(value), PG_GET_COLLATION(), &declared);
}

static TypedProbeCache *
typed_probe_cache_create(FunctionCallInfo fcinfo)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;
	TypedProbeCache *cache = MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(TypedProbeCache));

	/* bloom_contains sees the same call expression: its arguments 0 and 1 */
	cache->contains = *flinfo;
	cache->contains.fn_addr = bloom_contains;
	cache->contains.fn_nargs = 2;
	cache->contains.fn_extra = NULL;
	cache->call = MemoryContextAllocZero(flinfo->fn_mcxt, SizeForFunctionCallInfo(2));
	InitFunctionCallInfoData(*cache->call, &cache->contains, 2, PG_GET_COLLATION(), NULL, NULL);
	if (get_fn_expr_arg_stable(flinfo, 2) && get_fn_expr_arg_stable(flinfo, 3) &&
		get_fn_expr_arg_stable(flinfo, 4))
		cache->verdict = typed_call_agrees(fcinfo) ? 1 : -1;
	flinfo->fn_extra = cache;
	return cache;
}

/*
 * bloom_contains_typed(f, value, declared_type, declared_collation,
 * declared_encoding): bloom_contains(f, value) where value is what a
 * server that declares it so sees; true otherwise.
 */
Datum
bloom_contains_typed(PG_FUNCTION_ARGS)
{
	TypedProbeCache *cache = (TypedProbeCache *) fcinfo->flinfo->fn_extra;

	if (unlikely(cache == NULL))
		cache = typed_probe_cache_create(fcinfo);
	if (cache->verdict < 0 || (cache->verdict == 0 && !typed_call_agrees(fcinfo)))
		PG_RETURN_BOOL(true);
	/* bloom_contains is strict, and so are we: both arguments are not null */
	cache->call->args[0].value = PG_GETARG_DATUM(0);
	cache->call->args[1].value = PG_GETARG_DATUM(1);
	return bloom_contains(cache->call);
}

/* The range-table entry of a column, from the planner's query levels. */
static RangeTblEntry *
column_entry(PlannerInfo *root, Var *var)
{
	for (Index up = var->varlevelsup; root != NULL && up > 0; up--)
		root = root->parent_root;
	if (root == NULL || var->varattno <= 0 || var->varno < 1 ||
		var->varno > list_length(root->parse->rtable))
		return NULL;
	return rt_fetch(var->varno, root->parse->rtable);
}

/* bloom_contains(filter, value) in the schema of the typed probe, or NULL. */
static Node *
plain_probe(FuncExpr *typed)
{
	Node	   *filter = linitial(typed->args);
	Oid			args[2] = {exprType(filter), ANYELEMENTOID};
	char	   *schema = get_namespace_name(get_func_namespace(typed->funcid));
	Oid			fn;

	if (schema == NULL)
		return NULL;
	fn = bf_function_in_schema(schema, "bloom_contains", 2, args);
	if (!OidIsValid(fn))
		return NULL;
	return (Node *) makeFuncExpr(fn, BOOLOID, list_make2(filter, lsecond(typed->args)),
								 InvalidOid, typed->inputcollid, COERCE_EXPLICIT_CALL);
}

/*
 * The probe as a foreign table passes it on to its own server: declaring
 * the values this server sees (its column's type, its encoding), or NULL
 * if that is what it declares already.
 */
static Node *
forwarded_probe(FuncExpr *typed, Var *value, const DeclaredValue *declared)
{
	char	   *own_type = column_type_spec(value);
	FuncExpr   *copy;

	if (strcmp(declared->type, own_type) == 0 &&
		strcmp(declared->encoding, GetDatabaseEncodingName()) == 0)
		return NULL;
	/* the collation agreed: it is kept as declared */
	copy = copyObject(typed);
	lfirst(list_nth_cell(copy->args, 2)) = text_const(own_type);
	lfirst(list_nth_cell(copy->args, 4)) = text_const(GetDatabaseEncodingName());
	return (Node *) copy;
}

/* SupportRequestSimplify: the decision taken once, where the probe is planned. */
static Node *
simplify_typed_probe(SupportRequestSimplify *req)
{
	FuncExpr   *fe = req->fcall;
	Node	   *value;
	DeclaredValue declared;
	RangeTblEntry *rte;

	if (list_length(fe->args) != TYPED_PROBE_NARGS || !IsA(lsecond(fe->args), Var))
		return NULL;
	for (int i = 2; i < TYPED_PROBE_NARGS; i++)
	{
		Const	   *arg = list_nth(fe->args, i);

		if (!IsA(arg, Const) || arg->constisnull)
			return NULL;
	}
	value = lsecond(fe->args);
	rte = column_entry(req->root, (Var *) value);
	if (rte == NULL || rte->rtekind != RTE_RELATION)
		return NULL;
	declared.type = TextDatumGetCString(((Const *) lthird(fe->args))->constvalue);
	declared.collation = TextDatumGetCString(((Const *) lfourth(fe->args))->constvalue);
	declared.encoding = TextDatumGetCString(((Const *) list_nth(fe->args, 4))->constvalue);
	if (!typed_probe_agrees(exprType(value), exprTypmod(value), fe->inputcollid, &declared))
		return (Node *) makeBoolConst(true, false);
	switch (rte->relkind)
	{
		case RELKIND_FOREIGN_TABLE:
			return forwarded_probe(fe, (Var *) value, &declared);
		case RELKIND_RELATION:
		case RELKIND_MATVIEW:
			/* a parent's children are simplified each on its own (some may be foreign) */
			if (rte->inh && has_subclass(rte->relid))
				return NULL;
			return plain_probe(fe);
		default:
			return NULL;
	}
}

/* SupportRequestSelectivity: bloom_contains' estimate of the first two arguments. */
static Node *
typed_probe_selectivity(SupportRequestSelectivity *req)
{
	SupportRequestSelectivity plain = *req;
	Node	   *answer;

	if (list_length(req->args) != TYPED_PROBE_NARGS)
		return NULL;
	plain.args = list_make2(linitial(req->args), lsecond(req->args));
	answer = (Node *) DatumGetPointer(DirectFunctionCall1(bloom_contains_support,
														  PointerGetDatum(&plain)));
	if (answer == NULL)
		return NULL;
	req->selectivity = plain.selectivity;
	return (Node *) req;
}

Datum
bloom_contains_typed_support(PG_FUNCTION_ARGS)
{
	Node	   *req = (Node *) PG_GETARG_POINTER(0);

	if (IsA(req, SupportRequestSimplify))
		PG_RETURN_POINTER(simplify_typed_probe((SupportRequestSimplify *) req));
	if (IsA(req, SupportRequestSelectivity))
		PG_RETURN_POINTER(typed_probe_selectivity((SupportRequestSelectivity *) req));
	PG_RETURN_POINTER(NULL);
}

/* ---------------------------------------------------------------------
 * Logging the decisions
 * --------------------------------------------------------------------- */

static int
log_level(void)
{
	return semijoin_log == SEMIJOIN_LOG_LOG ? LOG : NOTICE;
}

static char *
column_name(Oid relid, AttrNumber attno)
{
	char	   *rel = get_rel_name(relid);
	char	   *att = get_attname(relid, attno, true);

	return psprintf("%s.%s", rel ? rel : "?", att ? att : "?");
}

/* ---------------------------------------------------------------------
 * The probe side: a foreign table postgres_fdw can ship the probe to
 * --------------------------------------------------------------------- */

/* True if the server is postgres_fdw's and its "extensions" list ours. */
static bool
server_ships_bloomfilter(Oid serverid)
{
	ForeignServer *server = GetForeignServer(serverid);
	ForeignDataWrapper *fdw = GetForeignDataWrapper(server->fdwid);
	char	   *handler;
	ListCell   *lc;

	if (!OidIsValid(fdw->fdwhandler))
		return false;
	handler = get_func_name(fdw->fdwhandler);
	if (handler == NULL || strcmp(handler, "postgres_fdw_handler") != 0)
		return false;
	foreach(lc, server->options)
	{
		DefElem    *def = lfirst(lc);
		List	   *names;
		ListCell   *n;

		if (strcmp(def->defname, "extensions") != 0)
			continue;
		if (!SplitIdentifierString(pstrdup(defGetString(def)), ',', &names))
			return false;
		foreach(n, names)
		{
			if (strcmp((char *) lfirst(n), EXTENSION_NAME) == 0)
				return true;
		}
	}
	return false;
}

/*
 * The relations one scan of rte reads: itself, or with inheritance
 * (partitions) every member.
 */
static List *
scanned_relations(RangeTblEntry *rte)
{
	if (rte->inh && has_subclass(rte->relid))
		return find_all_inheritors(rte->relid, NoLock, NULL);
	return list_make1_oid(rte->relid);
}

/*
 * How many foreign scans receive the filter if rte is the probe side: 1 for
 * a foreign table, one per partition for a partitioned table whose leaves
 * are all foreign tables of shipping servers; 0 (with *why) if the probe
 * cannot be shipped.  *servers: the servers scanned.
 */
static int
probe_scans(RangeTblEntry *rte, List **servers, const char **why)
{
	List	   *rels;
	ListCell   *lc;
	int			scans = 0;

	*servers = NIL;
	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL ||
		(rte->relkind != RELKIND_FOREIGN_TABLE && rte->relkind != RELKIND_PARTITIONED_TABLE))
	{
		*why = "not a foreign table";
		return 0;
	}
	rels = scanned_relations(rte);
	foreach(lc, rels)
	{
		Oid			relid = lfirst_oid(lc);
		char		relkind = get_rel_relkind(relid);
		Oid			serverid;

		if (relkind == RELKIND_PARTITIONED_TABLE)
			continue;
		if (relkind != RELKIND_FOREIGN_TABLE)
		{
			*why = "a partition is not a foreign table";
			return 0;
		}
		serverid = GetForeignTable(relid)->serverid;
		if (!server_ships_bloomfilter(serverid))
		{
			*why = "its server is not postgres_fdw with bloomfilter in its extensions option";
			return 0;
		}
		*servers = list_append_unique_oid(*servers, serverid);
		scans++;
	}
	if (scans == 0)
		*why = "no partition";
	return scans;
}

/* ---------------------------------------------------------------------
 * The scopes of a jointree
 *
 * A scope is a set of base relations inner-joined together, with the
 * conjuncts every row it produces satisfies.  The preserved side of an
 * outer join belongs to the scope around it; the nullable side starts a
 * scope of its own, linked to the preserved one through the join's ON
 * clause.  A filter on a member is added at the scope's slot, a qual list
 * evaluated at or below the member's scan (the WHERE clause, or the ON
 * clause of the outer join whose nullable side the scope is).
 * --------------------------------------------------------------------- */

typedef struct Scope
{
	Relids		members;
	List	   *conjuncts;
	Node	  **slot;			/* NULL: no filter may be added here */
} Scope;

/* Join clauses between a probe scope and the scope that may build for it. */
typedef struct Link
{
	Scope	   *probe;
	Scope	   *build;
	Node	   *clauses;		/* NULL: the probe scope's own conjuncts */
	Node	  **slot;
} Link;

static Scope *
new_scope(Node **slot)
{
	Scope	   *scope = palloc0(sizeof(Scope));

	scope->slot = slot;
	return scope;
}

static void
add_link(List **links, Scope *probe, Scope *build, Node *clauses, Node **slot)
{
	Link	   *link = palloc0(sizeof(Link));

	link->probe = probe;
	link->build = build;
	link->clauses = clauses;
	link->slot = slot;
	*links = lappend(*links, link);
}

static void walk_jointree(Node *node, Scope *scope, List **links);

/* The nullable side of outer join j: its own scope, filtered in j's ON. */
static void
walk_nullable(JoinExpr *j, Node *side, Scope *preserved, List **links)
{
	Scope	   *nullable = new_scope(&j->quals);

	walk_jointree(side, nullable, links);
	add_link(links, nullable, nullable, NULL, &j->quals);
	if (preserved != NULL)
		add_link(links, nullable, preserved, j->quals, &j->quals);
}

/* A side of a full join: filtered only inside, if it is an inner join. */
static void
walk_full_side(Node *side, List **links)
{
	Node	  **slot = NULL;
	Scope	   *scope;

	if (IsA(side, JoinExpr) && ((JoinExpr *) side)->jointype == JOIN_INNER)
		slot = &((JoinExpr *) side)->quals;
	scope = new_scope(slot);
	walk_jointree(side, scope, links);
	add_link(links, scope, scope, NULL, slot);
}

static void
walk_jointree(Node *node, Scope *scope, List **links)
{
	if (node == NULL)
		return;
	if (IsA(node, RangeTblRef))
		scope->members = bms_add_member(scope->members, ((RangeTblRef *) node)->rtindex);
	else if (IsA(node, FromExpr))
	{
		FromExpr   *f = (FromExpr *) node;
		ListCell   *lc;

		foreach(lc, f->fromlist)
			walk_jointree(lfirst(lc), scope, links);
		scope->conjuncts = list_concat(scope->conjuncts,
									   make_ands_implicit((Expr *) f->quals));
	}
	else if (IsA(node, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) node;

		switch (j->jointype)
		{
			case JOIN_INNER:
				walk_jointree(j->larg, scope, links);
				walk_jointree(j->rarg, scope, links);
				scope->conjuncts = list_concat(scope->conjuncts,
											   make_ands_implicit((Expr *) j->quals));
				break;
			case JOIN_LEFT:
				walk_jointree(j->larg, scope, links);
				walk_nullable(j, j->rarg, scope, links);
				break;
			case JOIN_RIGHT:
				walk_jointree(j->rarg, scope, links);
				walk_nullable(j, j->larg, scope, links);
				break;
			default:
				/* full join: no side is nullable only */
				walk_full_side(j->larg, links);
				walk_full_side(j->rarg, links);
				break;
		}
	}
}

/* ---------------------------------------------------------------------
 * Candidates: an equijoin clause between a probe member and a build member
 * --------------------------------------------------------------------- */

typedef struct Candidate
{
	Query	   *query;			/* the query level rewritten */
	Node	  **slot;
	Index		probe_rti;
	Query	   *build_query;	/* whose range table holds the build relation */
	PlannerInfo *build_root;	/* estimates over build_query */
	Index		build_rti;
	Expr	   *probe_key;		/* as written in the clause */
	Var		   *probe_var;		/* its column: the probe's value */
	Var		   *build_var;
	Expr	   *build_key;
	Oid			collation;		/* the join operator's input collation */
	List	   *probe_quals;	/* the probe member's own conjuncts */
	List	   *build_quals;	/* the build member's own conjuncts, copyable */
	int			scans;			/* foreign scans receiving the filter */
	List	   *probe_relids;	/* relations the probe scans read */

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

/* The column of query level levelsup under binary-compatible relabeling. */
static Var *
key_var_of_level(Node *node, Index levelsup)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node && IsA(node, Var) && ((Var *) node)->varlevelsup == levelsup &&
		((Var *) node)->varattno > 0)
		return (Var *) node;
	return NULL;
}

/* A key column of the query level itself, or NULL. */
static Var *
key_var(Node *node)
{
	return key_var_of_level(node, 0);
}

/*
 * True if a filter of values of type build_type, probed with values of
 * type probe_type, agrees with opno: both types' default hash opclasses
 * (the ones bloom_agg and bloom_contains hash with) are of one family, and
 * opno is that family's equality.  Equal values then hash alike (int4 and
 * int8 do; int4 and numeric do not).
 */
static bool
keys_hash_alike(Oid opno, Oid build_type, Oid probe_type)
{
	Oid			build_opc = GetDefaultOpClass(build_type, HASH_AM_OID);
	Oid			probe_opc = GetDefaultOpClass(probe_type, HASH_AM_OID);
	Oid			family;

	if (!OidIsValid(build_opc) || !OidIsValid(probe_opc))
		return false;
	family = get_opclass_family(build_opc);
	if (family != get_opclass_family(probe_opc))
		return false;
	return get_op_opfamily_strategy(opno, family) == HTEqualStrategyNumber;
}

static bool
refers_to_outer_query(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
		return ((Var *) node)->varlevelsup > 0;
	return expression_tree_walker(node, refers_to_outer_query, context);
}

/*
 * The conjuncts that restrict relation rti alone and can be copied into the
 * filter's sub-select.  Others are left out: the filter then holds a
 * superset of the keys, which is still correct.  *volatile_qual: a
 * conjunct of rti is volatile (the caller declines: copying it would
 * evaluate it a second time, with another outcome).
 */
static List *
own_conjuncts(PlannerInfo *root, List *conjuncts, Index rti, bool *volatile_qual)
{
	List	   *own = NIL;
	ListCell   *lc;

	foreach(lc, conjuncts)
	{
		Node	   *qual = lfirst(lc);
		Relids		varnos;

		if (checkExprHasSubLink(qual) || refers_to_outer_query(qual, NULL))
			continue;
		varnos = pull_varnos(root, qual);
		if (!bms_is_member(rti, varnos))
			continue;
		if (contain_volatile_functions(qual))
			*volatile_qual = true;
		if (bms_membership(varnos) == BMS_SINGLETON)
			own = lappend(own, qual);
	}
	return own;
}

/* Why rte cannot be a build side on the probe's servers, or NULL. */
static const char *
build_side_problem(RangeTblEntry *rte, List *probe_servers)
{
	if (rte->rtekind != RTE_RELATION)
		return "the other side is not a table";
	if (rte->tablesample != NULL)
		return "the other side is sampled";
	if (rte->relkind == RELKIND_FOREIGN_TABLE &&
		list_member_oid(probe_servers, GetForeignTable(rte->relid)->serverid))
		return "both sides are on the same server (postgres_fdw may push the whole join)";
	return NULL;
}

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

/* One analysis of the statement: every candidate of every query level. */
typedef struct Analysis
{
	const BloomObjects *objects;
	ParamListInfo boundParams;
	List	   *unshipped;		/* UnshippedColumn: declined */
	List	   *candidates;		/* all, in the order found, for the log */
	List	   *chosen;			/* those to add */
} Analysis;

typedef struct QueryContext
{
	Query	   *query;
	PlannerInfo *root;			/* for estimates: see estimator_root */
	Analysis   *analysis;
	List	   *candidates;		/* of this query level */
	List	   *sub_roots;		/* estimator roots of sub-selects */
} QueryContext;

static PlannerInfo *estimator_root(Query *q, ParamListInfo boundParams);

/* Where the rows of a build side come from. */
typedef struct BuildSide
{
	Query	   *query;			/* whose range table holds the build relation */
	PlannerInfo *root;			/* estimates over that query */
	List	   *conjuncts;		/* conditions every build row satisfies */
	Var		   *var;			/* the build key's column */
	Expr	   *key;			/* the build key as written */
} BuildSide;

/*
 * True if the column (var of rte, scanning relids) is among columns, a list
 * of UnshippedColumn.
 */
static bool
column_among(List *columns, List *relids, Var *var, RangeTblEntry *rte)
{
	char	   *attname = get_attname(rte->relid, var->varattno, true);
	ListCell   *lc;

	foreach(lc, columns)
	{
		UnshippedColumn *u = lfirst(lc);

		if (attname != NULL && strcmp(u->attname, attname) == 0 &&
			list_member_oid(relids, u->relid))
			return true;
	}
	return false;
}

/* Why the probe of probe_var cannot be added at all, or NULL. */
static const char *
probe_problem(QueryContext *cx, OpExpr *op, Var *probe_var, Expr *probe_key,
			  BuildSide *build, int *scans)
{
	RangeTblEntry *probe_rte = rt_fetch(probe_var->varno, cx->query->rtable);
	RangeTblEntry *build_rte = rt_fetch(build->var->varno, build->query->rtable);
	List	   *servers;
	const char *why = NULL;

	*scans = probe_scans(probe_rte, &servers, &why);
	if (*scans == 0)
		return why;
	why = build_side_problem(build_rte, servers);
	if (why != NULL)
		return why;

	/*
	 * The remote side probes the column itself (probe_var, not a cast of
	 * it), so its type must hash like the build key's.
	 */
	if (!keys_hash_alike(op->opno, exprType((Node *) build->key), probe_var->vartype))
		return "the key types do not hash alike under the join operator";
	if (OidIsValid(op->inputcollid) &&
		(exprCollation((Node *) probe_key) != op->inputcollid ||
		 probe_var->varcollid != op->inputcollid))
		return "the join compares under another collation than the remote column's";
	if ((why = type_cannot_cross(probe_var->vartype)) != NULL)
		return why;
	if (column_among(cx->analysis->unshipped, scanned_relations(probe_rte), probe_var, probe_rte))
		return "postgres_fdw does not ship a probe of this column (its type, collation "
			"or server rules keep it local): the filter would cost without saving";
	return NULL;
}

/*
 * A candidate for  probe_key = build->key  under operator op, with the
 * probe a member of link->probe; declined candidates are kept with the
 * reason, for the log.
 */
static void
match_clause(QueryContext *cx, Link *link, OpExpr *op, Var *probe_var, Expr *probe_key,
			 BuildSide *build)
{
	RangeTblEntry *probe_rte = rt_fetch(probe_var->varno, cx->query->rtable);
	Candidate  *c;
	bool		volatile_qual = false;

	if (probe_rte->rtekind != RTE_RELATION ||
		(probe_rte->relkind != RELKIND_FOREIGN_TABLE &&
		 probe_rte->relkind != RELKIND_PARTITIONED_TABLE))
		return;

	c = palloc0(sizeof(Candidate));
	c->query = cx->query;
	c->slot = link->slot;
	c->probe_rti = probe_var->varno;
	c->build_query = build->query;
	c->build_root = build->root;
	c->build_rti = build->var->varno;
	c->probe_key = probe_key;
	c->probe_var = probe_var;
	c->build_var = build->var;
	c->build_key = build->key;
	c->collation = op->inputcollid;
	c->probe_column = column_name(probe_rte->relid, probe_var->varattno);
	c->build_column = column_name(rt_fetch(build->var->varno, build->query->rtable)->relid,
								  build->var->varattno);
	c->why = probe_problem(cx, op, probe_var, probe_key, build, &c->scans);
	if (c->why == NULL)
	{
		c->probe_quals = own_conjuncts(cx->root, link->probe->conjuncts, c->probe_rti,
									   &volatile_qual);
		if (link->clauses != NULL)
			c->probe_quals = list_concat(c->probe_quals,
										 own_conjuncts(cx->root, make_ands_implicit((Expr *) link->clauses),
													   c->probe_rti, &volatile_qual));
		volatile_qual = false;
		c->build_quals = own_conjuncts(build->root, build->conjuncts, c->build_rti,
									   &volatile_qual);
		if (volatile_qual)
			c->why = "a condition on the other side is volatile";
	}
	c->probe_relids = scanned_relations(probe_rte);
	cx->analysis->candidates = lappend(cx->analysis->candidates, c);
	if (c->why == NULL)
		cx->candidates = lappend(cx->candidates, c);
}

/* A join clause  a.k = b.k  of the link, tried both ways round. */
static void
match_join_clause(QueryContext *cx, Link *link, OpExpr *op)
{
	Expr	   *lexpr = linitial(op->args);
	Expr	   *rexpr = lsecond(op->args);
	Var		   *left = key_var((Node *) lexpr);
	Var		   *right = key_var((Node *) rexpr);
	BuildSide	build = {cx->query, cx->root, link->build->conjuncts, NULL, NULL};

	if (left == NULL || right == NULL || left->varno == right->varno)
		return;
	if (bms_is_member(left->varno, link->probe->members) &&
		bms_is_member(right->varno, link->build->members))
	{
		build.var = right;
		build.key = rexpr;
		match_clause(cx, link, op, left, lexpr, &build);
	}
	if (bms_is_member(right->varno, link->probe->members) &&
		bms_is_member(left->varno, link->build->members))
	{
		build.var = left;
		build.key = lexpr;
		match_clause(cx, link, op, right, rexpr, &build);
	}
}

/*
 * True if a sub-select reads one relation with a plain WHERE: its rows
 * are that relation's rows that pass the WHERE.
 */
static bool
simple_subselect(Query *sub)
{
	return sub->commandType == CMD_SELECT && list_length(sub->rtable) == 1 &&
		sub->jointree != NULL && list_length(sub->jointree->fromlist) == 1 &&
		IsA(linitial(sub->jointree->fromlist), RangeTblRef) &&
		sub->groupClause == NIL && sub->groupingSets == NIL && sub->havingQual == NULL &&
		!sub->hasAggs && !sub->hasWindowFuncs && !sub->hasTargetSRFs &&
		sub->setOperations == NULL && sub->limitCount == NULL && sub->limitOffset == NULL &&
		sub->cteList == NIL && sub->rowMarks == NIL;
}

/*
 * A semi join written as a sub-select, a conjunct of the probe's scope:
 *   probe.k IN (SELECT b.k FROM b WHERE ...)
 *   EXISTS (SELECT ... FROM b WHERE b.k = probe.k AND ...)
 * Rows of the probe without a match fail the conjunct, as in a join.
 */
static void
match_sublink(QueryContext *cx, Link *link, SubLink *sublink)
{
	Query	   *sub = (Query *) sublink->subselect;
	BuildSide	build = {sub, NULL, NIL, NULL, NULL};
	ListCell   *lc;

	if (!simple_subselect(sub))
		return;
	build.conjuncts = make_ands_implicit((Expr *) sub->jointree->quals);
	if (sublink->subLinkType == ANY_SUBLINK)
	{
		OpExpr	   *op = (OpExpr *) sublink->testexpr;
		TargetEntry *te = linitial(sub->targetList);
		Expr	   *probe_key;
		Var		   *probe_var;

		if (op == NULL || !IsA(op, OpExpr) || list_length(op->args) != 2 ||
			list_length(sub->targetList) != 1 || !IsA(lsecond(op->args), Param))
			return;
		probe_key = linitial(op->args);
		probe_var = key_var((Node *) probe_key);
		build.key = te->expr;
		build.var = key_var((Node *) te->expr);
		if (probe_var == NULL || build.var == NULL ||
			!bms_is_member(probe_var->varno, link->probe->members))
			return;
		build.root = estimator_root(sub, cx->root->glob->boundParams);
		cx->sub_roots = lappend(cx->sub_roots, build.root);
		match_clause(cx, link, op, probe_var, probe_key, &build);
		return;
	}
	if (sublink->subLinkType != EXISTS_SUBLINK)
		return;
	foreach(lc, build.conjuncts)
	{
		OpExpr	   *op = lfirst(lc);
		int			side;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			continue;
		for (side = 0; side < 2; side++)
		{
			Expr	   *outer = list_nth(op->args, side);
			Expr	   *inner = list_nth(op->args, 1 - side);
			Var		   *outer_var = key_var_of_level((Node *) outer, 1);
			Expr	   *probe_key;
			Var		   *probe_var;

			build.var = key_var((Node *) inner);
			if (outer_var == NULL || build.var == NULL ||
				!bms_is_member(outer_var->varno, link->probe->members))
				continue;
			/* the probe key as seen from the probe's own level */
			probe_key = copyObject(outer);
			IncrementVarSublevelsUp((Node *) probe_key, -1, 0);
			probe_var = key_var((Node *) probe_key);
			build.key = inner;
			if (build.root == NULL)
			{
				build.root = estimator_root(sub, cx->root->glob->boundParams);
				cx->sub_roots = lappend(cx->sub_roots, build.root);
			}
			match_clause(cx, link, op, probe_var, probe_key, &build);
		}
	}
}

static void
match_link(QueryContext *cx, Link *link)
{
	List	   *clauses;
	ListCell   *lc;

	if (link->slot == NULL)
		return;
	clauses = link->clauses ? make_ands_implicit((Expr *) link->clauses) : link->probe->conjuncts;
	foreach(lc, clauses)
	{
		Node	   *clause = lfirst(lc);

		if (IsA(clause, OpExpr) && list_length(((OpExpr *) clause)->args) == 2)
			match_join_clause(cx, link, (OpExpr *) clause);
		else if (IsA(clause, SubLink) && link->clauses == NULL)
			match_sublink(cx, link, (SubLink *) clause);
	}
}

/* ---------------------------------------------------------------------
 * The estimates (doc/semijoin.md, "The rule")
 * --------------------------------------------------------------------- */

/*
 * A PlannerInfo over the query's range table, enough for the selectivity
 * and distinct-value estimates of single relations, built before planning.
 */
static PlannerInfo *
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

static void
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
filter_bytes_for(double capacity, double fpp)
{
	return ceil(-capacity * log(fpp) / (M_LN2 * M_LN2) / 8.0);
}

/*
 * The fpp that minimizes the bytes sent: the filter's text on every scan,
 * plus the false positives among the rows it should stop.
 */
static double
choose_fpp(const Candidate *c, double contained)
{
	double		stoppable = c->probe_rows * (1.0 - contained) * c->row_bytes;
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

/* Fills the estimates of c; returns why it does not pay, or NULL. */
static const char *
estimate_candidate(QueryContext *cx, Candidate *c)
{
	PlannerInfo *root = cx->root;
	RangeTblEntry *probe_rte = rt_fetch(c->probe_rti, cx->query->rtable);
	double		probe_total = relation_rows(root, c->probe_rti);
	double		build_total = relation_rows(c->build_root, c->build_rti);
	double		contained;
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
	c->probe_keys = selected_distinct(root, c->probe_key, probe_total, c->probe_rows, &known);
	if (!known)
		return "the foreign key column has no statistics (ANALYZE the foreign table)";
	c->build_keys = selected_distinct(c->build_root, c->build_key, build_total, c->build_rows, &known);
	if (!known)
		c->build_keys = c->build_rows;
	c->row_bytes = shipped_row_bytes(cx->query, c->probe_rti, probe_rte->relid);
	c->capacity = Max(CAPACITY_MIN, ceil(c->build_keys * CAPACITY_MARGIN));

	/* containment: the build keys are among the probe keys */
	contained = Min(1.0, c->build_keys / c->probe_keys);
	c->fpp = choose_fpp(c, contained);
	c->pass_rate = contained + c->fpp * (1.0 - contained);
	c->filter_bytes = c->scans * TEXT_FACTOR * filter_bytes_for(c->capacity, c->fpp);
	c->rows_saved = c->probe_rows * (1.0 - c->pass_rate);
	c->bytes_saved = c->rows_saved * c->row_bytes;

	if (c->pass_rate > semijoin_max_pass_rate)
		return "the filter would pass too many rows (bloomfilter.semijoin_max_pass_rate)";
	if (c->rows_saved < semijoin_min_rows_saved)
		return "too few rows saved (bloomfilter.semijoin_min_rows_saved)";
	if (c->filter_bytes > semijoin_max_filter_kb * 1024.0)
		return "the filter would be too big (bloomfilter.semijoin_max_filter_size)";
	if (c->bytes_saved < SAVE_FACTOR * c->filter_bytes)
		return "the filter costs more bytes than it saves";
	if (c->build_rows > c->rows_saved)
		return "the build side has more rows than the filter saves";
	return NULL;
}

/*
 * Reports the decision on c: "added" only for a filter the final plan
 * holds, "no" with the reason for every other (semijoin_planner logs the
 * candidates of the last analysis once the plan is known).
 */
static void
log_candidate(const Candidate *c)
{
	if (!c->estimated)
	{
		ereport(log_level(),
				(errmsg("bloomfilter: no semijoin prefilter on %s from %s: %s",
						c->probe_column, c->build_column, c->why)));
		return;
	}
	ereport(log_level(),
			(errmsg("bloomfilter: %s semijoin prefilter on %s from %s%s%s",
					c->why ? "no" : "added", c->probe_column, c->build_column,
					c->why ? ": " : "", c->why ? c->why : ""),
			 errdetail("probe rows %.0f, keys %.0f, row bytes %.0f; build rows %.0f, keys %.0f; "
					   "fpp %.4g, capacity %.0f, pass rate %.3f; filter %.0f bytes in %d scan(s); "
					   "saves %.0f rows, %.0f bytes",
					   c->probe_rows, c->probe_keys, c->row_bytes, c->build_rows, c->build_keys,
					   c->fpp, c->capacity, c->pass_rate, c->filter_bytes, c->scans,
					   c->rows_saved, c->bytes_saved)));
}

static void
log_candidates(List *candidates)
{
	ListCell   *lc;

	if (semijoin_log == SEMIJOIN_LOG_OFF)
		return;
	foreach(lc, candidates)
		log_candidate(lfirst(lc));
}

/* ---------------------------------------------------------------------
 * The filter expression
 * --------------------------------------------------------------------- */

static TargetEntry *
agg_argument(Expr *expr, int resno)
{
	return makeTargetEntry(expr, resno, NULL, false);
}

/* SELECT bloom_agg(key, capacity, fpp) FROM build WHERE <its quals> */
static Query *
filter_subselect(const Candidate *c, const BloomObjects *objects)
{
	Query	   *parent = c->build_query;
	Query	   *sub = makeNode(Query);
	RangeTblEntry *rte = copyObject(rt_fetch(c->build_rti, parent->rtable));
	Expr	   *key = copyObject(c->build_key);
	Node	   *quals = (Node *) copyObject(c->build_quals);
	Index		rti = c->build_rti;
	Aggref	   *agg = makeNode(Aggref);

	/*
	 * The build relation becomes the sub-select's only entry.  Its Vars are
	 * never nulled there: the scope walk took them from where the relation
	 * is not on the nullable side of an outer join.
	 */
	ChangeVarNodes((Node *) key, rti, 1, 0);
	ChangeVarNodes(quals, rti, 1, 0);
	ChangeVarNodes((Node *) rte->securityQuals, rti, 1, 0);

	sub->commandType = CMD_SELECT;
	sub->querySource = QSRC_ORIGINAL;
	sub->canSetTag = true;
	sub->hasAggs = true;
	sub->hasRowSecurity = parent->hasRowSecurity;
	/* the entry keeps its security quals (row-level security) */
	rte->inFromCl = true;
	bf_copy_permission(parent, rte, sub);
	sub->rtable = list_make1(rte);
	sub->jointree = makeFromExpr(list_make1(makeNode(RangeTblRef)),
								 quals ? (Node *) make_ands_explicit((List *) quals) : NULL);
	((RangeTblRef *) linitial(sub->jointree->fromlist))->rtindex = 1;

	agg->aggfnoid = objects->agg_fn;
	agg->aggtype = objects->bloom_type;
	agg->inputcollid = c->collation;
	agg->aggargtypes = list_make3_oid(exprType((Node *) key), INT8OID, FLOAT8OID);
	agg->args = list_make3(agg_argument(key, 1),
						   agg_argument((Expr *) makeConst(INT8OID, -1, InvalidOid, 8,
														   Int64GetDatum((int64) c->capacity),
														   false, FLOAT8PASSBYVAL), 2),
						   agg_argument((Expr *) makeConst(FLOAT8OID, -1, InvalidOid, 8,
														   Float8GetDatum(c->fpp),
														   false, FLOAT8PASSBYVAL), 3));
	agg->aggkind = AGGKIND_NORMAL;
	agg->aggsplit = AGGSPLIT_SIMPLE;
	agg->aggno = -1;
	agg->aggtransno = -1;
	agg->location = -1;
	sub->targetList = list_make1(makeTargetEntry((Expr *) agg, 1, pstrdup("bloom_agg"), false));
	return sub;
}

/*
 * bloom_contains_typed((SELECT bloom_agg(...) ...), probe column,
 * '<its declared type>', '<the filter's collation>', '<our encoding>') at
 * the slot: the remote side probes only if its column is what the foreign
 * table declares (typed_probe_agrees), and passes every row otherwise.
 */
static void
add_filter(const Candidate *c, const BloomObjects *objects)
{
	SubLink    *sublink = makeNode(SubLink);
	Var		   *value = copyObject(c->probe_var);
	FuncExpr   *probe;

	sublink->subLinkType = EXPR_SUBLINK;
	sublink->subselect = (Node *) filter_subselect(c, objects);
	sublink->location = -1;
	value->location = -1;
	probe = makeFuncExpr(objects->probe_fn, BOOLOID,
						 typed_probe_args((Node *) sublink, value, c->collation),
						 InvalidOid, c->collation, COERCE_EXPLICIT_CALL);
	*c->slot = (Node *) make_and_qual(*c->slot, (Node *) probe);
	c->query->hasSubLinks = true;
}

/* ---------------------------------------------------------------------
 * The rewrite of one query level, then of its subqueries
 * --------------------------------------------------------------------- */

/* True if the range table may hold a probe side (no catalog access). */
static bool
may_have_probe(Query *q)
{
	ListCell   *lc;

	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_RELATION &&
			(rte->relkind == RELKIND_FOREIGN_TABLE || rte->relkind == RELKIND_PARTITIONED_TABLE))
			return true;
		if (rte->rtekind == RTE_SUBQUERY && may_have_probe(rte->subquery))
			return true;
	}
	foreach(lc, q->cteList)
	{
		CommonTableExpr *cte = lfirst(lc);

		if (IsA(cte->ctequery, Query) && may_have_probe((Query *) cte->ctequery))
			return true;
	}
	return false;
}

/* Why a candidate lost to the one chosen for its relation and slot. */
static const char *
replaced_reason(const Candidate *winner)
{
	return psprintf("the filter from %s is preferred for this table: it saves the most bytes",
					winner->build_column);
}

/*
 * The best candidate of each (probe relation, slot): the one that saves
 * the most bytes.  The others get their reason.
 */
static List *
choose_candidates(QueryContext *cx)
{
	List	   *chosen = NIL;
	ListCell   *lc;

	foreach(lc, cx->candidates)
	{
		Candidate  *c = lfirst(lc);
		ListCell   *other;
		bool		placed = false;

		c->why = estimate_candidate(cx, c);
		c->estimated = true;
		if (c->why != NULL)
			continue;
		foreach(other, chosen)
		{
			Candidate  *o = lfirst(other);

			if (o->probe_rti == c->probe_rti && o->slot == c->slot)
			{
				if (c->bytes_saved > o->bytes_saved)
					lfirst(other) = c;
				placed = true;
			}
		}
		if (!placed)
			chosen = lappend(chosen, c);
	}
	foreach(lc, cx->candidates)
	{
		Candidate  *c = lfirst(lc);
		ListCell   *other;

		if (c->why != NULL || list_member_ptr(chosen, c))
			continue;
		foreach(other, chosen)
		{
			Candidate  *o = lfirst(other);

			if (o->probe_rti == c->probe_rti && o->slot == c->slot)
				c->why = replaced_reason(o);
		}
	}
	return chosen;
}

static void analyze_query(Query *q, Analysis *a);

/* The candidates of q's own level; the chosen ones join a->chosen. */
static void
analyze_level(Query *q, Analysis *a)
{
	QueryContext cx = {0};
	Scope	   *top = new_scope(&q->jointree->quals);
	List	   *links = NIL;
	ListCell   *lc;

	cx.query = q;
	cx.analysis = a;
	cx.root = estimator_root(q, a->boundParams);
	walk_jointree((Node *) q->jointree, top, &links);
	add_link(&links, top, top, NULL, top->slot);
	foreach(lc, links)
		match_link(&cx, lfirst(lc));
	a->chosen = list_concat(a->chosen, choose_candidates(&cx));
	estimator_done(cx.root);
	foreach(lc, cx.sub_roots)
		estimator_done(lfirst(lc));
}

/* The candidates of q and the queries below it. */
static void
analyze_query(Query *q, Analysis *a)
{
	ListCell   *lc;

	if (!may_have_probe(q))
		return;
	if (q->commandType == CMD_SELECT && q->jointree != NULL)
		analyze_level(q, a);
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_SUBQUERY)
			analyze_query(rte->subquery, a);
	}
	foreach(lc, q->cteList)
	{
		CommonTableExpr *cte = lfirst(lc);

		if (IsA(cte->ctequery, Query))
			analyze_query((Query *) cte->ctequery, a);
	}
}

/* ---------------------------------------------------------------------
 * After planning: a filtered foreign scan must not be rescanned with
 * changing parameters (of a nested loop, a correlated sub-select or a
 * lateral subquery), which would send the filter again on every rescan.
 * Parameters that InitPlans set (the filter's own) are computed once.
 * --------------------------------------------------------------------- */

typedef struct PlanScan
{
	Bitmapset  *initplan_params;
	List	   *foreign_scans;
} PlanScan;

static void
scan_plan(Plan *plan, PlanScan *ps)
{
	ListCell   *lc;
	List	   *children = NIL;

	if (plan == NULL)
		return;
	foreach(lc, plan->initPlan)
	{
		ListCell   *p;

		foreach(p, ((SubPlan *) lfirst(lc))->setParam)
			ps->initplan_params = bms_add_member(ps->initplan_params, lfirst_int(p));
	}
	if (IsA(plan, ForeignScan))
		ps->foreign_scans = lappend(ps->foreign_scans, plan);
	else if (IsA(plan, Append))
		children = ((Append *) plan)->appendplans;
	else if (IsA(plan, MergeAppend))
		children = ((MergeAppend *) plan)->mergeplans;
	else if (IsA(plan, SubqueryScan))
		scan_plan(((SubqueryScan *) plan)->subplan, ps);
	else if (IsA(plan, CustomScan))
		children = ((CustomScan *) plan)->custom_plans;
	foreach(lc, children)
		scan_plan(lfirst(lc), ps);
	scan_plan(plan->lefttree, ps);
	scan_plan(plan->righttree, ps);
}

/* True if the scan reads one of the relations (by OID). */
static bool
scan_reads(ForeignScan *fs, List *rtable, List *relids)
{
	int			rti = -1;

	while ((rti = bms_next_member(fs->fs_relids, rti)) >= 0)
	{
		RangeTblEntry *rte = rt_fetch(rti, rtable);

		if (rte->rtekind == RTE_RELATION && list_member_oid(relids, rte->relid))
			return true;
	}
	return false;
}

static bool
plan_rescans_filter(PlannedStmt *stmt, List *filtered_relids)
{
	PlanScan	ps = {0};
	ListCell   *lc;

	scan_plan(stmt->planTree, &ps);
	foreach(lc, stmt->subplans)
		scan_plan(lfirst(lc), &ps);
	foreach(lc, ps.foreign_scans)
	{
		ForeignScan *fs = lfirst(lc);
		Bitmapset  *params = pull_paramids((Expr *) fs->fdw_exprs);

		if (!bms_is_subset(params, ps.initplan_params) &&
			scan_reads(fs, stmt->rtable, filtered_relids))
			return true;
	}
	return false;
}

/*
 * After planning: the probes postgres_fdw did not ship.  A condition it
 * cannot send (a type, collation or function it does not ship) stays in
 * the foreign scan's own qual, evaluated locally on every row fetched: the
 * filter is then built and probed for nothing.  postgres_fdw's rules
 * (is_foreign_expr) are its own and change between majors, so the plan
 * itself is asked.
 */
typedef struct LocalProbes
{
	Oid			probe_fn;
	ForeignScan *scan;
	List	   *rtable;
	List	   *columns;		/* UnshippedColumn */
} LocalProbes;

/* Records the column a local probe tests. */
static void
note_local_probe(LocalProbes *lp, Node *value)
{
	Var		   *var;
	RangeTblEntry *rte;
	UnshippedColumn *column;

	if (!IsA(value, Var))
		return;
	var = (Var *) value;
	/* a scan of a pushed-down join refers to its own target list */
	if (var->varno == INDEX_VAR && var->varattno >= 1 &&
		var->varattno <= list_length(lp->scan->fdw_scan_tlist))
	{
		Node	   *expr = (Node *) ((TargetEntry *) list_nth(lp->scan->fdw_scan_tlist,
															 var->varattno - 1))->expr;

		if (!IsA(expr, Var))
			return;
		var = (Var *) expr;
	}
	if (IS_SPECIAL_VARNO(var->varno) || var->varno > list_length(lp->rtable) ||
		var->varattno <= 0)
		return;
	rte = rt_fetch(var->varno, lp->rtable);
	if (rte->rtekind != RTE_RELATION)
		return;
	column = palloc(sizeof(UnshippedColumn));
	column->relid = rte->relid;
	column->attname = get_attname(rte->relid, var->varattno, false);
	lp->columns = lappend(lp->columns, column);
}

static bool
find_local_probes(Node *node, LocalProbes *lp)
{
	if (node == NULL)
		return false;
	if (IsA(node, FuncExpr) && ((FuncExpr *) node)->funcid == lp->probe_fn &&
		list_length(((FuncExpr *) node)->args) == TYPED_PROBE_NARGS)
		note_local_probe(lp, lsecond(((FuncExpr *) node)->args));
	return expression_tree_walker(node, find_local_probes, lp);
}

/* The columns whose typed probe a foreign scan of stmt evaluates locally. */
static List *
local_probe_columns(PlannedStmt *stmt, Oid probe_fn)
{
	PlanScan	ps = {0};
	LocalProbes lp = {probe_fn, NULL, stmt->rtable, NIL};
	ListCell   *lc;

	scan_plan(stmt->planTree, &ps);
	foreach(lc, stmt->subplans)
		scan_plan(lfirst(lc), &ps);
	foreach(lc, ps.foreign_scans)
	{
		lp.scan = lfirst(lc);
		find_local_probes((Node *) lp.scan->scan.plan.qual, &lp);
	}
	return lp.columns;
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

		if (!column_among(local, c->probe_relids, c->probe_var, rte))
			continue;
		c->why = "postgres_fdw kept the probe local";
		any = true;
	}
	if (any)
		a->unshipped = list_concat(a->unshipped, local);
	return any;
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
				  ParamListInfo boundParams, const BloomObjects *objects)
{
	Analysis	a = {0};
	Query	   *pristine = NULL;
	Query	   *q = parse;
	PlannedStmt *stmt;

	a.objects = objects;
	a.boundParams = boundParams;
	for (;;)
	{
		List	   *filtered_relids = NIL;
		ListCell   *lc;

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
		foreach(lc, a.chosen)
		{
			Candidate  *c = lfirst(lc);

			add_filter(c, objects);
			filtered_relids = list_concat(filtered_relids, c->probe_relids);
		}
		stmt = plan_next(q, query_string, cursorOptions, boundParams);
		if (plan_rescans_filter(stmt, filtered_relids))
		{
			set_reason(a.chosen, "the plan rescans the foreign table with changing parameters");
			stmt = plan_next(pristine, query_string, cursorOptions, boundParams);
			break;
		}
		if (!decline_local_probes(&a, local_probe_columns(stmt, objects->probe_fn)))
			break;
		q = copyObject(pristine);
	}
	log_candidates(a.candidates);
	return stmt;
}

static PlannedStmt *
semijoin_planner(Query *parse, const char *query_string, int cursorOptions,
				 ParamListInfo boundParams)
{
	BloomObjects objects;

	if (!semijoin_prefilter || !may_have_probe(parse) || !lookup_objects(&objects) ||
		!bf_may_execute(objects.probe_fn) || !bf_may_execute(objects.agg_fn))
		return plan_next(parse, query_string, cursorOptions, boundParams);
	return plan_with_filters(parse, query_string, cursorOptions, boundParams, &objects);
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
							NULL, &semijoin_min_rows_saved, 10000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("bloomfilter.semijoin_max_pass_rate",
							 "Largest estimated share of foreign rows a semijoin prefilter may pass.",
							 NULL, &semijoin_max_pass_rate, 0.5, 0.0, 1.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("bloomfilter.semijoin_max_filter_size",
							"Largest semijoin prefilter sent to the remote servers, all scans together.",
							NULL, &semijoin_max_filter_kb, 16384, 1, MAX_FILTER_KB,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);

	prev_planner_hook = planner_hook;
	planner_hook = semijoin_planner;
}
