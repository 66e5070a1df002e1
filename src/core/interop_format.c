/*
 * interop_format.c
 *	  The interop wire formats and the interop hashes of a value: see
 *	  interop_format.h.  Java writes big-endian (DataOutputStream); Parquet's
 *	  bitset is little-endian 32-bit words, which is our words' own byte
 *	  order, and its header is Thrift's compact protocol.
 */
#include "interop_format.h"

#include "interop_hash.h"
#include "layout_guava.h"
#include "layout_spark.h"
#include "layout_splitblock.h"
#include "little_endian.h"

#include <string.h>

static const char *const format_names[BF_NUM_FORMATS] = {
	[BF_FORMAT_PARQUET] = "parquet",
	[BF_FORMAT_PARQUET_HEADER] = "parquet_header",
	[BF_FORMAT_GUAVA] = "guava",
	[BF_FORMAT_SPARK] = "spark",
};

int
bf_interop_format_from_name(const char *name)
{
	for (int i = 0; i < BF_NUM_FORMATS; i++)
		if (strcmp(name, format_names[i]) == 0)
			return i;
	return -1;
}

const char *
bf_interop_format_name(int format)
{
	return format >= 0 && format < BF_NUM_FORMATS ? format_names[format] : "unknown";
}

static uint32_t
get_be32(const uint8_t *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) | ((uint32_t) p[2] << 8) | p[3];
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) (v >> 24);
	p[1] = (uint8_t) (v >> 16);
	p[2] = (uint8_t) (v >> 8);
	p[3] = (uint8_t) v;
}

/* ---------------------------------------------------------------------
 * Parquet: the bitset, and the Thrift compact BloomFilterHeader
 * --------------------------------------------------------------------- */

static bool
parquet_bitset(size_t nbytes, size_t offset, BfInteropImport *out, char *errbuf)
{
	if (nbytes < BF_SPLITBLOCK_MIN_BYTES || nbytes % BF_SPLITBLOCK_MIN_BYTES != 0 ||
		nbytes > BF_SPLITBLOCK_MAX_BYTES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a Parquet split-block bitset must be a multiple of %d bytes from %d to %d, not %zu bytes",
				 BF_SPLITBLOCK_MIN_BYTES, BF_SPLITBLOCK_MIN_BYTES, BF_SPLITBLOCK_MAX_BYTES, nbytes);
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->shape.layout = BLOOM_LAYOUT_PARQUET;
	out->shape.nbits = 8 * (uint64_t) nbytes;
	out->shape.nhashes = BF_SPLITBLOCK_NHASHES;
	out->bits_offset = offset;
	return true;
}

/* A reader of Thrift's compact protocol over len bytes. */
typedef struct ThriftReader
{
	const uint8_t *p;
	size_t		len;
	size_t		pos;
	char	   *errbuf;
} ThriftReader;

#define T_STOP		0
#define T_I32		5
#define T_STRUCT	12

static bool
thrift_truncated(ThriftReader *r)
{
	snprintf(r->errbuf, BLOOM_ERRBUF_SIZE,
			 "the Parquet BloomFilterHeader is truncated after %zu bytes", r->pos);
	return false;
}

static bool
thrift_varint(ThriftReader *r, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7)
	{
		uint8_t		b;

		if (r->pos >= r->len)
			return thrift_truncated(r);
		b = r->p[r->pos++];
		*v |= (uint64_t) (b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	snprintf(r->errbuf, BLOOM_ERRBUF_SIZE, "a varint of the Parquet BloomFilterHeader is too long");
	return false;
}

/*
 * The next field header of a struct: its type (T_STOP at the end) and id,
 * from the short form (delta in the high nibble) or the long form.
 */
static bool
thrift_field(ThriftReader *r, int *last_id, int *type, int *id)
{
	uint8_t		b;

	if (r->pos >= r->len)
		return thrift_truncated(r);
	b = r->p[r->pos++];
	*type = b & 0x0f;
	if (*type == T_STOP)
		return true;
	if (b >> 4)
		*id = *last_id + (b >> 4);
	else
	{
		uint64_t	z;

		if (!thrift_varint(r, &z))
			return false;
		*id = (int) (int16_t) ((z >> 1) ^ -(z & 1));
	}
	*last_id = *id;
	return true;
}

/* An empty struct (the unions' members: BLOCK, XXHASH, UNCOMPRESSED). */
static bool
thrift_empty_struct(ThriftReader *r, const char *what)
{
	int			last = 0,
				type,
				id;

	if (!thrift_field(r, &last, &type, &id))
		return false;
	if (type != T_STOP)
	{
		snprintf(r->errbuf, BLOOM_ERRBUF_SIZE,
				 "unexpected field %d in the Parquet BloomFilterHeader's %s", id, what);
		return false;
	}
	return true;
}

/*
 * A union whose one known member is field 1, an empty struct: the
 * algorithm (BLOCK), the hash (XXHASH), the compression (UNCOMPRESSED).
 */
static bool
thrift_union1(ThriftReader *r, const char *what, const char *member)
{
	int			last = 0,
				type,
				id;

	if (!thrift_field(r, &last, &type, &id))
		return false;
	if (type != T_STRUCT || id != 1)
	{
		snprintf(r->errbuf, BLOOM_ERRBUF_SIZE,
				 "unsupported %s in the Parquet BloomFilterHeader (field %d of type %d): only %s is known",
				 what, type == T_STOP ? 0 : id, type, member);
		return false;
	}
	if (!thrift_empty_struct(r, member) || !thrift_field(r, &last, &type, &id))
		return false;
	if (type != T_STOP)
	{
		snprintf(r->errbuf, BLOOM_ERRBUF_SIZE,
				 "the %s of the Parquet BloomFilterHeader has more than one member", what);
		return false;
	}
	return true;
}

/*
 * Reads a whole BloomFilterHeader from buf: every field known and present,
 * up to its stop.  *header_len is where the bitset starts, *num_bytes what
 * the header says its length is.
 */
static bool
parquet_header_read(const uint8_t *buf, size_t len, size_t *header_len, int64_t *num_bytes,
					char *errbuf)
{
	ThriftReader r = {buf, len, 0, errbuf};
	static const char *const unions[][2] = {
		{"algorithm", "BLOCK"}, {"hash", "XXHASH"}, {"compression", "UNCOMPRESSED"}
	};
	bool		seen[5] = {false};
	int			last = 0;

	*num_bytes = -1;
	for (;;)
	{
		int			type,
					id;

		if (!thrift_field(&r, &last, &type, &id))
			return false;
		if (type == T_STOP)
			break;
		if (id < 1 || id > 4 || seen[id] || type != (id == 1 ? T_I32 : T_STRUCT))
		{
			snprintf(errbuf, BLOOM_ERRBUF_SIZE,
					 "unexpected field %d of type %d in the Parquet BloomFilterHeader", id, type);
			return false;
		}
		seen[id] = true;
		if (id == 1)
		{
			uint64_t	z;

			if (!thrift_varint(&r, &z))
				return false;
			*num_bytes = (int64_t) ((z >> 1) ^ -(z & 1));
		}
		else if (!thrift_union1(&r, unions[id - 2][0], unions[id - 2][1]))
			return false;
	}
	for (int id = 1; id <= 4; id++)
		if (!seen[id])
		{
			snprintf(errbuf, BLOOM_ERRBUF_SIZE,
					 "the Parquet BloomFilterHeader lacks its %s",
					 id == 1 ? "numBytes" : unions[id - 2][0]);
			return false;
		}
	*header_len = r.pos;
	return true;
}

static bool
parquet_header_parse(const uint8_t *buf, size_t len, BfInteropImport *out, char *errbuf)
{
	size_t		header_len;
	int64_t		num_bytes;

	if (!parquet_header_read(buf, len, &header_len, &num_bytes, errbuf))
		return false;
	if (num_bytes < 0 || (uint64_t) num_bytes != len - header_len)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "the Parquet BloomFilterHeader says numBytes %lld, but %zu bytes follow it",
				 (long long) num_bytes, len - header_len);
		return false;
	}
	return parquet_bitset(len - header_len, header_len, out, errbuf);
}

/* The header as the reference writers emit it: fields 1 to 4 in order. */
static size_t
parquet_header_write(uint32_t num_bytes, uint8_t *out)
{
	uint64_t	z = (uint64_t) num_bytes << 1;	/* zigzag of a non-negative i32 */
	size_t		n = 0;

	out[n++] = 0x15;			/* field 1, i32 */
	do
	{
		out[n] = (uint8_t) (z & 0x7f);
		z >>= 7;
		out[n++] |= z ? 0x80 : 0;
	} while (z);
	for (int i = 0; i < 3; i++)
	{
		out[n++] = 0x1c;		/* next field, struct: the union */
		out[n++] = 0x1c;		/* its field 1, struct: the member */
		out[n++] = 0x00;		/* the member's stop */
		out[n++] = 0x00;		/* the union's stop */
	}
	out[n++] = 0x00;			/* the header's stop */
	return n;
}

/* ---------------------------------------------------------------------
 * Guava and Spark: DataOutputStream, big-endian
 * --------------------------------------------------------------------- */

/* The word count and the words after it: exactly nwords longs, then nothing. */
static bool
java_words(const uint8_t *buf, size_t len, size_t at, const char *what,
		   BfInteropImport *out, char *errbuf)
{
	int32_t		nwords;

	if (len < at + 4)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "a %s filter of %zu bytes is truncated in its header",
				 what, len);
		return false;
	}
	nwords = (int32_t) get_be32(buf + at);
	if (nwords <= 0)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "a %s filter must have at least one word, not %d",
				 what, (int) nwords);
		return false;
	}
	if ((uint64_t) nwords > BLOOM_MAX_WORDS)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a %s filter of %d words is larger than the largest filter (%llu words)",
				 what, (int) nwords, (unsigned long long) BLOOM_MAX_WORDS);
		return false;
	}
	if ((uint64_t) (len - at - 4) != 8 * (uint64_t) nwords)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a %s filter of %d words needs %llu bytes of bits, not %zu",
				 what, (int) nwords, (unsigned long long) (8 * (uint64_t) nwords), len - at - 4);
		return false;
	}
	out->shape.nbits = 64 * (uint64_t) nwords;
	out->bits_offset = at + 4;
	out->big_endian = true;
	return true;
}

static bool
nhashes_in_range(int64_t k, const char *what, char *errbuf)
{
	if (k < 1 || k > BLOOM_MAX_NHASHES)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a %s filter with %lld hash functions is not supported (1 to %d)",
				 what, (long long) k, BLOOM_MAX_NHASHES);
		return false;
	}
	return true;
}

static bool
guava_parse(const uint8_t *buf, size_t len, BfInteropImport *out, char *errbuf)
{
	memset(out, 0, sizeof(*out));
	if (len < 2)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "a Guava filter of %zu bytes is truncated in its header", len);
		return false;
	}
	if (buf[0] > 1)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "unknown Guava strategy %d (0 is MURMUR128_MITZ_32, 1 is MURMUR128_MITZ_64)",
				 (int) (int8_t) buf[0]);
		return false;
	}
	out->shape.layout = buf[0] == 1 ? BLOOM_LAYOUT_GUAVA : BLOOM_LAYOUT_GUAVA32;
	if (!nhashes_in_range(buf[1], "Guava", errbuf))
		return false;
	out->shape.nhashes = buf[1];
	return java_words(buf, len, 2, "Guava", out, errbuf);
}

static bool
spark_parse(const uint8_t *buf, size_t len, BfInteropImport *out, char *errbuf)
{
	int32_t		version;
	size_t		at = 8;

	memset(out, 0, sizeof(*out));
	if (len < 8)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE, "a Spark filter of %zu bytes is truncated in its header", len);
		return false;
	}
	version = (int32_t) get_be32(buf);
	if (version != 1 && version != 2)
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "unknown Spark BloomFilter version %d (versions 1 and 2 are known)", (int) version);
		return false;
	}
	out->shape.layout = version == 1 ? BLOOM_LAYOUT_SPARK : BLOOM_LAYOUT_SPARK2;
	if (!nhashes_in_range((int32_t) get_be32(buf + 4), "Spark", errbuf))
		return false;
	out->shape.nhashes = get_be32(buf + 4);
	if (version == 2)
	{
		if (len < 12)
		{
			snprintf(errbuf, BLOOM_ERRBUF_SIZE, "a Spark filter of %zu bytes is truncated in its header", len);
			return false;
		}
		out->seed = get_be32(buf + 8);
		at = 12;
	}
	return java_words(buf, len, at, "Spark", out, errbuf);
}

/*
 * Bytes given as 'parquet' that begin with a whole BloomFilterHeader (the
 * filter as it sits in a file, where the bitset alone was expected): the
 * header reader of 'parquet_header' accepts their start.  A header is 15
 * to 19 bytes, never a multiple of 32, so such bytes always fail the
 * bitset's size rule first; only then is this asked, and a bitset that
 * reads is never second-guessed.
 */
const char *
bf_interop_parse_hint(const uint8_t *buf, size_t len, int format)
{
	size_t		header_len;
	int64_t		num_bytes;
	char		ignored[BLOOM_ERRBUF_SIZE];

	if (format == BF_FORMAT_PARQUET &&
		parquet_header_read(buf, len, &header_len, &num_bytes, ignored))
		return "The bytes begin with a Parquet BloomFilterHeader: import them with the format 'parquet_header'.";
	return NULL;
}

bool
bf_interop_parse(const uint8_t *buf, size_t len, int format, BfInteropImport *out,
				 char *errbuf)
{
	bool		ok;

	switch (format)
	{
		case BF_FORMAT_PARQUET:
			ok = parquet_bitset(len, 0, out, errbuf);
			break;
		case BF_FORMAT_PARQUET_HEADER:
			ok = parquet_header_parse(buf, len, out, errbuf);
			break;
		case BF_FORMAT_GUAVA:
			ok = guava_parse(buf, len, out, errbuf);
			break;
		case BF_FORMAT_SPARK:
			ok = spark_parse(buf, len, out, errbuf);
			break;
		default:
			snprintf(errbuf, BLOOM_ERRBUF_SIZE, "unknown foreign format %d", format);
			return false;
	}
	return ok && bf_shape_check(&out->shape, errbuf);
}

void
bf_interop_fill(const uint8_t *buf, const BfInteropImport *in, uint64_t options, BloomFilter *f)
{
	BloomShape	shape = in->shape;
	uint64_t	nwords = bf_words_for_bits(shape.nbits);
	const uint8_t *bits = buf + in->bits_offset;

	bf_init(f, &shape);
	f->seed = in->seed | options;
	if (!in->big_endian)
		bf_copy_le_words(f->words, bits, nwords);
	else
		for (uint64_t i = 0; i < nwords; i++)
			f->words[i] = ((uint64_t) get_be32(bits + 8 * i) << 32) | get_be32(bits + 8 * i + 4);
}

/* ---------------------------------------------------------------------
 * Export
 * --------------------------------------------------------------------- */

/* The layouts a format writes. */
static bool
format_takes(int format, uint8_t layout)
{
	switch (format)
	{
		case BF_FORMAT_PARQUET:
		case BF_FORMAT_PARQUET_HEADER:
			return layout == BLOOM_LAYOUT_PARQUET;
		case BF_FORMAT_GUAVA:
			return layout == BLOOM_LAYOUT_GUAVA || layout == BLOOM_LAYOUT_GUAVA32;
		case BF_FORMAT_SPARK:
			return layout == BLOOM_LAYOUT_SPARK || layout == BLOOM_LAYOUT_SPARK2;
		default:
			return false;
	}
}

/* Bytes before the bits. */
static uint64_t
export_prefix(const BloomFilter *f, int format)
{
	uint8_t		header[32];

	switch (format)
	{
		case BF_FORMAT_PARQUET_HEADER:
			return parquet_header_write((uint32_t) (f->nbits / 8), header);
		case BF_FORMAT_GUAVA:
			return 6;
		case BF_FORMAT_SPARK:
			return f->layout == BLOOM_LAYOUT_SPARK2 ? 16 : 12;
		default:
			return 0;
	}
}

uint64_t
bf_interop_export_bytes(const BloomFilter *f, int format, char *errbuf)
{
	if (!format_takes(format, f->layout))
	{
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "a filter of layout \"%s\" cannot be written as format \"%s\"",
				 bf_layout_name(f->layout), bf_interop_format_name(format));
		return 0;
	}
	return export_prefix(f, format) + 8 * bf_nwords(f);
}

void
bf_interop_export(const BloomFilter *f, int format, uint8_t *out)
{
	uint64_t	nwords = bf_nwords(f);
	uint8_t    *p = out;

	switch (format)
	{
		case BF_FORMAT_PARQUET_HEADER:
			p += parquet_header_write((uint32_t) (f->nbits / 8), p);
			/* fall through */
		case BF_FORMAT_PARQUET:
			bf_copy_le_words(p, f->words, nwords);
			return;
		case BF_FORMAT_GUAVA:
			*p++ = f->layout == BLOOM_LAYOUT_GUAVA ? 1 : 0;
			*p++ = (uint8_t) f->nhashes;
			break;
		case BF_FORMAT_SPARK:
			put_be32(p, f->layout == BLOOM_LAYOUT_SPARK2 ? 2 : 1);
			put_be32(p + 4, f->nhashes);
			p += 8;
			if (f->layout == BLOOM_LAYOUT_SPARK2)
			{
				put_be32(p, (uint32_t) (f->seed & BF_INTEROP_SEED_MASK));
				p += 4;
			}
			break;
	}
	put_be32(p, (uint32_t) nwords);
	p += 4;
	for (uint64_t i = 0; i < nwords; i++, p += 8)
	{
		put_be32(p, (uint32_t) (f->words[i] >> 32));
		put_be32(p + 4, (uint32_t) f->words[i]);
	}
}

/* ---------------------------------------------------------------------
 * The interop hashes of a value
 * --------------------------------------------------------------------- */

static inline uint64_t
xxh64_any(const void *p, size_t len, uint64_t seed)
{
	uint64_t	v;

	if (len == 8)
	{
		bf_copy_le(&v, p, 8);
		return bf_xxh64_u64(v, seed);
	}
	if (len == 4)
	{
		uint32_t	w;

		bf_copy_le(&w, p, 4);
		return bf_xxh64_u32(w, seed);
	}
	return bf_xxh64(p, len, seed);
}

static inline uint32_t
spark_seed(const BloomFilter *f)
{
	return f->layout == BLOOM_LAYOUT_SPARK2 ? (uint32_t) (f->seed & BF_INTEROP_SEED_MASK) : 0;
}

BloomHash
bf_interop_hash_long(const BloomFilter *f, uint64_t v)
{
	BloomHash	h;
	uint32_t	a = bf_murmur3_32_long(v, spark_seed(f));

	h.h1 = a;
	h.h2 = bf_murmur3_32_long(v, a);
	return h;
}

/* Guava's two hashes of a value: the halves of its 128-bit Murmur3. */
static BloomHash
guava_halves(const uint64_t out[2])
{
	BloomHash	h = {out[0], out[1]};

	return h;
}

BloomHash
bf_interop_hash_bytes(const BloomFilter *f, const void *p, size_t len)
{
	BloomHash	h = {0, 0};

	switch (f->layout)
	{
		case BLOOM_LAYOUT_PARQUET:
			h.h1 = xxh64_any(p, len, 0);
			break;
		case BLOOM_LAYOUT_GUAVA:
		case BLOOM_LAYOUT_GUAVA32:
			{
				uint64_t	out[2];

				bf_murmur3_128(p, len, 0, out);
				return guava_halves(out);
			}
		case BLOOM_LAYOUT_SPARK:
		case BLOOM_LAYOUT_SPARK2:
			if (!bf_interop_raw_longs(f))
				return bf_interop_hash_long(f, xxh64_any(p, len, BF_SPARK_XXHASH_SEED));
			h.h1 = bf_murmur3_32_spark_bytes(p, len, spark_seed(f));
			h.h2 = bf_murmur3_32_spark_bytes(p, len, (uint32_t) h.h1);
			break;
	}
	return h;
}

BloomHash
bf_interop_hash_int(const BloomFilter *f, uint64_t v, size_t len)
{
	BloomHash	h = {0, 0};

	switch (f->layout)
	{
		case BLOOM_LAYOUT_PARQUET:
			h.h1 = len == 4 ? bf_xxh64_u32((uint32_t) v, 0) : bf_xxh64_u64(v, 0);
			return h;
		case BLOOM_LAYOUT_GUAVA:
		case BLOOM_LAYOUT_GUAVA32:
			{
				uint64_t	out[2];

				bf_murmur3_128_small(v, len, 0, out);
				return guava_halves(out);
			}
		default:
			{
				uint8_t		bytes[8];

				if (bf_interop_raw_longs(f))
				{
					/* putBinary of the bytes: Spark's tail rule reads them one by one */
					for (size_t i = 0; i < len; i++)
						bytes[i] = (uint8_t) (v >> (8 * i));
					return bf_interop_hash_bytes(f, bytes, len);
				}
				return bf_interop_hash_long(f, len == 4 ? bf_xxh64_u32((uint32_t) v, BF_SPARK_XXHASH_SEED)
											: bf_xxh64_u64(v, BF_SPARK_XXHASH_SEED));
			}
	}
}

bool
bf_interop_query(const BloomFilter *f, const BfModulus *mod, BloomHash h)
{
	switch (f->layout)
	{
		case BLOOM_LAYOUT_GUAVA:
			return bf_guava_query_mod(f, h, mod);
		case BLOOM_LAYOUT_GUAVA32:
			return bf_guava32_query_mod(f, h, mod);
		case BLOOM_LAYOUT_SPARK:
			return bf_spark_query_mod(f, h, mod);
		case BLOOM_LAYOUT_SPARK2:
			return bf_spark2_query_mod(f, h, mod);
		default:
			return bf_query(f, h);
	}
}

int
bf_interop_query_batch(const BloomFilter *f, const BfModulus *mod, const BloomHash *h, int n,
					   bool *found)
{
	int			nfound = 0;

	/* the split-block layout needs no modulus and prefetches its blocks */
	if (f->layout == BLOOM_LAYOUT_PARQUET)
		return bf_query_batch(f, h, n, found);
	for (int i = 0; i < n; i++)
	{
		found[i] = bf_interop_query(f, mod, h[i]);
		nfound += found[i];
	}
	return nfound;
}
