/*
 * layout_matrix_model.c
 *	  How a matrix filter fills: see layout_matrix_model.h.
 *
 *	  The integration runs in steps of the bits set.  In each step a value
 *	  adds bits[g] new bits to group g on average (value_bits); the groups'
 *	  fills move at those rates (advance) and the step's bits divided by
 *	  their sum is the step's number of values.  Two events change the
 *	  rates abruptly, and a step stops at them and finishes under the new
 *	  rates: a group reaching half full (it takes no more values until every
 *	  group is full), and, with ties to the emptier row, an emptier group
 *	  catching up with a fuller one (from then on they share the ties, see
 *	  rates()).  Without the stops a group would run past a fill where the
 *	  rule changes for up to a step, which biases the count by several
 *	  percent at 256 steps.
 */
#include "layout_matrix_model.h"

#include "layout_matrix_groups.h"

#include <string.h>

#define MAX_S	BLOOM_MATRIX_MAX_LOCATORS

/* Fills closer than this are one fill: groups that met rise together. */
#define SAME_FILL	1e-12

typedef struct Model
{
	uint32_t	k,
				s;
	bool		ties_first;
	double		nbits,
				group_bits[MAX_S],	/* bits of each group */
				pmf[MAX_S][BLOOM_MAX_NHASHES + 2],	/* P(N_g = j) */
				tail[MAX_S][BLOOM_MAX_NHASHES + 2];	/* P(N_g >= j) */
} Model;

static inline bool
is_full(double x)
{
	return x >= 0.5;
}

/* Binomial(k, 1 - x) probabilities of a candidate of fill x. */
static void
binomial(double x, uint32_t k, double *pmf, double *tail)
{
	double		p = 1.0 - x;

	/* the recurrence divides by the larger of p and x, so it stays exact */
	if (p >= x)
	{
		pmf[k] = pow(p, k);
		for (uint32_t j = k; j >= 1; j--)
			pmf[j - 1] = pmf[j] * j / (k - j + 1) * x / p;
	}
	else
	{
		pmf[0] = pow(x, k);
		for (uint32_t j = 0; j < k; j++)
			pmf[j + 1] = pmf[j] * (k - j) / (j + 1) * p / x;
	}
	tail[k + 1] = 0.0;
	for (uint32_t j = k + 1; j >= 1; j--)
		tail[j - 1] = tail[j] + pmf[j - 1];
}

static inline bool
same_fill(double a, double b)
{
	return fabs(a - b) <= SAME_FILL;
}

/*
 * The groups that are not full in tie order: by index for "first" ties; by
 * fill for "emptier" ties, and at one fill by key (which size wins ties),
 * then index.  Returns how many.
 */
static uint32_t
tie_order(const Model *m, const double *x, const uint32_t *key, uint32_t *order)
{
	uint32_t	n = 0;

	for (uint32_t g = 0; g < m->s; g++)
	{
		uint32_t	i;

		if (is_full(x[g]))
			continue;
		for (i = n++; i > 0 && !m->ties_first; i--)
		{
			uint32_t	h = order[i - 1];

			if (same_fill(x[h], x[g]) ? key[g] >= key[h] : x[g] > x[h])
				break;
			order[i] = h;
		}
		order[i] = g;
	}
	return n;
}

/* True if g and h fill as one: same fill, same size, same key. */
static inline bool
alike(const Model *m, const double *x, const uint32_t *key, uint32_t g, uint32_t h)
{
	return same_fill(x[g], x[h]) && key[g] == key[h] &&
		m->group_bits[g] == m->group_bits[h];
}

/*
 * Every candidate full: the least-filled takes the value whatever its new
 * bits, which keeps all rows at one fill x; a value adds k (1 - x) bits
 * unless another candidate already holds all of its bits.
 */
static double
value_bits_all_full(const Model *m, const double *x, double *bits)
{
	double		mean = 0.0,
				total;

	for (uint32_t g = 0; g < m->s; g++)
		mean += x[g] * m->group_bits[g] / m->nbits;
	total = m->k * (1.0 - mean) * pow(1.0 - pow(mean, m->k), (double) m->s - 1);
	for (uint32_t g = 0; g < m->s; g++)
		bits[g] = total * m->group_bits[g] / m->nbits;
	return total;
}

/*
 * Expected new bits one value adds to each group, bits[g], at fills x[g],
 * with ties between groups of one fill broken by their keys; returns
 * their sum.  A value adds nothing when some candidate already holds all
 * its bits (N = 0).  Otherwise the winner is the candidate with the fewest
 * new bits among those not full.  With the groups not full in tie order
 * and cut into clusters of alike groups (which share their bits evenly),
 * cluster c's minimum is j and wins when the clusters before it (which win
 * ties against it) all have N > j and those after it N >= j; prefix and
 * suffix products over the clusters give that for every j at O(s k).
 */
static double
value_bits(Model *m, const double *x, const uint32_t *key, double *bits)
{
	uint32_t	order[MAX_S],
				start[MAX_S + 1],	/* cluster c is order[start[c] .. start[c + 1]) */
				nc = 0,
				n;
	double		strict[MAX_S],		/* P(all members N > j) */
				loose[MAX_S],		/* P(all members N >= j) */
				after[MAX_S + 1],
				cluster_bits[MAX_S] = {0.0},
				blocked = 1.0,		/* P(no full candidate holds every bit) */
				total = 0.0;

	n = tie_order(m, x, key, order);
	if (n == 0)
		return value_bits_all_full(m, x, bits);
	for (uint32_t g = 0; g < m->s; g++)
	{
		bits[g] = 0.0;
		if (is_full(x[g]))
			blocked *= 1.0 - pow(x[g], m->k);	/* P(N >= 1) */
		else
			binomial(x[g], m->k, m->pmf[g], m->tail[g]);
	}
	for (uint32_t i = 0; i < n; i++)
		if (i == 0 || m->ties_first || !alike(m, x, key, order[i], order[i - 1]))
			start[nc++] = i;
	start[nc] = n;

	for (uint32_t j = 1; j <= m->k; j++)
	{
		double		before = blocked;

		for (uint32_t c = 0; c < nc; c++)
		{
			strict[c] = loose[c] = 1.0;
			for (uint32_t i = start[c]; i < start[c + 1]; i++)
			{
				strict[c] *= m->tail[order[i]][j + 1];
				loose[c] *= m->tail[order[i]][j];
			}
		}
		after[nc] = 1.0;
		for (uint32_t c = nc; c > 0; c--)
			after[c - 1] = after[c] * loose[c - 1];
		for (uint32_t c = 0; c < nc; c++)
		{
			cluster_bits[c] += j * (loose[c] - strict[c]) * before * after[c + 1];
			before *= strict[c];
		}
	}
	for (uint32_t c = 0; c < nc; c++)
	{
		for (uint32_t i = start[c]; i < start[c + 1]; i++)
			bits[order[i]] = cluster_bits[c] / (start[c + 1] - start[c]);
		total += cluster_bits[c];
	}
	return total;
}

/*
 * Ties at one fill.  The rows of a real filter are never exactly level: a
 * tie goes to the row that is a few bits emptier, which keeps groups of
 * one size level (they are alike, and share their bits evenly).  Groups of
 * the two sizes (r mod s groups have a row more) are not alike: the
 * smaller are a value's candidates more often per row.  If giving the ties
 * to the larger lets them rise faster, and giving them to the smaller lets
 * those rise faster, the two stay level, their ties mixed in the proportion
 * that keeps them so; otherwise the faster side pulls ahead and the ties go
 * to the other.  A group's key says which side wins ties (0 wins).
 */

/* The rise of fill per value of the groups at fill x0 of each size. */
static void
rise_by_size(const Model *m, const double *x, double x0, const double *bits,
			 double *larger, double *smaller)
{
	double		big = 0.0;

	for (uint32_t g = 0; g < m->s; g++)
		big = fmax(big, m->group_bits[g]);
	*larger = *smaller = 0.0;
	for (uint32_t g = 0; g < m->s; g++)
		if (same_fill(x[g], x0) && !is_full(x[g]))
		{
			if (m->group_bits[g] == big)
				*larger = fmax(*larger, bits[g] / m->group_bits[g]);
			else
				*smaller = fmax(*smaller, bits[g] / m->group_bits[g]);
		}
}

/* The keys with the larger (or the smaller) groups winning ties. */
static void
size_keys(const Model *m, bool small_first, uint32_t *key)
{
	double		big = 0.0;

	for (uint32_t g = 0; g < m->s; g++)
		big = fmax(big, m->group_bits[g]);
	for (uint32_t g = 0; g < m->s; g++)
		key[g] = (m->group_bits[g] == big) == small_first;
}

/* value_bits with the ties between the two sizes decided as above. */
static double
rates(Model *m, const double *x, double *bits)
{
	uint32_t	key[MAX_S],
				key2[MAX_S];
	double		other[MAX_S],
				total,
				total2,
				lg1,
				sm1,
				lg2,
				sm2,
				d1,
				d2,
				theta;
	int			pair = -1;

	size_keys(m, false, key);
	total = value_bits(m, x, key, bits);
	if (m->ties_first)
		return total;
	for (uint32_t g = 0; g < m->s && pair < 0; g++)
		for (uint32_t h = 0; h < m->s; h++)
			if (!is_full(x[g]) && same_fill(x[g], x[h]) &&
				m->group_bits[g] > m->group_bits[h])
				pair = (int) g;
	if (pair < 0)
		return total;
	size_keys(m, true, key2);
	total2 = value_bits(m, x, key2, other);
	rise_by_size(m, x, x[pair], bits, &lg1, &sm1);
	rise_by_size(m, x, x[pair], other, &lg2, &sm2);
	d1 = lg1 - sm1;				/* ties to the larger groups */
	d2 = lg2 - sm2;				/* ties to the smaller groups */
	if (d1 >= 0 && d2 <= 0)
		theta = d1 - d2 > 0 ? -d2 / (d1 - d2) : 0.5;
	else
		theta = d1 < 0 ? 1.0 : 0.0;	/* the smaller pull ahead: ties to the larger */
	for (uint32_t g = 0; g < m->s; g++)
		bits[g] = theta * bits[g] + (1 - theta) * other[g];
	return theta * total + (1 - theta) * total2;
}

/*
 * Moves the fills by `add` bits at the rates bits[g] / per_value, stopping
 * early at the first event (a group reaching one half while some group is
 * not full; with emptier ties, an emptier group reaching a fuller one).
 * Returns the bits placed.
 */
static double
advance(const Model *m, double *x, const double *bits, double per_value, double add)
{
	double		rise[MAX_S],
				part = 1.0,		/* the fraction of add before the first event */
				placed = 0.0;
	bool		all_full = true;

	for (uint32_t g = 0; g < m->s; g++)
	{
		rise[g] = add * bits[g] / per_value / m->group_bits[g];
		all_full &= is_full(x[g]);
	}
	for (uint32_t g = 0; g < m->s && !all_full; g++)
	{
		if (is_full(x[g]))
			continue;
		if (x[g] + rise[g] > 0.5)
			part = fmin(part, (0.5 - x[g]) / rise[g]);
		for (uint32_t h = 0; h < m->s && !m->ties_first; h++)
			if (!is_full(x[h]) && x[h] > x[g] + SAME_FILL && x[g] + rise[g] > x[h] + rise[h])
				part = fmin(part, (x[h] - x[g]) / (rise[g] - rise[h]));
	}
	for (uint32_t g = 0; g < m->s; g++)
	{
		double		to = fmin(x[g] + part * rise[g], 1.0);

		placed += (to - x[g]) * m->group_bits[g];
		x[g] = to;
	}
	/* land exactly on the event: one half, or the fill just met */
	for (uint32_t g = 0; g < m->s && !all_full; g++)
	{
		if (fabs(x[g] - 0.5) < 1e-9)
			x[g] = 0.5;
		for (uint32_t h = 0; h < g && !m->ties_first; h++)
			if (fabs(x[g] - x[h]) < 1e-9)
				x[g] = x[h];
	}
	return placed;
}

/*
 * The model integrated by the midpoint rule over steps of equal length in
 * u = -ln(1 - fill), in which the values per step vary slowly (for s = 1
 * they are constant, and the result is the classic -(m / k) ln(1 - fill)
 * exactly).  A step that meets an event is finished in further passes
 * under the new rates.  256 steps keep the paper's shapes within 0.1% of
 * finer integration; a step costs O(s k), so the largest shapes take fewer
 * (64 at s = k = 64), which keeps bloom_info under 10 ms.
 */
double
bf_matrix_model_count(const BfMatrixModelShape *shape, double fill)
{
	const int	steps = (int) fmax(32, fmin(256, 262144.0 / (shape->locators * shape->nhashes)));
	double		u_end = -log1p(-fill),
				x[MAX_S],
				mid[MAX_S],
				bits[MAX_S],
				placed = 0.0,
				n = 0.0;
	Model		model;			/* 68 kB at most: the stack takes it */
	Model	   *m = &model;

	m->k = shape->nhashes;
	m->s = shape->locators;
	m->ties_first = shape->ties_first;
	m->nbits = (double) shape->rows * (double) shape->row_bits;
	for (uint32_t g = 0; g < m->s; g++)
	{
		x[g] = 0.0;
		m->group_bits[g] = (double) shape->row_bits *
			bf_matrix_group_size(shape->rows, shape->locators, g);
	}
	for (int i = 1; i <= steps; i++)
	{
		double		target = -m->nbits * expm1(-u_end * i / steps);

		/* each event is met once a step at most: 2 s passes suffice */
		for (uint32_t pass = 0; pass <= 2 * m->s && placed < target * (1 - 1e-12); pass++)
		{
			double		add = target - placed,
						per_value = rates(m, x, bits),
						now;

			if (!(per_value > 0.0))
				return INFINITY;	/* the model saturated */
			memcpy(mid, x, sizeof(double) * m->s);
			advance(m, mid, bits, per_value, add / 2);
			per_value = rates(m, mid, bits);
			if (!(per_value > 0.0))
				return INFINITY;
			now = advance(m, x, bits, per_value, add);
			n += now / per_value;
			placed += now;
		}
	}
	return n;
}
