/*
 * summary_writer_common.c
 *	  What the write path's two halves both call, below both: the owner of
 *	  the summary catalog, the delta table opened and checked, statements
 *	  kept prepared, and the memory of this transaction's key buffers.
 *	  The writer (summary_writer.c) collects and writes keys and asks the
 *	  merge (summary_merge.c) whether to merge; the merge needs these too,
 *	  and taking them from the writer would make the two files call each
 *	  other.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "executor/spi.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "summaries/summary_catalog.h"
#include "summaries/summary_writer_internal.h"

/* The memory of the buffers (and of their counted deltas) of this transaction. */
MemoryContext summary_key_context = NULL;

/* bloom_summary_delta of the extension in schema; an error if it is missing. */
static Oid
delta_table_relid(Oid schema)
{
	Oid			relid = get_relname_relid(SUMMARY_DELTA_TABLE, schema);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("bloom summary: table bloom_summary_delta is missing from schema %s",
						get_namespace_name(schema))));
	return relid;
}

/* The owner of the summary catalog tables, who writes the deltas. */
Oid
summary_catalog_owner(Oid schema)
{
	Oid			relid = delta_table_relid(schema);
	HeapTuple	tup;
	Oid			owner;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

SPIPlanPtr
summary_prepare_kept(const char *sql, int nargs, Oid *argtypes)
{
	SPIPlanPtr	plan = SPI_prepare(sql, nargs, argtypes);

	if (plan == NULL)
		elog(ERROR, "bloom summary: SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "bloom summary: SPI_keepplan failed");
	return plan;
}

/* bloom_summary_delta of the extension in schema, opened and checked. */
Relation
summary_delta_open(Oid schema, LOCKMODE lockmode)
{
	Relation	rel = table_open(delta_table_relid(schema), lockmode);

	if (RelationGetDescr(rel)->natts != SUMMARY_DELTA_NATTS)
		elog(ERROR, "bloom summary: bloom_summary_delta has %d columns, not %d",
			 RelationGetDescr(rel)->natts, SUMMARY_DELTA_NATTS);
	return rel;
}
