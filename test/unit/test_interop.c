/*
 * test_interop.c
 *	  The interop formats' core: the hashes against published known answers
 *	  (XXH64's reference values, Guava's murmur3_128 and murmur3_32 as Guava
 *	  computes them, which Spark's Murmur3_x86_32 suite also lists), filters
 *	  Guava 31 wrote (BloomFilter.create, put, writeTo) read and rebuilt bit
 *	  for bit, and every format's round trip and refusals.
 */
#include "unit.h"

#include "core/interop_format.h"
#include "core/interop_hash.h"
#include "core/interop_positions.h"
#include "core/layout_splitblock.h"

static size_t
unhex(const char *hex, uint8_t *out)
{
	size_t		n = strlen(hex) / 2;

	for (size_t i = 0; i < n; i++)
	{
		unsigned	b;

		sscanf(hex + 2 * i, "%2x", &b);
		out[i] = (uint8_t) b;
	}
	return n;
}

static void
test_xxh64(void)
{
	const char *fox = "Nobody inspects the spammish repetition";
	uint8_t		le8[8] = {0x2a, 0, 0, 0, 0, 0, 0, 0};
	uint8_t		le4[4] = {0xd6, 0xff, 0xff, 0xff};

	CHECK_EQ_U64(bf_xxh64("", 0, 0), UINT64_C(0xef46db3751d8e999));
	CHECK_EQ_U64(bf_xxh64("a", 1, 0), UINT64_C(0xd24ec4f1a98c6e5b));
	CHECK_EQ_U64(bf_xxh64("abc", 3, 0), UINT64_C(0x44bc2cf5ad770999));
	CHECK_EQ_U64(bf_xxh64(fox, strlen(fox), 0), UINT64_C(0xfbcea83c8a378bf1));
	/* the integer shortcuts are the same function */
	CHECK_EQ_U64(bf_xxh64_u64(42, 0), bf_xxh64(le8, 8, 0));
	CHECK_EQ_U64(bf_xxh64_u64(42, 42), bf_xxh64(le8, 8, 42));
	CHECK_EQ_U64(bf_xxh64_u32((uint32_t) -42, 42), bf_xxh64(le4, 4, 42));
	/*
	 * Spark SQL's documented xxhash64('Spark', array(123), 2): seed 42, each
	 * argument's hash the seed of the next, ints as 4 bytes
	 */
	CHECK_EQ_U64(bf_xxh64_u32(2, bf_xxh64_u32(123, bf_xxh64("Spark", 5, 42))),
				 UINT64_C(5602566077635097486));
	for (size_t len = 0; len < 70; len++)
	{
		/* every tail length and block count: a changed byte changes the hash */
		uint8_t		buf[70];

		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t) (i * 7 + 1);
		if (len > 0)
		{
			uint64_t	h = bf_xxh64(buf, len, 0);

			buf[len - 1] ^= 1;
			CHECK(bf_xxh64(buf, len, 0) != h);
		}
	}
}

static void
test_murmur(void)
{
	uint64_t	out[2];
	uint8_t		le8[8] = {0};

	bf_murmur3_128("", 0, 0, out);
	CHECK_EQ_U64(out[0], 0);
	CHECK_EQ_U64(out[1], 0);
	bf_murmur3_128("hell", 4, 0, out);
	CHECK_EQ_U64(out[0], UINT64_C(0x629942693e10f867));
	CHECK_EQ_U64(out[1], UINT64_C(0x92db0b82baeb5347));
	bf_murmur3_128("hello", 5, 0, out);
	CHECK_EQ_U64(out[0], UINT64_C(0xcbd8a7b341bd9b02));
	CHECK_EQ_U64(out[1], UINT64_C(0x5b1e906a48ae1d19));
	bf_murmur3_128("The quick brown fox jumps over the lazy dog", 43, 0, out);
	CHECK_EQ_U64(out[0], UINT64_C(0xe34bbc7bbc071b6c));
	CHECK_EQ_U64(out[1], UINT64_C(0x7a433ca9c49a9347));
	bf_murmur3_128("0123456789abcdefg", 17, 0, out);
	CHECK_EQ_U64(out[0], UINT64_C(0x8e32612daa45f9de));
	CHECK_EQ_U64(out[1], UINT64_C(0x0800f4c206c372ee));
	/* Guava's hashLong(1): the eight little-endian bytes */
	le8[0] = 1;
	bf_murmur3_128(le8, 8, 0, out);
	CHECK_EQ_U64(out[0], UINT64_C(0x004403b7fb05c44a));
	CHECK_EQ_U64(out[1], UINT64_C(0x3d8acdb4d36d9c06));

	/* Spark's Murmur3_x86_32.hashLong, seeds 0 and 42 */
	CHECK_EQ_U64(bf_murmur3_32_long(0, 0), 0x63852afc);	/* 1669671676 */
	CHECK_EQ_U64(bf_murmur3_32_long(42, 0), 0x6f8f913e);	/* 1871679806 */
	CHECK_EQ_U64(bf_murmur3_32_long((uint64_t) -42, 0), 0xcd8f1289);	/* -846261623 */
	CHECK_EQ_U64(bf_murmur3_32_long(0, 42), 0x9c67b85d);
	CHECK_EQ_U64(bf_murmur3_32_long(UINT64_C(1234567890123), 42), 0x4dbbad64);
	/* whole blocks: the reference murmur3_32 */
	CHECK_EQ_U64(bf_murmur3_32_spark_bytes("abcdefgh", 8, 0), 0x49ddccc4);
}

/* A filter of a checked shape, zeroed, on the heap. */
static BloomFilter *
alloc_filter(const BloomShape *s)
{
	BloomFilter *f = calloc(1, bf_shape_bytes(s));

	bf_init(f, s);
	return f;
}

static BloomFilter *
import(const uint8_t *buf, size_t len, int format)
{
	BfInteropImport in;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;

	if (!bf_interop_parse(buf, len, format, &in, errbuf))
	{
		fprintf(stderr, "import: %s\n", errbuf);
		return NULL;
	}
	f = alloc_filter(&in.shape);
	bf_interop_fill(buf, &in, 0, f);
	return f;
}

/* Export equals the bytes given. */
static void
check_export(const BloomFilter *f, int format, const uint8_t *bytes, size_t len)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64_t	n = bf_interop_export_bytes(f, format, errbuf);
	uint8_t    *out = malloc(n ? n : 1);

	CHECK_EQ_U64(n, len);
	if (n == len)
	{
		bf_interop_export(f, format, out);
		CHECK(memcmp(out, bytes, len) == 0);
	}
	free(out);
}

static BloomHash
long_hash(const BloomFilter *f, int64_t v)
{
	uint8_t		le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t) ((uint64_t) v >> (8 * i));
	return bf_interop_hash_bytes(f, le, 8);
}

/*
 * Guava 31.1: BloomFilter.create(Funnels.longFunnel(), 100, 0.01), put
 * 1, 2, 3, writeTo; create(integerFunnel(), 10, 0.05), put 42;
 * create(stringFunnel(UTF_8), 10, 0.05), put "h\u00e9llo".
 */
static const char *guava_longs =
	"01070000000f000001000001004000004000000000004000000000000000000000001000000000"
	"000000000002001000000000002400000001000000000000000000000000000001000000000000"
	"000400200000000000000002004000000000000000000000000000040000000000000004008000"
	"000000000000801000";
static const char *guava_int = "0104000000010800002000028000";
static const char *guava_str = "0104000000010000000002108400";

static void
test_guava(void)
{
	uint8_t		buf[256];
	size_t		len = unhex(guava_longs, buf);
	BloomFilter *f = import(buf, len, BF_FORMAT_GUAVA);
	BloomShape	s;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *g;
	int			fp = 0;

	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK_EQ_U64(f->layout, BLOOM_LAYOUT_GUAVA);
	CHECK_EQ_U64(f->nbits, 960);
	CHECK_EQ_U64(f->nhashes, 7);
	for (int64_t v = 1; v <= 3; v++)
		CHECK(bf_query(f, long_hash(f, v)));
	for (int64_t v = 4; v < 1004; v++)
		fp += bf_query(f, long_hash(f, v));
	CHECK(fp < 5);
	check_export(f, BF_FORMAT_GUAVA, buf, len);

	/* the same filter built here: Guava's sizing and Guava's bits */
	CHECK(bf_shape_for(100, 0.01, BLOOM_LAYOUT_GUAVA, &s, errbuf));
	g = alloc_filter(&s);
	for (int64_t v = 1; v <= 3; v++)
		bf_insert(g, long_hash(g, v));
	check_export(g, BF_FORMAT_GUAVA, buf, len);
	free(g);
	free(f);

	len = unhex(guava_int, buf);
	CHECK(bf_shape_for(10, 0.05, BLOOM_LAYOUT_GUAVA, &s, errbuf));
	g = alloc_filter(&s);
	{
		uint8_t		le4[4] = {42, 0, 0, 0};

		bf_insert(g, bf_interop_hash_bytes(g, le4, 4));
	}
	check_export(g, BF_FORMAT_GUAVA, buf, len);
	free(g);

	len = unhex(guava_str, buf);
	g = alloc_filter(&s);
	bf_insert(g, bf_interop_hash_bytes(g, "h\xc3\xa9llo", 6));
	check_export(g, BF_FORMAT_GUAVA, buf, len);
	free(g);
}

/*
 * The other Java layouts built here value by value, against the bytes their
 * writers give (the vectors of sql/071 and 072): Guava's MITZ_32 (Guava
 * 31.1 wrote it), Spark's versions 1 and 2 (computed from Spark's source).
 * Each pins its layout's walk of a value's positions.
 */
static const char *guava32_longs =
	"0006000000072002000000000080000000000000410001000004200000004000002000010000000000000000"
	"000000002801021000001000000002000000";
static const char *spark1_longs =
	"00000001000000050000000c0000000000000000000800000008000004000001000000000000000000000000"
	"0000000000000022000000000000000000000000000000000000000010000001008000000000000000000000"
	"2000000001000000008000000000100000040020";
static const char *spark2_raw =
	"0000000200000005000000070000000c0000020000000000000000000200000000000000000000002000000000"
	"0000000000000008000000000020000000000000000000000000800208000000000000000000000002000000"
	"0000008000002000200000000200000000000020000800";

static void
test_java_vectors(void)
{
	static const int64_t mitz32_values[] = {1, -5, INT64_C(1) << 40};
	uint8_t		buf[256];
	size_t		len;
	BloomShape	s;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *g;

	/* Guava: create(longFunnel(), 50, 0.02, MURMUR128_MITZ_32), put 1, -5, 2^40 */
	len = unhex(guava32_longs, buf);
	CHECK(bf_shape_for(50, 0.02, BLOOM_LAYOUT_GUAVA32, &s, errbuf));
	g = alloc_filter(&s);
	for (int i = 0; i < 3; i++)
		bf_insert(g, long_hash(g, (uint64_t) mitz32_values[i]));
	for (int i = 0; i < 3; i++)
		CHECK(bf_query(g, long_hash(g, (uint64_t) mitz32_values[i])));
	check_export(g, BF_FORMAT_GUAVA, buf, len);
	free(g);

	/* Spark version 1: create(100, 0.03), putLong(xxhash64(x)) for x = 1, 2, 3 */
	len = unhex(spark1_longs, buf);
	CHECK(bf_shape_for(100, 0.03, BLOOM_LAYOUT_SPARK, &s, errbuf));
	g = alloc_filter(&s);
	for (int64_t v = 1; v <= 3; v++)
		bf_insert(g, long_hash(g, (uint64_t) v));
	for (int64_t v = 1; v <= 3; v++)
		CHECK(bf_query(g, long_hash(g, (uint64_t) v)));
	check_export(g, BF_FORMAT_SPARK, buf, len);
	free(g);

	/* Spark version 2, seed 7: create(100, 0.03), putLong(x) for x = 1, 2, 3 */
	len = unhex(spark2_raw, buf);
	CHECK(bf_shape_for(100, 0.03, BLOOM_LAYOUT_SPARK2, &s, errbuf));
	g = alloc_filter(&s);
	g->seed = 7 | BF_INTEROP_RAW_LONGS;
	for (uint64_t v = 1; v <= 3; v++)
		bf_insert(g, bf_interop_hash_long(g, v));
	for (uint64_t v = 1; v <= 3; v++)
		CHECK(bf_query(g, bf_interop_hash_long(g, v)));
	check_export(g, BF_FORMAT_SPARK, buf, len);
	free(g);
}

/* Round trips of every format, and the Parquet header's bytes. */
static void
test_round_trips(void)
{
	static const int layouts[] = {
		BLOOM_LAYOUT_PARQUET, BLOOM_LAYOUT_GUAVA, BLOOM_LAYOUT_GUAVA32,
		BLOOM_LAYOUT_SPARK, BLOOM_LAYOUT_SPARK2
	};
	static const int formats[] = {
		BF_FORMAT_PARQUET_HEADER, BF_FORMAT_GUAVA, BF_FORMAT_GUAVA, BF_FORMAT_SPARK,
		BF_FORMAT_SPARK
	};
	char		errbuf[BLOOM_ERRBUF_SIZE];

	for (int i = 0; i < 5; i++)
	{
		BloomShape	s;
		BloomFilter *f,
				   *g;
		uint64_t	n;
		uint8_t    *out;

		CHECK(bf_shape_for(1000, 0.01, layouts[i], &s, errbuf));
		f = alloc_filter(&s);
		if (layouts[i] == BLOOM_LAYOUT_SPARK2)
			f->seed = 12345;
		for (int64_t v = 0; v < 1000; v++)
			bf_insert(f, long_hash(f, v * 7919));
		n = bf_interop_export_bytes(f, formats[i], errbuf);
		out = malloc(n);
		bf_interop_export(f, formats[i], out);
		g = import(out, n, formats[i]);
		CHECK(g != NULL);
		if (g != NULL)
		{
			CHECK_EQ_U64(g->layout, f->layout);
			CHECK_EQ_U64(g->nbits, f->nbits);
			CHECK_EQ_U64(g->nhashes, f->nhashes);
			CHECK_EQ_U64(g->seed, f->seed);
			CHECK(memcmp(g->words, f->words, 8 * bf_nwords(f)) == 0);
			for (int64_t v = 0; v < 1000; v++)
				CHECK(bf_query(g, long_hash(g, v * 7919)));
			CHECK(bf_estimate_fpp(g) < 0.03);
			CHECK_NEAR(bf_estimate_count(g), 1000, 60);
			free(g);
		}
		/* the other formats refuse it */
		CHECK_EQ_U64(bf_interop_export_bytes(f, formats[(i + 1) % 5] == formats[i]
											 ? BF_FORMAT_PARQUET : formats[(i + 1) % 5], errbuf), 0);
		free(out);
		free(f);
	}
}

static void
test_parquet(void)
{
	uint8_t		header[] = {0x15, 0x80, 0x01, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00,
		0x1c, 0x1c, 0x00, 0x00, 0x00};
	uint8_t		buf[16 + 64];
	BloomFilter *f;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BfInteropImport in;

	/* numBytes 64 is zigzag 128: varint 0x80 0x01 */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, header, sizeof(header));
	f = import(buf, sizeof(buf), BF_FORMAT_PARQUET_HEADER);
	CHECK(f != NULL);
	if (f)
	{
		CHECK_EQ_U64(f->nbits, 512);
		check_export(f, BF_FORMAT_PARQUET_HEADER, buf, sizeof(buf));
		free(f);
	}
	/* the specification's sizing */
	CHECK_EQ_U64(bf_splitblock_bytes_for(1, 0.5), 32);
	CHECK_EQ_U64(bf_splitblock_bytes_for(1000000, 0.01), 2097152);
	CHECK_EQ_U64(bf_splitblock_bytes_for(1e12, 0.01), BF_SPLITBLOCK_MAX_BYTES);

	/* refusals */
	CHECK(!bf_interop_parse(buf, sizeof(buf) - 1, BF_FORMAT_PARQUET_HEADER, &in, errbuf));
	CHECK(strstr(errbuf, "numBytes 64") != NULL);
	CHECK(!bf_interop_parse(buf, 10, BF_FORMAT_PARQUET_HEADER, &in, errbuf));
	CHECK(strstr(errbuf, "truncated") != NULL);
	buf[5] = 0x1c;				/* a member inside BLOCK */
	CHECK(!bf_interop_parse(buf, sizeof(buf), BF_FORMAT_PARQUET_HEADER, &in, errbuf));
	buf[5] = 0x00;
	buf[4] = 0x2c;				/* algorithm field 2: not BLOCK */
	CHECK(!bf_interop_parse(buf, sizeof(buf), BF_FORMAT_PARQUET_HEADER, &in, errbuf));
	CHECK(strstr(errbuf, "algorithm") != NULL);
	CHECK(!bf_interop_parse(buf, 48, BF_FORMAT_PARQUET, &in, errbuf));
	CHECK(!bf_interop_parse(buf, 0, BF_FORMAT_PARQUET, &in, errbuf));
}

static void
test_java_refusals(void)
{
	uint8_t		buf[64];
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BfInteropImport in;

	memset(buf, 0, sizeof(buf));
	buf[0] = 2;					/* strategy */
	buf[1] = 3;
	buf[5] = 1;
	CHECK(!bf_interop_parse(buf, 14, BF_FORMAT_GUAVA, &in, errbuf));
	CHECK(strstr(errbuf, "strategy 2") != NULL);
	buf[0] = 1;
	CHECK(bf_interop_parse(buf, 14, BF_FORMAT_GUAVA, &in, errbuf));
	CHECK(!bf_interop_parse(buf, 13, BF_FORMAT_GUAVA, &in, errbuf));
	CHECK(!bf_interop_parse(buf, 22, BF_FORMAT_GUAVA, &in, errbuf));
	buf[2] = 0x7f;				/* 2^31 - 2^24 ... words: absurd, no allocation */
	CHECK(!bf_interop_parse(buf, 14, BF_FORMAT_GUAVA, &in, errbuf));
	buf[2] = 0;
	buf[1] = 0;					/* no hash function */
	CHECK(!bf_interop_parse(buf, 14, BF_FORMAT_GUAVA, &in, errbuf));

	memset(buf, 0, sizeof(buf));
	buf[3] = 3;					/* version 3 */
	buf[7] = 2;
	buf[11] = 1;
	CHECK(!bf_interop_parse(buf, 20, BF_FORMAT_SPARK, &in, errbuf));
	CHECK(strstr(errbuf, "version 3") != NULL);
	buf[3] = 1;
	CHECK(bf_interop_parse(buf, 20, BF_FORMAT_SPARK, &in, errbuf));
	CHECK_EQ_U64(in.shape.layout, BLOOM_LAYOUT_SPARK);
	buf[3] = 2;					/* version 2 has a seed before the count */
	CHECK(!bf_interop_parse(buf, 20, BF_FORMAT_SPARK, &in, errbuf));
	buf[15] = 1;
	CHECK(bf_interop_parse(buf, 24, BF_FORMAT_SPARK, &in, errbuf));
	CHECK(!bf_interop_parse(buf, 5, BF_FORMAT_SPARK, &in, errbuf));
}

/* The division-free remainder of the positions is the remainder. */
static void
test_modulus(void)
{
	uint64_t	x = UINT64_C(0x9e3779b97f4a7c15);
	int			wrong = 0;

	for (int i = 0; i < 200000; i++)
	{
		uint64_t	m,
					v;
		BfModulus	mod;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		m = (i % 3 == 0) ? 64 * ((x >> 40) + 1) : (i % 3 == 1) ? (x >> (i % 63)) + 1 : 64 * ((x & 0xffff) + 1);
		v = x * UINT64_C(0x2545f4914f6cdd1d);
		mod = bf_modulus(m);
		wrong += bf_mod(v, &mod) != v % m;
		wrong += bf_mod(v >> 33, &mod) != (v >> 33) % m;
		wrong += bf_mod(m - 1, &mod) != m - 1;
		wrong += bf_mod(m, &mod) != 0;
	}
	CHECK_EQ_U64(wrong, 0);
}

/* The integer shortcuts hash as the bytes do, for every layout and mode. */
static void
test_int_shortcuts(void)
{
	static const int layouts[] = {
		BLOOM_LAYOUT_PARQUET, BLOOM_LAYOUT_GUAVA, BLOOM_LAYOUT_GUAVA32,
		BLOOM_LAYOUT_SPARK, BLOOM_LAYOUT_SPARK2
	};
	char		errbuf[BLOOM_ERRBUF_SIZE];

	for (int i = 0; i < 5; i++)
		for (int raw = 0; raw < 2; raw++)
		{
			BloomShape	s;
			BloomFilter *f;
			BfModulus	mod;

			CHECK(bf_shape_for(1000, 0.01, layouts[i], &s, errbuf));
			f = alloc_filter(&s);
			f->seed = raw ? BF_INTEROP_RAW_LONGS | 99 : 0;
			mod = bf_modulus(f->nbits);
			for (uint64_t v = 0; v < 2000; v++)
			{
				uint64_t	x = v * UINT64_C(0x9e3779b97f4a7c15);
				uint8_t		le[8];
				BloomHash	a,
							b;

				for (int j = 0; j < 8; j++)
					le[j] = (uint8_t) (x >> (8 * j));
				a = bf_interop_hash_int(f, x, 8);
				b = bf_interop_hash_bytes(f, le, 8);
				CHECK(a.h1 == b.h1 && a.h2 == b.h2);
				a = bf_interop_hash_int(f, (uint32_t) x, 4);
				b = bf_interop_hash_bytes(f, le, 4);
				CHECK(a.h1 == b.h1 && a.h2 == b.h2);
				if (v % 2 == 0)
					bf_insert(f, a);
				CHECK(bf_interop_query(f, &mod, a) == bf_query(f, a));
			}
			free(f);
		}
}

int
main(void)
{
	RUN(test_int_shortcuts);
	RUN(test_modulus);
	RUN(test_xxh64);
	RUN(test_murmur);
	RUN(test_guava);
	RUN(test_java_vectors);
	RUN(test_round_trips);
	RUN(test_parquet);
	RUN(test_java_refusals);
	printf("interop: %d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed != 0;
}
