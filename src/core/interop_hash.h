/*
 * interop_hash.h
 *	  The hash functions of the interop filter formats, in plain C, as their
 *	  writers compute them: XXH64 (Parquet's split-block filters, seed 0, and
 *	  Spark SQL's xxhash64, seed 42), MurmurHash3 x64_128 (Guava's
 *	  murmur3_128, seed 0) and MurmurHash3 x86_32 as Spark's sketch library
 *	  applies it (to a long, and to bytes with its own tail rule).  A leaf:
 *	  it includes no other file of the project.  Known answers:
 *	  test/unit/test_interop.c.
 */
#ifndef BF_INTEROP_HASH_H
#define BF_INTEROP_HASH_H

#include <stddef.h>
#include <stdint.h>

/* XXH64 of len bytes at p with a 64-bit seed (the reference algorithm). */
extern uint64_t bf_xxh64(const void *p, size_t len, uint64_t seed);

/* XXH64 of the 4 or 8 little-endian bytes of an integer (the common case). */
extern uint64_t bf_xxh64_u32(uint32_t v, uint64_t seed);
extern uint64_t bf_xxh64_u64(uint64_t v, uint64_t seed);

/*
 * MurmurHash3 x64_128 of len bytes at p with a 32-bit seed: out[0] is h1
 * (the first eight bytes of the digest, little-endian), out[1] is h2.
 */
extern void bf_murmur3_128(const void *p, size_t len, uint32_t seed, uint64_t out[2]);

/*
 * The same of the len (1 to 8) little-endian bytes of v (v < 2^(8 len)),
 * without reading memory: Guava's longFunnel and integerFunnel.
 */
extern void bf_murmur3_128_small(uint64_t v, size_t len, uint32_t seed, uint64_t out[2]);

/*
 * MurmurHash3 x86_32 of a 64-bit integer as Spark's sketch hashes a long:
 * its low 32 bits, then its high 32 bits, as two blocks of one 8-byte input.
 */
extern uint32_t bf_murmur3_32_long(uint64_t v, uint32_t seed);

/*
 * Spark's sketch hash of bytes (putBinary): MurmurHash3 x86_32 over the
 * whole 4-byte blocks, then each remaining byte, sign-extended, mixed as a
 * block of its own (not the reference tail), finalized with the length.
 */
extern uint32_t bf_murmur3_32_spark_bytes(const void *p, size_t len, uint32_t seed);

#endif							/* BF_INTEROP_HASH_H */
