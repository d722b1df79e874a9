/* Medians of measured times, with a distribution-free interval: the
 * replay's rounds (replay/timing.c) and autotune's paired runs. */
#ifndef COLLSEL_COMMON_STATS_H
#define COLLSEL_COMMON_STATS_H

/* Median of x[0..n) (x is sorted in place); 0 if n <= 0. */
double cs_median_sorted(double *x, int n);
/* Distribution-free 95 % CI of the median of the SORTED x[0..n): the order
 * statistics x[j], x[k] with j = floor(n/2 - 0.98 sqrt(n)), k = ceil(n/2 +
 * 0.98 sqrt(n)) (normal approximation of the binomial, clamped to the
 * sample: below 6 values it is the sample's range). */
void cs_median_ci(const double *sorted, int n, double *lo, double *hi);

#endif
