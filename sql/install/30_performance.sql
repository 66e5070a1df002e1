-- The hash a filter uses for a value (see src/bloom_hashfn.c).
CREATE FUNCTION @extschema@.bloom_hash(value anyelement, seed bigint DEFAULT 0)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'bloom_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_hash(anyelement, bigint) IS
	'64-bit hash that a filter with this seed uses for value: the extended hash of the type''s default hash operator class';
