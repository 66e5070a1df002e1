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

-- Planner estimates for probes (src/helpers/selectivity.c): the support function
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

-- The value hash a new filter (hash scheme 3) with this seed uses for a
-- value (src/types/value_hash.c).
CREATE FUNCTION @extschema@.bloom_hash(value anyelement, seed bigint DEFAULT 0)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_hash(anyelement, bigint) IS
	'64-bit value hash that a new filter with this seed uses for value (hash scheme 3): the extended hash of the type''s default hash operator class, except that bigint, timestamps and the other 64-bit types are hashed in full beyond 32 bits';


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
