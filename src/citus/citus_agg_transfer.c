/*
 * citus_agg_transfer.c
 *	  The binary route of the hashed aggregates' partial states through
 *	  Citus (doc/aggregates.md, "On Citus: the rewrite", what travels).
 *
 *	  Citus moves the partial state of an aggregate it splits with
 *	  worker_partial_agg as the text output of the state's type.  It splits
 *	  an aggregate named hll_add_agg (without a combine function) another
 *	  way: the call runs whole on each shard, its result comes back in the
 *	  binary protocol (the type has binary send and receive), and the
 *	  coordinator aggregates the results with the one-argument aggregate
 *	  named hll_union_agg of the result's type.  The extension's aggregates
 *	  of those names (extension/install/45_citus_transfer.sql, in the schema
 *	  bloomfilter_citus) are the hashed twins returning their state and the
 *	  states' combination, so the rewrite writes
 *
 *		twin(args)  ->  result(bloomfilter_citus.hll_add_agg(args))
 *
 *	  and each shard's state crosses as its flat form, byte for byte, then
 *	  is combined and finished as the twin's would be: the same filter.
 */
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg_compat.h"
#include "citus/citus_agg_transfer.h"
#include "helpers/extension_objects.h"

#define TRANSFER_SCHEMA "bloomfilter_citus"

static bool binary_states = true;

void
citus_agg_transfer_init(void)
{
	DefineCustomBoolVariable("bloomfilter.citus_binary_states",
							 "Moves the partial states of bloom_agg and multibloom_agg between Citus nodes in binary.",
							 "On: the rewrite on distributed tables runs the hashed twins as "
							 "bloomfilter_citus.hll_add_agg, whose states Citus fetches in binary; "
							 "off: through worker_partial_agg, as text.",
							 &binary_states, true, PGC_USERSET, 0, NULL, NULL, NULL);
}

bool
citus_binary_states_enabled(void)
{
	return binary_states;
}

/*
 * bloomfilter_citus.hll_add_agg(argtypes) if it is the extension's; looked
 * up in the catalog, so that a user without USAGE on the schema gets no
 * error here (transfer_call declines the route for that user).
 */
static Oid
shard_aggregate(int nargs, const Oid *argtypes)
{
	Oid			ext = get_extension_oid("bloomfilter", true);
	Oid			schema = get_namespace_oid(TRANSFER_SCHEMA, true);
	Oid			fn;

	if (!OidIsValid(ext) || !OidIsValid(schema))
		return InvalidOid;
	fn = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid,
						 CStringGetDatum("hll_add_agg"),
						 PointerGetDatum(buildoidvector(argtypes, nargs)),
						 ObjectIdGetDatum(schema));
	if (!OidIsValid(fn) || getExtensionOfObject(ProcedureRelationId, fn) != ext)
		return InvalidOid;
	return fn;
}

/* The shards find the aggregate by its qualified name: USAGE on its schema. */
static bool
may_use_schema(Oid fn)
{
	Oid			schema = get_func_namespace(fn);

#if COMPAT_HAVE_OBJECT_ACLCHECK
	return object_aclcheck(NamespaceRelationId, schema, GetUserId(), ACL_USAGE) == ACLCHECK_OK;
#else
	return pg_namespace_aclcheck(schema, GetUserId(), ACL_USAGE) == ACLCHECK_OK;
#endif
}

bool
transfer_objects_lookup(int nargs, const Oid *argtypes, bool multi, TransferObjects *out)
{
	Oid			result_args[2];

	out->shard_agg = shard_aggregate(nargs, argtypes);
	if (!OidIsValid(out->shard_agg))
		return false;
	out->state_type = get_func_rettype(out->shard_agg);
	result_args[0] = out->state_type;
	result_args[1] = BOOLOID;
	out->result = multi ?
		extension_function("multibloom_agg_state_result", 1, result_args) :
		extension_function("bloom_agg_state_result", 2, result_args);
	return OidIsValid(out->result);
}

Node *
transfer_call(const TransferObjects *objects, const Aggref *twin, bool multi, bool datasized)
{
	Aggref	   *shard = copyObject((Aggref *) twin);
	List	   *args;

	if (!may_execute(objects->shard_agg) || !may_execute(objects->result) ||
		!may_use_schema(objects->shard_agg))
		return NULL;
	shard->aggfnoid = objects->shard_agg;
	shard->aggtype = objects->state_type;
	shard->aggcollid = InvalidOid;
	args = list_make1(shard);
	if (!multi)
		args = lappend(args, makeBoolConst(datasized, false));
	return (Node *) makeFuncExpr(objects->result, twin->aggtype, args,
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}
