/*
 * tuple_probe.c
 *	  The composite-key probe of the semijoin prefilter (doc/semijoin.md,
 *	  "Composite keys"): SQL-callable bloom_tuple_hash(VARIADIC "any") and
 *	  bloom_contains_tuple(filter, declared_types, declared_encoding,
 *	  VARIADIC "any") with its planner support; and the arguments the
 *	  rewrite writes (tuple_probe.h).
 *
 *	  A join on several columns gets one filter of the build side's key
 *	  tuples: bloom_agg over bloom_tuple_hash(k1, k2, ...), a 64-bit hash of
 *	  the tuple, so the filter is a plain bloom of one int8 per tuple.  The
 *	  hash is the multibloom verification filter's row hash (mbf_row_hash,
 *	  order-sensitive) over each value's hash by its type's default hash
 *	  opclass, with each position's seed, under the fixed hash scheme
 *	  TUPLE_HASH_SCHEME: both servers compute it alike whatever scheme
 *	  their newest filters use.  Integers of any width hash alike, as in a
 *	  single-column probe, so cross-type keys (int4 = int8) agree per column.
 *	  A NULL in any column makes the hash NULL (the functions are strict):
 *	  such a tuple is in no filter and matches no probe, as the join's
 *	  equality matches no NULL.
 *
 *	  The probe is shipped to the foreign table's server and is typed for
 *	  the same reason as bloom_contains_typed (typed_probe.c): postgres_fdw
 *	  lets a foreign table declare a column with another type than the
 *	  remote one.  It says what each column is declared as; where every
 *	  remote column agrees (typed_value_agrees, with any deterministic
 *	  collation) it probes, elsewhere it passes every row.  Where it is
 *	  planned on a table its support function decides once: the call
 *	  becomes bloom_contains(filter, bloom_tuple_hash(columns)) or true; on
 *	  a foreign table (a chain of servers) it names that table's declared
 *	  types for the next server.  Elsewhere the function decides at its
 *	  first call.
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
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg_compat.h"
#include "core/multibloom.h"
#include "types/bloom.h"
#include "types/bloomfilter.h"
#include "helpers/extension_objects.h"
#include "semijoin/tuple_probe.h"
#include "semijoin/typed_probe.h"

PG_FUNCTION_INFO_V1(bloom_tuple_hash);
PG_FUNCTION_INFO_V1(bloom_contains_tuple);
PG_FUNCTION_INFO_V1(bloom_contains_tuple_support);

/*
 * The hash scheme of the values' hashes: fixed, so that two servers agree
 * on a tuple's hash whatever scheme their newest filters use (scheme 3,
 * full-width hashes of the 64-bit types).
 */
#define TUPLE_HASH_SCHEME	3

/* ---------------------------------------------------------------------
 * The tuple's hash
 * --------------------------------------------------------------------- */

/* The hashers of a call site's values, one per position, set up once. */
typedef struct TupleHashers
{
	int			nvalues;
	BloomHasher hashers[FLEXIBLE_ARRAY_MEMBER];
} TupleHashers;

/* The collation of argument argno of the call, or the call's. */
static Oid
argument_collation(FunctionCallInfo fcinfo, int argno)
{
	Node	   *expr = fcinfo->flinfo->fn_expr;

	if (expr != NULL && IsA(expr, FuncExpr) && argno < list_length(((FuncExpr *) expr)->args))
		return exprCollation((Node *) list_nth(((FuncExpr *) expr)->args, argno));
	return PG_GET_COLLATION();
}

/* The hashers for the values from argument first on, in fn_mcxt. */
static TupleHashers *
tuple_hashers_create(FunctionCallInfo fcinfo, int first)
{
	int			nvalues = PG_NARGS() - first;
	TupleHashers *th;

	if (get_fn_expr_variadic(fcinfo->flinfo))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a key tuple must be given as separate values, not as a VARIADIC array")));
	if (nvalues < 1 || nvalues > TUPLE_MAX_COLUMNS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a key tuple has 1 to %d values, not %d", TUPLE_MAX_COLUMNS, nvalues)));
	th = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
								offsetof(TupleHashers, hashers) + nvalues * sizeof(BloomHasher));
	th->nvalues = nvalues;
	for (int i = 0; i < nvalues; i++)
	{
		Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, first + i);

		if (!OidIsValid(typid))
			ereport(ERROR,
					(errcode(ERRCODE_INDETERMINATE_DATATYPE),
					 errmsg("could not determine the type of key value %d", i + 1)));
		bloom_hasher_init(&th->hashers[i], typid, argument_collation(fcinfo, first + i),
						  fcinfo->flinfo->fn_mcxt);
	}
	return th;
}

/* The tuple's hash of the (not null) values from argument first on. */
static int64
tuple_hash(FunctionCallInfo fcinfo, TupleHashers *th, int first)
{
	uint64		hashes[TUPLE_MAX_COLUMNS];

	for (int i = 0; i < th->nvalues; i++)
		hashes[i] = bloom_hasher_value_hash(&th->hashers[i], PG_GETARG_DATUM(first + i),
											mbf_attr_seed(i + 1), TUPLE_HASH_SCHEME);
	return (int64) mbf_row_hash(hashes, th->nvalues);
}

/* bloom_tuple_hash(VARIADIC "any"): the tuple's hash (strict: no NULL here). */
Datum
bloom_tuple_hash(PG_FUNCTION_ARGS)
{
	TupleHashers *th = (TupleHashers *) fcinfo->flinfo->fn_extra;

	if (unlikely(th == NULL))
		fcinfo->flinfo->fn_extra = th = tuple_hashers_create(fcinfo, 0);
	PG_RETURN_INT64(tuple_hash(fcinfo, th, 0));
}

/* ---------------------------------------------------------------------
 * The typed probe
 * --------------------------------------------------------------------- */

/* The declared types, as C strings, from a text[] (NULL elements: none). */
static char **
declared_types(ArrayType *arr, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	char	  **types;

	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, n);
	types = palloc(sizeof(char *) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		types[i] = nulls[i] ? NULL : TextDatumGetCString(elems[i]);
	return types;
}

/*
 * True if every value (of type, typmod and collation from exprs) is what
 * a server declaring types in a database of encoding sees: the typed
 * probe's rule, any deterministic collation.
 */
static bool
values_agree(List *exprs, char **types, int ntypes, const char *encoding)
{
	int			i = 0;
	ListCell   *lc;

	if (list_length(exprs) != ntypes)
		return false;
	foreach(lc, exprs)
	{
		Node	   *e = lfirst(lc);

		if (types[i] == NULL ||
			!typed_value_agrees(exprType(e), exprTypmod(e), exprCollation(e), types[i], "", encoding))
			return false;
		i++;
	}
	return true;
}

/* The call-site state of bloom_contains_tuple. */
typedef struct TupleProbeCache
{
	bool		agrees;			/* false: pass every row */
	TupleHashers *hashers;
	FmgrInfo	contains;		/* bloom_contains' call site (its own fn_extra) */
	FunctionCallInfo call;		/* its call: the filter and an int8 */
} TupleProbeCache;

/*
 * The decision, from the call's expression: its value arguments against
 * the declared types.
 */
static bool
tuple_call_agrees(FunctionCallInfo fcinfo)
{
	Node	   *expr = fcinfo->flinfo->fn_expr;
	List	   *values;
	char	  **types;
	int			ntypes;

	if (expr == NULL || !IsA(expr, FuncExpr) ||
		list_length(((FuncExpr *) expr)->args) <= TUPLE_PROBE_FIXED_NARGS)
		return false;
	values = list_copy_tail(((FuncExpr *) expr)->args, TUPLE_PROBE_FIXED_NARGS);
	types = declared_types(PG_GETARG_ARRAYTYPE_P(1), &ntypes);
	return values_agree(values, types, ntypes, text_to_cstring(PG_GETARG_TEXT_PP(2)));
}

/*
 * bloom_contains' call site for the filter argument of this call and an
 * int8 value (the tuple's hash): its expression says so.
 */
static void
contains_call_create(FunctionCallInfo fcinfo, TupleProbeCache *cache)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;
	Node	   *expr = flinfo->fn_expr;
	Node	   *filter = (expr != NULL && IsA(expr, FuncExpr))
		? linitial(((FuncExpr *) expr)->args) : NULL;
	MemoryContext old = MemoryContextSwitchTo(flinfo->fn_mcxt);

	if (filter == NULL)
		filter = (Node *) makeNullConst(get_fn_expr_argtype(flinfo, 0), -1, InvalidOid);
	cache->contains = *flinfo;
	cache->contains.fn_addr = bloom_contains;
	cache->contains.fn_nargs = 2;
	cache->contains.fn_extra = NULL;
	cache->contains.fn_expr = (Node *) makeFuncExpr(InvalidOid, BOOLOID,
													list_make2(copyObject(filter),
															   makeNullConst(INT8OID, -1, InvalidOid)),
													InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	cache->call = palloc0(SizeForFunctionCallInfo(2));
	InitFunctionCallInfoData(*cache->call, &cache->contains, 2, InvalidOid, NULL, NULL);
	MemoryContextSwitchTo(old);
}

static TupleProbeCache *
tuple_probe_cache_create(FunctionCallInfo fcinfo)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;
	TupleProbeCache *cache = MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(TupleProbeCache));

	cache->agrees = tuple_call_agrees(fcinfo);
	if (cache->agrees)
	{
		cache->hashers = tuple_hashers_create(fcinfo, TUPLE_PROBE_FIXED_NARGS);
		contains_call_create(fcinfo, cache);
	}
	flinfo->fn_extra = cache;
	return cache;
}

/*
 * bloom_contains_tuple(f, declared_types, declared_encoding, VARIADIC
 * values): bloom_contains(f, bloom_tuple_hash(values)) where the values
 * are what a server that declares them so sees; true otherwise.  The
 * declared arguments are constants of the rewrite, decided once per call
 * site.
 */
Datum
bloom_contains_tuple(PG_FUNCTION_ARGS)
{
	TupleProbeCache *cache = (TupleProbeCache *) fcinfo->flinfo->fn_extra;

	if (unlikely(cache == NULL))
		cache = tuple_probe_cache_create(fcinfo);
	if (!cache->agrees)
		PG_RETURN_BOOL(true);
	/* strict: no argument is null */
	cache->call->args[0].value = PG_GETARG_DATUM(0);
	cache->call->args[0].isnull = false;
	cache->call->args[1].value = Int64GetDatum(tuple_hash(fcinfo, cache->hashers,
														  TUPLE_PROBE_FIXED_NARGS));
	cache->call->args[1].isnull = false;
	return bloom_contains(cache->call);
}

/* ---------------------------------------------------------------------
 * What the rewrite writes, and the planner support
 * --------------------------------------------------------------------- */

/*
 * A text[] constant of the values' declared types: a column's, or an
 * expression's result type (written as a column of that type would be).
 */
static Const *
types_const(List *values)
{
	int			n = list_length(values);
	Datum	   *elems = palloc(sizeof(Datum) * n);
	int			i = 0;
	ListCell   *lc;

	foreach(lc, values)
	{
		Node	   *value = lfirst(lc);
		Var		   *typed = IsA(value, Var) ? (Var *) value
			: makeVar(1, 1, exprType(value), exprTypmod(value), exprCollation(value), 0);

		elems[i++] = CStringGetTextDatum(column_type_spec(typed));
	}
	return makeConst(TEXTARRAYOID, -1, InvalidOid, -1,
					 PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT)),
					 false, false);
}

List *
tuple_probe_args(Node *filter, List *values)
{
	Const	   *encoding = makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
									 CStringGetTextDatum(GetDatabaseEncodingName()), false, false);

	return list_concat(list_make3(filter, types_const(values), encoding), values);
}

/* The entry all value arguments are columns of, or NULL. */
static RangeTblEntry *
values_entry(PlannerInfo *root, List *values)
{
	RangeTblEntry *rte = NULL;
	ListCell   *lc;

	foreach(lc, values)
	{
		Var		   *var = lfirst(lc);
		RangeTblEntry *r;

		if (!IsA(var, Var) || (r = column_entry(root, var)) == NULL ||
			r->rtekind != RTE_RELATION || (rte != NULL && r != rte))
			return NULL;
		rte = r;
	}
	return rte;
}

/* bloom_contains(filter, bloom_tuple_hash(values)), or NULL. */
static Node *
plain_tuple_probe(FuncExpr *fe, List *values)
{
	Node	   *filter = linitial(fe->args);
	Oid			contains_args[2] = {exprType(filter), ANYELEMENTOID};
	Oid			hash_args[1] = {ANYOID};
	Oid			contains = extension_function("bloom_contains", 2, contains_args);
	Oid			hash = extension_function("bloom_tuple_hash", 1, hash_args);
	FuncExpr   *hashed;

	if (!OidIsValid(contains) || !OidIsValid(hash))
		return NULL;
	hashed = makeFuncExpr(hash, INT8OID, values, InvalidOid, fe->inputcollid,
						  COERCE_EXPLICIT_CALL);
	return (Node *) makeFuncExpr(contains, BOOLOID, list_make2(filter, hashed), InvalidOid,
								 InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * The probe as a foreign table passes it on to its own server: declaring
 * its columns' types and its encoding.
 */
static Node *
forwarded_tuple_probe(FuncExpr *fe, List *values)
{
	FuncExpr   *copy = copyObject(fe);
	List	   *args = tuple_probe_args(linitial(fe->args), values);

	copy->args = args;
	return equal(copy, fe) ? NULL : (Node *) copy;
}

/*
 * Where a call over columns is planned (the declared types and encoding
 * its arguments first - 2 and first - 1, the columns from first on): the
 * columns, the entry they are all of, and whether they agree with the
 * declared ones (*agree).  False if that cannot be decided there (the
 * declared arguments are not constants, the values not all columns of
 * one entry): the function then decides at its first call.
 */
static bool
planned_agreement(SupportRequestSimplify *req, int first, List **columns,
				  RangeTblEntry **rte, bool *agree)
{
	FuncExpr   *fe = req->fcall;
	Const	   *types = list_length(fe->args) > first ? list_nth(fe->args, first - 2) : NULL;
	Const	   *encoding = types ? list_nth(fe->args, first - 1) : NULL;
	char	  **declared;
	int			ntypes;

	if (types == NULL || !IsA(types, Const) || types->constisnull ||
		!IsA(encoding, Const) || encoding->constisnull)
		return false;
	*columns = list_copy_tail(fe->args, first);
	*rte = values_entry(req->root, *columns);
	if (*rte == NULL)
		return false;
	declared = declared_types(DatumGetArrayTypeP(types->constvalue), &ntypes);
	*agree = values_agree(*columns, declared, ntypes, TextDatumGetCString(encoding->constvalue));
	return true;
}

/* SupportRequestSimplify: the decision taken once, where the probe is planned. */
static Node *
simplify_tuple_probe(SupportRequestSimplify *req)
{
	FuncExpr   *fe = req->fcall;
	List	   *values;
	RangeTblEntry *rte;
	bool		agree;

	if (!planned_agreement(req, TUPLE_PROBE_FIXED_NARGS, &values, &rte, &agree))
		return NULL;
	if (!agree)
		return (Node *) makeBoolConst(true, false);
	switch (rte->relkind)
	{
		case RELKIND_FOREIGN_TABLE:
			return forwarded_tuple_probe(fe, values);
		case RELKIND_RELATION:
		case RELKIND_MATVIEW:
			/* a parent's children are simplified each on its own (some may be foreign) */
			if (rte->inh && has_subclass(rte->relid))
				return NULL;
			return plain_tuple_probe(fe, values);
		default:
			return NULL;
	}
}

Datum
bloom_contains_tuple_support(PG_FUNCTION_ARGS)
{
	Node	   *req = (Node *) PG_GETARG_POINTER(0);

	if (IsA(req, SupportRequestSimplify))
		PG_RETURN_POINTER(simplify_tuple_probe((SupportRequestSimplify *) req));
	PG_RETURN_POINTER(NULL);
}

/* ---------------------------------------------------------------------
 * The column check of an expression key: bloom_columns_agree
 *
 * A probe of an expression key is shipped as
 *
 *		NOT bloom_columns_agree(types, encoding, c1, c2, ...) OR <probe>
 *
 * with c1, c2, ... the columns the expression reads (semijoin_types.c).
 * The remote side computes the expression on its own columns; it is the
 * value the local side hashed only where every column is what the
 * foreign table declares (values_agree, the typed probe's rule).  Where
 * the check is planned on a table its support function makes it a
 * constant, so the planner drops the probe (false) or the check (true)
 * and the expression is never computed on columns that disagree.
 * --------------------------------------------------------------------- */

PG_FUNCTION_INFO_V1(bloom_columns_agree);
PG_FUNCTION_INFO_V1(bloom_columns_agree_support);
PG_FUNCTION_INFO_V1(bloom_declared_value);

/* The arguments before the columns: the declared types and encoding. */
#define COLUMNS_AGREE_FIXED_NARGS	2

/*
 * Plannings under way of statements the semijoin rewrite wrote checks
 * into: there a check over a foreign table's columns is the rewrite's own
 * and is kept (shipped); anywhere else such a check arrived from another
 * server (a chain) and is false.
 */
static int	rewritten_plannings = 0;

void
columns_agree_planning(bool start)
{
	rewritten_plannings += start ? 1 : -1;
}

/* The verdict for the columns of a call of bloom_columns_agree. */
static bool
columns_call_agree(FunctionCallInfo fcinfo)
{
	Node	   *expr = fcinfo->flinfo->fn_expr;
	char	  **types;
	int			ntypes;

	if (expr == NULL || !IsA(expr, FuncExpr) || PG_ARGISNULL(0) || PG_ARGISNULL(1) ||
		list_length(((FuncExpr *) expr)->args) <= COLUMNS_AGREE_FIXED_NARGS)
		return false;
	types = declared_types(PG_GETARG_ARRAYTYPE_P(0), &ntypes);
	return values_agree(list_copy_tail(((FuncExpr *) expr)->args, COLUMNS_AGREE_FIXED_NARGS),
						types, ntypes, text_to_cstring(PG_GETARG_TEXT_PP(1)));
}

/*
 * bloom_columns_agree(declared_types, declared_encoding, VARIADIC
 * columns): true if every column is what a server declaring it so sees.
 * Not strict, and the values are not read: a NULL column does not change
 * the verdict, decided once per call site.
 */
Datum
bloom_columns_agree(PG_FUNCTION_ARGS)
{
	bool	   *verdict = (bool *) fcinfo->flinfo->fn_extra;

	if (unlikely(verdict == NULL))
	{
		verdict = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(bool));
		*verdict = columns_call_agree(fcinfo);
		fcinfo->flinfo->fn_extra = verdict;
	}
	PG_RETURN_BOOL(*verdict);
}

/* bloom_declared_value(v): v (the rewrite's explicit cast of a column). */
Datum
bloom_declared_value(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* The check's arguments for the columns: declared types, our encoding, the columns. */
List *
columns_agree_args(List *columns)
{
	Const	   *encoding = makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
									 CStringGetTextDatum(GetDatabaseEncodingName()), false, false);

	return list_concat(list_make2(types_const(columns), encoding), list_copy(columns));
}

/*
 * SupportRequestSimplify: on a table, true or false; on a foreign table,
 * unchanged where the semijoin rewrite of this server wrote it (and it
 * declares that table's types), else false: behind a chain of servers the
 * expression would be deparsed again, over the middle table's declared
 * types, and this check would not cover the next server's columns (nor
 * keep its SQL from failing to parse there).
 */
static Node *
simplify_columns_agree(SupportRequestSimplify *req)
{
	List	   *columns;
	RangeTblEntry *rte;
	bool		agree;

	if (!planned_agreement(req, COLUMNS_AGREE_FIXED_NARGS, &columns, &rte, &agree))
		return NULL;
	if (!agree)
		return (Node *) makeBoolConst(false, false);
	switch (rte->relkind)
	{
		case RELKIND_FOREIGN_TABLE:
			/* the rewrite of this server wrote it over these very columns */
			if (rewritten_plannings > 0)
				return NULL;
			return (Node *) makeBoolConst(false, false);
		case RELKIND_RELATION:
		case RELKIND_MATVIEW:
			if (rte->inh && has_subclass(rte->relid))
				return NULL;
			return (Node *) makeBoolConst(true, false);
		default:
			return NULL;
	}
}

Datum
bloom_columns_agree_support(PG_FUNCTION_ARGS)
{
	Node	   *req = (Node *) PG_GETARG_POINTER(0);

	if (IsA(req, SupportRequestSimplify))
		PG_RETURN_POINTER(simplify_columns_agree((SupportRequestSimplify *) req));
	if (IsA(req, SupportRequestSelectivity))
	{
		/* the probe beside it is estimated; the check passes (or is folded) */
		((SupportRequestSelectivity *) req)->selectivity = 1.0;
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}
