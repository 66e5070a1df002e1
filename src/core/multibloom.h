/*
 * multibloom.h
 *	  The multi-attribute Bloom filter in plain C (no PostgreSQL): after Xiao
 *	  & Hua's parallel Bloom filter with a verification filter (PBF-BF).
 *	  Use it to test whole rows (a, b, ...) for membership with the rate of
 *	  one filter, where separate per-column filters would accept every
 *	  cross-combination of values seen; src/multibloom*.c is the SQL glue.
 *
 *	  A multibloom holds nattrs complete bloom filters, one per attribute,
 *	  each with its own seed so their positions are independent, plus one
 *	  verification filter of whole rows, whose value hash is an
 *	  order-sensitive combination of the attributes' 64-bit hashes.  Every
 *	  part is a BloomFilter of core/filter.h, so inserting, probing, sizing,
 *	  uniting and the parts' binary form (core/wire.h) are bloom's own.
 *
 *	  In memory (and on disk) a multibloom is a varlena:
 *
 *		MultiBloom header (24 bytes) | offsets[nattrs + 1] | part 1 | ... |
 *		part nattrs | verification part
 *
 *	  Every part is a whole BloomFilter struct, 8-byte aligned, at the offset
 *	  given (from the start of the value).  A part's own 4-byte length word
 *	  is owned by the host, like BloomFilter's: the core neither reads nor
 *	  checks it.  The binary format is described in doc/multibloom.md.
 */
#ifndef BF_MULTIBLOOM_H
#define BF_MULTIBLOOM_H

#include "filter.h"
#include "wire.h"

/* Format version written by this code; readers accept 1..this. */
#define MULTIBLOOM_FORMAT_VERSION	1

/* Attributes per filter: one seed byte each, and a bounded header. */
#define MULTIBLOOM_MAX_ATTRS		32

/* Flags.  Unknown flags are rejected by readers. */
#define MULTIBLOOM_FLAG_AUTOSIZED	0x01	/* built by the sizing aggregate */
#define MULTIBLOOM_KNOWN_FLAGS		(MULTIBLOOM_FLAG_AUTOSIZED)

/*
 * Seeds: attribute i (1-based) is hashed with seed i, so its filter is a
 * plain bloom filter with seed i; the verification filter records seed 0
 * and starts its row-hash chain from it.
 */
#define MULTIBLOOM_VERIFY_SEED		0
#define mbf_attr_seed(attno)	((uint64_t) (attno))

/* Seed of part i (0-based; i == nattrs is the verification filter). */
static inline uint64_t
mbf_part_seed(int i, int nattrs)
{
	return i == nattrs ? MULTIBLOOM_VERIFY_SEED : mbf_attr_seed(i + 1);
}

/* Binary format: fixed header bytes before the part lengths. */
#define MULTIBLOOM_WIRE_FIXED_BYTES	20

typedef struct MultiBloom
{
	int32_t		vl_len_;		/* host's length word; not part of the format */
	uint8_t		version;		/* MULTIBLOOM_FORMAT_VERSION */
	uint8_t		nattrs;			/* 1 .. MULTIBLOOM_MAX_ATTRS */
	uint8_t		flags;			/* MULTIBLOOM_FLAG_* */
	uint8_t		reserved0;		/* must be 0 */
	uint64_t	rows;			/* rows added, with NULLs or not (union: sum) */
	uint64_t	reserved1;		/* must be 0 */
	uint64_t	offsets[];		/* nattrs + 1 part offsets from the value's start */
} MultiBloom;

/* Bytes of the header including the offsets, for nattrs attributes. */
static inline uint64_t
mbf_header_bytes(int nattrs)
{
	return (uint64_t) offsetof(MultiBloom, offsets) + 8 * (uint64_t) (nattrs + 1);
}

/* Part i (0-based): attributes 0..nattrs-1, then the verification filter. */
static inline BloomFilter *
mbf_part(MultiBloom *mb, int i)
{
	return (BloomFilter *) ((char *) mb + mb->offsets[i]);
}

static inline const BloomFilter *
mbf_part_c(const MultiBloom *mb, int i)
{
	return (const BloomFilter *) ((const char *) mb + mb->offsets[i]);
}

static inline const BloomFilter *
mbf_verify_part(const MultiBloom *mb)
{
	return mbf_part_c(mb, mb->nattrs);
}

/*
 * The hash scheme of the value: every part's (readers check that they
 * agree), so an attribute is hashed once, for its part and for the row.
 */
static inline uint8_t
mbf_hash_scheme(const MultiBloom *mb)
{
	return mbf_part_c(mb, 0)->hash_scheme;
}

/* Bytes of part i, from the offsets. */
static inline uint64_t
mbf_part_bytes(const MultiBloom *mb, uint64_t total_bytes, int i)
{
	uint64_t	end = (i == mb->nattrs) ? total_bytes : mb->offsets[i + 1];

	return end - mb->offsets[i];
}

/* ---- shapes and sizes ---- */

/*
 * Shapes of the nattrs + 1 parts (shapes[nattrs] is the verification
 * filter): attribute i sized for attr_capacity[i] distinct values, the
 * verification filter for row_capacity distinct rows, each at fpp, with the
 * multibloom seeds.  Returns false with a message when out of range.
 */
extern bool mbf_shapes_for(int nattrs, const double *attr_capacity,
								  double row_capacity, double fpp,
								  BloomShape *shapes, char *errbuf);

/*
 * Bytes of the in-memory value for these part shapes; false with a message
 * if nattrs is out of range, a shape is invalid or the total exceeds the
 * 1 GB limit.  Nothing overflows.
 */
extern bool mbf_struct_bytes(int nattrs, const BloomShape *shapes,
									uint64_t *bytes, char *errbuf);

/*
 * Writes the header and empty parts into mb (mbf_struct_bytes bytes,
 * zeroed).  The parts' length words are left to the host.
 */
extern void mbf_init(MultiBloom *mb, int nattrs, const BloomShape *shapes);

/* Describes nattrs and every part's shape, e.g. for error messages. */
extern void mbf_describe(const MultiBloom *mb, char *buf, size_t len);

/* ---- hashing, insertion and lookup ---- */

/*
 * The verification filter's value hash: an order-sensitive chain over the
 * attributes' 64-bit hashes (each H(value_i, seed i)), so (a, b) and (b, a)
 * are different rows.
 */
extern uint64_t mbf_row_hash(const uint64_t *attr_hashes, int nattrs);

/*
 * Adds a row: each non-null attribute to its filter; the row to the
 * verification filter only when no attribute is null (a row with a null
 * cannot equal a fully given probe).  Returns true if any bit changed.
 */
extern bool mbf_add_row(MultiBloom *mb, const uint64_t *attr_hashes,
							   const bool *isnull);

/*
 * Probes a row: every non-null attribute in its filter, and, when no
 * attribute is null, the row in the verification filter.  All attributes
 * null: true if any row was ever added.
 */
extern bool mbf_query_row(const MultiBloom *mb, const uint64_t *attr_hashes,
								 const bool *isnull);

/* ---- set operations ---- */

/* True if a and b can be united; else false, errbuf naming both shapes. */
extern bool mbf_compatible(const MultiBloom *a, const MultiBloom *b, char *errbuf);

/*
 * dst |= src in place, for compatible shapes where mbf_union_fits:
 * no part of dst has more bits than src's (a larger auto-sized part of src
 * is folded onto dst's size).
 */
extern bool mbf_union_fits(const MultiBloom *dst, const MultiBloom *src);
extern void mbf_union_into(MultiBloom *dst, const MultiBloom *src);

/*
 * Union into a new value, for any compatible a and b: auto-sized parts of
 * different sizes fold onto the smaller, part by part (the smaller part may
 * be a's for one attribute and b's for another).  shapes (nattrs + 1) get
 * the result's part shapes; result, zeroed and mbf_init'ed with them,
 * receives a | b.
 */
extern void mbf_union_shapes(const MultiBloom *a, const MultiBloom *b,
									BloomShape *shapes);
extern void mbf_union_build(MultiBloom *result, const MultiBloom *a,
								   const MultiBloom *b);

/* Same nattrs, and every part has the same shape and bits. */
extern bool mbf_equal(const MultiBloom *a, const MultiBloom *b);

/*
 * ---- binary format and checks ----
 *
 * The steps of a bloom filter's binary format (core/wire.h), for the
 * container: its header, the parts' lengths, then each part in bloom's
 * binary format (doc/multibloom.md).  Parallel to wire.h's by design: each
 * format has its own size, writer, check and reader, the same steps in
 * the same order (check before any allocation), over its own bytes.
 *	 mbf_wire_bytes, mbf_serialize: the size of a checked value's serialized
 *	   form, and writing it to out;
 *	 mbf_wire_check: validates len bytes (the header, every part length
 *	   against the payload, every embedded bloom header and the rules the
 *	   parts share) and sets *struct_bytes to the in-memory size; nothing is
 *	   allocated;
 *	 mbf_deserialize: fills mb (struct_bytes bytes) from bytes
 *	   mbf_wire_check passed; the lengths are the buffer's own, and the host
 *	   sets the length words (the value's and its parts', mbf_part_bytes);
 *	 mbf_struct_check: the guard run on every multibloom argument: header,
 *	   offsets, and every part's header against its size.
 */
extern uint64_t mbf_wire_bytes(const MultiBloom *mb);
extern void mbf_serialize(const MultiBloom *mb, uint8_t *out);
extern bool mbf_wire_check(const uint8_t *buf, size_t len,
						   uint64_t *struct_bytes, char *errbuf);
extern void mbf_deserialize(const uint8_t *buf, MultiBloom *mb);
extern bool mbf_struct_check(const MultiBloom *mb, uint64_t size, char *errbuf);

#endif							/* BF_MULTIBLOOM_H */
