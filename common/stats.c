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

/* The 1-based rank j of the interval's low end for n values: the largest j
 * with P(B <= j - 1) <= 2.5 %, B ~ Binomial(n, 1/2) (the number of values
 * below the true median); the high end is n + 1 - j.  Exact up to 1000
 * values (0.5^n is still a normal double), the normal approximation above
 * (Le Boudec, Performance Evaluation of Computer and Communication
 * Systems, 2010, thm. 2.1).  Below 6 values no pair of order statistics
 * holds 95 %: 1, the sample's range. */
static int ci_rank(int n)
{
    if (n > 1000) {
        int j = (int)floor(0.5 * n - 0.98 * sqrt((double)n));
        return j < 1 ? 1 : j;
    }
    double p = ldexp(1.0, -n), cum = 0; /* P(B = i), P(B <= i - 1) */
    int j = 0;
    for (int i = 0; i < n; i++) {
        if (cum + p > 0.025)
            break;
        cum += p;
        j = i + 1;
        p = p * (n - i) / (i + 1);
    }
    return j < 1 ? 1 : j;
}

void cs_median_ci(const double *sorted, int n, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = *hi = 0;
        return;
    }
    int j = ci_rank(n);
    *lo = sorted[j - 1];
    *hi = sorted[n - j];
}
