-- bloomfilter: the multibloom aggregates.  multibloom_agg (sized to the
-- data), multibloom_agg_fixed (of a fixed shape) and multibloom_union_agg,
-- all parallel: combine, serial and deserial functions.  See
-- doc/multibloom.md.

-- ---- multibloom_agg: sized to the data ----

-- The state collects distinct rows of hashes (bounded by work_mem, spilling
-- to temporary files); the final function sizes every part.
CREATE FUNCTION @extschema@.multibloom_agg_datasized_trans(internal, VARIADIC "any")
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_datasized_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_datasized_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_datasized_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_datasized_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_agg_datasized_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_datasized_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_datasized_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_datasized_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_datasized_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_datasized_trans(internal, "any") IS
	'transition function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_datasized_combine(internal, internal) IS
	'combine function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_datasized_serialize(internal) IS
	'serial function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_datasized_deserialize(bytea, internal) IS
	'deserial function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_datasized_final(internal) IS
	'final function of multibloom_agg: sizes every part for its own distinct count';

CREATE AGGREGATE @extschema@.multibloom_agg(VARIADIC "any") (
	SFUNC = @extschema@.multibloom_agg_datasized_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_datasized_final,
	COMBINEFUNC = @extschema@.multibloom_agg_datasized_combine,
	SERIALFUNC = @extschema@.multibloom_agg_datasized_serialize,
	DESERIALFUNC = @extschema@.multibloom_agg_datasized_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg("any") IS
	'filter of all rows, every part sized for its own distinct count at fpp 0.01 (attributes: distinct values; verification: distinct complete rows)';

-- ---- multibloom_agg_fixed and multibloom_union_agg ----

-- The state is a multibloom (internal); partial states travel in the
-- binary format, so they run in parallel with the serial result.
CREATE FUNCTION @extschema@.multibloom_agg_fixed_trans(internal, capacity bigint, fpp float8, VARIADIC "any")
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_fixed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_agg_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- Over no rows multibloom_agg_fixed returns an empty filter of the call's
-- constant shape, so it has its own final function.
CREATE FUNCTION @extschema@.multibloom_agg_fixed_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_fixed_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_fixed_trans(internal, bigint, float8, "any") IS
	'transition function of multibloom_agg_fixed';
COMMENT ON FUNCTION @extschema@.multibloom_agg_combine(internal, internal) IS
	'combine function of multibloom_agg_fixed';
COMMENT ON FUNCTION @extschema@.multibloom_agg_serialize(internal) IS
	'serial function of multibloom_agg_fixed';
COMMENT ON FUNCTION @extschema@.multibloom_agg_deserialize(bytea, internal) IS
	'deserial function of multibloom_agg_fixed';
COMMENT ON FUNCTION @extschema@.multibloom_agg_fixed_final(internal) IS
	'final function of multibloom_agg_fixed';

-- Not an overload of multibloom_agg(VARIADIC "any"): a call with a bigint
-- and a float8 column first would silently pick it.
CREATE AGGREGATE @extschema@.multibloom_agg_fixed(capacity bigint, fpp float8, VARIADIC "any") (
	SFUNC = @extschema@.multibloom_agg_fixed_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_fixed_final,
	COMBINEFUNC = @extschema@.multibloom_agg_combine,
	SERIALFUNC = @extschema@.multibloom_agg_serialize,
	DESERIALFUNC = @extschema@.multibloom_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg_fixed(bigint, float8, "any") IS
	'filter of all rows with the shape of multibloom_empty(number of values, capacity, fpp), so results of different partitions unite';

-- The name of multibloom_agg_fixed in version 1.0.
CREATE AGGREGATE @extschema@.multibloom_agg_sized(capacity bigint, fpp float8, VARIADIC "any") (
	SFUNC = @extschema@.multibloom_agg_fixed_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_fixed_final,
	COMBINEFUNC = @extschema@.multibloom_agg_combine,
	SERIALFUNC = @extschema@.multibloom_agg_serialize,
	DESERIALFUNC = @extschema@.multibloom_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg_sized(bigint, float8, "any") IS
	'deprecated: the former name of multibloom_agg_fixed, which it equals; use multibloom_agg_fixed';

-- The state is the filter itself, united in place (no final function), so
-- that a distributed database can run it per shard and combine the
-- partial filters (doc/aggregates.md).
CREATE FUNCTION @extschema@.multibloom_union_agg_step(@extschema@.multibloom, @extschema@.multibloom)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_union_agg_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_union_agg_step(@extschema@.multibloom, @extschema@.multibloom) IS
	'transition and combine function of multibloom_union_agg: unites in place';

CREATE AGGREGATE @extschema@.multibloom_union_agg(f @extschema@.multibloom) (
	SFUNC = @extschema@.multibloom_union_agg_step,
	STYPE = @extschema@.multibloom,
	COMBINEFUNC = @extschema@.multibloom_union_agg_step,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_union_agg(@extschema@.multibloom) IS
	'union of all non-null filters (all of the same shape)';

-- ---- the hashed multibloom aggregates ----

-- multibloom_agg and multibloom_agg_fixed over rows given as the array of
-- their attributes' hashes, element i bloom_hash(attribute i, i)
-- (counting from 1; NULL for a NULL attribute).  Their arguments have
-- types a distributed database can check on the shards and their state is
-- multibloom_agg_state, so Citus computes them per shard and combines the
-- partial states (doc/aggregates.md).
CREATE FUNCTION @extschema@.multibloom_agg_hashed_trans(@extschema@.multibloom_agg_state, bigint[])
	RETURNS @extschema@.multibloom_agg_state
	AS 'MODULE_PATHNAME', 'multibloom_agg_hashed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_fixed_hashed_trans(@extschema@.multibloom_agg_state, bigint, float8, bigint[])
	RETURNS @extschema@.multibloom_agg_state
	AS 'MODULE_PATHNAME', 'multibloom_agg_fixed_hashed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_state_combine(@extschema@.multibloom_agg_state, @extschema@.multibloom_agg_state)
	RETURNS @extschema@.multibloom_agg_state
	AS 'MODULE_PATHNAME', 'multibloom_agg_state_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_hashed_final(@extschema@.multibloom_agg_state)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_hashed_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_fixed_hashed_final(@extschema@.multibloom_agg_state)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_fixed_hashed_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.multibloom_agg_hashed_trans(@extschema@.multibloom_agg_state, bigint[]) IS
	'transition function of multibloom_agg_hashed';
COMMENT ON FUNCTION @extschema@.multibloom_agg_fixed_hashed_trans(@extschema@.multibloom_agg_state, bigint, float8, bigint[]) IS
	'transition function of multibloom_agg_fixed_hashed';
COMMENT ON FUNCTION @extschema@.multibloom_agg_state_combine(@extschema@.multibloom_agg_state, @extschema@.multibloom_agg_state) IS
	'combine function of the hashed multibloom aggregates (parallel and distributed aggregation)';
COMMENT ON FUNCTION @extschema@.multibloom_agg_hashed_final(@extschema@.multibloom_agg_state) IS
	'final function of multibloom_agg_hashed: sizes every part for its own distinct count';
COMMENT ON FUNCTION @extschema@.multibloom_agg_fixed_hashed_final(@extschema@.multibloom_agg_state) IS
	'final function of multibloom_agg_fixed_hashed';

CREATE AGGREGATE @extschema@.multibloom_agg_hashed(hashes bigint[]) (
	SFUNC = @extschema@.multibloom_agg_hashed_trans,
	STYPE = @extschema@.multibloom_agg_state,
	FINALFUNC = @extschema@.multibloom_agg_hashed_final,
	COMBINEFUNC = @extschema@.multibloom_agg_state_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg_hashed(bigint[]) IS
	'multibloom_agg over rows given as their attributes'' hashes (bloom_hash(attribute i, i)): the same filter, computed per shard on a distributed database';

CREATE AGGREGATE @extschema@.multibloom_agg_fixed_hashed(capacity bigint, fpp float8, hashes bigint[]) (
	SFUNC = @extschema@.multibloom_agg_fixed_hashed_trans,
	STYPE = @extschema@.multibloom_agg_state,
	FINALFUNC = @extschema@.multibloom_agg_fixed_hashed_final,
	COMBINEFUNC = @extschema@.multibloom_agg_state_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg_fixed_hashed(bigint, float8, bigint[]) IS
	'multibloom_agg_fixed over rows given as their attributes'' hashes (bloom_hash(attribute i, i)): the same filter, computed per shard on a distributed database';

-- The twin of multibloom_agg_sized, the name of multibloom_agg_fixed in 1.0.
CREATE AGGREGATE @extschema@.multibloom_agg_sized_hashed(capacity bigint, fpp float8, hashes bigint[]) (
	SFUNC = @extschema@.multibloom_agg_fixed_hashed_trans,
	STYPE = @extschema@.multibloom_agg_state,
	FINALFUNC = @extschema@.multibloom_agg_fixed_hashed_final,
	COMBINEFUNC = @extschema@.multibloom_agg_state_combine,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg_sized_hashed(bigint, float8, bigint[]) IS
	'deprecated: the twin of multibloom_agg_sized, equal to multibloom_agg_fixed_hashed; use multibloom_agg_fixed_hashed';

-- What the hashed forms give over no rows: multibloom_empty for the fixed
-- shape, and the data-sized form's empty filter; STABLE, so that a plan
-- holds the call rather than the filter (see bloom_agg_hashed_empty).
CREATE FUNCTION @extschema@.multibloom_agg_hashed_empty(nattrs integer, capacity bigint, fpp float8)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_empty' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_hashed_empty(integer, bigint, float8) IS
	'multibloom_agg_fixed_hashed(capacity, fpp, hashes) over no rows of nattrs hashes: multibloom_empty(nattrs, capacity, fpp), computed when the statement runs';
CREATE FUNCTION @extschema@.multibloom_agg_hashed_empty(nattrs integer)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_hashed_empty_datasized' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_hashed_empty(integer) IS
	'multibloom_agg_hashed(hashes) over no rows of nattrs hashes: the empty data-sized filter multibloom_agg gives over no rows';
