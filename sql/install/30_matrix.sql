-- The 'matrix' layout (M-BMBF of Yang & Huang): explicit construction and
-- per-row inspection.  bloom_empty(capacity, fpp, 'matrix') sizes one from a
-- capacity; every other bloom function works on it unchanged.

CREATE FUNCTION @extschema@.bloom_empty_matrix(
	"rows" integer, row_bits bigint, nhashes integer, locators integer)
	RETURNS @extschema@.bloom
	AS 'MODULE_PATHNAME', 'bloom_empty_matrix' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_empty_matrix(integer, bigint, integer, integer) IS
	'empty matrix (M-BMBF) filter: rows x row_bits bits, nhashes bits per value, locators candidate rows per value; rows must be a multiple of locators';

CREATE FUNCTION @extschema@.bloom_matrix_row_bits(f @extschema@.bloom)
	RETURNS bigint[]
	AS 'MODULE_PATHNAME', 'bloom_matrix_row_bits' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.bloom_matrix_row_bits(@extschema@.bloom) IS
	'number of bits set in each row of a matrix filter, in row order (a row is full at half of its bits)';
