/*
 * wire.c
 *	  The binary format of a bloom filter: see wire.h and doc/format.md.
 */
#include "wire.h"

#include "layout_matrix.h"

#include <string.h>

/* The header: every field of BloomFilter but the host's length word. */
#define HEADER_FIELD(name, offset)	BF_LE_FIELD(BloomFilter, name, offset)

static const BfLeField header_fields[] = {
	HEADER_FIELD(version, BF_WIRE_VERSION),
	HEADER_FIELD(layout, BF_WIRE_LAYOUT),
	HEADER_FIELD(hash_scheme, BF_WIRE_SCHEME),
	HEADER_FIELD(flags, BF_WIRE_FLAGS),
	HEADER_FIELD(nbits, BF_WIRE_NBITS),
	HEADER_FIELD(seed, BF_WIRE_SEED),
	HEADER_FIELD(inserted, BF_WIRE_INSERTED),
	HEADER_FIELD(nhashes, BF_WIRE_NHASHES),
	HEADER_FIELD(rows, BF_WIRE_ROWS),
	HEADER_FIELD(locators, BF_WIRE_LOCATORS),
	HEADER_FIELD(reserved1, BF_WIRE_RESERVED1),
	HEADER_FIELD(full_at, BF_WIRE_FULL_AT),
	HEADER_FIELD(reserved2, BF_WIRE_RESERVED2),
};

static const BfLeHeader header = {
	"bloom", BLOOM_WIRE_HEADER_BYTES,
	(int) (sizeof(header_fields) / sizeof(header_fields[0])), header_fields
};

bool
bf_wire_read_header(const uint8_t *buf, size_t len, const BfLeHeader *h, void *s,
					char *errbuf)
{
	if (len < (size_t) h->bytes)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "%zu bytes is too short for a %s header (%d bytes)",
				 len, h->name, h->bytes);
		return false;
	}
	bf_get_header(buf, s, h);
	return true;
}

void
bf_serialize(const BloomFilter *f, uint8_t *out)
{
	bf_put_header(out, f, &header);
	bf_copy_le_words(out + BF_WIRE_WORDS, f->words, bf_nwords(f));
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
	bf_copy_le_words(list, p, n);
	return bf_explicit_order_check(list, n, errbuf);
}

/*
 * Header checks shared by the binary reader and the in-memory guard: h is
 * the header (of the struct, or read from the bytes), s its shape.
 */
static bool
header_check(const BloomFilter *h, const BloomShape *s, char *errbuf)
{
	uint8_t		version = h->version,
				scheme = h->hash_scheme,
				flags = h->flags;
	int64_t		full_at = h->full_at;

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
	/* the interop scheme goes with the interop layouts, and only with them */
	if ((scheme == BLOOM_HASH_SCHEME_INTEROP) != bf_layout_interop(s->layout))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "hash scheme %u does not go with layout \"%s\"",
				 (unsigned) scheme, bf_layout_name(s->layout));
		return false;
	}
	if (bf_layout_interop(s->layout) &&
		((h->seed & ~BF_INTEROP_KNOWN_BITS) != 0 || bf_interop_encoding(h->seed) > BF_ENC_LAST ||
		 bf_interop_tsunit(h->seed) > BF_TSUNIT_NANOS))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "unknown value encoding 0x%016llx of a foreign layout",
				 (unsigned long long) h->seed);
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
	if (h->reserved1 != 0 || h->reserved2 != 0)
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
	if (full_at != BLOOM_NEVER_FULL && (uint64_t) full_at >= h->inserted)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "full_at %lld is not below the insert count %llu",
				 (long long) full_at, (unsigned long long) h->inserted);
		return false;
	}
	return true;
}

bool
bf_wire_check(const uint8_t *buf, size_t len, uint64_t *struct_bytes, char *errbuf)
{
	BloomFilter head;			/* the header alone, no words */
	BloomShape	s;
	uint64_t	nwords;

	if (!bf_wire_read_header(buf, len, &header, &head, errbuf))
		return false;
	bf_get_shape(&head, &s);
	if (!header_check(&head, &s, errbuf))
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
	bf_get_header(buf, f, &header);
	bf_copy_le_words(f->words, buf + BF_WIRE_WORDS, bf_nwords(f));
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
	if (!header_check(f, &s, errbuf))
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

