/*
 * extension_objects.c
 *	  The extension's schema, functions and types, by name in the schema the
 *	  extension is installed in, cached per backend (extension_objects.h).
 *
 *	  Any change to pg_proc, pg_type or pg_namespace resets the whole cache
 *	  (CREATE, DROP and ALTER EXTENSION ... SET SCHEMA all change pg_proc),
 *	  so the next question looks the objects up again.  A lookup takes locks
 *	  and may itself accept invalidations: a result found while the cache
 *	  was reset is returned but not kept.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "pg_compat.h"
#include "helpers/extension_objects.h"

/* More than the planner integrations ask for, together. */
#define MAX_CACHED			48
#define MAX_CACHED_ARGS		4

typedef struct CachedObject
{
	char		name[NAMEDATALEN];
	bool		is_type;
	int			nargs;
	Oid			argtypes[MAX_CACHED_ARGS];
	Oid			oid;			/* InvalidOid: known to be missing */
} CachedObject;

static uint64 cache_version = 1;
static bool schema_known = false;
static Oid	cached_schema = InvalidOid;
static CachedObject cached[MAX_CACHED];
static int	ncached = 0;

static void
objects_reset(Datum arg, int cacheid, uint32 hashvalue)
{
	cache_version++;
	schema_known = false;
	ncached = 0;
}

uint64
extension_objects_version(void)
{
	return cache_version;
}

/* The schema an extension is installed in (a function of its own since 16). */
static Oid
schema_of_extension(Oid ext)
{
#if COMPAT_HAVE_GET_EXTENSION_SCHEMA
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

Oid
extension_schema(void)
{
	uint64		version = cache_version;
	Oid			ext;
	Oid			schema;

	if (schema_known)
		return cached_schema;
	ext = get_extension_oid(EXTENSION_NAME, true);
	schema = OidIsValid(ext) ? schema_of_extension(ext) : InvalidOid;
	if (version == cache_version)
	{
		cached_schema = schema;
		schema_known = true;
	}
	return schema;
}

static CachedObject *
find_cached(const char *name, bool is_type, int nargs, const Oid *argtypes)
{
	for (int i = 0; i < ncached; i++)
	{
		CachedObject *c = &cached[i];

		if (c->is_type == is_type && c->nargs == nargs &&
			strcmp(c->name, name) == 0 &&
			(nargs == 0 || memcmp(c->argtypes, argtypes, nargs * sizeof(Oid)) == 0))
			return c;
	}
	return NULL;
}

/* Keeps what a lookup found, unless the cache was reset meanwhile. */
static void
remember(uint64 version, const char *name, bool is_type, int nargs, const Oid *argtypes,
		 Oid oid)
{
	CachedObject *c;

	if (version != cache_version || ncached == MAX_CACHED || nargs > MAX_CACHED_ARGS ||
		strlen(name) >= NAMEDATALEN)
		return;
	c = &cached[ncached++];
	strlcpy(c->name, name, NAMEDATALEN);
	c->is_type = is_type;
	c->nargs = nargs;
	if (nargs > 0)
		memcpy(c->argtypes, argtypes, nargs * sizeof(Oid));
	c->oid = oid;
}

Oid
extension_function(const char *name, int nargs, const Oid *argtypes)
{
	uint64		version = cache_version;
	CachedObject *c = find_cached(name, false, nargs, argtypes);
	Oid			schema;
	char	   *schema_name;
	Oid			fn = InvalidOid;

	if (c != NULL)
		return c->oid;
	schema = extension_schema();
	schema_name = OidIsValid(schema) ? get_namespace_name(schema) : NULL;
	if (schema_name != NULL)
		fn = LookupFuncName(list_make2(makeString(schema_name), makeString(pstrdup(name))),
							nargs, argtypes, true);
	remember(version, name, false, nargs, argtypes, fn);
	return fn;
}

Oid
extension_type(const char *name)
{
	uint64		version = cache_version;
	CachedObject *c = find_cached(name, true, 0, NULL);
	Oid			schema;
	Oid			type = InvalidOid;

	if (c != NULL)
		return c->oid;
	schema = extension_schema();
	if (OidIsValid(schema))
		type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum(name),
							   ObjectIdGetDatum(schema));
	remember(version, name, true, 0, NULL, type);
	return type;
}

bool
may_execute(Oid fn)
{
#if COMPAT_HAVE_OBJECT_ACLCHECK
	return object_aclcheck(ProcedureRelationId, fn, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK;
#else
	return pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) == ACLCHECK_OK;
#endif
}

void
extension_objects_init(void)
{
	CacheRegisterSyscacheCallback(PROCOID, objects_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(TYPEOID, objects_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(NAMESPACEOID, objects_reset, (Datum) 0);
}
