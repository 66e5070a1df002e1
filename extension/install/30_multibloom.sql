-- bloomfilter: functions and operators of the multibloom type, a
-- multi-attribute filter after Xiao & Hua's parallel Bloom filter: one bloom
-- filter per attribute plus a whole-row verification filter.  See
-- doc/multibloom.md.

-- Constructor.
CREATE FUNCTION @extschema@.multibloom_empty(nattrs integer, capacity bigint, fpp float8 DEFAULT 0.01)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_empty(integer, bigint, float8) IS
	'empty filter for rows of nattrs attributes (1 to 32), every part sized for capacity rows at false-positive probability fpp';

-- Rows.  Not STRICT: a NULL value is a wildcard (probe) or an unknown
-- attribute (add).
CREATE FUNCTION @extschema@.multibloom_add(f @extschema@.multibloom, VARIADIC "any")
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_add(@extschema@.multibloom, "any") IS
	'filter with one row added (one value per attribute); a NULL value adds nothing to its attribute and keeps the row out of the verification filter';

CREATE FUNCTION @extschema@.multibloom_contains(f @extschema@.multibloom, VARIADIC "any")
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_contains' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_contains(@extschema@.multibloom, "any") IS
	'false if no stored row matches; NULL values are wildcards (attribute untested, verification filter skipped)';

CREATE FUNCTION @extschema@.multibloom_attribute(f @extschema@.multibloom, attno integer)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'multibloom_attribute' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_attribute(@extschema@.multibloom, integer) IS
	'the bloom filter of attribute attno (1-based), usable with bloom_contains';

-- Union.  Not STRICT: a NULL argument is ignored, as multibloom_union_agg
-- skips NULL rows.
CREATE FUNCTION @extschema@.multibloom_union(a @extschema@.multibloom, b @extschema@.multibloom)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_union' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_union(@extschema@.multibloom, @extschema@.multibloom) IS
	'part-by-part OR of two filters of the same shape: the union of their rows; a NULL argument is ignored';
CREATE OPERATOR @extschema@.| (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_union,
	COMMUTATOR = OPERATOR(@extschema@.|)
);

-- Statistics: one record; array columns have one element per part,
-- attributes 1..nattrs then the verification filter.
CREATE FUNCTION @extschema@.multibloom_info(f @extschema@.multibloom,
	OUT format_version integer, OUT nattrs integer, OUT flags integer,
	OUT "rows" bigint, OUT bytes integer, OUT row_fpp float8,
	OUT nbits bigint[], OUT nhashes integer[], OUT seed bigint[],
	OUT inserted bigint[], OUT bits_set bigint[], OUT fill float8[],
	OUT estimated_count float8[], OUT fpp float8[])
	RETURNS record
	AS 'MODULE_PATHNAME', 'multibloom_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_info(@extschema@.multibloom) IS
	'shape, fill and estimates of every part of a multibloom (arrays: attributes 1..nattrs, then the verification filter)';
