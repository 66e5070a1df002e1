/*
 * sizing.c
 *	  The rate model of the layouts' sizing: see sizing.h.
 *
 *	  For a block holding i values, the ones X after t = i k uniform throws
 *	  into w bits have the exact mean and variance of the occupancy law,
 *	    E X = w (1 - q1),  Var X = w q1 (1 - q1) + w (w - 1) (q2 - q1^2),
 *	    q1 = (1 - 1/w)^t,  q2 = (1 - 2/w)^t,
 *	  and X is close to normal (thousands of nearly independent bits), so a
 *	  block's rate (X/w)^a has the moments of a normal X:
 *	    E (X/w)^a = sum over even j <= a of C(a, j) u^(a-j) v^j (j-1)!!,
 *	    u = E X / w, v = sd X / w
 *	  (all terms positive; they fall fast, since a v / u is small).  The
 *	  loads of the blocks are Binomial(n, 1/B), summed over one by one, or
 *	  for loads of large variance folded into the fill's variance at the
 *	  mean load.  A filter's rate R is the mean of B block rates g; the
 *	  loads add up to n, so the part of g that follows the load linearly
 *	  cancels over the blocks, and Var R = (Var g - Cov(g, L)^2 / Var L) / B
 *	  (the blocks otherwise taken as independent).  R is positive and
 *	  skewed (a product of many small factors when B = 1, a mean of few
 *	  skewed terms when B is small), so its 95th percentile is taken from
 *	  the lognormal law of the same mean and variance.  Measured against
 *	  the exact occupancy law and against filters built by the layouts
 *	  themselves in test/unit/test_blocked.c, test/unit/test_rate_grid.c
 *	  and bench/core/rate_grid.c.
 */
#include "sizing.h"

/*
 * E (X/w)^a for a normal X of mean u w and standard deviation v w: the
 * series of the file header, summed until its terms stop mattering.
 */
static double
normal_power_mean(double u, double v, uint32_t a)
{
	double		ratio2,
				term,
				sum;

	if (u <= 0.0)
		return 0.0;
	ratio2 = (v / u) * (v / u);
	term = pow(u, (double) a);
	sum = term;
	for (uint32_t j = 0; j + 2 <= a; j += 2)
	{
		double		step = (double) (a - j) * (double) (a - j - 1) / (double) (j + 2) * ratio2;

		term *= step;
		sum += term;
		if (step < 1.0 && term <= 1e-17 * sum)
			break;
	}
	return sum;
}

/* Mean and variance of the fill X/w of w bits after t uniform throws (w >= 2). */
static void
occupancy(double w, double t, double *u, double *v2)
{
	double		q1,
				pair;

	if (t <= 0.0)
	{
		*u = 0.0;
		*v2 = 0.0;
		return;
	}
	q1 = exp(t * log1p(-1.0 / w));
	/* q2 / q1^2 = (1 - 1/(w-1)^2)^t, computed without cancellation */
	pair = w > 2.0 ? expm1(t * log1p(-1.0 / ((w - 1.0) * (w - 1.0)))) : -1.0;
	*u = -expm1(t * log1p(-1.0 / w));
	*v2 = (w * q1 * (1.0 - q1) + w * (w - 1.0) * q1 * q1 * pair) / (w * w);
	if (*v2 < 0.0)
		*v2 = 0.0;
}

/*
 * What the loads contribute: E g, E g^2 and E g L of a block's rate g, and
 * the weight they carry (the loads' probabilities up to a common factor).
 */
typedef struct Moments
{
	double		g,
				g2,
				gl,
				weight;
} Moments;

/*
 * Adds, with this weight, the moments of the rate (ones/w)^k of a block of
 * w bits holding `load` values.  Returns the weighted E g^2.
 */
static double
add_load(Moments *m, double w, double load, uint32_t k, double weight)
{
	double		u,
				v2,
				g,
				g2;

	occupancy(w, load * k, &u, &v2);
	g = weight * normal_power_mean(u, sqrt(v2), k);
	g2 = weight * normal_power_mean(u, sqrt(v2), 2 * k);
	m->g += g;
	m->g2 += g2;
	m->gl += g * load;
	m->weight += weight;
	return g2;
}

/* True when a load's share, and its weight, no longer count. */
static inline bool
negligible(const Moments *m, double share, double weight)
{
	return share < 1e-13 * m->g2 && weight < 1e-16 * m->weight;
}

/*
 * Loads Binomial(values, pb), summed outward from the mean load with
 * weights from the ratio of consecutive probabilities (1 at the mean load;
 * the sums are divided by the weights' sum at the end, so no factorial of
 * a large count is needed, which would cost the weights their last digits)
 * until the rest cannot count: past the mean, a load's share of E g^2
 * falls by a ratio that only falls further (the weights by values/load,
 * the rate by less and less as the block saturates), so once one share is
 * under half the one before and negligible, all further ones together are
 * too.  Below the mean, both the weights and the rates fall.
 */
static void
sum_over_loads(Moments *m, double w, double values, double pb, uint32_t k)
{
	double		odds = pb / (1.0 - pb),
				start = floor(values * pb),
				weight = 1.0,
				last = INFINITY;

	for (double i = start; i <= values; i += 1.0)
	{
		double		share = add_load(m, w, i, k, weight);

		if (share <= 0.5 * last && negligible(m, share, weight))
			break;
		last = share;
		weight *= (values - i) / (i + 1.0) * odds;
	}
	weight = 1.0;
	for (double i = start - 1.0; i >= 0.0; i -= 1.0)
	{
		weight *= (i + 1.0) / (values - i) / odds;
		if (negligible(m, add_load(m, w, i, k, weight), weight))
			break;
	}
	m->g /= m->weight;
	m->g2 /= m->weight;
	m->gl /= m->weight;
}

/*
 * Loads of variance above BF_SIZING_EXACT_LOAD_VAR: the fill is normal with
 * the occupancy variance at the mean load plus the load's variance times
 * the slope of the fill in the load squared, and g's covariance with the
 * load is, by Stein's lemma, slope * Var L * E d(fill^k)/d fill.
 */
static void
spread_load(Moments *m, double w, double mean, double load_var, uint32_t k)
{
	double		u,
				v2,
				v,
				slope = -(double) k * log1p(-1.0 / w) * exp(mean * k * log1p(-1.0 / w));

	occupancy(w, mean * k, &u, &v2);
	v = sqrt(v2 + slope * slope * load_var);
	m->g = normal_power_mean(u, v, k);
	m->g2 = normal_power_mean(u, v, 2 * k);
	m->gl = m->g * mean + slope * load_var * k * normal_power_mean(u, v, k - 1);
}

double
bf_rate_quantile(double n, double block_bits, double blocks, uint32_t k)
{
	double		values = ceil(n),
				pb = 1.0 / blocks,
				load_var = values * pb * (1.0 - pb),
				var,
				s2;
	Moments		m = {0.0, 0.0, 0.0, 0.0};

	if (values <= 0.0)
		return 0.0;
	if (blocks <= 1.0)
		add_load(&m, block_bits, values, k, 1.0);
	else if (load_var <= BF_SIZING_EXACT_LOAD_VAR)
		sum_over_loads(&m, block_bits, values, pb, k);
	else
		spread_load(&m, block_bits, values * pb, load_var, k);
	if (!(m.g > 0.0))
		return 0.0;
	var = m.g2 - m.g * m.g;
	/* the loads add up to n: the part of g that follows the load cancels */
	if (load_var > 0.0)
	{
		double		cov = m.gl - m.g * values * pb;

		var -= cov * cov / load_var;
	}
	var = fmax(var, 0.0) / blocks;
	s2 = log1p(var / (m.g * m.g));
	return m.g * exp(BF_SIZING_Z * sqrt(s2) - 0.5 * s2);
}

uint64_t
bf_sizing_fewest(uint64_t lo, uint64_t max, bool (*fits) (uint64_t units, void *arg),
				 void *arg)
{
	uint64_t	hi;

	if (lo < 1)
		lo = 1;
	if (lo > max)
		return 0;
	hi = lo;
	while (!fits(hi, arg))
	{
		if (hi >= max)
			return 0;
		lo = hi + 1;
		hi = hi > max / 2 ? max : 2 * hi;
	}
	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (fits(mid, arg))
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

double
bf_sizing_best_k(double (*rate) (uint32_t k, void *arg), void *arg,
				 uint32_t max_k, uint32_t start, uint32_t *best_k)
{
	uint32_t	k = start < 1 ? 1 : start > max_k ? max_k : start;
	double		best = rate(k, arg);
	int			step = 1;

	/* downwards if that is lower, else upwards */
	if (k > 1 && rate(k - 1, arg) < best)
		step = -1;
	for (;;)
	{
		uint32_t	next = k + step;
		double		q;

		if (next < 1 || next > max_k)
			break;
		q = rate(next, arg);
		if (!(q < best))
			break;
		best = q;
		k = next;
	}
	*best_k = k;
	return best;
}

uint32_t
bf_sizing_max_k(double fpp, uint32_t reads)
{
	double		k = ceil(log2((double) reads / fpp));

	return k < 1.0 ? 1 : k > 1e9 ? 1000000000u : (uint32_t) k;
}

bool
bf_sizing_k_fits(double fpp, uint32_t reads, char *errbuf)
{
	double		k = round(log2((double) reads / fpp));

	if (k <= BLOOM_MAX_NHASHES)
		return true;
	snprintf(errbuf, BLOOM_ERRBUF_SIZE,
			 "false-positive probability %g needs %.0f hash functions, more than the maximum %d",
			 fpp, k, BLOOM_MAX_NHASHES);
	return false;
}

void
bf_sizing_too_large(double capacity, double fpp, uint32_t reads, const char *what,
					char *errbuf)
{
	double		bits = ceil(ceil(bf_optimal_bits(capacity, fpp / reads)) / 64.0) * 64.0;

	if (bits > (double) BLOOM_MAX_NBITS)
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "%s for %.15g values at false-positive probability %g needs %.4g bits (%.4g MB), more than the maximum of %llu bits (1 GB)",
				 what, capacity, fpp, bits, bits / 8 / 1048576.0,
				 (unsigned long long) BLOOM_MAX_NBITS);
	else
		snprintf(errbuf, BLOOM_ERRBUF_SIZE,
				 "%s for %.15g values at false-positive probability %g needs more than the maximum of %llu bits (1 GB)",
				 what, capacity, fpp, (unsigned long long) BLOOM_MAX_NBITS);
}
