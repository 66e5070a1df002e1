/*
 * bloom_hashfn.c
 *	  bloom_hash(value, seed): the 64-bit hash a filter with that seed uses
 *	  for a value, i.e. the type's extended hash from its default hash
 *	  opclass.  Lets clients that build filters outside the server check
 *	  their hashing, and lets the tests check that the direct hashing paths
 *	  of bloomfilter.h give the opclass function's results bit for bit.
 */
#include "postgres.h"

#include "types/bloomfilter.h"

PG_FUNCTION_INFO_V1(bloom_hash);

Datum
bloom_hash(PG_FUNCTION_ARGS)
{
	FilterCallCache *cache = bloom_call_cache(fcinfo, 0);

	PG_RETURN_INT64((int64) bloom_hasher_value_hash(&cache->hashers[0], PG_GETARG_DATUM(0),
													(uint64) PG_GETARG_INT64(1)));
}
