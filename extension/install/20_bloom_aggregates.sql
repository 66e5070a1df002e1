-- bloomfilter: the bloom aggregates.  bloom_agg (sized to the data, or of a fixed
-- shape), bloom_union_agg and bloom_intersect_agg, all parallel: their
-- transition states are mutated in place, with combine functions (and, for
-- bloom_agg's internal state, serial and deserial functions).  See
-- doc/aggregates.md.

-- Support functions (internal state: not callable from plain SQL).
CREATE FUNCTION @extschema@.bloom_agg_datasized_trans(internal, anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_datasized_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_fixed_trans(internal, anyelement, bigint, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_fixed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_fixed_trans(internal, anyelement, bigint, float8, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_fixed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_datasized_final(internal)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_datasized_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_fixed_final(internal)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_fixed_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloom_agg_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloom_agg_datasized_trans(internal, anyelement) IS
	'transition function of bloom_agg(value): collects distinct hashes';
COMMENT ON FUNCTION @extschema@.bloom_agg_fixed_trans(internal, anyelement, bigint, float8) IS
	'transition function of bloom_agg(value, capacity, fpp): adds to the filter in place';
COMMENT ON FUNCTION @extschema@.bloom_agg_fixed_trans(internal, anyelement, bigint, float8, text) IS
	'transition function of bloom_agg(value, capacity, fpp, layout): adds to the filter in place';
COMMENT ON FUNCTION @extschema@.bloom_agg_datasized_final(internal) IS
	'final function of bloom_agg(value): sizes the filter for the distinct count';
COMMENT ON FUNCTION @extschema@.bloom_agg_fixed_final(internal) IS
	'final function of the fixed-shape bloom_agg forms';
COMMENT ON FUNCTION @extschema@.bloom_agg_combine(internal, internal) IS
	'combine function of bloom_agg (parallel aggregation)';
COMMENT ON FUNCTION @extschema@.bloom_agg_serialize(internal) IS
	'serial function of bloom_agg (parallel aggregation)';
COMMENT ON FUNCTION @extschema@.bloom_agg_deserialize(bytea, internal) IS
	'deserial function of bloom_agg (parallel aggregation)';

CREATE AGGREGATE @extschema@.bloom_agg(value anyelement) (
	SFUNC = @extschema@.bloom_agg_datasized_trans,
	STYPE = internal,
	SSPACE = 256,
	FINALFUNC = @extschema@.bloom_agg_datasized_final,
	COMBINEFUNC = @extschema@.bloom_agg_combine,
	SERIALFUNC = @extschema@.bloom_agg_serialize,
	DESERIALFUNC = @extschema@.bloom_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg(anyelement) IS
	'filter of all non-null values, sized to their distinct count for a false-positive probability of at most 0.01';

CREATE AGGREGATE @extschema@.bloom_agg(value anyelement, capacity bigint, fpp float8) (
	SFUNC = @extschema@.bloom_agg_fixed_trans,
	STYPE = internal,
	SSPACE = 1024,
	FINALFUNC = @extschema@.bloom_agg_fixed_final,
	COMBINEFUNC = @extschema@.bloom_agg_combine,
	SERIALFUNC = @extschema@.bloom_agg_serialize,
	DESERIALFUNC = @extschema@.bloom_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg(anyelement, bigint, float8) IS
	'filter of all non-null values with the shape of bloom_empty(capacity, fpp)';

CREATE AGGREGATE @extschema@.bloom_agg(value anyelement, capacity bigint, fpp float8, layout text) (
	SFUNC = @extschema@.bloom_agg_fixed_trans,
	STYPE = internal,
	SSPACE = 1024,
	FINALFUNC = @extschema@.bloom_agg_fixed_final,
	COMBINEFUNC = @extschema@.bloom_agg_combine,
	SERIALFUNC = @extschema@.bloom_agg_serialize,
	DESERIALFUNC = @extschema@.bloom_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg(anyelement, bigint, float8, text) IS
	'filter of all non-null values with the shape of bloom_empty(capacity, fpp, layout)';

-- Set-operation aggregates.  Their state is bloom_setop_state, not
-- internal, so that a distributed database can run them per shard (an
-- expanded object in memory, changed in place; see doc/aggregates.md).
CREATE FUNCTION @extschema@.bloom_union_agg_step(@extschema@.bloom_setop_state, @extschema@.bloom)
	RETURNS @extschema@.bloom_setop_state
	AS 'MODULE_PATHNAME', 'bloom_union_agg_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_intersect_agg_step(@extschema@.bloom_setop_state, @extschema@.bloom)
	RETURNS @extschema@.bloom_setop_state
	AS 'MODULE_PATHNAME', 'bloom_intersect_agg_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_union_state_combine(@extschema@.bloom_setop_state, @extschema@.bloom_setop_state)
	RETURNS @extschema@.bloom_setop_state
	AS 'MODULE_PATHNAME', 'bloom_union_state_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_intersect_state_combine(@extschema@.bloom_setop_state, @extschema@.bloom_setop_state)
	RETURNS @extschema@.bloom_setop_state
	AS 'MODULE_PATHNAME', 'bloom_intersect_state_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_setop_state_final(@extschema@.bloom_setop_state)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_setop_state_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloom_union_agg_step(@extschema@.bloom_setop_state, @extschema@.bloom) IS
	'transition function of bloom_union_agg: ORs in place';
COMMENT ON FUNCTION @extschema@.bloom_intersect_agg_step(@extschema@.bloom_setop_state, @extschema@.bloom) IS
	'transition function of bloom_intersect_agg: ANDs in place';
COMMENT ON FUNCTION @extschema@.bloom_union_state_combine(@extschema@.bloom_setop_state, @extschema@.bloom_setop_state) IS
	'combine function of bloom_union_agg (parallel and distributed aggregation)';
COMMENT ON FUNCTION @extschema@.bloom_intersect_state_combine(@extschema@.bloom_setop_state, @extschema@.bloom_setop_state) IS
	'combine function of bloom_intersect_agg (parallel and distributed aggregation)';
COMMENT ON FUNCTION @extschema@.bloom_setop_state_final(@extschema@.bloom_setop_state) IS
	'final function of bloom_union_agg and bloom_intersect_agg';

CREATE AGGREGATE @extschema@.bloom_union_agg(f @extschema@.bloom) (
	SFUNC = @extschema@.bloom_union_agg_step,
	STYPE = @extschema@.bloom_setop_state,
	SSPACE = 1024,
	FINALFUNC = @extschema@.bloom_setop_state_final,
	COMBINEFUNC = @extschema@.bloom_union_state_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_union_agg(@extschema@.bloom) IS
	'OR of all non-null filters (auto-sized filters of different sizes fold to the smallest)';

CREATE AGGREGATE @extschema@.bloom_intersect_agg(f @extschema@.bloom) (
	SFUNC = @extschema@.bloom_intersect_agg_step,
	STYPE = @extschema@.bloom_setop_state,
	SSPACE = 1024,
	FINALFUNC = @extschema@.bloom_setop_state_final,
	COMBINEFUNC = @extschema@.bloom_intersect_state_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_intersect_agg(@extschema@.bloom) IS
	'AND of all non-null filters (auto-sized filters of different sizes fold to the smallest)';

-- bloom_agg_hashed: bloom_agg over bloom_hash(value, 0) instead of
-- the values.  Its arguments have types a distributed database can check
-- on the shards and its state is bloom_agg_state, so Citus computes it
-- per shard and combines the partial states (doc/aggregates.md).
CREATE FUNCTION @extschema@.bloom_agg_hashed_trans(@extschema@.bloom_agg_state, bigint)
	RETURNS @extschema@.bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_hashed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_hashed_fixed_trans(@extschema@.bloom_agg_state, bigint, bigint, float8)
	RETURNS @extschema@.bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_hashed_fixed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_hashed_fixed_trans(@extschema@.bloom_agg_state, bigint, bigint, float8, text)
	RETURNS @extschema@.bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_hashed_fixed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_state_combine(@extschema@.bloom_agg_state, @extschema@.bloom_agg_state)
	RETURNS @extschema@.bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_state_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_hashed_final(@extschema@.bloom_agg_state)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_hashed_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_hashed_fixed_final(@extschema@.bloom_agg_state)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_hashed_fixed_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloom_agg_hashed_trans(@extschema@.bloom_agg_state, bigint) IS
	'transition function of bloom_agg_hashed(hash): collects distinct hashes';
COMMENT ON FUNCTION @extschema@.bloom_agg_hashed_fixed_trans(@extschema@.bloom_agg_state, bigint, bigint, float8) IS
	'transition function of bloom_agg_hashed(hash, capacity, fpp): adds to the filter in place';
COMMENT ON FUNCTION @extschema@.bloom_agg_hashed_fixed_trans(@extschema@.bloom_agg_state, bigint, bigint, float8, text) IS
	'transition function of bloom_agg_hashed(hash, capacity, fpp, layout): adds to the filter in place';
COMMENT ON FUNCTION @extschema@.bloom_agg_state_combine(@extschema@.bloom_agg_state, @extschema@.bloom_agg_state) IS
	'combine function of bloom_agg_hashed (parallel and distributed aggregation)';
COMMENT ON FUNCTION @extschema@.bloom_agg_hashed_final(@extschema@.bloom_agg_state) IS
	'final function of bloom_agg_hashed(hash): sizes the filter for the distinct count';
COMMENT ON FUNCTION @extschema@.bloom_agg_hashed_fixed_final(@extschema@.bloom_agg_state) IS
	'final function of the fixed-shape bloom_agg_hashed forms';

CREATE AGGREGATE @extschema@.bloom_agg_hashed(hash bigint) (
	SFUNC = @extschema@.bloom_agg_hashed_trans,
	STYPE = @extschema@.bloom_agg_state,
	SSPACE = 256,
	FINALFUNC = @extschema@.bloom_agg_hashed_final,
	COMBINEFUNC = @extschema@.bloom_agg_state_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg_hashed(bigint) IS
	'bloom_agg(value) over bloom_hash(value, 0): the same filter, computed per shard on a distributed database';

CREATE AGGREGATE @extschema@.bloom_agg_hashed(hash bigint, capacity bigint, fpp float8) (
	SFUNC = @extschema@.bloom_agg_hashed_fixed_trans,
	STYPE = @extschema@.bloom_agg_state,
	SSPACE = 1024,
	FINALFUNC = @extschema@.bloom_agg_hashed_fixed_final,
	COMBINEFUNC = @extschema@.bloom_agg_state_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg_hashed(bigint, bigint, float8) IS
	'bloom_agg(value, capacity, fpp) over bloom_hash(value, 0): the same filter, computed per shard on a distributed database';

CREATE AGGREGATE @extschema@.bloom_agg_hashed(hash bigint, capacity bigint, fpp float8, layout text) (
	SFUNC = @extschema@.bloom_agg_hashed_fixed_trans,
	STYPE = @extschema@.bloom_agg_state,
	SSPACE = 1024,
	FINALFUNC = @extschema@.bloom_agg_hashed_fixed_final,
	COMBINEFUNC = @extschema@.bloom_agg_state_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg_hashed(bigint, bigint, float8, text) IS
	'bloom_agg(value, capacity, fpp, layout) over bloom_hash(value, 0): the same filter, computed per shard on a distributed database';

-- What the fixed-shape bloom_agg_hashed forms give over no rows, the empty
-- filter of the shape: bloom_empty, but STABLE, so that a plan holds the
-- call rather than the filter (the planner folds IMMUTABLE calls of
-- constants into constants, as large as the filter).  The planner rewrite
-- on distributed tables writes COALESCE(bloom_agg_hashed(...), this), since
-- there the final function never sees the shape when no row came.
CREATE FUNCTION @extschema@.bloom_agg_hashed_empty(capacity bigint, fpp float8)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_agg_hashed_empty(bigint, float8) IS
	'bloom_agg_hashed(hash, capacity, fpp) over no rows: bloom_empty(capacity, fpp), computed when the statement runs';
CREATE FUNCTION @extschema@.bloom_agg_hashed_empty(capacity bigint, fpp float8, layout text)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_layout' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_agg_hashed_empty(bigint, float8, text) IS
	'bloom_agg_hashed(hash, capacity, fpp, layout) over no rows: bloom_empty(capacity, fpp, layout), computed when the statement runs';
