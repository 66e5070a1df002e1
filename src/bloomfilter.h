/*
 * bloomfilter.h
 *	  PostgreSQL glue shared by the bloom type, its aggregates and multibloom:
 *	  hashing a Datum by its type's default hash opclass, allocating and
 *	  reading filters, and reporting the core's errors.
 */
#ifndef BLOOMFILTER_H
#define BLOOMFILTER_H

#include "postgres.h"
#include "pg_compat.h"

#include "access/detoast.h"
#include "fmgr.h"
#include "common/hashfn.h"

#include "bloom_core.h"

/* ---- filters as PostgreSQL values ---- */

/*
 * Allocates an empty filter of a valid shape in the current memory context.
 * The shape must have passed bf_shape_check (the size is then bounded).
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
pg_noreturn extern void bloom_report_shape_error(const char *errbuf);

/* ERROR unless a and b can be united or intersected. */
extern void bloom_check_compatible(const BloomFilter *a, const BloomFilter *b,
								   const char *operation);

/* Builds a filter from its validated binary form, or ERRORs (errcode given). */
extern BloomFilter *bloom_from_wire(const uint8 *buf, size_t len, int sqlstate);

/*
 * Text I/O shared by both types (bloom and multibloom): the text form is the
 * base64 of the binary form.  bloom_text_decode returns the decoded bytes
 * (palloc'd) or raises invalid_text_representation naming the type;
 * bloom_text_encode checks that the text fits in 1 GB before anything is
 * allocated (noun: "bloom filter", "multibloom") and returns the text of
 * wire bytes that fill() writes.
 */
extern uint8 *bloom_text_decode(const char *str, size_t *nbytes,
								const char *typname, const char *noun);
extern char *bloom_text_encode(uint64 wire, const char *noun,
							   void (*fill) (const void *value, uint8 *out),
							   const void *value);

/* True if a raw Datum can be read in place: plain 4-byte header, aligned. */
static inline bool
bloom_varlena_in_place(const struct varlena *raw)
{
	return !VARATT_IS_EXTENDED(raw) && ((uintptr_t) raw % sizeof(uint64)) == 0;
}

/* ---- hashing values ---- */

/*
 * A type's extended hash function (from its default hash opclass, the one
 * hash joins use) and the collation to call it with.  Hashing through the
 * opclass makes membership agree with the type's "=", across the integer
 * types and numeric scales, and under nondeterministic collations.
 */
typedef enum BloomHashKind
{
	BLOOM_HASH_FMGR,			/* call the opclass function through fmgr */
	BLOOM_HASH_INT2,			/* hashint2extended, inlined */
	BLOOM_HASH_INT4,			/* hashint4extended, inlined */
	BLOOM_HASH_INT8,			/* hashint8extended, inlined */
	BLOOM_HASH_TEXT_BYTES		/* hashtextextended under a deterministic
								 * collation: the bytes, inlined */
} BloomHashKind;

typedef struct BloomHasher
{
	Oid			typid;			/* type as given (for messages) */
	Oid			collation;
	BloomHashKind kind;			/* a direct path giving identical hashes */
	FmgrInfo	proc;
} BloomHasher;

extern void bloom_hasher_init(BloomHasher *hasher, Oid typid, Oid collation,
							  MemoryContext mcxt);

/*
 * The type's extended hash of a value.  For the integer types and for text
 * under a deterministic collation this computes, without the fmgr round
 * trip, exactly what the opclass function (hashint8extended and friends in
 * utils/adt/hashfunc.c) returns; sql/302_fastpath.sql checks that they agree.
 */
static inline uint64
bloom_hasher_value_hash(const BloomHasher *hasher, Datum value, uint64 seed)
{
	switch (hasher->kind)
	{
		case BLOOM_HASH_INT8:
			{
				/* fold so that int8 values equal to int4 ones hash alike */
				int64		v = DatumGetInt64(value);
				uint32		lohalf = (uint32) v;
				uint32		hihalf = (uint32) (v >> 32);

				lohalf ^= (v >= 0) ? hihalf : ~hihalf;
				return hash_bytes_uint32_extended(lohalf, seed);
			}
		case BLOOM_HASH_INT4:
			return hash_bytes_uint32_extended((uint32) DatumGetInt32(value), seed);
		case BLOOM_HASH_INT2:
			return hash_bytes_uint32_extended((uint32) (int32) DatumGetInt16(value), seed);
		case BLOOM_HASH_TEXT_BYTES:
			{
				struct varlena *t = (struct varlena *) DatumGetPointer(value);

				/*
				 * plain and short headers in place; compressed and external
				 * (whose 1-byte header also counts as short) via fmgr
				 */
				if (!VARATT_IS_EXTENDED(t))
					return hash_bytes_extended((const unsigned char *) VARDATA(t),
											   VARSIZE(t) - VARHDRSZ, seed);
				if (VARATT_IS_SHORT(t) && !VARATT_IS_EXTERNAL(t))
					return hash_bytes_extended((const unsigned char *) VARDATA_SHORT(t),
											   VARSIZE_SHORT(t) - VARHDRSZ_SHORT, seed);
				break;
			}
		case BLOOM_HASH_FMGR:
			break;
	}
	return DatumGetUInt64(FunctionCall2Coll((FmgrInfo *) &hasher->proc,
											hasher->collation,
											value, UInt64GetDatum(seed)));
}

static inline BloomHash
bloom_hasher_hash(const BloomHasher *hasher, Datum value, uint64 seed)
{
	return bf_hash_derive(bloom_hasher_value_hash(hasher, value, seed));
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
	BloomFilter *filter;		/* detoasted and checked, in fn_mcxt, with
								 * its words on a 64-byte boundary */
	void	   *filter_alloc;	/* the allocation holding filter */
	int8		arg_stable;		/* 0 unknown, 1 stable argument, -1 not */
	const void *checked;		/* a stable in-place argument already checked */
} BloomArgCache;

typedef struct BloomCallCache
{
	bool		hasher_ready;
	BloomHasher hasher;
	BloomArgCache filter_arg;
} BloomCallCache;

/* The call site's cache, with the hasher for argument value_argno ready. */
extern BloomCallCache *bloom_call_cache_setup(FunctionCallInfo fcinfo, int value_argno);

/* Per row: one load and a test once the cache is set up. */
static inline BloomCallCache *
bloom_call_cache(FunctionCallInfo fcinfo, int value_argno)
{
	BloomCallCache *cache = (BloomCallCache *) fcinfo->flinfo->fn_extra;

	if (likely(cache != NULL && (value_argno < 0 || cache->hasher_ready)))
		return cache;
	return bloom_call_cache_setup(fcinfo, value_argno);
}

/* The filter in argument argno, detoasted at most once per distinct value. */
extern const BloomFilter *bloom_arg_cached_slow(FunctionCallInfo fcinfo, int argno,
										   BloomArgCache *cache);

/*
 * The per-row fast path of bloom_arg_cached_slow: a constant filter already
 * checked, or the same on-disk TOAST pointer as the row before (an 18-byte
 * compare the compiler inlines).
 */
static inline const BloomFilter *
bloom_arg_cached(FunctionCallInfo fcinfo, int argno, BloomArgCache *cache)
{
	const struct varlena *raw = (const struct varlena *) PG_GETARG_POINTER(argno);

	if (raw == cache->checked)
		return (const BloomFilter *) raw;
	if (cache->filter != NULL && cache->raw_size == TOAST_POINTER_SIZE &&
		VARATT_IS_EXTERNAL_ONDISK(raw) &&
		memcmp(raw, cache->raw, TOAST_POINTER_SIZE) == 0)
		return cache->filter;
	return bloom_arg_cached_slow(fcinfo, argno, cache);
}

#endif							/* BLOOMFILTER_H */
