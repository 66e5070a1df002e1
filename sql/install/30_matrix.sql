-- The 'matrix' layout (M-BMBF of Yang & Huang): explicit construction (with
-- a tie rule), per-row inspection and the tie rule of a filter.  bloom_empty(capacity, fpp, 'matrix') sizes one from a
-- capacity; every other bloom function works on it unchanged.

CREATE FUNCTION @extschema@.bloom_empty_matrix(
	"rows" integer, row_bits bigint, nhashes integer, locators integer)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_matrix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty_matrix(integer, bigint, integer, integer) IS
	'empty matrix (M-BMBF) filter: rows x row_bits bits, nhashes bits per value, locators candidate rows per value (1 <= locators <= rows, groups as even as possible); ties go to the emptier row';

CREATE FUNCTION @extschema@.bloom_empty_matrix(
	"rows" integer, row_bits bigint, nhashes integer, locators integer, ties text)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_matrix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty_matrix(integer, bigint, integer, integer, text) IS
	'empty matrix (M-BMBF) filter with a tie rule: ''emptier'' (the default, rows fill together) or ''first'' (the paper''s Table 1: groups fill one after another)';

CREATE FUNCTION @extschema@.bloom_matrix_row_bits(f @extschema@.bloom)
	RETURNS bigint[]
	AS 'MODULE_PATHNAME', 'bloom_matrix_row_bits' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_matrix_row_bits(@extschema@.bloom) IS
	'number of bits set in each row of a matrix filter, in row order (a row is full at half of its bits)';

CREATE FUNCTION @extschema@.bloom_matrix_ties(f @extschema@.bloom)
	RETURNS text
	AS 'MODULE_PATHNAME', 'bloom_matrix_ties' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_matrix_ties(@extschema@.bloom) IS
	'how a matrix filter breaks ties between candidate rows that need equally few new bits: ''emptier'' or ''first''';
