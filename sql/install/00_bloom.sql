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
