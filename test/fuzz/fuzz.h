/*
 * fuzz.h
 *	  What the libFuzzer harnesses of the plain-C core share: the invariant
 *	  check, the four input modes and their dispatch, and the input steps
 *	  common to both types (the text form, a pair of values).
 *
 *	  The first input byte picks the mode; the rest is its input:
 *	    0  text form: strict base64, then decoded as mode 1
 *	    1  binary form (recv, bytea cast)
 *	    2  two binary values: a 2-byte little-endian length of the first,
 *	       then both
 *	    3  an in-memory value, as a forged or damaged datum would arrive
 *	  A harness supplies modes 1 to 3; test/fuzz/make_seeds.c writes seeds
 *	  in this layout.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base64.h"

/* An invariant: a broken one is a crash, which the fuzzer reports. */
#define REQUIRE(cond) \
	do { if (!(cond)) { fprintf(stderr, "invariant failed: %s (line %d)\n", #cond, __LINE__); abort(); } } while (0)

/* Largest struct a harness allocates; real inputs are far smaller. */
#define MAX_STRUCT_BYTES	(1 << 24)

/* A rejection always says why, within the buffer. */
static inline void
require_reason(const char *errbuf)
{
	REQUIRE(errbuf[0] != '\0');
	REQUIRE(memchr(errbuf, '\0', BLOOM_ERRBUF_SIZE) != NULL);
}

/* Mode 2's input split into its two values. */
typedef struct FuzzPair
{
	const uint8_t *a;
	size_t		alen;
	const uint8_t *b;
	size_t		blen;
} FuzzPair;

/* False if the input is too short for the length prefix. */
static inline bool
fuzz_pair_split(const uint8_t *data, size_t len, FuzzPair *pair)
{
	if (len < 2)
		return false;
	pair->alen = data[0] | ((size_t) data[1] << 8);
	data += 2;
	len -= 2;
	if (pair->alen > len)
		pair->alen = len;
	pair->a = data;
	pair->b = data + pair->alen;
	pair->blen = len - pair->alen;
	return true;
}

typedef void (*FuzzMode) (const uint8_t *data, size_t len);

/* Mode 0: what decodes is canonical (it encodes back to the same text). */
static inline void
fuzz_text(FuzzMode binary, const uint8_t *data, size_t len)
{
	char		errbuf[BLOOM_ERRBUF_SIZE];
	uint8_t    *bytes = malloc(bf_base64_decoded_max(len) + 1);
	size_t		nbytes = 0;

	REQUIRE(bytes != NULL);
	if (bf_base64_decode((const char *) data, len, bytes, &nbytes, errbuf))
	{
		char	   *text = malloc(bf_base64_encoded_len(nbytes) + 1);

		REQUIRE(nbytes <= bf_base64_decoded_max(len));
		REQUIRE(text != NULL);
		bf_base64_encode(bytes, nbytes, text);
		REQUIRE(bf_base64_encoded_len(nbytes) == len);
		REQUIRE(memcmp(text, data, len) == 0);
		free(text);
		binary(bytes, nbytes);
	}
	free(bytes);
}

/* Runs the mode the first byte names on the rest of the input. */
static inline int
fuzz_dispatch(FuzzMode binary, FuzzMode pair, FuzzMode in_memory,
			  const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] & 3)
	{
		case 0:
			fuzz_text(binary, data + 1, size - 1);
			break;
		case 1:
			binary(data + 1, size - 1);
			break;
		case 2:
			pair(data + 1, size - 1);
			break;
		case 3:
			in_memory(data + 1, size - 1);
			break;
	}
	return 0;
}

#endif							/* FUZZ_H */
