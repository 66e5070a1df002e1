/*
 * test_safety.c
 *	  Regression tests for defects the fuzz harnesses found in the plain-C
 *	  core (see bench/results/safety-results.md), each reproduced through the same
 *	  entry points the SQL functions use.
 */
#include "unit.h"

#include "core/multibloom.h"

static MultiBloom *
new_mb(int nattrs, const BloomShape *shapes, bool autosized, uint64_t *total)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	MultiBloom *mb;

	if (!mbf_struct_bytes(nattrs, shapes, total, errbuf))
	{
		fprintf(stderr, "%s\n", errbuf);
		abort();
	}
	mb = calloc(1, *total);
	mb->vl_len_ = (int32_t) *total;
	mbf_init(mb, nattrs, shapes);
	if (autosized)
	{
		mb->flags |= MULTIBLOOM_FLAG_AUTOSIZED;
		for (int i = 0; i <= nattrs; i++)
			mbf_part(mb, i)->flags |= BLOOM_FLAG_AUTOSIZED;
	}
	return mb;
}

static void
row(uint64_t r, uint64_t *h, bool *isnull)
{
	h[0] = r * UINT64_C(0x9e3779b97f4a7c15);
	h[1] = ~r * UINT64_C(0xc2b2ae3d27d4eb4f);
	isnull[0] = isnull[1] = false;
}

/*
 * Data-sized multibloom filters whose parts differ in size, in both
 * directions: the union folds each part onto the smaller one, whichever
 * argument holds it, and loses no row.  Uniting into the larger part
 * divided by zero in the folding.
 */
static void
test_multibloom_union_folds_per_part(void)
{
	static const uint64_t a_bits[] = {512, 64, 1024};
	static const uint64_t b_bits[] = {128, 256, 64};
	BloomShape	sa[3],
				sb[3],
				su[3],
				sv[3];
	uint64_t	ta,
				tb,
				tu,
				tv;
	MultiBloom *a,
			   *b,
			   *u,
			   *v;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64_t	h[2];
	bool		isnull[2];
	int			missed = 0;

	unit_classic_parts(2, a_bits, sa);
	unit_classic_parts(2, b_bits, sb);
	a = new_mb(2, sa, true, &ta);
	b = new_mb(2, sb, true, &tb);
	for (uint64_t r = 0; r < 30; r++)
	{
		row(r, h, isnull);
		mbf_add_row(a, h, isnull);
		row(1000 + r, h, isnull);
		mbf_add_row(b, h, isnull);
	}
	CHECK(mbf_compatible(a, b, errbuf));
	CHECK(!mbf_union_fits(a, b));
	CHECK(!mbf_union_fits(b, a));

	mbf_union_shapes(a, b, su);
	mbf_union_shapes(b, a, sv);
	CHECK_EQ_U64(su[0].nbits, 128);
	CHECK_EQ_U64(su[1].nbits, 64);
	CHECK_EQ_U64(su[2].nbits, 64);
	u = new_mb(2, su, false, &tu);
	v = new_mb(2, sv, false, &tv);
	mbf_union_build(u, a, b);
	mbf_union_build(v, b, a);
	CHECK(mbf_struct_check(u, tu, errbuf));
	CHECK(mbf_equal(u, v));
	CHECK_EQ_U64(u->rows, 60);
	CHECK(u->flags & MULTIBLOOM_FLAG_AUTOSIZED);
	for (uint64_t r = 0; r < 30; r++)
	{
		row(r, h, isnull);
		missed += !mbf_query_row(u, h, isnull);
		row(1000 + r, h, isnull);
		missed += !mbf_query_row(u, h, isnull);
	}
	CHECK_EQ_U64(missed, 0);

	/* in place when every part of dst is the smaller: the same result */
	{
		MultiBloom *w;
		uint64_t	tw;

		w = new_mb(2, su, true, &tw);
		mbf_union_build(w, a, b);
		CHECK(mbf_union_fits(w, a));
		mbf_union_into(w, a);
		CHECK(mbf_equal(w, u));
		free(w);
	}
	free(a);
	free(b);
	free(u);
	free(v);
}

/*
 * A multibloom whose parts have the matrix and blocked layouts (only a
 * hand-made binary value holds them): the reader must lay the parts out
 * with the sizes its check counted, so the value it accepts passes the
 * in-memory guard on every later use.  It placed matrix parts without
 * their row counters, and the value was then rejected as corrupted.
 */
static void
test_multibloom_matrix_part_roundtrip(void)
{
	BloomShape	shapes[3];
	uint64_t	total,
				checked = 0;
	MultiBloom *mb,
			   *back;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint8_t    *wire;
	uint64_t	len;
	uint64_t	h[2];
	bool		isnull[2];

	unit_mixed_layout_parts(shapes);
	mb = new_mb(2, shapes, false, &total);
	CHECK(total == mbf_header_bytes(2) + bf_shape_bytes(&shapes[0]) +
		  bf_shape_bytes(&shapes[1]) + bf_shape_bytes(&shapes[2]));
	CHECK(mbf_struct_check(mb, total, errbuf));
	for (uint64_t r = 0; r < 10; r++)
	{
		row(r, h, isnull);
		mbf_add_row(mb, h, isnull);
	}
	len = mbf_wire_bytes(mb);
	wire = malloc(len);
	mbf_serialize(mb, wire);
	CHECK(mbf_wire_check(wire, len, &checked, errbuf));
	CHECK_EQ_U64(checked, total);
	back = calloc(1, checked);
	back->vl_len_ = (int32_t) checked;
	mbf_deserialize(wire, back);
	CHECK(mbf_struct_check(back, checked, errbuf));
	CHECK(mbf_equal(mb, back));
	CHECK_EQ_U64(back->offsets[2], mb->offsets[2]);
	for (uint64_t r = 0; r < 10; r++)
	{
		row(r, h, isnull);
		CHECK(mbf_query_row(back, h, isnull));
	}
	free(wire);
	free(mb);
	free(back);
}

int
main(void)
{
	RUN(test_multibloom_union_folds_per_part);
	RUN(test_multibloom_matrix_part_roundtrip);
	return unit_report("safety");
}
