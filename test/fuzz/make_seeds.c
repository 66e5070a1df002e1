/*
 * make_seeds.c
 *	  Writes the seed corpus of fuzz_bloom into a directory: small valid
 *	  filters of every layout this build supports, in each of the harness's
 *	  input modes, and hand-made edge cases (every header field just out of
 *	  range, truncated and padded payloads, tail bits, bad base64).
 *
 *	  Usage: make_seeds DIR    (run by `make fuzz-seeds`)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloom_core.h"

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

/* A filter of this shape with n values in it, or NULL if the shape is invalid. */
static BloomFilter *
build(const BloomShape *s, unsigned n)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;

	if (!bloom_shape_check(s, errbuf))
		return NULL;
	f = calloc(1, bloom_struct_bytes(s->nbits));
	f->vl_len_ = (int32_t) bloom_struct_bytes(s->nbits);
	bloom_init(f, s);
	for (unsigned i = 0; i < n; i++)
		bloom_insert(f, bloom_hash_derive(UINT64_C(0x1234567) * (i + 1)));
	return f;
}

static uint8_t *
wire_of(const BloomFilter *f, size_t *len)
{
	uint8_t    *w = malloc(bloom_wire_bytes(f));

	bloom_serialize(f, w);
	*len = bloom_wire_bytes(f);
	return w;
}

/* Writes f in every mode: text, binary, in-memory, and paired with other. */
static void
write_filter(const char *tag, const BloomFilter *f, const BloomFilter *other)
{
	char		name[256];
	size_t		len,
				olen;
	uint8_t    *w = wire_of(f, &len);
	char	   *text = malloc(base64_encoded_len(len) + 1);
	uint8_t    *pair;

	base64_encode(w, len, text);
	snprintf(name, sizeof(name), "text-%s", tag);
	write_seed(name, 0, text, base64_encoded_len(len));
	snprintf(name, sizeof(name), "binary-%s", tag);
	write_seed(name, 1, w, len);
	snprintf(name, sizeof(name), "struct-%s", tag);
	write_seed(name, 3, (const uint8_t *) f + 4, bloom_struct_bytes(f->nbits) - 4);

	if (other)
	{
		uint8_t    *ow = wire_of(other, &olen);

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

/* Little-endian stores into a serialized header. */
static void
put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static void
put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

/* A copy of a valid classic filter's binary form, damaged by one edit. */
static void
write_damaged(const BloomFilter *base)
{
	size_t		len;
	uint8_t    *w = wire_of(base, &len);
	uint8_t    *d = malloc(len + 16);
	struct
	{
		const char *name;
		size_t		off;
		int			width;
		uint64_t	value;
	}			edits[] = {
		{"version0", 0, 1, 0},
		{"version2", 0, 1, 2},
		{"layout-unknown", 1, 1, 200},
		{"layout-blocked", 1, 1, BLOOM_LAYOUT_BLOCKED},
		{"layout-matrix", 1, 1, BLOOM_LAYOUT_MATRIX},
		{"scheme0", 2, 1, 0},
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

	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++)
	{
		char		name[128];

		memcpy(d, w, len);
		if (edits[i].width == 1)
			d[edits[i].off] = (uint8_t) edits[i].value;
		else if (edits[i].width == 4)
			put32(d + edits[i].off, (uint32_t) edits[i].value);
		else
			put64(d + edits[i].off, edits[i].value);
		snprintf(name, sizeof(name), "binary-bad-%s", edits[i].name);
		write_seed(name, 1, d, len);
		snprintf(name, sizeof(name), "struct-bad-%s", edits[i].name);
		write_seed(name, 3, d, len);	/* same offsets in memory */
	}

	/* lengths: empty, header only, one byte short, one word too many */
	write_seed("binary-empty", 1, d, 0);
	write_seed("binary-header-only", 1, w, BLOOM_WIRE_HEADER_BYTES);
	write_seed("binary-short-by-1", 1, w, len - 1);
	memcpy(d, w, len);
	memset(d + len, 0, 8);
	write_seed("binary-extra-word", 1, d, len + 8);

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
	}			shapes[] = {
		{"classic-1bit", BLOOM_LAYOUT_CLASSIC, 1, 1, 0, 0},
		{"classic-63bits", BLOOM_LAYOUT_CLASSIC, 63, 3, 0, 0},
		{"classic-64bits", BLOOM_LAYOUT_CLASSIC, 64, 1, 0, 0},
		{"classic-65bits", BLOOM_LAYOUT_CLASSIC, 65, 2, 0, 0},
		{"classic-1000bits-k7", BLOOM_LAYOUT_CLASSIC, 1000, 7, 0, 0},
		{"classic-k64", BLOOM_LAYOUT_CLASSIC, 256, 64, 0, 0},
		{"blocked-512bits", BLOOM_LAYOUT_BLOCKED, 512, 4, 0, 0},
		{"blocked-2048bits", BLOOM_LAYOUT_BLOCKED, 2048, 8, 0, 0},
		{"matrix-4x128", BLOOM_LAYOUT_MATRIX, 512, 3, 4, 2},
		{"matrix-2x64", BLOOM_LAYOUT_MATRIX, 128, 2, 2, 1},
		{"matrix-6x256", BLOOM_LAYOUT_MATRIX, 1536, 4, 6, 3},
	};
	BloomFilter *prev = NULL;
	BloomFilter *first_classic = NULL;

	if (argc != 2)
	{
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	outdir = argv[1];

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
		empty = build(&s, 0);
		if (!empty)
			continue;			/* layout or shape not in this build */
		some = build(&s, 5);
		full = build(&s, 200);

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
	write_text_edge_cases();
	printf("wrote %d seeds to %s\n", nseeds, outdir);
	return 0;
}
