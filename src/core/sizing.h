/*
 * sizing.h
 *	  The rate model every layout's sizing uses: how the false-positive rate
 *	  of one filter, as its bits stand after n values, varies from filter to
 *	  filter, and the rate that 95% of filters stay under.  Plain arithmetic
 *	  on shapes; it reads no filter.
 *
 *	  The model is a filter of B equal blocks of w bits.  Each of n values
 *	  falls into one block, uniformly and independently, and sets k
 *	  independent uniform bits there; a foreign value reads one uniform
 *	  block and tests k uniform bits in it.  A filter's rate is then
 *	  R = (1/B) sum over blocks of (ones in the block / w)^k.
 *	  - classic: one block of m bits (B = 1);
 *	  - blocked: B blocks of 512 bits;
 *	  - matrix: its r rows as blocks, s of them read (see layout_matrix.c).
 *	  doc/layouts.md ("How the tail is bounded") states the computation in
 *	  full, so that a client can reproduce every shape.
 *
 *	  Layouts size themselves through bf_rate_quantile and the search
 *	  helpers here, and nothing else, so that two servers (or a server and
 *	  a client) asked for the same capacity and rate make the same shape.
 */
#ifndef BF_SIZING_H
#define BF_SIZING_H

#include "bf_base.h"

/* The share of filters a shape must keep under the requested rate. */
#define BF_SIZING_SHARE		0.95
/* Its standard normal quantile, Phi^-1(0.95). */
#define BF_SIZING_Z			1.6448536269514722

/*
 * Block loads are summed over one by one up to this variance (a standard
 * deviation of 20 values: every blocked filter of rate 0.5 or lower);
 * beyond it the block holds the mean load, its fill's variance widened by
 * the load's.
 */
#define BF_SIZING_EXACT_LOAD_VAR	400.0

/*
 * The rate that 95% of filters of the model (n values in `blocks` blocks of
 * block_bits bits, k bits each) stay under: the 95th percentile of the
 * lognormal law with R's mean and variance (doc/layouts.md gives the
 * formulas).  0 for n = 0.
 */
extern double bf_rate_quantile(double n, double block_bits, double blocks, uint32_t k);

/*
 * The fewest units u in [lo, max] (words of a classic filter, blocks, row
 * words) for which fits(u, arg) holds, given that it holds for every u past
 * the first that does; fits is assumed false below lo.  0 if it holds for
 * none up to max.  Searches by doubling from lo, then bisection, so a shape
 * costs O(log(u / lo)) evaluations.
 */
extern uint64_t bf_sizing_fewest(uint64_t lo, uint64_t max,
								 bool (*fits) (uint64_t units, void *arg), void *arg);

/*
 * The k of 1 .. max_k at which rate(k, arg) is lowest, and that rate: the
 * rate falls, then rises, with k (INFINITY, for a k that cannot do, only
 * below the ones that can), so the search walks from `start` towards lower
 * rates and stops where the rate rises again, and finds the k that a scan
 * of every k would.
 */
extern double bf_sizing_best_k(double (*rate) (uint32_t k, void *arg), void *arg,
							   uint32_t max_k, uint32_t start, uint32_t *best_k);

/*
 * The largest k worth trying for rate p when a probe reads `reads` rows
 * (1 for classic and blocked): ceil(log2(reads / p)), the optimal k of a
 * classic filter rounded up, at least 1.  A larger k buys nothing at
 * capacity and costs probe time.
 */
extern uint32_t bf_sizing_max_k(double fpp, uint32_t reads);

/*
 * True if rate fpp, with `reads` rows read per probe, needs no more than
 * BLOOM_MAX_NHASHES hash functions: round(log2(reads / fpp)), the optimal k,
 * at most 64.  Else false with a message naming fpp.
 */
extern bool bf_sizing_k_fits(double fpp, uint32_t reads, char *errbuf);

/*
 * The message of a filter too large for 1 GB: what (e.g. "a filter") for
 * capacity values at rate fpp needs more than BLOOM_MAX_NBITS, naming the
 * bits of the optimal classic filter at fpp / reads (bf_optimal_bits, in
 * whole words) when they alone exceed it.
 */
extern void bf_sizing_too_large(double capacity, double fpp, uint32_t reads,
								const char *what, char *errbuf);

#endif							/* BF_SIZING_H */
