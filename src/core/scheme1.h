/*
 * scheme1.h
 *	  The false-positive floor of hash scheme 1 (enhanced double hashing),
 *	  so that the statistics of a stored scheme-1 filter tell the rate it
 *	  really has.  New filters use scheme 2, which has no floor (bf_base.h).
 *
 *	  Plain C; includes only bf_base.h, so any layout may use it.
 */
#ifndef BF_SCHEME1_H
#define BF_SCHEME1_H

#include "bf_base.h"

/*
 * A scheme-1 filter of m bits and k hash functions, a fraction `fill` of its
 * bits set by values added to it, answers a value never added wrongly at
 * about
 *     fill^k + bf_scheme1_floor(fill, k) / m,
 * where fill^k is the rate of independent positions.  The floor is
 *     bf_scheme1_floor = W(fill, k) + c(k, fill) * n / m,
 * n = -(m/k) ln(1 - fill) the number of values the fill implies: W from
 * probes whose own positions repeat, c n / m^2 from probes that retrace an
 * added value's positions (scheme1.c derives both).  0 for k <= 2 and for
 * an empty or full filter.  Within 15% of the measured rate for
 * m >= 4 k^2 (bench/core/scheme_floor.c,
 * bench/results/scheme-floor-results.md); below that, positions wrap around
 * the filter and it reads low.
 */
extern double bf_scheme1_floor(double fill, uint32_t k);

#endif							/* BF_SCHEME1_H */
