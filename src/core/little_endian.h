/*
 * little_endian.h
 *	  The one place for the byte order of the stored forms: integers of any
 *	  width to and from their little-endian bytes, runs of 64-bit words, and
 *	  whole headers described as a table of fields.  Both binary formats
 *	  use it (the bloom filter's, core/wire.h, and the multibloom
 *	  container's, core/multibloom.h), and so does the packed form of hash
 *	  records (core/hash_records.h).  Bytes go least significant first
 *	  whatever the host's order; on a little-endian host every copy is a
 *	  memcpy.
 *
 *	  A leaf: it includes no other file of the project.
 */
#ifndef BF_LITTLE_ENDIAN_H
#define BF_LITTLE_ENDIAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BF_HOST_LITTLE_ENDIAN 1
#else
#define BF_HOST_LITTLE_ENDIAN 0
#endif

/*
 * Copies an integer of n bytes between the host's order and little-endian
 * bytes, either way: the bytes as they are on a little-endian host, in
 * reverse order on a big-endian one (whose integers store their most
 * significant byte first).
 */
static inline void
bf_copy_le(void *to, const void *from, size_t n)
{
	if (BF_HOST_LITTLE_ENDIAN)
		memcpy(to, from, n);
	else
		for (size_t i = 0; i < n; i++)
			((uint8_t *) to)[i] = ((const uint8_t *) from)[n - 1 - i];
}

/* The same for n 64-bit words in a row (a filter's bits, a list). */
static inline void
bf_copy_le_words(void *to, const void *from, uint64_t n)
{
	if (BF_HOST_LITTLE_ENDIAN)
		memcpy(to, from, 8 * n);
	else
		for (uint64_t i = 0; i < n; i++)
			bf_copy_le((uint8_t *) to + 8 * i, (const uint8_t *) from + 8 * i, 8);
}

static inline void
bf_put_le32(uint8_t *p, uint32_t v)
{
	bf_copy_le(p, &v, sizeof(v));
}

static inline void
bf_put_le64(uint8_t *p, uint64_t v)
{
	bf_copy_le(p, &v, sizeof(v));
}

static inline uint32_t
bf_get_le32(const uint8_t *p)
{
	uint32_t	v;

	bf_copy_le(&v, p, sizeof(v));
	return v;
}

static inline uint64_t
bf_get_le64(const uint8_t *p)
{
	uint64_t	v;

	bf_copy_le(&v, p, sizeof(v));
	return v;
}

/*
 * One field of a header: its offset in the bytes, its offset in the
 * in-memory struct, and its width (an integer of 1, 4 or 8 bytes; a signed
 * one is stored in two's complement).
 */
typedef struct BfLeField
{
	uint16_t	at;				/* offset in the binary form */
	uint16_t	member;			/* offsetof in the struct */
	uint8_t		bytes;
} BfLeField;

/* The field of a struct type's member, at offset `offset` of the bytes. */
#define BF_LE_FIELD(type, name, offset) \
	{(offset), offsetof(type, name), sizeof(((type *) 0)->name)}

/*
 * A header: its fields, in the order of its documentation, and its length
 * in the binary form.  bf_put_header writes the fields of struct s,
 * bf_get_header reads them into s (the members no field names are left
 * alone).
 */
typedef struct BfLeHeader
{
	const char *name;			/* for messages: "bloom", "multibloom" */
	int			bytes;
	int			nfields;
	const BfLeField *fields;
} BfLeHeader;

static inline void
bf_put_header(uint8_t *out, const void *s, const BfLeHeader *h)
{
	for (int i = 0; i < h->nfields; i++)
		bf_copy_le(out + h->fields[i].at, (const char *) s + h->fields[i].member,
				   h->fields[i].bytes);
}

static inline void
bf_get_header(const uint8_t *in, void *s, const BfLeHeader *h)
{
	for (int i = 0; i < h->nfields; i++)
		bf_copy_le((char *) s + h->fields[i].member, in + h->fields[i].at,
				   h->fields[i].bytes);
}

#endif							/* BF_LITTLE_ENDIAN_H */
