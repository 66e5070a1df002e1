-- bloomfilter: what the automatic semijoin prefilter ships beside a probe
-- of an expression key (src/semijoin/tuple_probe.c, src/semijoin/semijoin_types.c,
-- doc/semijoin.md "Which value each side hashes").

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
