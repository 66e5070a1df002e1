/*
 * unit.h
 *	  What the unit tests of the plain-C core share: a minimal harness
 *	  (CHECK macros that count and report failures with file and line, and a
 *	  closing "N passed, N failed" line), stand-in value hashes, and
 *	  constructors of filters and multibloom part shapes.  The benchmark
 *	  programs of bench/ use the value hashes too, so their values are the
 *	  tests' values; test/fuzz/make_seeds.c uses the part shapes, so the
 *	  seeds hold the values the tests check.
 */
#ifndef UNIT_H
#define UNIT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/filter.h"
#include "core/hash_records.h"
#include "core/multibloom.h"

static int	unit_passed,
			unit_failed;

#define CHECK(cond) \
	do { \
		if (cond) unit_passed++; \
		else { unit_failed++; fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); } \
	} while (0)

#define CHECK_EQ_U64(a, b) \
	do { \
		unsigned long long a_ = (unsigned long long) (a), b_ = (unsigned long long) (b); \
		if (a_ == b_) unit_passed++; \
		else { unit_failed++; fprintf(stderr, "%s:%d: FAILED: %s == %s (%llu != %llu)\n", \
									  __FILE__, __LINE__, #a, #b, a_, b_); } \
	} while (0)

#define CHECK_NEAR(a, b, tol) \
	do { \
		double a_ = (a), b_ = (b); \
		if (fabs(a_ - b_) <= (tol)) unit_passed++; \
		else { unit_failed++; fprintf(stderr, "%s:%d: FAILED: %s ~ %s (%g vs %g, tolerance %g)\n", \
									  __FILE__, __LINE__, #a, #b, a_, b_, (double) (tol)); } \
	} while (0)

#define CHECK_STR(a, b) \
	do { \
		if (strcmp((a), (b)) == 0) unit_passed++; \
		else { unit_failed++; fprintf(stderr, "%s:%d: FAILED: \"%s\" == \"%s\"\n", __FILE__, __LINE__, (a), (b)); } \
	} while (0)

#define SKIP(why) fprintf(stderr, "%s:%d: skipped: %s\n", __FILE__, __LINE__, why)

#define RUN(test) \
	do { int f_ = unit_failed; test(); \
		 fprintf(stderr, "%-28s %s\n", #test, unit_failed == f_ ? "ok" : "FAILED"); } while (0)

/* ---- values ---- */

/*
 * A stand-in for a type's extended hash of the integer v with a seed: any
 * good 64-bit hash will do (this is the splitmix64 step).  Seed 0 is
 * hash_int.
 */
static inline uint64_t
hash_int_seeded(uint64_t v, uint64_t seed)
{
	v += UINT64_C(0x9e3779b97f4a7c15) * (seed + 1);
	v = (v ^ (v >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	v = (v ^ (v >> 27)) * UINT64_C(0x94d049bb133111eb);
	return v ^ (v >> 31);
}

static inline uint64_t
hash_int(uint64_t v)
{
	return hash_int_seeded(v, 0);
}

/* The double-hashing words of the integer v, as a filter receives them. */
static inline BloomHash
value(uint64_t v)
{
	return bf_hash_derive(hash_int(v));
}

/*
 * An empty filter of a shape the test means to be valid (exits if it is
 * not), or NULL if there is no memory for it.
 */
static inline BloomFilter *
unit_new_filter(const BloomShape *shape)
{
	char		err[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;

	if (!bf_shape_check(shape, err))
	{
		fprintf(stderr, "bad test shape: %s\n", err);
		exit(2);
	}
	f = calloc(1, bf_shape_bytes(shape));
	if (f != NULL)
		bf_init(f, shape);
	return f;
}

/*
 * The data-sized filter of the distinct values [from, to), hashed by
 * hash_int_seeded with this seed: the shape
 * bf_shape_collected gives (a list up to BLOOM_EXPLICIT_MAX values), or,
 * with nwords > 0, the bit array of that many words.  inserted counts the
 * values; exits if the shape is invalid.
 */
static inline BloomFilter *
unit_datasized(uint64_t from, uint64_t to, uint64_t nwords, uint64_t seed)
{
	char		err[BLOOM_ERRBUF_SIZE];
	uint64_t   *h = malloc(8 * (to - from) + 8);
	uint64_t	n = 0;
	BloomShape	shape;
	BloomFilter *f;
	BfBuilder	b;

	if (h == NULL)
		exit(2);
	for (uint64_t v = from; v < to; v++)
		h[n++] = hash_int_seeded(v, seed);
	n = bf_records_sort_unique(h, 0, n, 1);
	if (nwords > 0)
		shape = (BloomShape) {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = 64 * nwords,
		.nhashes = BLOOM_AUTO_NHASHES, .seed = seed};
	else if (!bf_shape_collected((double) n, seed, &shape, err))
		exit(2);
	f = calloc(1, bf_shape_bytes(&shape));
	if (f == NULL)
		exit(2);
	f->vl_len_ = (int32_t) bf_shape_bytes(&shape);
	bf_init(f, &shape);
	f->flags = BLOOM_FLAG_AUTOSIZED;
	bf_builder_start(&b, f);
	for (uint64_t i = 0; i < n; i++)
		bf_builder_add(&b, h[i]);
	bf_builder_finish(&b);
	f->inserted = to - from;
	free(h);
	return f;
}

/* A filter's binary form (malloc'd) and its length. */
static inline uint8_t *
unit_wire_of(const BloomFilter *f, size_t *len)
{
	uint8_t    *w = malloc(bf_wire_bytes(f));

	if (w == NULL)
		exit(2);
	bf_serialize(f, w);
	*len = bf_wire_bytes(f);
	return w;
}

/* Classic multibloom part shapes of nbits[0 .. nattrs] bits, k = 5. */
static inline void
unit_classic_parts(int nattrs, const uint64_t *nbits, BloomShape *shapes)
{
	for (int i = 0; i <= nattrs; i++)
		shapes[i] = (BloomShape) {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = nbits[i],
		.nhashes = 5, .seed = mbf_part_seed(i, nattrs)};
}

/*
 * Part shapes of a 2-attribute multibloom whose parts are blocked, matrix
 * and classic (the verification filter): only a hand-made value mixes
 * layouts, since the SQL constructors make classic parts.
 */
static inline void
unit_mixed_layout_parts(BloomShape shapes[3])
{
	static const uint64_t nbits[] = {512, 128, 1024};

	unit_classic_parts(2, nbits, shapes);
	shapes[0].layout = BLOOM_LAYOUT_BLOCKED;
	shapes[0].nhashes = 4;
	shapes[1].layout = BLOOM_LAYOUT_MATRIX;
	shapes[1].nhashes = 2;
	shapes[1].rows = 2;
	shapes[1].locators = 1;
}

/* ---- closing ---- */

/* Prints the closing line and returns the exit status. */
static inline int
unit_report(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, unit_passed, unit_failed);
	return unit_failed == 0 ? 0 : 1;
}

#endif
