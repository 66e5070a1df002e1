/*
 * test_core.c
 *	  Unit tests of the plain-C Bloom filter (src/core/filter.c, setops.c
 *	  and the classic layout): sizing, positions, set operations, the
 *	  prefetching inserter, the binary and text formats, their byte order
 *	  and their validation.  Run with `make unit`.
 */
#include "unit.h"

#include "core/base64.h"
#include "core/filter.h"
#include "core/sizing.h"
#include "core/wire.h"

static BloomFilter *
new_classic(uint64_t nbits, uint32_t k)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = nbits, .nhashes = k};

	return unit_new_filter(&s);
}

static void
test_sizing(void)
{
	BloomShape	s;
	char		err[BLOOM_ERRBUF_SIZE];

	CHECK(bf_shape_for(1e6, 0.01, BLOOM_LAYOUT_CLASSIC, &s, err));
	/*
	 * k = 7 (log2(100) = 6.64 rounded up), and the fewest words that keep
	 * 95% of filters at 0.01: 0.04% more than the size whose expected
	 * rate is 0.01 with k = 7, -7e6 / ln(1 - 0.01^(1/7)) = 9593453 bits
	 * (the optimal real k = 6.64 would need 9585059)
	 */
	CHECK_EQ_U64(s.nbits, 9597056);
	CHECK_EQ_U64(s.nhashes, 7);
	CHECK(bf_shape_for(1, 0.5, BLOOM_LAYOUT_CLASSIC, &s, err));
	CHECK_EQ_U64(s.nhashes, 1);
	CHECK_EQ_U64(s.nbits, 64);
	CHECK(!bf_shape_for(0, 0.01, BLOOM_LAYOUT_CLASSIC, &s, err));
	CHECK(!bf_shape_for(100, 0, BLOOM_LAYOUT_CLASSIC, &s, err));
	CHECK(!bf_shape_for(100, 1, BLOOM_LAYOUT_CLASSIC, &s, err));
	CHECK(!bf_shape_for(100, NAN, BLOOM_LAYOUT_CLASSIC, &s, err));
	CHECK(!bf_shape_for(NAN, 0.1, BLOOM_LAYOUT_CLASSIC, &s, err));
	CHECK(!bf_shape_for(1e300, 0.01, BLOOM_LAYOUT_CLASSIC, &s, err));
	CHECK(!bf_shape_for(INFINITY, 0.01, BLOOM_LAYOUT_CLASSIC, &s, err));
	CHECK(!bf_shape_for(100, 1e-300, BLOOM_LAYOUT_CLASSIC, &s, err));
	/* the largest filter that fits is above 2^32 bits */
	CHECK(BLOOM_MAX_NBITS > (UINT64_C(1) << 32));
	CHECK(bf_struct_bytes(BLOOM_MAX_NBITS) <= BLOOM_MAX_ALLOC_BYTES);
	CHECK(bf_struct_bytes(BLOOM_MAX_NBITS + 64) > BLOOM_MAX_ALLOC_BYTES);
}

/*
 * The classic rule: k is log2(1/p) rounded down or up, whichever needs the
 * fewer words for 95% of filters to stay at p (bf_rate_quantile with one
 * block); one word fewer would not do with either.  At p = 0.1, where
 * rounding k down to 3 left the mean rate 0.6-1% over p, the mean rate of
 * the shape is now at most p.
 */
static void
test_sizing_rule(void)
{
	const double ns[] = {1, 10, 100, 1e4, 1e6, 1e8};
	const double ps[] = {0.3, 0.1, 0.01, 1e-4, 1e-9};
	char		err[BLOOM_ERRBUF_SIZE];

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]); j++)
		{
			BloomShape	s;
			double		k0 = log2(1 / ps[j]),
						m,
						mean;

			CHECK(bf_shape_for(ns[i], ps[j], BLOOM_LAYOUT_CLASSIC, &s, err));
			m = (double) s.nbits;
			CHECK(s.nhashes == (uint32_t) floor(k0) || s.nhashes == (uint32_t) ceil(k0));
			CHECK(bf_rate_quantile(ns[i], m, 1, s.nhashes) <= ps[j]);
			if (s.nbits > 64)
			{
				CHECK(bf_rate_quantile(ns[i], m - 64, 1, (uint32_t) floor(k0)) > ps[j]);
				CHECK(bf_rate_quantile(ns[i], m - 64, 1, (uint32_t) ceil(k0)) > ps[j]);
			}
			mean = pow(-expm1(ns[i] * s.nhashes * log1p(-1 / m)), s.nhashes);
			CHECK(mean <= ps[j]);
		}
}

static void
test_insert_query(void)
{
	BloomFilter *f = new_classic(9585088, 7);
	uint64_t	n = 1000000,
				fp = 0;
	double		theory;
	bool		all_found = true;

	for (uint64_t i = 0; i < n; i++)
		bf_insert(f, value(i));
	CHECK_EQ_U64(f->inserted, n);
	for (uint64_t i = 0; i < n; i++)
		all_found &= bf_query(f, value(i));
	CHECK(all_found);
	for (uint64_t i = n; i < 3 * n; i++)
		fp += bf_query(f, value(i));
	theory = pow(1 - exp(-7.0 * n / 9585088), 7);
	CHECK_NEAR((double) fp / (2 * n), theory, theory * 0.05);
	CHECK_NEAR(bf_estimate_count(f), (double) n, n * 0.01);
	CHECK_NEAR(bf_estimate_fpp(f), theory, theory * 0.05);
	/* adding a member again changes nothing but the count */
	CHECK(!bf_insert(f, value(5)));
	free(f);
}

/* h2 is never zero, and the two words are not slices of each other. */
static void
test_hash_derive(void)
{
	bool		ok = true;

	for (uint64_t i = 0; i < 100000; i++)
	{
		BloomHash	h = bf_hash_derive(i);

		ok &= h.h2 != 0 && (h.h1 >> 32) != (h.h2 & 0xffffffffu);
	}
	CHECK(ok);
	CHECK(bf_hash_derive(0).h1 != bf_hash_derive(1).h1);
}

/*
 * Positions cover the whole of a filter beyond 2^32 bits, evenly: the
 * failure this guards against is positions confined to the low 2^32.
 */
static void
test_beyond_2_32_bits(void)
{
	uint64_t	nbits = UINT64_C(6000000000);
	BloomFilter *f = new_classic(nbits, 4);
	uint64_t	counts[8] = {0};
	uint64_t	n = 200000;
	bool		even = true;

	if (f == NULL)
	{
		SKIP("no memory for a 750 MB filter");
		return;
	}
	for (uint64_t i = 0; i < n; i++)
	{
		BloomHash	h = value(i);
		uint64_t	x = h.h1,
					y = h.h2;

		for (uint32_t j = 0; j < 4; j++)
		{
			counts[bf_reduce(x, nbits) / (nbits / 8)]++;
			x += y;
			y += j;
		}
		bf_insert(f, h);
	}
	for (int b = 0; b < 8; b++)
		even &= fabs((double) counts[b] - n * 4 / 8.0) < 5 * sqrt(n * 4 / 8.0);
	CHECK(even);
	CHECK(bf_query(f, value(n - 1)));
	CHECK_NEAR((double) bf_bits_set(f), 4.0 * n, 4.0 * n * 0.001);
	free(f);
}

static void
test_set_operations(void)
{
	BloomFilter *a = new_classic(4096, 3);
	BloomFilter *b = new_classic(4096, 3);
	BloomFilter *ab = new_classic(4096, 3);
	BloomFilter *other = new_classic(4096, 4);
	char		err[BLOOM_ERRBUF_SIZE];

	for (uint64_t i = 0; i < 100; i++)
	{
		bf_insert(a, value(i));
		bf_insert(ab, value(i));
	}
	for (uint64_t i = 50; i < 150; i++)
	{
		bf_insert(b, value(i));
		if (i >= 100)
			bf_insert(ab, value(i));
	}
	CHECK(bf_compatible(a, b, err));
	CHECK(!bf_compatible(a, other, err));
	CHECK(strstr(err, "3 hashes") != NULL && strstr(err, "4 hashes") != NULL);
	bf_union_into(a, b);
	CHECK(bf_equal(a, ab));
	CHECK_EQ_U64(a->inserted, 200);
	bf_intersect_into(a, b);
	CHECK(bf_equal(a, b));
	CHECK(!bf_equal(a, other));
	free(a);
	free(b);
	free(ab);
	free(other);
}

/* The fold property the auto-sizing aggregate relies on (core/filter.h). */
static void
test_fold_property(void)
{
	BloomFilter *big = new_classic(64 * 1024, 5);
	BloomFilter *small = new_classic(16 * 1024, 5);
	bool		same = true;

	for (uint64_t i = 0; i < 3000; i++)
	{
		bf_insert(big, value(i));
		bf_insert(small, value(i));
	}
	for (uint64_t bit = 0; bit < small->nbits; bit++)
	{
		bool		any = false;

		for (uint64_t j = 0; j < 4; j++)
			any |= bf_test_bit(big->words, bit * 4 + j);
		same &= any == bf_test_bit(small->words, bit);
	}
	CHECK(same);
	free(big);
	free(small);
}

/*
 * The prefetching inserter gives exactly the filter of plain inserts in the
 * same order, header and matrix counters included, for every layout and for
 * counts below, at and past its batch (a matrix filter, overfilled, is the
 * one whose bits depend on the order), under both hash schemes.
 */
static void
test_inserter_same_as_inserts(void)
{
	const BloomShape shapes[] = {
		{.layout = BLOOM_LAYOUT_CLASSIC, .nbits = 1000, .nhashes = 5},
		/* more hash functions than the classic batch keeps positions for */
		{.layout = BLOOM_LAYOUT_CLASSIC, .nbits = 3000, .nhashes = 20},
		{.layout = BLOOM_LAYOUT_BLOCKED, .nbits = 4 * 512, .nhashes = 6},
		{.layout = BLOOM_LAYOUT_MATRIX, .nbits = 4 * 256, .nhashes = 4, .rows = 4, .locators = 2},
	};
	const uint64_t counts[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 403, 1003};

	for (int scheme = 1; scheme <= BLOOM_HASH_SCHEME_NEWEST; scheme++)
	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++)
		for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++)
		{
			BloomFilter *plain = unit_new_filter(&shapes[si]);
			BloomFilter *bulk = unit_new_filter(&shapes[si]);
			BfInserter	ins;

			plain->hash_scheme = bulk->hash_scheme = (uint8_t) scheme;

			bf_inserter_init(&ins);
			for (uint64_t i = 0; i < counts[ci]; i++)
			{
				bf_insert(plain, value(i));
				bf_inserter_add(&ins, bulk, value(i));
			}
			bf_inserter_flush(&ins, bulk);
			CHECK(memcmp(plain, bulk, bf_shape_bytes(&shapes[si])) == 0);
			CHECK_EQ_U64(bulk->inserted, counts[ci]);
			/* flushed, it starts again empty: more values, still equal */
			for (uint64_t i = 0; i < 11; i++)
			{
				bf_insert(plain, value(counts[ci] + i));
				bf_inserter_add(&ins, bulk, value(counts[ci] + i));
			}
			bf_inserter_flush(&ins, bulk);
			CHECK(memcmp(plain, bulk, bf_shape_bytes(&shapes[si])) == 0);
			free(plain);
			free(bulk);
		}
}

static void
test_wire_round_trip(void)
{
	BloomFilter *f = new_classic(1000, 3);
	uint64_t	len = bf_wire_bytes(f);
	uint8_t    *buf = malloc(len);
	uint64_t	bytes;
	BloomFilter *g;
	char		err[BLOOM_ERRBUF_SIZE];

	f->seed = 77;
	for (uint64_t i = 0; i < 50; i++)
		bf_insert(f, value(i));
	bf_serialize(f, buf);
	CHECK_EQ_U64(len, 60 + 16 * 8);
	CHECK(buf[0] == 1 && buf[1] == 0 && buf[2] == BLOOM_HASH_SCHEME_NEWEST &&
		  buf[3] == 0);
	CHECK(buf[4] == (1000 & 0xff) && buf[5] == (1000 >> 8));
	CHECK(bf_wire_check(buf, len, &bytes, err));
	CHECK_EQ_U64(bytes, bf_struct_bytes(1000));
	g = calloc(1, bytes);
	bf_deserialize(buf, g);
	CHECK(bf_equal(f, g));
	CHECK_EQ_U64(g->inserted, 50);
	CHECK_EQ_U64(g->seed, 77);
	CHECK(bf_struct_check(g, bytes, err));
	CHECK(!bf_struct_check(g, bytes - 8, err));

	/* every byte of the header, changed, is either rejected or harmless */
	for (int pos = 0; pos < 60; pos++)
	{
		uint8_t		saved = buf[pos];
		bool		free_field = (pos >= 12 && pos < 28);	/* seed, inserted */

		buf[pos] ^= 0x40;
		CHECK(bf_wire_check(buf, len, &bytes, err) == free_field);
		buf[pos] = saved;
	}
	CHECK(!bf_wire_check(buf, len - 1, &bytes, err));
	CHECK(!bf_wire_check(buf, 59, &bytes, err));
	CHECK(!bf_wire_check(buf, 0, &bytes, err));
	/* a set bit beyond nbits (1000 = 15 words + 40 bits) */
	buf[len - 1] |= 0x80;
	CHECK(!bf_wire_check(buf, len, &bytes, err));
	free(f);
	free(g);
	free(buf);
}

/* The byte order of the stored forms: least significant byte first. */
static void
test_little_endian(void)
{
	typedef struct
	{
		uint8_t		a;
		uint32_t	b;
		int64_t		c;
		uint64_t	untouched;
	} Sample;
	static const BfLeField fields[] = {
		BF_LE_FIELD(Sample, c, 0), BF_LE_FIELD(Sample, a, 8), BF_LE_FIELD(Sample, b, 9)
	};
	const BfLeHeader header = {"sample", 13, 3, fields};
	const uint8_t expect[13] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0x7a, 0x44, 0x33, 0x22, 0x11};
	Sample		s = {0x7a, 0x11223344, -2, 5},
				t = {0, 0, 0, 9};
	uint8_t		out[16] = {0};
	uint64_t	words[2] = {UINT64_C(0x0102030405060708), 1},
				back[2];
	char		err[BLOOM_ERRBUF_SIZE];

	bf_put_le32(out, 0x11223344);
	CHECK(out[0] == 0x44 && out[3] == 0x11);
	CHECK_EQ_U64(bf_get_le32(out), 0x11223344);
	bf_put_le64(out, UINT64_C(0x0102030405060708));
	CHECK(out[0] == 0x08 && out[7] == 0x01);
	CHECK_EQ_U64(bf_get_le64(out), UINT64_C(0x0102030405060708));
	bf_copy_le_words(out, words, 2);
	CHECK(out[0] == 0x08 && out[7] == 0x01 && out[8] == 1 && out[15] == 0);
	bf_copy_le_words(back, out, 2);
	CHECK(back[0] == words[0] && back[1] == words[1]);

	memset(out, 0, sizeof(out));
	bf_put_header(out, &s, &header);
	CHECK(memcmp(out, expect, sizeof(expect)) == 0);
	CHECK(bf_wire_read_header(out, 13, &header, &t, err));
	CHECK(t.a == s.a && t.b == s.b && t.c == s.c && t.untouched == 9);
	CHECK(!bf_wire_read_header(out, 12, &header, &t, err));
	CHECK_STR(err, "12 bytes is too short for a sample header (13 bytes)");
}

static void
test_base64(void)
{
	const char *cases[][2] = {
		{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
		{"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
	};
	const char *bad[] = {"Zg=", "Zg", "Z===", "Zh==", "Zm9=", "Zm 9v", "Zm9v\n", "=Zm9", "Zg==Zg==", "Zm-v"};
	char		out[64];
	uint8_t		dec[64];
	size_t		n;
	char		err[BLOOM_ERRBUF_SIZE];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		size_t		len = strlen(cases[i][0]);

		bf_base64_encode((const uint8_t *) cases[i][0], len, out);
		out[bf_base64_encoded_len(len)] = 0;
		CHECK_STR(out, cases[i][1]);
		CHECK(bf_base64_decode(cases[i][1], strlen(cases[i][1]), dec, &n, err));
		CHECK(n == len && memcmp(dec, cases[i][0], len) == 0);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(!bf_base64_decode(bad[i], strlen(bad[i]), dec, &n, err));
	/* every byte value survives */
	{
		uint8_t		all[256];
		char		enc[400];
		uint8_t		back[300];

		for (int i = 0; i < 256; i++)
			all[i] = (uint8_t) i;
		bf_base64_encode(all, 256, enc);
		CHECK(bf_base64_decode(enc, bf_base64_encoded_len(256), back, &n, err));
		CHECK(n == 256 && memcmp(all, back, 256) == 0);
	}
}

static void
test_shape_check(void)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = 64, .nhashes = 3};
	char		err[BLOOM_ERRBUF_SIZE];

	CHECK(bf_shape_check(&s, err));
	s.nbits = 0;
	CHECK(!bf_shape_check(&s, err));
	s.nbits = BLOOM_MAX_NBITS + 1;
	CHECK(!bf_shape_check(&s, err));
	s.nbits = UINT64_MAX;
	CHECK(!bf_shape_check(&s, err));
	s.nbits = 64;
	s.nhashes = 0;
	CHECK(!bf_shape_check(&s, err));
	s.nhashes = BLOOM_MAX_NHASHES + 1;
	CHECK(!bf_shape_check(&s, err));
	s.nhashes = 3;
	s.layout = 200;
	CHECK(!bf_shape_check(&s, err));
	CHECK(bf_layout_from_name("classic") == BLOOM_LAYOUT_CLASSIC);
	CHECK(bf_layout_from_name("Classic") == -1);
}

int
main(void)
{
	RUN(test_sizing);
	RUN(test_sizing_rule);
	RUN(test_hash_derive);
	RUN(test_insert_query);
	RUN(test_beyond_2_32_bits);
	RUN(test_set_operations);
	RUN(test_fold_property);
	RUN(test_inserter_same_as_inserts);
	RUN(test_wire_round_trip);
	RUN(test_little_endian);
	RUN(test_base64);
	RUN(test_shape_check);
	return unit_report("core");
}
