-- bloomfilter: the types bloom and multibloom, their text and binary I/O,
-- and casts to and from the binary format (doc/format.md, doc/multibloom.md).
--
-- The install script is this file and the other pieces of extension/install/,
-- concatenated in the order of their numbers; each object is created once,
-- in its final form, in the piece of its family.  Every reference to an
-- object of the extension is qualified with @extschema@, and built-in
-- functions (estimators, calls in function bodies) with pg_catalog, so the
-- script does the same under any search_path and in any schema (CREATE
-- EXTENSION bloomfilter SCHEMA s).

\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

-- ---- bloom ----

CREATE TYPE @extschema@.bloom;

CREATE FUNCTION @extschema@.bloom_in(cstring) RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_out(@extschema@.bloom) RETURNS cstring
	AS 'MODULE_PATHNAME', 'bloom_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_recv(internal) RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_send(@extschema@.bloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloom_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.bloom (
	INPUT = @extschema@.bloom_in,
	OUTPUT = @extschema@.bloom_out,
	RECEIVE = @extschema@.bloom_recv,
	SEND = @extschema@.bloom_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE @extschema@.bloom IS
	'Bloom filter: a compact set of hashed values answering "surely absent" or "maybe present"';

-- Casts to and from the binary format, for clients without the type.
CREATE FUNCTION @extschema@.bloom_to_bytea(@extschema@.bloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloom_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_from_bytea(bytea) RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.bloom AS bytea)
	WITH FUNCTION @extschema@.bloom_to_bytea(@extschema@.bloom);
CREATE CAST (bytea AS @extschema@.bloom)
	WITH FUNCTION @extschema@.bloom_from_bytea(bytea);
COMMENT ON FUNCTION @extschema@.bloom_to_bytea(@extschema@.bloom) IS
	'binary format of a bloom filter (the bytes of binary send)';
COMMENT ON FUNCTION @extschema@.bloom_from_bytea(bytea) IS
	'bloom filter from its binary format; every field is validated';

-- ---- multibloom ----

CREATE TYPE @extschema@.multibloom;

CREATE FUNCTION @extschema@.multibloom_in(cstring) RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_out(@extschema@.multibloom) RETURNS cstring
	AS 'MODULE_PATHNAME', 'multibloom_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_recv(internal) RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_send(@extschema@.multibloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.multibloom (
	INPUT = @extschema@.multibloom_in,
	OUTPUT = @extschema@.multibloom_out,
	RECEIVE = @extschema@.multibloom_recv,
	SEND = @extschema@.multibloom_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE @extschema@.multibloom IS
	'multi-attribute Bloom filter: a bloom filter per attribute and a whole-row verification filter, probed on whole rows or any subset of attributes';

CREATE FUNCTION @extschema@.multibloom_to_bytea(@extschema@.multibloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_from_bytea(bytea) RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.multibloom AS bytea)
	WITH FUNCTION @extschema@.multibloom_to_bytea(@extschema@.multibloom);
CREATE CAST (bytea AS @extschema@.multibloom)
	WITH FUNCTION @extschema@.multibloom_from_bytea(bytea);
COMMENT ON FUNCTION @extschema@.multibloom_to_bytea(@extschema@.multibloom) IS
	'binary format of a multibloom (the bytes of binary send)';
COMMENT ON FUNCTION @extschema@.multibloom_from_bytea(bytea) IS
	'multibloom from its binary format; every field and every embedded bloom header is validated';

-- ---- bloom_setop_state: the state of bloom_union_agg and bloom_intersect_agg ----

-- A type of its own, not internal, so that the aggregates can run where
-- the data lives: Citus computes a partial state per shard and combines
-- them on the coordinator (doc/aggregates.md).  Its text form is '~' and
-- the seven-bit form of its binary form, the serialized state (its base64
-- is read too); both are checked in full on input.
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
