/* Collective timing: see timing.h for the method. */
#include "timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cs_timing_defaults(cs_timing_opts *o)
{
    o->warmup = 3;
    o->min_rounds = 5;
    o->max_rounds = 200;
    o->max_seconds = 1.0;
    o->rel_ci = 0.05;
    o->round_seconds = 100e-6;
    o->max_round_calls = 1000;
}

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

/* One round of r calls starting at call index *i; the allreduced (MAX)
 * values: [0] seconds per call, [1] seconds since t_start, [2] error flag. */
static int one_round(MPI_Comm comm, cs_timed_fn fn, void *arg, long *i, int r, double t_start,
                     double out[3])
{
    int rc = PMPI_Barrier(comm), err = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return rc;
    double t0 = PMPI_Wtime();
    for (int k = 0; k < r && err == MPI_SUCCESS; k++)
        err = fn(arg, (*i)++);
    double t1 = PMPI_Wtime();
    double v[3] = {(t1 - t0) / r, t1 - t_start, err != MPI_SUCCESS};
    rc = PMPI_Allreduce(v, out, 3, MPI_DOUBLE, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (err != MPI_SUCCESS)
        return err;
    return out[2] != 0 ? MPI_ERR_OTHER : MPI_SUCCESS; /* another rank failed */
}

int cs_time_collective(MPI_Comm comm, cs_timed_fn fn, void *arg, const cs_timing_opts *opts,
                       cs_timing *out)
{
    cs_timing_opts o;
    cs_timing_defaults(&o);
    if (opts) { /* zero = default */
        if (opts->warmup > 0) o.warmup = opts->warmup;
        if (opts->min_rounds > 0) o.min_rounds = opts->min_rounds;
        if (opts->max_rounds > 0) o.max_rounds = opts->max_rounds;
        if (opts->max_seconds > 0) o.max_seconds = opts->max_seconds;
        if (opts->rel_ci > 0) o.rel_ci = opts->rel_ci;
        if (opts->round_seconds > 0) o.round_seconds = opts->round_seconds;
        if (opts->max_round_calls > 0) o.max_round_calls = opts->max_round_calls;
    }
    if (o.max_rounds < o.min_rounds)
        o.max_rounds = o.min_rounds;
    memset(out, 0, sizeof *out);
    double *t = malloc(sizeof *t * (size_t)o.max_rounds * 2);
    if (!t)
        return MPI_ERR_NO_MEM;
    double *sorted = t + o.max_rounds, v[3];
    long i = 0;
    double start = PMPI_Wtime();

    /* Warm-up (first calls pay for connections, caches, topologies), then
     * up to 3 untimed rounds to size a round to >= round_seconds. */
    int rc = one_round(comm, fn, arg, &i, o.warmup, start, v);
    int r = 1;
    for (int cal = 0; cal < 3 && rc == MPI_SUCCESS; cal++) {
        rc = one_round(comm, fn, arg, &i, r, start, v);
        double per_round = v[0] * r;
        if (rc != MPI_SUCCESS || per_round >= 0.5 * o.round_seconds || r >= o.max_round_calls)
            break;
        double want = per_round > 0 ? ceil(r * o.round_seconds / per_round) : 16.0 * r;
        r = want > o.max_round_calls ? o.max_round_calls : (int)want;
    }

    int n = 0;
    while (rc == MPI_SUCCESS) {
        rc = one_round(comm, fn, arg, &i, r, start, v);
        if (rc != MPI_SUCCESS)
            break;
        t[n++] = v[0];
        memcpy(sorted, t, sizeof *t * (size_t)n);
        double med = cs_median_sorted(sorted, n), lo, hi;
        cs_median_ci(sorted, n, &lo, &hi);
        out->median_us = med * 1e6;
        out->min_us = sorted[0] * 1e6;
        out->max_us = sorted[n - 1] * 1e6;
        out->ci_lo_us = lo * 1e6;
        out->ci_hi_us = hi * 1e6;
        out->rounds = n;
        if (n >= o.min_rounds && med - lo <= o.rel_ci * med && hi - med <= o.rel_ci * med) {
            out->converged = 1;
            break;
        }
        if (n >= o.min_rounds && (n >= o.max_rounds || v[1] >= o.max_seconds))
            break;
    }
    out->calls_per_round = r;
    free(t);
    return rc;
}
