/* Decision maps: for one collective, the measured time of every method at
 * every (communicator size, message size) point, and optionally the weight
 * the application's profile puts on each point.  Built from a perf table
 * (and a profile); used by the quadtree build, the penalty analysis and the
 * pictures. */
#ifndef COLLSEL_MAP_H
#define COLLSEL_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "../record/profile.h"
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
} cs_map;

/* Build the map of collective coll from perf (rows of other collectives are
 * ignored); prof may be NULL.  Fails (naming the problem) if perf has no
 * rows for coll. */
int cs_map_build(cs_map *m, const cs_perf *perf, int coll, const cs_profile *prof, cs_err *e);
void cs_map_free(cs_map *m);
/* Index of the fastest measured method at point (i, j), -1 if none. */
int cs_map_best(const cs_map *m, int i, int j);
static inline double cs_map_time(const cs_map *m, int i, int j, int meth)
{
    return m->t[((size_t)i * m->nms + j) * m->nmethods + meth];
}

#endif
