/*
 * summary_filter_cache.c
 *	  The detoasted filters of the managed summaries' catalog rows, kept per
 *	  backend (summary_prune_catalog.c reads them at each decision): keyed
 *	  by the identity of the row version that holds them (relation, ctid,
 *	  xmin, column), which no later version of the row shares, so an entry
 *	  is never stale; checked once, when first read.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "summaries/summary_prune_internal.h"
#include "types/bloomfilter.h"

/* The detoasted filters kept per backend: dropped all at once past this. */
#define FILTER_CACHE_MAX_BYTES	((Size) 256 * 1024 * 1024)

typedef struct FilterKey
{
	Oid			rel;
	ItemPointerData tid;
	TransactionId xmin;
	AttrNumber	attno;
} FilterKey;

typedef struct FilterEntry
{
	FilterKey	key;			/* hash key */
	const void *filter;			/* checked, in filter_cxt */
} FilterEntry;

static HTAB *filter_cache = NULL;
static MemoryContext filter_cxt = NULL;
static Size filter_bytes = 0;

static void
filter_cache_reset(void)
{
	if (filter_cache != NULL)
		hash_destroy(filter_cache);
	filter_cache = NULL;
	if (filter_cxt != NULL)
		MemoryContextReset(filter_cxt);
	filter_bytes = 0;
}

/*
 * The filter in attribute attno of the tuple (not null), detoasted and
 * checked once per row version.
 */
const void *
summary_cached_filter(Relation rel, HeapTuple tup, AttrNumber attno, Datum raw,
			  const FilterType *type)
{
	FilterKey	key;
	FilterEntry *entry;
	bool		found;
	MemoryContext old;
	struct varlena *copy;

	if (filter_cxt == NULL)
		filter_cxt = AllocSetContextCreate(TopMemoryContext, "bloomfilter summary filters",
										   ALLOCSET_DEFAULT_SIZES);
	if (filter_bytes > FILTER_CACHE_MAX_BYTES)
		filter_cache_reset();
	if (filter_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(FilterKey);
		ctl.entrysize = sizeof(FilterEntry);
		ctl.hcxt = filter_cxt;
		filter_cache = hash_create("bloomfilter summary filters", 1024, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	memset(&key, 0, sizeof(key));
	key.rel = RelationGetRelid(rel);
	key.tid = tup->t_self;
	key.xmin = HeapTupleHeaderGetRawXmin(tup->t_data);
	key.attno = attno;
	entry = hash_search(filter_cache, &key, HASH_FIND, NULL);
	if (entry != NULL)
		return entry->filter;

	old = MemoryContextSwitchTo(filter_cxt);
	copy = pg_detoast_datum_copy((struct varlena *) DatumGetPointer(raw));
	MemoryContextSwitchTo(old);
	/* an ERROR here (a damaged filter) leaves copy to the next reset */
	(void) filter_from_datum(PointerGetDatum(copy), type);
	entry = hash_search(filter_cache, &key, HASH_ENTER, &found);
	entry->filter = copy;
	filter_bytes += VARSIZE(copy);
	return copy;
}

