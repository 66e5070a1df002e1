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
-- (doc/format.md); the text form is '~' and its seven-bit form (its base64
-- is read too).  Both are checked in full on input.
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

-- ---- managed summaries (extension/install/65_managed_summaries.sql) ----

-- bloomfilter: managed summaries (doc/summaries.md).  One filter per leaf
-- partition of a partitioned table, kept in the extension's own catalog:
-- bloom_summary_def (one row per summary), bloom_summary_part (one row per
-- leaf partition: its filter and whether it may be trusted) and
-- bloom_summary_delta (the keys of writers' statements, not yet merged).
-- Writers append delta rows; a merge or refresh folds them into the part
-- row.  The planner skips a leaf P for values V iff P's part row is trusted
-- and neither it nor any delta of P visible under the query's snapshot may
-- contain a value of V.

CREATE TABLE @extschema@.bloom_summary_def (
	summary_id  integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	parent      regclass NOT NULL,
	key_columns name[]   NOT NULL,
	capacity    bigint   NOT NULL,
	fpp         float8   NOT NULL,
	UNIQUE (parent, key_columns));
COMMENT ON TABLE @extschema@.bloom_summary_def IS
	'managed summaries: one row per summarised (partitioned table, key columns); bloom filters for one key column, multibloom filters for several';

CREATE TABLE @extschema@.bloom_summary_part (
	summary_id  integer  NOT NULL REFERENCES @extschema@.bloom_summary_def ON DELETE CASCADE,
	partition   regclass NOT NULL,
	filter      @extschema@.bloom,
	mfilter     @extschema@.multibloom,
	trusted     boolean  NOT NULL DEFAULT false,
	refreshed_at timestamptz,
	PRIMARY KEY (summary_id, partition));
COMMENT ON TABLE @extschema@.bloom_summary_part IS
	'managed summaries: the filter of each leaf partition; a partition whose row is missing or not trusted is never skipped';

CREATE TABLE @extschema@.bloom_summary_delta (
	summary_id  integer  NOT NULL,
	partition   regclass NOT NULL,
	filter      @extschema@.bloom,
	mfilter     @extschema@.multibloom,
	nkeys       bigint   NOT NULL,
	added_at    timestamptz NOT NULL DEFAULT now(),
	-- a marker (filter and mfilter NULL): the keys of its writer and of
	-- later ones are in the shared buffer of the server of this epoch
	-- (src/summaries/summary_buffer.c)
	buffer_epoch bigint);
CREATE INDEX ON @extschema@.bloom_summary_delta (summary_id, partition);
-- A partition's filter is rewritten by every merge: stored uncompressed
-- (a filter filling up does not compress, and compressing a sparse one
-- cost a merge more than writing it).
ALTER TABLE @extschema@.bloom_summary_part ALTER COLUMN filter SET STORAGE EXTERNAL,
	ALTER COLUMN mfilter SET STORAGE EXTERNAL;
COMMENT ON TABLE @extschema@.bloom_summary_delta IS
	'managed summaries: the new keys of writers'' statements, one row per statement and partition, until a merge or refresh folds them into bloom_summary_part';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.bloom_summary_def', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.bloom_summary_part', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.bloom_summary_delta', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.bloom_summary_def_summary_id_seq', '');

-- ---- the write path (src/summaries/summary_writer.c) ----

CREATE FUNCTION @extschema@.bloom_summary_collect() RETURNS trigger
	AS 'MODULE_PATHNAME', 'bloom_summary_collect' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.bloom_summary_collect() IS
	'row trigger of a managed summary (created by bloom_summary_create): collects the keys of the transaction''s new rows per leaf partition, written as one delta row per partition before commit';

CREATE FUNCTION @extschema@.bloom_summary_buffer_epoch() RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_summary_buffer_epoch_sql' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_summary_buffer_epoch() IS
	'the epoch of this server''s shared buffer of summary keys (NULL without one, or on a standby); markers of another epoch keep their partitions from being skipped until a refresh';
CREATE FUNCTION @extschema@.bloom_summary_buffered_keys(summary_id integer, leaf regclass) RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_summary_buffered_keys' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_summary_buffered_keys(integer, regclass) IS
	'the keys of a leaf partition the shared buffer holds that no merge has taken';
CREATE FUNCTION @extschema@.bloom_summary_unite_buffered(part @extschema@.bloom, summary_id integer, leaf regclass)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_summary_unite_buffered' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@.bloom_summary_unite_buffered(@extschema@.bloom, integer, regclass) IS
	'a merge''s step: the partition''s filter with the keys the shared buffer holds for it, which leave the buffer once this transaction has committed (the caller writes the result to the partition''s row)';

CREATE FUNCTION @extschema@.bloom_summary_buffer_discard(summary_id integer, leaf regclass) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_summary_buffer_discard' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@.bloom_summary_buffer_discard(integer, regclass) IS
	'the keys the shared buffer holds for a leaf that leaves the summary leave the buffer once this transaction has committed (nothing for a caller that may not change the leaf)';

CREATE FUNCTION @extschema@.bloom_summary_may_manage(relation regclass) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_summary_may_manage' LANGUAGE C STABLE STRICT;
COMMENT ON FUNCTION @extschema@.bloom_summary_may_manage(regclass) IS
	'whether the current user has the privileges of the relation''s owner (row security of the summary catalog)';

CREATE FUNCTION @extschema@.bloom_summary_unite(part @extschema@.bloom, delta @extschema@.bloom)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_summary_unite' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_summary_unite(@extschema@.bloom, @extschema@.bloom) IS
	'part | delta, where delta may be the explicit list of a few keys and part a filter of a fixed shape (the list''s values are added to part, which keeps its shape); otherwise bloom_union';
CREATE FUNCTION @extschema@.bloom_summary_unite_trans(internal, @extschema@.bloom)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_summary_unite_trans' LANGUAGE C IMMUTABLE;
COMMENT ON FUNCTION @extschema@.bloom_summary_unite_trans(internal, @extschema@.bloom) IS
	'transition function of bloom_summary_unite_agg: unites in place';
CREATE FUNCTION @extschema@.bloom_summary_unite_final(internal)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_summary_unite_final' LANGUAGE C IMMUTABLE;
COMMENT ON FUNCTION @extschema@.bloom_summary_unite_final(internal) IS
	'final function of bloom_summary_unite_agg';
CREATE AGGREGATE @extschema@.bloom_summary_unite_agg(@extschema@.bloom) (
	SFUNC = @extschema@.bloom_summary_unite_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.bloom_summary_unite_final
);
COMMENT ON AGGREGATE @extschema@.bloom_summary_unite_agg(@extschema@.bloom) IS
	'bloom_summary_unite of the filters in order: a partition''s filter first (ORDER BY), then its deltas';

-- The name of a summary's row trigger (on the parent, cloned onto every leaf).
CREATE FUNCTION @extschema@.bloom_summary_trigger_name(summary_id integer) RETURNS name
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN pg_catalog.format('bloom_summary_%s', summary_id)::pg_catalog.name;

-- Whether writes into the leaf partition reach the summary: the summary's
-- trigger is there and fires always (also under session_replication_role =
-- replica and in logical replication's apply).  Foreign tables never.
CREATE FUNCTION @extschema@.bloom_summary_leaf_covered(summary_id integer, leaf regclass)
	RETURNS boolean LANGUAGE sql STABLE STRICT
BEGIN ATOMIC
	SELECT EXISTS (
		SELECT 1 FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
		WHERE t.tgrelid = leaf::oid AND c.relkind = 'r'
		  AND t.tgname = @extschema@.bloom_summary_trigger_name(summary_id)
		  AND t.tgenabled = 'A');
END;

-- The empty filter of a summary's shape.
CREATE FUNCTION @extschema@.bloom_summary_empty(summary_id integer,
		OUT filter @extschema@.bloom, OUT mfilter @extschema@.multibloom)
	LANGUAGE sql STABLE STRICT
BEGIN ATOMIC
	SELECT CASE WHEN pg_catalog.cardinality(d.key_columns) = 1
	            THEN @extschema@.bloom_empty(d.capacity, d.fpp) END,
	       CASE WHEN pg_catalog.cardinality(d.key_columns) > 1
	            THEN @extschema@.multibloom_empty(pg_catalog.cardinality(d.key_columns), d.capacity, d.fpp) END
	FROM @extschema@.bloom_summary_def d WHERE d.summary_id = bloom_summary_empty.summary_id;
END;

-- The aggregate that builds a partition's filter: bloom_agg(k, capacity,
-- fpp) or multibloom_agg_fixed(capacity, fpp, k1, k2, ...).
CREATE FUNCTION @extschema@.bloom_summary_agg_sql(summary_id integer) RETURNS text
	LANGUAGE sql STABLE STRICT
BEGIN ATOMIC
	SELECT CASE WHEN pg_catalog.cardinality(d.key_columns) = 1
	  THEN pg_catalog.format('%I.bloom_agg(%I, %s::bigint, %s::float8)', n.nspname,
	                         d.key_columns[1], d.capacity, d.fpp)
	  ELSE pg_catalog.format('%I.multibloom_agg_fixed(%s::bigint, %s::float8, %s)', n.nspname,
	                         d.capacity, d.fpp,
	                         (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(k), ', ' ORDER BY o)
	                          FROM pg_catalog.unnest(d.key_columns) WITH ORDINALITY AS u(k, o)))
	  END
	FROM @extschema@.bloom_summary_def d,
	     pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
	WHERE d.summary_id = bloom_summary_agg_sql.summary_id AND e.extname = 'bloomfilter';
END;

-- The advisory lock of one partition of one summary, taken by merges
-- (non-blocking) and refreshes (blocking).
CREATE FUNCTION @extschema@.bloom_summary_lock_key(summary_id integer, leaf regclass) RETURNS bigint
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	RETURN (summary_id::bigint OPERATOR(pg_catalog.<<) 32) OPERATOR(pg_catalog.|) leaf::oid::bigint;

-- Unites the partition's deltas visible to this statement's snapshot into
-- its filter and deletes exactly those deltas, in one statement.  The
-- caller holds the partition's advisory lock.  Leaves trusted as it is.
-- Returns the number of deltas merged.
CREATE FUNCTION @extschema@.bloom_summary_merge_locked(summary_id integer, leaf regclass) RETURNS bigint
	LANGUAGE sql VOLATILE STRICT
BEGIN ATOMIC
	WITH d AS (
		DELETE FROM @extschema@.bloom_summary_delta x
		WHERE x.summary_id = bloom_summary_merge_locked.summary_id AND x.partition = leaf
		  AND x.buffer_epoch IS NULL
		RETURNING x.filter, x.mfilter),
	u AS (
		UPDATE @extschema@.bloom_summary_part p
		SET filter = CASE WHEN p.mfilter IS NULL THEN
		                @extschema@.bloom_summary_unite_buffered(
		                    (SELECT @extschema@.bloom_summary_unite_agg(f.f ORDER BY f.o)
		                     FROM (SELECT p.filter, 0 UNION ALL SELECT d.filter, 1 FROM d) AS f(f, o)),
		                    p.summary_id, p.partition) END,
		    mfilter = CASE WHEN p.mfilter IS NOT NULL THEN
		                (SELECT @extschema@.multibloom_union_agg(f.f)
		                 FROM (SELECT p.mfilter UNION ALL SELECT d.mfilter FROM d) AS f(f)) END
		WHERE p.summary_id = bloom_summary_merge_locked.summary_id AND p.partition = leaf
		  AND (EXISTS (SELECT 1 FROM d)
		       OR EXISTS (SELECT 1 FROM @extschema@.bloom_summary_delta m
		                  WHERE m.summary_id = p.summary_id AND m.partition = p.partition
		                    AND m.buffer_epoch = @extschema@.bloom_summary_buffer_epoch()))
		RETURNING 1)
	SELECT pg_catalog.count(*) FROM d WHERE EXISTS (SELECT 1 FROM u);
END;

-- Unites exactly the listed deltas of the partition (those of them still
-- there and visible to this statement) into its filter and deletes them,
-- in one statement: a writer's merge of the deltas it counted
-- (src/summaries/summary_writer.c), found by TID so that the statement
-- reads no other entry of the delta table's index.  A TID reused by a
-- newer delta of the same partition in the meantime is merged as well:
-- what is deleted is always what is united.  The caller holds the
-- partition's advisory lock.  Returns the number of deltas merged.
CREATE FUNCTION @extschema@.bloom_summary_merge_listed(summary_id integer, leaf regclass, deltas tid[])
	RETURNS bigint
	LANGUAGE sql VOLATILE STRICT
BEGIN ATOMIC
	WITH d AS (
		DELETE FROM @extschema@.bloom_summary_delta x
		WHERE x.ctid = ANY (deltas)
		  AND x.summary_id = bloom_summary_merge_listed.summary_id AND x.partition = leaf
		  AND x.buffer_epoch IS NULL
		RETURNING x.filter, x.mfilter),
	u AS (
		UPDATE @extschema@.bloom_summary_part p
		SET filter = CASE WHEN p.mfilter IS NULL THEN
		                @extschema@.bloom_summary_unite_buffered(
		                    (SELECT @extschema@.bloom_summary_unite_agg(f.f ORDER BY f.o)
		                     FROM (SELECT p.filter, 0 UNION ALL SELECT d.filter, 1 FROM d) AS f(f, o)),
		                    p.summary_id, p.partition) END,
		    mfilter = CASE WHEN p.mfilter IS NOT NULL THEN
		                (SELECT @extschema@.multibloom_union_agg(f.f)
		                 FROM (SELECT p.mfilter UNION ALL SELECT d.mfilter FROM d) AS f(f)) END
		WHERE p.summary_id = bloom_summary_merge_listed.summary_id AND p.partition = leaf
		  AND (EXISTS (SELECT 1 FROM d)
		       OR EXISTS (SELECT 1 FROM @extschema@.bloom_summary_delta m
		                  WHERE m.summary_id = p.summary_id AND m.partition = p.partition
		                    AND m.buffer_epoch = @extschema@.bloom_summary_buffer_epoch()))
		RETURNING 1)
	SELECT pg_catalog.count(*) FROM d WHERE EXISTS (SELECT 1 FROM u);
END;

-- The merge check of writers in SQL (writers themselves check in C,
-- src/summaries/summary_writer.c): merges the partition's
-- deltas when they pass bloomfilter.summary_merge_deltas or
-- bloomfilter.summary_merge_keys, if no one else is merging or refreshing
-- it (pg_catalog.pg_try_advisory_xact_lock: a writer never waits here).
CREATE FUNCTION @extschema@.bloom_summary_merge_due(summary_id integer, leaf regclass) RETURNS boolean
	LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	ndeltas bigint;
	nkeys bigint;
BEGIN
	SELECT count(*), coalesce(sum(x.nkeys), 0) INTO ndeltas, nkeys
	FROM @extschema@.bloom_summary_delta x
	WHERE x.summary_id = bloom_summary_merge_due.summary_id AND x.partition = leaf
	  AND x.buffer_epoch IS NULL;
	IF ndeltas < 2 OR (ndeltas < current_setting('bloomfilter.summary_merge_deltas')::bigint
	                   AND nkeys < current_setting('bloomfilter.summary_merge_keys')::bigint) THEN
		RETURN false;
	END IF;
	IF NOT pg_catalog.pg_try_advisory_xact_lock(@extschema@.bloom_summary_lock_key(summary_id, leaf)) THEN
		RETURN false;
	END IF;
	PERFORM @extschema@.bloom_summary_merge_locked(summary_id, leaf);
	RETURN true;
END
$$;

-- ---- the summary's trigger and its partitions ----

-- Creates the summary's row trigger on the parent if it is missing, and
-- makes it fire always on the parent and on every leaf (ALTER TABLE takes
-- a SHARE ROW EXCLUSIVE lock: only when something must change).
CREATE FUNCTION @extschema@.bloom_summary_ensure_trigger(summary_id integer) RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	d @extschema@.bloom_summary_def;
	tg name := @extschema@.bloom_summary_trigger_name(summary_id);
	rel regclass;
BEGIN
	SELECT * INTO STRICT d FROM @extschema@.bloom_summary_def x
	WHERE x.summary_id = bloom_summary_ensure_trigger.summary_id;
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t WHERE t.tgrelid = d.parent AND t.tgname = tg) THEN
		EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE ON %s FOR EACH ROW '
		               'EXECUTE FUNCTION @extschema@.bloom_summary_collect(%L, %s)',
		               tg, d.parent, summary_id,
		               (SELECT string_agg(quote_literal(k), ', ' ORDER BY o)
		                FROM unnest(d.key_columns) WITH ORDINALITY AS u(k, o)));
	END IF;
	-- one ALTER on the parent, which recurses to every partition: an ALTER
	-- per leaf would reconcile the summary once per leaf (the event
	-- trigger), quadratic in the number of partitions
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t
	           WHERE t.tgname = tg AND t.tgenabled <> 'A'
	             AND t.tgrelid IN (SELECT p.relid FROM pg_catalog.pg_partition_tree(d.parent) p)) THEN
		EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER %I', d.parent, tg);
	END IF;
	-- whatever the recursion did not reach
	FOR rel IN
		SELECT t.tgrelid::regclass FROM pg_catalog.pg_trigger t
		WHERE t.tgname = tg AND t.tgenabled <> 'A'
		  AND t.tgrelid IN (SELECT p.relid FROM pg_catalog.pg_partition_tree(d.parent) p)
		ORDER BY t.tgrelid
	LOOP
		EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER %I', rel, tg);
	END LOOP;
END
$$;

-- Recomputes one leaf's filter from its rows under one snapshot, deletes
-- the deltas that snapshot sees (rows and deltas of a writer commit
-- together: the filter holds the keys of every row it did not see
-- deltas of) and marks it trusted if writes reach the summary.
CREATE FUNCTION @extschema@.bloom_summary_refresh_leaf(summary_id integer, leaf regclass) RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	e record;
	foreign_leaf boolean;
BEGIN
	SELECT c.relkind = 'f' INTO foreign_leaf FROM pg_catalog.pg_class c WHERE c.oid = leaf;
	e := @extschema@.bloom_summary_empty(summary_id);
	IF foreign_leaf THEN
		-- writers on the remote server bypass any trigger here
		INSERT INTO @extschema@.bloom_summary_part AS p (summary_id, partition, filter, mfilter, trusted)
		VALUES (summary_id, leaf, e.filter, e.mfilter, false)
		ON CONFLICT ON CONSTRAINT bloom_summary_part_pkey DO UPDATE SET trusted = false;
		RETURN;
	END IF;
	-- a concurrent ALTER TABLE ... DISABLE TRIGGER waits until this commits
	EXECUTE format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE', leaf);
	-- merges of this partition wait too (they only try the lock)
	PERFORM pg_catalog.pg_advisory_xact_lock(@extschema@.bloom_summary_lock_key(summary_id, leaf));
	-- The filter of the rows this snapshot sees, and the keys of the shared
	-- buffer (src/summaries/summary_buffer.c), which hold those of writers
	-- it does not see; the markers of this server's epoch stay for them
	-- (the union retires those it may), those of another epoch, whose keys
	-- a restart lost, are what this repairs.

	EXECUTE format(
		'WITH d AS (DELETE FROM @extschema@.bloom_summary_delta x '
		'           WHERE x.summary_id OPERATOR(pg_catalog.=) $1 AND x.partition OPERATOR(pg_catalog.=) $2 '
		'             AND (x.buffer_epoch IS NULL '
		'                  OR x.buffer_epoch IS DISTINCT FROM @extschema@.bloom_summary_buffer_epoch())), '
		'     f AS (SELECT %s AS f FROM %s) '
		'INSERT INTO @extschema@.bloom_summary_part AS p (summary_id, partition, %s, trusted, refreshed_at) '
		'SELECT $1, $2, %s, $5, pg_catalog.now() FROM f '
		'ON CONFLICT ON CONSTRAINT bloom_summary_part_pkey DO UPDATE '
		'SET filter = EXCLUDED.filter, mfilter = EXCLUDED.mfilter, trusted = EXCLUDED.trusted, '
		'    refreshed_at = EXCLUDED.refreshed_at',
		@extschema@.bloom_summary_agg_sql(summary_id), leaf,
		CASE WHEN e.filter IS NOT NULL THEN 'filter' ELSE 'mfilter' END,
		CASE WHEN e.filter IS NOT NULL
		     THEN '@extschema@.bloom_summary_unite_buffered(COALESCE(f.f, $3), $1, $2)'
		     ELSE 'COALESCE(f.f, $4)' END)
	USING summary_id, leaf, e.filter, e.mfilter,
	      -- a filter of the rows row security lets the caller see may
	      -- miss keys: not trusted
	      @extschema@.bloom_summary_leaf_covered(summary_id, leaf)
	      AND NOT pg_catalog.row_security_active(leaf);
END
$$;

-- Brings a summary's part rows in line with the parent's leaves: rows of
-- partitions no longer there go, a new leaf is summarised at once (its
-- DDL holds a lock no writer gets past), a leaf whose writes no longer
-- reach the summary (trigger disabled, not always enabled, dropped)
-- becomes untrusted until the next refresh.  Run by the event triggers.
CREATE FUNCTION @extschema@.bloom_summary_reconcile(summary_id integer) RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	d @extschema@.bloom_summary_def;
	leaves oid[];
	leaf regclass;
BEGIN
	SELECT * INTO d FROM @extschema@.bloom_summary_def x
	WHERE x.summary_id = bloom_summary_reconcile.summary_id;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	leaves := ARRAY(SELECT p.relid FROM pg_catalog.pg_partition_tree(d.parent) p WHERE p.isleaf);
	-- rows of leaves no longer in the tree: anti-joins, not <> ALL, which
	-- compares every row with every leaf (DDL on each of 10,000 partitions
	-- reconciles the summary each time)
	DELETE FROM @extschema@.bloom_summary_delta x
	WHERE x.summary_id = d.summary_id AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(leaves) AS l(relid) WHERE l.relid = x.partition::oid);
	PERFORM @extschema@.bloom_summary_buffer_discard(x.summary_id, x.partition)
	FROM @extschema@.bloom_summary_part x
	WHERE x.summary_id = d.summary_id AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(leaves) AS l(relid) WHERE l.relid = x.partition::oid);
	DELETE FROM @extschema@.bloom_summary_part x
	WHERE x.summary_id = d.summary_id AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(leaves) AS l(relid) WHERE l.relid = x.partition::oid);
	UPDATE @extschema@.bloom_summary_part x SET trusted = false
	WHERE x.summary_id = d.summary_id AND x.trusted
	  AND NOT @extschema@.bloom_summary_leaf_covered(d.summary_id, x.partition);
	FOR leaf IN
		SELECT l.relid::regclass FROM unnest(leaves) AS l(relid)
		WHERE NOT EXISTS (SELECT 1 FROM @extschema@.bloom_summary_part x
		                  WHERE x.summary_id = d.summary_id AND x.partition = l.relid)
		ORDER BY l.relid
	LOOP
		PERFORM @extschema@.bloom_summary_refresh_leaf(d.summary_id, leaf);
	END LOOP;
END
$$;

-- ---- event triggers: partitions created, attached, detached, dropped;
-- ---- the summary's trigger disabled or dropped ----

-- ddl_command_end: reconciles the summaries of every table the command
-- touched (or whose trigger it touched), and of their ancestors.
CREATE FUNCTION @extschema@.bloom_summary_ddl_end() RETURNS event_trigger
	LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
	sid integer;
BEGIN
	-- a role without USAGE on the extension's schema cannot have created a
	-- summary: its DDL must not fail here
	IF NOT pg_catalog.has_schema_privilege('@extschema@'::pg_catalog.regnamespace::pg_catalog.oid, 'USAGE') THEN
		RETURN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM @extschema@.bloom_summary_def) THEN
		RETURN;
	END IF;
	FOR sid IN
		WITH touched AS (
			SELECT c.objid AS relid FROM pg_catalog.pg_event_trigger_ddl_commands() c
			WHERE c.classid = 'pg_catalog.pg_class'::regclass
			UNION
			SELECT t.tgrelid FROM pg_catalog.pg_event_trigger_ddl_commands() c
			JOIN pg_catalog.pg_trigger t ON t.oid = c.objid
			WHERE c.classid = 'pg_catalog.pg_trigger'::regclass)
		SELECT DISTINCT d.summary_id FROM @extschema@.bloom_summary_def d
		WHERE d.parent::oid IN (SELECT relid FROM touched
		                        UNION SELECT a.relid FROM touched,
		                              LATERAL pg_catalog.pg_partition_ancestors(touched.relid) a)
		ORDER BY 1
	LOOP
		PERFORM @extschema@.bloom_summary_reconcile(sid);
	END LOOP;
	-- the catalog itself altered (pg_restore --disable-triggers re-enables
	-- its triggers after loading it): untrust every partition whose
	-- writes do not reach its summary; nothing else (the load may not be
	-- over)
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger_ddl_commands() c
	           WHERE c.classid = 'pg_catalog.pg_class'::regclass
	             AND c.objid IN ('@extschema@.bloom_summary_def'::regclass,
	                             '@extschema@.bloom_summary_part'::regclass,
	                             '@extschema@.bloom_summary_delta'::regclass)) THEN
		UPDATE @extschema@.bloom_summary_part x SET trusted = false
		WHERE x.trusted AND NOT @extschema@.bloom_summary_leaf_covered(x.summary_id, x.partition);
	END IF;
END
$$;

-- sql_drop: a dropped parent drops its summaries; a dropped partition its
-- rows; a dropped trigger (DROP TRIGGER on the parent) untrusts the leaves.
CREATE FUNCTION @extschema@.bloom_summary_sql_drop() RETURNS event_trigger
	LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
	sid integer;
BEGIN
	-- a role without USAGE on the extension's schema cannot have created a
	-- summary: its DDL must not fail here
	IF NOT pg_catalog.has_schema_privilege('@extschema@'::pg_catalog.regnamespace::pg_catalog.oid, 'USAGE') THEN
		RETURN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM @extschema@.bloom_summary_def) THEN
		RETURN;
	END IF;
	-- buffered keys of dropped leaves, and of every leaf of a dropped parent
	PERFORM @extschema@.bloom_summary_buffer_discard(x.summary_id, x.partition)
	FROM @extschema@.bloom_summary_part x
	WHERE x.partition::oid IN (SELECT o.objid FROM pg_catalog.pg_event_trigger_dropped_objects() o
	                           WHERE o.classid = 'pg_catalog.pg_class'::regclass AND o.objsubid = 0)
	   OR x.summary_id IN (SELECT d.summary_id FROM @extschema@.bloom_summary_def d
	                       WHERE d.parent::oid IN (SELECT o.objid FROM pg_catalog.pg_event_trigger_dropped_objects() o
	                                               WHERE o.classid = 'pg_catalog.pg_class'::regclass AND o.objsubid = 0));
	DELETE FROM @extschema@.bloom_summary_def d
	WHERE d.parent::oid IN (SELECT o.objid FROM pg_catalog.pg_event_trigger_dropped_objects() o
	                        WHERE o.classid = 'pg_catalog.pg_class'::regclass AND o.objsubid = 0);
	DELETE FROM @extschema@.bloom_summary_delta x
	WHERE x.partition::oid IN (SELECT o.objid FROM pg_catalog.pg_event_trigger_dropped_objects() o
	                           WHERE o.classid = 'pg_catalog.pg_class'::regclass AND o.objsubid = 0);
	DELETE FROM @extschema@.bloom_summary_part x
	WHERE x.partition::oid IN (SELECT o.objid FROM pg_catalog.pg_event_trigger_dropped_objects() o
	                           WHERE o.classid = 'pg_catalog.pg_class'::regclass AND o.objsubid = 0);
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger_dropped_objects() o
	           WHERE o.classid = 'pg_catalog.pg_trigger'::regclass
	              OR (o.classid = 'pg_catalog.pg_class'::regclass AND o.objsubid <> 0)) THEN
		FOR sid IN SELECT d.summary_id FROM @extschema@.bloom_summary_def d ORDER BY 1 LOOP
			PERFORM @extschema@.bloom_summary_reconcile(sid);
		END LOOP;
	END IF;
END
$$;

CREATE EVENT TRIGGER bloom_summary_ddl_end ON ddl_command_end
	EXECUTE FUNCTION @extschema@.bloom_summary_ddl_end();
CREATE EVENT TRIGGER bloom_summary_sql_drop ON sql_drop
	EXECUTE FUNCTION @extschema@.bloom_summary_sql_drop();
-- also under session_replication_role = replica (pg_restore, replication tools)
ALTER EVENT TRIGGER bloom_summary_ddl_end ENABLE ALWAYS;
ALTER EVENT TRIGGER bloom_summary_sql_drop ENABLE ALWAYS;

-- ---- the user's functions ----

-- The summary of (parent, key columns), checked: the caller must own the parent.
CREATE FUNCTION @extschema@.bloom_summary_find(parent regclass, key_columns name[]) RETURNS integer
	LANGUAGE plpgsql STABLE STRICT
AS $$
DECLARE
	sid integer;
BEGIN
	IF NOT @extschema@.bloom_summary_may_manage(parent) THEN
		RAISE EXCEPTION 'must be owner of table %', parent
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	SELECT d.summary_id INTO sid FROM @extschema@.bloom_summary_def d
	WHERE d.parent = bloom_summary_find.parent AND d.key_columns = bloom_summary_find.key_columns;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'table % has no bloom summary of (%)', parent, array_to_string(key_columns, ', ')
			USING ERRCODE = 'undefined_object',
			      HINT = 'SELECT * FROM bloom_summaries lists the summaries.';
	END IF;
	RETURN sid;
END
$$;

CREATE FUNCTION @extschema@.bloom_summary_create(parent regclass, key_columns name[],
		capacity bigint, fpp float8 DEFAULT 0.01) RETURNS integer
	LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	sid integer;
	k name;
	citus_table boolean;
BEGIN
	IF NOT @extschema@.bloom_summary_may_manage(parent) THEN
		RAISE EXCEPTION 'must be owner of table %', parent
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = parent) <> 'p' THEN
		RAISE EXCEPTION '% is not a partitioned table', parent
			USING ERRCODE = 'wrong_object_type',
			      HINT = 'A managed summary keeps one filter per leaf partition of a partitioned table.';
	END IF;
	-- Citus keeps a distributed or reference table's rows in its shards:
	-- the summary's trigger would not fire there, nor could a refresh on
	-- this server see a shard's writers
	IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
		EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)'
			INTO citus_table USING parent;
		IF citus_table THEN
			RAISE EXCEPTION 'bloom summaries of Citus tables are not supported: % is a Citus table', parent
				USING ERRCODE = 'feature_not_supported',
				      HINT = 'A managed summary needs the rows of each partition on this server; Citus keeps them in shards on its nodes.';
		END IF;
	END IF;
	IF cardinality(key_columns) IS NULL OR cardinality(key_columns) < 1 OR cardinality(key_columns) > 32 THEN
		RAISE EXCEPTION 'a bloom summary has 1 to 32 key columns, not %', coalesce(cardinality(key_columns), 0)
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	FOREACH k IN ARRAY key_columns LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = parent AND a.attname = k
		               AND a.attnum > 0 AND NOT a.attisdropped) THEN
			RAISE EXCEPTION 'column "%" of table % does not exist', k, parent
				USING ERRCODE = 'undefined_column';
		END IF;
	END LOOP;
	IF (SELECT count(DISTINCT u) FROM unnest(key_columns) u) <> cardinality(key_columns) THEN
		RAISE EXCEPTION 'the key columns of a bloom summary must differ'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- the shape is checked by the filter of that shape
	PERFORM @extschema@.bloom_empty(capacity, fpp);
	IF EXISTS (SELECT 1 FROM @extschema@.bloom_summary_def d
	           WHERE d.parent = bloom_summary_create.parent AND d.key_columns = bloom_summary_create.key_columns) THEN
		RAISE EXCEPTION 'table % already has a bloom summary of (%)', parent, array_to_string(key_columns, ', ')
			USING ERRCODE = 'duplicate_object';
	END IF;
	INSERT INTO @extschema@.bloom_summary_def (parent, key_columns, capacity, fpp)
	VALUES (parent, key_columns, capacity, fpp) RETURNING summary_id INTO sid;
	-- the trigger first: rows written from now on reach the summary, rows
	-- before are counted by the refresh of each leaf
	PERFORM @extschema@.bloom_summary_ensure_trigger(sid);
	PERFORM @extschema@.bloom_summary_reconcile(sid);
	PERFORM @extschema@.bloom_summary_refresh_leaf(sid, p.relid)
	FROM pg_catalog.pg_partition_tree(parent) p WHERE p.isleaf;
	IF NOT @extschema@.bloom_summary_pruning_active()
	   AND pg_catalog.current_setting('bloomfilter.enable_summary_pruning', true) IS DISTINCT FROM 'off' THEN
		RAISE NOTICE 'queries on % may read every partition: the library bloomfilter is not preloaded, and a session prunes only once it is loaded', parent
			USING HINT = 'Add this line to postgresql.conf and restart the server: shared_preload_libraries = ''bloomfilter''';
	END IF;
	RETURN sid;
END
$$;
COMMENT ON FUNCTION @extschema@.bloom_summary_create(regclass, name[], bigint, float8) IS
	'creates the managed summary of a partitioned table''s key columns (one: bloom filters; several: multibloom filters of the shape capacity, fpp), one filter per leaf partition, kept current by writers; returns its id';

CREATE FUNCTION @extschema@.bloom_summary_create(parent regclass, key_column name,
		capacity bigint, fpp float8 DEFAULT 0.01) RETURNS integer
	LANGUAGE sql VOLATILE STRICT
	RETURN @extschema@.bloom_summary_create(parent, ARRAY[key_column], capacity, fpp);
COMMENT ON FUNCTION @extschema@.bloom_summary_create(regclass, name, bigint, float8) IS
	'creates the managed summary of a partitioned table''s key column: one bloom filter of the shape bloom_empty(capacity, fpp) per leaf partition, kept current by writers; returns its id';

CREATE FUNCTION @extschema@.bloom_summary_drop(parent regclass, key_columns name[]) RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	sid integer := @extschema@.bloom_summary_find(parent, key_columns);
BEGIN
	-- the catalog rows first: dropping the trigger reconciles what is left
	PERFORM @extschema@.bloom_summary_buffer_discard(x.summary_id, x.partition)
	FROM @extschema@.bloom_summary_part x WHERE x.summary_id = sid;
	DELETE FROM @extschema@.bloom_summary_delta x WHERE x.summary_id = sid;
	DELETE FROM @extschema@.bloom_summary_def d WHERE d.summary_id = sid;
	EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', @extschema@.bloom_summary_trigger_name(sid), parent);
END
$$;
CREATE FUNCTION @extschema@.bloom_summary_drop(parent regclass, key_column name) RETURNS void
	LANGUAGE sql VOLATILE STRICT
	RETURN @extschema@.bloom_summary_drop(parent, ARRAY[key_column]);
COMMENT ON FUNCTION @extschema@.bloom_summary_drop(regclass, name[]) IS
	'drops the managed summary of (parent, key columns): its trigger and its filters';
COMMENT ON FUNCTION @extschema@.bloom_summary_drop(regclass, name) IS
	'drops the managed summary of (parent, key column): its trigger and its filters';

CREATE FUNCTION @extschema@.bloom_summary_refresh(parent regclass, key_columns name[],
		partition regclass DEFAULT NULL) RETURNS bigint
	LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
	sid integer;
	leaf regclass;
	n bigint := 0;
BEGIN
	IF parent IS NULL OR key_columns IS NULL THEN
		RAISE EXCEPTION 'bloom_summary_refresh: parent and key columns must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	sid := @extschema@.bloom_summary_find(parent, key_columns);
	IF partition IS NOT NULL AND NOT EXISTS (
			SELECT 1 FROM pg_catalog.pg_partition_tree(parent) p WHERE p.relid = partition AND p.isleaf) THEN
		RAISE EXCEPTION '% is not a leaf partition of %', partition, parent
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	PERFORM @extschema@.bloom_summary_ensure_trigger(sid);
	PERFORM @extschema@.bloom_summary_reconcile(sid);
	FOR leaf IN
		SELECT p.relid FROM pg_catalog.pg_partition_tree(parent) p
		WHERE p.isleaf AND (bloom_summary_refresh.partition IS NULL OR p.relid = bloom_summary_refresh.partition)
		ORDER BY p.relid
	LOOP
		PERFORM @extschema@.bloom_summary_refresh_leaf(sid, leaf);
		n := n + 1;
	END LOOP;
	RETURN n;
END
$$;
CREATE FUNCTION @extschema@.bloom_summary_refresh(parent regclass, key_column name,
		partition regclass DEFAULT NULL) RETURNS bigint
	LANGUAGE sql VOLATILE
	RETURN @extschema@.bloom_summary_refresh(parent, ARRAY[key_column], partition);
COMMENT ON FUNCTION @extschema@.bloom_summary_refresh(regclass, name[], regclass) IS
	'recomputes the managed summary''s filters (of one leaf partition, or all) from the rows, drops their merged deltas, re-enables the summary''s trigger, and trusts the filters again; returns the number of partitions';
COMMENT ON FUNCTION @extschema@.bloom_summary_refresh(regclass, name, regclass) IS
	'recomputes the managed summary''s filters (of one leaf partition, or all) from the rows, drops their merged deltas, re-enables the summary''s trigger, and trusts the filters again; returns the number of partitions';

CREATE FUNCTION @extschema@.bloom_summary_merge(parent regclass DEFAULT NULL, key_columns name[] DEFAULT NULL)
	RETURNS bigint
	LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
	r record;
	n bigint := 0;
BEGIN
	IF parent IS NOT NULL AND NOT @extschema@.bloom_summary_may_manage(parent) THEN
		RAISE EXCEPTION 'must be owner of table %', parent
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	FOR r IN
		SELECT x.summary_id, x.partition,
		       pg_catalog.bool_or(x.buffer_epoch IS DISTINCT FROM epoch.e AND x.buffer_epoch IS NOT NULL) AS stale
		FROM @extschema@.bloom_summary_delta x JOIN @extschema@.bloom_summary_def d USING (summary_id),
		     @extschema@.bloom_summary_buffer_epoch() AS epoch(e)
		WHERE (bloom_summary_merge.parent IS NULL OR d.parent = bloom_summary_merge.parent)
		  AND (bloom_summary_merge.key_columns IS NULL OR d.key_columns = bloom_summary_merge.key_columns)
		  AND @extschema@.bloom_summary_may_manage(d.parent)
		GROUP BY 1, 2
		ORDER BY 1, 2
	LOOP
		IF r.stale AND NOT pg_catalog.pg_is_in_recovery() THEN
			-- markers of another epoch: keys a restart took from the shared
			-- buffer; the rows have them
			PERFORM @extschema@.bloom_summary_refresh_leaf(r.summary_id, r.partition);
		-- a partition being merged or refreshed by someone else is skipped
		ELSIF pg_catalog.pg_try_advisory_xact_lock(@extschema@.bloom_summary_lock_key(r.summary_id, r.partition)) THEN
			n := n + @extschema@.bloom_summary_merge_locked(r.summary_id, r.partition);
		END IF;
	END LOOP;
	RETURN n;
END
$$;
CREATE FUNCTION @extschema@.bloom_summary_merge(parent regclass, key_column name) RETURNS bigint
	LANGUAGE sql VOLATILE STRICT
	RETURN @extschema@.bloom_summary_merge(parent, ARRAY[key_column]);
COMMENT ON FUNCTION @extschema@.bloom_summary_merge(regclass, name[]) IS
	'maintenance (cron, pg_cron): merges the pending deltas of the managed summaries (of parent, of its key columns, or all the caller owns) into their filters, skipping partitions another session is merging or refreshing; returns the number of deltas merged';
COMMENT ON FUNCTION @extschema@.bloom_summary_merge(regclass, name) IS
	'maintenance: merges the pending deltas of the managed summary of (parent, key column) into its filters; returns the number of deltas merged';

-- Whether markers of another server's epoch (a restart, a standby, a
-- restored dump) say the partition's shared-buffer keys are lost here: it
-- is not skipped until a refresh (bloom_summary_merge() refreshes it).
CREATE FUNCTION @extschema@.bloom_summary_markers_stale(summary_id integer, leaf regclass)
	RETURNS boolean LANGUAGE sql STABLE STRICT
BEGIN ATOMIC
	SELECT EXISTS (SELECT 1 FROM @extschema@.bloom_summary_delta x
	               WHERE x.summary_id = bloom_summary_markers_stale.summary_id AND x.partition = leaf
	                 AND x.buffer_epoch IS DISTINCT FROM @extschema@.bloom_summary_buffer_epoch()
	                 AND x.buffer_epoch IS NOT NULL);
END;

-- Pruning needs the planner hook before a statement is planned: only a
-- library loaded at the session's start (shared_preload_libraries, or
-- session_preload_libraries) is there for every statement.
CREATE FUNCTION @extschema@.bloom_summary_pruning_active() RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_summary_pruning_active' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_summary_pruning_active() IS
	'whether this session''s queries are pruned by managed summaries: the library was preloaded (shared_preload_libraries = ''bloomfilter'') and bloomfilter.enable_summary_pruning is on';

CREATE VIEW @extschema@.bloom_summaries AS
	SELECT pg_catalog.format('%s(%s)', d.parent,
	           pg_catalog.array_to_string(d.key_columns, ', ')) AS summary,
	       d.summary_id, d.parent, d.key_columns, d.capacity, d.fpp,
	       (SELECT pg_catalog.count(*) FROM @extschema@.bloom_summary_part p
	        WHERE p.summary_id OPERATOR(pg_catalog.=) d.summary_id) AS partitions,
	       (SELECT pg_catalog.count(*) FROM @extschema@.bloom_summary_part p
	        WHERE p.summary_id OPERATOR(pg_catalog.=) d.summary_id AND p.trusted
	          AND NOT @extschema@.bloom_summary_markers_stale(p.summary_id, p.partition)) AS trusted_partitions,
	       (SELECT pg_catalog.count(*) FROM @extschema@.bloom_summary_part p
	        WHERE p.summary_id OPERATOR(pg_catalog.=) d.summary_id
	          AND (NOT p.trusted OR @extschema@.bloom_summary_markers_stale(p.summary_id, p.partition))) AS untrusted_partitions,
	       (SELECT COALESCE(pg_catalog.sum(pg_catalog.pg_column_size(p.filter)
	                OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(p.mfilter), 0)), 0)
	        FROM @extschema@.bloom_summary_part p
	        WHERE p.summary_id OPERATOR(pg_catalog.=) d.summary_id)::bigint AS bytes,
	       (SELECT pg_catalog.count(*) FROM @extschema@.bloom_summary_delta x
	        WHERE x.summary_id OPERATOR(pg_catalog.=) d.summary_id AND x.buffer_epoch IS NULL) AS pending_deltas,
	       (SELECT COALESCE(pg_catalog.sum(x.nkeys), 0) FROM @extschema@.bloom_summary_delta x
	        WHERE x.summary_id OPERATOR(pg_catalog.=) d.summary_id)::bigint AS pending_keys,
	       (SELECT COALESCE(pg_catalog.sum(pg_catalog.pg_column_size(x.filter)
	                OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(x.mfilter), 0)), 0)
	        FROM @extschema@.bloom_summary_delta x
	        WHERE x.summary_id OPERATOR(pg_catalog.=) d.summary_id)::bigint AS pending_bytes,
	       (SELECT pg_catalog.min(p.refreshed_at) FROM @extschema@.bloom_summary_part p
	        WHERE p.summary_id OPERATOR(pg_catalog.=) d.summary_id) AS oldest_refresh,
	       (SELECT pg_catalog.max(p.refreshed_at) FROM @extschema@.bloom_summary_part p
	        WHERE p.summary_id OPERATOR(pg_catalog.=) d.summary_id) AS last_refresh,
	       (SELECT COALESCE(pg_catalog.sum(@extschema@.bloom_summary_buffered_keys(p.summary_id, p.partition)), 0)
	        FROM @extschema@.bloom_summary_part p
	        WHERE p.summary_id OPERATOR(pg_catalog.=) d.summary_id)::bigint AS buffered_keys,
	       @extschema@.bloom_summary_pruning_active() AS pruning_active
	FROM @extschema@.bloom_summary_def d
	WHERE pg_catalog.has_table_privilege(d.parent, 'SELECT');
COMMENT ON VIEW @extschema@.bloom_summaries IS
	'the managed summaries of the tables the user may read: partitions (trusted: pruned when the filters rule a key out; untrusted: never pruned until the next refresh), filter bytes, pending deltas (rows, keys, bytes), refresh times, keys in the shared buffer, whether this session prunes';
GRANT SELECT ON @extschema@.bloom_summaries TO PUBLIC;


-- ---- who may change what ----
-- Every function runs as its caller.  The catalog is open to all through
-- row security: a summary's rows may be changed by the owner of its
-- partitioned table, and a partition's rows also by the owner of that
-- partition (whose DDL, such as DISABLE TRIGGER, must be able to untrust
-- them); filters may be read by whoever may read the partitioned table or
-- owns the partition.  Writers' deltas are written by the row trigger as
-- the catalog's owner (src/summaries/summary_writer.c), so writers need
-- no privilege here.
GRANT SELECT, INSERT, UPDATE, DELETE ON @extschema@.bloom_summary_def,
	@extschema@.bloom_summary_part, @extschema@.bloom_summary_delta TO PUBLIC;
GRANT USAGE ON SEQUENCE @extschema@.bloom_summary_def_summary_id_seq TO PUBLIC;
ALTER TABLE @extschema@.bloom_summary_def ENABLE ROW LEVEL SECURITY;
ALTER TABLE @extschema@.bloom_summary_part ENABLE ROW LEVEL SECURITY;
ALTER TABLE @extschema@.bloom_summary_delta ENABLE ROW LEVEL SECURITY;
CREATE POLICY bloom_summary_def_read ON @extschema@.bloom_summary_def FOR SELECT
	USING (true);
CREATE POLICY bloom_summary_def_owner ON @extschema@.bloom_summary_def FOR ALL
	USING (@extschema@.bloom_summary_may_manage(parent))
	WITH CHECK (@extschema@.bloom_summary_may_manage(parent));
CREATE FUNCTION @extschema@.bloom_summary_may_manage(summary_id integer, partition regclass)
	RETURNS boolean LANGUAGE sql STABLE STRICT
BEGIN ATOMIC
	SELECT @extschema@.bloom_summary_may_manage(partition)
	    OR COALESCE((SELECT @extschema@.bloom_summary_may_manage(d.parent)
	                 FROM @extschema@.bloom_summary_def d
	                 WHERE d.summary_id OPERATOR(pg_catalog.=) bloom_summary_may_manage.summary_id), false);
END;
COMMENT ON FUNCTION @extschema@.bloom_summary_may_manage(integer, regclass) IS
	'whether the current user owns the summary''s partitioned table or the partition (row security of the summary catalog)';
CREATE FUNCTION @extschema@.bloom_summary_may_read(summary_id integer, partition regclass)
	RETURNS boolean LANGUAGE sql STABLE STRICT
BEGIN ATOMIC
	SELECT @extschema@.bloom_summary_may_manage(partition)
	    OR COALESCE((SELECT pg_catalog.has_table_privilege(d.parent, 'SELECT')
	                 FROM @extschema@.bloom_summary_def d
	                 WHERE d.summary_id OPERATOR(pg_catalog.=) bloom_summary_may_read.summary_id), false);
END;
COMMENT ON FUNCTION @extschema@.bloom_summary_may_read(integer, regclass) IS
	'whether the current user may read the summary''s partitioned table or owns the partition (row security of the summary catalog)';
CREATE POLICY bloom_summary_part_read ON @extschema@.bloom_summary_part FOR SELECT
	USING (@extschema@.bloom_summary_may_read(summary_id, partition));
CREATE POLICY bloom_summary_part_owner ON @extschema@.bloom_summary_part FOR ALL
	USING (@extschema@.bloom_summary_may_manage(summary_id, partition))
	WITH CHECK (@extschema@.bloom_summary_may_manage(summary_id, partition));
CREATE POLICY bloom_summary_delta_read ON @extschema@.bloom_summary_delta FOR SELECT
	USING (@extschema@.bloom_summary_may_read(summary_id, partition));
CREATE POLICY bloom_summary_delta_owner ON @extschema@.bloom_summary_delta FOR ALL
	USING (@extschema@.bloom_summary_may_manage(summary_id, partition))
	WITH CHECK (@extschema@.bloom_summary_may_manage(summary_id, partition));
-- ---- the composite-key probe of the automatic semijoin prefilter ----


-- The one value a filter of key tuples holds per tuple: a 64-bit hash of
-- the values in order (each by its type's default hash opclass, integers
-- of any width alike), the same on every server.  NULL if any value is.
CREATE FUNCTION @extschema@.bloom_tuple_hash(VARIADIC "any") RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_tuple_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_tuple_hash("any") IS
	'64-bit hash of a key tuple (the values in order), which bloom_agg collects into a filter of tuples; NULL if any value is NULL';

-- bloom_contains(f, bloom_tuple_hash(values)) for values that crossed from
-- another server: it probes only where every value's type, typmod and
-- encoding give what the filter was built from, as declared by the foreign
-- table that fetched them, and passes every row elsewhere.  Its support
-- function turns it into that plain probe or true where it is planned.
CREATE FUNCTION @extschema@.bloom_contains_tuple_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_contains_tuple_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_contains_tuple_support(internal) IS
	'planner support for bloom_contains_tuple: decides once where it is planned (bloom_contains of the tuple''s hash, or true)';

CREATE FUNCTION @extschema@.bloom_contains_tuple(f @extschema@.bloom, declared_types text[],
		declared_encoding text, VARIADIC "any")
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contains_tuple' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@.bloom_contains_tuple_support;
COMMENT ON FUNCTION @extschema@.bloom_contains_tuple(@extschema@.bloom, text[], text, "any") IS
	'bloom_contains(f, bloom_tuple_hash(values)) where the values are what a server declaring them as declared_types (format_type''s names with the typmod, schema-qualified) in a database of declared_encoding sees; true where a value may differ';
-- ---- the column check of the semijoin prefilter's expression keys ----


-- True where every column given has the type the sender declares it as
-- (the typed probe's rule, per column): the remote side of an expression
-- key probes only then.  Its values are not read; its support function
-- decides once where it is planned (true or false).
CREATE FUNCTION @extschema@.bloom_columns_agree_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_columns_agree_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_columns_agree_support(internal) IS
	'planner support for bloom_columns_agree: decides once where it is planned (true or false), and a selectivity of 1';

CREATE FUNCTION @extschema@.bloom_columns_agree(declared_types text[], declared_encoding text,
		VARIADIC "any")
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_columns_agree' LANGUAGE C IMMUTABLE PARALLEL SAFE
	SUPPORT @extschema@.bloom_columns_agree_support;
COMMENT ON FUNCTION @extschema@.bloom_columns_agree(text[], text, "any") IS
	'true where every column is what a server declaring it as declared_types (format_type''s names with the typmod, schema-qualified) in a database of declared_encoding sees; the values are not read';

-- The value unchanged.  The prefilter calls it as an explicit cast around
-- each column of a shipped expression key, so that postgres_fdw writes the
-- column's declared type into the remote SQL; it is never sent itself.
CREATE FUNCTION @extschema@.bloom_declared_value(anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'bloom_declared_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_declared_value(anyelement) IS
	'the value unchanged: the semijoin prefilter''s explicit cast of a column to its declared type';
-- ---- interop filters: Parquet, Guava and Spark (doc/interop.md) ----

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

CREATE FUNCTION @extschema@.bloom_agg_interop_trans(internal, anyelement, bigint, float8, text, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_interop_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_agg_interop_trans(internal, anyelement, bigint, float8, text, text) IS
	'transition function of bloom_agg(value, capacity, fpp, layout, options): adds the value''s interop hash';
CREATE FUNCTION @extschema@.bloom_agg_interop_final(internal)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_interop_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_agg_interop_final(internal) IS
	'final function of bloom_agg(value, capacity, fpp, layout, options)';

CREATE AGGREGATE @extschema@.bloom_agg(value anyelement, capacity bigint, fpp float8, layout text, options text) (
	SFUNC = @extschema@.bloom_agg_interop_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.bloom_agg_interop_final,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg(anyelement, bigint, float8, text, text) IS
	'filter of a foreign layout (''parquet'', ''guava'', ''guava32'', ''spark'', ''spark2'') holding every non-null value, hashed as the options say (funnel, type, timestamp_unit, hash, version, seed)';

-- ---- the binary route of the hashed aggregates' states through Citus ----
-- (extension/install/45_citus_transfer.sql)

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
