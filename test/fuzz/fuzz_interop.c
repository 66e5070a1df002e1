/*
 * fuzz_interop.c
 *	  libFuzzer target for the readers of other systems' filters
 *	  (core/interop_format.c): the bytes bloom_import takes from a client
 *	  before PostgreSQL sees a filter.
 *
 *	  The first input byte picks the format (its low two bits: parquet,
 *	  parquet_header, guava, spark); the rest are the bytes.
 *	  bf_interop_parse must accept or reject them without reading past the
 *	  end, with a reason when it rejects (bf_interop_parse_hint reads them
 *	  too) and, when it accepts, a shape that passes bf_shape_check and a
 *	  bitset that lies within the input.  An
 *	  accepted filter is then filled, probed (bf_query against the batched
 *	  and prepared-modulus forms), exported in its own format and read back:
 *	  the bits, shape and seed must survive, and for the formats whose
 *	  bytes are canonical the export must give back the input.  Exporting
 *	  into a format of another layout must be refused with a reason.
 *	  Invariants are checked with abort(), so a broken one is a crash.
 *
 *	  Build and run: make fuzz FUZZ_SECONDS=600 (see Makefile); seeds come
 *	  from test/fuzz/make_seeds.c.
 */
#include "fuzz.h"

#include "core/filter.h"
#include "core/interop_format.h"

static BloomFilter *
alloc_filter(const BloomShape *s)
{
	uint64_t	bytes = bf_shape_bytes(s);
	BloomFilter *f;

	REQUIRE(bytes <= MAX_STRUCT_BYTES);
	f = calloc(1, bytes);
	REQUIRE(f != NULL);
	bf_init(f, s);
	REQUIRE(bf_filter_bytes(f) == bytes);
	return f;
}

/* The filter in buf, or NULL if bf_interop_parse rejects it (with a reason). */
static BloomFilter *
parse(const uint8_t *buf, size_t len, int format, BfInteropImport *in)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;

	errbuf[0] = '\0';
	if (!bf_interop_parse(buf, len, format, in, errbuf))
	{
		require_reason(errbuf);
		/* the hint reads the same bytes, and speaks only of 'parquet' */
		REQUIRE(bf_interop_parse_hint(buf, len, format) == NULL || format == BF_FORMAT_PARQUET);
		return NULL;
	}
	REQUIRE(bf_shape_check(&in->shape, errbuf));
	/* the bitset lies within the input: the fill reads no further */
	REQUIRE(in->bits_offset <= len);
	REQUIRE((len - in->bits_offset) * 8 >= in->shape.nbits);
	f = alloc_filter(&in->shape);
	bf_interop_fill(buf, in, 0, f);
	return f;
}

static BloomHash
hash_of(const BloomFilter *f, const uint8_t *data, size_t len, unsigned i)
{
	uint8_t		v[8];

	for (int j = 0; j < 8; j++)
		v[j] = len ? data[(i * 5 + j) % len] ^ (uint8_t) i : (uint8_t) i;
	return (i & 1) ? bf_interop_hash_bytes(f, v, 1 + i % 8)
		: bf_interop_hash_int(f, i * 2654435761u, (i & 2) ? 8 : 4);
}

/* Single, prepared-modulus and batched probes agree; inserted hashes are found. */
static void
exercise(BloomFilter *f, const uint8_t *data, size_t len)
{
	enum
	{
		N = 16
	};
	BloomHash	h[N];
	bool		found[N];
	BfModulus	mod = bf_modulus(f->nbits);
	int			hits = 0;

	for (unsigned i = 0; i < N; i++)
	{
		h[i] = hash_of(f, data, len, i);
		hits += bf_query(f, h[i]);
		REQUIRE(bf_interop_query(f, &mod, h[i]) == bf_query(f, h[i]));
	}
	REQUIRE(bf_interop_query_batch(f, &mod, h, N, found) == hits);
	REQUIRE(bf_query_batch(f, h, N, found) == hits);
	for (unsigned i = 0; i < N; i++)
		REQUIRE(found[i] == bf_query(f, h[i]));
	(void) bf_estimate_count(f);
	(void) bf_estimate_fpp(f);
	for (unsigned i = 0; i < N; i += 3)
	{
		bf_insert(f, h[i]);
		REQUIRE(bf_query(f, h[i]));
	}
}

/* Whether the format writes back exactly the bytes it read. */
static bool
canonical(int format)
{
	/* a Thrift header may be written with other field encodings */
	return format != BF_FORMAT_PARQUET_HEADER;
}

/* The filter's export in its own format reads back as the same filter. */
static void
round_trip(const BloomFilter *f, const BfInteropImport *in, int format,
		   const uint8_t *buf, size_t len)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64_t	n = bf_interop_export_bytes(f, format, errbuf);
	uint8_t    *out;
	BfInteropImport again;
	BloomFilter *g;

	REQUIRE(n > 0);
	REQUIRE(n <= MAX_STRUCT_BYTES);
	out = malloc(n);
	REQUIRE(out != NULL);
	bf_interop_export(f, format, out);
	if (canonical(format))
		REQUIRE(n == len && memcmp(out, buf, len) == 0);
	g = parse(out, n, format, &again);
	REQUIRE(g != NULL);
	REQUIRE(again.shape.layout == in->shape.layout);
	REQUIRE(again.shape.nbits == in->shape.nbits);
	REQUIRE(again.shape.nhashes == in->shape.nhashes);
	REQUIRE(again.seed == in->seed);
	REQUIRE(bf_equal(f, g));
	free(g);
	free(out);

	/* another layout's format refuses it, saying why */
	for (int other = 0; other < BF_NUM_FORMATS; other++)
	{
		errbuf[0] = '\0';
		n = bf_interop_export_bytes(f, other, errbuf);
		if (n == 0)
			require_reason(errbuf);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	BfInteropImport in;
	BloomFilter *f;
	int			format;

	if (size < 1)
		return 0;
	format = data[0] & 3;
	data++;
	size--;
	f = parse(data, size, format, &in);
	if (f == NULL)
		return 0;
	round_trip(f, &in, format, data, size);
	exercise(f, data, size);
	free(f);
	return 0;
}
