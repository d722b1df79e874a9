/* Arrival patterns: when each rank reaches a replayed collective, and the
 * timing that takes only what a method can change.
 *
 * A rank's time in a collective is its wait (until the last rank arrives)
 * plus the completion (from the last arrival to its exit); the completion
 * depends on the method, and the exit skew (how unevenly it lets the ranks
 * go) moves the next call's wait.  Under a pattern every timed call is
 *
 *   start  = an instant every rank agrees on (the previous call's last exit
 *            plus a slack, on a clock all ranks compare)
 *   rank r computes for the run's work time, if any (cs_pat_set_work),
 *          spins until start + work + lateness(call, r), stamps its arrival a_r,
 *          runs the call, stamps its exit x_r
 *   completion = max_r x_r - max_r a_r     (the injected delay never counts)
 *   exit span  = max_r x_r - min_r a_r     (what the earliest rank sees)
 *   exit skew  = max_r x_r - min_r x_r     (how unevenly it lets them go)
 *
 * Patterns (cs_pattern_parse):
 *   none             every rank at once (lateness 0; still timed per call)
 *   one-late:D[@R]   one rank D late: rank R, or (no @R) a rank drawn per
 *                    call, uniformly
 *   random:D         every rank late by an independent uniform [0, D]
 *   recorded         a lateness vector drawn per call from the cell's
 *                    recorded ones (cs_pattern_set_samples)
 * A call where some rank reached the collective more than 2 us after its
 * time (the previous call's bookkeeping ran late, or the rank was
 * preempted: a loaded machine) is not under the pattern: it counts only in
 * a round without any call on time.  A round's value is the MEDIAN of its
 * calls (a preempted call does not swing it).  The slack doubles (up to
 * 2 ms) when a rank reached its spin after its time, and halves after 16
 * calls without.
 * D: a duration with a unit, 20us, 1.5ms, 500ns, 0.001s (a bare number is
 * us), in (0, 1 s].  Draws are a hash of (seed, call index, rank): every
 * rank computes the same vector without a message.
 *
 * Clock: CLOCK_MONOTONIC, which every process of a Linux node shares;
 * across nodes each rank's offset to rank 0 of the timing communicator is
 * estimated at set-up (the lowest-round-trip of 8 ping-pongs; error: half
 * that round trip, some microseconds on a network).  The delay is a spin
 * on the clock (no sleep granularity); where the node runs more ranks than
 * processors the spin yields the processor between polls.
 */
#ifndef COLLSEL_REPLAY_PATTERN_H
#define COLLSEL_REPLAY_PATTERN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "common/util.h"

enum cs_pat_kind { CS_PAT_NONE, CS_PAT_ONE_LATE, CS_PAT_RANDOM, CS_PAT_RECORDED };

#define CS_PAT_NAME_MAX 32 /* "one-late:999.999ms@99999999" fits */

typedef struct cs_pattern {
    int kind;         /* enum cs_pat_kind */
    double delay;     /* seconds: one-late's D, random's bound */
    int late_rank;    /* one-late: the late rank, -1: drawn per call */
    uint64_t seed;
    /* recorded: nvec vectors of vranks lateness values (seconds, >= 0),
     * row-major, owned by the caller; nvec 0: every rank at once */
    const double *vec;
    size_t nvec;
    int vranks;
} cs_pattern;

/* Parse a pattern (syntax above).  Returns 0, or -1 with e naming it. */
int cs_pattern_parse(const char *s, cs_pattern *a, cs_err *e);
/* Canonical name ("none", "one-late:20us", "one-late:20us@1", "random:5us",
 * "recorded"): what perf tables carry in their arrivals column. */
const char *cs_pattern_name(const cs_pattern *a, char *buf, size_t len);
/* Parse a comma-separated list of patterns into a[0..*n) (at most max).
 * Returns 0 or -1 with e. */
int cs_pattern_parse_list(const char *s, cs_pattern *a, int max, int *n, cs_err *e);
/* Recorded pattern: the vectors to draw from (not copied). */
void cs_pattern_set_samples(cs_pattern *a, const double *vec, size_t nvec, int vranks);

/* The largest lateness the pattern can draw (seconds). */
double cs_pattern_max(const cs_pattern *a);

/* Lateness in seconds of group rank `rank` of `size` at call `call`:
 * the same on every rank (a hash, no message). */
double cs_pattern_lateness(const cs_pattern *a, long call, int rank, int size);

/* The state of a timing under a pattern (one per measurement set-up). */
typedef struct cs_pat_run {
    const cs_pattern *pat;
    int grank, gsize;  /* whose lateness this rank takes: its rank in its group, the group size */
    double offset;     /* seconds added to the local clock: rank 0 of the timing
                          communicator's clock (0 within a node) */
    double slack;      /* seconds from the last exit to the next agreed start */
    int yield;         /* spin yielding the processor (oversubscribed node) */
    long calls, misses; /* timed calls; calls where a rank arrived late (see above) */
    int streak;         /* calls on time since the slack last changed */
    /* an application's computation before each call (cs_pat_set_work; 0:
     * none): work_s seconds of stencil sweeps over work_n doubles (work) */
    double work_s;
    size_t work_n;
    double *work;
} cs_pat_run;

/* Set up r for pattern pat on the timing communicator sync (every group
 * of a point), this rank being grank of a group of gsize.  Collective over
 * sync (it checks whether sync lies within one node, and estimates clock
 * offsets when not).  Returns an MPI error code. */
int cs_pat_run_init(cs_pat_run *r, const cs_pattern *pat, MPI_Comm sync, int grank, int gsize);

/* Before each call every rank computes for SECONDS: stencil sweeps over
 * its own KIB KiB (reads and writes: the caches and the TLB as an
 * application's computation between its calls leaves them), untimed; the
 * pattern's instants move by SECONDS.  0 seconds: none.  Returns 0, or -1
 * out of memory.  cs_pat_run_free releases it. */
int cs_pat_set_work(cs_pat_run *r, double seconds, size_t kib);
/* "DURATION:KIB" (10ms:2048) into its parts.  Returns 0, or -1 with e. */
int cs_pat_parse_work(const char *s, double *seconds, size_t *kib, cs_err *e);
void cs_pat_run_free(cs_pat_run *r);

/* The clock all ranks of the run compare, in seconds. */
double cs_pat_now(const cs_pat_run *r);

/* Calls of a round under a pattern at most (timing.c): every call is
 * timed on its own (and costs an allreduce and a slack more), so rounds
 * sized for back-to-back calls would take far longer for no gain. */
#define CS_PAT_ROUND_CALLS 16

/* One round of n (at most CS_PAT_ROUND_CALLS) calls of fn under the
 * pattern (timing.c's round): the closure's call index *i advances by n.
 * out[0]: median completion of the calls (s), out[1]: seconds since
 * t_start (max over ranks), out[2]: error flag (any rank), out[3]: median
 * exit span (s), out[4]: median exit skew (last exit - first exit, s: how
 * unevenly the method lets the ranks go).  Identical on every
 * rank.  Collective over sync.  Returns an MPI error code. */
int cs_pat_round(MPI_Comm sync, cs_pat_run *r, int (*fn)(void *, long), void *arg, long *i,
                 int n, double t_start, double out[5]);

#endif
