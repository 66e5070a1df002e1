-- bloomfilter: bloom_agg in an interop layout with options (doc/interop.md):
-- the aggregate form of bloom_empty(capacity, fpp, layout, options).

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
