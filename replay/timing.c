/* Collective timing: see timing.h for the method. */
#include "timing.h"

#include <math.h>

#include "common/stats.h"
#include "pattern.h"
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
    o->calls_per_round = 0;
    o->arrivals = NULL;
}

/* One round of r calls starting at call index *i; the allreduced (MAX)
 * values: [0] seconds per call, [1] seconds since t_start, [2] error flag,
 * [3] exit span per call (= [0] without arrivals), [4] exit skew per call
 * (0 without arrivals).  Under an arrival pattern (arr), cs_pat_round: [0]
 * is the mean completion per call. */
static int one_round(MPI_Comm comm, cs_timed_fn fn, void *arg, long *i, int r, double t_start,
                     struct cs_pat_run *arr, double out[5])
{
    if (arr) /* each call is timed on its own: a round need not be long */
        return cs_pat_round(comm, arr, fn, arg, i, r < CS_PAT_ROUND_CALLS ? r : CS_PAT_ROUND_CALLS,
                            t_start, out);
    int rc = PMPI_Barrier(comm), err = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return rc;
    double t0 = PMPI_Wtime();
    for (int k = 0; k < r && err == MPI_SUCCESS; k++)
        err = fn(arg, (*i)++);
    double t1 = PMPI_Wtime();
    double v[3] = {(t1 - t0) / r, t1 - t_start, err != MPI_SUCCESS};
    rc = PMPI_Allreduce(v, out, 3, MPI_DOUBLE, MPI_MAX, comm);
    out[3] = out[0];
    out[4] = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    if (err != MPI_SUCCESS)
        return err;
    return out[2] != 0 ? MPI_ERR_OTHER : MPI_SUCCESS; /* another rank failed */
}

static void apply_opts(cs_timing_opts *o, const cs_timing_opts *opts)
{
    cs_timing_defaults(o);
    if (opts) { /* zero = default */
        if (opts->warmup > 0) o->warmup = opts->warmup;
        if (opts->min_rounds > 0) o->min_rounds = opts->min_rounds;
        if (opts->max_rounds > 0) o->max_rounds = opts->max_rounds;
        if (opts->max_seconds > 0) o->max_seconds = opts->max_seconds;
        if (opts->rel_ci > 0) o->rel_ci = opts->rel_ci;
        if (opts->round_seconds > 0) o->round_seconds = opts->round_seconds;
        if (opts->max_round_calls > 0) o->max_round_calls = opts->max_round_calls;
        if (opts->calls_per_round > 0) o->calls_per_round = opts->calls_per_round;
        o->arrivals = opts->arrivals;
    }
    if (o->max_rounds < o->min_rounds)
        o->max_rounds = o->min_rounds;
}

/* Warm-up, then up to 3 untimed rounds to size a round to >= round_seconds.
 * pow2 (the shared round size of cs_time_round_size): rounds of 3 at each
 * tried size, their median decides, and the size is rounded up to a power
 * of two - a round hit by another process must not shrink the size. */
static int size_rounds(MPI_Comm comm, cs_timed_fn fn, void *arg, long *i, const cs_timing_opts *o,
                       double start, int pow2, int *r_out, double *per_call)
{
    double v[5] = {0, 0, 0, 0, 0};
    int rc = one_round(comm, fn, arg, i, o->warmup, start, o->arrivals, v);
    int r = 1;
    for (int cal = 0; cal < (pow2 ? 4 : 3) && rc == MPI_SUCCESS; cal++) {
        double x[3];
        int nx = pow2 ? 3 : 1;
        for (int k = 0; k < nx && rc == MPI_SUCCESS; k++) {
            rc = one_round(comm, fn, arg, i, r, start, o->arrivals, v);
            x[k] = v[0];
        }
        double pc = cs_median_sorted(x, nx), per_round = pc * r;
        if (per_call)
            *per_call = pc;
        if (rc != MPI_SUCCESS || per_round >= 0.5 * o->round_seconds ||
            r >= (pow2 ? exp2(floor(log2(o->max_round_calls))) : o->max_round_calls))
            break;
        double want = per_round > 0 ? ceil(r * o->round_seconds / per_round) : 16.0 * r;
        double cap = o->max_round_calls;
        if (pow2) { /* a power of two, at most max_round_calls */
            want = exp2(ceil(log2(want)));
            cap = exp2(floor(log2(cap)));
        }
        r = want > cap ? (int)cap : (int)want;
    }
    *r_out = r;
    return rc;
}

/* Statistics of the n round times t[] (seconds per call), exit spans sp[]
 * and skews sk[] into out. */
static int summarize(const double *t, const double *sp, const double *sk, double *sorted, int n,
                     cs_timing *out)
{
    memcpy(sorted, sp, sizeof *sp * (size_t)n);
    out->span_us = cs_median_sorted(sorted, n) * 1e6;
    memcpy(sorted, sk, sizeof *sk * (size_t)n);
    out->skew_us = cs_median_sorted(sorted, n) * 1e6;
    memcpy(sorted, t, sizeof *t * (size_t)n);
    double med = cs_median_sorted(sorted, n), lo, hi;
    cs_median_ci(sorted, n, &lo, &hi);
    out->median_us = med * 1e6;
    out->min_us = n ? sorted[0] * 1e6 : 0;
    out->max_us = n ? sorted[n - 1] * 1e6 : 0;
    out->ci_lo_us = lo * 1e6;
    out->ci_hi_us = hi * 1e6;
    out->rounds = n;
    return 0;
}

int cs_time_round_size(MPI_Comm comm, cs_timed *f, const cs_timing_opts *opts, int *r,
                       double *sec_per_call)
{
    cs_timing_opts o;
    apply_opts(&o, opts);
    return size_rounds(comm, f->fn, f->arg, &f->i, &o, PMPI_Wtime(), 1, r, sec_per_call);
}

int cs_time_collective(MPI_Comm comm, cs_timed_fn fn, void *arg, const cs_timing_opts *opts,
                       cs_timing *out)
{
    cs_timing_opts o;
    apply_opts(&o, opts);
    memset(out, 0, sizeof *out);
    double *t = malloc(sizeof *t * (size_t)o.max_rounds * 4);
    if (!t)
        return MPI_ERR_NO_MEM;
    double *sorted = t + o.max_rounds, *sp = sorted + o.max_rounds, *sk = sp + o.max_rounds, v[5];
    long i = 0;
    double start = PMPI_Wtime();

    /* Warm-up (first calls pay for connections, caches, topologies), then
     * (unless the round size is given) up to 3 untimed rounds to size a
     * round to >= round_seconds. */
    int rc, r = o.calls_per_round;
    if (r > 0)
        rc = one_round(comm, fn, arg, &i, o.warmup, start, o.arrivals, v);
    else
        rc = size_rounds(comm, fn, arg, &i, &o, start, 0, &r, NULL);

    int n = 0;
    while (rc == MPI_SUCCESS) {
        rc = one_round(comm, fn, arg, &i, r, start, o.arrivals, v);
        if (rc != MPI_SUCCESS)
            break;
        sp[n] = v[3];
        sk[n] = v[4];
        t[n++] = v[0];
        summarize(t, sp, sk, sorted, n, out);
        double med = out->median_us, lo = out->ci_lo_us, hi = out->ci_hi_us;
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

int cs_time_same(double a, double b, double rel)
{
    /* 1e-11 s: far below any real clock's resolution, far above the
     * rounding of t1 - t0 at simulated times of hours (ulp(1e4 s) ~ 2e-12) */
    return fabs(a - b) <= 1e-11 + rel * fabs(a);
}

/* Every function's rounds so far (t[k * cap + 0 .. c-1]) took the same time
 * (cs_time_same): a deterministic clock (a simulator such as SimGrid SMPI
 * with simulated computation off), where more rounds add nothing.  On real
 * hardware round times never repeat to within 10 ps. */
static int all_constant(const double *t, int n, int cap, int c)
{
    for (int k = 0; k < n; k++)
        for (int j = 1; j < c; j++)
            if (!cs_time_same(t[(size_t)k * cap + j], t[(size_t)k * cap], 1e-9))
                return 0;
    return 1;
}

int cs_time_deterministic(MPI_Comm comm, cs_timed *f, int *det)
{
    *det = 0;
#ifdef COLLSEL_SMPI
    /* SMPI's simulated rounds agree to ~1e-6 (its flows' rounding); with
     * simulated computation on, the injected real compute times differ by
     * far more than 1e-4.  Real hardware never comes here: a ns clock can
     * repeat a short call's time by chance. */
    double v[5], x[3];
    int rc = one_round(comm, f->fn, f->arg, &f->i, 1, PMPI_Wtime(), NULL, v); /* warm-up */
    for (int k = 0; k < 3 && rc == MPI_SUCCESS; k++) {
        rc = one_round(comm, f->fn, f->arg, &f->i, 1, PMPI_Wtime(), NULL, v);
        x[k] = v[0];
    }
    if (rc == MPI_SUCCESS)
        *det = x[0] > 0 && cs_time_same(x[1], x[0], 1e-4) && cs_time_same(x[2], x[0], 1e-4);
    return rc;
#else
    (void)comm, (void)f;
    return MPI_SUCCESS;
#endif
}

void cs_time_order(int *perm, int n, int c)
{
    uint64_t h = ((uint64_t)c + 1) * 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < n; k++)
        perm[k] = k;
    for (int k = n - 1; k > 0; k--) { /* Fisher-Yates, from the hash's high bits */
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        const int r = (int)((h >> 33) % (uint64_t)(k + 1)), x = perm[k];
        perm[k] = perm[r];
        perm[r] = x;
    }
}

int cs_time_interleaved(MPI_Comm comm, cs_timed *f, int n, const cs_timing_opts *opts,
                        cs_timing *out, double *samples)
{
    cs_timing_opts o;
    apply_opts(&o, opts);
    int warmup = opts ? opts->warmup : 0, r = o.calls_per_round > 0 ? o.calls_per_round : 1;
    int cap = o.max_rounds;
    memset(out, 0, sizeof *out * (size_t)n);
    double *t = malloc(sizeof *t * ((size_t)cap * (size_t)n * 3 + (size_t)cap));
    if (!t)
        return MPI_ERR_NO_MEM;
    double *sorted = t + (size_t)cap * (size_t)n, v[5] = {0, 0, 0, 0, 0};
    double *sp = sorted + cap; /* exit spans, as t */
    double *sk = sp + (size_t)cap * (size_t)n; /* exit skews, as t */
    double start = PMPI_Wtime();
    int rc = MPI_SUCCESS;
    for (int k = 0; k < n && warmup > 0 && rc == MPI_SUCCESS; k++)
        rc = one_round(comm, f[k].fn, f[k].arg, &f[k].i, warmup, start, o.arrivals, v);
    int c = 0, *perm = malloc(sizeof *perm * (size_t)n);
    if (!perm)
        rc = MPI_ERR_NO_MEM;
    while (rc == MPI_SUCCESS && c < cap) {
        cs_time_order(perm, n, c);
        for (int j = 0; j < n && rc == MPI_SUCCESS; j++) {
            const int k = perm[j];
            rc = one_round(comm, f[k].fn, f[k].arg, &f[k].i, r, start, o.arrivals, v);
            t[(size_t)k * cap + c] = v[0];
            sp[(size_t)k * cap + c] = v[3];
            sk[(size_t)k * cap + c] = v[4];
        }
        if (rc != MPI_SUCCESS)
            break;
        c++;
        /* v[1]: allreduced elapsed time of the cycle's last round */
        if (c >= o.min_rounds && (v[1] >= o.max_seconds || all_constant(t, n, cap, c)))
            break;
    }
    for (int k = 0; k < n; k++) {
        summarize(t + (size_t)k * cap, sp + (size_t)k * cap, sk + (size_t)k * cap, sorted, c,
                  &out[k]);
        out[k].calls_per_round = r;
        out[k].converged = 0;
        if (samples)
            memcpy(samples + (size_t)k * cap, t + (size_t)k * cap, sizeof *t * (size_t)c);
    }
    free(perm);
    free(t);
    return rc;
}
