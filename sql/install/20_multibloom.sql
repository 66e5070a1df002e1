-- bloomfilter: the multibloom type, a multi-attribute filter after Xiao &
-- Hua's parallel Bloom filter: one bloom filter per attribute plus a
-- whole-row verification filter.  See doc/multibloom.md.

CREATE TYPE @extschema@.multibloom;

CREATE FUNCTION @extschema@.multibloom_in(cstring) RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_out(@extschema@.multibloom) RETURNS cstring
	AS 'MODULE_PATHNAME', 'multibloom_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_recv(internal) RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_send(@extschema@.multibloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.multibloom (
	INPUT = @extschema@.multibloom_in,
	OUTPUT = @extschema@.multibloom_out,
	RECEIVE = @extschema@.multibloom_recv,
	SEND = @extschema@.multibloom_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
COMMENT ON TYPE @extschema@.multibloom IS
	'multi-attribute Bloom filter: a bloom filter per attribute and a whole-row verification filter, probed on whole rows or any subset of attributes';

-- Casts to and from the binary format.
CREATE FUNCTION @extschema@.multibloom_to_bytea(@extschema@.multibloom) RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_from_bytea(bytea) RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.multibloom AS bytea)
	WITH FUNCTION @extschema@.multibloom_to_bytea(@extschema@.multibloom);
CREATE CAST (bytea AS @extschema@.multibloom)
	WITH FUNCTION @extschema@.multibloom_from_bytea(bytea);
COMMENT ON FUNCTION @extschema@.multibloom_to_bytea(@extschema@.multibloom) IS
	'binary format of a multibloom (the bytes of binary send)';
COMMENT ON FUNCTION @extschema@.multibloom_from_bytea(bytea) IS
	'multibloom from its binary format; every field and every embedded bloom header is validated';

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

-- Union and comparison.
CREATE FUNCTION @extschema@.multibloom_union(a @extschema@.multibloom, b @extschema@.multibloom)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_union' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_union(@extschema@.multibloom, @extschema@.multibloom) IS
	'part-by-part OR of two filters of the same shape: the union of their rows';
CREATE OPERATOR @extschema@.| (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_union,
	COMMUTATOR = OPERATOR(@extschema@.|)
);

CREATE FUNCTION @extschema@.multibloom_eq(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_ne(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_eq(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if both filters have the same number of attributes and every part the same shape and bits';
COMMENT ON FUNCTION @extschema@.multibloom_ne(@extschema@.multibloom, @extschema@.multibloom) IS
	'negation of multibloom_eq';
CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
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

-- Aggregates.  The state is a multibloom (internal); partial states travel
-- in the binary format, so they run in parallel with the serial result.
CREATE FUNCTION @extschema@.multibloom_agg_sized_trans(internal, capacity bigint, fpp float8, VARIADIC "any")
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_sized_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_union_agg_trans(internal, @extschema@.multibloom)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_union_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_serial(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_agg_serial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_deserial(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_deserial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_sized_trans(internal, bigint, float8, "any") IS
	'transition function of multibloom_agg_sized';
COMMENT ON FUNCTION @extschema@.multibloom_union_agg_trans(internal, @extschema@.multibloom) IS
	'transition function of multibloom_union_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_combine(internal, internal) IS
	'combine function of the multibloom aggregates';
COMMENT ON FUNCTION @extschema@.multibloom_agg_serial(internal) IS
	'serial function of the multibloom aggregates';
COMMENT ON FUNCTION @extschema@.multibloom_agg_deserial(bytea, internal) IS
	'deserial function of the multibloom aggregates';
COMMENT ON FUNCTION @extschema@.multibloom_agg_final(internal) IS
	'final function of the multibloom aggregates';

-- multibloom_agg_sized over no rows returns an empty filter of the call's
-- constant shape, so it has its own final function.
CREATE FUNCTION @extschema@.multibloom_agg_sized_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_sized_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_sized_final(internal) IS
	'final function of multibloom_agg_sized';

CREATE AGGREGATE @extschema@.multibloom_agg_sized(capacity bigint, fpp float8, VARIADIC "any") (
	SFUNC = @extschema@.multibloom_agg_sized_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_sized_final,
	COMBINEFUNC = @extschema@.multibloom_agg_combine,
	SERIALFUNC = @extschema@.multibloom_agg_serial,
	DESERIALFUNC = @extschema@.multibloom_agg_deserial,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg_sized(bigint, float8, "any") IS
	'filter of all rows with the shape of multibloom_empty(number of values, capacity, fpp), so results of different partitions unite';

CREATE AGGREGATE @extschema@.multibloom_union_agg(f @extschema@.multibloom) (
	SFUNC = @extschema@.multibloom_union_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_final,
	COMBINEFUNC = @extschema@.multibloom_agg_combine,
	SERIALFUNC = @extschema@.multibloom_agg_serial,
	DESERIALFUNC = @extschema@.multibloom_agg_deserial,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_union_agg(@extschema@.multibloom) IS
	'union of all non-null filters (all of the same shape)';


-- multibloom_agg: sized to the data.  The state collects distinct rows of
-- hashes (bounded by work_mem, spilling to temporary files).
CREATE FUNCTION @extschema@.multibloom_agg_trans(internal, VARIADIC "any")
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_auto_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_auto_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_auto_serial(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_agg_auto_serial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_auto_deserial(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_auto_deserial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_agg_auto_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_auto_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_agg_trans(internal, "any") IS
	'transition function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_auto_combine(internal, internal) IS
	'combine function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_auto_serial(internal) IS
	'serial function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_auto_deserial(bytea, internal) IS
	'deserial function of multibloom_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_auto_final(internal) IS
	'final function of multibloom_agg: sizes every part for its own distinct count';

CREATE AGGREGATE @extschema@.multibloom_agg(VARIADIC "any") (
	SFUNC = @extschema@.multibloom_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_auto_final,
	COMBINEFUNC = @extschema@.multibloom_agg_auto_combine,
	SERIALFUNC = @extschema@.multibloom_agg_auto_serial,
	DESERIALFUNC = @extschema@.multibloom_agg_auto_deserial,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg("any") IS
	'filter of all rows, every part sized for its own distinct count at fpp 0.01 (attributes: distinct values; verification: distinct complete rows)';
