/*
 * interop_format.h
 *	  Filters other systems write, read and written bit for bit: Parquet's
 *	  split-block bitset (alone, or after its Thrift BloomFilterHeader as it
 *	  sits in a file), Guava's BloomFilter.writeTo and Spark's sketch
 *	  BloomFilter.writeTo (versions 1 and 2); and the hash each of them
 *	  gives a value's interop bytes, the BloomHash the interop layouts take
 *	  (layout_splitblock.h, layout_guava.h, layout_spark.h).  Above the
 *	  filter and its wire format; the byte layouts: doc/interop.md.
 *
 *	  Reading is two steps so the caller allocates: bf_interop_parse checks
 *	  the bytes in full and says the filter's shape, bf_interop_fill copies
 *	  the bits into a filter of that shape.  Writing likewise:
 *	  bf_interop_export_bytes, then bf_interop_export.
 */
#ifndef BF_INTEROP_FORMAT_H
#define BF_INTEROP_FORMAT_H

#include "filter.h"
#include "interop_positions.h"

typedef enum BfInteropFormat
{
	BF_FORMAT_PARQUET,			/* the split-block bitset alone */
	BF_FORMAT_PARQUET_HEADER,	/* Thrift compact BloomFilterHeader, then the bitset */
	BF_FORMAT_GUAVA,			/* Guava BloomFilter.writeTo */
	BF_FORMAT_SPARK,			/* Spark sketch BloomFilter.writeTo */
	BF_NUM_FORMATS
} BfInteropFormat;

/* The format of that name, or -1. */
extern int	bf_interop_format_from_name(const char *name);
extern const char *bf_interop_format_name(int format);

/* What bf_interop_parse found: the filter's shape, where its bits start. */
typedef struct BfInteropImport
{
	BloomShape	shape;			/* checked (bf_shape_check) */
	uint64_t	seed;			/* the interop hashing word's seed bits */
	size_t		bits_offset;	/* first byte of the bitset */
	bool		big_endian;		/* Java's 64-bit words, else Parquet's bytes */
} BfInteropImport;

/*
 * Checks len bytes at buf as the format says, before anything is
 * allocated: truncated or trailing bytes, unknown strategies, versions,
 * algorithms, sizes over the format's limits, a header that disagrees with
 * its bitset.  True with *out filled, or false and a message in errbuf.
 */
extern bool bf_interop_parse(const uint8_t *buf, size_t len, int format,
							 BfInteropImport *out, char *errbuf);

/*
 * After bf_interop_parse refused buf: a hint when the bytes are of another
 * format than the one given (a Parquet header before the bitset given as
 * 'parquet'), else NULL.
 */
extern const char *bf_interop_parse_hint(const uint8_t *buf, size_t len, int format);

/*
 * Fills f, allocated and zeroed for out->shape, from the bytes
 * bf_interop_parse accepted; its seed word is out->seed | options.
 */
extern void bf_interop_fill(const uint8_t *buf, const BfInteropImport *in, uint64_t options,
							BloomFilter *f);

/*
 * Bytes of f in that format, or 0 with a message if f is not of the
 * format's layout.
 */
extern uint64_t bf_interop_export_bytes(const BloomFilter *f, int format, char *errbuf);

/* Writes f in that format into out, of bf_interop_export_bytes bytes. */
extern void bf_interop_export(const BloomFilter *f, int format, uint8_t *out);

/* ---- the other systems' hashes of a value ---- */

/*
 * The BloomHash of a value whose interop bytes (its plain encoding, the
 * bytes its funnel writes, the bytes Spark SQL's xxhash64 reads) are
 * p[0 .. len) in interop filter f.  For Spark, unless f puts raw longs, the
 * long put is XXH64 of them with seed 42 (bloom_filter_agg's input); with
 * raw longs, the bytes are put as Spark's putBinary puts them.
 */
extern BloomHash bf_interop_hash_bytes(const BloomFilter *f, const void *p, size_t len);

/*
 * The same for the integer v as its 4 (len 4, v < 2^32) or 8 little-endian
 * bytes, without going through memory.
 */
extern BloomHash bf_interop_hash_int(const BloomFilter *f, uint64_t v, size_t len);

/*
 * Probing with the modulus of f's positions prepared once per filter
 * (bf_modulus(f->nbits), interop_positions.h): bf_query and bf_query_batch
 * of an interop filter without a 128-bit division per value.
 */
extern bool bf_interop_query(const BloomFilter *f, const BfModulus *mod, BloomHash h);
extern int	bf_interop_query_batch(const BloomFilter *f, const BfModulus *mod,
								   const BloomHash *h, int n, bool *found);

/* Spark: the BloomHash of the long v put as it is (putLong). */
extern BloomHash bf_interop_hash_long(const BloomFilter *f, uint64_t v);

/* True if f is a Spark filter putting values as longs directly. */
static inline bool
bf_interop_raw_longs(const BloomFilter *f)
{
	return (f->seed & BF_INTEROP_RAW_LONGS) != 0;
}

/* Spark SQL's xxhash64 seed. */
#define BF_SPARK_XXHASH_SEED	42

#endif							/* BF_INTEROP_FORMAT_H */
