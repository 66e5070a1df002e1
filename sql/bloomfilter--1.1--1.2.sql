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
