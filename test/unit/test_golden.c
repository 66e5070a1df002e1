/*
 * test_golden.c
 *	  Golden bytes: the exact binary form of filters written by format
 *	  version 1, so that no later change can silently stop reading stored
 *	  data or start placing bits elsewhere.  If a test here fails, the change
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
 * above inserted: serialized by version 1 of the format.
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

static BloomFilter *
build_golden(void)
{
	BloomShape	s = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = 100, .nhashes = 4, .seed = 7};
	BloomFilter *f = unit_new_filter(&s);

	for (size_t i = 0; i < sizeof(value_hashes) / sizeof(value_hashes[0]); i++)
		bf_insert(f, bf_hash_derive(value_hashes[i]));
	return f;
}

/* Today's code writes exactly the version-1 bytes. */
static void
test_writer_matches_golden(void)
{
	BloomFilter *f = build_golden();
	uint8_t		out[sizeof(golden_v1)];

	CHECK_EQ_U64(bf_wire_bytes(f), sizeof(golden_v1));
	bf_serialize(f, out);
	CHECK(memcmp(out, golden_v1, sizeof(golden_v1)) == 0);
	free(f);
}

/* Today's code reads the version-1 bytes, and finds every value in them. */
static void
test_reader_accepts_golden(void)
{
	char		err[BLOOM_ERRBUF_SIZE];
	uint64_t	bytes = 0;
	BloomFilter *f;

	CHECK(bf_wire_check(golden_v1, sizeof(golden_v1), &bytes, err));
	CHECK_EQ_U64(bytes, bf_struct_bytes(100));
	f = calloc(1, bytes);
	bf_deserialize(golden_v1, f);
	CHECK(bf_struct_check(f, bytes, err));
	CHECK_EQ_U64(f->version, 1);
	CHECK_EQ_U64(f->nbits, 100);
	CHECK_EQ_U64(f->nhashes, 4);
	CHECK_EQ_U64(f->seed, 7);
	CHECK_EQ_U64(f->inserted, 4);
	CHECK_EQ_U64(f->full_at, (uint64_t) BLOOM_NEVER_FULL);
	for (size_t i = 0; i < sizeof(value_hashes) / sizeof(value_hashes[0]); i++)
		CHECK(bf_query(f, bf_hash_derive(value_hashes[i])));
	free(f);
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

/* Every version from 1 to the newest is readable; the next one is not yet. */
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
}

int
main(void)
{
	RUN(test_writer_matches_golden);
	RUN(test_reader_accepts_golden);
	RUN(test_hash_scheme_1_pinned);
	RUN(test_every_written_version_readable);
	return unit_report("golden");
}
