/*
 * test_explicit.c
 *	  Unit tests of the explicit representation of small data-sized filters
 *	  (core/layout_explicit.h) and of the set operations of every
 *	  representation (bf_setop_plan, bf_setop_build): the list, its binary
 *	  form and its checks, the empty filter as the identity of union, a list
 *	  added to a bit array at the bit array's size, lists merged and
 *	  promoted, intersections, and multibloom's empty parts.
 */
#include "unit.h"

#include "core/wire.h"

/* hash_int(v) for v in [from, to), ascending and distinct. */
static uint64_t *
hashes_of(uint64_t from, uint64_t to, uint64_t *n)
{
	uint64_t   *h = malloc(8 * (to - from + 1));

	for (uint64_t v = from; v < to; v++)
		h[v - from] = hash_int(v);
	*n = bf_records_sort_unique(h, 0, to - from, 1);
	return h;
}

/* The data-sized filter of [from, to): a list up to the maximum, else bits. */
static BloomFilter *
datasized(uint64_t from, uint64_t to, uint64_t nwords)
{
	return unit_datasized(from, to, nwords, 0);
}

static BloomFilter *
list_of(uint64_t from, uint64_t to)
{
	BloomFilter *f = datasized(from, to, 0);

	if (!bf_is_explicit(f))
		exit(2);
	return f;
}

/* a | b or a & b through plan and build, or NULL (err set) if they do not combine. */
static BloomFilter *
setop(const BloomFilter *a, const BloomFilter *b, bool intersect, BfSetop *op, char *err)
{
	BloomFilter *r;

	if (!bf_setop_plan(a, b, intersect, op, err))
		return NULL;
	r = calloc(1, op->bytes);
	r->vl_len_ = (int32_t) op->bytes;
	bf_setop_build(r, a, b, op);
	return r;
}

/* How many of the values [from, to) f may hold. */
static uint64_t
found(const BloomFilter *f, uint64_t from, uint64_t to)
{
	uint64_t	n = 0;

	for (uint64_t v = from; v < to; v++)
		n += bf_contains_value(f, hash_int(v));
	return n;
}

/* The reader's verdict on a binary form. */
static bool
wire_ok(const uint8_t *w, size_t len, char *err)
{
	uint64_t	bytes;

	return bf_wire_check(w, len, &bytes, err);
}

/* ---- the list ---- */

static void
test_list_basics(void)
{
	BloomFilter *f = list_of(0, 100);
	BloomFilter *e = list_of(0, 0);
	char		err[BLOOM_ERRBUF_SIZE];
	BloomShape	s;

	CHECK_EQ_U64(bf_explicit_count(f), 100);
	CHECK_EQ_U64(f->nbits, 6400);
	CHECK_EQ_U64(f->nhashes, 0);
	CHECK_EQ_U64(bf_filter_bytes(f), 64 + 800);
	CHECK_EQ_U64(found(f, 0, 100), 100);
	CHECK_EQ_U64(found(f, 100, 100100), 0);
	CHECK(bf_estimate_count(f) == 100.0);
	CHECK(bf_estimate_fpp(f) == ldexp(100.0, -64));
	CHECK_EQ_U64(bf_bits_set(f), 0);
	CHECK(!bf_is_empty(f));
	CHECK_STR(bf_layout_name(f->layout), "explicit");
	CHECK(bf_layout_from_name("explicit") == -1);	/* not a layout to size */
	bf_get_shape(f, &s);
	CHECK(bf_shape_check(&s, err));
	bf_shape_describe(&s, err, sizeof(err));
	CHECK_STR(err, "explicit, 100 values, seed 0");

	/* the empty list: 64 bytes, holds nothing, the smallest data-sized filter */
	CHECK(bf_is_empty(e));
	CHECK_EQ_U64(bf_filter_bytes(e), 64);
	CHECK_EQ_U64(found(e, 0, 1000), 0);
	CHECK(bf_estimate_fpp(e) == 0.0);

	/* bit-array entry points leave a list alone and never deny a value */
	CHECK(!bf_insert(f, value(5000)));
	CHECK(bf_query(f, value(5000)));
	CHECK_EQ_U64(bf_explicit_count(f), 100);
	free(f);
	free(e);
}

/* Nothing that takes derived words changes a list: bits, list nor count. */
static void
test_list_untouched_by_positions(void)
{
	BloomFilter *f = list_of(0, 100);
	BloomFilter *copy = list_of(0, 100);
	BfInserter	ins;

	f->inserted = copy->inserted = 7;
	bf_prefetch(f, value(5000));
	CHECK(!bf_insert(f, value(5000)));
	bf_inserter_init(&ins);
	for (uint64_t v = 5000; v < 5100; v++)
		bf_inserter_add(&ins, f, value(v));
	bf_inserter_flush(&ins, f);
	CHECK_EQ_U64(f->inserted, 7);
	CHECK(memcmp(f, copy, bf_filter_bytes(f)) == 0);
	CHECK_EQ_U64(found(f, 5000, 5100), 0);
	free(f);
	free(copy);
}

static void
test_shape_collected(void)
{
	BloomShape	s;
	char		err[BLOOM_ERRBUF_SIZE];

	CHECK(bf_shape_collected(0, 7, &s, err));
	CHECK(s.layout == BLOOM_LAYOUT_EXPLICIT && s.nbits == 0 && s.seed == 7);
	CHECK(bf_shape_collected(BLOOM_EXPLICIT_MAX, 0, &s, err));
	CHECK(s.layout == BLOOM_LAYOUT_EXPLICIT);
	CHECK_EQ_U64(s.nbits, 64 * BLOOM_EXPLICIT_MAX);
	CHECK(bf_shape_check(&s, err));
	/* one more: the data-sized bit array, which still has room */
	CHECK(bf_shape_collected(BLOOM_EXPLICIT_MAX + 1, 3, &s, err));
	CHECK(s.layout == BLOOM_LAYOUT_CLASSIC && s.nhashes == 7 && s.seed == 3);
	CHECK_EQ_U64(s.nbits, 4096);
	CHECK(pow(1 - exp(-7.0 * 426 / 4096), 7) <= 0.01);
	CHECK(bf_shape_collected(426, 0, &s, err) && s.nbits == 4096);
	CHECK(bf_shape_collected(427, 0, &s, err) && s.nbits == 8192);
	/* a list longer than the maximum is not a valid stored shape */
	bf_explicit_shape(BLOOM_EXPLICIT_MAX + 1, 0, &s);
	CHECK(!bf_shape_check(&s, err));
	CHECK(strstr(err, "at most") != NULL);
	CHECK(!bf_shape_collected(-1, 0, &s, err));
}

static void
test_merge(void)
{
	const uint64_t a[] = {1, 5, 9, 12};
	const uint64_t b[] = {0, 5, 12, 13, UINT64_MAX};
	const uint64_t want[] = {0, 1, 5, 9, 12, 13, UINT64_MAX};
	uint64_t	out[9];
	bool		same = true;

	CHECK_EQ_U64(bf_explicit_merge(a, 4, b, 5, NULL), 7);
	CHECK_EQ_U64(bf_explicit_merge(a, 4, b, 5, out), 7);
	for (int i = 0; i < 7; i++)
		same &= out[i] == want[i];
	CHECK(same);
	CHECK_EQ_U64(bf_explicit_merge(a, 0, b, 0, out), 0);
	CHECK_EQ_U64(bf_explicit_merge(a, 4, b, 0, out), 4);
	/* unsorted input: a wrong list, within bounds */
	CHECK(bf_explicit_merge(b + 2, 3, a, 4, out) <= 7);
}

/* ---- the binary form ---- */

static void
test_wire_roundtrip(void)
{
	BloomFilter *f = list_of(0, 2);
	size_t		len;
	uint8_t    *w = unit_wire_of(f, &len);
	char		err[BLOOM_ERRBUF_SIZE];
	uint64_t	bytes = 0;
	BloomFilter *g;
	/* the header of a list of 2 (hashes follow): layout 3, flag 0x01, nbits 128, k 0 */
	static const uint8_t head[] = {
		0x01, 0x03, BLOOM_HASH_SCHEME_NEWEST, 0x01,
		0x80, 0, 0, 0, 0, 0, 0, 0,	/* nbits */
		0, 0, 0, 0, 0, 0, 0, 0,		/* seed */
		2, 0, 0, 0, 0, 0, 0, 0,		/* inserted */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* k, rows, locators, reserved */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* full_at */
		0, 0, 0, 0, 0, 0, 0, 0};
	bool		ascending;

	CHECK_EQ_U64(len, 60 + 16);
	CHECK(memcmp(w, head, sizeof(head)) == 0);
	ascending = bf_get_le64(w + 60) < bf_get_le64(w + 68);
	CHECK(ascending);
	CHECK(bf_wire_check(w, len, &bytes, err));
	CHECK_EQ_U64(bytes, bf_filter_bytes(f));
	g = calloc(1, bytes);
	bf_deserialize(w, g);
	CHECK(bf_equal(f, g));
	CHECK(bf_struct_check(g, bytes, err));
	free(g);
	free(w);
	free(f);

	/* the empty list: the header alone */
	f = list_of(0, 0);
	w = unit_wire_of(f, &len);
	CHECK_EQ_U64(len, 60);
	CHECK(wire_ok(w, len, err));
	free(w);
	free(f);
}

/* Each damage of a valid list is rejected, with a reason. */
static void
test_wire_rejects(void)
{
	BloomFilter *f = list_of(0, 3);
	size_t		len;
	uint8_t    *w = unit_wire_of(f, &len);
	uint8_t    *d = malloc(len + 8);
	char		err[BLOOM_ERRBUF_SIZE];
	uint64_t	h0 = bf_get_le64(w + 60),
				h1 = bf_get_le64(w + 68);

	/* hashes out of order, and repeated */
	memcpy(d, w, len);
	bf_put_le64(d + 60, h1);
	bf_put_le64(d + 68, h0);
	CHECK(!wire_ok(d, len, err));
	CHECK(strstr(err, "ascend") != NULL);
	memcpy(d, w, len);
	bf_put_le64(d + 68, h0);
	CHECK(!wire_ok(d, len, err));
	/* the length must match nbits, both ways */
	CHECK(!wire_ok(w, len - 8, err));
	memcpy(d, w, len);
	memset(d + len, 0xff, 8);
	CHECK(!wire_ok(d, len + 8, err));
	memcpy(d, w, len);
	bf_put_le64(d + BF_WIRE_NBITS, 64 * 2);
	CHECK(!wire_ok(d, len, err));
	/* not whole hashes */
	bf_put_le64(d + BF_WIRE_NBITS, 64 * 3 - 1);
	CHECK(!wire_ok(d, len, err));
	/* the flag, k, rows, locators, full_at, reserved fields */
	memcpy(d, w, len);
	d[BF_WIRE_FLAGS] = 0;
	CHECK(!wire_ok(d, len, err));
	CHECK(strstr(err, "data-sized flag") != NULL);
	memcpy(d, w, len);
	bf_put_le32(d + BF_WIRE_NHASHES, 7);
	CHECK(!wire_ok(d, len, err));
	memcpy(d, w, len);
	bf_put_le32(d + BF_WIRE_ROWS, 1);
	CHECK(!wire_ok(d, len, err));
	memcpy(d, w, len);
	bf_put_le64(d + BF_WIRE_FULL_AT, 0);
	CHECK(!wire_ok(d, len, err));
	memcpy(d, w, len);
	bf_put_le64(d + BF_WIRE_RESERVED2, 1);
	CHECK(!wire_ok(d, len, err));
	memcpy(d, w, len);
	CHECK(wire_ok(d, len, err));
	free(d);
	free(w);
	free(f);

	/* a list of BLOOM_EXPLICIT_MAX + 1 hashes, valid otherwise */
	{
		uint64_t	n;
		uint64_t   *h = hashes_of(0, BLOOM_EXPLICIT_MAX + 1, &n);
		BloomShape	s;
		BloomFilter *big;

		bf_explicit_shape(n, 0, &s);
		big = calloc(1, bf_shape_bytes(&s));
		bf_init(big, &s);
		big->flags = BLOOM_FLAG_AUTOSIZED;
		memcpy(big->words, h, 8 * n);
		w = unit_wire_of(big, &len);
		CHECK(!wire_ok(w, len, err));
		CHECK(strstr(err, "at most 240") != NULL);
		free(w);
		free(big);
		free(h);
	}
}

/* The in-memory guard checks the order too. */
static void
test_struct_check(void)
{
	BloomFilter *f = list_of(0, 5);
	char		err[BLOOM_ERRBUF_SIZE];
	uint64_t	t;

	CHECK(bf_struct_check(f, bf_filter_bytes(f), err));
	CHECK(!bf_struct_check(f, bf_filter_bytes(f) + 8, err));
	t = f->words[1];
	f->words[1] = f->words[3];
	f->words[3] = t;
	CHECK(!bf_struct_check(f, bf_filter_bytes(f), err));
	f->words[3] = f->words[1];
	CHECK(!bf_struct_check(f, bf_filter_bytes(f), err));
	free(f);
}

/* ---- set operations ---- */

/* The empty filter is the identity of union, whatever its size or form. */
static void
test_empty_identity(void)
{
	BloomFilter *big = datasized(0, 20000, 4096);
	BloomFilter *empty_list = list_of(0, 0);
	BloomFilter *empty_bits = datasized(0, 0, 1);	/* the former 64-bit empty */
	BloomFilter *small = list_of(50000, 50006);
	BloomFilter *empties[] = {empty_list, empty_bits};
	char		err[BLOOM_ERRBUF_SIZE];
	BfSetop		op;

	for (int i = 0; i < 2; i++)
	{
		BloomFilter *u1 = setop(big, empties[i], false, &op, err);
		BloomFilter *u2 = setop(empties[i], big, false, &op, err);
		BloomFilter *n1 = setop(big, empties[i], true, &op, err);
		BloomFilter *u3 = setop(small, empties[i], false, &op, err);

		CHECK(u1 && u2 && n1 && u3);
		CHECK(bf_equal(u1, big));
		CHECK(bf_equal(u2, big));
		CHECK_EQ_U64(u2->inserted, 20000);
		CHECK(u2->flags & BLOOM_FLAG_AUTOSIZED);
		/* intersecting with it: empty */
		CHECK(bf_is_empty(n1));
		CHECK_EQ_U64(n1->inserted, 0);
		/* a list stays a list */
		CHECK(bf_equal(u3, small));
		free(u1);
		free(u2);
		free(n1);
		free(u3);
	}
	/* in place when the state is the larger: nothing to do but counts */
	CHECK(bf_setop_plan(big, empty_bits, false, &op, err));
	CHECK(op.kind == BF_SETOP_IDENTITY && bf_setop_in_place(&op));
	CHECK(bf_setop_plan(empty_bits, big, false, &op, err));
	CHECK(!bf_setop_in_place(&op));
	CHECK_EQ_U64(op.bytes, bf_filter_bytes(big));
	/* two empties: the list, whatever the order */
	{
		BloomFilter *e1 = setop(empty_bits, empty_list, false, &op, err);
		BloomFilter *e2 = setop(empty_list, empty_bits, false, &op, err);

		CHECK(bf_is_explicit(e1) && bf_equal(e1, e2));
		free(e1);
		free(e2);
	}
	/* fixed-shape filters of another shape still do not combine */
	big->flags = 0;
	CHECK(!bf_setop_plan(big, empty_list, false, &op, err));
	CHECK(strstr(err, "explicit, 0 values") != NULL);
	CHECK(!bf_setop_plan(empty_bits, big, false, &op, err));
	free(big);
	free(empty_list);
	free(empty_bits);
	free(small);
}

/* A list adds its values to a bit array at the bit array's size. */
static void
test_list_into_bits(void)
{
	BloomFilter *big = datasized(0, 20000, 4096);
	BloomFilter *small = list_of(100000, 100006);
	BloomFilter *direct = datasized(0, 20000, 4096);
	BloomFilter *u1,
			   *u2;
	char		err[BLOOM_ERRBUF_SIZE];
	BfSetop		op;
	BfBuilder	b;

	bf_builder_start(&b, direct);
	for (uint64_t i = 0; i < bf_explicit_count(small); i++)
		bf_builder_add(&b, small->words[i]);
	bf_builder_finish(&b);

	u1 = setop(big, small, false, &op, err);
	CHECK(op.kind == BF_SETOP_LIST_INTO_BITS && bf_setop_in_place(&op));
	u2 = setop(small, big, false, &op, err);
	CHECK(!bf_setop_in_place(&op));
	CHECK_EQ_U64(u1->nbits, 4096 * 64);
	CHECK(bf_equal(u1, direct));
	CHECK(bf_equal(u2, direct));
	CHECK_EQ_U64(u1->inserted, 20006);
	CHECK_EQ_U64(found(u1, 0, 20000), 20000);
	CHECK_EQ_U64(found(u1, 100000, 100006), 6);

	/* in place, as the aggregates do it */
	CHECK(bf_setop_plan(big, small, false, &op, err));
	bf_setop_build(big, big, small, &op);
	CHECK(bf_equal(big, direct));
	CHECK_EQ_U64(big->inserted, 20006);
	free(big);
	free(small);
	free(direct);
	free(u1);
	free(u2);
}

/* Lists merge; past the maximum the union is the bit array of the merged count. */
static void
test_merge_lists(void)
{
	const uint64_t half = BLOOM_EXPLICIT_MAX / 2;
	BloomFilter *a = list_of(0, half);
	BloomFilter *b = list_of(half - 10, 2 * half);	/* 10 values in common */
	BloomFilter *c = list_of(2 * half, 2 * half + 1);
	BloomFilter *u,
			   *v,
			   *want;
	char		err[BLOOM_ERRBUF_SIZE];
	BfSetop		op;

	u = setop(a, b, false, &op, err);
	CHECK(op.kind == BF_SETOP_MERGE_LISTS);
	CHECK(bf_is_explicit(u));
	CHECK_EQ_U64(bf_explicit_count(u), BLOOM_EXPLICIT_MAX);
	CHECK_EQ_U64(u->inserted, half + half + 10);
	want = list_of(0, 2 * half);
	CHECK(bf_equal(u, want));
	free(want);

	/* one more value: promoted, the filter bloom_agg makes of those values */
	v = setop(u, c, false, &op, err);
	CHECK(!bf_is_explicit(v));
	CHECK_EQ_U64(v->nbits, 4096);
	CHECK(v->flags & BLOOM_FLAG_AUTOSIZED);
	want = datasized(0, 2 * half + 1, 0);
	CHECK(!bf_is_explicit(want));
	CHECK(bf_equal(v, want));
	CHECK_EQ_U64(found(v, 0, 2 * half + 1), 2 * half + 1);
	free(want);
	free(u);
	free(v);

	/* different seeds do not combine */
	c->seed = 1;
	CHECK(!bf_setop_plan(a, c, false, &op, err));
	CHECK(strstr(err, "seed 1") != NULL);
	free(a);
	free(b);
	free(c);
}

static void
test_intersections(void)
{
	BloomFilter *a = list_of(0, 100);
	BloomFilter *b = list_of(50, 150);
	BloomFilter *bits = datasized(60, 20000, 4096);
	BloomFilter *r;
	char		err[BLOOM_ERRBUF_SIZE];
	BfSetop		op;

	/* two lists: exact */
	r = setop(a, b, true, &op, err);
	CHECK(op.kind == BF_SETOP_FILTER_LIST && bf_is_explicit(r));
	CHECK_EQ_U64(bf_explicit_count(r), 50);
	CHECK_EQ_U64(found(r, 50, 100), 50);
	CHECK_EQ_U64(r->inserted, 100);
	free(r);
	/* a list and a bit array: the listed values it may hold, as a list */
	r = setop(bits, a, true, &op, err);
	CHECK(bf_is_explicit(r));
	CHECK_EQ_U64(found(r, 60, 100), 40);
	CHECK(bf_explicit_count(r) >= 40 && bf_explicit_count(r) <= 45);
	CHECK_EQ_U64(r->inserted, 100);
	free(r);
	free(a);
	free(b);
	free(bits);
}

/* Bit arrays of different sizes still fold (unchanged), counts saturate. */
static void
test_bits_fold_and_counts(void)
{
	BloomFilter *a = datasized(0, 3000, 1024);
	BloomFilter *b = datasized(2000, 2500, 64);
	BloomFilter *l = list_of(7, 8);
	BloomFilter *u;
	char		err[BLOOM_ERRBUF_SIZE];
	BfSetop		op;

	u = setop(a, b, false, &op, err);
	CHECK(op.kind == BF_SETOP_BITS && op.base_is_b);
	CHECK_EQ_U64(u->nbits, 64 * 64);
	free(u);
	a->inserted = UINT64_MAX - 1;
	u = setop(a, l, false, &op, err);
	CHECK_EQ_U64(u->inserted, UINT64_MAX);
	free(u);
	free(a);
	free(b);
	free(l);
}

/* ---- multibloom: parts are bit arrays, and an empty part is the identity ---- */

static MultiBloom *
new_mb(uint64_t words0, uint64_t words1, uint64_t rows_from, uint64_t rows_to, uint64_t *bytes)
{
	char		err[BLOOM_ERRBUF_SIZE];
	const uint64_t nbits[] = {64 * words0, 64 * words1, 64 * words1};
	BloomShape	shapes[3];
	MultiBloom *mb;

	unit_classic_parts(2, nbits, shapes);
	for (int i = 0; i < 3; i++)
		shapes[i].nhashes = BLOOM_AUTO_NHASHES;
	if (!mbf_struct_bytes(2, shapes, bytes, err))
		exit(2);
	mb = calloc(1, *bytes);
	mbf_init(mb, 2, shapes);
	mb->flags = MULTIBLOOM_FLAG_AUTOSIZED;
	for (int i = 0; i <= 2; i++)
		mbf_part(mb, i)->flags = BLOOM_FLAG_AUTOSIZED;
	for (uint64_t r = rows_from; r < rows_to; r++)
	{
		const uint64_t h[2] = {hash_int_seeded(r, 1), hash_int_seeded(r, 2)};
		const bool	isnull[2] = {false, false};

		mbf_add_row(mb, h, isnull);
	}
	return mb;
}

static void
test_multibloom_empty_identity(void)
{
	uint64_t	eb,
				lb,
				ub;
	MultiBloom *empty = new_mb(1, 1, 0, 0, &eb);
	MultiBloom *large = new_mb(256, 512, 0, 2000, &lb);
	BloomShape	shapes[3];
	char		err[BLOOM_ERRBUF_SIZE];
	MultiBloom *u;
	bool		all = true;

	CHECK(mbf_compatible(empty, large, err));
	CHECK(mbf_compatible(large, empty, err));
	/* the state holding the large value takes the empty one in place */
	CHECK(mbf_union_fits(large, empty));
	CHECK(!mbf_union_fits(empty, large));
	mbf_union_shapes(empty, large, shapes);
	CHECK_EQ_U64(shapes[0].nbits, 256 * 64);
	CHECK_EQ_U64(shapes[2].nbits, 512 * 64);
	CHECK(mbf_struct_bytes(2, shapes, &ub, err));
	CHECK_EQ_U64(ub, lb);
	u = calloc(1, ub);
	mbf_init(u, 2, shapes);
	mbf_union_build(u, empty, large);
	CHECK(mbf_equal(u, large));
	for (uint64_t r = 0; r < 2000; r++)
	{
		const uint64_t h[2] = {hash_int_seeded(r, 1), hash_int_seeded(r, 2)};
		const bool	isnull[2] = {false, false};

		all &= mbf_query_row(u, h, isnull);
	}
	CHECK(all);
	mbf_union_into(large, empty);
	CHECK(mbf_equal(u, large));
	free(u);
	free(empty);
	free(large);
}

/* A multibloom never holds a list: its parts are changed in place. */
static void
test_multibloom_rejects_lists(void)
{
	uint64_t	bytes;
	MultiBloom *mb = new_mb(1, 1, 0, 3, &bytes);
	BloomShape	shapes[3];
	char		err[BLOOM_ERRBUF_SIZE];
	size_t		len = mbf_wire_bytes(mb);
	uint8_t    *w = malloc(len);
	uint8_t    *d = malloc(len);
	size_t		head = MULTIBLOOM_WIRE_FIXED_BYTES + 8 * 3;
	size_t		part0;
	BloomFilter *list = list_of(0, 0);

	/* constructing one */
	for (int i = 0; i < 3; i++)
		bf_get_shape(mbf_part_c(mb, i), &shapes[i]);
	bf_explicit_shape(0, shapes[1].seed, &shapes[1]);
	CHECK(!mbf_struct_bytes(2, shapes, &bytes, err));
	CHECK(strstr(err, "explicit") != NULL);

	/* reading one: attribute 1's part replaced by a valid empty list of its seed */
	mbf_serialize(mb, w);
	CHECK(mbf_wire_check(w, len, &bytes, err));
	part0 = bf_get_le64(w + MULTIBLOOM_WIRE_FIXED_BYTES);
	list->seed = mbf_part_seed(0, 2);
	memcpy(d, w, head);
	bf_put_le64(d + MULTIBLOOM_WIRE_FIXED_BYTES, bf_wire_bytes(list));
	bf_serialize(list, d + head);
	memcpy(d + head + bf_wire_bytes(list), w + head + part0, len - head - part0);
	len = len - part0 + bf_wire_bytes(list);
	CHECK(!mbf_wire_check(d, len, &bytes, err));
	CHECK(strstr(err, "attribute 1 is an explicit list") != NULL);
	free(list);
	free(d);
	free(w);
	free(mb);
}

int
main(void)
{
	RUN(test_list_basics);
	RUN(test_list_untouched_by_positions);
	RUN(test_shape_collected);
	RUN(test_merge);
	RUN(test_wire_roundtrip);
	RUN(test_wire_rejects);
	RUN(test_struct_check);
	RUN(test_empty_identity);
	RUN(test_list_into_bits);
	RUN(test_merge_lists);
	RUN(test_intersections);
	RUN(test_bits_fold_and_counts);
	RUN(test_multibloom_empty_identity);
	RUN(test_multibloom_rejects_lists);
	return unit_report("explicit");
}
