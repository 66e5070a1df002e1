-- bloomfilter 1.1 -> 1.2.  Stored filters are untouched (the formats do not
-- change).  bloom_union_agg, bloom_intersect_agg and multibloom_union_agg get
-- a transition state that is a SQL type (bloom_setop_state, and multibloom
-- itself) instead of internal, so that a distributed database (Citus) runs
-- them per shard and combines the partial states.  Afterwards the extension
-- has the same objects as a fresh 1.2 install (test/t/803_upgrade.pl).

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.2'" to load this file. \quit

-- ---- the state type of the bloom set-operation aggregates ----

CREATE TYPE @extschema@.bloom_setop_state;

CREATE FUNCTION @extschema@.bloom_setop_state_in(cstring) RETURNS @extschema@.bloom_setop_state
	AS 'MODULE_PATHNAME', 'bloom_setop_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_setop_state_out(@extschema@.bloom_setop_state) RETURNS cstring
	AS 'MODULE_PATHNAME', 'bloom_setop_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_setop_state_recv(internal) RETURNS @extschema@.bloom_setop_state
	AS 'MODULE_PATHNAME', 'bloom_setop_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_setop_state_send(@extschema@.bloom_setop_state) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloom_setop_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.bloom_setop_state (
	INPUT = @extschema@.bloom_setop_state_in,
	OUTPUT = @extschema@.bloom_setop_state_out,
	RECEIVE = @extschema@.bloom_setop_state_recv,
	SEND = @extschema@.bloom_setop_state_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE @extschema@.bloom_setop_state IS
	'partial state of bloom_union_agg and bloom_intersect_agg, as it travels between parallel workers and between the nodes of a distributed database';

-- ---- the new support functions ----

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
CREATE FUNCTION @extschema@.multibloom_union_agg_step(@extschema@.multibloom, @extschema@.multibloom)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_union_agg_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;

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
COMMENT ON FUNCTION @extschema@.multibloom_union_agg_step(@extschema@.multibloom, @extschema@.multibloom) IS
	'transition and combine function of multibloom_union_agg: unites in place';

-- ---- the aggregates take the new state, keeping their identity ----

-- ALTER AGGREGATE cannot change a state type, and DROP AGGREGATE would
-- take every view and function using the aggregate with it.  So each
-- aggregate is defined anew under a passing name, and its definition (the
-- pg_aggregate row and its dependencies on support functions and types)
-- moved onto the existing aggregate, which keeps its OID: stored views and
-- rules that call it go on working.  Touching its pg_proc row makes every
-- session replan statements that use it (cached plans name the old
-- support functions).
CREATE FUNCTION @extschema@.bloomfilter_1_2_take_definition(target pg_catalog.regprocedure,
															 source pg_catalog.regprocedure)
	RETURNS void LANGUAGE sql AS $$
	UPDATE pg_catalog.pg_aggregate t
	SET aggtransfn = s.aggtransfn, aggfinalfn = s.aggfinalfn, aggcombinefn = s.aggcombinefn,
	    aggserialfn = s.aggserialfn, aggdeserialfn = s.aggdeserialfn,
	    aggmtransfn = s.aggmtransfn, aggminvtransfn = s.aggminvtransfn,
	    aggmfinalfn = s.aggmfinalfn, aggfinalextra = s.aggfinalextra,
	    aggmfinalextra = s.aggmfinalextra, aggfinalmodify = s.aggfinalmodify,
	    aggmfinalmodify = s.aggmfinalmodify, aggsortop = s.aggsortop,
	    aggtranstype = s.aggtranstype, aggtransspace = s.aggtransspace,
	    aggmtranstype = s.aggmtranstype, aggmtransspace = s.aggmtransspace,
	    agginitval = s.agginitval, aggminitval = s.aggminitval
	FROM pg_catalog.pg_aggregate s
	WHERE t.aggfnoid = $1 AND s.aggfnoid = $2;
	DELETE FROM pg_catalog.pg_depend
	WHERE classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND objid = $1 AND deptype = 'n';
	UPDATE pg_catalog.pg_depend SET objid = $1
	WHERE classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND objid = $2 AND deptype = 'n';
	UPDATE pg_catalog.pg_proc SET proname = proname WHERE oid = $1;
$$;

CREATE AGGREGATE @extschema@.bloomfilter_1_2_union(f @extschema@.bloom) (
	SFUNC = @extschema@.bloom_union_agg_step,
	STYPE = @extschema@.bloom_setop_state,
	SSPACE = 1024,
	FINALFUNC = @extschema@.bloom_setop_state_final,
	COMBINEFUNC = @extschema@.bloom_union_state_combine,
	PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.bloomfilter_1_2_intersect(f @extschema@.bloom) (
	SFUNC = @extschema@.bloom_intersect_agg_step,
	STYPE = @extschema@.bloom_setop_state,
	SSPACE = 1024,
	FINALFUNC = @extschema@.bloom_setop_state_final,
	COMBINEFUNC = @extschema@.bloom_intersect_state_combine,
	PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.bloomfilter_1_2_multibloom_union(f @extschema@.multibloom) (
	SFUNC = @extschema@.multibloom_union_agg_step,
	STYPE = @extschema@.multibloom,
	COMBINEFUNC = @extschema@.multibloom_union_agg_step,
	PARALLEL = SAFE
);

SELECT @extschema@.bloomfilter_1_2_take_definition(
	'@extschema@.bloom_union_agg(@extschema@.bloom)',
	'@extschema@.bloomfilter_1_2_union(@extschema@.bloom)');
SELECT @extschema@.bloomfilter_1_2_take_definition(
	'@extschema@.bloom_intersect_agg(@extschema@.bloom)',
	'@extschema@.bloomfilter_1_2_intersect(@extschema@.bloom)');
SELECT @extschema@.bloomfilter_1_2_take_definition(
	'@extschema@.multibloom_union_agg(@extschema@.multibloom)',
	'@extschema@.bloomfilter_1_2_multibloom_union(@extschema@.multibloom)');

DROP AGGREGATE @extschema@.bloomfilter_1_2_union(@extschema@.bloom);
DROP AGGREGATE @extschema@.bloomfilter_1_2_intersect(@extschema@.bloom);
DROP AGGREGATE @extschema@.bloomfilter_1_2_multibloom_union(@extschema@.multibloom);
DROP FUNCTION @extschema@.bloomfilter_1_2_take_definition(pg_catalog.regprocedure, pg_catalog.regprocedure);

-- ---- the support functions of the internal states, now unused ----

DROP FUNCTION @extschema@.bloom_union_agg_trans(internal, @extschema@.bloom);
DROP FUNCTION @extschema@.bloom_intersect_agg_trans(internal, @extschema@.bloom);
DROP FUNCTION @extschema@.bloom_union_agg_combine(internal, internal);
DROP FUNCTION @extschema@.bloom_intersect_agg_combine(internal, internal);
DROP FUNCTION @extschema@.bloom_setop_agg_final(internal);
DROP FUNCTION @extschema@.bloom_setop_agg_serialize(internal);
DROP FUNCTION @extschema@.bloom_setop_agg_deserialize(bytea, internal);
DROP FUNCTION @extschema@.multibloom_union_agg_trans(internal, @extschema@.multibloom);
DROP FUNCTION @extschema@.multibloom_agg_final(internal);

COMMENT ON FUNCTION @extschema@.multibloom_agg_combine(internal, internal) IS
	'combine function of multibloom_agg_fixed';
COMMENT ON FUNCTION @extschema@.multibloom_agg_serialize(internal) IS
	'serial function of multibloom_agg_fixed';
COMMENT ON FUNCTION @extschema@.multibloom_agg_deserialize(bytea, internal) IS
	'deserial function of multibloom_agg_fixed';

-- ---- the hashed aggregates and their state types ----

-- ---- bloom_agg_state and multibloom_agg_state: the states of the hashed aggregates ----

-- The transition states of bloom_agg_hashed and multibloom_agg_hashed (and
-- its fixed-shape forms), types of their own so that Citus can run them
-- per shard and combine the partial states on the coordinator.  Their
-- binary form is a transport form between nodes, not for storage
-- (doc/format.md); the text form is its base64.  Both are checked in full
-- on input.
CREATE TYPE @extschema@.bloom_agg_state;

CREATE FUNCTION @extschema@.bloom_agg_state_in(cstring) RETURNS @extschema@.bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_state_out(@extschema@.bloom_agg_state) RETURNS cstring
	AS 'MODULE_PATHNAME', 'bloom_agg_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_state_recv(internal) RETURNS @extschema@.bloom_agg_state
	AS 'MODULE_PATHNAME', 'bloom_agg_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_state_send(@extschema@.bloom_agg_state) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloom_setop_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.bloom_agg_state (
	INPUT = @extschema@.bloom_agg_state_in,
	OUTPUT = @extschema@.bloom_agg_state_out,
	RECEIVE = @extschema@.bloom_agg_state_recv,
	SEND = @extschema@.bloom_agg_state_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE @extschema@.bloom_agg_state IS
	'partial state of bloom_agg_hashed, as it travels between parallel workers and between the nodes of a distributed database';

CREATE TYPE @extschema@.multibloom_agg_state;

CREATE FUNCTION @extschema@.multibloom_agg_state_in(cstring) RETURNS @extschema@.multibloom_agg_state
	AS 'MODULE_PATHNAME', 'multibloom_agg_state_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_state_out(@extschema@.multibloom_agg_state) RETURNS cstring
	AS 'MODULE_PATHNAME', 'multibloom_agg_state_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_state_recv(internal) RETURNS @extschema@.multibloom_agg_state
	AS 'MODULE_PATHNAME', 'multibloom_agg_state_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_state_send(@extschema@.multibloom_agg_state) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloom_setop_state_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.multibloom_agg_state (
	INPUT = @extschema@.multibloom_agg_state_in,
	OUTPUT = @extschema@.multibloom_agg_state_out,
	RECEIVE = @extschema@.multibloom_agg_state_recv,
	SEND = @extschema@.multibloom_agg_state_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE @extschema@.multibloom_agg_state IS
	'partial state of multibloom_agg_hashed and multibloom_agg_fixed_hashed, as it travels between parallel workers and between the nodes of a distributed database';

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

-- ---- the probe the automatic semijoin prefilter ships ----

-- bloom_contains for a value that crossed from another server: it probes
-- only where the value's type (with typmod), collation and encoding give
-- what the filter was built from, as declared by the foreign table that
-- fetched it, and passes every row elsewhere (src/semijoin.c,
-- doc/semijoin.md).  Its support function turns it into bloom_contains or
-- true where it is planned on a table, and gives bloom_contains' estimate.
CREATE FUNCTION @extschema@.bloom_contains_typed_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_contains_typed_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_contains_typed_support(internal) IS
	'planner support for bloom_contains_typed: decides once where it is planned (bloom_contains, or true), and bloom_contains'' selectivity';

CREATE FUNCTION @extschema@.bloom_contains_typed(f @extschema@.bloom, value anyelement,
		declared_type text, declared_collation text, declared_encoding text)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contains_typed' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@.bloom_contains_typed_support;
COMMENT ON FUNCTION @extschema@.bloom_contains_typed(@extschema@.bloom, anyelement, text, text, text) IS
	'bloom_contains(f, value) where value is what a server declaring it as declared_type (format_type''s name with the typmod, schema-qualified), declared_collation ('''' or a nondeterministic collation''s qualified name) and declared_encoding (its database encoding) sees; true where the value may differ';

-- bloom_hash gives the value hash of hash scheme 3, which new filters use:
-- bigint, timestamps and the other 64-bit types hashed in full beyond 32
-- bits (the C function is the same; its results change for those values).
COMMENT ON FUNCTION @extschema@.bloom_hash(anyelement, bigint) IS
	'64-bit value hash that a new filter with this seed uses for value (hash scheme 3): the extended hash of the type''s default hash operator class, except that bigint, timestamps and the other 64-bit types are hashed in full beyond 32 bits';

-- ---- foreign filters: Parquet, Guava and Spark (doc/interop.md) ----

CREATE FUNCTION @extschema@.bloom_import(data bytea, format text, options text DEFAULT '')
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_import' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_import(bytea, text, text) IS
	'filter written by another system, bit for bit: format ''parquet'' (split-block bitset), ''parquet_header'' (Thrift BloomFilterHeader and bitset), ''guava'' (BloomFilter.writeTo) or ''spark'' (sketch BloomFilter.writeTo); options (key=value, comma-separated): funnel, type, timestamp_unit, hash';

CREATE FUNCTION @extschema@.bloom_export(f @extschema@.bloom, format text)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloom_export' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_export(@extschema@.bloom, text) IS
	'the bytes another system reads back as this filter: format ''parquet'', ''parquet_header'', ''guava'' or ''spark''; the filter must be of that format''s layout';

CREATE FUNCTION @extschema@.bloom_empty(capacity bigint, fpp float8, layout text, options text)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_options' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty(bigint, float8, text, text) IS
	'empty filter of a foreign layout (''parquet'', ''guava'', ''guava32'', ''spark'', ''spark2''), sized as that system sizes, with options: funnel, type, timestamp_unit, hash, version, seed';

CREATE FUNCTION @extschema@.bloom_agg_foreign_trans(internal, anyelement, bigint, float8, text, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_foreign_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_agg_foreign_trans(internal, anyelement, bigint, float8, text, text) IS
	'transition function of bloom_agg(value, capacity, fpp, layout, options): adds the value''s foreign hash';
CREATE FUNCTION @extschema@.bloom_agg_foreign_final(internal)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_foreign_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_agg_foreign_final(internal) IS
	'final function of bloom_agg(value, capacity, fpp, layout, options)';

CREATE AGGREGATE @extschema@.bloom_agg(value anyelement, capacity bigint, fpp float8, layout text, options text) (
	SFUNC = @extschema@.bloom_agg_foreign_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.bloom_agg_foreign_final,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg(anyelement, bigint, float8, text, text) IS
	'filter of a foreign layout (''parquet'', ''guava'', ''guava32'', ''spark'', ''spark2'') holding every non-null value, hashed as the options say (funnel, type, timestamp_unit, hash, version, seed)';
