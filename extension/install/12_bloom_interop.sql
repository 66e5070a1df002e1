-- bloomfilter: filters other systems write, and filters for them
-- (doc/interop.md): Parquet split-block filters, Guava's BloomFilter and
-- Spark's sketch BloomFilter, read and written bit for bit.  An imported
-- filter is a bloom of an interop layout; bloom_contains, @>, the set
-- operations and the statistics take it as they take any other.

CREATE FUNCTION @extschema@.bloom_import(data bytea, format text, options text DEFAULT '')
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_import' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_import(bytea, text, text) IS
	'filter written by another system, bit for bit: format ''parquet'' (split-block bitset), ''parquet_header'' (Thrift BloomFilterHeader and bitset), ''guava'' (BloomFilter.writeTo) or ''spark'' (sketch BloomFilter.writeTo); options (key=value, comma-separated): funnel, type, timestamp_unit, hash';

CREATE FUNCTION @extschema@.bloom_export(f @extschema@.bloom, format text)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bloom_export' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_export(@extschema@.bloom, text) IS
	'the bytes another system reads back as this filter: format ''parquet'', ''parquet_header'', ''guava'' or ''spark''; the filter must be of that format''s layout';

CREATE FUNCTION @extschema@.bloom_empty(capacity bigint, fpp float8, layout text, options text)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_options' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty(bigint, float8, text, text) IS
	'empty filter of a foreign layout (''parquet'', ''guava'', ''guava32'', ''spark'', ''spark2''), sized as that system sizes, with options: funnel, type, timestamp_unit, hash, version, seed';
