/*
 * wire.h
 *	  The binary format of a bloom filter: what the send/recv functions, the
 *	  bytea casts and the text form (base64 of it) carry, and what every
 *	  reader validates before it allocates.  The header fields are written
 *	  little-endian at the offsets below, then the bit words; the matrix
 *	  layout's row counters are not carried (readers recompute them).  The
 *	  byte-level description is doc/format.md; test/unit/test_golden.c pins
 *	  version 1.
 *
 *	  Include this to turn filters into bytes and back, or to check a value
 *	  that arrived from outside (a datum read from disk, a client's input);
 *	  core/multibloom.h uses it for its parts.
 */
#ifndef BF_WIRE_H
#define BF_WIRE_H

#include "filter.h"
#include "little_endian.h"

/* Offsets of the header fields in the binary format (doc/format.md). */
enum
{
	BF_WIRE_VERSION = 0, BF_WIRE_LAYOUT = 1, BF_WIRE_SCHEME = 2, BF_WIRE_FLAGS = 3,
	BF_WIRE_NBITS = 4, BF_WIRE_SEED = 12, BF_WIRE_INSERTED = 20, BF_WIRE_NHASHES = 28,
	BF_WIRE_ROWS = 32, BF_WIRE_LOCATORS = 36, BF_WIRE_RESERVED1 = 40, BF_WIRE_FULL_AT = 44,
	BF_WIRE_RESERVED2 = 52, BF_WIRE_WORDS = 60
};

/* Header bytes before the bit words. */
#define BLOOM_WIRE_HEADER_BYTES	BF_WIRE_WORDS

/* Bytes of the serialized form. */
static inline uint64_t
bf_wire_bytes(const BloomFilter *f)
{
	return BLOOM_WIRE_HEADER_BYTES + 8 * bf_nwords(f);
}

/* The seed field of a serialized filter (at least the header's bytes). */
static inline uint64_t
bf_wire_seed(const uint8_t *buf)
{
	return bf_get_le64(buf + BF_WIRE_SEED);
}

/*
 * Reads the header h describes from buf (len bytes) into struct s; false
 * with a message if len is shorter than the header.  The first step of
 * every reader of untrusted bytes, this format's and the multibloom
 * container's.
 */
extern bool bf_wire_read_header(const uint8_t *buf, size_t len, const BfLeHeader *h,
								void *s, char *errbuf);

/*
 * The format's writer, check and readers: parallel by design to the
 * multibloom container's (multibloom.h, "binary format and checks"), the
 * same steps over each format's own bytes.
 */

/* Writes the serialized form of f (bf_wire_bytes(f) bytes) to out. */
extern void bf_serialize(const BloomFilter *f, uint8_t *out);

/*
 * Validates a serialized filter of len bytes.  On success returns true and
 * sets *struct_bytes to the size the in-memory struct needs; else false with
 * a message.  Nothing is allocated, so callers check before they allocate.
 */
extern bool bf_wire_check(const uint8_t *buf, size_t len,
						  uint64_t *struct_bytes, char *errbuf);

/*
 * Fills f (struct_bytes from bf_wire_check, the length word left to the
 * host) from a buffer bf_wire_check passed; the length is the header's.
 */
extern void bf_deserialize(const uint8_t *buf, BloomFilter *f);

/*
 * Checks the header of an in-memory filter against its size: a cheap guard
 * run on every filter argument.  Unlike bf_wire_check it does not read the
 * bits, so bits beyond nbits may be set; every reader tolerates them.  An
 * explicit filter's list (at most BLOOM_EXPLICIT_MAX hashes) is checked to
 * ascend, as binary searches and merges assume.
 */
extern bool bf_struct_check(const BloomFilter *f, uint64_t size, char *errbuf);

#endif							/* BF_WIRE_H */
