/*
 * summary_prune_catalog.c
 *	  The managed summaries' catalog as summary pruning reads it
 *	  (summary_prune_internal.h): at planning, which summaries cover a leaf
 *	  partition; at executor start, under the query's snapshot, whether a
 *	  leaf may hold a key's values.
 *
 *	  The rule (doc/summaries.md): a leaf may be skipped for values V iff its
 *	  bloom_summary_part row is trusted and neither that row's filter nor
 *	  the filter of any bloom_summary_delta row of the same summary and leaf
 *	  visible under the snapshot may hold a value of V.  A leaf without a
 *	  part row, or with an untrusted one, is kept, and its filter is never
 *	  read.  Part rows and deltas are read at every executor start (by a scan
 *	  of the whole table when a summary's leaves are many); only the
 *	  detoasted filters are kept per backend (summary_filter_cache.c).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_index.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/itemptr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "pg_compat.h"
#include "summaries/summary_buffer.h"
#include "summaries/summary_catalog.h"
#include "summaries/summary_writer.h"
#include "core/multibloom.h"
#include "helpers/extension_objects.h"
#include "summaries/summary_prune_internal.h"
#include "types/bloomfilter.h"
#include "types/multibloom.h"

/* Up to this many leaves of one summary are looked up one by one. */
#define POINT_LOOKUPS_MAX	8

/*
 * A summary's rows are read by a scan of the whole table when they are at
 * least this many per page of it (a part row of an inline filter is a few
 * dozen bytes; one of a TOASTed filter, a pointer).
 */
#define WHOLE_TABLE_ROWS_PER_PAGE	16

/* ---------------------------------------------------------------------
 * The catalog's relations, found in the extension's schema
 * --------------------------------------------------------------------- */

typedef struct SummaryCatalog
{
	uint64		version;		/* extension_objects_version() when found */
	bool		installed;
	Oid			def_rel;
	Oid			part_rel;
	Oid			delta_rel;
	Oid			part_index;		/* on (summary_id, partition), or Invalid */
	Oid			delta_index;
	bool		indexes_known;
} SummaryCatalog;

static SummaryCatalog catalog;

bool
summary_catalog_installed(void)
{
	Oid			schema;

	if (catalog.version == extension_objects_version() && catalog.version != 0)
		return catalog.installed;
	memset(&catalog, 0, sizeof(catalog));
	catalog.version = extension_objects_version();
	schema = extension_schema();
	if (!OidIsValid(schema))
		return false;
	catalog.def_rel = get_relname_relid(SUMMARY_DEF_TABLE, schema);
	catalog.part_rel = get_relname_relid(SUMMARY_PART_TABLE, schema);
	catalog.delta_rel = get_relname_relid(SUMMARY_DELTA_TABLE, schema);
	catalog.installed = OidIsValid(catalog.def_rel) && OidIsValid(catalog.part_rel) &&
		OidIsValid(catalog.delta_rel);
	return catalog.installed;
}

/* ---------------------------------------------------------------------
 * Planning: the summaries of a leaf
 * --------------------------------------------------------------------- */

/* One row of bloom_summary_def. */
typedef struct SummaryDefRow
{
	int32		summary_id;
	Oid			parent;
	int			nkeys;
	char	   *keys[SUMMARY_MAX_KEYS];
} SummaryDefRow;

/* FNV-1a over len bytes, continuing from h. */
static uint64
signature_add(uint64 h, const void *data, Size len)
{
	const unsigned char *p = data;

	for (Size i = 0; i < len; i++)
		h = (h ^ p[i]) * UINT64CONST(0x100000001b3);
	return h;
}

/* What a leaf's cached summaries depend on of one definition. */
static uint64
def_signature(uint64 h, const SummaryDefRow *def)
{
	h = signature_add(h, &def->summary_id, sizeof(def->summary_id));
	h = signature_add(h, &def->parent, sizeof(def->parent));
	h = signature_add(h, &def->nkeys, sizeof(def->nkeys));
	for (int i = 0; i < def->nkeys; i++)
		h = def->keys[i] ? signature_add(h, def->keys[i], strlen(def->keys[i]) + 1)
			: signature_add(h, "", 1);
	return h;
}

/*
 * The rows of bloom_summary_def visible now (a small table: one per
 * summary), and their signature in *signature.
 */
static List *
load_defs(uint64 *signature)
{
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *defs = NIL;

	*signature = UINT64CONST(0xcbf29ce484222325);
	if (!ActiveSnapshotSet())
		return NIL;
	rel = table_open(catalog.def_rel, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, GetActiveSnapshot(), 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull[3];
		Datum		values[3];
		SummaryDefRow *def;
		Datum	   *names;
		bool	   *namenulls;
		int			n;

		if (RelationGetDescr(rel)->natts < SUMMARY_DEF_KEY_COLUMNS)
			break;
		values[0] = heap_getattr(tup, SUMMARY_DEF_SUMMARY_ID, RelationGetDescr(rel), &isnull[0]);
		values[1] = heap_getattr(tup, SUMMARY_DEF_PARENT, RelationGetDescr(rel), &isnull[1]);
		values[2] = heap_getattr(tup, SUMMARY_DEF_KEY_COLUMNS, RelationGetDescr(rel), &isnull[2]);
		if (isnull[0] || isnull[1] || isnull[2])
			continue;
		deconstruct_array(DatumGetArrayTypeP(values[2]), NAMEOID, NAMEDATALEN, false,
						  TYPALIGN_CHAR, &names, &namenulls, &n);
		if (n < 1 || n > SUMMARY_MAX_KEYS)
			continue;
		def = palloc0(sizeof(SummaryDefRow));
		def->summary_id = DatumGetInt32(values[0]);
		def->parent = DatumGetObjectId(values[1]);
		def->nkeys = n;
		for (int i = 0; i < n; i++)
			def->keys[i] = namenulls[i] ? NULL : pstrdup(NameStr(*DatumGetName(names[i])));
		*signature = def_signature(*signature, def);
		defs = lappend(defs, def);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return defs;
}

/*
 * Opens the part and delta tables for reading; their indexes on
 * (summary_id, partition) are looked up once per installation.
 */
static void
catalog_open(Relation *part, Relation *delta)
{
	*part = table_open(catalog.part_rel, AccessShareLock);
	*delta = table_open(catalog.delta_rel, AccessShareLock);
	if (!catalog.indexes_known)
	{
		catalog.part_index = bloom_summary_catalog_index(*part);
		catalog.delta_index = bloom_summary_catalog_index(*delta);
		catalog.indexes_known = true;
	}
}

/*
 * The ancestors of a partition, and the summaries covering it, cached per
 * backend.  An entry is dropped when the partition's relcache entry is
 * invalidated (ATTACH, DETACH, and every change of its columns: their
 * numbers, types and collations are what the summaries hold); its
 * summaries are also made again when the definitions' signature changes.
 * An entry left stale by a change higher up only costs a probe: whether a
 * leaf may be skipped depends on its own part row alone.
 */
typedef struct AncestorsEntry
{
	Oid			relid;			/* hash key */
	List	   *ancestors;		/* in ancestors_cxt */
	bool		summaries_known;
	uint64		signature;		/* of the definitions summaries was made from */
	List	   *summaries;		/* SummaryOfLeaf *, in ancestors_cxt */
} AncestorsEntry;

/* Past this much memory (dropped entries leave theirs), the cache starts anew. */
#define ANCESTORS_CACHE_MAX_BYTES	((Size) 16 * 1024 * 1024)

static HTAB *ancestors_cache = NULL;
static MemoryContext ancestors_cxt = NULL;

static void
ancestors_invalidate(Datum arg, Oid relid)
{
	/* the catalog's indexes are looked up again after DDL on its tables */
	if (!OidIsValid(relid) || relid == catalog.part_rel || relid == catalog.delta_rel)
		catalog.indexes_known = false;
	if (ancestors_cache == NULL)
		return;
	if (!OidIsValid(relid))
	{
		hash_destroy(ancestors_cache);
		ancestors_cache = NULL;
		MemoryContextReset(ancestors_cxt);
		return;
	}
	/* the list's few cells stay in ancestors_cxt until the next reset */
	hash_search(ancestors_cache, &relid, HASH_REMOVE, NULL);
}

static List *
ancestors_of(Oid relid)
{
	AncestorsEntry *entry;
	bool		found;

	if (ancestors_cache != NULL &&
		MemoryContextMemAllocated(ancestors_cxt, false) > ANCESTORS_CACHE_MAX_BYTES)
		ancestors_invalidate((Datum) 0, InvalidOid);
	if (ancestors_cache == NULL)
	{
		HASHCTL		ctl;

		if (ancestors_cxt == NULL)
		{
			ancestors_cxt = AllocSetContextCreate(TopMemoryContext,
												  "bloomfilter summary ancestors",
												  ALLOCSET_SMALL_SIZES);
		}
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(AncestorsEntry);
		ctl.hcxt = ancestors_cxt;
		ancestors_cache = hash_create("bloomfilter summary ancestors", 256, &ctl,
									  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	entry = hash_search(ancestors_cache, &relid, HASH_FIND, NULL);
	if (entry != NULL)
		return entry->ancestors;
	{
		List	   *found_list = get_partition_ancestors(relid);
		MemoryContext old = MemoryContextSwitchTo(ancestors_cxt);
		List	   *copy = list_copy(found_list);

		MemoryContextSwitchTo(old);
		/* the lookup may have accepted invalidations: enter it afterwards */
		if (ancestors_cache == NULL)
			return found_list;
		entry = hash_search(ancestors_cache, &relid, HASH_ENTER, &found);
		entry->ancestors = copy;
		entry->summaries_known = false;
		entry->summaries = NIL;
		return found_list;
	}
}

Oid
summary_tree_root(Oid relid)
{
	List	   *ancestors = ancestors_of(relid);

	return ancestors == NIL ? relid : llast_oid(ancestors);
}

/* The summaries of defs covering leaf, whose ancestors are given. */
static List *
leaf_summaries(List *defs, List *ancestors, Oid leaf)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, defs)
	{
		SummaryDefRow *def = lfirst(lc);
		SummaryOfLeaf *s;
		bool		ok = true;

		if (!list_member_oid(ancestors, def->parent))
			continue;
		s = palloc0(sizeof(SummaryOfLeaf));
		s->summary_id = def->summary_id;
		s->nkeys = def->nkeys;
		for (int i = 0; i < def->nkeys && ok; i++)
		{
			int32		typmod;

			s->attnos[i] = def->keys[i] ? get_attnum(leaf, def->keys[i]) : InvalidAttrNumber;
			if (s->attnos[i] == InvalidAttrNumber)
				ok = false;
			else
			{
				get_atttypetypmodcoll(leaf, s->attnos[i], &s->types[i], &typmod,
									  &s->collations[i]);
				s->names[i] = def->keys[i];
			}
		}
		if (ok)
			result = lappend(result, s);
		else
			pfree(s);
	}
	return result;
}

/* A copy of a leaf's summaries in the cache's memory. */
static List *
cached_copy(List *summaries)
{
	MemoryContext old = MemoryContextSwitchTo(ancestors_cxt);
	List	   *copy = NIL;
	ListCell   *lc;

	foreach(lc, summaries)
	{
		SummaryOfLeaf *s = palloc(sizeof(SummaryOfLeaf));

		memcpy(s, lfirst(lc), sizeof(SummaryOfLeaf));
		for (int i = 0; i < s->nkeys; i++)
			s->names[i] = pstrdup(s->names[i]);
		copy = lappend(copy, s);
	}
	MemoryContextSwitchTo(old);
	return copy;
}

List *
summaries_of_leaf(SummaryPlanState *state, Oid leaf)
{
	List	   *ancestors;
	List	   *result;
	AncestorsEntry *entry;

	/* not a partition (cached): no catalog read */
	ancestors = ancestors_of(leaf);
	if (ancestors == NIL)
		return NIL;
	if (!state->loaded)
	{
		state->defs = load_defs(&state->signature);
		state->loaded = true;
	}
	entry = ancestors_cache ? hash_search(ancestors_cache, &leaf, HASH_FIND, NULL) : NULL;
	if (entry != NULL && entry->summaries_known && entry->signature == state->signature)
		return entry->summaries;
	/* the lookups below may accept invalidations, which may free the cache's lists */
	result = leaf_summaries(state->defs, list_copy(ancestors), leaf);
	/* an invalidation of the leaf meanwhile dropped its entry: not kept then */
	entry = ancestors_cache ? hash_search(ancestors_cache, &leaf, HASH_FIND, NULL) : NULL;
	if (entry != NULL)
	{
		entry->summaries = cached_copy(result);
		entry->signature = state->signature;
		entry->summaries_known = true;
	}
	return result;
}

/* ---------------------------------------------------------------------
 * Executor start: the decisions
 * --------------------------------------------------------------------- */

/* Where a probe stands while the catalog is read. */
typedef enum ProbeState
{
	PROBE_NO_PART_ROW = 0,		/* kept unless a trusted part row turns up */
	PROBE_KEEP,					/* may hold a value, or not trusted */
	PROBE_PENDING				/* absent from the part filter: deltas next */
} ProbeState;

typedef struct ProbeWork
{
	SummaryProbe *probe;
	ProbeState	state;
	BloomHasher **hashers;		/* per key (NULL: not fixed); probes of the
								 * same arrays share them */
	List	   *filters;		/* summary_leaf_load: the filters' copies */
	bool		buffer_read;	/* a marker's shared buffer was read */
	uint64	   *buffered;		/* summary_leaf_load: its hashes, sorted */
	int			nbuffered;
} ProbeWork;

/* The hashers of one decision, shared by probes of the same value types. */
typedef struct HasherSet
{
	int			n;
	Oid			types[64];
	Oid			collations[64];
	BloomHasher *hashers[64];
} HasherSet;

static BloomHasher *
hasher_for(HasherSet *set, Oid type, Oid collation)
{
	BloomHasher *h;

	for (int i = 0; i < set->n; i++)
		if (set->types[i] == type && set->collations[i] == collation)
			return set->hashers[i];
	h = palloc0(sizeof(BloomHasher));
	bloom_hasher_init(h, type, collation, CurrentMemoryContext);
	if (set->n < lengthof(set->types))
	{
		set->types[set->n] = type;
		set->collations[set->n] = collation;
		set->hashers[set->n] = h;
		set->n++;
	}
	return h;
}

/* True if the bloom filter f may hold one of the probe's values. */
static bool
bloom_may_hold(ProbeWork *w, const BloomFilter *f)
{
	SummaryProbe *p = w->probe;

	for (int v = 0; v < p->nvalues[0]; v++)
		if (bf_contains_value(f, bloom_hasher_value_hash(w->hashers[0], p->values[0][v],
														 f->seed, f->hash_scheme)))
			return true;
	return false;
}

/*
 * True if the multibloom mb may hold one of the probe's combinations of
 * values (attributes not fixed are wildcards).
 */
static bool
multibloom_may_hold(ProbeWork *w, const MultiBloom *mb)
{
	SummaryProbe *p = w->probe;
	uint8		scheme = mbf_hash_scheme(mb);
	uint64		hashes[MULTIBLOOM_MAX_ATTRS];
	bool		isnull[MULTIBLOOM_MAX_ATTRS];
	int			index[SUMMARY_MAX_KEYS];

	if (mb->nattrs != p->nkeys)
		return true;
	for (int i = 0; i < p->nkeys; i++)
		if (p->fixed[i] && p->nvalues[i] == 0)
			return false;		/* an attribute equal to no value: no row */
	memset(index, 0, sizeof(index));
	for (;;)
	{
		int			i;

		for (i = 0; i < p->nkeys; i++)
		{
			isnull[i] = !p->fixed[i];
			hashes[i] = isnull[i] ? 0
				: bloom_hasher_value_hash(w->hashers[i], p->values[i][index[i]],
										  mbf_attr_seed(i + 1), scheme);
		}
		if (mbf_query_row(mb, hashes, isnull))
			return true;
		/* the next combination, as an odometer over the fixed attributes */
		for (i = 0; i < p->nkeys; i++)
		{
			if (!p->fixed[i])
				continue;
			if (++index[i] < p->nvalues[i])
				break;
			index[i] = 0;
		}
		if (i == p->nkeys)
			return false;
	}
}

/*
 * The filter column of a row for this probe (filter for one key, mfilter
 * for several): true if it may hold one of the probe's values.  A NULL
 * filter may hold anything.
 */
static const void *
row_filter(ProbeWork *w, Relation rel, HeapTuple tup)
{
	TupleDesc	desc = RelationGetDescr(rel);
	AttrNumber	attno = w->probe->nkeys == 1 ? SUMMARY_PART_FILTER : SUMMARY_PART_MFILTER;
	bool		isnull;
	Datum		raw;

	if (desc->natts < attno)
		return NULL;
	raw = heap_getattr(tup, attno, desc, &isnull);
	if (isnull)
		return NULL;
	return summary_cached_filter(rel, tup, attno, raw,
						 w->probe->nkeys == 1 ? &bloom_type : &multibloom_type);
}

/* True if the filter (NULL: none, which may hold anything) may hold the probe's values. */
static bool
filter_may_hold(ProbeWork *w, const void *filter)
{
	if (filter == NULL)
		return true;
	if (w->probe->nkeys == 1)
		return bloom_may_hold(w, filter);
	return multibloom_may_hold(w, filter);
}

static bool
row_may_hold(ProbeWork *w, Relation rel, HeapTuple tup)
{
	return filter_may_hold(w, row_filter(w, rel, tup));
}

/* True if a part row says its filter holds every key (column 5). */
static bool
part_row_trusted(Relation rel, HeapTuple tup)
{
	bool		isnull;
	Datum		trusted;

	if (RelationGetDescr(rel)->natts < SUMMARY_PART_TRUSTED)
		return false;
	trusted = heap_getattr(tup, SUMMARY_PART_TRUSTED, RelationGetDescr(rel), &isnull);
	return !isnull && DatumGetBool(trusted);
}

/* A part row: trusted or not; only then its filter. */
static void
visit_part_row(ProbeWork *w, Relation rel, HeapTuple tup)
{
	if (!part_row_trusted(rel, tup) || w->state != PROBE_NO_PART_ROW)
		w->state = PROBE_KEEP;	/* untrusted, or two rows: keep */
	else if (row_may_hold(w, rel, tup))
		w->state = PROBE_KEEP;
	else
		w->state = PROBE_PENDING;
}

/*
 * Whether a delta row is a marker (bloom_summary_delta.buffer_epoch set):
 * its keys are in a shared buffer (summaries/summary_buffer.c), readable
 * here only when *current (this server's epoch, on a primary).
 */
static bool
delta_is_marker(Relation rel, HeapTuple tup, bool *current)
{
	bool		isnull;
	Datum		epoch;

	if (RelationGetDescr(rel)->natts < SUMMARY_DELTA_BUFFER_EPOCH)
		return false;
	epoch = heap_getattr(tup, SUMMARY_DELTA_BUFFER_EPOCH, RelationGetDescr(rel), &isnull);
	if (isnull)
		return false;
	*current = summary_buffer_epoch_is_current(DatumGetInt64(epoch));
	return true;
}

/* The value hashes of the probe as the shared buffer holds them. */
static uint64 *
buffer_hashes(ProbeWork *w)
{
	SummaryProbe *p = w->probe;
	uint64	   *hashes = palloc(sizeof(uint64) * Max(p->nvalues[0], 1));

	for (int v = 0; v < p->nvalues[0]; v++)
		hashes[v] = bloom_hasher_value_hash(w->hashers[0], p->values[0][v], 0,
											BLOOM_HASH_SCHEME_NEWEST);
	return hashes;
}

static void
visit_delta_row(ProbeWork *w, Relation rel, HeapTuple tup)
{
	bool		current;

	if (w->state != PROBE_PENDING)
		return;
	if (!delta_is_marker(rel, tup, &current))
	{
		if (row_may_hold(w, rel, tup))
			w->state = PROBE_KEEP;
		return;
	}
	/* markers of another epoch: keys lost to a restart, or a standby */
	if (!current || w->probe->nkeys != 1)
		w->state = PROBE_KEEP;
	else if (!w->buffer_read)
	{
		w->buffer_read = true;
		if (summary_buffer_may_hold(w->probe->summary_id, w->probe->leaf,
									buffer_hashes(w), w->probe->nvalues[0]))
			w->state = PROBE_KEEP;
	}
}

typedef void (*RowVisitor) (ProbeWork *w, Relation rel, HeapTuple tup);

static int
work_leaf_cmp(const void *a, const void *b)
{
	Oid			x = (*(ProbeWork *const *) a)->probe->leaf;
	Oid			y = (*(ProbeWork *const *) b)->probe->leaf;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* The first of works (sorted by leaf) whose leaf is leaf, or nworks. */
static int
first_work_of_leaf(ProbeWork **works, int nworks, Oid leaf)
{
	int			lo = 0;
	int			hi = nworks;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (works[mid]->probe->leaf < leaf)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * True if reading all of rel costs less than finding nrows of its rows by
 * the index: a heap scan reads a page's rows under one buffer lock, the
 * index scan descends and locks a page for each row (and, over thousands
 * of leaves, that was most of a decision's time).
 */
static bool
whole_table_cheaper(Relation rel, int nrows)
{
	return (double) RelationGetNumberOfBlocks(rel) * WHOLE_TABLE_ROWS_PER_PAGE <= nrows;
}

/*
 * Calls visit for each row of rel visible under snapshot that belongs to
 * (summary_id, the leaf of one of works, sorted by leaf): one index lookup
 * per leaf for a few leaves, else one scan of the summary's rows (by the
 * index, or of the whole table when that is cheaper), in no given order.
 */
static void
visit_rows(Relation rel, Oid index, Snapshot snapshot, int32 summary_id,
		   ProbeWork **works, int nworks, RowVisitor visit, bool only_pending)
{
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tup;
	bool		point = nworks <= POINT_LOOKUPS_MAX && OidIsValid(index);

	if (!point && OidIsValid(index) && whole_table_cheaper(rel, nworks))
		index = InvalidOid;

	for (int i = 0; i < (point ? nworks : 1); i++)
	{
		if (point && only_pending && works[i]->state != PROBE_PENDING)
			continue;
		ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(summary_id));
		if (point)
			ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_OIDEQ,
						ObjectIdGetDatum(works[i]->probe->leaf));
		scan = systable_beginscan(rel, index, OidIsValid(index), snapshot, point ? 2 : 1, keys);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			bool		isnull;
			Oid			leaf = DatumGetObjectId(heap_getattr(tup, SUMMARY_PART_PARTITION, RelationGetDescr(rel),
															 &isnull));

			if (isnull)
				continue;
			if (point)
			{
				if (works[i]->probe->leaf == leaf)
					visit(works[i], rel, tup);
				continue;
			}
			for (int j = first_work_of_leaf(works, nworks, leaf);
				 j < nworks && works[j]->probe->leaf == leaf; j++)
				visit(works[j], rel, tup);
		}
		systable_endscan(scan);
	}
}

/* Decides the probes of one summary. */
static void
decide_summary(Relation part, Relation delta, Snapshot snapshot, int32 summary_id,
			   ProbeWork **works, int nworks)
{
	int			npending = 0;

	qsort(works, nworks, sizeof(ProbeWork *), work_leaf_cmp);
	visit_rows(part, catalog.part_index, snapshot, summary_id, works, nworks,
			   visit_part_row, false);
	for (int i = 0; i < nworks; i++)
		npending += works[i]->state == PROBE_PENDING;
	if (npending > 0)
		visit_rows(delta, catalog.delta_index, snapshot, summary_id, works, nworks,
				   visit_delta_row, true);
	for (int i = 0; i < nworks; i++)
		works[i]->probe->prune = works[i]->state == PROBE_PENDING;
}

void
summary_decide(List *probes, Snapshot snapshot)
{
	Relation	part;
	Relation	delta;
	MemoryContext cxt;
	MemoryContext old;
	int			n = list_length(probes);
	ProbeWork  *works;
	ProbeWork **group;
	bool	   *done;
	HasherSet	hashers;

	if (n == 0 || !summary_catalog_installed())
		return;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "bloomfilter summary decision",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	catalog_open(&part, &delta);
	works = palloc0(sizeof(ProbeWork) * n);
	group = palloc(sizeof(ProbeWork *) * n);
	done = palloc0(sizeof(bool) * n);
	hashers.n = 0;
	for (int i = 0; i < n; i++)
	{
		SummaryProbe *p = list_nth(probes, i);
		SummaryProbe *prev = i > 0 ? works[i - 1].probe : NULL;

		works[i].probe = p;
		p->prune = false;
		if (prev != NULL && prev->valtypes == p->valtypes && prev->collations == p->collations &&
			prev->fixed == p->fixed)
		{
			works[i].hashers = works[i - 1].hashers;
			continue;
		}
		works[i].hashers = palloc0(sizeof(BloomHasher *) * Max(p->nkeys, 1));
		for (int k = 0; k < p->nkeys; k++)
			if (p->fixed[k])
				works[i].hashers[k] = hasher_for(&hashers, p->valtypes[k], p->collations[k]);
	}
	for (int i = 0; i < n; i++)
	{
		int			ngroup = 0;

		if (done[i])
			continue;
		for (int j = i; j < n; j++)
			if (!done[j] && works[j].probe->summary_id == works[i].probe->summary_id)
			{
				group[ngroup++] = &works[j];
				done[j] = true;
			}
		decide_summary(part, delta, snapshot, works[i].probe->summary_id, group, ngroup);
	}
	table_close(delta, AccessShareLock);
	table_close(part, AccessShareLock);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/* ---------------------------------------------------------------------
 * Parameters of a rescan: a leaf's filters, read once per execution
 * --------------------------------------------------------------------- */

struct SummaryLeafFilters
{
	ProbeWork	work;			/* probe: the shape (summary, leaf, types) */
	bool		usable;			/* one trusted part row, every filter present */
};

/* A copy of a filter from the per-backend cache (which may be reset). */
static void *
copy_filter(const void *filter)
{
	Size		size = VARSIZE(filter);
	void	   *copy = palloc(size);

	memcpy(copy, filter, size);
	return copy;
}

static void
collect_part_row(ProbeWork *w, Relation rel, HeapTuple tup)
{
	const void *filter;

	if (!part_row_trusted(rel, tup) || w->state != PROBE_NO_PART_ROW)
	{
		w->state = PROBE_KEEP;	/* untrusted, or two rows: keep */
		return;
	}
	filter = row_filter(w, rel, tup);
	if (filter == NULL)
	{
		w->state = PROBE_KEEP;
		return;
	}
	w->filters = lappend(w->filters, copy_filter(filter));
	w->state = PROBE_PENDING;
}

static void
collect_delta_row(ProbeWork *w, Relation rel, HeapTuple tup)
{
	const void *filter;
	bool		current;

	if (w->state != PROBE_PENDING)
		return;
	if (delta_is_marker(rel, tup, &current))
	{
		if (!current || w->probe->nkeys != 1)
			w->state = PROBE_KEEP;
		else if (!w->buffer_read)
		{
			w->buffer_read = true;
			w->buffered = summary_buffer_copy(w->probe->summary_id, w->probe->leaf,
											  &w->nbuffered);
		}
		return;
	}
	filter = row_filter(w, rel, tup);
	if (filter == NULL)
		w->state = PROBE_KEEP;
	else
		w->filters = lappend(w->filters, copy_filter(filter));
}

SummaryLeafFilters *
summary_leaf_load(const SummaryProbe *shape, Snapshot snapshot)
{
	SummaryLeafFilters *lf = palloc0(sizeof(SummaryLeafFilters));
	ProbeWork  *w = &lf->work;
	Relation	part;
	Relation	delta;

	w->probe = palloc(sizeof(SummaryProbe));
	memcpy(w->probe, shape, sizeof(SummaryProbe));
	w->state = PROBE_NO_PART_ROW;
	if (!summary_catalog_installed())
		return lf;
	w->hashers = palloc0(sizeof(BloomHasher *) * Max(shape->nkeys, 1));
	for (int k = 0; k < shape->nkeys; k++)
		if (shape->fixed[k])
		{
			w->hashers[k] = palloc0(sizeof(BloomHasher));
			bloom_hasher_init(w->hashers[k], shape->valtypes[k], shape->collations[k],
							  CurrentMemoryContext);
		}
	catalog_open(&part, &delta);
	visit_rows(part, catalog.part_index, snapshot, shape->summary_id, &w, 1,
			   collect_part_row, false);
	if (w->state == PROBE_PENDING)
		visit_rows(delta, catalog.delta_index, snapshot, shape->summary_id, &w, 1,
				   collect_delta_row, true);
	table_close(delta, AccessShareLock);
	table_close(part, AccessShareLock);
	lf->usable = w->state == PROBE_PENDING;
	return lf;
}

/* True if the buffered hashes loaded hold a value of the probe's. */
static bool
buffered_may_hold(ProbeWork *w)
{
	uint64	   *hashes = buffer_hashes(w);
	bool		found = false;

	for (int v = 0; v < w->probe->nvalues[0] && !found; v++)
		found = summary_hashes_contain(w->buffered, w->nbuffered, hashes[v]);
	pfree(hashes);
	return found;
}

bool
summary_leaf_may_hold(SummaryLeafFilters *lf, const SummaryProbe *values)
{
	ListCell   *lc;
	SummaryProbe *shape = lf->work.probe;
	bool		result = false;

	if (!lf->usable)
		return true;
	/* the loaded shape with this rescan's values */
	lf->work.probe = (SummaryProbe *) values;
	foreach(lc, lf->work.filters)
	{
		if (filter_may_hold(&lf->work, lfirst(lc)))
		{
			result = true;
			break;
		}
	}
	if (!result && lf->work.nbuffered > 0)
		result = buffered_may_hold(&lf->work);
	lf->work.probe = shape;
	return result;
}

void
summary_catalog_init(void)
{
	CacheRegisterRelcacheCallback(ancestors_invalidate, (Datum) 0);
}
