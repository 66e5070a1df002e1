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
