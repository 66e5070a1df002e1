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
