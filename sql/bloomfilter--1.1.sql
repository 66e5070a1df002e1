-- bloomfilter: the types bloom and multibloom, their text and binary I/O,
-- and casts to and from the binary format (doc/format.md, doc/multibloom.md).
--
-- The install script is this file and the other pieces of sql/install/,
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
-- bloomfilter: functions and operators of the bloom type: constructors
-- (every layout), adding, membership with its planner estimates, set
-- operations, statistics and the value hash.

-- ---- constructors ----

CREATE FUNCTION @extschema@.bloom_empty(capacity bigint, fpp float8 DEFAULT 0.01)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty(bigint, float8) IS
	'empty classic filter sized for capacity distinct values at false-positive probability fpp';

CREATE FUNCTION @extschema@.bloom_empty(capacity bigint, fpp float8, layout text)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_layout' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty(bigint, float8, text) IS
	'empty filter of the given layout sized for capacity distinct values at false-positive probability fpp';

CREATE FUNCTION @extschema@.bloom_empty_with(nbits bigint, nhashes integer)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_with' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty_with(bigint, integer) IS
	'empty classic filter of nbits bits and nhashes hash functions';

-- The 'matrix' layout (M-BMBF of Yang & Huang, doc/matrix.md) with the
-- paper's parameters; bloom_empty(capacity, fpp, 'matrix') sizes one from a
-- capacity.
CREATE FUNCTION @extschema@.bloom_empty_matrix(
	"rows" integer, row_bits bigint, nhashes integer, locators integer)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_matrix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty_matrix(integer, bigint, integer, integer) IS
	'empty matrix (M-BMBF) filter: rows x row_bits bits, nhashes bits per value, locators candidate rows per value (1 <= locators <= rows, groups as even as possible); ties go to the emptier row';

CREATE FUNCTION @extschema@.bloom_empty_matrix(
	"rows" integer, row_bits bigint, nhashes integer, locators integer, ties text)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_matrix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty_matrix(integer, bigint, integer, integer, text) IS
	'empty matrix (M-BMBF) filter with a tie rule: ''emptier'' (the default, rows fill together) or ''first'' (the paper''s Table 1: groups fill one after another)';

-- ---- adding values (NULLs are never members) ----

CREATE FUNCTION @extschema@.bloom_add(f @extschema@.bloom, value anyelement)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_add(@extschema@.bloom, anyelement) IS
	'filter with value added; a NULL value leaves it unchanged';

CREATE FUNCTION @extschema@.bloom_add_all(f @extschema@.bloom, "values" anyarray)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_add_all' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_add_all(@extschema@.bloom, anyarray) IS
	'filter with every non-null element of the array added';

-- ---- membership ----

-- Planner estimates for probes (src/bloom_support.c): the support function
-- of bloom_contains and bloom_contained_by, and the restriction estimator
-- of their operators.
CREATE FUNCTION @extschema@.bloom_contains_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_contains_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_contains_support(internal) IS
	'planner support for bloom_contains: selectivity from the filter''s cardinality and fpp and the column''s distinct values';

CREATE FUNCTION @extschema@.bloom_contains_restrict(internal, oid, internal, integer) RETURNS float8
	AS 'MODULE_PATHNAME', 'bloom_contains_restrict' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_contains_restrict(internal, oid, internal, integer) IS
	'restriction selectivity of the operators @> and <@ (the same estimate as bloom_contains)';

CREATE FUNCTION @extschema@.bloom_contains(f @extschema@.bloom, value anyelement)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@.bloom_contains_support;
COMMENT ON FUNCTION @extschema@.bloom_contains(@extschema@.bloom, anyelement) IS
	'false if value is surely not in the filter; true if it is or on a false positive';

CREATE FUNCTION @extschema@.bloom_contained_by(value anyelement, f @extschema@.bloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contained_by' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@.bloom_contains_support;
COMMENT ON FUNCTION @extschema@.bloom_contained_by(anyelement, @extschema@.bloom) IS
	'bloom_contains with the arguments swapped (operator <@)';

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloom, RIGHTARG = anyelement,
	FUNCTION = @extschema@.bloom_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.bloom_contains_restrict, JOIN = pg_catalog.contjoinsel
);
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = anyelement, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_contained_by,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.bloom_contains_restrict, JOIN = pg_catalog.contjoinsel
);

-- ---- set operations ----
-- Not STRICT: a NULL argument is ignored, as the aggregates skip NULL rows
-- (f(a, NULL) = a, f(NULL, NULL) = NULL).

CREATE FUNCTION @extschema@.bloom_union(a @extschema@.bloom, b @extschema@.bloom)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_union' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_union(@extschema@.bloom, @extschema@.bloom) IS
	'bitwise OR of two filters of the same shape: the union of their sets; a NULL argument is ignored';

CREATE FUNCTION @extschema@.bloom_intersect(a @extschema@.bloom, b @extschema@.bloom)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_intersect' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_intersect(@extschema@.bloom, @extschema@.bloom) IS
	'bitwise AND of two filters of the same shape: contains at least their common values; a NULL argument is ignored';

CREATE OPERATOR @extschema@.| (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_union,
	COMMUTATOR = OPERATOR(@extschema@.|)
);
CREATE OPERATOR @extschema@.& (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_intersect,
	COMMUTATOR = OPERATOR(@extschema@.&)
);

-- ---- statistics ----

CREATE FUNCTION @extschema@.bloom_cardinality(f @extschema@.bloom) RETURNS float8
	AS 'MODULE_PATHNAME', 'bloom_cardinality' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_cardinality(@extschema@.bloom) IS
	'estimated number of distinct values in the filter, from its fill';

CREATE FUNCTION @extschema@.bloom_fpp(f @extschema@.bloom) RETURNS float8
	AS 'MODULE_PATHNAME', 'bloom_fpp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_fpp(@extschema@.bloom) IS
	'false-positive probability of the filter as it is now, from its fill';

CREATE FUNCTION @extschema@.bloom_info(f @extschema@.bloom,
	OUT layout text, OUT nbits bigint, OUT nhashes integer, OUT seed bigint,
	OUT inserted bigint, OUT bits_set bigint, OUT fill float8,
	OUT estimated_count float8, OUT fpp float8, OUT bytes integer,
	OUT full_at bigint, OUT "rows" integer, OUT locators integer,
	OUT format_version integer, OUT flags integer)
	RETURNS record
	AS 'MODULE_PATHNAME', 'bloom_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_info(@extschema@.bloom) IS
	'shape, fill and estimates of a filter';

CREATE FUNCTION @extschema@.bloom_matrix_row_bits(f @extschema@.bloom)
	RETURNS bigint[]
	AS 'MODULE_PATHNAME', 'bloom_matrix_row_bits' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_matrix_row_bits(@extschema@.bloom) IS
	'number of bits set in each row of a matrix filter, in row order (a row is full at half of its bits)';

CREATE FUNCTION @extschema@.bloom_matrix_ties(f @extschema@.bloom)
	RETURNS text
	AS 'MODULE_PATHNAME', 'bloom_matrix_ties' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_matrix_ties(@extschema@.bloom) IS
	'how a matrix filter breaks ties between candidate rows that need equally few new bits: ''emptier'' or ''first''';

-- ---- the value hash ----

-- The hash a filter with this seed uses for a value (src/bloom_hashfn.c).
CREATE FUNCTION @extschema@.bloom_hash(value anyelement, seed bigint DEFAULT 0)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_hash(anyelement, bigint) IS
	'64-bit hash that a filter with this seed uses for value: the extended hash of the type''s default hash operator class';
-- bloomfilter: comparing bloom filters.  Two filters are equal when they
-- have the same shape (layout, bits, hashes, seed, rows, locators), the
-- same hash scheme and the same bits; the insert count is not compared.
--
-- The default btree and hash operator classes make SELECT DISTINCT,
-- GROUP BY, UNION, ORDER BY, hash and merge joins and indexes work on bloom
-- columns.  The order (src/ordering.c) is by shape, then hash scheme, then
-- the bits word by word: it means nothing beyond being total, consistent
-- with = and the same from release to release, so indexes stay valid.

CREATE FUNCTION @extschema@.bloom_eq(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ne(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_eq(@extschema@.bloom, @extschema@.bloom) IS
	'true if both filters have the same shape and the same bits';
COMMENT ON FUNCTION @extschema@.bloom_ne(@extschema@.bloom, @extschema@.bloom) IS
	'true unless both filters have the same shape and the same bits';

CREATE FUNCTION @extschema@.bloom_lt(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_le(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_gt(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ge(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_cmp(@extschema@.bloom, @extschema@.bloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'bloom_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_lt(@extschema@.bloom, @extschema@.bloom) IS
	'true if the first filter sorts before the second (an arbitrary but stable total order)';
COMMENT ON FUNCTION @extschema@.bloom_le(@extschema@.bloom, @extschema@.bloom) IS
	'true if the first filter sorts before the second or equals it';
COMMENT ON FUNCTION @extschema@.bloom_gt(@extschema@.bloom, @extschema@.bloom) IS
	'true if the first filter sorts after the second';
COMMENT ON FUNCTION @extschema@.bloom_ge(@extschema@.bloom, @extschema@.bloom) IS
	'true if the first filter sorts after the second or equals it';
COMMENT ON FUNCTION @extschema@.bloom_cmp(@extschema@.bloom, @extschema@.bloom) IS
	'-1, 0 or 1 as the first filter sorts before, equal to or after the second (btree support)';

-- Hashes of a filter itself (its shape and bits), for the hash operator
-- class; bloom_hash is the hash of a value added to a filter.
CREATE FUNCTION @extschema@.hash_bloom(@extschema@.bloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'hash_bloom' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.hash_bloom_extended(@extschema@.bloom, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'hash_bloom_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.hash_bloom(@extschema@.bloom) IS
	'32-bit hash of a filter''s shape and bits, equal for equal filters (hash support)';
COMMENT ON FUNCTION @extschema@.hash_bloom_extended(@extschema@.bloom, bigint) IS
	'64-bit hash of a filter''s shape and bits with a seed, equal for equal filters (hash support)';

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel,
	HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel
);
CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR CLASS @extschema@.bloom_ops
	DEFAULT FOR TYPE @extschema@.bloom USING btree AS
	OPERATOR 1 @extschema@.< ,
	OPERATOR 2 @extschema@.<= ,
	OPERATOR 3 @extschema@.= ,
	OPERATOR 4 @extschema@.>= ,
	OPERATOR 5 @extschema@.> ,
	FUNCTION 1 @extschema@.bloom_cmp(@extschema@.bloom, @extschema@.bloom);

CREATE OPERATOR CLASS @extschema@.bloom_ops
	DEFAULT FOR TYPE @extschema@.bloom USING hash AS
	OPERATOR 1 @extschema@.= ,
	FUNCTION 1 @extschema@.hash_bloom(@extschema@.bloom),
	FUNCTION 2 @extschema@.hash_bloom_extended(@extschema@.bloom, bigint);
-- bloomfilter: the bloom aggregates.  bloom_agg (sized to the data, or of a fixed
-- shape), bloom_union_agg and bloom_intersect_agg, all parallel: their
-- transition states are internal, mutated in place, with combine, serial
-- and deserial functions.  See doc/aggregates.md.

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

-- Set-operation aggregates.
CREATE FUNCTION @extschema@.bloom_union_agg_trans(internal, @extschema@.bloom)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_union_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_intersect_agg_trans(internal, @extschema@.bloom)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_intersect_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_union_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_union_agg_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_intersect_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_intersect_agg_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_setop_agg_final(internal)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_setop_agg_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_setop_agg_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloom_setop_agg_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_setop_agg_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_setop_agg_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bloom_union_agg_trans(internal, @extschema@.bloom) IS
	'transition function of bloom_union_agg: ORs in place';
COMMENT ON FUNCTION @extschema@.bloom_intersect_agg_trans(internal, @extschema@.bloom) IS
	'transition function of bloom_intersect_agg: ANDs in place';
COMMENT ON FUNCTION @extschema@.bloom_union_agg_combine(internal, internal) IS
	'combine function of bloom_union_agg (parallel aggregation)';
COMMENT ON FUNCTION @extschema@.bloom_intersect_agg_combine(internal, internal) IS
	'combine function of bloom_intersect_agg (parallel aggregation)';
COMMENT ON FUNCTION @extschema@.bloom_setop_agg_final(internal) IS
	'final function of bloom_union_agg and bloom_intersect_agg';
COMMENT ON FUNCTION @extschema@.bloom_setop_agg_serialize(internal) IS
	'serial function of bloom_union_agg and bloom_intersect_agg';
COMMENT ON FUNCTION @extschema@.bloom_setop_agg_deserialize(bytea, internal) IS
	'deserial function of bloom_union_agg and bloom_intersect_agg';

CREATE AGGREGATE @extschema@.bloom_union_agg(f @extschema@.bloom) (
	SFUNC = @extschema@.bloom_union_agg_trans,
	STYPE = internal,
	SSPACE = 1024,
	FINALFUNC = @extschema@.bloom_setop_agg_final,
	COMBINEFUNC = @extschema@.bloom_union_agg_combine,
	SERIALFUNC = @extschema@.bloom_setop_agg_serialize,
	DESERIALFUNC = @extschema@.bloom_setop_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_union_agg(@extschema@.bloom) IS
	'OR of all non-null filters (auto-sized filters of different sizes fold to the smallest)';

CREATE AGGREGATE @extschema@.bloom_intersect_agg(f @extschema@.bloom) (
	SFUNC = @extschema@.bloom_intersect_agg_trans,
	STYPE = internal,
	SSPACE = 1024,
	FINALFUNC = @extschema@.bloom_setop_agg_final,
	COMBINEFUNC = @extschema@.bloom_intersect_agg_combine,
	SERIALFUNC = @extschema@.bloom_setop_agg_serialize,
	DESERIALFUNC = @extschema@.bloom_setop_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_intersect_agg(@extschema@.bloom) IS
	'AND of all non-null filters (auto-sized filters of different sizes fold to the smallest)';
-- bloomfilter: functions and operators of the multibloom type, a
-- multi-attribute filter after Xiao & Hua's parallel Bloom filter: one bloom
-- filter per attribute plus a whole-row verification filter.  See
-- doc/multibloom.md.

-- Constructor.
CREATE FUNCTION @extschema@.multibloom_empty(nattrs integer, capacity bigint, fpp float8 DEFAULT 0.01)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_empty(integer, bigint, float8) IS
	'empty filter for rows of nattrs attributes (1 to 32), every part sized for capacity rows at false-positive probability fpp';

-- Rows.  Not STRICT: a NULL value is a wildcard (probe) or an unknown
-- attribute (add).
CREATE FUNCTION @extschema@.multibloom_add(f @extschema@.multibloom, VARIADIC "any")
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_add(@extschema@.multibloom, "any") IS
	'filter with one row added (one value per attribute); a NULL value adds nothing to its attribute and keeps the row out of the verification filter';

CREATE FUNCTION @extschema@.multibloom_contains(f @extschema@.multibloom, VARIADIC "any")
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_contains' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_contains(@extschema@.multibloom, "any") IS
	'false if no stored row matches; NULL values are wildcards (attribute untested, verification filter skipped)';

CREATE FUNCTION @extschema@.multibloom_attribute(f @extschema@.multibloom, attno integer)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'multibloom_attribute' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_attribute(@extschema@.multibloom, integer) IS
	'the bloom filter of attribute attno (1-based), usable with bloom_contains';

-- Union.  Not STRICT: a NULL argument is ignored, as multibloom_union_agg
-- skips NULL rows.
CREATE FUNCTION @extschema@.multibloom_union(a @extschema@.multibloom, b @extschema@.multibloom)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_union' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_union(@extschema@.multibloom, @extschema@.multibloom) IS
	'part-by-part OR of two filters of the same shape: the union of their rows; a NULL argument is ignored';
CREATE OPERATOR @extschema@.| (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_union,
	COMMUTATOR = OPERATOR(@extschema@.|)
);

-- Statistics: one record; array columns have one element per part,
-- attributes 1..nattrs then the verification filter.
CREATE FUNCTION @extschema@.multibloom_info(f @extschema@.multibloom,
	OUT format_version integer, OUT nattrs integer, OUT flags integer,
	OUT "rows" bigint, OUT bytes integer, OUT row_fpp float8,
	OUT nbits bigint[], OUT nhashes integer[], OUT seed bigint[],
	OUT inserted bigint[], OUT bits_set bigint[], OUT fill float8[],
	OUT estimated_count float8[], OUT fpp float8[])
	RETURNS record
	AS 'MODULE_PATHNAME', 'multibloom_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_info(@extschema@.multibloom) IS
	'shape, fill and estimates of every part of a multibloom (arrays: attributes 1..nattrs, then the verification filter)';
-- bloomfilter: comparing multibloom filters.  Two are equal when they have
-- the same number of attributes and every part (attributes, then the
-- verification filter) is an equal bloom filter; the row and insert counts
-- are not compared.
--
-- Operator classes as for bloom (15_bloom_comparison.sql): the order is by
-- number of attributes, then part by part in bloom's order; it means
-- nothing beyond being total, consistent with = and stable.

CREATE FUNCTION @extschema@.multibloom_eq(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_ne(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_eq(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if both filters have the same number of attributes and every part the same shape and bits';
COMMENT ON FUNCTION @extschema@.multibloom_ne(@extschema@.multibloom, @extschema@.multibloom) IS
	'negation of multibloom_eq';

CREATE FUNCTION @extschema@.multibloom_lt(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_le(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_gt(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_ge(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_cmp(@extschema@.multibloom, @extschema@.multibloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'multibloom_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_lt(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if the first filter sorts before the second (an arbitrary but stable total order)';
COMMENT ON FUNCTION @extschema@.multibloom_le(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if the first filter sorts before the second or equals it';
COMMENT ON FUNCTION @extschema@.multibloom_gt(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if the first filter sorts after the second';
COMMENT ON FUNCTION @extschema@.multibloom_ge(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if the first filter sorts after the second or equals it';
COMMENT ON FUNCTION @extschema@.multibloom_cmp(@extschema@.multibloom, @extschema@.multibloom) IS
	'-1, 0 or 1 as the first filter sorts before, equal to or after the second (btree support)';

-- Hashes of a filter itself (its shape and bits), for the hash operator
-- class.
CREATE FUNCTION @extschema@.hash_multibloom(@extschema@.multibloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'hash_multibloom' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.hash_multibloom_extended(@extschema@.multibloom, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'hash_multibloom_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.hash_multibloom(@extschema@.multibloom) IS
	'32-bit hash of a filter''s shape and bits, equal for equal filters (hash support)';
COMMENT ON FUNCTION @extschema@.hash_multibloom_extended(@extschema@.multibloom, bigint) IS
	'64-bit hash of a filter''s shape and bits with a seed, equal for equal filters (hash support)';

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel,
	HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel
);
CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR CLASS @extschema@.multibloom_ops
	DEFAULT FOR TYPE @extschema@.multibloom USING btree AS
	OPERATOR 1 @extschema@.< ,
	OPERATOR 2 @extschema@.<= ,
	OPERATOR 3 @extschema@.= ,
	OPERATOR 4 @extschema@.>= ,
	OPERATOR 5 @extschema@.> ,
	FUNCTION 1 @extschema@.multibloom_cmp(@extschema@.multibloom, @extschema@.multibloom);

CREATE OPERATOR CLASS @extschema@.multibloom_ops
	DEFAULT FOR TYPE @extschema@.multibloom USING hash AS
	OPERATOR 1 @extschema@.= ,
	FUNCTION 1 @extschema@.hash_multibloom(@extschema@.multibloom),
	FUNCTION 2 @extschema@.hash_multibloom_extended(@extschema@.multibloom, bigint);
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
CREATE FUNCTION @extschema@.multibloom_union_agg_trans(internal, @extschema@.multibloom)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_union_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_agg_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
-- Over no rows multibloom_agg_fixed returns an empty filter of the call's
-- constant shape, so it has its own final function.
CREATE FUNCTION @extschema@.multibloom_agg_fixed_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_fixed_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_fixed_trans(internal, bigint, float8, "any") IS
	'transition function of multibloom_agg_fixed';
COMMENT ON FUNCTION @extschema@.multibloom_union_agg_trans(internal, @extschema@.multibloom) IS
	'transition function of multibloom_union_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_combine(internal, internal) IS
	'combine function of multibloom_agg_fixed and multibloom_union_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_serialize(internal) IS
	'serial function of multibloom_agg_fixed and multibloom_union_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_deserialize(bytea, internal) IS
	'deserial function of multibloom_agg_fixed and multibloom_union_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_final(internal) IS
	'final function of multibloom_union_agg';
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

CREATE AGGREGATE @extschema@.multibloom_union_agg(f @extschema@.multibloom) (
	SFUNC = @extschema@.multibloom_union_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_final,
	COMBINEFUNC = @extschema@.multibloom_agg_combine,
	SERIALFUNC = @extschema@.multibloom_agg_serialize,
	DESERIALFUNC = @extschema@.multibloom_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_union_agg(@extschema@.multibloom) IS
	'union of all non-null filters (all of the same shape)';
-- bloomfilter: one filter per leaf partition of a partitioned table, for
-- semijoin prefiltering across servers (doc/distributed.md).

-- One filter per leaf partition of a partitioned table.  Each partition is
-- aggregated by its own query, so a foreign partition (a shard behind
-- postgres_fdw) builds its filter remotely and only the filter crosses the
-- network.  All filters share one shape and can be united.
-- PARALLEL RESTRICTED: it runs queries, possibly on foreign tables.
CREATE FUNCTION @extschema@.bloom_partition_filters(
	parent regclass, key_column name, capacity bigint, fpp float8 DEFAULT 0.01)
	RETURNS TABLE (partition regclass, filter @extschema@.bloom)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
AS $$
DECLARE
	leaf regclass;
BEGIN
	-- validate the shape once, before touching any partition
	PERFORM @extschema@.bloom_empty(capacity, fpp);
	FOR leaf IN
		SELECT t.relid FROM pg_catalog.pg_partition_tree(parent) AS t
		WHERE t.isleaf ORDER BY t.relid::text
	LOOP
		partition := leaf;
		-- capacity and fpp as literals: the remote query is then self-contained
		EXECUTE pg_catalog.format(
			'SELECT @extschema@.bloom_agg(%I, %s::bigint, %s::float8) FROM %s',
			key_column, capacity, fpp, leaf)
			INTO filter;
		RETURN NEXT;
	END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.bloom_partition_filters(regclass, name, bigint, float8) IS
	'one filter of key_column per leaf partition of parent (foreign partitions aggregate remotely), all of the shape bloom_empty(capacity, fpp)';
-- bloomfilter: materialized summaries, one filter per bucket (a day, a
-- partition key value) in a table summary(<bucket column> PRIMARY KEY,
-- filter bloom), rebuilt by bloom_summary_refresh or kept current by
-- bloom_summary_trigger (doc/summaries.md).

-- Rebuilds every bucket's filter from the source table (the periodic
-- refresh).  Returns the number of buckets written.  Buckets that no longer
-- have rows are removed.  Runs in the caller's transaction: readers see
-- the old filters until it commits.
CREATE FUNCTION @extschema@.bloom_summary_refresh(
	summary regclass, source regclass, bucket_column name, key_column name,
	capacity bigint, fpp float8 DEFAULT 0.01)
	RETURNS bigint
	LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
AS $$
DECLARE
	written bigint;
BEGIN
	PERFORM @extschema@.bloom_empty(capacity, fpp);
	EXECUTE pg_catalog.format('DELETE FROM %s', summary);
	EXECUTE pg_catalog.format(
		'INSERT INTO %s (%I, filter) '
		'SELECT %I, @extschema@.bloom_agg(%I, %s::bigint, %s::float8) FROM %s GROUP BY 1',
		summary, bucket_column, bucket_column, key_column, capacity, fpp, source);
	GET DIAGNOSTICS written = ROW_COUNT;
	RETURN written;
END
$$;
COMMENT ON FUNCTION @extschema@.bloom_summary_refresh(regclass, regclass, name, name, bigint, float8) IS
	'rebuilds summary(bucket_column, filter): one filter of key_column per bucket of source, of the shape bloom_empty(capacity, fpp)';

-- Statement-level trigger keeping a summary current: one upsert per bucket
-- per statement, from the statement's transition table, which must be
-- named bloom_new_rows.  Arguments: summary table, bucket column, key
-- column, capacity, fpp.  Use it AFTER INSERT and AFTER UPDATE (two
-- triggers: a trigger with a transition table has one event).
CREATE FUNCTION @extschema@.bloom_summary_trigger() RETURNS trigger
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $$
DECLARE
	summary regclass;
	bucket_column name;
	key_column name;
	capacity bigint;
	fpp float8;
	null_buckets bigint;
BEGIN
	IF TG_LEVEL <> 'STATEMENT' OR TG_WHEN <> 'AFTER' OR TG_NARGS <> 5 THEN
		RAISE EXCEPTION 'bloom_summary_trigger must be an AFTER ... FOR EACH STATEMENT trigger with 5 arguments'
			USING ERRCODE = 'invalid_parameter_value',
			      HINT = 'CREATE TRIGGER ... AFTER INSERT ON t REFERENCING NEW TABLE AS bloom_new_rows FOR EACH STATEMENT EXECUTE FUNCTION bloom_summary_trigger(''summary'', ''bucket_column'', ''key_column'', capacity, fpp)';
	END IF;
	summary := TG_ARGV[0]::regclass;
	-- an unqualified name resolves in the writing session, where pg_temp
	-- comes first: a temporary table of that name would take this
	-- statement's keys away from the shared summary.  Refuse it.
	IF (SELECT c.relpersistence FROM pg_catalog.pg_class c
	    WHERE c.oid OPERATOR(pg_catalog.=) summary) OPERATOR(pg_catalog.=) 't'
	   AND (SELECT c.relpersistence FROM pg_catalog.pg_class c
	        WHERE c.oid OPERATOR(pg_catalog.=) TG_RELID) OPERATOR(pg_catalog.<>) 't' THEN
		RAISE EXCEPTION 'bloom summary % is a temporary table, but % is not', summary, TG_RELID::regclass
			USING ERRCODE = 'invalid_parameter_value',
			      HINT = 'Name the summary table with its schema in CREATE TRIGGER, e.g. ''public.summary''.';
	END IF;
	bucket_column := TG_ARGV[1];
	key_column := TG_ARGV[2];
	capacity := TG_ARGV[3]::bigint;
	fpp := TG_ARGV[4]::float8;

	-- a row whose bucket is NULL could not be found again: refuse it
	EXECUTE pg_catalog.format(
		'SELECT count(*) FROM bloom_new_rows WHERE %I IS NULL AND %I IS NOT NULL',
		bucket_column, key_column) INTO null_buckets;
	IF null_buckets > 0 THEN
		RAISE EXCEPTION 'bloom summary %: % row(s) with a NULL bucket column "%"',
			summary, null_buckets, bucket_column
			USING ERRCODE = 'not_null_violation';
	END IF;

	EXECUTE pg_catalog.format(
		'INSERT INTO %1$s AS s (%2$I, filter) '
		'SELECT %2$I, @extschema@.bloom_agg(%3$I, %4$s::bigint, %5$s::float8) '
		'FROM bloom_new_rows WHERE %3$I IS NOT NULL GROUP BY 1 '
		'ON CONFLICT (%2$I) DO UPDATE '
		'SET filter = @extschema@.bloom_union(s.filter, EXCLUDED.filter)',
		summary, bucket_column, key_column, capacity, fpp);
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION @extschema@.bloom_summary_trigger() IS
	'statement trigger (transition table bloom_new_rows) adding the new keys to summary(bucket, filter), one upsert per bucket; args: summary, bucket column, key column, capacity, fpp';
