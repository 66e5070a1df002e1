/*
 * fuzz_multibloom.c
 *	  libFuzzer target for the plain-C core of the multibloom type: its text
 *	  and binary readers, the in-memory guard, and union of two parsed
 *	  filters, as a hostile client or a damaged datum reaches them.
 *
 *	  The input modes (the first byte; see fuzz.h) reach:
 *	    0  text form: bf_base64_decode, then as mode 1
 *	    1  binary form (recv, bytea cast): mbf_wire_check, deserialize
 *	    2  two binary filters: mbf_compatible, then union in place when it fits
 *	       and into a new value of the smaller parts always, as the SQL
 *	       functions and the union aggregate do
 *	    3  an in-memory value: mbf_struct_check, and if it passes,
 *	       add and probe rows
 *	  Every value that parses is exercised: rows added are found, the
 *	  in-memory guard accepts it, and serialization gives back the input.
 *	  Invariants are checked with abort(), so a broken one is a crash.
 *
 *	  Build and run: make fuzz FUZZ_SECONDS=600 (see Makefile).
 */
#include "fuzz.h"

#include "core/multibloom.h"

/* The SQL glue's set_part_lengths: the host owns the parts' length words. */
static void
set_part_lengths(MultiBloom *mb, uint64_t total)
{
	for (int i = 0; i <= mb->nattrs; i++)
		mbf_part(mb, i)->vl_len_ = (int32_t) mbf_part_bytes(mb, total, i);
}

/* Parses a binary multibloom the way multibloom_from_wire does; NULL if rejected. */
static MultiBloom *
parse_wire(const uint8_t *buf, size_t len, uint64_t *total)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64_t	bytes = 0;
	MultiBloom *mb;

	errbuf[0] = '\0';
	if (!mbf_wire_check(buf, len, &bytes, errbuf))
	{
		require_reason(errbuf);
		return NULL;
	}
	REQUIRE(bytes <= MAX_STRUCT_BYTES);
	mb = malloc(bytes);
	REQUIRE(mb != NULL);
	memset(mb, 0xa5, bytes);	/* garbage, as palloc would leave */
	mb->vl_len_ = (int32_t) bytes;
	mbf_deserialize(buf, mb);
	set_part_lengths(mb, bytes);
	/* what the reader accepted, the guard run on every argument accepts */
	if (!mbf_struct_check(mb, bytes, errbuf))
	{
		fprintf(stderr, "accepted on input, rejected in memory: %s\n", errbuf);
		abort();
	}
	REQUIRE(mbf_wire_bytes(mb) == len);
	*total = bytes;
	return mb;
}

/* Attribute hashes drawn from the input, so the fuzzer steers them too. */
static void
row_from(const uint8_t *data, size_t len, unsigned r, int nattrs,
		 uint64_t *hashes, bool *isnull)
{
	for (int i = 0; i < nattrs; i++)
	{
		uint64_t	v = UINT64_C(0x9e3779b97f4a7c15) * (r * 33 + i + 1);

		for (size_t j = 0; j < len && j < 8; j++)
			v ^= (uint64_t) data[(r * 5 + i * 3 + j) % len] << (8 * j);
		hashes[i] = v;
		isnull[i] = len > 0 && (data[(r + i) % len] & 0x81) == 0x81;
	}
}

/* Everything a query may do with a valid value; mb must be writable. */
static void
exercise(MultiBloom *mb, uint64_t total, const uint8_t *data, size_t len)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	char		desc[1024];
	uint64_t	hashes[MULTIBLOOM_MAX_ATTRS];
	bool		isnull[MULTIBLOOM_MAX_ATTRS];
	uint64_t	wire = mbf_wire_bytes(mb);
	uint8_t    *out = malloc(wire);
	uint64_t	sb;

	REQUIRE(out != NULL);
	mbf_describe(mb, desc, sizeof(desc));
	REQUIRE(mbf_equal(mb, mb));
	for (unsigned r = 0; r < 4; r++)
	{
		row_from(data, len, r, mb->nattrs, hashes, isnull);
		(void) mbf_query_row(mb, hashes, isnull);
		mbf_add_row(mb, hashes, isnull);
		/* no false negatives, whatever the value held before */
		REQUIRE(mbf_query_row(mb, hashes, isnull));
	}
	REQUIRE(mbf_struct_check(mb, total, errbuf));
	mbf_serialize(mb, out);
	REQUIRE(mbf_wire_check(out, wire, &sb, errbuf));
	REQUIRE(sb == total);
	free(out);
}

/* Mode 1: binary form; an accepted input must serialize to itself. */
static void
fuzz_binary(const uint8_t *data, size_t len)
{
	uint64_t	total;
	MultiBloom *mb = parse_wire(data, len, &total);

	if (mb)
	{
		uint8_t    *out = malloc(len ? len : 1);

		REQUIRE(out != NULL);
		mbf_serialize(mb, out);
		REQUIRE(memcmp(out, data, len) == 0);
		free(out);
		exercise(mb, total, data, len);
		free(mb);
	}
}

/*
 * Checks r = a | b part by part: each part has the smaller input part's
 * size, or the other's when the smaller is an empty data-sized part (the
 * identity); every bit of an input part of r's size is in r.
 */
static void
check_union(const MultiBloom *r, const MultiBloom *a, const MultiBloom *b)
{
	for (int i = 0; i <= r->nattrs; i++)
	{
		const BloomFilter *pr = mbf_part_c(r, i);
		const BloomFilter *pa = mbf_part_c(a, i);
		const BloomFilter *pb = mbf_part_c(b, i);
		const BloomFilter *smaller = pa->nbits < pb->nbits ? pa : pb;
		uint64_t	nb = bf_bits_set(pr);

		REQUIRE(pr->nbits == pa->nbits || pr->nbits == pb->nbits);
		REQUIRE(pr->nbits == smaller->nbits ||
				(bf_is_empty(smaller) && (smaller->flags & BLOOM_FLAG_AUTOSIZED)));
		if (pa->nbits == pr->nbits)
			for (uint64_t w = 0; w < bf_nwords(pr); w++)
				REQUIRE((pr->words[w] & pa->words[w]) == pa->words[w]);
		if (pb->nbits == pr->nbits)
			for (uint64_t w = 0; w < bf_nwords(pr); w++)
				REQUIRE((pr->words[w] & pb->words[w]) == pb->words[w]);
		REQUIRE(nb <= pr->nbits);
	}
}

/* Mode 2: union of two parsed values. */
static void
fuzz_union(const uint8_t *data, size_t len)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	FuzzPair	pair;
	uint64_t	ta = 0,
				tb = 0;
	MultiBloom *a,
			   *b;

	if (!fuzz_pair_split(data, len, &pair))
		return;
	a = parse_wire(pair.a, pair.alen, &ta);
	b = parse_wire(pair.b, pair.blen, &tb);
	data = pair.a;
	len = pair.alen + pair.blen;
	if (a && b)
	{
		REQUIRE(mbf_compatible(a, b, errbuf) == mbf_compatible(b, a, errbuf));
		if (mbf_compatible(a, b, errbuf))
		{
			BloomShape	shapes[MULTIBLOOM_MAX_ATTRS + 1];
			uint64_t	bytes;
			MultiBloom *u,
					   *v;

			/* into a new value: the SQL function */
			mbf_union_shapes(a, b, shapes);
			REQUIRE(mbf_struct_bytes(a->nattrs, shapes, &bytes, errbuf));
			REQUIRE(bytes <= ta + tb);
			u = calloc(1, bytes);
			v = calloc(1, bytes);
			REQUIRE(u && v);
			mbf_init(u, a->nattrs, shapes);
			mbf_init(v, a->nattrs, shapes);
			mbf_union_build(u, a, b);
			mbf_union_build(v, b, a);
			set_part_lengths(u, bytes);
			set_part_lengths(v, bytes);
			REQUIRE(mbf_struct_check(u, bytes, errbuf));
			REQUIRE(mbf_equal(u, v));
			check_union(u, a, b);

			/* in place, when it fits: the union aggregate's state */
			if (mbf_union_fits(a, b))
			{
				MultiBloom *w = malloc(ta);

				REQUIRE(w != NULL);
				memcpy(w, a, ta);
				mbf_union_into(w, b);
				REQUIRE(mbf_struct_check(w, ta, errbuf));
				REQUIRE(ta == bytes && mbf_equal(w, u));
				free(w);
			}
			exercise(u, bytes, data, len);
			free(u);
			free(v);
		}
		else
			REQUIRE(!mbf_equal(a, b));
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
	size_t		alloc = size < sizeof(MultiBloom) ? sizeof(MultiBloom) : size;
	MultiBloom *mb;

	if (size > MAX_STRUCT_BYTES)
		return;
	/* 8-byte aligned, as the SQL glue guarantees before reading in place */
	mb = calloc(1, alloc);
	REQUIRE(mb != NULL);
	memcpy((uint8_t *) mb + 4, data, len);
	mb->vl_len_ = (int32_t) size;
	if (mbf_struct_check(mb, size, errbuf))
	{
		uint64_t	hashes[MULTIBLOOM_MAX_ATTRS];
		bool		isnull[MULTIBLOOM_MAX_ATTRS];
		char		desc[1024];

		mbf_describe(mb, desc, sizeof(desc));
		(void) mbf_wire_bytes(mb);
		for (unsigned r = 0; r < 4; r++)
		{
			row_from(data, len, r, mb->nattrs, hashes, isnull);
			mbf_add_row(mb, hashes, isnull);
			REQUIRE(mbf_query_row(mb, hashes, isnull));
		}
	}
	free(mb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_dispatch(fuzz_binary, fuzz_union, fuzz_struct, data, size);
}
