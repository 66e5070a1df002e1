/*
 * fpr_experiment.c
 *	  The false-positive rate of a classic Bloom filter for k = 1..5 hash
 *	  functions and m/n = 1..5 bits per value, measured with the extension's
 *	  core (src/core/) against the textbook approximation
 *	  (1 - e^{-kn/m})^k.
 *
 *	  For every (k, m/n): T independent trials; each builds a filter of
 *	  m = ratio * n bits from n distinct values and probes it with P values
 *	  never inserted (a disjoint range).  The rate is the total of false
 *	  positives over T * P probes; its standard error comes from the spread
 *	  of the T per-trial rates (which includes the filter-to-filter variation,
 *	  not only the binomial sampling error).
 *
 *	  Usage: fpr_experiment [n] [probes] [trials] [datafile]
 *	  (defaults 100000, 1000000, 5, no data file).  Markdown on stdout; the
 *	  data file gets "k ratio measured stderr theory" lines for gnuplot.
 */
#include "unit.h"				/* the unit tests' values (hash_int) */

#include "core/filter.h"

int
main(int argc, char **argv)
{
	uint64_t	n = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;
	uint64_t	probes = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
	int			trials = argc > 3 ? atoi(argv[3]) : 5;
	FILE	   *data = NULL;

	if (n < 1 || probes < 1 || trials < 2)
	{
		fprintf(stderr, "usage: fpr_experiment [n >= 1] [probes >= 1] [trials >= 2] [datafile]\n");
		return 2;
	}
	if (argc > 4 && (data = fopen(argv[4], "w")) == NULL)
	{
		perror(argv[4]);
		return 1;
	}
	if (data)
		fprintf(data, "# k m/n measured stderr theory\n");

	printf("| k | m/n | measured | ± std. error | theory (1 - e^{-kn/m})^k | measured / theory | exact (1 - (1 - 1/m)^{kn})^k |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|\n");
	for (uint32_t k = 1; k <= 5; k++)
		for (uint64_t ratio = 1; ratio <= 5; ratio++)
		{
			BloomShape	s = {.layout = BLOOM_LAYOUT_CLASSIC, .nbits = ratio * n, .nhashes = k};
			double		m = (double) (ratio * n),
						sum = 0,
						sumsq = 0,
						theory,
						exact,
						mean,
						se;
			uint64_t	fp_total = 0;

			for (int t = 0; t < trials; t++)
			{
				BloomFilter *f = unit_new_filter(&s);
				/* disjoint value ranges per trial and for the probes */
				uint64_t	base = ((uint64_t) t << 48) | ((uint64_t) k << 44) | (ratio << 40);
				uint64_t	fp = 0;
				double		rate;

				if (f == NULL)
				{
					fprintf(stderr, "out of memory\n");
					return 1;
				}
				for (uint64_t v = 0; v < n; v++)
					bf_insert(f, value(base + v));
				for (uint64_t v = 0; v < probes; v++)
					fp += bf_query(f, value(base + n + v));
				rate = (double) fp / probes;
				sum += rate;
				sumsq += rate * rate;
				fp_total += fp;
				free(f);
			}
			mean = (double) fp_total / ((double) probes * trials);
			se = sqrt(fmax(0, (sumsq - sum * sum / trials) / (trials - 1)) / trials);
			theory = pow(1 - exp(-(double) k * n / m), k);
			exact = pow(1 - exp((double) k * n * log1p(-1 / m)), k);
			printf("| %u | %llu | %.5f | %.5f | %.5f | %.4f | %.5f |\n",
				   k, (unsigned long long) ratio, mean, se, theory, mean / theory, exact);
			fflush(stdout);
			if (data)
				fprintf(data, "%u %llu %.6f %.6f %.6f\n", k, (unsigned long long) ratio,
						mean, se, theory);
		}
	printf("\nn = %llu values per filter, %llu probes per filter, %d filters per cell "
		   "(%.3g probes per cell)\n",
		   (unsigned long long) n, (unsigned long long) probes, trials,
		   (double) probes * trials);
	if (data)
		fclose(data);
	return 0;
}
