-- bloomfilter: managed summaries (doc/summaries.md).  One filter per leaf
-- partition of a partitioned table, kept in the extension's own catalog:
-- bloom_summary_def (one row per summary), bloom_summary_part (one row per
-- leaf partition: its filter and whether it may be trusted) and
-- bloom_summary_delta (the keys of writers' statements, not yet merged).
-- Writers append delta rows; a merge or refresh folds them into the part
-- row.  The planner skips a leaf P for values V iff P's part row is trusted
-- and neither it nor any delta of P visible under the query's snapshot may
-- contain a value of V.

CREATE TABLE @extschema@.bloom_summary_def (
	summary_id  integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	parent      regclass NOT NULL,
	key_columns name[]   NOT NULL,
	capacity    bigint   NOT NULL,
	fpp         float8   NOT NULL,
	UNIQUE (parent, key_columns));
COMMENT ON TABLE @extschema@.bloom_summary_def IS
	'managed summaries: one row per summarised (partitioned table, key columns); bloom filters for one key column, multibloom filters for several';

CREATE TABLE @extschema@.bloom_summary_part (
	summary_id  integer  NOT NULL REFERENCES @extschema@.bloom_summary_def ON DELETE CASCADE,
	partition   regclass NOT NULL,
	filter      @extschema@.bloom,
	mfilter     @extschema@.multibloom,
	trusted     boolean  NOT NULL DEFAULT false,
	refreshed_at timestamptz,
	PRIMARY KEY (summary_id, partition));
COMMENT ON TABLE @extschema@.bloom_summary_part IS
	'managed summaries: the filter of each leaf partition; a partition whose row is missing or not trusted is never skipped';

CREATE TABLE @extschema@.bloom_summary_delta (
	summary_id  integer  NOT NULL,
	partition   regclass NOT NULL,
	filter      @extschema@.bloom,
	mfilter     @extschema@.multibloom,
	nkeys       bigint   NOT NULL,
	added_at    timestamptz NOT NULL DEFAULT now());
CREATE INDEX ON @extschema@.bloom_summary_delta (summary_id, partition);
COMMENT ON TABLE @extschema@.bloom_summary_delta IS
	'managed summaries: the new keys of writers'' statements, one row per statement and partition, until a merge or refresh folds them into bloom_summary_part';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.bloom_summary_def', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.bloom_summary_part', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.bloom_summary_delta', '');
