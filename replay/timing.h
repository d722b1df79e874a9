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

#include "common/stats.h"

struct cs_pat_run;

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
    int calls_per_round;   /* > 0: rounds of exactly this many calls (no sizing
                              rounds); 0: sized after the warm-up (default) */
    struct cs_pat_run *arrivals; /* non-NULL: every call under this arrival pattern and a
                                    round's time is the median COMPLETION of its calls (pattern.h);
                                    NULL: back-to-back calls (default) */
} cs_timing_opts;

typedef struct cs_timing {
    double median_us, min_us, max_us; /* per call, over rounds */
    double ci_lo_us, ci_hi_us;        /* 95 % CI of the median */
    int rounds;                       /* timed rounds (samples) */
    int calls_per_round;
    int converged;                    /* 1: CI target reached; 0: a bound was hit */
    double span_us;                   /* median over rounds of the exit span per call
                                         (under arrivals: last exit - first arrival; else
                                         the time per call) */
    double skew_us;                   /* median over rounds of the exit skew per call
                                         (under arrivals: last exit - first exit; else 0) */
} cs_timing;

/* Defaults above (a zeroed field in opts means "default" for
 * cs_time_collective too). */
void cs_timing_defaults(cs_timing_opts *o);

/* Measure fn on comm (collective over comm: every rank calls it with the
 * same opts).  Returns an MPI error code (MPI_SUCCESS on success). */
int cs_time_collective(MPI_Comm comm, cs_timed_fn fn, void *arg, const cs_timing_opts *opts,
                       cs_timing *out);

/* One closure of an interleaved measurement, with its own call counter
 * (next call index: roots keep rotating across rounds and measurements). */
typedef struct cs_timed {
    cs_timed_fn fn;
    void *arg;
    long i;
} cs_timed;

/* The round size shared by every measurement of one operation (collsel-
 * replay's stage 1 and stage 2, and --mix): opts->warmup calls of f, then up
 * to 3 untimed sizing rounds as in cs_time_collective; the size is rounded
 * UP to a power of two (at most the largest one <= max_round_calls: 512 by
 * default) so that two runs agree
 * despite noise.  *r: calls per round; *sec_per_call (may be NULL): the
 * last sizing round's time per call (max over ranks).  Collective over comm;
 * the results are identical on every rank. */
int cs_time_round_size(MPI_Comm comm, cs_timed *f, const cs_timing_opts *opts, int *r,
                       double *sec_per_call);

/* Cycle c's order of n interleaved closures (perm[0..n): a permutation of
 * 0..n-1): a shuffle drawn from c alone, the same on every rank.  In one
 * order, or one rotated by a place each cycle, every closure always
 * follows the same one and pays for what that one leaves behind (its
 * caches, its uneven exits): collsel-bench measured the same
 * reduce-then-bcast code 1.2x slower in the place right after native
 * than after another shared-memory method (allreduce 64 KiB, 2 ranks). */
void cs_time_order(int *perm, int n, int c);

/* Interleaved timing of n closures on comm (the second stage of a
 * measurement, and --mix): opts->warmup calls of each (only if warmup > 0
 * here), then CYCLES of one round of each closure - a round is
 * opts->calls_per_round (> 0) back-to-back calls between a barrier and an
 * allreduce, exactly as in cs_time_collective - in a new order every
 * cycle (cs_time_order) so that drifting load and the effect of the
 * preceding method hit every closure alike.  Stops
 * after max_rounds cycles, or once max_seconds have passed with at least
 * min_rounds cycles (decided on allreduced values: identical on every rank).
 * out[k]: median/min/max/CI over the rounds of closure k, rounds = cycles.
 * samples (NULL or n * max_rounds doubles): samples[k * max_rounds + c] =
 * seconds per call of closure k in cycle c.  Returns an MPI error code. */
int cs_time_interleaved(MPI_Comm comm, cs_timed *f, int n, const cs_timing_opts *opts,
                        cs_timing *out, double *samples);

/* Is the clock deterministic?  Only in the SimGrid SMPI build
 * (COLLSEL_SMPI; elsewhere *det = 0 and nothing runs): one warm-up call of
 * f, then three rounds of one call; *det = 1 when the three took the same
 * time to 1e-4 (cs_time_same) - simulated computation off, where one round
 * is the exact figure and more rounds only cost wall time.  Collective over
 * comm; *det is identical on every rank. */
int cs_time_deterministic(MPI_Comm comm, cs_timed *f, int *det);

/* Pure helpers (no MPI), exposed for unit tests.
 * Two round times equal to within 10 ps + rel x a: the same time on a
 * deterministic clock. */
int cs_time_same(double a, double b, double rel);
/* (The median and its interval: common/stats.h.) */

#endif
