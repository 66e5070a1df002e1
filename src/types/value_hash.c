/*
 * value_hash.c
 *	  The value hash of hash scheme 3 for the types whose extended hash
 *	  loses bits (bloom_hash(value, seed), which gives it to SQL, is in
 *	  bloom.c).
 *
 *	  hashint8extended folds the high 32 bits of a bigint into the low 32
 *	  before hashing (so that int8 values equal to int4 ones hash alike), and
 *	  every type whose extended hash reuses it inherits the fold: timestamp,
 *	  timestamptz, time, pg_lsn, xid8, interval (its span) and timetz (its
 *	  time).  Any two such values then collide with probability 2^-32,
 *	  whatever the filter.  Scheme 3 hashes the same 64-bit quantity v in
 *	  full when it does not fit in 32 bits (bf_hash_wide64, or for an
 *	  interval span beyond 64 bits bf_hash_wide128) and keeps the old hash
 *	  otherwise, so int2, int4 and int8 still agree.  Arrays, ranges,
 *	  multiranges and records are hashed as PostgreSQL's own functions hash
 *	  them (hash_array_extended and friends, the same combining steps) but
 *	  with their elements hashed by this file: a container whose elements
 *	  are not widened gets exactly its extended hash.  doc/format.md states
 *	  all of it for clients.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/multirangetypes.h"
#include "utils/rangetypes.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"

#include "types/value_hash.h"

BloomWideKind
bloom_wide_kind(Oid hash_proc)
{
	if (!OidIsValid(hash_proc))
		return WIDE_NONE;
	/* each of these is "return hashint8extended(fcinfo)" */
	if (hash_proc == F_HASHINT8EXTENDED || hash_proc == F_TIMESTAMP_HASH_EXTENDED ||
		hash_proc == F_TIME_HASH_EXTENDED || hash_proc == F_PG_LSN_HASH_EXTENDED ||
		hash_proc == COMPAT_F_TIMESTAMPTZ_HASH_EXTENDED || hash_proc == COMPAT_F_HASHXID8EXTENDED)
		return WIDE_INT64;
	switch (hash_proc)
	{
		case F_INTERVAL_HASH_EXTENDED:
			return WIDE_INTERVAL;
		case F_TIMETZ_HASH_EXTENDED:
			return WIDE_TIMETZ;
		case F_HASH_ARRAY_EXTENDED:
			return WIDE_ARRAY;
		case F_HASH_RANGE_EXTENDED:
			return WIDE_RANGE;
		case F_HASH_MULTIRANGE_EXTENDED:
			return WIDE_MULTIRANGE;
		case F_HASH_RECORD_EXTENDED:
			return WIDE_RECORD;
		default:
			return WIDE_NONE;
	}
}

/* True if a column of the composite type may be widened. */
static bool
composite_widened(Oid typid)
{
	TupleDesc	desc = lookup_rowtype_tupdesc(typid, -1);
	bool		widened = false;

	for (int i = 0; i < desc->natts && !widened; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		widened = !att->attisdropped && bloom_type_widened(att->atttypid);
	}
	ReleaseTupleDesc(desc);
	return widened;
}

/*
 * Whether the scheme-3 hash of a value of typid may differ from its
 * extended hash.  Only a shortcut: for a type where it is false the two
 * are equal by construction, so answering true where false would do costs
 * speed, never a different hash.  An anonymous record's columns are known
 * only from each value: true.
 */
bool
bloom_type_widened(Oid typid)
{
	TypeCacheEntry *tce;

	check_stack_depth();		/* containers nest */
	typid = getBaseType(typid);
	if (typid == RECORDOID)
		return true;
	tce = lookup_type_cache(typid, TYPECACHE_HASH_EXTENDED_PROC);
	switch (bloom_wide_kind(tce->hash_extended_proc))
	{
		case WIDE_NONE:
			return false;
		case WIDE_INT64:
		case WIDE_INTERVAL:
		case WIDE_TIMETZ:
			return true;
		case WIDE_ARRAY:
			return !OidIsValid(get_element_type(typid)) ||
				bloom_type_widened(get_element_type(typid));
		case WIDE_RANGE:
			return bloom_type_widened(get_range_subtype(typid));
		case WIDE_MULTIRANGE:
			return bloom_type_widened(get_range_subtype(get_multirange_range(typid)));
		case WIDE_RECORD:
			return composite_widened(typid);
	}
	return true;
}

/*
 * interval_hash_extended hashes hashint8extended of the low 64 bits of the
 * span, time + (30 months + days) in microseconds (interval_cmp_value, the
 * quantity "=" compares).  Scheme 3 hashes the whole span.
 */
static uint64
interval_wide_hash(const Interval *iv, uint64 seed)
{
	BfInt128	span = bf_int128_mul_add((int64) iv->month * 30 + iv->day,
										 USECS_PER_DAY, iv->time);

	if (span.hi == ((span.lo >> 63) ? -1 : 0))
		return bloom_hash_int64((int64) span.lo, seed, BLOOM_HASH_SCHEME_WIDE_VALUES);
	return bf_hash_wide128(span, seed);
}

/* timetz_hash_extended with its time hashed as scheme 3 hashes a time. */
static uint64
timetz_wide_hash(const TimeTzADT *t, uint64 seed)
{
	return bloom_hash_int64(t->time, seed, BLOOM_HASH_SCHEME_WIDE_VALUES) ^
		hash_bytes_uint32_extended((uint32) t->zone, seed);
}

static uint64 record_wide_hash(Datum value, uint64 seed);

/*
 * The extended hash function of an element type, found as the container's
 * own function finds it; NULL for anonymous records, which are hashed as
 * records, as hash_array_extended does.
 */
static TypeCacheEntry *
element_type_hash(Oid typid)
{
	TypeCacheEntry *tce;

	if (typid == RECORDOID)
		return NULL;
	tce = lookup_type_cache(typid, TYPECACHE_HASH_EXTENDED_PROC_FINFO);
	if (!OidIsValid(tce->hash_extended_proc_finfo.fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an extended hash function for type %s",
						format_type_be(typid))));
	return tce;
}

/* An element of a container hashed by scheme 3 under collation. */
static uint64
element_hash(TypeCacheEntry *tce, Oid collation, Datum value, uint64 seed)
{
	if (tce == NULL)
		return record_wide_hash(value, seed);
	return bloom_wide_hash(tce->hash_extended_proc_finfo.fn_oid,
						   &tce->hash_extended_proc_finfo, collation, value, seed);
}

/* hash_array_extended: result = 31 * result + element hash, from 1; NULL 0. */
static uint64
array_wide_hash(Datum value, Oid collation, uint64 seed)
{
	ArrayType  *array = DatumGetArrayTypeP(value);
	TypeCacheEntry *elemtype = element_type_hash(ARR_ELEMTYPE(array));
	ArrayIterator it = array_create_iterator(array, 0, NULL);
	uint64		result = 1;
	Datum		elem;
	bool		isnull;

	while (array_iterate(it, &elem, &isnull))
	{
		uint64		elthash = isnull ? 0 : element_hash(elemtype, collation, elem, seed);

		result = (result << 5) - result + elthash;
	}
	array_free_iterator(it);
	if ((Pointer) array != DatumGetPointer(value))
		pfree(array);
	return result;
}

/*
 * The step hash_range_extended and hash_multirange_extended share; flags
 * as a 32-bit word as each converts it (a range's char, a multirange's
 * uint8).
 */
static uint64
bounds_hash(TypeCacheEntry *rngtype, uint32 flags, const RangeBound *lower,
			const RangeBound *upper, uint64 seed)
{
	TypeCacheEntry *subtype = element_type_hash(rngtype->rngelemtype->type_id);
	uint64		lower_hash = RANGE_HAS_LBOUND(flags)
		? element_hash(subtype, rngtype->rng_collation, lower->val, seed) : 0;
	uint64		upper_hash = RANGE_HAS_UBOUND(flags)
		? element_hash(subtype, rngtype->rng_collation, upper->val, seed) : 0;
	uint64		result = hash_bytes_uint32_extended(flags, seed);

	result ^= lower_hash;
	result = ROTATE_HIGH_AND_LOW_32BITS(result);
	return result ^ upper_hash;
}

static uint64
range_wide_hash(Datum value, uint64 seed)
{
	RangeType  *range = DatumGetRangeTypeP(value);
	TypeCacheEntry *typcache = lookup_type_cache(RangeTypeGetOid(range),
												 TYPECACHE_RANGE_INFO);
	RangeBound	lower,
				upper;
	bool		empty;

	uint64		result;

	range_deserialize(typcache, range, &lower, &upper, &empty);
	result = bounds_hash(typcache, (uint32) range_get_flags(range), &lower, &upper, seed);
	if ((Pointer) range != DatumGetPointer(value))
		pfree(range);
	return result;
}

/* hash_multirange_extended: the ranges' hashes combined as an array's. */
static uint64
multirange_wide_hash(Datum value, uint64 seed)
{
	MultirangeType *mr = DatumGetMultirangeTypeP(value);
	TypeCacheEntry *typcache = lookup_type_cache(MultirangeTypeGetOid(mr),
												 TYPECACHE_MULTIRANGE_INFO);
	TypeCacheEntry *rngtype = typcache->rngtype;
	uint64		result = 1;

	for (int32 i = 0; i < mr->rangeCount; i++)
	{
		RangeType  *range = multirange_get_range(rngtype, mr, i);
		RangeBound	lower,
					upper;
		bool		empty;

		range_deserialize(rngtype, range, &lower, &upper, &empty);
		result = (result << 5) - result +
			bounds_hash(rngtype, (uint32) (uint8) range_get_flags(range), &lower, &upper, seed);
		pfree(range);
	}
	if ((Pointer) mr != DatumGetPointer(value))
		pfree(mr);
	return result;
}

/*
 * hash_record_extended: result = 31 * result + column hash, from 0, over
 * the columns not dropped (NULL 0), each under its own collation.
 */
static uint64
record_wide_hash(Datum value, uint64 seed)
{
	HeapTupleHeader rec = DatumGetHeapTupleHeader(value);
	TupleDesc	desc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(rec),
											  HeapTupleHeaderGetTypMod(rec));
	HeapTupleData tuple;
	Datum	   *values = palloc(desc->natts * sizeof(Datum));
	bool	   *nulls = palloc(desc->natts * sizeof(bool));
	uint64		result = 0;

	tuple.t_len = HeapTupleHeaderGetDatumLength(rec);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = rec;
	heap_deform_tuple(&tuple, desc, values, nulls);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		result = (result << 5) - result +
			(nulls[i] ? 0 : element_hash(element_type_hash(att->atttypid), att->attcollation, values[i], seed));
	}
	pfree(values);
	pfree(nulls);
	ReleaseTupleDesc(desc);
	return result;
}

uint64
bloom_wide_hash(Oid hash_proc, FmgrInfo *finfo, Oid collation, Datum value, uint64 seed)
{
	check_stack_depth();		/* containers nest */
	switch (bloom_wide_kind(hash_proc))
	{
		case WIDE_INT64:
			return bloom_hash_int64(DatumGetInt64(value), seed, BLOOM_HASH_SCHEME_WIDE_VALUES);
		case WIDE_INTERVAL:
			return interval_wide_hash(DatumGetIntervalP(value), seed);
		case WIDE_TIMETZ:
			return timetz_wide_hash(DatumGetTimeTzADTP(value), seed);
		case WIDE_ARRAY:
			return array_wide_hash(value, collation, seed);
		case WIDE_RANGE:
			return range_wide_hash(value, seed);
		case WIDE_MULTIRANGE:
			return multirange_wide_hash(value, seed);
		case WIDE_RECORD:
			return record_wide_hash(value, seed);
		case WIDE_NONE:
			break;
	}
	return DatumGetUInt64(FunctionCall2Coll(finfo, collation, value, UInt64GetDatum(seed)));
}
