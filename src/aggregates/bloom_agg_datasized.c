/*
 * bloom_agg_datasized.c
 *	  bloom_agg(value), the data-sized form: the transition collects the
 *	  distinct raw hashes of the values in a HashCollector (bounded by
 *	  work_mem, spilling to temporary files) and the final function builds
 *	  the filter when their number is known.  The filter of a set of
 *	  collected hashes is built here for every aggregate that collects them
 *	  (the hashed twin, the matrix layout's fixed shape, a union's explicit
 *	  lists), so this file calls no other aggregate file.  Design and
 *	  costs: doc/aggregates.md.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "aggregates/bloom_agg_internal.h"

PG_FUNCTION_INFO_V1(bloom_agg_datasized_trans);
PG_FUNCTION_INFO_V1(bloom_agg_datasized_final);

BloomAggState *
bloom_agg_datasized_state_new(FunctionCallInfo fcinfo, MemoryContext aggcxt)
{
	BloomAggState *state = MemoryContextAllocZero(aggcxt, sizeof(BloomAggState));

	state->hashes = hc_create(aggcxt, 1, hc_work_mem_limit(), fcinfo);
	return state;
}

Datum
bloom_agg_datasized_trans(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);

	/* a non-null internal state can only come from this aggregate */
	if (state == NULL)
		state = bloom_agg_datasized_state_new(fcinfo, agg_memory_context(fcinfo, "bloom_agg_trans"));
	if (!PG_ARGISNULL(1))
	{
		FilterCallCache *cache = bloom_call_cache(fcinfo, 1);

		/*
		 * the raw hash with seed 0, of the scheme the final filter is
		 * written under: it derives its bits from it
		 */
		hc_add1(state->hashes,
				bloom_hasher_value_hash(&cache->hashers[0], PG_GETARG_DATUM(1), 0,
										BLOOM_HASH_SCHEME_NEWEST));
		state->rows++;
	}
	PG_RETURN_POINTER(state);
}

/* Adds one collected hash (they come in ascending order) to the filter. */
void
bloom_agg_build_from_record(const uint64 *rec, void *arg)
{
	bf_builder_add((BfBuilder *) arg, rec[0]);
}

/*
 * The data-sized filter of a set of distinct value hashes (NULL: none),
 * with this seed, under the hash scheme they were computed for (the newest
 * for bloom_agg), and no insert count: up to BLOOM_EXPLICIT_MAX of them, the
 * list itself; beyond, the bit array sized for their exact count, every
 * hash inserted.  The result depends only on the set, so a parallel plan
 * gives the serial plan's filter.
 */
BloomFilter *
bloom_agg_collected_filter(HashCollector *hashes, uint64 seed, uint8 scheme)
{
	uint64		ndistinct = hashes ? hc_count(hashes) : 0;
	BloomShape	shape;
	char		errbuf[BLOOM_ERRBUF_SIZE];
	BloomFilter *f;
	BfBuilder	builder;

	if (!bf_shape_collected((double) ndistinct, seed, &shape, errbuf))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_agg cannot size a filter: %s", errbuf),
				 errhint("Give a capacity and a false-positive probability: bloom_agg(value, capacity, fpp).")));
	f = bloom_alloc(&shape);
	f->hash_scheme = scheme;
	f->flags |= BLOOM_FLAG_AUTOSIZED;
	if (hashes)
	{
		bf_builder_start(&builder, f);
		hc_iterate(hashes, bloom_agg_build_from_record, &builder);
		bf_builder_finish(&builder);
	}
	f->inserted = 0;
	return f;
}

/*
 * No rows give the empty list: the identity of every union of data-sized
 * filters.
 */
BloomFilter *
bloom_agg_datasized_result(BloomAggState *state)
{
	BloomFilter *f = bloom_agg_collected_filter(state ? state->hashes : NULL, 0, BLOOM_HASH_SCHEME_NEWEST);

	if (state)
		f->inserted = state->rows;
	return f;
}

Datum
bloom_agg_datasized_final(PG_FUNCTION_ARGS)
{
	BloomAggState *state = PG_ARGISNULL(0) ? NULL : (BloomAggState *) PG_GETARG_POINTER(0);

	agg_memory_context(fcinfo, "bloom_agg_final");
	PG_RETURN_BLOOM(bloom_agg_datasized_result(state));
}
