/*
 * test_multibloom.c
 *	  Unit tests of the multi-attribute filter (src/core/multibloom.c): the
 *	  row hash, sizing, membership and the rate on cross-combinations,
 *	  wildcards, union, and the binary format and its validation.
 */
#include "unit.h"

#include "core/multibloom.h"

/* The attribute hashes of a row, each with its attribute's seed. */
static void
row_hashes(const uint64_t *values, int nattrs, uint64_t *h)
{
	for (int i = 0; i < nattrs; i++)
		h[i] = hash_int_seeded(values[i], mbf_attr_seed(i + 1));
}

static MultiBloom *
new_multibloom(int nattrs, double capacity, double fpp, uint64_t *bytes)
{
	BloomShape	shapes[MULTIBLOOM_MAX_ATTRS + 1];
	double		caps[MULTIBLOOM_MAX_ATTRS];
	char		err[BLOOM_ERRBUF_SIZE];
	MultiBloom *mb;

	for (int i = 0; i < nattrs; i++)
		caps[i] = capacity;
	if (!mbf_shapes_for(nattrs, caps, capacity, fpp, shapes, err) ||
		!mbf_struct_bytes(nattrs, shapes, bytes, err))
	{
		fprintf(stderr, "cannot size: %s\n", err);
		exit(1);
	}
	mb = calloc(1, *bytes);
	mbf_init(mb, nattrs, shapes);
	return mb;
}

static void
add_values(MultiBloom *mb, const uint64_t *values)
{
	uint64_t	h[MULTIBLOOM_MAX_ATTRS];
	bool		isnull[MULTIBLOOM_MAX_ATTRS] = {0};

	row_hashes(values, mb->nattrs, h);
	mbf_add_row(mb, h, isnull);
}

static bool
query_values(const MultiBloom *mb, const uint64_t *values, const bool *isnull)
{
	uint64_t	h[MULTIBLOOM_MAX_ATTRS];

	row_hashes(values, mb->nattrs, h);
	return mbf_query_row(mb, h, isnull);
}

static void
test_row_hash(void)
{
	uint64_t	ab[2] = {1, 2},
				ba[2] = {2, 1},
				a[1] = {1},
				ab0[3] = {1, 2, 0};

	CHECK(mbf_row_hash(ab, 2) != mbf_row_hash(ba, 2));
	CHECK(mbf_row_hash(ab, 2) == mbf_row_hash(ab, 2));
	CHECK(mbf_row_hash(ab, 1) == mbf_row_hash(a, 1));
	/* a row is not its own prefix, nor the prefix padded with a zero hash */
	CHECK(mbf_row_hash(ab, 2) != mbf_row_hash(a, 1));
	CHECK(mbf_row_hash(ab, 2) != mbf_row_hash(ab0, 3));
	/* pinned: the value is part of the binary format of stored filters */
	CHECK_EQ_U64(mbf_row_hash(ab, 2), UINT64_C(0xa6ac6a00e3f501cc));

	/* one changed attribute flips about half of the bits */
	{
		int			total = 0;

		for (uint64_t i = 0; i < 1000; i++)
		{
			uint64_t	x[2] = {i, 7},
						y[2] = {i, 8};

			total += __builtin_popcountll(mbf_row_hash(x, 2) ^ mbf_row_hash(y, 2));
		}
		CHECK_NEAR(total / 1000.0, 32.0, 1.0);
	}
}

static void
test_sizing(void)
{
	BloomShape	shapes[MULTIBLOOM_MAX_ATTRS + 1];
	double		caps[MULTIBLOOM_MAX_ATTRS + 1];
	char		err[BLOOM_ERRBUF_SIZE];
	uint64_t	bytes;

	for (int i = 0; i <= MULTIBLOOM_MAX_ATTRS; i++)
		caps[i] = 1000;
	caps[1] = 10;
	CHECK(mbf_shapes_for(2, caps, 5000, 0.01, shapes, err));
	/* each part is bloom's own shape for its capacity, with its seed */
	CHECK_EQ_U64(shapes[0].nbits, 9728);
	CHECK_EQ_U64(shapes[1].nbits, 128);
	CHECK_EQ_U64(shapes[2].nbits, 48256);
	CHECK_EQ_U64(shapes[0].nhashes, 7);
	CHECK_EQ_U64(shapes[0].seed, 1);
	CHECK_EQ_U64(shapes[1].seed, 2);
	CHECK_EQ_U64(shapes[2].seed, MULTIBLOOM_VERIFY_SEED);
	CHECK(mbf_struct_bytes(2, shapes, &bytes, err));
	CHECK_EQ_U64(bytes, 24 + 3 * 8 + (64 + 9728 / 8) + (64 + 128 / 8) + (64 + 48256 / 8));

	CHECK(!mbf_shapes_for(0, caps, 10, 0.01, shapes, err));
	CHECK(strstr(err, "between 1 and 32") != NULL);
	CHECK(!mbf_shapes_for(33, caps, 10, 0.01, shapes, err));
	CHECK(mbf_shapes_for(32, caps, 10, 0.01, shapes, err));
	CHECK(!mbf_shapes_for(2, caps, 10, 1.5, shapes, err));
	CHECK(!mbf_shapes_for(2, caps, 0, 0.01, shapes, err));
	CHECK(strstr(err, "verification filter") != NULL);
	/* a part of almost 1 GB each: the sum is over the limit */
	caps[0] = caps[1] = 8e8;
	CHECK(mbf_shapes_for(2, caps, 8e8, 0.01, shapes, err));
	CHECK(!mbf_struct_bytes(2, shapes, &bytes, err));
	CHECK(strstr(err, "1 GB") != NULL);
}

/*
 * The PBF-BF property: rows whose values each occur, but never together,
 * pass every attribute filter and are rejected by the verification filter
 * at its rate.
 */
static void
test_cross_combinations(void)
{
	uint64_t	bytes;
	uint64_t	n = 20000;
	MultiBloom *mb = new_multibloom(2, (double) n, 0.01, &bytes);
	bool		nonull[2] = {false, false};
	bool		all_found = true;
	uint64_t	probes = 200000,
				fp = 0,
				attr_pass = 0;

	/* stored rows (i, i + 1000000) */
	for (uint64_t i = 0; i < n; i++)
	{
		uint64_t	v[2] = {i, i + 1000000};

		add_values(mb, v);
	}
	for (uint64_t i = 0; i < n; i++)
	{
		uint64_t	v[2] = {i, i + 1000000};

		all_found &= query_values(mb, v, nonull);
	}
	CHECK(all_found);
	CHECK_EQ_U64(mb->rows, n);

	/* probes (i, j + 1000000), i != j: every value occurs, never together */
	for (uint64_t p = 0; p < probes; p++)
	{
		uint64_t	i = hash_int_seeded(p, 100) % n,
					j = (i + 1 + hash_int_seeded(p, 200) % (n - 1)) % n;
		uint64_t	v[2] = {i, j + 1000000};
		bool		wild1[2] = {false, true},
					wild0[2] = {true, false};

		fp += query_values(mb, v, nonull);
		attr_pass += query_values(mb, v, wild1) && query_values(mb, v, wild0);
	}
	/* without verification every one would pass */
	CHECK_EQ_U64(attr_pass, probes);
	/* 1% expected (2000 of 200000, sd ~ 45): allow 1.25%, far outside 0.75..1.25 by chance */
	CHECK((double) fp / probes < 0.0125);
	CHECK((double) fp / probes > 0.0075);
	fprintf(stderr, "  cross-combination rate %.4f (target 0.01)\n", (double) fp / probes);
	free(mb);
}

static void
test_wildcards_and_nulls(void)
{
	uint64_t	bytes;
	MultiBloom *mb = new_multibloom(3, 100, 0.001, &bytes);
	uint64_t	v[3] = {10, 20, 30};
	uint64_t	h[3];
	bool		with_null[3] = {false, true, false};
	bool		none[3] = {false, false, false};
	bool		all[3] = {true, true, true};
	bool		first_only[3] = {false, true, true};
	bool		second_only[3] = {true, false, true};

	/* an empty filter matches nothing, not even all wildcards */
	CHECK(!query_values(mb, v, all));
	CHECK(!query_values(mb, v, first_only));

	/* a row (10, NULL, 30): its attributes are found, the whole row never */
	row_hashes(v, 3, h);
	mbf_add_row(mb, h, with_null);
	CHECK_EQ_U64(mbf_verify_part(mb)->inserted, 0);
	CHECK_EQ_U64(mbf_part_c(mb, 0)->inserted, 1);
	CHECK_EQ_U64(mbf_part_c(mb, 1)->inserted, 0);
	CHECK(query_values(mb, v, with_null));
	CHECK(query_values(mb, v, first_only));
	CHECK(!query_values(mb, v, second_only));
	CHECK(!query_values(mb, v, none));
	CHECK(query_values(mb, v, all));

	/* the whole row */
	add_values(mb, v);
	CHECK(query_values(mb, v, none));
	CHECK(query_values(mb, v, second_only));
	{
		uint64_t	w[3] = {10, 20, 31};

		CHECK(!query_values(mb, w, none));
		CHECK(query_values(mb, w, first_only));
	}
	CHECK_EQ_U64(mb->rows, 2);
	free(mb);
}

static void
test_union_and_equal(void)
{
	uint64_t	bytes,
				bytes2;
	MultiBloom *a = new_multibloom(2, 1000, 0.01, &bytes);
	MultiBloom *b = new_multibloom(2, 1000, 0.01, &bytes);
	MultiBloom *ab = new_multibloom(2, 1000, 0.01, &bytes);
	MultiBloom *other = new_multibloom(2, 2000, 0.01, &bytes2);
	MultiBloom *three = new_multibloom(3, 1000, 0.01, &bytes2);
	char		err[BLOOM_ERRBUF_SIZE];

	for (uint64_t i = 0; i < 300; i++)
	{
		uint64_t	v[2] = {i, i * 7};

		add_values(i % 2 ? a : b, v);
		add_values(ab, v);
	}
	CHECK(!mbf_equal(a, ab));
	CHECK(mbf_compatible(a, b, err));
	mbf_union_into(a, b);
	CHECK(mbf_equal(a, ab));
	CHECK_EQ_U64(a->rows, 300);
	CHECK(!mbf_compatible(a, other, err));
	CHECK(strstr(err, "attribute 1: first filter is (classic, 9728 bits") != NULL);
	CHECK(!mbf_compatible(a, three, err));
	CHECK_STR(err, "first filter has 2 attributes, second has 3");
	CHECK(!mbf_equal(a, three));
	mbf_describe(a, err, sizeof(err));
	CHECK_STR(err, "2 attributes; attribute 1: classic, 9728 bits, 7 hashes, seed 1; "
			  "attribute 2: classic, 9728 bits, 7 hashes, seed 2; "
			  "verification filter: classic, 9728 bits, 7 hashes, seed 0");
	free(a);
	free(b);
	free(ab);
	free(other);
	free(three);
}

static void
test_wire(void)
{
	uint64_t	bytes,
				struct_bytes,
				wire;
	MultiBloom *mb = new_multibloom(3, 50, 0.05, &bytes);
	MultiBloom *back;
	uint8_t    *buf,
			   *bad;
	char		err[BLOOM_ERRBUF_SIZE];
	bool		rejected_all = true;

	for (uint64_t i = 0; i < 40; i++)
	{
		uint64_t	v[3] = {i, i % 5, i * i};

		add_values(mb, v);
	}
	CHECK(mbf_struct_check(mb, bytes, err));
	wire = mbf_wire_bytes(mb);
	CHECK_EQ_U64(wire + 4 + 4 * 4, bytes);
	buf = malloc(wire);
	mbf_serialize(mb, buf);
	CHECK(mbf_wire_check(buf, wire, &struct_bytes, err));
	CHECK_EQ_U64(struct_bytes, bytes);
	back = calloc(1, struct_bytes);
	mbf_deserialize(buf, back);
	CHECK(mbf_struct_check(back, struct_bytes, err));
	CHECK(mbf_equal(mb, back));
	CHECK_EQ_U64(back->rows, 40);
	CHECK(memcmp((char *) mb + 4, (char *) back + 4, bytes - 4) == 0);

	/* every truncation and one extra byte are rejected */
	for (uint64_t len = 0; len < wire; len++)
		rejected_all &= !mbf_wire_check(buf, len, &struct_bytes, err);
	CHECK(rejected_all);
	bad = malloc(wire + 1);
	memcpy(bad, buf, wire);
	bad[wire] = 0;
	CHECK(!mbf_wire_check(bad, wire + 1, &struct_bytes, err));

	/* each header field */
#define EXPECT_BAD(offset, value, text) \
	do { \
		memcpy(bad, buf, wire); \
		bad[offset] = (value); \
		CHECK(!mbf_wire_check(bad, wire, &struct_bytes, err)); \
		CHECK(strstr(err, text) != NULL); \
	} while (0)
	EXPECT_BAD(0, 0, "version 0");
	EXPECT_BAD(0, 2, "version 2");
	EXPECT_BAD(1, 0, "between 1 and 32, not 0");
	EXPECT_BAD(1, 33, "between 1 and 32, not 33");
	EXPECT_BAD(1, 2, "attribute");	/* lengths no longer line up */
	EXPECT_BAD(2, 0x80, "flags");
	EXPECT_BAD(3, 1, "reserved");
	EXPECT_BAD(19, 1, "reserved");
	/* part lengths: too long, too short, huge */
	EXPECT_BAD(20, buf[20] + 8, "attribute 1");
	EXPECT_BAD(20, buf[20] - 8, "attribute 1");
	EXPECT_BAD(27, 0x80, "exceeds");
	EXPECT_BAD(20 + 8 * 3 + 7, 0x80, "exceeds");
	/* embedded bloom headers: version, seed, nbits */
	EXPECT_BAD(52, 9, "attribute 1: unsupported format version");
	EXPECT_BAD(52 + 12, 7, "attribute 1 has seed 7");
	EXPECT_BAD(52 + 4, 0xff, "attribute 1");
	{
		uint64_t	verify_at = wire - bf_wire_bytes(mbf_verify_part(mb));

		EXPECT_BAD(verify_at + 12, 1, "verification filter has seed 1");
		EXPECT_BAD(verify_at + 40, 1, "verification filter: reserved");
	}
	CHECK(!mbf_wire_check(buf, 0, &struct_bytes, err));

	/* the in-memory check: offsets, sizes, seeds */
	memcpy(back, mb, bytes);
	CHECK(!mbf_struct_check(back, bytes - 8, err));
	CHECK(!mbf_struct_check(back, bytes + 8, err));
	CHECK(!mbf_struct_check(back, 10, err));
	back->offsets[1] += 8;
	CHECK(!mbf_struct_check(back, bytes, err));
	CHECK(strstr(err, "attribute 1: value of") != NULL);
	memcpy(back, mb, bytes);
	back->offsets[0] -= 8;
	CHECK(!mbf_struct_check(back, bytes, err));
	CHECK(strstr(err, "attribute 1 starts at") != NULL);
	memcpy(back, mb, bytes);
	back->offsets[0] = UINT64_MAX - 4;
	CHECK(!mbf_struct_check(back, bytes, err));
	memcpy(back, mb, bytes);
	back->nattrs = 200;
	CHECK(!mbf_struct_check(back, bytes, err));
	memcpy(back, mb, bytes);
	mbf_part(back, 2)->seed = 9;
	CHECK(!mbf_struct_check(back, bytes, err));
	CHECK_STR(err, "attribute 3 has seed 9, expected 3");

	free(buf);
	free(bad);
	free(back);
	free(mb);
}

/*
 * Random damage anywhere: whatever the check accepts must be a value every
 * reader can walk (run under a memory checker, this is the crash test).
 */
static void
test_fuzz(void)
{
	uint64_t	bytes,
				struct_bytes;
	MultiBloom *mb = new_multibloom(2, 20, 0.1, &bytes);
	uint64_t	wire = mbf_wire_bytes(mb);
	uint8_t    *buf = malloc(wire),
			   *bad = malloc(wire);
	char		err[BLOOM_ERRBUF_SIZE];
	int			accepted = 0,
				consistent = 0;

	mbf_serialize(mb, buf);
	for (uint64_t round = 0; round < 20000; round++)
	{
		uint64_t	r = hash_int_seeded(round, 99);
		uint64_t	len = wire - (r >> 60 == 0 ? (r >> 40) % 16 : 0);

		memcpy(bad, buf, wire);
		bad[r % wire] ^= (uint8_t) (1 + (r >> 32) % 255);
		bad[(r >> 16) % wire] ^= (uint8_t) (r >> 8);
		if (mbf_wire_check(bad, (size_t) len, &struct_bytes, err))
		{
			MultiBloom *back = calloc(1, struct_bytes);

			accepted++;
			mbf_deserialize(bad, back);
			consistent += mbf_struct_check(back, struct_bytes, err);
			free(back);
		}
	}
	CHECK(accepted > 0);
	CHECK_EQ_U64(consistent, accepted);
	free(buf);
	free(bad);
	free(mb);
}

int
main(void)
{
	RUN(test_row_hash);
	RUN(test_sizing);
	RUN(test_cross_combinations);
	RUN(test_wildcards_and_nulls);
	RUN(test_union_and_equal);
	RUN(test_wire);
	RUN(test_fuzz);
	return unit_report("multibloom");
}
