/* collsel-replay internals: the options and the two modes (measure
 * methods into a perf table; replay a profile's mix native vs tuned). */
#ifndef COLLSEL_REPLAY_H
#define COLLSEL_REPLAY_H

#include <mpi.h>

#include "common/colls.h"
#include "replay/pattern.h"
#include "points.h"

struct cs_tree;

enum { CS_OUT_TEXT, CS_OUT_CSV, CS_OUT_JSON };

#define CS_REPLAY_PATS 4 /* arrival patterns of one run at most */

typedef struct cs_replay_opts {
    const char *profile, *grid, *methods, *out, *tree;
    int colls[CS_NCOLL];          /* collectives to replay */
    unsigned char *sel[CS_NCOLL]; /* sel[c][i]: registry method i selected (i = 0: always) */
    double time_per_point;        /* measure: seconds for all methods of one point */
    double budget;                /* total seconds (measure: caps time_per_point; mix) */
    double rel_ci;                /* CI target of the timing */
    int rounds;                   /* mix: minimum rounds per side and point */
    int finalists;                /* measure: stage-2 finalists per point (0: no stage 2) */
    int verbose;                  /* measure: one line per point with the final (stderr) */
    int format;                   /* mix: CS_OUT_* on stdout */
    int progress;                 /* 1 forced, -1 off, 0 when a terminal is seen */
    int resume;                   /* measure: keep the rows of -o, skip their points */
    int alone;                    /* one group per point (cs_replay_comm) */
    int rank, size;               /* in MPI_COMM_WORLD */
    const char *arrivals;         /* --arrivals LIST as given (NULL: the default) */
    cs_pattern pats[CS_REPLAY_PATS]; /* the arrival patterns (npats 0: back-to-back calls) */
    int npats;
    size_t work_kib;              /* mix, --work recorded[:KIB]: before each call every rank
                                     computes for the point's recorded time between calls
                                     (at most CS_REPLAY_WORK_MAX) over this many KiB; 0: no */
} cs_replay_opts;

/* --work recorded: the longest computation put before one replayed call
 * (seconds): a recorded gap beyond it slows calls no further (measured:
 * collsel-bench --work, the slowdown flat from 5 ms on) and would only
 * make the replay long. */
#define CS_REPLAY_WORK_MAX 5e-3
#define CS_REPLAY_WORK_KIB 1024 /* default footprint: a core's L2 here */

/* Both modes are collective over MPI_COMM_WORLD and return an exit code
 * (0 ok, 1 failure); messages come from rank 0. */
int cs_replay_measure(const cs_replay_opts *o, const cs_points *pts);
int cs_replay_mix(const cs_replay_opts *o, const cs_points *pts, const struct cs_tree *tree);

/* The communicators of a point of `size` ranks.  comm: this rank's group
 * (MPI_COMM_NULL on the ranks outside every group), on which the point's
 * collective runs; sync: every group of the point together, for the
 * timing's barriers and allreduces - all groups take the same decisions,
 * run the same method at the same time, and a round's time is the slowest
 * group's.  Concurrent (the default, o->alone = 0): floor(W / size)
 * disjoint groups of consecutive world ranks, as an application's row or
 * column communicators work at the same time; the remaining ranks idle.
 * Alone (--alone, the papers' way): one group, world ranks 0..size-1, and
 * sync = comm.  Created on first use and cached; collective over the world
 * the first time for a (size, alone) pair.  cs_replay_comms_free() frees
 * them all. */
typedef struct cs_replay_group {
    MPI_Comm comm, sync;
    int groups; /* groups working at once */
} cs_replay_group;
cs_replay_group cs_replay_comm(int size, int alone);
void cs_replay_comms_free(void);

/* Complete a request; idle != 0 (a rank that is not measuring) polls with
 * short sleeps instead of spinning, so it takes no CPU from the ranks that
 * measure (the machine may be oversubscribed).  Returns an MPI error code. */
int cs_replay_wait(MPI_Request *req, int idle);

/* Is the stderr of this process, or of the launcher that forwards it, a
 * terminal?  (Linux /proc; decides the default of --progress.) */
int cs_replay_stderr_is_terminal(void);

/* "1m05s" style durations for progress lines. */
const char *cs_fmt_secs(char *buf, size_t len, double s);

#endif
