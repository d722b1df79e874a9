/* The penalty of a decision tree (quadtree or C4.5) against measured data
 * (penalty.c): what collsel tune, penalty and compare report. */
#ifndef COLLSEL_PENALTY_H
#define COLLSEL_PENALTY_H

#include "select/map.h"
#include "select/tree.h"

/* Penalty of tree t against map m: at every measured point of m, the
 * method the tree chooses (its first candidate that was measured there)
 * against the fastest measured one: (t_chosen - t_best) / t_best (the
 * margin plays no part).  Uniform statistics over the points; weighted ones
 * with the map's weights (points of weight 0 left out).  per_point (ncs *
 * nms, may be NULL) gets each point's penalty, NAN where unmeasured; chosen
 * (may be NULL) the map-local method chosen, -1 where unmeasured.
 * Against native, at the points where native was measured too:
 * (t_chosen - t_native) / t_native (negative: faster than native), its mean
 * and max, uniform and weighted, and the number of points where the choice
 * is more than CS_PEN_SLOWER (5 %) slower than native. */
#define CS_PEN_SLOWER 0.05
typedef struct cs_pen_stats {
    size_t npoints, nweighted, nfallback; /* fallback: first candidate unmeasured */
    double min, max, mean, median;
    double wmin, wmax, wmean, wmedian, wsum;
    size_t nnat, nwnat, nslower; /* points against native (weighted); > 5 % slower */
    double nat_mean, nat_max, nat_wmean, nat_wmax;
} cs_pen_stats;
int cs_penalty_eval(const cs_tree *t, const cs_map *m, cs_pen_stats *s, double *per_point,
                    int *chosen, cs_err *e);

#endif
