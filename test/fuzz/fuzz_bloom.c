/*
 * fuzz_bloom.c
 *	  libFuzzer target for the plain-C core of the bloom type: everything a
 *	  hostile client can reach before PostgreSQL sees a valid filter.
 *
 *	  The input modes (the first byte; see fuzz.h) reach:
 *	    0  text form: bf_base64_decode, then as mode 1
 *	    1  binary form (recv, bytea cast): bf_wire_check, bf_deserialize
 *	    2  two binary filters: bf_compatible, then the set operations
 *	       (bf_setop_plan, bf_setop_build) both ways and in place; for two
 *	       bit arrays also bf_union_into / bf_intersect_into into a copy of
 *	       the smaller (auto-sized filters of different sizes fold),
 *	       checked against bf_fold
 *	    3  an in-memory value (as a forged or damaged datum would arrive):
 *	       bf_struct_check, and if it passes, every reader
 *	  Every layout (classic, blocked, matrix) and the explicit list of a
 *	  small data-sized filter go through the same paths.
 *	  Every filter that parses is then exercised: insert, query, statistics,
 *	  equality, and serialization, which must give back the input bytes.
 *	  Invariants are checked with abort(), so a broken one is a crash.
 *
 *	  Build and run: make fuzz FUZZ_SECONDS=600 (see Makefile).
 */
#include "fuzz.h"

#include "core/filter.h"
#include "core/wire.h"

/* Parses a binary filter the way bloom_from_wire does; NULL if rejected. */
static BloomFilter *
parse_wire(const uint8_t *buf, size_t len)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64_t	bytes = 0;
	BloomFilter *f;

	errbuf[0] = '\0';
	if (!bf_wire_check(buf, len, &bytes, errbuf))
	{
		require_reason(errbuf);
		return NULL;
	}
	/* the size comes from a header that matched the payload length */
	REQUIRE(bytes <= MAX_STRUCT_BYTES);
	REQUIRE(bytes >= (uint64_t) len + 4);
	f = malloc(bytes);
	REQUIRE(f != NULL);
	memset(f, 0xa5, bytes);		/* garbage, as palloc would leave */
	f->vl_len_ = (int32_t) bytes;
	bf_deserialize(buf, f);
	REQUIRE(bf_filter_bytes(f) == bytes);
	REQUIRE(bf_wire_bytes(f) == len);
	/* what the reader accepted, the in-memory guard accepts */
	REQUIRE(bf_struct_check(f, bytes, errbuf));
	return f;
}

/* Value hashes drawn from the input, so the fuzzer steers insert positions too. */
static uint64_t
value_hash_from(const uint8_t *data, size_t len, unsigned i)
{
	uint64_t	v = UINT64_C(0x8000000000000000) ^ i;

	for (size_t j = 0; j < len && j < 8; j++)
		v ^= (uint64_t) data[(i * 7 + j) % len] << (8 * j);
	return v;
}

static BloomHash
hash_from(const uint8_t *data, size_t len, unsigned i)
{
	return bf_hash_derive(value_hash_from(data, len, i));
}

/* A list probes as a binary search: every listed hash is found. */
static void
exercise_list(const BloomFilter *f, const uint8_t *data, size_t len)
{
	REQUIRE(bf_bits_set(f) == 0);
	REQUIRE(bf_estimate_count(f) == (double) bf_explicit_count(f));
	for (uint64_t i = 0; i < bf_explicit_count(f); i++)
		REQUIRE(bf_contains_value(f, f->words[i]));
	for (unsigned i = 0; i < 4; i++)
	{
		uint64_t	h = value_hash_from(data, len, i);
		bool		listed = false;

		for (uint64_t j = 0; j < bf_explicit_count(f); j++)
			listed |= f->words[j] == h;
		REQUIRE(bf_contains_value(f, h) == listed);
	}
}

/* Everything a query may do with a valid filter; f must be writable. */
static void
exercise(BloomFilter *f, const uint8_t *data, size_t len)
{
	uint64_t	bytes = bf_filter_bytes(f);
	uint64_t	wire = bf_wire_bytes(f);
	uint8_t    *out = malloc(wire);
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *copy;
	uint64_t	before;

	REQUIRE(out != NULL);
	bf_serialize(f, out);
	/* a parsed filter serializes back to a filter the reader accepts */
	{
		uint64_t	sb;

		REQUIRE(bf_wire_check(out, wire, &sb, errbuf));
		REQUIRE(sb == bytes);
	}

	(void) bf_estimate_count(f);
	(void) bf_estimate_fpp(f);
	before = bf_bits_set(f);
	REQUIRE(before <= f->nbits);
	REQUIRE(bf_equal(f, f));

	if (bf_is_explicit(f))
	{
		exercise_list(f, data, len);
		free(out);
		return;
	}
	copy = malloc(bytes);
	REQUIRE(copy != NULL);
	memcpy(copy, f, bytes);
	for (unsigned i = 0; i < 4; i++)
	{
		BloomHash	h = hash_from(data, len, i);

		bf_insert(copy, h);
		/* no false negatives, whatever the filter held before */
		REQUIRE(bf_query(copy, h));
		(void) bf_query(f, h);
	}
	/* inserting only sets bits, and keeps the tail bits clear */
	REQUIRE(bf_bits_set(copy) >= before);
	REQUIRE(bf_struct_check(copy, bytes, errbuf));
	bf_serialize(copy, out);
	{
		uint64_t	sb;

		REQUIRE(bf_wire_check(out, wire, &sb, errbuf));
	}
	free(copy);
	free(out);
}

/* Mode 1: binary form; an accepted input must serialize to itself. */
static void
fuzz_binary(const uint8_t *data, size_t len)
{
	BloomFilter *f = parse_wire(data, len);

	if (f)
	{
		uint8_t    *out = malloc(bf_wire_bytes(f));

		REQUIRE(out != NULL);
		REQUIRE(bf_wire_bytes(f) == len);
		bf_serialize(f, out);
		REQUIRE(memcmp(out, data, len) == 0);
		free(out);
		exercise(f, data, len);
		free(f);
	}
}

/* A zero-bit copy of f's header, of f's size: bf_fold's destination. */
static BloomFilter *
empty_like(const BloomFilter *f)
{
	uint64_t	bytes = bf_filter_bytes(f);
	BloomFilter *e = calloc(1, bytes);

	REQUIRE(e != NULL);
	memcpy(e, f, offsetof(BloomFilter, words));
	return e;
}

/*
 * a | b or a & b by plan and build: a valid filter, the same both ways,
 * the same in place; nothing either held is lost by a union, and a list
 * that results holds only what both may hold.
 */
static void
check_setop(const BloomFilter *a, const BloomFilter *b, bool intersect,
			const uint8_t *data, size_t len)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BfSetop		op,
				op2;
	BloomFilter *r,
			   *r2;

	REQUIRE(bf_setop_plan(a, b, intersect, &op, errbuf));
	REQUIRE(bf_setop_plan(b, a, intersect, &op2, errbuf));
	REQUIRE(op.bytes == op2.bytes && op.bytes <= MAX_STRUCT_BYTES);
	r = calloc(1, op.bytes);
	r2 = calloc(1, op.bytes);
	REQUIRE(r && r2);
	r->vl_len_ = r2->vl_len_ = (int32_t) op.bytes;
	bf_setop_build(r, a, b, &op);
	bf_setop_build(r2, b, a, &op2);
	REQUIRE(bf_filter_bytes(r) == op.bytes);
	REQUIRE(bf_struct_check(r, op.bytes, errbuf));
	REQUIRE(bf_equal(r, r2) && r->inserted == r2->inserted);
	if (bf_setop_in_place(&op))
	{
		uint64_t	abytes = bf_filter_bytes(a);
		BloomFilter *w = malloc(abytes);

		REQUIRE(w != NULL && abytes == op.bytes);
		memcpy(w, a, abytes);
		bf_setop_build(w, w, b, &op);
		REQUIRE(bf_equal(w, r) && w->inserted == r->inserted);
		free(w);
	}
	for (int side = 0; side < 2; side++)
	{
		const BloomFilter *in = side ? b : a;
		const BloomFilter *out = side ? a : b;

		if (!bf_is_explicit(in))
			continue;
		for (uint64_t i = 0; i < bf_explicit_count(in); i++)
		{
			uint64_t	h = in->words[i];

			if (!intersect)
				REQUIRE(bf_contains_value(r, h));
			else if (bf_contains_value(out, h))
				REQUIRE(!bf_is_explicit(r) || bf_contains_value(r, h));
		}
	}
	if (intersect && bf_is_explicit(r))
		for (uint64_t i = 0; i < bf_explicit_count(r); i++)
			REQUIRE(bf_contains_value(a, r->words[i]) && bf_contains_value(b, r->words[i]));
	exercise(r, data, len);
	free(r);
	free(r2);
}

/* Two bit arrays that OR and AND directly: the same shape, or foldable. */
static bool
bits_fold(const BloomFilter *a, const BloomFilter *b)
{
	BloomShape	sa,
				sb;

	if (bf_is_explicit(a) || bf_is_explicit(b))
		return false;
	bf_get_shape(a, &sa);
	bf_get_shape(b, &sb);
	return bf_foldable(a, b) ||
		(memcmp(&sa, &sb, sizeof(sa)) == 0 && a->hash_scheme == b->hash_scheme);
}

/* Mode 2: union and intersection of two parsed filters. */
static void
fuzz_setops(const uint8_t *data, size_t len)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	FuzzPair	pair;
	BloomFilter *a,
			   *b;

	if (!fuzz_pair_split(data, len, &pair))
		return;
	a = parse_wire(pair.a, pair.alen);
	b = parse_wire(pair.b, pair.blen);
	data = pair.a;
	len = pair.alen + pair.blen;
	if (a && b)
	{
		REQUIRE(bf_compatible(a, b, errbuf) == bf_compatible(b, a, errbuf));
		if (bf_compatible(a, b, errbuf))
		{
			check_setop(a, b, false, data, len);
			check_setop(a, b, true, data, len);
		}
		if (bits_fold(a, b))
		{
			/* as bloom_union does: a copy of the smaller, the larger folded in */
			const BloomFilter *small = a->nbits <= b->nbits ? a : b;
			const BloomFilter *large = small == a ? b : a;
			uint64_t	bytes = bf_filter_bytes(small);
			BloomFilter *u = malloc(bytes),
					   *n = malloc(bytes),
					   *folded = empty_like(small);
			uint64_t	n_s = bf_bits_set(small),
						n_l;

			REQUIRE(u && n);
			if (large->nbits == small->nbits)
				memcpy(folded, large, bytes);
			else
			{
				REQUIRE(bf_foldable(small, large));
				REQUIRE(large->nbits % small->nbits == 0);
				bf_fold(large, folded);
				REQUIRE(bf_struct_check(folded, bytes, errbuf));
			}
			n_l = bf_bits_set(folded);
			memcpy(u, small, bytes);
			memcpy(n, small, bytes);
			bf_union_into(u, large);
			bf_intersect_into(n, large);
			REQUIRE(bf_struct_check(u, bytes, errbuf));
			REQUIRE(bf_struct_check(n, bytes, errbuf));
			/* |s|l| >= max, |s&l| <= min, |s|l| + |s&l| = |s| + |l| */
			REQUIRE(bf_bits_set(u) >= (n_s > n_l ? n_s : n_l));
			REQUIRE(bf_bits_set(n) <= (n_s < n_l ? n_s : n_l));
			REQUIRE(bf_bits_set(u) + bf_bits_set(n) == n_s + n_l);
			/* no false negatives: every value either held is in the union */
			for (uint64_t w = 0; w < bf_nwords(small); w++)
			{
				REQUIRE((u->words[w] & small->words[w]) == small->words[w]);
				REQUIRE((u->words[w] & folded->words[w]) == folded->words[w]);
				REQUIRE((n->words[w] & ~(small->words[w] & folded->words[w])) == 0);
			}
			exercise(u, data, len);
			exercise(n, data, len);
			free(u);
			free(n);
			free(folded);
		}
		if (!bf_compatible(a, b, errbuf))
			REQUIRE(!bf_equal(a, b));
	}
	free(a);
	free(b);
}

/* Mode 3: an in-memory value of len bytes that no reader has checked. */
static void
fuzz_struct(const uint8_t *data, size_t len)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	size_t		size = len + 4;
	BloomFilter *f;

	if (size > MAX_STRUCT_BYTES)
		return;
	/* at least the header, so the guard can read the fields it checks */
	f = calloc(1, size < sizeof(BloomFilter) ? sizeof(BloomFilter) : size);
	REQUIRE(f != NULL);
	memcpy((uint8_t *) f + 4, data, len);
	f->vl_len_ = (int32_t) size;
	if (bf_struct_check(f, size, errbuf))
	{
		/* the guard skips the tail-bit check; readers must still be safe */
		REQUIRE(size == bf_filter_bytes(f));
		(void) bf_bits_set(f);
		(void) bf_estimate_count(f);
		(void) bf_estimate_fpp(f);
		if (bf_is_explicit(f))
			exercise_list(f, data, len);
		for (unsigned i = 0; i < 4; i++)
		{
			BloomHash	h = hash_from(data, len, i);

			bf_insert(f, h);
			REQUIRE(bf_query(f, h));
		}
	}
	free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_dispatch(fuzz_binary, fuzz_setops, fuzz_struct, data, size);
}
