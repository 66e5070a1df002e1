/*
 * make_seeds.c
 *	  Writes the seed corpora of the fuzz harnesses into DIR/fuzz_bloom and
 *	  DIR/fuzz_multibloom: small valid filters of every layout, in each of
 *	  the harness's input modes, pairs that unite (equal shapes, auto-sized
 *	  filters of different sizes that fold, explicit lists with lists and
 *	  bit arrays, empty data-sized filters) and that do not (hash scheme 3
 *	  against schemes 1 and 2, lists included), and hand-made
 *	  edge cases (every header field just out of range, truncated and padded
 *	  payloads, tail bits, bad base64, multibloom part lengths and seeds).
 *
 *	  DIR/fuzz_interop gets filters of each interop layout exported in its
 *	  formats (the first byte names the format), and damaged copies.
 *
 *	  Usage: make_seeds DIR    (run by `make fuzz-seeds`)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "unit.h"				/* the tests' multibloom part shapes */

#include "core/base64.h"
#include "core/interop_format.h"
#include "core/multibloom.h"

static const char *outdir;
static int	nseeds;

static void
write_seed(const char *name, uint8_t mode, const void *data, size_t len)
{
	char		path[1024];
	FILE	   *fp;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(&mode, 1, 1, fp) != 1 ||
		(len > 0 && fwrite(data, 1, len, fp) != len) || fclose(fp) != 0)
	{
		perror(path);
		exit(1);
	}
	nseeds++;
}

/*
 * A filter of this shape, hash scheme and flags with n values in it, or NULL
 * if the shape is invalid.  Schemes 1 and 2 are what stored filters of
 * earlier versions hold, so the corpus keeps every scheme.
 */
static BloomFilter *
build_as(const BloomShape *s, uint8_t scheme, uint8_t flags, unsigned n)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;

	if (!bf_shape_check(s, errbuf))
		return NULL;
	f = calloc(1, bf_shape_bytes(s));
	f->vl_len_ = (int32_t) bf_shape_bytes(s);
	bf_init(f, s);
	f->hash_scheme = scheme;
	f->flags |= flags;
	for (unsigned i = 0; i < n; i++)
		bf_insert(f, bf_hash_derive(UINT64_C(0x1234567) * (i + 1)));
	return f;
}

/* The same with the newest hash scheme and no flag. */
static BloomFilter *
build(const BloomShape *s, unsigned n)
{
	return build_as(s, BLOOM_HASH_SCHEME_NEWEST, 0, n);
}

/* Writes f in every mode: text, binary, in-memory, and paired with other. */
static void
write_filter(const char *tag, const BloomFilter *f, const BloomFilter *other)
{
	char		name[256];
	size_t		len,
				olen;
	uint8_t    *w = unit_wire_of(f, &len);
	char	   *text = malloc(bf_base64_encoded_len(len) + 1);
	uint8_t    *pair;

	bf_base64_encode(w, len, text);
	snprintf(name, sizeof(name), "text-%s", tag);
	write_seed(name, 0, text, bf_base64_encoded_len(len));
	snprintf(name, sizeof(name), "binary-%s", tag);
	write_seed(name, 1, w, len);
	snprintf(name, sizeof(name), "struct-%s", tag);
	write_seed(name, 3, (const uint8_t *) f + 4, (size_t) f->vl_len_ - 4);

	if (other)
	{
		uint8_t    *ow = unit_wire_of(other, &olen);

		pair = malloc(2 + len + olen);
		pair[0] = (uint8_t) len;
		pair[1] = (uint8_t) (len >> 8);
		memcpy(pair + 2, w, len);
		memcpy(pair + 2 + len, ow, olen);
		snprintf(name, sizeof(name), "pair-%s", tag);
		write_seed(name, 2, pair, 2 + len + olen);
		free(pair);
		free(ow);
	}
	free(text);
	free(w);
}

/* One header field of a serialized value set to a value: a damaged seed. */
typedef struct HeaderEdit
{
	const char *name;
	size_t		off;
	int			width;			/* bytes: 1, 4 or 8, little-endian */
	uint64_t	value;
} HeaderEdit;

/*
 * Writes the wire form w, damaged by each edit in turn, in the binary mode
 * and as an in-memory value (the fields sit at the same offsets there).  d
 * is scratch space of at least len bytes.
 */
static void
write_edits(const uint8_t *w, size_t len, const HeaderEdit *edits, size_t n,
			uint8_t *d)
{
	for (size_t i = 0; i < n; i++)
	{
		char		name[128];

		memcpy(d, w, len);
		if (edits[i].width == 1)
			d[edits[i].off] = (uint8_t) edits[i].value;
		else if (edits[i].width == 4)
			bf_put_le32(d + edits[i].off, (uint32_t) edits[i].value);
		else
			bf_put_le64(d + edits[i].off, edits[i].value);
		snprintf(name, sizeof(name), "binary-bad-%s", edits[i].name);
		write_seed(name, 1, d, len);
		snprintf(name, sizeof(name), "struct-bad-%s", edits[i].name);
		write_seed(name, 3, d, len);
	}
}

/*
 * The wire form w cut and padded: empty, only its first `header` bytes
 * (named header_name), one byte short, and one zero word too many (named
 * extra_name).  d is scratch space of len + 8 bytes.
 */
static void
write_lengths(const uint8_t *w, size_t len, size_t header, const char *header_name,
			  const char *extra_name, uint8_t *d)
{
	write_seed("binary-empty", 1, d, 0);
	write_seed(header_name, 1, w, header);
	write_seed("binary-short-by-1", 1, w, len - 1);
	memcpy(d, w, len);
	memset(d + len, 0, 8);
	write_seed(extra_name, 1, d, len + 8);
}

/* A copy of a valid classic filter's binary form, damaged by one edit. */
static void
write_damaged(const BloomFilter *base)
{
	size_t		len;
	uint8_t    *w = unit_wire_of(base, &len);
	uint8_t    *d = malloc(len + 16);
	const HeaderEdit edits[] = {
		{"version0", 0, 1, 0},
		{"version2", 0, 1, 2},
		{"layout-unknown", 1, 1, 200},
		{"layout-blocked", 1, 1, BLOOM_LAYOUT_BLOCKED},
		{"layout-matrix", 1, 1, BLOOM_LAYOUT_MATRIX},
		{"scheme0", 2, 1, 0},
		{"scheme4", 2, 1, BLOOM_HASH_SCHEME_NEWEST + 1},
		{"flags-ties-classic", 3, 1, BLOOM_FLAG_MATRIX_TIES_FIRST},
		{"flags-autosized", 3, 1, BLOOM_FLAG_AUTOSIZED},
		{"flags-unknown", 3, 1, 0x80},
		{"nbits0", 4, 8, 0},
		{"nbits-2p31", 4, 8, UINT64_C(1) << 31},
		{"nbits-2p32", 4, 8, UINT64_C(1) << 32},
		{"nbits-max", 4, 8, BLOOM_MAX_NBITS},
		{"nbits-max-plus1", 4, 8, BLOOM_MAX_NBITS + 1},
		{"nbits-2p63", 4, 8, UINT64_C(1) << 63},
		{"nbits-all-ones", 4, 8, UINT64_MAX},
		{"nbits-wraps-words", 4, 8, UINT64_MAX - 62},
		{"inserted-max", 20, 8, UINT64_MAX},
		{"nhashes0", 28, 4, 0},
		{"nhashes65", 28, 4, 65},
		{"nhashes-max", 28, 4, UINT32_MAX},
		{"rows1", 32, 4, 1},
		{"locators1", 36, 4, 1},
		{"reserved1", 40, 4, 1},
		{"full-at0", 44, 8, 0},
		{"full-at-min", 44, 8, UINT64_C(1) << 63},
		{"reserved2", 52, 8, 1},
	};

	write_edits(w, len, edits, sizeof(edits) / sizeof(edits[0]), d);

	write_lengths(w, len, BLOOM_WIRE_HEADER_BYTES, "binary-header-only",
				  "binary-extra-word", d);

	/* bits beyond nbits in the last word */
	if (base->nbits % 64)
	{
		memcpy(d, w, len);
		d[len - 1] |= 0x80;
		write_seed("binary-bad-tail-bits", 1, d, len);
		write_seed("struct-tail-bits", 3, d, len);	/* the guard allows it */
	}
	free(d);
	free(w);
}

/* A pair of binary forms, as mode 2 of both harnesses reads it. */
static void
write_pair(const char *name, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	uint8_t    *pair = malloc(2 + alen + blen);

	pair[0] = (uint8_t) alen;
	pair[1] = (uint8_t) (alen >> 8);
	memcpy(pair + 2, a, alen);
	memcpy(pair + 2 + alen, b, blen);
	write_seed(name, 2, pair, 2 + alen + blen);
	free(pair);
}

/* Auto-sized classic filters of different power-of-two sizes: they fold. */
static void
write_bloom_fold_pairs(void)
{
	static const uint64_t sizes[] = {64, 128, 512, 4096};
	BloomFilter *f[4];
	uint8_t    *w[4];
	size_t		len[4];

	for (int i = 0; i < 4; i++)
	{
		BloomShape	s = {BLOOM_LAYOUT_CLASSIC, sizes[i], 7, 0, 0, 0};

		f[i] = build(&s, (unsigned) (3 << i));
		f[i]->flags |= BLOOM_FLAG_AUTOSIZED;
		w[i] = unit_wire_of(f[i], &len[i]);
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
		{
			char		name[64];

			if (i == j)
				continue;
			snprintf(name, sizeof(name), "pair-autosized-%llu-%llu",
					 (unsigned long long) sizes[i], (unsigned long long) sizes[j]);
			write_pair(name, w[i], len[i], w[j], len[j]);
		}
	for (int i = 0; i < 4; i++)
	{
		free(f[i]);
		free(w[i]);
	}
}

/* A copy of f under another hash scheme, as a stored filter has it. */
static BloomFilter *
with_scheme(const BloomFilter *f, uint8_t scheme)
{
	BloomFilter *g = malloc((size_t) f->vl_len_);

	memcpy(g, f, (size_t) f->vl_len_);
	g->hash_scheme = scheme;
	return g;
}

/*
 * Explicit lists in every mode, paired with lists (merged, and promoted
 * past the maximum), with data-sized bit arrays, with fixed shapes (they do
 * not combine), and empty data-sized filters with larger ones (the
 * identity); lists of scheme 2 with lists of scheme 3 (they do not
 * combine) and with bit arrays of scheme 1 (they do); then a list damaged
 * field by field.
 */
static void
write_bloom_list_seeds(void)
{
	BloomFilter *empty = unit_datasized(0, 0, 0, 0);
	BloomFilter *three = unit_datasized(0, 3, 0, 0);
	BloomFilter *three_more = unit_datasized(2, 5, 0, 0);
	BloomFilter *full = unit_datasized(100, 100 + BLOOM_EXPLICIT_MAX, 0, 0);
	BloomFilter *bits = unit_datasized(1000, 1300, 64, 0);
	BloomFilter *odd_bits = unit_datasized(1000, 1030, 5, 0);
	BloomFilter *empty_bits = unit_datasized(0, 0, 1, 0);
	BloomFilter *seeded = unit_datasized(0, 3, 0, 9);
	BloomShape	fixed_shape = {BLOOM_LAYOUT_CLASSIC, 4096, 7, 0, 0, 0};
	BloomFilter *fixed = build(&fixed_shape, 20);
	BloomFilter *three_s2 = with_scheme(three, BLOOM_HASH_SCHEME_INDEPENDENT_WORDS);
	BloomFilter *empty_s2 = with_scheme(empty, BLOOM_HASH_SCHEME_INDEPENDENT_WORDS);
	BloomFilter *bits_s1 = with_scheme(bits, BLOOM_HASH_SCHEME_DOUBLE_HASHING);
	const struct
	{
		const char *tag;
		const BloomFilter *a;
		const BloomFilter *b;
	}			pairs[] = {
		{"list-empty", empty, three},
		{"list-3", three, three_more},
		{"list-full", full, three},
		{"list-3-bits", three, bits},
		{"list-bits-3", bits, three},
		{"list-3-fixed", three, fixed},
		{"list-3-seed9", three, seeded},
		{"list-empty-empty-bits", empty, empty_bits},
		{"list-empty-bits-large", empty_bits, bits},
		{"list-empty-bits-odd", empty_bits, odd_bits},
		{"list-odd-3", odd_bits, three},
		{"list-3-s2-list-3", three_s2, three},
		{"list-empty-s2-list-3", empty_s2, three},
		{"list-3-s2-bits-s1", three_s2, bits_s1},
		{"list-bits-s1-3", bits_s1, three},
	};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		write_filter(pairs[i].tag, pairs[i].a, pairs[i].b);
	{
		size_t		len;
		uint8_t    *w = unit_wire_of(three, &len);
		uint8_t    *d = malloc(len + 16);
		const HeaderEdit edits[] = {
			{"list-flags0", BF_WIRE_FLAGS, 1, 0},
			{"list-nhashes7", BF_WIRE_NHASHES, 4, 7},
			{"list-rows1", BF_WIRE_ROWS, 4, 1},
			{"list-full-at0", BF_WIRE_FULL_AT, 8, 0},
			{"list-nbits-short", BF_WIRE_NBITS, 8, 128},
			{"list-nbits-odd", BF_WIRE_NBITS, 8, 191},
			{"list-nbits-max-plus1", BF_WIRE_NBITS, 8, 64 * (BLOOM_EXPLICIT_MAX + 1)},
			{"list-repeat", BF_WIRE_WORDS + 8, 8, three->words[0]},
			{"list-unsorted", BF_WIRE_WORDS, 8, UINT64_MAX},
		};

		write_edits(w, len, edits, sizeof(edits) / sizeof(edits[0]), d);
		free(d);
		free(w);
	}
	free(empty);
	free(three);
	free(three_more);
	free(full);
	free(bits);
	free(odd_bits);
	free(empty_bits);
	free(seeded);
	free(fixed);
	free(three_s2);
	free(empty_s2);
	free(bits_s1);
}

/* ---- multibloom ---- */

/* A multibloom of these part shapes with nrows rows, or NULL if invalid. */
static MultiBloom *
build_mb(int nattrs, const BloomShape *shapes, unsigned nrows, bool autosized,
		 uint64_t *total)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	MultiBloom *mb;

	if (!mbf_struct_bytes(nattrs, shapes, total, errbuf))
	{
		fprintf(stderr, "multibloom seed skipped: %s\n", errbuf);
		return NULL;
	}
	mb = calloc(1, *total);
	mb->vl_len_ = (int32_t) *total;
	mbf_init(mb, nattrs, shapes);
	for (int i = 0; i <= nattrs; i++)
		mbf_part(mb, i)->vl_len_ = (int32_t) mbf_part_bytes(mb, *total, i);
	if (autosized)
	{
		mb->flags |= MULTIBLOOM_FLAG_AUTOSIZED;
		for (int i = 0; i <= nattrs; i++)
			mbf_part(mb, i)->flags |= BLOOM_FLAG_AUTOSIZED;
	}
	for (unsigned r = 0; r < nrows; r++)
	{
		uint64_t	h[MULTIBLOOM_MAX_ATTRS];
		bool		isnull[MULTIBLOOM_MAX_ATTRS];

		for (int i = 0; i < nattrs; i++)
		{
			h[i] = UINT64_C(0x2545F4914F6CDD1D) * (r * 31 + i + 1);
			isnull[i] = (r % 7 == 3 && i == 0);
		}
		mbf_add_row(mb, h, isnull);
	}
	return mb;
}

static uint8_t *
mb_wire_of(const MultiBloom *mb, size_t *len)
{
	uint8_t    *w;

	*len = (size_t) mbf_wire_bytes(mb);
	w = malloc(*len);
	mbf_serialize(mb, w);
	return w;
}

/* Writes a multibloom in modes 0, 1 and 3. */
static void
write_mb(const char *tag, const MultiBloom *mb, uint64_t total)
{
	char		name[256];
	size_t		len;
	uint8_t    *w = mb_wire_of(mb, &len);
	char	   *text = malloc(bf_base64_encoded_len(len) + 1);

	bf_base64_encode(w, len, text);
	snprintf(name, sizeof(name), "text-%s", tag);
	write_seed(name, 0, text, bf_base64_encoded_len(len));
	snprintf(name, sizeof(name), "binary-%s", tag);
	write_seed(name, 1, w, len);
	snprintf(name, sizeof(name), "struct-%s", tag);
	write_seed(name, 3, (const uint8_t *) mb + 4, (size_t) total - 4);
	free(text);
	free(w);
}

/* Binary forms damaged in one header field or length. */
static void
write_mb_damaged(const MultiBloom *mb)
{
	size_t		len;
	uint8_t    *w = mb_wire_of(mb, &len);
	uint8_t    *d = malloc(len + 16);
	const HeaderEdit edits[] = {
		{"version0", 0, 1, 0},
		{"version2", 0, 1, 2},
		{"nattrs0", 1, 1, 0},
		{"nattrs1", 1, 1, 1},
		{"nattrs33", 1, 1, 33},
		{"nattrs255", 1, 1, 255},
		{"flags-unknown", 2, 1, 0x80},
		{"reserved0", 3, 1, 1},
		{"rows-max", 4, 8, UINT64_MAX},
		{"reserved1", 12, 8, 1},
		{"length0-zero", 20, 8, 0},
		{"length0-huge", 20, 8, UINT64_MAX},
		{"length0-2p63", 20, 8, UINT64_C(1) << 63},
		{"length0-short", 20, 8, 60},
		{"length1-plus8", 28, 8, (uint64_t) (w[28] | (w[29] << 8)) + 8},
	};

	/* in memory the lengths' places hold the offsets */
	write_edits(w, len, edits, sizeof(edits) / sizeof(edits[0]), d);
	/* the first part's seed swapped with the second's */
	memcpy(d, w, len);
	{
		size_t		part0 = MULTIBLOOM_WIRE_FIXED_BYTES + 8 * (mb->nattrs + 1);

		d[part0 + BF_WIRE_SEED] = 2;
		write_seed("binary-bad-part-seed", 1, d, len);
		memcpy(d, w, len);
		d[part0 + BF_WIRE_FLAGS] = 0x80;	/* unknown bloom flag in a part */
		write_seed("binary-bad-part-flags", 1, d, len);
		memcpy(d, w, len);
		d[part0 + BF_WIRE_SCHEME] = BLOOM_HASH_SCHEME_INDEPENDENT_WORDS;	/* parts' schemes differ */
		write_seed("binary-bad-part-scheme", 1, d, len);
	}
	write_lengths(w, len, MULTIBLOOM_WIRE_FIXED_BYTES, "binary-fixed-only",
				  "binary-trailing-word", d);
	free(d);
	free(w);
}

static void
write_multibloom_seeds(void)
{
	BloomShape	shapes[MULTIBLOOM_MAX_ATTRS + 1];
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint64_t	total,
				t2;
	MultiBloom *mb,
			   *mb2;
	uint8_t    *w,
			   *w2;
	size_t		len,
				len2;

	/* sized like multibloom_empty, 1 to 3 attributes and the maximum */
	for (int nattrs = 1; nattrs <= 3; nattrs++)
	{
		double		caps[MULTIBLOOM_MAX_ATTRS];
		char		tag[64];

		for (int i = 0; i < nattrs; i++)
			caps[i] = 20;
		if (!mbf_shapes_for(nattrs, caps, 20, 0.05, shapes, errbuf))
			continue;
		mb = build_mb(nattrs, shapes, 0, false, &total);
		snprintf(tag, sizeof(tag), "sized-%dattrs-empty", nattrs);
		write_mb(tag, mb, total);
		free(mb);
		mb = build_mb(nattrs, shapes, 15, false, &total);
		snprintf(tag, sizeof(tag), "sized-%dattrs-15", nattrs);
		write_mb(tag, mb, total);
		mb2 = build_mb(nattrs, shapes, 3, false, &t2);
		w = mb_wire_of(mb, &len);
		w2 = mb_wire_of(mb2, &len2);
		snprintf(tag, sizeof(tag), "pair-sized-%dattrs", nattrs);
		write_pair(tag, w, len, w2, len2);
		if (nattrs == 2)
			write_mb_damaged(mb);
		free(w);
		free(w2);
		free(mb);
		free(mb2);
	}
	{
		double		caps[MULTIBLOOM_MAX_ATTRS];

		for (int i = 0; i < MULTIBLOOM_MAX_ATTRS; i++)
			caps[i] = 2;
		if (mbf_shapes_for(MULTIBLOOM_MAX_ATTRS, caps, 2, 0.5, shapes, errbuf))
		{
			mb = build_mb(MULTIBLOOM_MAX_ATTRS, shapes, 2, false, &total);
			write_mb("sized-32attrs-2", mb, total);
			free(mb);
		}
	}

	/* auto-sized pairs that fold: one larger in every part, and mixed */
	{
		static const uint64_t small[] = {64, 128, 64};
		static const uint64_t large[] = {256, 512, 1024};
		static const uint64_t mixed[] = {512, 64, 128};

		unit_classic_parts(2, small, shapes);
		mb = build_mb(2, shapes, 4, true, &total);
		write_mb("auto-small", mb, total);
		w = mb_wire_of(mb, &len);
		free(mb);
		unit_classic_parts(2, large, shapes);
		mb = build_mb(2, shapes, 40, true, &total);
		write_mb("auto-large", mb, total);
		w2 = mb_wire_of(mb, &len2);
		free(mb);
		write_pair("pair-auto-small-large", w, len, w2, len2);
		write_pair("pair-auto-large-small", w2, len2, w, len);
		free(w2);
		unit_classic_parts(2, mixed, shapes);
		mb = build_mb(2, shapes, 20, true, &total);
		w2 = mb_wire_of(mb, &len2);
		free(mb);
		write_pair("pair-auto-small-mixed", w, len, w2, len2);
		write_pair("pair-auto-mixed-small", w2, len2, w, len);
		free(w);
		free(w2);
	}

	/* an empty auto-sized value and a larger one: the identity of union */
	{
		static const uint64_t one[] = {64, 64, 64};
		static const uint64_t odd[] = {320, 192, 448};

		unit_classic_parts(2, one, shapes);
		mb = build_mb(2, shapes, 0, true, &total);
		w = mb_wire_of(mb, &len);
		free(mb);
		unit_classic_parts(2, odd, shapes);
		mb = build_mb(2, shapes, 30, true, &total);
		w2 = mb_wire_of(mb, &len2);
		write_pair("pair-auto-empty-odd", w, len, w2, len2);
		write_pair("pair-auto-odd-empty", w2, len2, w, len);
		/* attribute 1's part replaced by an empty list of its seed: rejected */
		{
			size_t		head = MULTIBLOOM_WIRE_FIXED_BYTES + 8 * 3;
			size_t		part0 = bf_get_le64(w2 + MULTIBLOOM_WIRE_FIXED_BYTES);
			BloomFilter *list = unit_datasized(0, 0, 0, mbf_part_seed(0, 2));
			size_t		llen = bf_wire_bytes(list);
			uint8_t    *d = malloc(len2);

			memcpy(d, w2, head);
			bf_put_le64(d + MULTIBLOOM_WIRE_FIXED_BYTES, llen);
			bf_serialize(list, d + head);
			memcpy(d + head + llen, w2 + head + part0, len2 - head - part0);
			write_seed("binary-bad-part-explicit", 1, d, len2 - part0 + llen);
			free(d);
			free(list);
		}
		free(mb);
		free(w);
		free(w2);
	}

	/* parts of the other layouts, which only a hand-made value holds */
	{
		unit_mixed_layout_parts(shapes);
		mb = build_mb(2, shapes, 10, false, &total);
		if (mb)
		{
			write_mb("layouts-blocked-matrix", mb, total);
			w = mb_wire_of(mb, &len);
			write_pair("pair-layouts", w, len, w, len);
			free(w);
			free(mb);
		}
	}
}

static void
write_text_edge_cases(void)
{
	static const char *const texts[] = {
		"", "=", "====", "A===", "AA==", "AB==", "AAA=", "AAB=", "AA=A",
		"AAAA AAAA", " AQABAA==", "AQABAA==\n", "AQAB\nAA==", "!!!!",
		"AQABAA", "AQABAAA=", "AQABAAAA", "////",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
	{
		char		name[64];

		snprintf(name, sizeof(name), "text-edge-%02zu", i);
		write_seed(name, 0, texts[i], strlen(texts[i]));
	}
}

/*
 * Seeds of fuzz_interop: a filter of each interop layout with a few values,
 * exported in each format of its layout, then truncated, padded and with
 * its first bytes flipped.
 */
static void
write_interop_seeds(void)
{
	static const struct
	{
		const char *tag;
		int			layout;
		int			format;
		double		n;
		uint64_t	seed;
	}			cases[] = {
		{"parquet", BLOOM_LAYOUT_PARQUET, BF_FORMAT_PARQUET, 100, 0},
		{"parquet-header", BLOOM_LAYOUT_PARQUET, BF_FORMAT_PARQUET_HEADER, 100, 0},
		{"parquet-header-big", BLOOM_LAYOUT_PARQUET, BF_FORMAT_PARQUET_HEADER, 5000, 0},
		{"guava", BLOOM_LAYOUT_GUAVA, BF_FORMAT_GUAVA, 50, 0},
		{"guava32", BLOOM_LAYOUT_GUAVA32, BF_FORMAT_GUAVA, 50, 0},
		{"spark", BLOOM_LAYOUT_SPARK, BF_FORMAT_SPARK, 50, 0},
		{"spark2", BLOOM_LAYOUT_SPARK2, BF_FORMAT_SPARK, 50, 12345},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char		errbuf[BLOOM_ERRBUF_SIZE];
		char		name[96];
		BloomShape	s;
		BloomFilter *f;
		uint64_t	n;
		uint8_t    *out;

		if (!bf_shape_for(cases[i].n, 0.01, cases[i].layout, &s, errbuf))
			continue;			/* layout not in this build */
		f = calloc(1, bf_shape_bytes(&s));
		bf_init(f, &s);
		f->seed |= cases[i].seed;
		for (uint64_t v = 0; v < 10; v++)
			bf_insert(f, bf_interop_hash_int(f, v * 7919, 8));
		n = bf_interop_export_bytes(f, cases[i].format, errbuf);
		if (n == 0)
		{
			fprintf(stderr, "%s: %s\n", cases[i].tag, errbuf);
			exit(1);
		}
		out = malloc(n + 1);
		bf_interop_export(f, cases[i].format, out);
		snprintf(name, sizeof(name), "interop-%s", cases[i].tag);
		write_seed(name, (uint8_t) cases[i].format, out, n);
		snprintf(name, sizeof(name), "interop-%s-truncated", cases[i].tag);
		write_seed(name, (uint8_t) cases[i].format, out, n - 1);
		out[n] = 0;
		snprintf(name, sizeof(name), "interop-%s-padded", cases[i].tag);
		write_seed(name, (uint8_t) cases[i].format, out, n + 1);
		out[0] ^= 0xff;
		out[1] ^= 0x80;
		snprintf(name, sizeof(name), "interop-%s-damaged", cases[i].tag);
		write_seed(name, (uint8_t) cases[i].format, out, n);
		free(out);
		free(f);
	}
}

int
main(int argc, char **argv)
{
	/* candidate shapes; those this build rejects are skipped */
	static const struct
	{
		const char *tag;
		uint8_t		layout;
		uint64_t	nbits;
		uint32_t	nhashes;
		uint32_t	rows;
		uint32_t	locators;
		uint8_t		scheme;
		uint8_t		flags;
	}			shapes[] = {
		{"classic-1bit", BLOOM_LAYOUT_CLASSIC, 1, 1, 0, 0, 2, 0},
		{"classic-63bits", BLOOM_LAYOUT_CLASSIC, 63, 3, 0, 0, 2, 0},
		{"classic-64bits", BLOOM_LAYOUT_CLASSIC, 64, 1, 0, 0, 2, 0},
		{"classic-65bits", BLOOM_LAYOUT_CLASSIC, 65, 2, 0, 0, 2, 0},
		{"classic-1000bits-k7", BLOOM_LAYOUT_CLASSIC, 1000, 7, 0, 0, 2, 0},
		{"classic-1000bits-k7-s1", BLOOM_LAYOUT_CLASSIC, 1000, 7, 0, 0, 1, 0},
		{"classic-1000bits-k7-s3", BLOOM_LAYOUT_CLASSIC, 1000, 7, 0, 0, 3, 0},
		{"classic-k64", BLOOM_LAYOUT_CLASSIC, 256, 64, 0, 0, 2, 0},
		{"classic-k64-s1", BLOOM_LAYOUT_CLASSIC, 256, 64, 0, 0, 1, 0},
		{"blocked-512bits", BLOOM_LAYOUT_BLOCKED, 512, 4, 0, 0, 2, 0},
		{"blocked-2048bits", BLOOM_LAYOUT_BLOCKED, 2048, 8, 0, 0, 2, 0},
		{"blocked-2048bits-k15-s1", BLOOM_LAYOUT_BLOCKED, 2048, 15, 0, 0, 1, 0},
		{"blocked-2048bits-k15-s3", BLOOM_LAYOUT_BLOCKED, 2048, 15, 0, 0, 3, 0},
		{"matrix-4x128", BLOOM_LAYOUT_MATRIX, 512, 3, 4, 2, 2, 0},
		{"matrix-4x128-s1", BLOOM_LAYOUT_MATRIX, 512, 3, 4, 2, 1, 0},
		{"matrix-4x128-s3", BLOOM_LAYOUT_MATRIX, 512, 3, 4, 2, 3, 0},
		{"matrix-2x64", BLOOM_LAYOUT_MATRIX, 128, 2, 2, 1, 2, 0},
		{"matrix-6x256", BLOOM_LAYOUT_MATRIX, 1536, 4, 6, 3, 2, 0},
		/* groups of 3, 3 and 2 rows; then ties to the first candidate */
		{"matrix-8x100-uneven", BLOOM_LAYOUT_MATRIX, 800, 4, 8, 3, 2, 0},
		{"matrix-8x100-ties-first", BLOOM_LAYOUT_MATRIX, 800, 4, 8, 3, 2,
		BLOOM_FLAG_MATRIX_TIES_FIRST},
	};
	BloomFilter *prev = NULL;
	BloomFilter *first_classic = NULL;
	char		bloom_dir[1024],
				mb_dir[1024],
				interop_dir[1024];

	if (argc != 2)
	{
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	snprintf(bloom_dir, sizeof(bloom_dir), "%s/fuzz_bloom", argv[1]);
	snprintf(mb_dir, sizeof(mb_dir), "%s/fuzz_multibloom", argv[1]);
	snprintf(interop_dir, sizeof(interop_dir), "%s/fuzz_interop", argv[1]);
	mkdir(argv[1], 0755);
	if (mkdir(bloom_dir, 0755) != 0 || mkdir(mb_dir, 0755) != 0 ||
		mkdir(interop_dir, 0755) != 0)
	{
		perror("mkdir");
		return 1;
	}
	outdir = bloom_dir;

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
	{
		BloomShape	s;
		BloomFilter *empty,
				   *some,
				   *full;
		char		tag[128];

		memset(&s, 0, sizeof(s));
		s.layout = shapes[i].layout;
		s.nbits = shapes[i].nbits;
		s.nhashes = shapes[i].nhashes;
		s.rows = shapes[i].rows;
		s.locators = shapes[i].locators;
		s.seed = i;
		empty = build_as(&s, shapes[i].scheme, shapes[i].flags, 0);
		if (!empty)
			continue;			/* layout or shape not in this build */
		some = build_as(&s, shapes[i].scheme, shapes[i].flags, 5);
		full = build_as(&s, shapes[i].scheme, shapes[i].flags, 200);

		snprintf(tag, sizeof(tag), "%s-empty", shapes[i].tag);
		write_filter(tag, empty, some);
		snprintf(tag, sizeof(tag), "%s-5", shapes[i].tag);
		write_filter(tag, some, full);
		snprintf(tag, sizeof(tag), "%s-200", shapes[i].tag);
		write_filter(tag, full, prev);	/* prev: an incompatible shape */

		if (!first_classic && s.layout == BLOOM_LAYOUT_CLASSIC && s.nbits == 65)
			first_classic = build(&s, 5);
		free(prev);
		free(empty);
		free(some);
		prev = full;
	}
	free(prev);

	if (first_classic)
		write_damaged(first_classic);
	free(first_classic);
	write_bloom_fold_pairs();
	write_bloom_list_seeds();
	write_text_edge_cases();
	printf("wrote %d seeds to %s\n", nseeds, outdir);

	outdir = mb_dir;
	nseeds = 0;
	write_multibloom_seeds();
	write_text_edge_cases();
	printf("wrote %d seeds to %s\n", nseeds, outdir);

	outdir = interop_dir;
	nseeds = 0;
	write_interop_seeds();
	printf("wrote %d seeds to %s\n", nseeds, outdir);
	return 0;
}
