/*
 * bloom_matrix.c
 *	  SQL functions of the 'matrix' layout (M-BMBF): the explicit
 *	  constructor, the per-row view and the tie rule.  Every other function
 *	  works on the layout through the core's dispatch (core/filter.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "types/bloomfilter.h"
#include "core/layout_matrix.h"

PG_FUNCTION_INFO_V1(bloom_empty_matrix);
PG_FUNCTION_INFO_V1(bloom_matrix_row_bits);
PG_FUNCTION_INFO_V1(bloom_matrix_ties);

/* The header flag of a tie rule named in SQL ('emptier' or 'first'). */
static uint8
ties_flag(text *name)
{
	char	   *s = text_to_cstring(name);

	if (strcmp(s, BLOOM_MATRIX_TIES_EMPTIER) == 0)
		return 0;
	if (strcmp(s, BLOOM_MATRIX_TIES_FIRST) == 0)
		return BLOOM_FLAG_MATRIX_TIES_FIRST;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown tie rule \"%s\" for a matrix filter", s),
			 errhint("Valid rules are \"%s\" (the default: ties go to the emptier row) and \"%s\" (the paper's: ties go to the first candidate).",
					 BLOOM_MATRIX_TIES_EMPTIER, BLOOM_MATRIX_TIES_FIRST)));
	return 0;					/* not reached */
}

/*
 * bloom_empty_matrix(rows, row_bits, nhashes, locators [, ties]): the
 * paper's r, m, k, s, and how ties between candidates are broken.
 */
Datum
bloom_empty_matrix(PG_FUNCTION_ARGS)
{
	int32		rows = PG_GETARG_INT32(0);
	int64		row_bits = PG_GETARG_INT64(1);
	int32		nhashes = PG_GETARG_INT32(2);
	int32		locators = PG_GETARG_INT32(3);
	uint8		flags = PG_NARGS() > 4 ? ties_flag(PG_GETARG_TEXT_PP(4)) : 0;
	BloomShape	shape;
	BloomFilter *f;
	char		errbuf[BLOOM_ERRBUF_SIZE];

	check_at_least_one(rows, "number of rows");
	check_at_least_one(row_bits, "number of bits per row");
	check_at_least_one(nhashes, "number of hash functions");
	check_at_least_one(locators, "number of locators");
	/* rows * row_bits must not overflow before the shape check sees it */
	if ((uint64) row_bits > BLOOM_MAX_NBITS / (uint64) rows)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a matrix of %d rows x " INT64_FORMAT " bits exceeds the maximum of %llu bits (1 GB)",
						rows, row_bits, (unsigned long long) BLOOM_MAX_NBITS)));

	memset(&shape, 0, sizeof(shape));
	shape.layout = BLOOM_LAYOUT_MATRIX;
	shape.nbits = (uint64) rows * (uint64) row_bits;
	shape.nhashes = (uint32) nhashes;
	shape.rows = (uint32) rows;
	shape.locators = (uint32) locators;
	if (!bf_shape_check(&shape, errbuf))
		bloom_report_shape_error(errbuf);
	f = bloom_alloc(&shape);
	f->flags |= flags;
	PG_RETURN_BLOOM(f);
}

/* The layout's own rows: ERROR for a filter of another layout. */
static void
require_matrix(const BloomFilter *f, const char *function)
{
	if (f->layout != BLOOM_LAYOUT_MATRIX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s needs a filter of layout \"matrix\", not \"%s\"",
						function, bf_layout_name(f->layout))));
}

/* bloom_matrix_ties(f): 'emptier' or 'first'. */
Datum
bloom_matrix_ties(PG_FUNCTION_ARGS)
{
	const BloomFilter *f = PG_GETARG_BLOOM(0);

	require_matrix(f, "bloom_matrix_ties");
	PG_RETURN_TEXT_P(cstring_to_text(bf_matrix_ties_name(f)));
}

/* bloom_matrix_row_bits(f): the number of bits set in each row, in row order. */
Datum
bloom_matrix_row_bits(PG_FUNCTION_ARGS)
{
	const BloomFilter *f = PG_GETARG_BLOOM(0);
	const uint64 *counters;
	Datum	   *elems;

	require_matrix(f, "bloom_matrix_row_bits");
	/* rows * 8 bytes: bounded by the filter's own size, already in memory */
	counters = bf_matrix_counters_const(f);
	elems = palloc(sizeof(Datum) * f->rows);
	for (uint32 r = 0; r < f->rows; r++)
		elems[r] = Int64GetDatum((int64) counters[r]);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, (int) f->rows, INT8OID,
										  sizeof(int64), FLOAT8PASSBYVAL,
										  TYPALIGN_DOUBLE));
}
