/* Medians of measured times, with a distribution-free interval: the
 * replay's rounds (replay/timing.c) and autotune's paired runs. */
#ifndef COLLSEL_COMMON_STATS_H
#define COLLSEL_COMMON_STATS_H

/* Median of x[0..n) (x is sorted in place); 0 if n <= 0. */
double cs_median_sorted(double *x, int n);
/* Distribution-free 95 % CI of the median of the SORTED x[0..n): the order
 * statistics x(j), x(n + 1 - j) (1-based) with j the largest rank whose
 * binomial tail P(Bin(n, 1/2) <= j - 1) is at most 2.5 % (exact up to 1000
 * values; 6 and 7 values: the range, 9: 2nd to 8th, 41: 14th to 28th;
 * below 6 the sample's range, which then holds less than 95 %). */
void cs_median_ci(const double *sorted, int n, double *lo, double *hi);

#endif
