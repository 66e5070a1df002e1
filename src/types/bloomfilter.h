/*
 * bloomfilter.h
 *	  PostgreSQL glue shared by both types (bloom and multibloom) and their
 *	  aggregates: reading, writing and checking filter values, hashing a
 *	  Datum by its type's default hash opclass, the per-call-site cache, and
 *	  the helpers of aggregate support functions.  Include postgres.h first.
 */
#ifndef BLOOMFILTER_H
#define BLOOMFILTER_H

#include "pg_compat.h"

#include "access/detoast.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/nodes.h"

#include "core/filter.h"
#include "core/wire.h"
#include "types/value_hash.h"

/* ---------------------------------------------------------------------
 * Filter values of either type
 *
 * A filter value is a varlena whose length word is the size of its struct,
 * stored as it lives in memory.  What differs between the two types (the
 * core's checks and wire format, the names in messages) is in a FilterType;
 * everything else about reading and writing values is done once, here.
 * --------------------------------------------------------------------- */

typedef struct FilterType
{
	const char *typname;		/* the SQL type: "bloom" */
	const char *noun;			/* in messages: "bloom filter" */
	/* true if the struct of size bytes is consistent, else a reason */
	bool		(*struct_check) (const void *value, uint64 size, char *errbuf);
	/*
	 * true if buf is a valid binary form of a struct of *bytes bytes: the
	 * core's own function, hence its types
	 */
	bool		(*wire_check) (const uint8_t *buf, size_t len, uint64_t *bytes,
							   char *errbuf);
	/* fills value (its length word set) from a binary form wire_check passed */
	void		(*deserialize) (const uint8 *buf, void *value);
	uint64		(*wire_bytes) (const void *value);
	void		(*serialize) (const void *value, uint8 *out);
} FilterType;

extern const FilterType bloom_type;

/*
 * Defines const FilterType prefix_type, the SQL type typname ("noun" in
 * messages) whose structs are CType, with the core's functions
 * core_wire_check as they are, and core_struct_check, core_wire_bytes and
 * core_serialize behind callbacks that only cast the value.  The type's
 * own prefix_deserialize (it sets what the host owns) is defined before.
 */
#define FILTER_TYPE_DEFINE(prefix, core, CType, typname_, noun_) \
	static bool \
	prefix##_struct_check(const void *value, uint64 size, char *errbuf) \
	{ \
		return core##_struct_check((const CType *) value, size, errbuf); \
	} \
	static uint64 \
	prefix##_wire_bytes(const void *value) \
	{ \
		return core##_wire_bytes((const CType *) value); \
	} \
	static void \
	prefix##_serialize(const void *value, uint8 *out) \
	{ \
		core##_serialize((const CType *) value, out); \
	} \
	const FilterType prefix##_type = { \
		.typname = typname_, \
		.noun = noun_, \
		.struct_check = prefix##_struct_check, \
		.wire_check = core##_wire_check, \
		.deserialize = prefix##_deserialize, \
		.wire_bytes = prefix##_wire_bytes, \
		.serialize = prefix##_serialize, \
	}

/*
 * Detoasts a filter Datum and checks its struct against its size, so damaged
 * or forged values end in an ERROR rather than a wild read.  May return the
 * Datum's own memory: treat the result as read-only.
 */
extern const void *filter_from_datum(Datum d, const FilterType *type);

/*
 * A filter from its binary form, or an ERROR with sqlstate.  The form is
 * checked, and the size it implies bounded, before anything is allocated.
 */
extern void *filter_from_wire(const uint8 *buf, size_t len, int sqlstate,
							  const FilterType *type);

/*
 * A filter from the binary form that follows prefix bytes of a bytea (the
 * cast from bytea, partial aggregate states), or an ERROR with sqlstate.
 */
extern void *filter_from_bytea(const bytea *b, Size prefix, int sqlstate,
							   const FilterType *type);

/* The binary form as a bytea, after prefix bytes left for the caller. */
extern bytea *filter_to_bytea(const void *value, Size prefix, const FilterType *type);

/* Text I/O: the text form is the base64 of the binary form. */
extern void *filter_text_in(const char *str, const FilterType *type);
extern char *filter_text_out(const void *value, const FilterType *type);

/* Binary receive: the rest of the message is the binary form. */
extern void *filter_recv(StringInfo buf, const FilterType *type);

/* A private, writable copy of a filter. */
extern void *filter_copy(const void *value);

/*
 * The I/O entry points of a filter type, all alike: prefix_in, prefix_out
 * and prefix_recv (text and binary input, checked in full), prefix_send
 * (also the cast to bytea: the binary form) and prefix_from_bytea (the cast
 * from bytea), for the type whose FilterType is type.
 */
#define FILTER_TYPE_IO_FUNCTIONS(prefix, type) \
	PG_FUNCTION_INFO_V1(prefix##_in); \
	PG_FUNCTION_INFO_V1(prefix##_out); \
	PG_FUNCTION_INFO_V1(prefix##_recv); \
	PG_FUNCTION_INFO_V1(prefix##_send); \
	PG_FUNCTION_INFO_V1(prefix##_from_bytea); \
	Datum \
	prefix##_in(PG_FUNCTION_ARGS) \
	{ \
		PG_RETURN_POINTER(filter_text_in(PG_GETARG_CSTRING(0), &(type))); \
	} \
	Datum \
	prefix##_out(PG_FUNCTION_ARGS) \
	{ \
		PG_RETURN_CSTRING(filter_text_out(filter_from_datum(PG_GETARG_DATUM(0), &(type)), \
										  &(type))); \
	} \
	Datum \
	prefix##_recv(PG_FUNCTION_ARGS) \
	{ \
		PG_RETURN_POINTER(filter_recv((StringInfo) PG_GETARG_POINTER(0), &(type))); \
	} \
	Datum \
	prefix##_send(PG_FUNCTION_ARGS) \
	{ \
		PG_RETURN_BYTEA_P(filter_to_bytea(filter_from_datum(PG_GETARG_DATUM(0), &(type)), \
										  0, &(type))); \
	} \
	Datum \
	prefix##_from_bytea(PG_FUNCTION_ARGS) \
	{ \
		PG_RETURN_POINTER(filter_from_bytea(PG_GETARG_BYTEA_PP(0), 0, \
											ERRCODE_INVALID_BINARY_REPRESENTATION, \
											&(type))); \
	} \
	extern int	no_such_variable	/* takes the semicolon, as in fmgr.h */

/*
 * The text form of every filter and aggregate state: the base64 of its
 * binary form.  text_form_decode returns the bytes (*nbytes of them) of
 * str, or an ERROR (invalid_text_representation) naming typname, with a
 * hint of what the text form of a hint_noun is unless that is NULL.
 * text_form_encode returns the text of nbytes bytes, which the caller has
 * checked with text_form_fits (the text is a third larger than the bytes).
 */
extern uint8 *text_form_decode(const char *str, size_t *nbytes, const char *typname,
							   const char *hint_noun);
extern bool text_form_fits(uint64 nbytes);
extern char *text_form_encode(const uint8 *bytes, size_t nbytes);

#define PG_GETARG_BLOOM(n) \
	((const BloomFilter *) filter_from_datum(PG_GETARG_DATUM(n), &bloom_type))
#define PG_RETURN_BLOOM(f)	PG_RETURN_POINTER(f)

/* ---------------------------------------------------------------------
 * Bloom filters from SQL arguments
 * --------------------------------------------------------------------- */

/* ERROR (invalid_parameter_value) unless value >= 1; what names it. */
extern void check_at_least_one(int64 value, const char *what);

/* The layout of that name ("classic", "blocked", "matrix"), or an ERROR. */
extern int	bloom_layout_from_name(const char *name);

/* The shape of bloom_empty(capacity, fpp, layout), or an ERROR. */
extern void bloom_shape_for_capacity(int64 capacity, double fpp, int layout,
									 BloomShape *shape);

/* ERROR for a shape the core rejected (errbuf holds its reason). */
pg_noreturn extern void bloom_report_shape_error(const char *errbuf);

/*
 * Allocates an empty filter of a valid shape in the current memory context.
 * The shape must have passed bf_shape_check (the size is then bounded).
 */
extern BloomFilter *bloom_alloc(const BloomShape *shape);

extern void bloom_check_compatible(const BloomFilter *a, const BloomFilter *b,
								   const char *operation);

/*
 * a | b or a & b of any representations (bf_setop_plan): the plan, or an
 * ERROR when they do not combine; then the result, a new filter in the
 * current memory context.  bloom_setop does both.
 */
extern void bloom_setop_plan(const BloomFilter *a, const BloomFilter *b, bool intersect,
							 BfSetop *op);
extern BloomFilter *bloom_setop_result(const BloomFilter *a, const BloomFilter *b,
									   const BfSetop *op);
extern BloomFilter *bloom_setop(const BloomFilter *a, const BloomFilter *b, bool intersect);

/* ---------------------------------------------------------------------
 * Hashing values
 *
 * A type's extended hash function (from its default hash opclass, the one
 * hash joins use) and the collation to call it with.  Hashing through the
 * opclass makes membership agree with the type's "=", across the integer
 * types and numeric scales, and under nondeterministic collations.
 *
 * The value hash depends on the filter's hash scheme (core/bf_base.h):
 * schemes 1 and 2 use the extended hash as it is; scheme 3 (every new
 * filter) uses it too, except for the 64-bit quantities that bigint's
 * extended hash and its reusers fold into 32 bits: there, a value beyond
 * 32 bits gets bf_hash_wide64 of its full width, and containers of such
 * values (arrays, ranges, multiranges, records) hash their elements so
 * (types/value_hash.c).  Every call passes the scheme of the filter it
 * hashes for.
 * --------------------------------------------------------------------- */

typedef enum BloomHashKind
{
	BLOOM_HASH_UNSET = 0,		/* not set up yet (zeroed memory) */
	BLOOM_HASH_FMGR,			/* call the opclass function through fmgr */
	BLOOM_HASH_UNKNOWN_AS_TEXT, /* an untyped literal (a C string), hashed
								 * as the text it stands for, through fmgr */
	BLOOM_HASH_INT2,			/* hashint2extended, inlined */
	BLOOM_HASH_INT4,			/* hashint4extended, inlined */
	BLOOM_HASH_INT8,			/* hashint8extended or a function that is
								 * exactly it (timestamp, time, pg_lsn,
								 * xid8), inlined; widened by scheme 3 */
	BLOOM_HASH_TEXT_BYTES,		/* hashtextextended under a deterministic
								 * collation: the bytes, inlined */
	BLOOM_HASH_BPCHAR_TRIMMED,	/* hashbpcharextended under a
								 * nondeterministic collation, given the
								 * value without its trailing spaces */
	BLOOM_HASH_WIDENED			/* interval, timetz and containers that may
								 * hold a widened type: fmgr under schemes 1
								 * and 2, bloom_wide_hash under scheme 3 */
} BloomHashKind;

/*
 * Set up in place and never moved afterwards: call, a frame prepared once
 * for the fmgr paths, points at proc.
 */
typedef struct BloomHasher
{
	BloomHashKind kind;			/* a direct path giving identical hashes */
	Oid			collation;
	FmgrInfo	proc;
	FunctionCallInfo call;		/* proc's frame: two arguments, collation */
} BloomHasher;

/* Sets up hasher for values of type typid (UNKNOWNOID: untyped literals). */
extern void bloom_hasher_init(BloomHasher *hasher, Oid typid, Oid collation,
							  MemoryContext mcxt);

/* The paths of bloom_hasher_value_hash that are not inlined. */
extern uint64 bloom_hasher_call(BloomHasher *hasher, Datum value, uint64 seed,
								uint8 scheme);

/*
 * The value hash of a value in a filter of that seed and hash scheme.  For
 * the integer types and for text under a deterministic collation this
 * computes, without the fmgr round trip, exactly what the opclass function
 * (hashint8extended and friends in utils/adt/hashfunc.c) returns, widened
 * as scheme 3 says; sql/003_bloom_fastpath.sql checks that they agree.
 */
static inline uint64
bloom_hasher_value_hash(BloomHasher *hasher, Datum value, uint64 seed, uint8 scheme)
{
	switch (hasher->kind)
	{
		case BLOOM_HASH_INT8:
			return bloom_hash_int64(DatumGetInt64(value), seed, scheme);
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
		default:
			break;
	}
	return bloom_hasher_call(hasher, value, seed, scheme);
}

/* The positions' hash of a value in a filter with that seed and scheme. */
static inline BloomHash
bloom_hasher_hash(BloomHasher *hasher, Datum value, uint64 seed, uint8 scheme)
{
	return bf_hash_derive(bloom_hasher_value_hash(hasher, value, seed, scheme));
}

/* ---------------------------------------------------------------------
 * The per-call-site cache (fn_extra), the same for every function of both
 * types: the filter argument, detoasted and checked once per distinct
 * value, and a hasher per value position, set up on first use.
 * --------------------------------------------------------------------- */

typedef struct FilterArgCache
{
	struct varlena *raw;		/* the toasted form the filter came from */
	Size		raw_size;
	void	   *filter;			/* detoasted and checked, in fn_mcxt, on a
								 * 64-byte boundary */
	void	   *filter_alloc;	/* the allocation holding filter */
	int8		arg_stable;		/* 0 unknown, 1 stable argument, -1 not */
	const void *checked;		/* a stable in-place argument already checked */
} FilterArgCache;

typedef struct FilterCallCache
{
	FilterArgCache filter_arg;
	/* values given as one array (bloom_add_all, VARIADIC ARRAY[...]) */
	int8		values_in_array;	/* 0 not known yet, 1 an array, -1 not */
	Oid			elemtype;		/* the array's element type, */
	int16		elemlen;		/* and how it is stored */
	bool		elembyval;
	char		elemalign;
	void	   *interop;		/* an interop filter's value encoder
								 * (types/interop_value.h), or NULL */
	int			nhashers;
	BloomHasher hashers[FLEXIBLE_ARRAY_MEMBER];	/* one per value position */
} FilterCallCache;

/* The call site's cache, created (all unset) with room for nhashers. */
extern FilterCallCache *filter_call_cache_create(FunctionCallInfo fcinfo, int nhashers);

static inline FilterCallCache *
filter_call_cache(FunctionCallInfo fcinfo, int nhashers)
{
	FilterCallCache *cache = (FilterCallCache *) fcinfo->flinfo->fn_extra;

	if (likely(cache != NULL))
		return cache;
	return filter_call_cache_create(fcinfo, nhashers);
}

/* Records that the values come as an array of elemtype. */
extern void filter_call_cache_set_array(FilterCallCache *cache, Oid elemtype);

/*
 * For the functions of bloom: the cache with hashers[0] ready for argument
 * value_argno, hashed under the call's collation.  Per row: one load and a
 * test once it is set up.
 */
extern FilterCallCache *bloom_call_cache_setup(FunctionCallInfo fcinfo, int value_argno);

static inline FilterCallCache *
bloom_call_cache(FunctionCallInfo fcinfo, int value_argno)
{
	FilterCallCache *cache = (FilterCallCache *) fcinfo->flinfo->fn_extra;

	if (likely(cache != NULL && cache->hashers[0].kind != BLOOM_HASH_UNSET))
		return cache;
	return bloom_call_cache_setup(fcinfo, value_argno);
}

/* The filter in argument argno, detoasted at most once per distinct value. */
extern const void *filter_arg_cached_slow(FunctionCallInfo fcinfo, int argno,
										  FilterArgCache *cache,
										  const FilterType *type);

/*
 * The per-row fast path of filter_arg_cached_slow: a constant filter already
 * checked, or the same on-disk TOAST pointer as the row before (an 18-byte
 * compare the compiler inlines).
 */
static inline const void *
filter_arg_cached(FunctionCallInfo fcinfo, int argno, FilterArgCache *cache,
				  const FilterType *type)
{
	const struct varlena *raw = (const struct varlena *) PG_GETARG_POINTER(argno);

	if (raw == cache->checked)
		return raw;
	if (cache->filter != NULL && cache->raw_size == TOAST_POINTER_SIZE &&
		VARATT_IS_EXTERNAL_ONDISK(raw) &&
		memcmp(raw, cache->raw, TOAST_POINTER_SIZE) == 0)
		return cache->filter;
	return filter_arg_cached_slow(fcinfo, argno, cache, type);
}

/* ---------------------------------------------------------------------
 * Aggregate support functions
 * --------------------------------------------------------------------- */

/* The aggregate's memory context, or an ERROR naming fname. */
extern MemoryContext agg_memory_context(FunctionCallInfo fcinfo, const char *fname);

/* Argument argno (0-based) of the aggregate call as written, or NULL. */
extern Node *agg_arg_expr(FunctionCallInfo fcinfo, int argno);

/*
 * Argument argno of the aggregate call if it is a non-null constant (the
 * planner leaves literals and folded casts there); else false.
 */
extern bool agg_const_arg(FunctionCallInfo fcinfo, int argno, Datum *value);

/*
 * True when the aggregate call (AggGetAggref) is the aggregate whose
 * transition or final function is running, so its arguments are ours to
 * read.  Under Citus the functions run inside Citus's own aggregates
 * (worker_partial_agg, coord_combine_agg), whose Aggref is not.
 */
extern bool agg_call_is_own(FunctionCallInfo fcinfo);

#endif							/* BLOOMFILTER_H */
