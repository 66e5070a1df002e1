/*
 * layout_matrix_model.h
 *	  How a matrix filter fills: a model of the 'matrix' layout's insertion
 *	  rule, from which its statistics are computed (bf_matrix_estimate_count
 *	  in layout_matrix.c).  Plain arithmetic on fills; it reads no filter,
 *	  and of the layout it knows only how rows form groups
 *	  (layout_matrix_groups.h): the layout calls the model, never the
 *	  reverse.
 *
 *	  The rows of a group fill alike (a value's candidate in a group is a
 *	  uniform choice among its rows), so the state of a filter along its way
 *	  is the fill x_g of each group.  A value's new bits in its candidate of
 *	  group g are N_g ~ Binomial(k, 1 - x_g), independent across groups, and
 *	  the rule picks the candidate; so each group's expected share of a
 *	  value's new bits is a function of the fills.  Integrating that from
 *	  the empty filter until the bits set equal a filter's gives the number
 *	  of values it took.  Unlike the classic -(m/k) ln(1 - x), the model
 *	  knows that longest bit match sets fewer than k new bits per value,
 *	  that groups of unequal size fill at unequal speed, and that "first"
 *	  ties fill the groups one after another.  doc/matrix.md, "Statistics",
 *	  derives it and gives its measured error.
 */
#ifndef LAYOUT_MATRIX_MODEL_H
#define LAYOUT_MATRIX_MODEL_H

#include "bf_base.h"

/* The shape and rule the model follows. */
typedef struct BfMatrixModelShape
{
	uint32_t	rows;
	uint32_t	locators;		/* s, at most BLOOM_MATRIX_MAX_LOCATORS */
	uint32_t	nhashes;		/* k, at most BLOOM_MAX_NHASHES */
	uint64_t	row_bits;
	bool		ties_first;		/* ties to the first candidate, not the emptier */
} BfMatrixModelShape;

/*
 * Number of values a filter of this shape and rule takes to set a fraction
 * `fill` (0 <= fill < 1) of its bits; INFINITY if the model saturates.
 */
extern double bf_matrix_model_count(const BfMatrixModelShape *shape, double fill);

#endif							/* LAYOUT_MATRIX_MODEL_H */
