/* Timing of one collective operation on a communicator, the way the
 * literature does it (SKaMPI, OSU, the quadtree papers' measurements):
 *
 *   - a few warm-up calls (connections, caches, first-touch of buffers);
 *   - rounds separated by PMPI_Barrier; a round is r back-to-back calls and
 *     its time per call is the MAXIMUM over ranks of (elapsed / r)
 *     (PMPI_Allreduce MAX), r chosen after the warm-up (up to 3 untimed
 *     sizing rounds) so a round lasts >= ~100 us;
 *   - rounds repeat until the distribution-free 95 % confidence interval of
 *     the median is within +-rel_ci of the median, or a bound is hit (max
 *     rounds, max seconds for this measurement);
 *   - result: median, min and max of the round times, and the number of
 *     rounds.
 *
 * Every rank of the communicator takes the same decisions (round size,
 * stop) because they are computed from allreduced values only.
 *
 * The collective is a closure: fn(arg, i) runs one call, i counting calls
 * from 0 (warm-up included) so the closure can rotate roots.
 */
#ifndef COLLSEL_TIMING_H
#define COLLSEL_TIMING_H

#include <mpi.h>

/* Runs one collective call; returns an MPI error code. */
typedef int (*cs_timed_fn)(void *arg, long i);

typedef struct cs_timing_opts {
    int warmup;            /* warm-up calls (default 3) */
    int min_rounds;        /* at least this many rounds (default 5) */
    int max_rounds;        /* at most this many rounds (default 200) */
    double max_seconds;    /* stop after this long (default 1.0) */
    double rel_ci;         /* target half-width of the CI / median (default 0.05) */
    double round_seconds;  /* target duration of one round (default 100e-6) */
    int max_round_calls;   /* upper bound of calls per round (default 1000) */
} cs_timing_opts;

typedef struct cs_timing {
    double median_us, min_us, max_us; /* per call, over rounds */
    double ci_lo_us, ci_hi_us;        /* 95 % CI of the median */
    int rounds;                       /* timed rounds (samples) */
    int calls_per_round;
    int converged;                    /* 1: CI target reached; 0: a bound was hit */
} cs_timing;

/* Defaults above (a zeroed field in opts means "default" for
 * cs_time_collective too). */
void cs_timing_defaults(cs_timing_opts *o);

/* Measure fn on comm (collective over comm: every rank calls it with the
 * same opts).  Returns an MPI error code (MPI_SUCCESS on success). */
int cs_time_collective(MPI_Comm comm, cs_timed_fn fn, void *arg, const cs_timing_opts *opts,
                       cs_timing *out);

/* Pure helpers (no MPI), exposed for unit tests.
 * Median of x[0..n) (x is sorted in place). */
double cs_median_sorted(double *x, int n);
/* Distribution-free 95 % CI of the median of the SORTED x[0..n): the order
 * statistics x[j], x[k] with j = floor(n/2 - 0.98 sqrt(n)), k = ceil(n/2 +
 * 0.98 sqrt(n)) (normal approximation of the binomial, clamped to the
 * sample). */
void cs_median_ci(const double *sorted, int n, double *lo, double *hi);

#endif
