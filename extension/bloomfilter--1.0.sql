-- bloomfilter: the bloom type, its functions and operators.
-- Every reference to an object of the extension is schema-qualified with
-- @extschema@ so the script is safe under any search_path.

\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

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

-- Constructors.
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

-- Adding values (NULLs are never members).
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

-- Membership.
CREATE FUNCTION @extschema@.bloom_contains(f @extschema@.bloom, value anyelement)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_contains(@extschema@.bloom, anyelement) IS
	'false if value is surely not in the filter; true if it is or on a false positive';

CREATE FUNCTION @extschema@.bloom_contained_by(value anyelement, f @extschema@.bloom)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_contained_by' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_contained_by(anyelement, @extschema@.bloom) IS
	'bloom_contains with the arguments swapped (operator <@)';

CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.bloom, RIGHTARG = anyelement,
	FUNCTION = @extschema@.bloom_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = contsel, JOIN = contjoinsel
);
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = anyelement, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_contained_by,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = contsel, JOIN = contjoinsel
);

-- Set operations.
CREATE FUNCTION @extschema@.bloom_union(a @extschema@.bloom, b @extschema@.bloom)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_union' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_union(@extschema@.bloom, @extschema@.bloom) IS
	'bitwise OR of two filters of the same shape: the union of their sets';

CREATE FUNCTION @extschema@.bloom_intersect(a @extschema@.bloom, b @extschema@.bloom)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_intersect' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_intersect(@extschema@.bloom, @extschema@.bloom) IS
	'bitwise AND of two filters of the same shape: contains at least their common values';

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

-- Equality: identical shape and bits.
CREATE FUNCTION @extschema@.bloom_eq(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ne(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_eq(@extschema@.bloom, @extschema@.bloom) IS
	'true if both filters have the same shape and the same bits';
COMMENT ON FUNCTION @extschema@.bloom_ne(@extschema@.bloom, @extschema@.bloom) IS
	'true unless both filters have the same shape and the same bits';

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);

-- Statistics.
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
-- bloomfilter: aggregates.  bloom_agg (sized to the data, or of a fixed
-- shape), bloom_union_agg and bloom_intersect_agg, all parallel: their
-- transition states are internal, mutated in place, with combine, serial
-- and deserial functions.  See doc/aggregates.md.

-- Support functions (internal state: not callable from plain SQL).
CREATE FUNCTION @extschema@.bloom_agg_trans(internal, anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_trans(internal, anyelement, bigint, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_fixed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_trans(internal, anyelement, bigint, float8, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_fixed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_agg_final(internal)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
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

COMMENT ON FUNCTION @extschema@.bloom_agg_trans(internal, anyelement) IS
	'transition function of bloom_agg(value): collects distinct hashes';
COMMENT ON FUNCTION @extschema@.bloom_agg_trans(internal, anyelement, bigint, float8) IS
	'transition function of bloom_agg(value, capacity, fpp): adds to the filter in place';
COMMENT ON FUNCTION @extschema@.bloom_agg_trans(internal, anyelement, bigint, float8, text) IS
	'transition function of bloom_agg(value, capacity, fpp, layout): adds to the filter in place';
COMMENT ON FUNCTION @extschema@.bloom_agg_final(internal) IS
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
	SFUNC = @extschema@.bloom_agg_trans,
	STYPE = internal,
	SSPACE = 256,
	FINALFUNC = @extschema@.bloom_agg_final,
	COMBINEFUNC = @extschema@.bloom_agg_combine,
	SERIALFUNC = @extschema@.bloom_agg_serialize,
	DESERIALFUNC = @extschema@.bloom_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bloom_agg(anyelement) IS
	'filter of all non-null values, sized to their distinct count for a false-positive probability of at most 0.01';

CREATE AGGREGATE @extschema@.bloom_agg(value anyelement, capacity bigint, fpp float8) (
	SFUNC = @extschema@.bloom_agg_trans,
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
	SFUNC = @extschema@.bloom_agg_trans,
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
-- bloomfilter: the multibloom type, a multi-attribute filter after Xiao &
-- Hua's parallel Bloom filter: one bloom filter per attribute plus a
-- whole-row verification filter.  See doc/multibloom.md.

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

-- Casts to and from the binary format.
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

-- Union and comparison.
CREATE FUNCTION @extschema@.multibloom_union(a @extschema@.multibloom, b @extschema@.multibloom)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_union' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_union(@extschema@.multibloom, @extschema@.multibloom) IS
	'part-by-part OR of two filters of the same shape: the union of their rows';
CREATE OPERATOR @extschema@.| (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_union,
	COMMUTATOR = OPERATOR(@extschema@.|)
);

CREATE FUNCTION @extschema@.multibloom_eq(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_ne(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_eq(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if both filters have the same number of attributes and every part the same shape and bits';
COMMENT ON FUNCTION @extschema@.multibloom_ne(@extschema@.multibloom, @extschema@.multibloom) IS
	'negation of multibloom_eq';
CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
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

-- Aggregates.  The state is a multibloom (internal); partial states travel
-- in the binary format, so they run in parallel with the serial result.
CREATE FUNCTION @extschema@.multibloom_agg_sized_trans(internal, capacity bigint, fpp float8, VARIADIC "any")
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_sized_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_union_agg_trans(internal, @extschema@.multibloom)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_union_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_serial(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_agg_serial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_deserial(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_deserial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_sized_trans(internal, bigint, float8, "any") IS
	'transition function of multibloom_agg_sized';
COMMENT ON FUNCTION @extschema@.multibloom_union_agg_trans(internal, @extschema@.multibloom) IS
	'transition function of multibloom_union_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_combine(internal, internal) IS
	'combine function of the multibloom aggregates';
COMMENT ON FUNCTION @extschema@.multibloom_agg_serial(internal) IS
	'serial function of the multibloom aggregates';
COMMENT ON FUNCTION @extschema@.multibloom_agg_deserial(bytea, internal) IS
	'deserial function of the multibloom aggregates';
COMMENT ON FUNCTION @extschema@.multibloom_agg_final(internal) IS
	'final function of the multibloom aggregates';

-- multibloom_agg_sized over no rows returns an empty filter of the call's
-- constant shape, so it has its own final function.
CREATE FUNCTION @extschema@.multibloom_agg_sized_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_sized_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_sized_final(internal) IS
	'final function of multibloom_agg_sized';

CREATE AGGREGATE @extschema@.multibloom_agg_sized(capacity bigint, fpp float8, VARIADIC "any") (
	SFUNC = @extschema@.multibloom_agg_sized_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_sized_final,
	COMBINEFUNC = @extschema@.multibloom_agg_combine,
	SERIALFUNC = @extschema@.multibloom_agg_serial,
	DESERIALFUNC = @extschema@.multibloom_agg_deserial,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg_sized(bigint, float8, "any") IS
	'filter of all rows with the shape of multibloom_empty(number of values, capacity, fpp), so results of different partitions unite';

CREATE AGGREGATE @extschema@.multibloom_union_agg(f @extschema@.multibloom) (
	SFUNC = @extschema@.multibloom_union_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_final,
	COMBINEFUNC = @extschema@.multibloom_agg_combine,
	SERIALFUNC = @extschema@.multibloom_agg_serial,
	DESERIALFUNC = @extschema@.multibloom_agg_deserial,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_union_agg(@extschema@.multibloom) IS
	'union of all non-null filters (all of the same shape)';


-- multibloom_agg: sized to the data.  The state collects distinct rows of
-- hashes (bounded by work_mem, spilling to temporary files).
CREATE FUNCTION @extschema@.multibloom_agg_trans(internal, VARIADIC "any")
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_auto_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_auto_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_auto_serial(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_agg_auto_serial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_auto_deserial(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_auto_deserial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_auto_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_auto_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_trans(internal, "any") IS
	'transition function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_auto_combine(internal, internal) IS
	'combine function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_auto_serial(internal) IS
	'serial function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_auto_deserial(bytea, internal) IS
	'deserial function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_auto_final(internal) IS
	'final function of multibloom_agg: sizes every part for its own distinct count';

CREATE AGGREGATE @extschema@.multibloom_agg(VARIADIC "any") (
	SFUNC = @extschema@.multibloom_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_auto_final,
	COMBINEFUNC = @extschema@.multibloom_agg_auto_combine,
	SERIALFUNC = @extschema@.multibloom_agg_auto_serial,
	DESERIALFUNC = @extschema@.multibloom_agg_auto_deserial,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg("any") IS
	'filter of all rows, every part sized for its own distinct count at fpp 0.01 (attributes: distinct values; verification: distinct complete rows)';
-- The 'matrix' layout (M-BMBF of Yang & Huang): explicit construction and
-- per-row inspection.  bloom_empty(capacity, fpp, 'matrix') sizes one from a
-- capacity; every other bloom function works on it unchanged.

CREATE FUNCTION @extschema@.bloom_empty_matrix(
	"rows" integer, row_bits bigint, nhashes integer, locators integer)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_matrix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty_matrix(integer, bigint, integer, integer) IS
	'empty matrix (M-BMBF) filter: rows x row_bits bits, nhashes bits per value, locators candidate rows per value; rows must be a multiple of locators';

CREATE FUNCTION @extschema@.bloom_matrix_row_bits(f @extschema@.bloom)
	RETURNS bigint[]
	AS 'MODULE_PATHNAME', 'bloom_matrix_row_bits' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_matrix_row_bits(@extschema@.bloom) IS
	'number of bits set in each row of a matrix filter, in row order (a row is full at half of its bits)';
-- The hash a filter uses for a value (see src/bloom_hashfn.c).
CREATE FUNCTION @extschema@.bloom_hash(value anyelement, seed bigint DEFAULT 0)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_hash(anyelement, bigint) IS
	'64-bit hash that a filter with this seed uses for value: the extended hash of the type''s default hash operator class';
-- bloomfilter: semijoin prefiltering across servers and materialized
-- summaries (doc/distributed.md, doc/summaries.md).

-- Planner estimates for probes: see src/bloom_support.c.
CREATE FUNCTION @extschema@.bloom_contains_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_contains_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_contains_support(internal) IS
	'planner support for bloom_contains: selectivity from the filter''s cardinality and fpp and the column''s distinct values';

CREATE FUNCTION @extschema@.bloom_contains_restrict(internal, oid, internal, integer) RETURNS float8
	AS 'MODULE_PATHNAME', 'bloom_contains_restrict' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_contains_restrict(internal, oid, internal, integer) IS
	'restriction selectivity of the operators @> and <@ (the same estimate as bloom_contains)';

ALTER FUNCTION @extschema@.bloom_contains(@extschema@.bloom, anyelement)
	SUPPORT @extschema@.bloom_contains_support;
ALTER FUNCTION @extschema@.bloom_contained_by(anyelement, @extschema@.bloom)
	SUPPORT @extschema@.bloom_contains_support;
ALTER OPERATOR @extschema@.@> (@extschema@.bloom, anyelement)
	SET (RESTRICT = @extschema@.bloom_contains_restrict);
ALTER OPERATOR @extschema@.<@ (anyelement, @extschema@.bloom)
	SET (RESTRICT = @extschema@.bloom_contains_restrict);

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

-- Materialized summaries: one filter per bucket (a day, a partition key
-- value) in a table summary(<bucket column> PRIMARY KEY, filter bloom).

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
