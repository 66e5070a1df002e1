/*
 * multibloom.h
 *	  PostgreSQL glue of the multibloom type shared by its SQL functions
 *	  (multibloom.c) and its aggregates (multibloom_agg.c): values, shapes,
 *	  and rows given as VARIADIC "any".  Include postgres.h first.
 */
#ifndef MULTIBLOOM_H
#define MULTIBLOOM_H

#include "types/bloomfilter.h"
#include "core/multibloom.h"

extern const FilterType multibloom_type;

#define PG_GETARG_MULTIBLOOM(n) \
	((const MultiBloom *) filter_from_datum(PG_GETARG_DATUM(n), &multibloom_type))

/* ---- values ---- */

/* An empty multibloom of these part shapes, in the current memory context. */
extern MultiBloom *multibloom_alloc(int nattrs, const BloomShape *shapes);

/* ERROR unless 1 <= nattrs <= MULTIBLOOM_MAX_ATTRS. */
extern void multibloom_check_nattrs(int64 nattrs);

/* Every part sized for capacity at fpp: the shape of multibloom_empty. */
extern MultiBloom *multibloom_empty_for_capacity(int nattrs, int64 capacity, double fpp);

/* ERROR, describing both shapes, unless a and b can be united. */
extern void multibloom_check_compatible(const MultiBloom *a, const MultiBloom *b);

/*
 * a | b as a new value (compatible shapes): each part the size of the
 * smaller of the two, so data-sized filters of different sizes fold.
 */
extern MultiBloom *multibloom_union_new(const MultiBloom *a, const MultiBloom *b);

/* ---- rows given as VARIADIC "any" ---- */

/* One row: its attributes' 64-bit hashes (0 for NULL) and null flags. */
typedef struct MultiBloomRow
{
	uint64		hashes[MULTIBLOOM_MAX_ATTRS];
	bool		isnull[MULTIBLOOM_MAX_ATTRS];
} MultiBloomRow;

/*
 * The call site's cache for rows whose values start at argument
 * first_value_argno, either spread or as one VARIADIC array.
 */
extern FilterCallCache *multibloom_call_cache(FunctionCallInfo fcinfo, int first_value_argno);

/* Number of values in the row (before any filter exists to say how many). */
extern int	multibloom_row_width(FunctionCallInfo fcinfo, FilterCallCache *cache,
								 int first_value_argno);

/*
 * Reads and hashes the row for a multibloom of that hash scheme (every
 * part's, mbf_hash_scheme); ERROR (naming fname) unless it has nattrs
 * values.
 */
extern void multibloom_read_row(FunctionCallInfo fcinfo, FilterCallCache *cache,
								int first_value_argno, int nattrs, uint8 scheme,
								const char *fname, MultiBloomRow *row);

/*
 * Rows given as their attributes' hashes in the bigint[] of argument argno
 * (the hashed aggregates): its number of elements (0 for NULL), and the
 * row, read with the same ERRORs as multibloom_read_row.
 */
extern int	multibloom_hashed_row_width(FunctionCallInfo fcinfo, int argno);
extern void multibloom_read_hashed_row(FunctionCallInfo fcinfo, int argno, int nattrs,
									   const char *fname, MultiBloomRow *row);

/* The ERROR for a row of given values where nattrs were expected. */
pg_noreturn extern void multibloom_report_count_mismatch(const char *fname, int given, int nattrs);

#endif							/* MULTIBLOOM_H */
