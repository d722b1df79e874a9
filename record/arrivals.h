/* Arrival data of a profile: when each rank entered and left its recorded
 * collectives, matched across ranks, so that a rank's time in a collective
 * splits into
 *   wait        until the last rank arrived:  min(last arrival, own exit) - own entry
 *   completion  from the last arrival on:     max(0, own exit - last arrival)
 * (wait + completion = exit - entry for every rank and call; a rank that
 * leaves before the last arrival, a bcast's root, a reduce's leaf, waited
 * only until it left, and its completion is 0).  Completion depends on the
 * method, and so does the part of the next call's wait that this call's
 * uneven exits cause (the pairs below): together, the most any method can
 * remove.
 *
 * Recording (shim/arr.c): per recorded call on a tracked communicator a
 * sequence number (the communicator's call count on this rank, the same
 * operation on every member) and, for calls kept, (seq, entry, exit) in a
 * bounded ring per communicator.  Kept: the communicator's first
 * CS_ARR_FIRST calls, the first CS_ARR_CELL_FIRST calls of each collective
 * and size bin on it (a cell with few but long calls, a large bcast made
 * 8 times, is then matched whole, not estimated from one call), then the
 * calls whose level (cs_arr_level: a
 * function of (communicator key, seq)) is at least the ring's
 * level, at least CS_ARR_LEVEL0 (1 call in 8); a full ring raises its level
 * by one and drops the calls below it (half of them).  Every member of a
 * communicator keeps the same calls, chosen by sequence number only.  Each
 * kept call carries its weight, 2^level (1 for the first calls), so sums
 * over the sample estimate sums over every call (Horvitz-Thompson).
 *
 * Matching (record/arrivals.c, in cs_profile_merge: the tree merge at
 * MPI_Finalize, and the partial files merged by cs_profile_load): a pending
 * record per (rank, kept call) until all comm_size records of the operation
 * (communicator key, seq) are in one profile; then the operation is reduced
 * into the arrival cell of each rank's cell (wait, completion) and into the
 * cell of the communicator's rank 0 (spread, late rank, lateness vector).
 * Records whose operation never completes are counted (unmatched) when the
 * profile is finished (cs_arr_finish: before it is written at MPI_Finalize,
 * after the partial files are merged).
 *
 * Clock: entry and exit are nanoseconds of CLOCK_MONOTONIC (shared by the
 * processes of a node), shifted by the node's offset to world rank 0's
 * node, estimated by ping-pong at MPI_Init and MPI_Finalize with a linear
 * drift (clock_err bounds the remaining error).  Clocks that cannot be
 * compared across nodes: clock == CS_ARR_CLOCK_NODE, and wait and
 * completion are taken within each node (last arrival among the operation's
 * ranks on the same node).
 *
 * Units: times in seconds (double) in cells and sums; lateness vectors in
 * nanoseconds (uint32_t, saturated at CS_ARR_LATE_MAX, about 4.29 s).
 * All sums over ranks (as cs_cell.t_total).
 */
#ifndef COLLSEL_ARRIVALS_H
#define COLLSEL_ARRIVALS_H

#include <stddef.h>
#include <stdint.h>

#include "common/util.h"

struct cs_profile;
struct cs_cell;

#define CS_ARR_FIRST 32       /* first calls of a communicator always kept */
#define CS_ARR_CELL_FIRST 16  /* first calls of a collective and size on it too */
#define CS_ARR_CSLOTS 16      /* ... counted in this many slots (power of two) */
#define CS_ARR_LEVEL0 3       /* later calls: level >= 3 (1 in 8) at least */
#define CS_ARR_RING 512       /* kept calls per communicator and rank */
#define CS_ARR_VECS 64        /* lateness vectors kept per cell, at most... */
#define CS_ARR_VEC_VALUES 16384 /* ... and at most this many values per cell */
#define CS_ARR_NLATE 8        /* late-rank table per cell (top 3 shown) */
#define CS_ARR_NSITES 4       /* call sites per cell (by wait) */
#define CS_ARR_LATE_MAX UINT32_MAX

enum { CS_ARR_CLOCK_GLOBAL = 0, CS_ARR_CLOCK_NODE = 1 };

/* One rank's record of one kept call, pending until its operation is
 * complete (comm_size records of the same (comm, seq)). */
typedef struct cs_arr_rec {
    uint64_t comm;        /* communicator key: the same on every member */
    uint64_t seq;         /* call number on that communicator, from 0 */
    int64_t entry, exit;  /* ns, job clock (see above) */
    uint32_t comm_size, comm_rank, world_rank, node;
    uint32_t coll, bin;   /* this rank's cell (comm_size too) */
    uint32_t site;        /* index into cs_arr.sites, UINT32_MAX: unknown */
    uint32_t wexp;        /* weight 2^wexp */
} cs_arr_rec;

/* Arrivals of one cell (same key as its cs_cell). */
typedef struct cs_arr_cell {
    uint32_t coll, comm_size, bin;
    /* per rank entry (this cell's calls), weighted sums over matched ones */
    uint64_t entries;     /* matched rank entries, unweighted */
    double n;             /* weighted: estimates the cell's rank_calls */
    double wait, compl;   /* seconds; wait + compl = summed exit - entry */
    /* per operation (attributed to the cell of its communicator rank 0) */
    uint64_t nops;        /* complete operations, unweighted */
    double ops;           /* weighted */
    double spread;        /* seconds, weighted sum of last - first arrival */
    double spread_hist[1 + 4 * 41]; /* weighted ops by spread in ns, bins of
                                       cs_bin_of (CS_NBINS) */
    uint32_t nlate;       /* used entries of late[], most ops first */
    struct {
        int32_t rank;     /* world rank that arrived last */
        double ops;       /* weighted operations it was last in */
    } late[CS_ARR_NLATE];
    double late_other;    /* weighted ops whose last rank was not kept */
    uint32_t nsites;
    struct {
        char *where;      /* call site (cs_site naming) */
        double wait;      /* seconds of wait there */
    } sites[CS_ARR_NSITES];
    double site_other_wait;
    /* lateness vectors: nvec sampled operations (priority sampling by
     * weight: every operation of the cell equally likely to be drawn),
     * each comm_size values, value i = ns by which communicator rank i
     * arrived after the first arrival (0 for the first) */
    uint32_t nvec;
    double *prio;         /* nvec priorities (smallest kept) */
    uint32_t *vec;        /* nvec x comm_size */
    /* pairs (format version 4): an operation whose predecessor on the
     * communicator (call number - 1) was matched in the same pass, weighted
     * by the pair's inclusion (1 in the first calls, else 2^(level + 1), or
     * 2^level beside a first call).  The wait a rank sees is partly the previous call's
     * ranks leaving it at different times (a bcast's root leaves first):
     * what if that call had released every rank at its last exit?  Each
     * rank's next arrival moves later by how much earlier it left than the
     * last one; its completion after the last arrival stays. */
    double npair;         /* operations of this cell with their predecessor
                             (weighted like the pairs: cs_arr_level) */
    double pwait;         /* their wait (seconds, summed over ranks) */
    double swait;         /* the same had the predecessor released together */
    double nprev;         /* operations of this cell that were a predecessor */
    double induced;       /* the wait they added at their successors (pwait
                             - swait there; negative: their skew saved wait) */
    double lag;           /* their ranks' last exit - own exit, summed */
    /* the time between calls (format version 5): of the same pairs, each
     * rank's entry here minus its exit from the predecessor, weighted like
     * the pairs and summed over ranks (seconds), and the weighted rank
     * entries it sums: what the application did between the two calls
     * (computation, point-to-point, calls on other communicators) */
    double gap, ngap;
} cs_arr_cell;

/* The arrival part of a profile (cs_profile.arr). */
typedef struct cs_arr {
    uint32_t recorded;    /* 0: not recorded (format <= 2, or recording off) */
    uint32_t pairs;       /* 1: the cells' pair sums were recorded (format >= 4) */
    uint32_t gaps;        /* 1: and the time between calls (format >= 5) */
    uint32_t clock;       /* CS_ARR_CLOCK_GLOBAL or CS_ARR_CLOCK_NODE */
    double clock_err;     /* seconds: bound of the cross-node clock error */
    uint32_t level;       /* highest ring level reached (0: no ring filled) */
    uint64_t dropped;     /* records dropped by full rings */
    uint64_t untracked;   /* calls on communicators not tracked (inter-
                             communicators, more than the shim tracks) */
    uint64_t unmatched;   /* records whose operation never completed */
    uint64_t vec_dropped; /* lateness vectors dropped (folding, bound) */
    cs_arr_rec *recs;     /* pending, sorted by (comm, seq, comm_rank) */
    size_t nrecs, cap_recs;
    char **sites;         /* names of the pending records' sites */
    size_t nsites, cap_sites;
    cs_arr_cell *cells;   /* sorted by (coll, comm_size, bin) */
    size_t ncells, cap_cells;
    uint32_t fold;        /* the profile's folding level (not serialised) */
    size_t matched_at;    /* nrecs after the last cs_arr_match (not serialised) */
} cs_arr;

/* ---- reader API (replay, tune, show) ------------------------------------ */

/* 1 if the profile has arrival data; 0: "not recorded". */
int cs_arr_recorded(const struct cs_profile *p);
/* The arrivals of a cell, or NULL (not recorded, or no matched call). */
const cs_arr_cell *cs_arr_find(const struct cs_profile *p, uint32_t coll, uint32_t comm_size,
                               uint32_t bin);
/* A cell's time split, scaled to its recorded t_total (ratio estimate:
 * wait + completion = t_total).  Returns 0 and sets *wait_s, *compl_s
 * (seconds, summed over ranks), or -1 (not recorded for this cell: both
 * set to 0). */
int cs_arr_split(const struct cs_profile *p, const struct cs_cell *c, double *wait_s,
                 double *compl_s);
/* The mean time (seconds) a rank spent between leaving its previous call
 * on the communicator and entering a call of this cell (a rank's
 * computation before the call, plus its calls on other communicators), or
 * -1 when not recorded (format <= 4, no pair matched). */
double cs_arr_gap(const struct cs_profile *p, const cs_arr_cell *a);
/* Spread of arrivals (last - first, seconds): q-quantile (0..1) from the
 * histogram (within a quarter octave), or -1 without operations. */
double cs_arr_spread_q(const cs_arr_cell *a, double q);
/* Lateness vector i (0 <= i < a->nvec): a->comm_size values in ns. */
static inline const uint32_t *cs_arr_vec(const cs_arr_cell *a, uint32_t i)
{
    return a->vec + (size_t)i * a->comm_size;
}

/* ---- building and merging (record/, shim/) ----------------------------- */

/* The level of a call, chosen so that sampled calls come in consecutive
 * pairs (an operation and its predecessor on the communicator: the pairs
 * of cs_arr_cell), spread over the whole run.  The raw level of seq is the
 * number of leading zero bits of (seq + comm) x 2^64 / golden ratio (mod
 * 2^64), i.e. of the fraction of (seq + comm) x 0.618...: a Weyl sequence,
 * so raw levels >= L are 1 in 2^L of any long run of calls, spread evenly
 * (no aliasing with periodic call patterns: the multiplier is irrational).
 * A call's level is max(raw(seq), raw(seq - 1)) - 1: the calls of raw
 * level >= L + 1 and the calls right after them.  Two neighbours of raw
 * level >= 2 never meet (the fractions of consecutive calls differ by
 * 0.618, of calls two apart by 0.236), so for L >= 1 calls of level >= L
 * are still exactly 1 in 2^L, in pairs, and a pair (seq - 1, seq) is kept
 * when raw(seq - 1) >= L + 1: 1 in 2^(L + 1).  A level >= L + 1 call has
 * level >= L.  Two multiplications: the shim computes it on every call.
 * comm (the communicator key, a random 64-bit value) shifts the sequence,
 * so communicators sample different calls. */
static inline uint64_t cs_arr_hash(uint64_t comm, uint64_t seq)
{
    return (seq + comm) * 0x9E3779B97F4A7C15ull;
}
static inline uint32_t cs_arr_raw_level(uint64_t comm, uint64_t seq)
{
    uint64_t h = cs_arr_hash(comm, seq);
    return h ? (uint32_t)__builtin_clzll(h) : 64;
}
static inline uint32_t cs_arr_level(uint64_t comm, uint64_t seq)
{
    uint32_t a = cs_arr_raw_level(comm, seq), b = cs_arr_raw_level(comm, seq - 1);
    a = a > b ? a : b;
    return a ? a - 1 : 0;
}

void cs_arr_free(cs_arr *a);
/* Add a pending record (site: a name or NULL); -1 out of memory. */
int cs_arr_add_rec(cs_arr *a, const cs_arr_rec *r, const char *site);
/* dst += src: pending records merged, cells merged; the complete
 * operations are reduced into cells once the pending records have doubled
 * since the last time (merging n files costs O(n log n), not O(n^2)), and
 * always by cs_arr_match / cs_arr_finish.  -1 out of memory. */
int cs_arr_merge(cs_arr *dst, const cs_arr *src);
/* Reduce the operations that are complete (after adding records). */
int cs_arr_match(cs_arr *a);
/* The profile is final: complete operations reduced, the other pending
 * records counted as unmatched and dropped.  -1 out of memory. */
int cs_arr_finish(cs_arr *a);
/* Fold the arrival cells to a profile folding level (bound.c): vectors of
 * cells whose communicator size changes are dropped (vec_dropped). */
int cs_arr_fold(cs_arr *a, uint32_t level);
/* Make the arrival data smaller for a bound: halve the vectors kept (the
 * last one of each cell goes when none has more), then thin the pending
 * records by one level (the first calls go last).  0 if something was
 * dropped, 1 if nothing is left to drop (the cells' sums always stay). */
int cs_arr_shrink(cs_arr *a);

/* Serialisation (format version 3, after the version 2 fields; version 4
 * adds the pair sums at the end of every cell, version 5 the gap sums). */
void cs_arr_serialize(const cs_arr *a, cs_buf *out);
int cs_arr_deserialize(cs_arr *a, cs_rd *r, uint32_t version, cs_err *e);

/* Of a cell's recorded time (seconds summed over ranks, scaled like
 * cs_arr_split): the part of its wait that its predecessors' uneven exits
 * caused (pwait - swait per pair, at most its wait), the wait its own
 * uneven exits add at the next calls and its ranks' lags behind its last
 * exit (per predecessor operation); each per operation as a share of the
 * cell's measured time per operation, times its recorded time; -1 if the
 * pairs were not recorded or the cell has none (all 0).  lag_s may be
 * NULL. */
int cs_arr_induced(const struct cs_profile *p, const struct cs_cell *c, double *caused_s,
                   double *causes_s, double *lag_s);

#endif
