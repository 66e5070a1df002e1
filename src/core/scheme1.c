/*
 * scheme1.c
 *	  The false-positive floor of hash scheme 1: see scheme1.h.
 *
 *	  In units of one bit, the positions of scheme 1 are floor(u + i v) mod m,
 *	  i = 0 .. k-1, with u = h1 m / 2^64 and v = h2 m / 2^64 uniform on
 *	  [0, m) (the cubic term of enhanced double hashing, at most 41664 for
 *	  k = 64, moves them by less than 2^-15 of a bit for any m a filter can
 *	  have).  To a value whose k positions are distinct and unrelated to any
 *	  added value's, the bits look set independently with probability fill:
 *	  it answers wrongly with probability fill^k.  Two kinds of value do
 *	  worse, each filling a part of the (u, v) plane of a fixed size in bits
 *	  squared whatever k is, that is, a fraction 1/m (per fraction a/b) or
 *	  1/m^2 (per added value) of all values.  That is the floor.
 */
#include "scheme1.h"

/*
 * Probes whose positions repeat.  When v is within e of m a/b, a/b a
 * fraction in lowest terms with b < k, the positions fall on b tracks
 * i = r mod b, each advancing b e bits per step: a track of L steps covers
 * 1 + floor(s + w) distinct bits, w = b |e| (L - 1), s its uniform offset.
 * Such a value answers wrongly with probability
 *   fill^b * prod over tracks of fill^floor(w) (1 - frac(w) (1 - fill)).
 * Taking every track as (k - b) / b steps long and integrating over
 * |e| < 1/b (beyond, the tracks no longer meet), each of the phi(b)
 * fractions of denominator b contributes, in units of 1/m,
 *   J_b = 2 f^b (1 - f^(b+1)) (1 - f^(k-b)) / ((k-b) (b+1) (1-f) (1-f^b))
 *         - 2 f^k / b.
 * Checked against filters of random bits (no added values): within 4%.
 */
static double
repeating_positions(double f, uint32_t k)
{
	double		fk = pow(f, (double) k),
				sum = 0.0;

	for (uint32_t b = 1; b < k; b++)
	{
		double		fb = pow(f, (double) b);
		double		j = 2.0 * fb * (1.0 - fb * f) * (1.0 - fk / fb) /
			((double) (k - b) * (b + 1) * (1.0 - f) * (1.0 - fb)) - 2.0 * fk / b;
		uint32_t	phi = 0;

		/* phi(b), the numerators 0 <= a < b prime to b: b < 64, so count them */
		for (uint32_t a = 0; a < b; a++)
		{
			uint32_t	x = a,
						y = b;

			while (x != 0)
			{
				uint32_t	t = y % x;

				y = x;
				x = t;
			}
			phi += y == 1;
		}
		if (j > 0)
			sum += phi * j;
	}
	return sum;
}

/*
 * Probes that retrace an added value's positions: a value at
 * (u + j v + du, +-v + dv) meets the added value's positions on the
 * k - |j| indices they share, each with probability max(0, 1 - |du + i dv|),
 * and answers wrongly with probability fill^(k - met) (three met positions
 * or more: any two positions of any value meet as often under independent
 * positions).  Per added value that is c(k, fill) / m^2 of all values; the
 * table holds c, integrated numerically by `bench/core/scheme_floor.sh table`
 * (bench/core/scheme_floor.c explains the integral).  Read between its rows and
 * columns by interpolating log c linearly in log k and in fill.
 */
#define TABLE_KS	18
#define TABLE_FILLS	11

static const uint32_t table_k[TABLE_KS] = {
	3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 17, 20, 24, 28, 32, 40, 48, 64
};
static const double table_fill[TABLE_FILLS] = {
	0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9
};
static const double retrace_c[TABLE_KS][TABLE_FILLS] = {
	{0.7671, 0.767, 0.7663, 0.7609, 0.7464, 0.718, 0.6712, 0.6014, 0.504, 0.3743, 0.2079},	/* k = 3 */
	{0.4388, 0.5112, 0.6315, 0.8686, 1.092, 1.284, 1.422, 1.475, 1.406, 1.172, 0.7227},	/* k = 4 */
	{0.2559, 0.3024, 0.3963, 0.6443, 0.9646, 1.335, 1.714, 2.033, 2.188, 2.037, 1.389},	/* k = 5 */
	{0.1623, 0.1903, 0.2498, 0.4313, 0.7204, 1.133, 1.654, 2.219, 2.681, 2.778, 2.092},	/* k = 6 */
	{0.1096, 0.1277, 0.166, 0.2887, 0.5097, 0.8781, 1.43, 2.147, 2.896, 3.333, 2.769},	/* k = 7 */
	{0.07772, 0.09009, 0.1161, 0.1997, 0.3592, 0.6561, 1.165, 1.936, 2.9, 3.697, 3.385},	/* k = 8 */
	{0.05713, 0.066, 0.08452, 0.1434, 0.2578, 0.4857, 0.9215, 1.673, 2.764, 3.891, 3.923},	/* k = 9 */
	{0.04318, 0.04976, 0.06344, 0.1065, 0.1897, 0.3619, 0.7188, 1.406, 2.545, 3.945, 4.375},	/* k = 10 */
	{0.02643, 0.03035, 0.03845, 0.0635, 0.111, 0.2104, 0.4367, 0.9538, 2.024, 3.764, 5.029},	/* k = 12 */
	{0.01734, 0.01987, 0.02506, 0.04098, 0.07059, 0.1316, 0.2742, 0.6367, 1.533, 3.367, 5.39},	/* k = 14 */
	{0.01012, 0.01157, 0.01453, 0.02352, 0.03996, 0.07302, 0.1492, 0.3563, 0.9739, 2.657, 5.516},	/* k = 17 */
	{0.006406, 0.007309, 0.009154, 0.01473, 0.02482, 0.04478, 0.08971, 0.2121, 0.6176, 2.005, 5.312},	/* k = 20 */
	{0.003813, 0.004345, 0.005428, 0.008685, 0.01453, 0.02595, 0.05107, 0.1177, 0.3494, 1.337, 4.771},	/* k = 24 */
	{0.002446, 0.002785, 0.003475, 0.005541, 0.00923, 0.01637, 0.03187, 0.07198, 0.2106, 0.886, 4.115},	/* k = 28 */
	{0.001659, 0.001888, 0.002354, 0.003746, 0.006221, 0.01099, 0.02124, 0.0473, 0.1353, 0.5942, 3.461},	/* k = 32 */
	{0.0008564, 0.0009753, 0.001217, 0.001936, 0.003207, 0.005635, 0.0108, 0.02367, 0.06535, 0.2869, 2.348},	/* k = 40 */
	{0.0004913, 0.0005606, 0.0007012, 0.001119, 0.001857, 0.003259, 0.00622, 0.01351, 0.03656, 0.1548, 1.555},	/* k = 48 */
	{0.0001948, 0.0002237, 0.0002828, 0.0004593, 0.0007709, 0.001361, 0.002599, 0.005605, 0.01487, 0.05946, 0.6889},	/* k = 64 */
};

/* Index i with xs[i] <= x < xs[i+1], clamped to [0, n-2]. */
static int
bracket_fill(double x)
{
	int			i = 0;

	while (i < TABLE_FILLS - 2 && x >= table_fill[i + 1])
		i++;
	return i;
}

/* log c at row r of the table, interpolated in fill (clamped to the table). */
static double
log_c_at_row(int r, double fill)
{
	int			i = bracket_fill(fill);
	double		t = (fill - table_fill[i]) / (table_fill[i + 1] - table_fill[i]);

	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	return (1 - t) * log(retrace_c[r][i]) + t * log(retrace_c[r][i + 1]);
}

static double
retracing_positions(double f, uint32_t k)
{
	int			r = 0;
	double		t;

	if (k < 3)
		return 0.0;				/* no three positions to retrace */
	while (r < TABLE_KS - 2 && k >= table_k[r + 1])
		r++;
	t = (log((double) k) - log((double) table_k[r])) /
		(log((double) table_k[r + 1]) - log((double) table_k[r]));
	if (t > 1)
		t = 1;
	/* c n / m with n / m = -ln(1 - fill) / k */
	return exp((1 - t) * log_c_at_row(r, f) + t * log_c_at_row(r + 1, f)) *
		(-log1p(-f) / k);
}

double
bf_scheme1_floor(double fill, uint32_t k)
{
	if (!(fill > 0.0 && fill < 1.0) || k < 3)
		return 0.0;
	return repeating_positions(fill, k) + retracing_positions(fill, k);
}
