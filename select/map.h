/* Decision maps: for one collective, the measured time of every method at
 * every (communicator size, message size) point, and optionally the weight
 * the application's profile puts on each point.  Built from a perf table
 * (and a profile); used by the quadtree build, the penalty analysis and the
 * pictures. */
#ifndef COLLSEL_MAP_H
#define COLLSEL_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "record/profile.h"
#include "perf.h"

typedef struct cs_map {
    int coll;                /* enum cs_coll */
    int ncs, nms;            /* axis lengths */
    uint32_t *cs;            /* measured communicator sizes, ascending */
    uint64_t *ms;            /* measured message sizes (bytes), ascending */
    int nmethods;
    char (*methods)[64];     /* method names, index = map-local method id */
    double *t;               /* t[(i * nms + j) * nmethods + m]: median us, NAN = not measured */
    double *w;               /* w[i * nms + j]: profile weight (calls x time), NULL = none */
    int native;              /* map-local id of COLL.native (0: sorted first), -1 if absent */
    double *seg_us;          /* seg_us[i]: one-time segment cost at cs[i] (COLL.segment row), NAN none */
    double *seg_calls;       /* seg_calls[i]: the profile's calls per communicator of cs[i]
                                ranks (0: no profile or no calls); when both are known,
                                t of the methods that need a segment includes
                                seg_us / seg_calls */
    double margin;           /* decision margin in percent, [0, 100]; 0 after cs_map_build */
} cs_map;

/* 1 if the method (full name) needs a shared-memory segment: an algorithm
 * or a composed step whose name starts with shm or node. */
int cs_map_needs_segment(const char *method);

/* The decision margin (collsel tune --margin PCT).  Measured maps are noisy
 * and hold many methods, so the fastest measured method is often only
 * marginally (not really) faster than native, the MPI library's own choice.
 * A method other than native is taken to beat native at a point only when
 * it is at least margin % faster there:
 *     t_m < t_native x (1 - margin / 100)
 * otherwise the point's decision is native.  The same test compares a
 * method's and native's (weighted) totals over a block of points when a
 * tree leaf is ranked.  Margin 0: the plain fastest method (ties to native).
 * Every tree construction reads the margin of its map (quadtree.h); the
 * penalties keep comparing against the truly fastest method (cs_map_best). */
static inline int cs_margin_beats(double t, double t_native, double margin)
{
    return t < t_native * (1 - margin / 100);
}

/* Build the map of collective coll from perf (rows of other collectives are
 * ignored); prof may be NULL.  Fails (naming the problem) if perf has no
 * rows for coll. */
int cs_map_build(cs_map *m, const cs_perf *perf, int coll, const cs_profile *prof, cs_err *e);
void cs_map_free(cs_map *m);
/* Index of the fastest measured method at point (i, j), -1 if none (ties:
 * lower id, so native). */
int cs_map_best(const cs_map *m, int i, int j);
/* The decision at point (i, j) under m->margin: the fastest measured method
 * if it is native or beats a measured native by the margin, else native; -1
 * if nothing was measured.  Equal to cs_map_best at margin 0. */
int cs_map_decide(const cs_map *m, int i, int j);
static inline double cs_map_time(const cs_map *m, int i, int j, int meth)
{
    return m->t[((size_t)i * m->nms + j) * m->nmethods + meth];
}

#endif
