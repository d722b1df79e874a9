/* Medians and their intervals: see stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cs_median_sorted(double *x, int n)
{
    if (n <= 0)
        return 0;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

void cs_median_ci(const double *sorted, int n, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = *hi = 0;
        return;
    }
    /* 1-based order statistics (Le Boudec, Performance Evaluation of
     * Computer and Communication Systems, 2010, thm. 2.1 + normal approx.) */
    double half = 0.98 * sqrt((double)n);
    int j = (int)floor(0.5 * n - half), k = (int)ceil(0.5 * n + 1 + half);
    if (j < 1)
        j = 1;
    if (k > n)
        k = n;
    *lo = sorted[j - 1];
    *hi = sorted[k - 1];
}
