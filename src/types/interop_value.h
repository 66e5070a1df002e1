/*
 * interop_value.h
 *	  How SQL values become the bytes a other system hashes (Parquet's
 *	  plain encoding of a physical type, the bytes of a Guava funnel, the
 *	  input of Spark SQL's xxhash64), and the options that choose it
 *	  (types/interop_value.c, doc/interop.md).  The hash of those bytes and
 *	  the filter's bits are the core's (core/interop_format.h).  Include
 *	  postgres.h first.
 */
#ifndef BLOOMFILTER_INTEROP_VALUE_H
#define BLOOMFILTER_INTEROP_VALUE_H

#include "fmgr.h"

#include "core/filter.h"
#include "core/interop_positions.h"

/* How a value of one SQL type becomes interop bytes (interop_value.c). */
typedef struct InteropEncoder
{
	Oid			typid;			/* the value's SQL type */
	uint8		layout;			/* resolved for this layout, */
	uint64		seed;			/* interop hashing word */
	uint64		nbits;			/* and size: */
	BfModulus	mod;			/* the positions' modulus, for bf_interop_query */
	int			kind;			/* the encoding, an EncodeKind */
	int			source;			/* how the Datum is read, a SourceKind */
} InteropEncoder;

/*
 * The interop hashing word (the seed field of an interop filter, bf_base.h)
 * that options (comma-separated key=value) give a filter of that layout,
 * or an ERROR naming an unknown or misplaced key or value.  building: the
 * options of bloom_empty or bloom_agg (Spark's version is then allowed;
 * it must match the layout).
 */
extern uint64 bloom_interop_options(const char *options, int *layout, bool building);

/*
 * Sets up enc for values of typid in filter f, or an ERROR when the
 * filter's options and the type do not go together.  Cheap to call per row
 * once set: it only compares.
 */
extern void bloom_interop_encoder_prepare(InteropEncoder *enc, const BloomFilter *f, Oid typid);

/* The other system's hash of value in f (enc prepared for f). */
extern BloomHash bloom_interop_hash(const InteropEncoder *enc, const BloomFilter *f, Datum value);

/* True if f may hold value, as the other system answers (enc prepared for f). */
extern bool bloom_interop_contains(const InteropEncoder *enc, const BloomFilter *f, Datum value);

/*
 * The encoder of a call site for argument argno, kept in fn_extra's cache
 * (allocated in fn_mcxt on first use) and prepared for f.
 */
extern InteropEncoder *bloom_interop_encoder_for_arg(FunctionCallInfo fcinfo, void **slot,
													 const BloomFilter *f, int argno);

/* The interop layout of a name used to build ("parquet", "guava", ...), or -1. */
extern int	bloom_interop_layout_from_name(const char *name);

/*
 * The shape of bloom_empty(capacity, fpp, layout, options) and of bloom_agg
 * with options, and the interop hashing word to give the filter (0 for a
 * native layout, which takes no options), or an ERROR.
 */
extern uint64 bloom_interop_shape(int64 capacity, double fpp, const char *layout_name,
								  const char *options, BloomShape *shape);

#endif							/* BLOOMFILTER_INTEROP_VALUE_H */
