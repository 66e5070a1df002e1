-- bloomfilter: comparing multibloom filters.  Two are equal when they have
-- the same number of attributes and every part (attributes, then the
-- verification filter) is an equal bloom filter; the row and insert counts
-- are not compared.
--
-- Operator classes as for bloom (15_bloom_comparison.sql): the order is by
-- number of attributes, then part by part in bloom's order; it means
-- nothing beyond being total, consistent with = and stable.

CREATE FUNCTION @extschema@.multibloom_eq(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.multibloom_ne(@extschema@.multibloom, @extschema@.multibloom) RETURNS boolean
	AS 'MODULE_PATHNAME', 'multibloom_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.multibloom_eq(@extschema@.multibloom, @extschema@.multibloom) IS
	'true if both filters have the same number of attributes and every part the same shape and bits';
COMMENT ON FUNCTION @extschema@.multibloom_ne(@extschema@.multibloom, @extschema@.multibloom) IS
	'negation of multibloom_eq';

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

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel,
	HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.multibloom, RIGHTARG = @extschema@.multibloom,
	FUNCTION = @extschema@.multibloom_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel
);
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
