/*
 * test_golden.c
 *	  Golden bytes: the exact binary form of filters written by format
 *	  version 1, under hash scheme 1 (the first release), hash scheme 2 and
 *	  hash scheme 3 (written since: scheme 2's positions from a value hash
 *	  that keeps all 64 bits of bigint and its kin), so that no later change
 *	  can silently stop reading stored data or start placing bits elsewhere.  If a test here fails, the change
 *	  broke compatibility with existing filters: bump BLOOM_FORMAT_VERSION
 *	  (or the hash scheme), keep reading version 1 as it is, and add new
 *	  golden bytes beside these rather than editing them.
 */
#include "unit.h"

#include "core/filter.h"
#include "core/wire.h"

/* Value hashes standing in for a type's extended hash (any fixed numbers). */
static const uint64_t value_hashes[] = {
	UINT64_C(0), UINT64_C(1), UINT64_C(0xdeadbeefcafebabe), UINT64_C(0xffffffffffffffff)
};

/*
 * bf_init of classic, 100 bits, k = 4, seed 7, then the four value hashes
 * above inserted: serialized by version 1 of the format under hash scheme 1
 * (enhanced double hashing), as the first release wrote it.
 */
static const uint8_t golden_v1[] = {
	0x01, 0x00, 0x01, 0x00,							/* version 1, classic, scheme 1, flags */
	0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* nbits 100 */
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seed 7 */
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* inserted 4 */
	0x04, 0x00, 0x00, 0x00,							/* nhashes 4 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* rows, locators */
	0x00, 0x00, 0x00, 0x00,							/* reserved */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* full_at -1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved */
	0x28, 0x84, 0x80, 0x20, 0x04, 0x20, 0x50, 0x01,	/* bits 0-63 */
	0x20, 0x80, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,	/* bits 64-99, tail zero */
};

/*
 * The same filter under hash scheme 2 (independent position words), as
 * bf_init writes it since.  The bits were computed by a separate
 * implementation written from doc/format.md alone.
 */
static const uint8_t golden_v1_scheme2[] = {
	0x01, 0x00, 0x02, 0x00,							/* version 1, classic, scheme 2, flags */
	0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* nbits 100 */
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seed 7 */
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* inserted 4 */
	0x04, 0x00, 0x00, 0x00,							/* nhashes 4 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* rows, locators */
	0x00, 0x00, 0x00, 0x00,							/* reserved */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* full_at -1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved */
	0x40, 0x84, 0x40, 0x14, 0x00, 0x00, 0x02, 0x00,	/* bits 0-63 */
	0x00, 0x00, 0x41, 0xc2, 0x0c, 0x00, 0x00, 0x00,	/* bits 64-99, tail zero */
};

/*
 * The same filter under hash scheme 3: the positions are scheme 2's, so for
 * the same value hashes only header byte 2 differs.
 */
static const uint8_t golden_v1_scheme3[] = {
	0x01, 0x00, 0x03, 0x00,							/* version 1, classic, scheme 3, flags */
	0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* nbits 100 */
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seed 7 */
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* inserted 4 */
	0x04, 0x00, 0x00, 0x00,							/* nhashes 4 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* rows, locators */
	0x00, 0x00, 0x00, 0x00,							/* reserved */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* full_at -1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved */
	0x40, 0x84, 0x40, 0x14, 0x00, 0x00, 0x02, 0x00,	/* bits 0-63 */
	0x00, 0x00, 0x41, 0xc2, 0x0c, 0x00, 0x00, 0x00,	/* bits 64-99, tail zero */
};

/*
 * Wide 64-bit quantities (a bigint, a timestamp's microseconds) beyond 32
 * bits, and their scheme-3 value hashes with seed 7 (bf_hash_wide64),
 * computed by the client written from doc/format.md
 * (test/clients/bloomformat.py).
 */
static const int64_t wide_values[] = {
	INT64_C(4294967296), -INT64_C(4294967297), INT64_MAX, INT64_MIN
};
static const uint64_t wide_hashes_seed7[] = {
	UINT64_C(0x9b3d4f6b92cda54a), UINT64_C(0x8dca0ff46afb42d0),
	UINT64_C(0x9a4939b44eba9e1c), UINT64_C(0x9200d01558f6b2dc)
};

/* Classic, 100 bits, k = 4, seed 7, the four wide values, scheme 3. */
static const uint8_t golden_v1_scheme3_wide[] = {
	0x01, 0x00, 0x03, 0x00,							/* version 1, classic, scheme 3, flags */
	0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* nbits 100 */
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seed 7 */
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* inserted 4 */
	0x04, 0x00, 0x00, 0x00,							/* nhashes 4 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* rows, locators */
	0x00, 0x00, 0x00, 0x00,							/* reserved */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* full_at -1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved */
	0x00, 0x00, 0x00, 0x50, 0x14, 0x40, 0x00, 0x2c,	/* bits 0-63 */
	0x05, 0x50, 0x21, 0x09, 0x00, 0x00, 0x00, 0x00,	/* bits 64-99, tail zero */
};

/*
 * Blocked, 2 blocks, k = 16, seed 7, the same four value hashes, under hash
 * scheme 2: positions from three position words per value (words 1, 2, 3
 * of bf_position_word), computed by the same separate implementation.
 */
static const uint8_t golden_v1_blocked_scheme2[] = {
	0x01, 0x01, 0x02, 0x00,							/* version 1, blocked, scheme 2, flags */
	0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* nbits 1024 */
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seed 7 */
	0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* inserted 4 */
	0x10, 0x00, 0x00, 0x00,							/* nhashes 16 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* rows, locators */
	0x00, 0x00, 0x00, 0x00,							/* reserved */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* full_at -1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* reserved */
	/* bits: block 0, then block 1 */
	0x80, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00,
	0x80, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
	0x00, 0x40, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20,
	0x00, 0x40, 0x40, 0x00, 0x21, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,
	0x01, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc4,
	0x00, 0x00, 0x18, 0x00, 0x40, 0x81, 0x00, 0x00,
	0x41, 0x00, 0x80, 0x80, 0x08, 0x00, 0x40, 0x00,
	0x02, 0x10, 0x08, 0x00, 0x40, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x84, 0x02, 0x00, 0x04, 0x00, 0x00,
	0x00, 0x94, 0x02, 0x24, 0xa0, 0x00, 0x0c, 0x10,
	0x05, 0x00, 0x40, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x80, 0x40, 0x08, 0x00, 0x00, 0x00, 0x01, 0x90,
};

/* Today's code writes and reads the blocked scheme-2 bytes. */
static void
test_blocked_scheme2_golden(void)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_BLOCKED, .nbits = 1024, .nhashes = 16, .seed = 7};
	BloomFilter *f = unit_new_filter(&s);
	uint8_t		out[sizeof(golden_v1_blocked_scheme2)];
	char		err[BLOOM_ERRBUF_SIZE];
	uint64_t	bytes = 0;

	f->hash_scheme = BLOOM_HASH_SCHEME_INDEPENDENT_WORDS;	/* as stored */
	for (size_t i = 0; i < sizeof(value_hashes) / sizeof(value_hashes[0]); i++)
		bf_insert(f, bf_hash_derive(value_hashes[i]));
	CHECK_EQ_U64(bf_wire_bytes(f), sizeof(out));
	bf_serialize(f, out);
	CHECK(memcmp(out, golden_v1_blocked_scheme2, sizeof(out)) == 0);
	memset(f->words, 0, 8 * bf_nwords(f));
	CHECK(bf_wire_check(golden_v1_blocked_scheme2, sizeof(out), &bytes, err));
	bf_deserialize(golden_v1_blocked_scheme2, f);
	for (size_t i = 0; i < sizeof(value_hashes) / sizeof(value_hashes[0]); i++)
		CHECK(bf_query(f, bf_hash_derive(value_hashes[i])));
	free(f);
}

/*
 * The golden filter built by today's code: bf_init, then for an older
 * scheme the header byte set as a stored filter of that scheme has it,
 * then the inserts.
 */
static BloomFilter *
build_golden(uint8_t scheme)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = 100, .nhashes = 4, .seed = 7};
	BloomFilter *f = unit_new_filter(&s);

	CHECK_EQ_U64(f->hash_scheme, BLOOM_HASH_SCHEME_NEWEST);
	f->hash_scheme = scheme;
	for (size_t i = 0; i < sizeof(value_hashes) / sizeof(value_hashes[0]); i++)
		bf_insert(f, bf_hash_derive(value_hashes[i]));
	return f;
}

static void
check_writer(uint8_t scheme, const uint8_t *golden, size_t len)
{
	BloomFilter *f = build_golden(scheme);
	uint8_t		out[sizeof(golden_v1)];

	CHECK_EQ_U64(bf_wire_bytes(f), len);
	bf_serialize(f, out);
	CHECK(memcmp(out, golden, len) == 0);
	free(f);
}

/*
 * Today's code writes exactly the golden bytes: new filters under scheme 3,
 * and inserts into stored scheme-1 and scheme-2 filters where those
 * schemes put them.
 */
static void
test_writer_matches_golden(void)
{
	CHECK_EQ_U64(sizeof(golden_v1_scheme2), sizeof(golden_v1));
	CHECK_EQ_U64(sizeof(golden_v1_scheme3), sizeof(golden_v1));
	check_writer(BLOOM_HASH_SCHEME_DOUBLE_HASHING, golden_v1, sizeof(golden_v1));
	check_writer(BLOOM_HASH_SCHEME_INDEPENDENT_WORDS, golden_v1_scheme2,
				 sizeof(golden_v1_scheme2));
	check_writer(BLOOM_HASH_SCHEME_WIDE_VALUES, golden_v1_scheme3,
				 sizeof(golden_v1_scheme3));
}

/* Today's code reads the golden bytes of a scheme and finds every value in them. */
static void
check_reader(const uint8_t *golden, size_t len, uint8_t scheme)
{
	char		err[BLOOM_ERRBUF_SIZE];
	uint64_t	bytes = 0;
	BloomFilter *f;

	CHECK(bf_wire_check(golden, len, &bytes, err));
	CHECK_EQ_U64(bytes, bf_struct_bytes(100));
	f = calloc(1, bytes);
	bf_deserialize(golden, f);
	CHECK(bf_struct_check(f, bytes, err));
	CHECK_EQ_U64(f->version, 1);
	CHECK_EQ_U64(f->hash_scheme, scheme);
	CHECK_EQ_U64(f->nbits, 100);
	CHECK_EQ_U64(f->nhashes, 4);
	CHECK_EQ_U64(f->seed, 7);
	CHECK_EQ_U64(f->inserted, 4);
	CHECK_EQ_U64(f->full_at, (uint64_t) BLOOM_NEVER_FULL);
	for (size_t i = 0; i < sizeof(value_hashes) / sizeof(value_hashes[0]); i++)
		CHECK(bf_query(f, bf_hash_derive(value_hashes[i])));
	free(f);
}

static void
test_reader_accepts_golden(void)
{
	check_reader(golden_v1, sizeof(golden_v1), BLOOM_HASH_SCHEME_DOUBLE_HASHING);
	check_reader(golden_v1_scheme2, sizeof(golden_v1_scheme2),
				 BLOOM_HASH_SCHEME_INDEPENDENT_WORDS);
	check_reader(golden_v1_scheme3, sizeof(golden_v1_scheme3),
				 BLOOM_HASH_SCHEME_WIDE_VALUES);
}

/*
 * Scheme 3's value hash of wide quantities, pinned: bf_hash_wide64 and,
 * for an interval span beyond 64 bits, bf_hash_wide128; and a new filter
 * of four wide values, byte for byte.
 */
static void
test_hash_scheme_3_pinned(void)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = 100, .nhashes = 4, .seed = 7};
	BloomFilter *f = unit_new_filter(&s);
	uint8_t		out[sizeof(golden_v1_scheme3_wide)];
	BfInt128	span;

	CHECK_EQ_U64(bf_hash_wide64(UINT64_C(1) << 32, 0), UINT64_C(0x62caab199d7e9bb9));
	CHECK_EQ_U64(bf_hash_wide64(UINT64_C(1) << 63, 7), UINT64_C(0x9200d01558f6b2dc));
	CHECK_EQ_U64(bf_hash_wide64(UINT64_MAX, 7), UINT64_C(0x9f7b4d26933bb068));
	/* spans of 2^70 + 5 and -(2^70 + 5) microseconds */
	span.hi = 64;
	span.lo = 5;
	CHECK_EQ_U64(bf_hash_wide128(span, 7), UINT64_C(0x8baf51d72c1d696e));
	span.hi = -65;
	span.lo = ~UINT64_C(4);
	CHECK_EQ_U64(bf_hash_wide128(span, 0), UINT64_C(0x527cbb31b606c849));
	/* within 64 bits, the 128-bit form is the 64-bit hash */
	span.hi = -1;
	span.lo = (uint64_t) INT64_MIN;
	CHECK_EQ_U64(bf_hash_wide128(span, 7), bf_hash_wide64((uint64_t) INT64_MIN, 7));

	for (size_t i = 0; i < sizeof(wide_values) / sizeof(wide_values[0]); i++)
	{
		CHECK(bf_hash_wide_needed(wide_values[i]));
		CHECK_EQ_U64(bf_hash_wide64((uint64_t) wide_values[i], 7), wide_hashes_seed7[i]);
		bf_insert(f, bf_hash_derive(wide_hashes_seed7[i]));
	}
	bf_serialize(f, out);
	CHECK(memcmp(out, golden_v1_scheme3_wide, sizeof(out)) == 0);
	free(f);
	CHECK(!bf_hash_wide_needed(INT32_MAX) && !bf_hash_wide_needed(INT32_MIN));
	CHECK(bf_hash_wide_needed((int64_t) INT32_MAX + 1) && bf_hash_wide_needed((int64_t) INT32_MIN - 1));
}

/* The double-hashing words of hash scheme 1, pinned. */
static void
test_hash_scheme_1_pinned(void)
{
	BloomHash	h = bf_hash_derive(0);

	CHECK_EQ_U64(h.h1, UINT64_C(0xe220a8397b1dcdaf));
	CHECK_EQ_U64(h.h2, UINT64_C(0x68850ac74e2e5a27));
	h = bf_hash_derive(UINT64_C(0xdeadbeefcafebabe));
	CHECK_EQ_U64(h.h1, UINT64_C(0x0d7d93560d1929d2));
	CHECK_EQ_U64(h.h2, UINT64_C(0x7e0a6366e8e82e19));
}

/* The position words of hash scheme 2, pinned (doc/format.md). */
static void
test_hash_scheme_2_pinned(void)
{
	BloomHash	h = bf_hash_derive(0);
	BfProbe		p = bf_probe_start(h, BLOOM_HASH_SCHEME_INDEPENDENT_WORDS);

	CHECK_EQ_U64(bf_position_word(h, 0), UINT64_C(0x48218226ff3cd4bf));
	CHECK_EQ_U64(bf_position_word(h, 1), UINT64_C(0xf1ee52aa7e63012a));
	CHECK_EQ_U64(bf_position_word(h, 2), UINT64_C(0x7f015658925cd03a));
	/* a position is its word mapped by multiply-shift: floor(word * n / 2^64) */
	CHECK_EQ_U64(bf_probe_next(&p, UINT64_C(1) << 20), UINT64_C(0x48218226ff3cd4bf) >> 44);
	CHECK_EQ_U64(bf_probe_next(&p, UINT64_C(1) << 20), UINT64_C(0xf1ee52aa7e63012a) >> 44);
	/*
	 * scheme 1 walks h1 + i h2 + i(i-1)(i-2)/6: h1, h1 + h2, h1 + 2 h2,
	 * h1 + 3 h2 + 1, h1 + 4 h2 + 4, ...; with h2 = 1 and h1 just below
	 * 2^44, the top 20 bits show the cubic term
	 */
	h.h1 = (UINT64_C(1) << 44) - 5;
	h.h2 = 1;
	p = bf_probe_start(h, BLOOM_HASH_SCHEME_DOUBLE_HASHING);
	CHECK_EQ_U64(bf_probe_next(&p, UINT64_C(1) << 20), 0);	/* 2^44 - 5 */
	CHECK_EQ_U64(bf_probe_next(&p, UINT64_C(1) << 20), 0);	/* 2^44 - 4 */
	CHECK_EQ_U64(bf_probe_next(&p, UINT64_C(1) << 20), 0);	/* 2^44 - 3 */
	CHECK_EQ_U64(bf_probe_next(&p, UINT64_C(1) << 20), 0);	/* 2^44 - 1 */
	CHECK_EQ_U64(bf_probe_next(&p, UINT64_C(1) << 20), 1);	/* 2^44 + 3 */
}

/*
 * Hash schemes 1 to 3 are readable, no other; every version from 1 to the
 * newest is readable, the next one not yet.
 */
static void
test_every_written_version_readable(void)
{
	char		err[BLOOM_ERRBUF_SIZE];
	uint64_t	bytes;
	uint8_t		buf[sizeof(golden_v1)];

	memcpy(buf, golden_v1, sizeof(buf));
	for (int v = 1; v <= BLOOM_FORMAT_VERSION; v++)
	{
		buf[0] = (uint8_t) v;
		CHECK(bf_wire_check(buf, sizeof(buf), &bytes, err));
	}
	buf[0] = BLOOM_FORMAT_VERSION + 1;
	CHECK(!bf_wire_check(buf, sizeof(buf), &bytes, err));
	buf[0] = 0;
	CHECK(!bf_wire_check(buf, sizeof(buf), &bytes, err));
	buf[0] = 1;
	for (int scheme = 0; scheme < 256; scheme++)
	{
		buf[2] = (uint8_t) scheme;
		CHECK(bf_wire_check(buf, sizeof(buf), &bytes, err) == (scheme >= 1 && scheme <= 3));
	}
}

int
main(void)
{
	RUN(test_writer_matches_golden);
	RUN(test_reader_accepts_golden);
	RUN(test_hash_scheme_1_pinned);
	RUN(test_hash_scheme_2_pinned);
	RUN(test_hash_scheme_3_pinned);
	RUN(test_blocked_scheme2_golden);
	RUN(test_every_written_version_readable);
	return unit_report("golden");
}
