/*
 * fuzz_bloom.c
 *	  libFuzzer target for the plain-C core of the bloom type: everything a
 *	  hostile client can reach before PostgreSQL sees a valid filter.
 *
 *	  The input modes (the first byte; see fuzz.h) reach:
 *	    0  text form: bf_base64_decode, then as mode 1
 *	    1  binary form (recv, bytea cast): bf_wire_check, bf_deserialize
 *	    2  two binary filters: bf_compatible, then bf_union_into /
 *	       bf_intersect_into into a copy of the smaller (auto-sized filters
 *	       of different sizes fold), checked against bf_fold
 *	    3  an in-memory value (as a forged or damaged datum would arrive):
 *	       bf_struct_check, and if it passes, every reader
 *	  Every layout (classic, blocked, matrix) goes through the same paths.
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

/* Hashes drawn from the input, so the fuzzer steers insert positions too. */
static BloomHash
hash_from(const uint8_t *data, size_t len, unsigned i)
{
	uint64_t	v = UINT64_C(0x8000000000000000) ^ i;

	for (size_t j = 0; j < len && j < 8; j++)
		v ^= (uint64_t) data[(i * 7 + j) % len] << (8 * j);
	return bf_hash_derive(v);
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
		else
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
