/*
 * extension_objects.h
 *	  The one owner of the extension's catalog objects as the planner and
 *	  executor integrations see them: the schema the extension is installed
 *	  in and its functions and types, found by name in that schema and
 *	  cached per backend until the catalogs change.
 *
 *	  The semijoin prefilter, the Citus rewrite and the batched scan ask
 *	  here, so a dropped, re-created or moved extension is seen the same way
 *	  by all three, and a statement in a database without the extension
 *	  costs no catalog scan.
 */
#ifndef BLOOMFILTER_EXTENSION_OBJECTS_H
#define BLOOMFILTER_EXTENSION_OBJECTS_H

#define EXTENSION_NAME		"bloomfilter"

/*
 * The schema of the extension in this database, or InvalidOid when it is
 * not installed (remembered too, until pg_proc changes).
 */
extern Oid	extension_schema(void);

/*
 * The extension's function name(argtypes), in its own schema, or
 * InvalidOid (not installed, or a version without that function).
 */
extern Oid	extension_function(const char *name, int nargs, const Oid *argtypes);

/* The extension's type name, in its own schema, or InvalidOid. */
extern Oid	extension_type(const char *name);

/*
 * A number that changes whenever the cache is reset: a caller that derives
 * data of its own from these objects keeps it while the number stays.
 */
extern uint64 extension_objects_version(void);

/* True if the current user may execute the function. */
extern bool may_execute(Oid fn);

/* Registers the invalidation callbacks.  Called once, from _PG_init. */
extern void extension_objects_init(void);

#endif							/* BLOOMFILTER_EXTENSION_OBJECTS_H */
