/* Methods measured inside the application (COLLSEL_EXPLORE): a profile's
 * table of per-rank call times of each method tried at each (collective,
 * communicator size, exact message size).
 *
 * Why: the replay times a method in a loop of calls; an application calls
 * between its computation, its point-to-point traffic and its other
 * collectives, and there a method may take far longer (the example's 2 MiB
 * bcast: 1.8x the replay's natively, README).  Exploring, the preload
 * library runs at every call of a collective the tree drives one of the
 * leaf's first K candidates or native, drawn by a hash of the
 * communicator's call number (the same on every rank, no message; not in
 * step with the application's periodic call patterns), and times each
 * rank's call.  The arrivals do not depend on the method drawn, so the
 * difference of two methods' mean times is the difference of their
 * completions, measured where the application calls.  (The wait a
 * method's uneven exits cause at the next call is spread over all methods:
 * not in this table.)
 *
 * Each (point, method) sums its rank calls' times and their squares, for
 * the mean and its confidence interval; a method's first call at a point
 * on each rank is not counted (cold caches and code).  A call that made a
 * communicator's shared-memory segment is not a method's time either:
 * "COLL.segment" at its point holds the time the making took (sum over
 * the rank calls that made one), never judged against native; it is what
 * the expectation and the tree (cs_xtab_segment) charge the shared-memory
 * methods once.  A call
 * longer than CS_XCLIP times the fastest call of its (point, method) so
 * far, and than CS_XCLIP_FLOOR, counts as that much (and is counted in clipped): one call descheduled
 * for milliseconds would otherwise move a mean of thousands of
 * microsecond calls by more than the methods differ (measured: a native
 * barrier's mean 4.6 +- 7.2 us against 1.2 in a run without), and it
 * would have hit whichever method ran.  The
 * table is bounded (CS_XTAB_MAX entries, the rest counted as dropped), and
 * merged by adding.  Pure C, no MPI. */
#ifndef COLLSEL_EXPLORE_H
#define COLLSEL_EXPLORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/util.h"

#define CS_XTAB_MAX 256

typedef struct cs_xcell {
    uint32_t coll;      /* enum cs_coll (common/colls.h): a collective collsel replaces */
    uint32_t comm_size;
    uint64_t bytes;     /* exact message size (the bytes one rank contributes) */
    char *method;       /* registry name, "bcast.shm.tree.k2" */
    uint64_t calls;     /* rank calls counted */
    double t, t2;       /* seconds: sum over those calls, and of squares (clipped) */
    double tmin;        /* seconds: the fastest call */
    uint64_t clipped;   /* calls longer than CS_XCLIP x the fastest before them */
} cs_xcell;

#define CS_XCLIP 16.0
#define CS_XCLIP_FLOOR 200e-6 /* seconds: never clipped below (the same bound for
                                 every method of a point of short calls, so the
                                 differences stay fair; waits of tens of
                                 microseconds are no deschedule) */

typedef struct cs_xtab {
    uint32_t k;         /* the candidates per leaf explored (COLLSEL_EXPLORE), 0: none */
    uint64_t dropped;   /* rank calls of points beyond CS_XTAB_MAX */
    cs_xcell *x;        /* sorted by (coll, comm_size, bytes, method) */
    size_t n, cap;
} cs_xtab;

/* Add c's sums to the entry of its key (made, with a copy of the name, if
 * new; beyond CS_XTAB_MAX: counted in dropped).  -1: out of memory. */
int cs_xtab_add(cs_xtab *t, const cs_xcell *c);
/* dst += src (k: the larger).  -1: out of memory. */
int cs_xtab_merge(cs_xtab *dst, const cs_xtab *src);
void cs_xtab_free(cs_xtab *t);
/* Mean seconds per rank call and the half width of its 95 % confidence
 * interval (normal approximation; 0 with fewer than 2 calls). */
double cs_xcell_mean(const cs_xcell *c, double *half);
/* The entry of (coll, comm_size, bytes, method), or NULL. */
const cs_xcell *cs_xtab_find(const cs_xtab *t, uint32_t coll, uint32_t comm_size,
                             uint64_t bytes, const char *method);

/* Entries i.. of one point (collective, communicator size, bytes): the
 * index past its last (the table is sorted by point, then method). */
size_t cs_xtab_point_end(const cs_xtab *t, size_t i);
/* The native entry of x's point, or NULL. */
const cs_xcell *cs_xtab_native(const cs_xtab *t, const cs_xcell *x);
/* Is x the calls that made a segment ("COLL.segment")? */
int cs_xcell_is_segment(const cs_xcell *x);
/* Is x a method's calls that were the first at their point in a process
 * ("METHOD@first", shim/explore.c)? */
int cs_xcell_is_first(const cs_xcell *x);
/* Is x a point's calls that exploring counted as no method's
 * ("COLL.uncounted")? */
int cs_xcell_is_uncounted(const cs_xcell *x);
/* The first calls of method at x's point (NULL: none drawn first). */
const cs_xcell *cs_xtab_first(const cs_xtab *t, const cs_xcell *x, const char *method);
/* A point's first calls (fcalls of them, fspent seconds as drawn; n0: its
 * native entry) counted as native's first calls (into *dn) and as
 * method's (into *dm), with their variance (into *var, if not NULL),
 * where both were drawn first and their means differ beyond the two
 * 95 % half widths (first calls carry the startup's skew, LAMMPS's a few
 * ms: means of a few of them must not decide); 1 if
 * so, else 0 (nothing added: the calls stay as drawn). */
int cs_xtab_first_swap(const cs_xtab *t, const cs_xcell *n0, const char *method, double fcalls,
                       double fspent, double *dn, double *dm, double *var);
/* The segment's cost per rank for communicators of comm_size ranks whose
 * segment a call of collective coll made: the mean time of the making over
 * those rank calls; *calls: how many.  -1 where none. */
int cs_xtab_segment(const cs_xtab *t, uint32_t coll, uint32_t comm_size, double *seconds,
                    uint64_t *calls);
/* Does x beat native (nat, its point's) beyond the noise: both measured on
 * at least CS_XMIN_CALLS calls, x's mean lower by more than the two 95 %
 * half widths added?  A short run (LAMMPS's in.melt: 2-8 calls of a
 * method at a point) decides nothing, and native stays. */
#define CS_XMIN_CALLS 10
int cs_xcell_beats(const cs_xcell *x, const cs_xcell *nat);
/* Points that need more calls to decide: those holding at least share
 * (0..1) of the explored points' time where some method has fewer than
 * CS_XMIN_CALLS calls.  Their number. */
size_t cs_xtab_undecided(const cs_xtab *t, double share);
/* What the explored points say of a run's collective time (total: its
 * recorded seconds, summed over ranks): *nat, the run as if native at
 * every explored point (each method's calls moved to native's mean
 * there), *best, the same with each point's fastest method among those
 * that beat native beyond the noise (cs_xcell_beats), else native; the
 * rest of the time as recorded.  The segments' making, in total, is taken
 * out of *nat, and out of *best unless some point's fastest method needs a
 * segment (cs_name_needs_segment; the run made the ones they need).
 * The calls that were first at their point in a process ("@first" rows,
 * the application's buffer touched for the first time) count as native's
 * first calls in *nat and as the best method's in *best where those
 * differ beyond the noise (cs_xtab_first_swap; else as recorded); the uncounted calls
 * ("COLL.uncounted") as every method's, at native's mean and the best
 * method's.  *half: the 95 % half width of the
 * saving nat - best, the points' taken as independent (their half widths
 * in quadrature; per point native's and the method's in quadrature).
 * 0, or -1 where nothing was measured natively (then all 0). */
int cs_xtab_expect(const cs_xtab *t, double total, double *nat, double *best, double *half);
/* The same over n separate runs (runs[i]: run i's table, totals[i]: its
 * recorded collective seconds): *ratio, best / nat of all of them merged,
 * and *half, its 95 % half width from the spread between the runs
 * (jackknife: each run left out in turn; Student's t for n - 1 degrees of
 * freedom).  The calls of one run are not independent: the machine's
 * state (a neighbour's load, the cores' clocks) holds through a run, and
 * the calls' own interval (cs_xtab_expect's) understates how far two runs
 * land apart.  The half width is never below the calls' own interval, nor
 * below the largest move of the ratio when one run is left out (the
 * statistic has thresholds, and the jackknife's spread is 0 when every
 * subset falls on one side of them).  0, or -1 (n < 2 or > 64, nothing
 * measured natively, no memory). */
int cs_xtab_expect_runs(const cs_xtab *runs, const double *totals, int n, double *ratio,
                        double *half);

/* Serialisation (profile format 5, after the arrivals): u32 k, u64
 * dropped, u64 n, per entry u32 coll, comm_size, u64 bytes, str method,
 * u64 calls, f64 t, t2, tmin, u64 clipped. */
void cs_xtab_serialize(const cs_xtab *t, cs_buf *out);
int cs_xtab_deserialize(cs_xtab *t, cs_rd *r, cs_err *e);

#endif
