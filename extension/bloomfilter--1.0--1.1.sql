-- bloomfilter 1.0 -> 1.1.  Stored filters are untouched (the formats do not
-- change); afterwards the extension has the same objects as a fresh 1.1
-- install (test/t/803_upgrade.pl compares them).

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit

-- ---- one spelling for aggregate support functions: _serialize ----

ALTER FUNCTION @extschema@.multibloom_agg_serial(internal)
	RENAME TO multibloom_agg_serialize;
ALTER FUNCTION @extschema@.multibloom_agg_deserial(bytea, internal)
	RENAME TO multibloom_agg_deserialize;
ALTER FUNCTION @extschema@.multibloom_agg_auto_serial(internal)
	RENAME TO multibloom_agg_datasized_serialize;
ALTER FUNCTION @extschema@.multibloom_agg_auto_deserial(bytea, internal)
	RENAME TO multibloom_agg_datasized_deserialize;

-- ---- support functions named for what they serve (data-sized, fixed) ----

ALTER FUNCTION @extschema@.bloom_agg_trans(internal, anyelement)
	RENAME TO bloom_agg_datasized_trans;
ALTER FUNCTION @extschema@.bloom_agg_trans(internal, anyelement, bigint, float8)
	RENAME TO bloom_agg_fixed_trans;
ALTER FUNCTION @extschema@.bloom_agg_trans(internal, anyelement, bigint, float8, text)
	RENAME TO bloom_agg_fixed_trans;
ALTER FUNCTION @extschema@.bloom_agg_final(internal)
	RENAME TO bloom_agg_datasized_final;
ALTER FUNCTION @extschema@.multibloom_agg_trans(internal, "any")
	RENAME TO multibloom_agg_datasized_trans;
ALTER FUNCTION @extschema@.multibloom_agg_auto_combine(internal, internal)
	RENAME TO multibloom_agg_datasized_combine;
ALTER FUNCTION @extschema@.multibloom_agg_auto_final(internal)
	RENAME TO multibloom_agg_datasized_final;

-- ---- multibloom_agg_sized is now multibloom_agg_fixed ----

-- The aggregate is renamed, so views and functions using it follow; the
-- old name is then created again as a deprecated alias.
ALTER FUNCTION @extschema@.multibloom_agg_sized_trans(internal, bigint, float8, "any")
	RENAME TO multibloom_agg_fixed_trans;
ALTER FUNCTION @extschema@.multibloom_agg_sized_final(internal)
	RENAME TO multibloom_agg_fixed_final;
ALTER AGGREGATE @extschema@.multibloom_agg_sized(bigint, float8, VARIADIC "any")
	RENAME TO multibloom_agg_fixed;

COMMENT ON FUNCTION @extschema@.multibloom_agg_fixed_trans(internal, bigint, float8, "any") IS
	'transition function of multibloom_agg_fixed';
COMMENT ON FUNCTION @extschema@.multibloom_agg_combine(internal, internal) IS
	'combine function of multibloom_agg_fixed and multibloom_union_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_serialize(internal) IS
	'serial function of multibloom_agg_fixed and multibloom_union_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_deserialize(bytea, internal) IS
	'deserial function of multibloom_agg_fixed and multibloom_union_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_final(internal) IS
	'final function of multibloom_union_agg';
COMMENT ON FUNCTION @extschema@.multibloom_agg_fixed_final(internal) IS
	'final function of multibloom_agg_fixed';

COMMENT ON AGGREGATE @extschema@.multibloom_agg_fixed(bigint, float8, "any") IS
	'filter of all rows with the shape of multibloom_empty(number of values, capacity, fpp), so results of different partitions unite';

-- The name of multibloom_agg_fixed in version 1.0.
CREATE AGGREGATE @extschema@.multibloom_agg_sized(capacity bigint, fpp float8, VARIADIC "any") (
	SFUNC = @extschema@.multibloom_agg_fixed_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.multibloom_agg_fixed_final,
	COMBINEFUNC = @extschema@.multibloom_agg_combine,
	SERIALFUNC = @extschema@.multibloom_agg_serialize,
	DESERIALFUNC = @extschema@.multibloom_agg_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.multibloom_agg_sized(bigint, float8, "any") IS
	'deprecated: the former name of multibloom_agg_fixed, which it equals; use multibloom_agg_fixed';

-- ---- bloom: order, hash and their operator classes ----

CREATE FUNCTION @extschema@.bloom_lt(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_le(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_gt(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ge(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_cmp(@extschema@.bloom, @extschema@.bloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'bloom_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_lt(@extschema@.bloom, @extschema@.bloom) IS
	'true if the first filter sorts before the second (an arbitrary but stable total order)';
COMMENT ON FUNCTION @extschema@.bloom_le(@extschema@.bloom, @extschema@.bloom) IS
	'true if the first filter sorts before the second or equals it';
COMMENT ON FUNCTION @extschema@.bloom_gt(@extschema@.bloom, @extschema@.bloom) IS
	'true if the first filter sorts after the second';
COMMENT ON FUNCTION @extschema@.bloom_ge(@extschema@.bloom, @extschema@.bloom) IS
	'true if the first filter sorts after the second or equals it';
COMMENT ON FUNCTION @extschema@.bloom_cmp(@extschema@.bloom, @extschema@.bloom) IS
	'-1, 0 or 1 as the first filter sorts before, equal to or after the second (btree support)';

-- Hashes of a filter itself (its shape and bits), for the hash operator
-- class; bloom_hash is the hash of a value added to a filter.
CREATE FUNCTION @extschema@.hash_bloom(@extschema@.bloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'hash_bloom' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.hash_bloom_extended(@extschema@.bloom, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'hash_bloom_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.hash_bloom(@extschema@.bloom) IS
	'32-bit hash of a filter''s shape and bits, equal for equal filters (hash support)';
COMMENT ON FUNCTION @extschema@.hash_bloom_extended(@extschema@.bloom, bigint) IS
	'64-bit hash of a filter''s shape and bits with a seed, equal for equal filters (hash support)';

CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR CLASS @extschema@.bloom_ops
	DEFAULT FOR TYPE @extschema@.bloom USING btree AS
	OPERATOR 1 @extschema@.< ,
	OPERATOR 2 @extschema@.<= ,
	OPERATOR 3 @extschema@.= ,
	OPERATOR 4 @extschema@.>= ,
	OPERATOR 5 @extschema@.> ,
	FUNCTION 1 @extschema@.bloom_cmp(@extschema@.bloom, @extschema@.bloom);

CREATE OPERATOR CLASS @extschema@.bloom_ops
	DEFAULT FOR TYPE @extschema@.bloom USING hash AS
	OPERATOR 1 @extschema@.= ,
	FUNCTION 1 @extschema@.hash_bloom(@extschema@.bloom),
	FUNCTION 2 @extschema@.hash_bloom_extended(@extschema@.bloom, bigint);

-- ---- multibloom: order, hash and their operator classes ----

CREATE FUNCTION @extschema@.multibloom_lt(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_le(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_gt(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_ge(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_cmp(@extschema@.multibloom, @extschema@.multibloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'multibloom_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_lt(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if the first filter sorts before the second (an arbitrary but stable total order)';
COMMENT ON FUNCTION @extschema@.multibloom_le(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if the first filter sorts before the second or equals it';
COMMENT ON FUNCTION @extschema@.multibloom_gt(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if the first filter sorts after the second';
COMMENT ON FUNCTION @extschema@.multibloom_ge(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if the first filter sorts after the second or equals it';
COMMENT ON FUNCTION @extschema@.multibloom_cmp(@extschema@.multibloom, @extschema@.multibloom) IS
	'-1, 0 or 1 as the first filter sorts before, equal to or after the second (btree support)';

-- Hashes of a filter itself (its shape and bits), for the hash operator
-- class.
CREATE FUNCTION @extschema@.hash_multibloom(@extschema@.multibloom) RETURNS integer
	AS 'MODULE_PATHNAME', 'hash_multibloom' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.hash_multibloom_extended(@extschema@.multibloom, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'hash_multibloom_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.hash_multibloom(@extschema@.multibloom) IS
	'32-bit hash of a filter''s shape and bits, equal for equal filters (hash support)';
COMMENT ON FUNCTION @extschema@.hash_multibloom_extended(@extschema@.multibloom, bigint) IS
	'64-bit hash of a filter''s shape and bits with a seed, equal for equal filters (hash support)';

CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR CLASS @extschema@.multibloom_ops
	DEFAULT FOR TYPE @extschema@.multibloom USING btree AS
	OPERATOR 1 @extschema@.< ,
	OPERATOR 2 @extschema@.<= ,
	OPERATOR 3 @extschema@.= ,
	OPERATOR 4 @extschema@.>= ,
	OPERATOR 5 @extschema@.> ,
	FUNCTION 1 @extschema@.multibloom_cmp(@extschema@.multibloom, @extschema@.multibloom);

CREATE OPERATOR CLASS @extschema@.multibloom_ops
	DEFAULT FOR TYPE @extschema@.multibloom USING hash AS
	OPERATOR 1 @extschema@.= ,
	FUNCTION 1 @extschema@.hash_multibloom(@extschema@.multibloom),
	FUNCTION 2 @extschema@.hash_multibloom_extended(@extschema@.multibloom, bigint);

-- ---- = of both types: usable by hash and merge joins ----

-- ALTER OPERATOR cannot set these before PostgreSQL 17, so the catalog row
-- is updated, as CREATE OPERATOR ... HASHES, MERGES would have written it.
UPDATE pg_catalog.pg_operator SET oprcanhash = true, oprcanmerge = true
WHERE oid OPERATOR(pg_catalog.=) ANY (ARRAY[
	'@extschema@.=(@extschema@.bloom, @extschema@.bloom)'::pg_catalog.regoperator,
	'@extschema@.=(@extschema@.multibloom, @extschema@.multibloom)'::pg_catalog.regoperator]::pg_catalog.oid[]);

-- ---- the matrix layout: uneven groups, a tie rule ----

COMMENT ON FUNCTION @extschema@.bloom_empty_matrix(integer, bigint, integer, integer) IS
	'empty matrix (M-BMBF) filter: rows x row_bits bits, nhashes bits per value, locators candidate rows per value (1 <= locators <= rows, groups as even as possible); ties go to the emptier row';

CREATE FUNCTION @extschema@.bloom_empty_matrix(
	"rows" integer, row_bits bigint, nhashes integer, locators integer, ties text)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_matrix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty_matrix(integer, bigint, integer, integer, text) IS
	'empty matrix (M-BMBF) filter with a tie rule: ''emptier'' (the default, rows fill together) or ''first'' (the paper''s Table 1: groups fill one after another)';

CREATE FUNCTION @extschema@.bloom_matrix_ties(f @extschema@.bloom)
	RETURNS text
	AS 'MODULE_PATHNAME', 'bloom_matrix_ties' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_matrix_ties(@extschema@.bloom) IS
	'how a matrix filter breaks ties between candidate rows that need equally few new bits: ''emptier'' or ''first''';

-- ---- entry points ----

-- The library's entry points took the same names (it still answers to the
-- 1.0 names, for databases not yet updated): point the functions at them.
CREATE OR REPLACE FUNCTION @extschema@.bloom_agg_datasized_trans(internal, anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bloom_agg_datasized_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.bloom_agg_datasized_final(internal)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_agg_datasized_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.multibloom_agg_datasized_trans(internal, VARIADIC "any")
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_datasized_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.multibloom_agg_datasized_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_datasized_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.multibloom_agg_datasized_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_agg_datasized_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.multibloom_agg_datasized_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_datasized_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.multibloom_agg_datasized_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_datasized_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.multibloom_agg_fixed_trans(internal, capacity bigint, fpp float8, VARIADIC "any")
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_fixed_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.multibloom_agg_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'multibloom_agg_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.multibloom_agg_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'multibloom_agg_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.multibloom_agg_fixed_final(internal)
	RETURNS @extschema@.multibloom
	AS 'MODULE_PATHNAME', 'multibloom_agg_fixed_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- ---- set operations ignore a NULL argument, as their aggregates do ----

ALTER FUNCTION @extschema@.bloom_union(@extschema@.bloom, @extschema@.bloom)
	CALLED ON NULL INPUT;
ALTER FUNCTION @extschema@.bloom_intersect(@extschema@.bloom, @extschema@.bloom)
	CALLED ON NULL INPUT;
ALTER FUNCTION @extschema@.multibloom_union(@extschema@.multibloom, @extschema@.multibloom)
	CALLED ON NULL INPUT;
COMMENT ON FUNCTION @extschema@.bloom_union(@extschema@.bloom, @extschema@.bloom) IS
	'bitwise OR of two filters of the same shape: the union of their sets; a NULL argument is ignored';
COMMENT ON FUNCTION @extschema@.bloom_intersect(@extschema@.bloom, @extschema@.bloom) IS
	'bitwise AND of two filters of the same shape: contains at least their common values; a NULL argument is ignored';
COMMENT ON FUNCTION @extschema@.multibloom_union(@extschema@.multibloom, @extschema@.multibloom) IS
	'part-by-part OR of two filters of the same shape: the union of their rows; a NULL argument is ignored';
