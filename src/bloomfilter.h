/*
 * bloomfilter.h
 *	  PostgreSQL glue shared by the bloom type, its aggregates and multibloom:
 *	  hashing a Datum by its type's default hash opclass, allocating and
 *	  reading filters, and reporting the core's errors.
 */
#ifndef BLOOMFILTER_H
#define BLOOMFILTER_H

#include "postgres.h"

#include "fmgr.h"

#include "bloom_core.h"

/* ---- filters as PostgreSQL values ---- */

/*
 * Allocates an empty filter of a valid shape in the current memory context.
 * The shape must have passed bloom_shape_check (the size is then bounded).
 */
extern BloomFilter *bloom_alloc(const BloomShape *shape);

/* A private, writable copy of a filter. */
extern BloomFilter *bloom_copy(const BloomFilter *f);

/*
 * Detoasts a bloom Datum and checks its header against its size, so damaged
 * or forged values end in an ERROR rather than a wild read.  May return the
 * Datum's own memory: treat the result as read-only.
 */
extern const BloomFilter *bloom_from_datum(Datum d);

#define PG_GETARG_BLOOM(n)	bloom_from_datum(PG_GETARG_DATUM(n))
#define PG_RETURN_BLOOM(f)	PG_RETURN_POINTER(f)

/* ERROR for a shape the core rejected (errbuf holds its reason). */
extern void bloom_report_shape_error(const char *errbuf) pg_attribute_noreturn();

/* ERROR unless a and b can be united or intersected. */
extern void bloom_check_compatible(const BloomFilter *a, const BloomFilter *b,
								   const char *operation);

/* Builds a filter from its validated binary form, or ERRORs (errcode given). */
extern BloomFilter *bloom_from_wire(const uint8 *buf, size_t len, int sqlstate);

/* ---- hashing values ---- */

/*
 * A type's extended hash function (from its default hash opclass, the one
 * hash joins use) and the collation to call it with.  Hashing through the
 * opclass makes membership agree with the type's "=", across the integer
 * types and numeric scales, and under nondeterministic collations.
 */
typedef struct BloomHasher
{
	Oid			typid;			/* type as given (for messages) */
	Oid			collation;
	FmgrInfo	proc;
} BloomHasher;

extern void bloom_hasher_init(BloomHasher *hasher, Oid typid, Oid collation,
							  MemoryContext mcxt);

/* The value's 64-bit hash H(value, seed) (step 1 of hash scheme 1). */
static inline uint64
bloom_hasher_hash64(const BloomHasher *hasher, Datum value, uint64 seed)
{
	Datum		h = FunctionCall2Coll((FmgrInfo *) &hasher->proc, hasher->collation,
									  value, UInt64GetDatum(seed));

	return DatumGetUInt64(h);
}

static inline BloomHash
bloom_hasher_hash(const BloomHasher *hasher, Datum value, uint64 seed)
{
	return bloom_hash_derive(bloom_hasher_hash64(hasher, value, seed));
}

/*
 * Per-call-site cache kept in fn_extra: the hash function for one argument's
 * type, and the filter argument detoasted once per query when the same
 * stored value comes back row after row.
 */
typedef struct BloomArgCache
{
	struct varlena *raw;		/* the toasted form the filter came from */
	Size		raw_size;
	BloomFilter *filter;		/* detoasted and checked, in fn_mcxt */
} BloomArgCache;

typedef struct BloomCallCache
{
	bool		hasher_ready;
	BloomHasher hasher;
	BloomArgCache filter_arg;
} BloomCallCache;

/* The call site's cache, with the hasher for argument value_argno ready. */
extern BloomCallCache *bloom_call_cache(FunctionCallInfo fcinfo, int value_argno);

/* The filter in argument argno, detoasted at most once per distinct value. */
extern const BloomFilter *bloom_arg_cached(FunctionCallInfo fcinfo, int argno,
										   BloomArgCache *cache);

#endif							/* BLOOMFILTER_H */
