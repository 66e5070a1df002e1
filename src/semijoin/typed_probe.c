/*
 * typed_probe.c
 *	  The typed probe bloom_contains_typed(filter, value, declared_type,
 *	  declared_collation, declared_encoding), SQL-callable, and its planner
 *	  support function; and the helpers the semijoin rewrite uses to write
 *	  a call of it (typed_probe.h).
 *
 *	  The semijoin rewrite (semijoin_rewrite.c) writes the probe into a
 *	  query, and postgres_fdw ships it to the foreign table's server: the
 *	  function and its support run there, where the probe is planned and
 *	  evaluated, as well as here where it is kept local.
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
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "parser/parse_coerce.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg_compat.h"
#include "types/bloom.h"
#include "helpers/extension_objects.h"
#include "helpers/selectivity.h"
#include "semijoin/typed_probe.h"

PG_FUNCTION_INFO_V1(bloom_contains_typed);
PG_FUNCTION_INFO_V1(bloom_contains_typed_support);

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

/* typed_probe_agrees for a value of a composite key (tuple_probe.c). */
bool
typed_value_agrees(Oid type, int32 typmod, Oid collation, const char *declared_type,
				   const char *declared_collation, const char *declared_encoding)
{
	DeclaredValue declared = {declared_type, declared_collation, declared_encoding};

	return typed_probe_agrees(type, typmod, collation, &declared);
}

/* Why values of this type cannot be probed on another server at all, or NULL. */
const char *
type_cannot_cross(Oid type)
{
	if (!crosses_unchanged(getBaseType(type), true))
		return "values of the key's type do not cross to another server unchanged "
			"(an enum, reg* type, money or composite)";
	return NULL;
}

/* The declared type of a column: its type, or a domain's base type, with the typmod. */
char *
column_type_spec(Var *column)
{
	int32		typmod = column->vartypmod;
	Oid			base = getBaseTypeAndTypmod(column->vartype, &typmod);

	return type_spec(base, typmod);
}

/* The declared type of a value (a column or an expression), as column_type_spec. */
static char *
value_type_spec(Node *value)
{
	int32		typmod = exprTypmod(value);
	Oid			base = getBaseTypeAndTypmod(exprType(value), &typmod);

	return type_spec(base, typmod);
}

/* The probe's arguments for a value (a column, or an expression of one), hashed under collation. */
List *
typed_probe_args(Node *filter, Node *value, Oid collation)
{
	return list_make5(filter, value,
					  text_const(value_type_spec(value)),
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
RangeTblEntry *
column_entry(PlannerInfo *root, Var *var)
{
	for (Index up = var->varlevelsup; root != NULL && up > 0; up--)
		root = root->parent_root;
	if (root == NULL || var->varattno <= 0 || var->varno < 1 ||
		var->varno > list_length(root->parse->rtable))
		return NULL;
	return rt_fetch(var->varno, root->parse->rtable);
}

/* bloom_contains(filter, value), the extension's plain probe, or NULL. */
static Node *
plain_probe(FuncExpr *typed)
{
	Node	   *filter = linitial(typed->args);
	Oid			args[2] = {exprType(filter), ANYELEMENTOID};
	Oid			fn = extension_function("bloom_contains", 2, args);

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

/* The declared arguments of a probe, if they are constants (not null). */
static bool
declared_constants(FuncExpr *fe, DeclaredValue *declared)
{
	for (int i = 2; i < TYPED_PROBE_NARGS; i++)
	{
		Const	   *arg = list_nth(fe->args, i);

		if (!IsA(arg, Const) || arg->constisnull)
			return false;
	}
	declared->type = TextDatumGetCString(((Const *) lthird(fe->args))->constvalue);
	declared->collation = TextDatumGetCString(((Const *) lfourth(fe->args))->constvalue);
	declared->encoding = TextDatumGetCString(((Const *) list_nth(fe->args, 4))->constvalue);
	return true;
}

/* SupportRequestSimplify: the decision taken once, where the probe is planned. */
static Node *
simplify_typed_probe(SupportRequestSimplify *req)
{
	FuncExpr   *fe = req->fcall;
	Var		   *value;
	DeclaredValue declared;
	RangeTblEntry *rte;

	if (list_length(fe->args) != TYPED_PROBE_NARGS || !IsA(lsecond(fe->args), Var) ||
		!declared_constants(fe, &declared))
		return NULL;
	value = lsecond(fe->args);
	rte = column_entry(req->root, value);
	if (rte == NULL || rte->rtekind != RTE_RELATION)
		return NULL;
	if (!typed_probe_agrees(value->vartype, value->vartypmod, fe->inputcollid, &declared))
		return (Node *) makeBoolConst(true, false);
	switch (rte->relkind)
	{
		case RELKIND_FOREIGN_TABLE:
			return forwarded_probe(fe, value, &declared);
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

