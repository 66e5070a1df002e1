-- bloomfilter: the composite-key probe the automatic semijoin prefilter
-- ships (src/semijoin/tuple_probe.c, doc/semijoin.md "Composite keys").

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
