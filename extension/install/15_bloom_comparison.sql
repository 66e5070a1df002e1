-- bloomfilter: comparing bloom filters.  Two filters are equal when they
-- have the same shape (layout, bits, hashes, seed, rows, locators), the
-- same hash scheme and the same bits; the insert count is not compared.
--
-- The default btree and hash operator classes make SELECT DISTINCT,
-- GROUP BY, UNION, ORDER BY, hash and merge joins and indexes work on bloom
-- columns.  The order (src/ordering.c) is by shape, then hash scheme, then
-- the bits word by word: it means nothing beyond being total, consistent
-- with = and the same from release to release, so indexes stay valid.

CREATE FUNCTION @extschema@.bloom_eq(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.bloom_ne(@extschema@.bloom, @extschema@.bloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'bloom_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_eq(@extschema@.bloom, @extschema@.bloom) IS
	'true if both filters have the same shape and the same bits';
COMMENT ON FUNCTION @extschema@.bloom_ne(@extschema@.bloom, @extschema@.bloom) IS
	'true unless both filters have the same shape and the same bits';

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

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel,
	HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.bloom, RIGHTARG = @extschema@.bloom,
	FUNCTION = @extschema@.bloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel
);
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
