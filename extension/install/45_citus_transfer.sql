-- bloomfilter: the binary route of the hashed aggregates' partial states
-- through Citus (doc/aggregates.md, "On Citus: the rewrite", what travels).
--
-- Citus moves the partial state of an aggregate it splits with
-- worker_partial_agg as the text output of the state's type.  Two names it
-- splits otherwise: a call of an aggregate named hll_add_agg without a
-- combine function runs whole on each shard, its result comes back in the
-- binary protocol when its type has binary send and receive, and the
-- coordinator aggregates those results with the one-argument aggregate named
-- hll_union_agg of that type.  The aggregates below are the hashed twins
-- under those names, returning their state (binary send: the flat form);
-- the planner rewrite calls them on distributed tables and turns the
-- combined state into the filter with bloom_agg_state_result or
-- multibloom_agg_state_result.  They live in a
-- schema of their own, where no other extension's functions of those names
-- (the hll extension's) can meet them.

-- ---- the filter of a combined state ----

CREATE FUNCTION @extschema@.bloom_agg_state_result(state @extschema@.bloom_agg_state, datasized boolean)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_state_result' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_agg_state_result(@extschema@.bloom_agg_state, boolean) IS
	'the filter of a bloom_agg_state of the data-sized form (datasized) or a fixed shape, as the final function of its bloom_agg_hashed form gives it; over no rows (NULL) the empty data-sized filter, or NULL';
CREATE FUNCTION @extschema@.multibloom_agg_state_result(@extschema@.multibloom_agg_state)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_state_result' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_state_result(@extschema@.multibloom_agg_state) IS
	'the filter of a multibloom_agg_state, as the final function of its hashed form gives it';

-- ---- the shard and coordinator aggregates Citus splits by name ----

CREATE SCHEMA bloomfilter_citus;
COMMENT ON SCHEMA bloomfilter_citus IS
	'the bloomfilter extension''s aggregates that Citus splits by their names (hll_add_agg, hll_union_agg): the binary route of partial states';
GRANT USAGE ON SCHEMA bloomfilter_citus TO PUBLIC;

CREATE AGGREGATE bloomfilter_citus.hll_add_agg(hash bigint) (
	SFUNC = @extschema@.bloom_agg_hashed_trans,
	STYPE = @extschema@.bloom_agg_state,
	SSPACE = 256,
	PARALLEL = SAFE
);
CREATE AGGREGATE bloomfilter_citus.hll_add_agg(hash bigint, capacity bigint, fpp float8) (
	SFUNC = @extschema@.bloom_agg_hashed_fixed_trans,
	STYPE = @extschema@.bloom_agg_state,
	SSPACE = 1024,
	PARALLEL = SAFE
);
CREATE AGGREGATE bloomfilter_citus.hll_add_agg(hash bigint, capacity bigint, fpp float8, layout text) (
	SFUNC = @extschema@.bloom_agg_hashed_fixed_trans,
	STYPE = @extschema@.bloom_agg_state,
	SSPACE = 1024,
	PARALLEL = SAFE
);
CREATE AGGREGATE bloomfilter_citus.hll_add_agg(hashes bigint[]) (
	SFUNC = @extschema@.multibloom_agg_hashed_trans,
	STYPE = @extschema@.multibloom_agg_state,
	PARALLEL = SAFE
);
CREATE AGGREGATE bloomfilter_citus.hll_add_agg(capacity bigint, fpp float8, hashes bigint[]) (
	SFUNC = @extschema@.multibloom_agg_fixed_hashed_trans,
	STYPE = @extschema@.multibloom_agg_state,
	PARALLEL = SAFE
);
CREATE AGGREGATE bloomfilter_citus.hll_union_agg(@extschema@.bloom_agg_state) (
	SFUNC = @extschema@.bloom_agg_state_combine,
	STYPE = @extschema@.bloom_agg_state,
	PARALLEL = SAFE
);
CREATE AGGREGATE bloomfilter_citus.hll_union_agg(@extschema@.multibloom_agg_state) (
	SFUNC = @extschema@.multibloom_agg_state_combine,
	STYPE = @extschema@.multibloom_agg_state,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloomfilter_citus.hll_add_agg(bigint) IS
	'bloom_agg_hashed(hash), returning its state: what a shard runs on the binary route through Citus';
COMMENT ON AGGREGATE bloomfilter_citus.hll_add_agg(bigint, bigint, float8) IS
	'bloom_agg_hashed(hash, capacity, fpp), returning its state: what a shard runs on the binary route through Citus';
COMMENT ON AGGREGATE bloomfilter_citus.hll_add_agg(bigint, bigint, float8, text) IS
	'bloom_agg_hashed(hash, capacity, fpp, layout), returning its state: what a shard runs on the binary route through Citus';
COMMENT ON AGGREGATE bloomfilter_citus.hll_add_agg(bigint[]) IS
	'multibloom_agg_hashed(hashes), returning its state: what a shard runs on the binary route through Citus';
COMMENT ON AGGREGATE bloomfilter_citus.hll_add_agg(bigint, float8, bigint[]) IS
	'multibloom_agg_fixed_hashed(capacity, fpp, hashes), returning its state: what a shard runs on the binary route through Citus';
COMMENT ON AGGREGATE bloomfilter_citus.hll_union_agg(@extschema@.bloom_agg_state) IS
	'the combination of bloom_agg_state values: what the coordinator runs on the binary route through Citus';
COMMENT ON AGGREGATE bloomfilter_citus.hll_union_agg(@extschema@.multibloom_agg_state) IS
	'the combination of multibloom_agg_state values: what the coordinator runs on the binary route through Citus';
