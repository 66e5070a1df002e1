/*
 * layout_matrix_groups.h
 *	  How the 'matrix' layout cuts its rows into groups, one per locating
 *	  hash: the arithmetic both the layout (layout_matrix.h) and the model
 *	  of how a matrix fills (layout_matrix_model.h) follow.  It sits below
 *	  both, so that the model needs nothing of the layout and the layout
 *	  alone calls the model.  Plain arithmetic on the shape's numbers.
 */
#ifndef LAYOUT_MATRIX_GROUPS_H
#define LAYOUT_MATRIX_GROUPS_H

#include <stdint.h>

/* At most this many locating hashes: a query reads one row per locator. */
#define BLOOM_MATRIX_MAX_LOCATORS	64

/*
 * Group g of a filter's s groups: rows [first, first + size).  The r rows
 * are spread as evenly as possible, the first r mod s groups one row
 * larger; when s divides r every group has r / s rows.
 */
static inline uint32_t
bf_matrix_group_first(uint32_t rows, uint32_t locators, uint32_t g)
{
	uint32_t	extra = rows % locators;

	return g * (rows / locators) + (g < extra ? g : extra);
}

static inline uint32_t
bf_matrix_group_size(uint32_t rows, uint32_t locators, uint32_t g)
{
	return rows / locators + (g < rows % locators ? 1 : 0);
}

#endif							/* LAYOUT_MATRIX_GROUPS_H */
