/*
 * wire.c
 *	  The binary format of a bloom filter: see wire.h and doc/format.md.
 */
#include "wire.h"

#include "layout_matrix.h"

#include <string.h>

void
bf_serialize(const BloomFilter *f, uint8_t *out)
{
	uint64_t	n = bf_nwords(f);

	out[BF_WIRE_VERSION] = f->version;
	out[BF_WIRE_LAYOUT] = f->layout;
	out[BF_WIRE_SCHEME] = f->hash_scheme;
	out[BF_WIRE_FLAGS] = f->flags;
	bf_put_le64(out + BF_WIRE_NBITS, f->nbits);
	bf_put_le64(out + BF_WIRE_SEED, f->seed);
	bf_put_le64(out + BF_WIRE_INSERTED, f->inserted);
	bf_put_le32(out + BF_WIRE_NHASHES, f->nhashes);
	bf_put_le32(out + BF_WIRE_ROWS, f->rows);
	bf_put_le32(out + BF_WIRE_LOCATORS, f->locators);
	bf_put_le32(out + BF_WIRE_RESERVED1, f->reserved1);
	bf_put_le64(out + BF_WIRE_FULL_AT, (uint64_t) f->full_at);
	bf_put_le64(out + BF_WIRE_RESERVED2, f->reserved2);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(out + BF_WIRE_WORDS, f->words, 8 * n);
#else
	for (uint64_t i = 0; i < n; i++)
		bf_put_le64(out + BF_WIRE_WORDS + 8 * i, f->words[i]);
#endif
}

/* Bits beyond nbits in the last word must be zero: one bit string, one form. */
static bool
tail_bits_clear(uint64_t nbits, uint64_t last_word)
{
	unsigned	used = (unsigned) (nbits & 63);

	return used == 0 || (last_word >> used) == 0;
}

/*
 * The hashes of an explicit filter, n little-endian words at p, ascend
 * strictly: one list, one form, and the binary search relies on it.
 */
static bool
wire_list_ordered(const uint8_t *p, uint64_t n, char *errbuf)
{
	uint64_t	list[BLOOM_EXPLICIT_MAX];

	/* the shape check bounded n */
	for (uint64_t i = 0; i < n; i++)
		list[i] = bf_get_le64(p + 8 * i);
	return bf_explicit_order_check(list, n, errbuf);
}

/* Header checks shared by the binary reader and the in-memory guard. */
static bool
header_check(uint8_t version, uint8_t scheme, uint8_t flags,
			 uint32_t reserved1, uint64_t reserved2, int64_t full_at,
			 uint64_t inserted, const BloomShape *s, char *errbuf)
{
	if (version < 1 || version > BLOOM_FORMAT_VERSION)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "unsupported format version %u (this version reads versions 1 to %d)",
				 (unsigned) version, BLOOM_FORMAT_VERSION);
		return false;
	}
	if (!bf_scheme_known(scheme))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "unknown hash scheme %u (this version reads schemes 1 to %d)",
				 (unsigned) scheme, BLOOM_HASH_SCHEME_NEWEST);
		return false;
	}
	if (flags & ~BLOOM_KNOWN_FLAGS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "unknown flags 0x%02x", (unsigned) flags);
		return false;
	}
	if ((flags & BLOOM_FLAG_MATRIX_TIES_FIRST) && s->layout != BLOOM_LAYOUT_MATRIX)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "flag 0x%02x is only for the matrix layout",
				 (unsigned) BLOOM_FLAG_MATRIX_TIES_FIRST);
		return false;
	}
	if (reserved1 != 0 || reserved2 != 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "reserved header fields are not zero");
		return false;
	}
	if (!bf_shape_check(s, errbuf))
		return false;
	/* a list is the small form of a data-sized filter, and only that */
	if (s->layout == BLOOM_LAYOUT_EXPLICIT && !(flags & BLOOM_FLAG_AUTOSIZED))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "an explicit filter must carry the data-sized flag 0x%02x",
				 (unsigned) BLOOM_FLAG_AUTOSIZED);
		return false;
	}
	if (s->layout == BLOOM_LAYOUT_MATRIX ? full_at < BLOOM_NEVER_FULL
		: full_at != BLOOM_NEVER_FULL)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "full_at must be %s for layout \"%s\", not %lld",
				 s->layout == BLOOM_LAYOUT_MATRIX ? "-1 or more" : "-1",
				 bf_layout_name(s->layout), (long long) full_at);
		return false;
	}
	/* full_at counts values held before one was added, so it is below inserted */
	if (full_at != BLOOM_NEVER_FULL && (uint64_t) full_at >= inserted)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "full_at %lld is not below the insert count %llu",
				 (long long) full_at, (unsigned long long) inserted);
		return false;
	}
	return true;
}

bool
bf_wire_check(const uint8_t *buf, size_t len, uint64_t *struct_bytes, char *errbuf)
{
	BloomShape	s;
	uint64_t	nwords;

	if (len < BLOOM_WIRE_HEADER_BYTES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "%zu bytes is too short for a bloom header (%d bytes)",
				 len, BLOOM_WIRE_HEADER_BYTES);
		return false;
	}
	memset(&s, 0, sizeof(s));
	s.layout = buf[BF_WIRE_LAYOUT];
	s.nbits = bf_get_le64(buf + BF_WIRE_NBITS);
	s.seed = bf_get_le64(buf + BF_WIRE_SEED);
	s.nhashes = bf_get_le32(buf + BF_WIRE_NHASHES);
	s.rows = bf_get_le32(buf + BF_WIRE_ROWS);
	s.locators = bf_get_le32(buf + BF_WIRE_LOCATORS);
	if (!header_check(buf[BF_WIRE_VERSION], buf[BF_WIRE_SCHEME], buf[BF_WIRE_FLAGS],
					  bf_get_le32(buf + BF_WIRE_RESERVED1), bf_get_le64(buf + BF_WIRE_RESERVED2),
					  (int64_t) bf_get_le64(buf + BF_WIRE_FULL_AT), bf_get_le64(buf + BF_WIRE_INSERTED),
					  &s, errbuf))
		return false;

	/* nbits is bounded by the shape check, so this cannot overflow */
	nwords = bf_words_for_bits(s.nbits);
	if ((uint64_t) len != BLOOM_WIRE_HEADER_BYTES + 8 * nwords)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "payload of %zu bytes does not match the header: %llu bits need %llu bytes",
				 len - BLOOM_WIRE_HEADER_BYTES, (unsigned long long) s.nbits,
				 (unsigned long long) (8 * nwords));
		return false;
	}
	if (s.layout == BLOOM_LAYOUT_EXPLICIT)
	{
		if (!wire_list_ordered(buf + BF_WIRE_WORDS, nwords, errbuf))
			return false;
	}
	else if (!tail_bits_clear(s.nbits, bf_get_le64(buf + BF_WIRE_WORDS + 8 * (nwords - 1))))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "bits beyond bit %llu of the last word are set",
				 (unsigned long long) (s.nbits - 1));
		return false;
	}
	*struct_bytes = bf_shape_bytes(&s);
	return true;
}

void
bf_deserialize(const uint8_t *buf, BloomFilter *f)
{
	uint64_t	n;

	f->version = buf[BF_WIRE_VERSION];
	f->layout = buf[BF_WIRE_LAYOUT];
	f->hash_scheme = buf[BF_WIRE_SCHEME];
	f->flags = buf[BF_WIRE_FLAGS];
	f->nbits = bf_get_le64(buf + BF_WIRE_NBITS);
	f->seed = bf_get_le64(buf + BF_WIRE_SEED);
	f->inserted = bf_get_le64(buf + BF_WIRE_INSERTED);
	f->nhashes = bf_get_le32(buf + BF_WIRE_NHASHES);
	f->rows = bf_get_le32(buf + BF_WIRE_ROWS);
	f->locators = bf_get_le32(buf + BF_WIRE_LOCATORS);
	f->reserved1 = bf_get_le32(buf + BF_WIRE_RESERVED1);
	f->full_at = (int64_t) bf_get_le64(buf + BF_WIRE_FULL_AT);
	f->reserved2 = bf_get_le64(buf + BF_WIRE_RESERVED2);
	n = bf_nwords(f);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(f->words, buf + BF_WIRE_WORDS, 8 * n);
#else
	for (uint64_t i = 0; i < n; i++)
		f->words[i] = bf_get_le64(buf + BF_WIRE_WORDS + 8 * i);
#endif
	/* the per-row counters are derived from the bits, never read */
	if (f->layout == BLOOM_LAYOUT_MATRIX)
		bf_matrix_recount(f);
}

bool
bf_struct_check(const BloomFilter *f, uint64_t size, char *errbuf)
{
	BloomShape	s;

	if (size < offsetof(BloomFilter, words))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "value of %llu bytes is too short for a bloom filter",
				 (unsigned long long) size);
		return false;
	}
	bf_get_shape(f, &s);
	if (!header_check(f->version, f->hash_scheme, f->flags, f->reserved1,
					  f->reserved2, f->full_at, f->inserted, &s, errbuf))
		return false;
	if (size != bf_shape_bytes(&s))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "value of %llu bytes does not match its header (%llu bits)",
				 (unsigned long long) size, (unsigned long long) f->nbits);
		return false;
	}
	/* at most BLOOM_EXPLICIT_MAX comparisons: a list is searched in halves */
	if (bf_is_explicit(f) && !bf_explicit_order_check(f->words, bf_explicit_count(f), errbuf))
		return false;
	return true;
}

