/* Penalty of a decision tree against a decision map (quadtree.h):
 * penalty(p) = (t_chosen - t_best) / t_best at each measured point p, with
 * the tree's decision taken exactly as at run time (cs_tree_decide at the
 * point's comm size and message size).  Also against native:
 * (t_chosen - t_native) / t_native where native was measured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quadtree.h"
#include "select/penalty.h"

typedef struct pw {
    double pen, w;
} pw;

static int cmp_pw(const void *a, const void *b)
{
    double x = ((const pw *)a)->pen, y = ((const pw *)b)->pen;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) sorted by penalty, each counted with its weight (all
 * weights 1 for the uniform median).  n > 0. */
static double median(const pw *v, size_t n, double total)
{
    double acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc += v[i].w;
        if (acc >= total / 2) {
            if (acc == total / 2 && i + 1 < n) /* exactly half: mean of the two */
                return (v[i].pen + v[i + 1].pen) / 2;
            return v[i].pen;
        }
    }
    return v[n - 1].pen;
}

int cs_penalty_eval(const cs_tree *t, const cs_map *m, cs_pen_stats *s, double *per_point,
                    int *chosen, cs_err *e)
{
    memset(s, 0, sizeof *s);
    if (!cs_tree_has(t, m->coll))
        return cs_fail(e, "the tree has no decision function for %s", cs_coll_name(m->coll));
    int ntm = cs_tree_nmethods(t, m->coll);
    size_t npts = (size_t)m->ncs * m->nms;
    int *to_map = malloc((size_t)ntm * sizeof *to_map);
    pw *v = malloc(npts * sizeof *v), *wv = malloc(npts * sizeof *wv);
    if (!to_map || !v || !wv) {
        free(to_map);
        free(v);
        free(wv);
        return cs_fail(e, "out of memory");
    }
    for (int k = 0; k < ntm; k++) { /* tree-local id -> map-local id */
        to_map[k] = -1;
        for (int q = 0; q < m->nmethods; q++)
            if (!strcmp(cs_tree_method_name(t, m->coll, k), m->methods[q]))
                to_map[k] = q;
    }
    double sum = 0, wsum = 0, wpsum = 0, nsum = 0, nwsum = 0, nwpsum = 0;
    for (int i = 0; i < m->ncs; i++)
        for (int j = 0; j < m->nms; j++) {
            size_t p = (size_t)i * m->nms + j;
            int best = cs_map_best(m, i, j), pick = -1;
            const uint16_t *ids;
            int n = cs_tree_decide(t, m->coll, m->cs[i], m->ms[j], &ids);
            for (int c = 0; best >= 0 && c < n && pick < 0; c++)
                if (to_map[ids[c]] >= 0 && !isnan(cs_map_time(m, i, j, to_map[ids[c]])))
                    pick = to_map[ids[c]];
            if (chosen)
                chosen[p] = pick;
            if (per_point)
                per_point[p] = NAN;
            if (best < 0 || pick < 0)
                continue;
            s->nfallback += n < 1 || pick != to_map[ids[0]];
            double tb = cs_map_time(m, i, j, best), tc = cs_map_time(m, i, j, pick);
            double pen = tb > 0 ? (tc - tb) / tb : (tc > tb ? INFINITY : 0);
            if (per_point)
                per_point[p] = pen;
            v[s->npoints++] = (pw){pen, 1};
            sum += pen;
            if (m->w && m->w[p] > 0) {
                wv[s->nweighted++] = (pw){pen, m->w[p]};
                wsum += m->w[p];
                wpsum += m->w[p] * pen;
            }
            double tn = m->native >= 0 ? cs_map_time(m, i, j, m->native) : NAN;
            if (isnan(tn))
                continue;
            double npen = tn > 0 ? (tc - tn) / tn : (tc > tn ? INFINITY : 0);
            s->nat_max = s->nnat++ ? fmax(s->nat_max, npen) : npen;
            nsum += npen;
            s->nslower += npen > CS_PEN_SLOWER;
            if (m->w && m->w[p] > 0) {
                s->nat_wmax = s->nwnat++ ? fmax(s->nat_wmax, npen) : npen;
                nwsum += m->w[p];
                nwpsum += m->w[p] * npen;
            }
        }
    if (s->nnat)
        s->nat_mean = nsum / (double)s->nnat;
    if (s->nwnat)
        s->nat_wmean = nwpsum / nwsum;
    if (s->npoints) {
        qsort(v, s->npoints, sizeof *v, cmp_pw);
        s->min = v[0].pen;
        s->max = v[s->npoints - 1].pen;
        s->mean = sum / (double)s->npoints;
        s->median = median(v, s->npoints, (double)s->npoints);
    }
    if (s->nweighted) {
        qsort(wv, s->nweighted, sizeof *wv, cmp_pw);
        s->wmin = wv[0].pen;
        s->wmax = wv[s->nweighted - 1].pen;
        s->wmean = wpsum / wsum;
        s->wmedian = median(wv, s->nweighted, wsum);
        s->wsum = wsum;
    }
    free(to_map);
    free(v);
    free(wv);
    return 0;
}
