/*
 * value_hash.h
 *	  The value hash of hash scheme 3 for the types whose extended hash loses
 *	  bits (types/value_hash.c).  Below the shared glue of bloomfilter.h,
 *	  which includes it: the hasher calls down into it, never the reverse.
 */
#ifndef BLOOMFILTER_VALUE_HASH_H
#define BLOOMFILTER_VALUE_HASH_H

#include "pg_compat.h"

#include "common/hashfn.h"
#include "fmgr.h"

#include "core/bf_base.h"

/*
 * How scheme 3 hashes values of a type whose extended hash is hash_proc
 * (the kinds of types/value_hash.c): WIDE_NONE for a type it hashes as the
 * extended hash does.
 */
typedef enum BloomWideKind
{
	WIDE_NONE = 0,
	WIDE_INT64,					/* hashint8extended and its exact reusers */
	WIDE_INTERVAL,				/* interval_hash_extended: the 128-bit span */
	WIDE_TIMETZ,				/* timetz_hash_extended: time and zone */
	WIDE_ARRAY,					/* hash_array_extended */
	WIDE_RANGE,					/* hash_range_extended */
	WIDE_MULTIRANGE,			/* hash_multirange_extended */
	WIDE_RECORD					/* hash_record_extended */
} BloomWideKind;

extern BloomWideKind bloom_wide_kind(Oid hash_proc);

/* True if scheme 3 may hash values of typid otherwise than its extended hash. */
extern bool bloom_type_widened(Oid typid);

/*
 * Scheme 3's hash of a value whose type's extended hash is hash_proc, under
 * collation (types/value_hash.c).  For a type that hashes no widened value it
 * is the extended hash itself.
 */
extern uint64 bloom_wide_hash(Oid hash_proc, FmgrInfo *finfo, Oid collation,
							  Datum value, uint64 seed);

/*
 * hashint8extended of v (utils/adt/hashfunc.c: the high half folded into
 * the low half, so that int8 values equal to int4 ones hash alike), or
 * under scheme 3, for v beyond 32 bits, bf_hash_wide64 of all 64 bits.
 */
static inline uint64
bloom_hash_int64(int64 v, uint64 seed, uint8 scheme)
{
	uint32		lohalf = (uint32) v;
	uint32		hihalf = (uint32) (v >> 32);

	if (bf_scheme_wide(scheme) && bf_hash_wide_needed(v))
		return bf_hash_wide64((uint64) v, seed);
	lohalf ^= (v >= 0) ? hihalf : ~hihalf;
	return hash_bytes_uint32_extended(lohalf, seed);
}

#endif							/* BLOOMFILTER_VALUE_HASH_H */
