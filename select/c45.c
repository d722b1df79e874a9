/* C4.5 (c45.h): growing, collapsing, pessimistic pruning, a leaf cap.
 *
 * Facts from Quinlan's book and release 8 (the Euro-Par 2007 paper used
 * C4.5 with -m and -c, no windowing):
 *   - a node's information: info = -sum_c f_c/W log2(f_c/W) over the case
 *     weights f_c of each class (W = their sum); the gain of a split is the
 *     node's info minus the weighted mean info of its branches; its split
 *     info is the info of the branch sizes; gain ratio = gain / split info;
 *   - a continuous attribute is cut between two adjacent distinct values
 *     (threshold: the lower value); the cut of highest gain is kept and its
 *     gain lowered by log2(number of admissible cuts) / W (release 8's
 *     correction for the choice among cuts); each side needs MinSplit =
 *     0.1 W / classes clipped to [m, 25];
 *   - a discrete attribute splits into one branch per value; at least two
 *     branches need weight >= m;
 *   - among the attributes with a usable split, the highest gain ratio
 *     wins among those whose gain is at least the average gain;
 *   - a node becomes a leaf when it is pure, holds less than 2 m, or no
 *     split is usable; a grown subtree that makes no fewer training errors
 *     than the node would as a leaf is collapsed to that leaf;
 *   - pruning (bottom-up): a subtree's estimated errors are the sum over
 *     its leaves of N x U_CF(E, N); the subtree becomes a leaf when the
 *     leaf's estimate is at most the subtree's + 0.1.  (Subtree raising,
 *     C4.5's grafting of the largest branch, is not done.)
 * U_CF(E, N), the upper limit of the binomial's confidence interval at
 * confidence CF, is computed as C4.5 does: exact for E = 0 (1 - CF^(1/N)),
 * linear between E = 0 and 1, else the continuity-corrected normal
 * approximation with the deviate interpolated in Quinlan's table (the
 * book's figures: U_25%(0, 6) = 0.206, U_25%(1, 16) = 0.157).
 *
 * Cost: growing is O(nodes x attributes x n log n) for n cases (each node
 * sorts its cases per continuous attribute); pruning O(nodes) bisections. */
#include "c45.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the binomial's upper confidence limit ------------------------------ */

/* The normal deviate z with P(Z > z) = cf, interpolated in Quinlan's table
 * of deviates (C4.5 does so, and the book's figures follow from it). */
static double deviate(double cf)
{
    static const double conf[] = {0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00};
    static const double dev[] = {4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00};
    int i = 1;
    while (i < 8 && cf > conf[i])
        i++;
    return dev[i - 1] + (dev[i] - dev[i - 1]) * (cf - conf[i - 1]) / (conf[i] - conf[i - 1]);
}

double cs_c45_upper(double n, double err, double cf)
{
    if (n <= 1e-12)
        return 0;
    if (err < 0)
        err = 0;
    if (err >= n)
        return 1;
    double u0 = 1 - exp(log(cf) / n); /* no error: exact, (1 - U)^N = cf */
    if (err < 1e-6)
        return u0;
    if (err < 0.9999) /* between 0 and 1 error: linear */
        return u0 + err * (cs_c45_upper(n, 1, cf) - u0);
    if (err + 0.5 >= n) /* C4.5: 0.67 extra errors per remaining case */
        return (err + 0.67 * (n - err)) / n;
    /* upper limit of the normal approximation, continuity-corrected */
    double z = deviate(cf), z2 = z * z, e5 = err + 0.5;
    return (e5 + z2 / 2 + z * sqrt(e5 * (1 - e5 / n) + z2 / 4)) / (n + z2);
}

/* Estimated errors of a leaf with N cases and E training errors. */
static double leaf_est(double n, double err, double cf)
{
    double u = n * cs_c45_upper(n, err, cf);
    return u > err ? u : err;
}

/* ---- growing ------------------------------------------------------------ */

typedef struct grower {
    const cs_c45_data *d;
    const cs_c45_opts *o;
    cs_c45 *t;
    double *freq;  /* scratch: ncls x (2 + max nvals) */
    int *sorted;   /* scratch: n */
    int sort_attr;
} grower;

static double weight(const grower *g, int i) { return g->d->w ? g->d->w[i] : 1; }
static double attr(const grower *g, int i, int a) { return g->d->x[(size_t)i * g->d->nattr + a]; }

static double info(const double *f, int ncls, double w)
{
    double s = 0;
    for (int c = 0; c < ncls; c++)
        if (f[c] > 0)
            s -= f[c] / w * log2(f[c] / w);
    return s;
}

static int cmp_case(const void *a, const void *b, void *arg)
{
    const grower *g = arg;
    int x = *(const int *)a, y = *(const int *)b;
    double u = attr(g, x, g->sort_attr), v = attr(g, y, g->sort_attr);
    return u < v ? -1 : u > v ? 1 : x - y;
}

typedef struct split {
    double gain, ratio, thresh;
} split;

/* Best cut of continuous attribute a over cases idx[0..n) (its gain may be
 * <= 0); 0 if no cut is admissible. */
static int eval_cont(grower *g, const int *idx, int n, int a, double w, double base, split *s)
{
    int ncls = g->d->ncls;
    double *left = g->freq, *all = g->freq + ncls;
    memcpy(g->sorted, idx, (size_t)n * sizeof *idx);
    g->sort_attr = a;
    qsort_r(g->sorted, (size_t)n, sizeof *idx, cmp_case, g);
    memset(left, 0, 2 * (size_t)ncls * sizeof *left);
    for (int i = 0; i < n; i++)
        all[g->d->cls[idx[i]]] += weight(g, idx[i]);
    double minsplit = 0.1 * w / ncls;
    minsplit = minsplit < g->o->minobjs ? g->o->minobjs : minsplit > 25 ? 25 : minsplit;
    double wl = 0, best = -1, bwl = 0;
    int tries = 0;
    for (int i = 0; i + 1 < n; i++) {
        int c = g->sorted[i];
        wl += weight(g, c);
        left[g->d->cls[c]] += weight(g, c);
        double v = attr(g, c, a), next = attr(g, g->sorted[i + 1], a);
        if (v == next || wl < minsplit - 1e-9 || w - wl < minsplit - 1e-9)
            continue;
        tries++;
        double il = info(left, ncls, wl), ir = 0;
        for (int k = 0; k < ncls; k++) /* right side = all - left */
            if (all[k] - left[k] > 1e-12)
                ir -= (all[k] - left[k]) / (w - wl) * log2((all[k] - left[k]) / (w - wl));
        double gain = base - (wl * il + (w - wl) * ir) / w;
        if (gain > best + 1e-12) {
            best = gain;
            bwl = wl;
            s->thresh = v;
        }
    }
    if (!tries)
        return 0;
    s->gain = best - log2(tries) / w;
    double pl = bwl / w, pr = 1 - pl;
    double si = -(pl * log2(pl) + pr * log2(pr));
    s->ratio = si > 1e-12 ? s->gain / si : 0;
    return 1;
}

/* Discrete attribute a: one branch per value; 0 if fewer than two
 * branches hold m cases. */
static int eval_disc(grower *g, const int *idx, int n, int a, double w, double base, split *s)
{
    int ncls = g->d->ncls, nv = g->d->nvals[a];
    double *f = g->freq, *bw = g->freq + (size_t)nv * ncls; /* f[v * ncls + c] */
    memset(f, 0, (size_t)nv * (ncls + 1) * sizeof *f);
    for (int i = 0; i < n; i++) {
        int v = (int)attr(g, idx[i], a);
        f[v * ncls + g->d->cls[idx[i]]] += weight(g, idx[i]);
        bw[v] += weight(g, idx[i]);
    }
    int reasonable = 0;
    double rem = 0, si = 0;
    for (int v = 0; v < nv; v++) {
        reasonable += bw[v] >= g->o->minobjs - 1e-9;
        if (bw[v] > 0) {
            rem += bw[v] / w * info(&f[v * ncls], ncls, bw[v]);
            si -= bw[v] / w * log2(bw[v] / w);
        }
    }
    if (reasonable < 2)
        return 0;
    s->gain = base - rem;
    s->ratio = si > 1e-12 ? s->gain / si : 0;
    s->thresh = 0;
    return 1;
}

static int new_nodes(cs_c45 *t, int k)
{
    if (t->n + k > t->cap) {
        int cap = t->cap * 2 + k + 16;
        cs_c45_node *v = realloc(t->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    t->n += k;
    return t->n - k;
}

/* Grow node `at` from cases idx[0..n); returns the subtree's training
 * errors (-1: out of memory).  parent_cls answers an empty branch. */
static double grow(grower *g, int at, int *idx, int n, int depth, int parent_cls)
{
    const cs_c45_data *d = g->d;
    int ncls = d->ncls;
    double *f = g->freq, w = 0;
    memset(f, 0, (size_t)ncls * sizeof *f);
    for (int i = 0; i < n; i++) {
        f[d->cls[idx[i]]] += weight(g, idx[i]);
        w += weight(g, idx[i]);
    }
    int cls = n ? 0 : parent_cls;
    for (int c = 1; n && c < ncls; c++)
        if (f[c] > f[cls] + 1e-12)
            cls = c;
    cs_c45_node *nd = &g->t->v[at];
    *nd = (cs_c45_node){-1, 0, 0, -1, cls, w, w - f[cls], 0, depth};
    double err = nd->err, base = info(f, ncls, w);
    if (n == 0 || err <= 1e-9 * w || w < 2 * g->o->minobjs - 1e-9)
        return err;
    split sp[CS_C45_MAXATTR];
    int ok[CS_C45_MAXATTR], nok = 0;
    double avg = 0;
    for (int a = 0; a < d->nattr; a++) {
        ok[a] = d->nvals[a] ? eval_disc(g, idx, n, a, w, base, &sp[a])
                            : eval_cont(g, idx, n, a, w, base, &sp[a]);
        if (ok[a]) {
            nok++;
            avg += sp[a].gain;
        }
    }
    if (!nok)
        return err;
    avg /= nok;
    int best = -1; /* the average counts every attribute with a split, gainful or not */
    for (int a = 0; a < d->nattr; a++)
        if (ok[a] && sp[a].gain > 1e-12 && sp[a].gain >= avg - 1e-9 &&
            (best < 0 || sp[a].ratio > sp[best].ratio + 1e-12))
            best = a;
    if (best < 0)
        return err;
    int nb = d->nvals[best] ? d->nvals[best] : 2;
    int child = new_nodes(g->t, nb);
    int *sub = malloc((size_t)(n ? n : 1) * sizeof *sub);
    if (child < 0 || !sub) {
        free(sub);
        return -1;
    }
    nd = &g->t->v[at];
    nd->attr = best;
    nd->thresh = sp[best].thresh;
    nd->nbranch = nb;
    nd->child = child;
    double sum = 0;
    for (int b = 0; b < nb; b++) {
        int k = 0;
        for (int i = 0; i < n; i++) {
            double v = attr(g, idx[i], best);
            int br = d->nvals[best] ? (int)v : v > sp[best].thresh;
            if (br == b)
                sub[k++] = idx[i];
        }
        double ce = grow(g, child + b, sub, k, depth + 1, cls);
        if (ce < 0) {
            free(sub);
            return -1;
        }
        sum += ce;
    }
    free(sub);
    nd = &g->t->v[at];
    if (sum >= err - 1e-3) { /* no better than a leaf: collapse */
        nd->attr = -1;
        return err;
    }
    return sum;
}

/* ---- pruning, the leaf cap ---------------------------------------------- */

static double prune(cs_c45 *t, int at, double cf)
{
    cs_c45_node *nd = &t->v[at];
    double as_leaf = leaf_est(nd->w, nd->err, cf);
    if (nd->attr < 0)
        return nd->est = as_leaf;
    double sub = 0;
    for (int b = 0; b < nd->nbranch; b++)
        sub += prune(t, nd->child + b, cf);
    nd = &t->v[at];
    if (as_leaf <= sub + 0.1) {
        nd->attr = -1;
        return nd->est = as_leaf;
    }
    return nd->est = sub;
}

static void shape(const cs_c45 *t, int at, cs_c45_shape *s)
{
    const cs_c45_node *nd = &t->v[at];
    s->nodes++;
    s->depth = nd->depth > s->depth ? nd->depth : s->depth;
    if (nd->attr < 0) {
        s->leaves++;
        s->errors += nd->err;
        s->est += nd->est;
        s->cases += nd->w;
        return;
    }
    for (int b = 0; b < nd->nbranch; b++)
        shape(t, nd->child + b, s);
}

void cs_c45_shape_get(const cs_c45 *t, cs_c45_shape *s)
{
    memset(s, 0, sizeof *s);
    if (t->n)
        shape(t, 0, s);
}

/* Collapse, among the nodes whose branches are all leaves, the one whose
 * collapse adds the fewest training errors; 0 when there is none. */
static int collapse_cheapest(cs_c45 *t, double cf)
{
    int best = -1;
    double bc = 0;
    for (int i = 0; i < t->n; i++) {
        const cs_c45_node *nd = &t->v[i];
        if (nd->attr < 0)
            continue;
        double sum = 0;
        int leaves = 1;
        for (int b = 0; b < nd->nbranch && leaves; b++) {
            leaves = t->v[nd->child + b].attr < 0;
            sum += t->v[nd->child + b].err;
        }
        /* reachable: internal nodes only exist under internal parents */
        if (leaves && (best < 0 || nd->err - sum < bc - 1e-12)) {
            best = i;
            bc = nd->err - sum;
        }
    }
    if (best < 0)
        return 0;
    t->v[best].attr = -1;
    t->v[best].est = leaf_est(t->v[best].w, t->v[best].err, cf);
    return 1;
}

/* Unreachable internal nodes would confuse collapse_cheapest: mark every
 * node under a leaf as a leaf too. */
static void settle(cs_c45 *t, int at, int under_leaf)
{
    cs_c45_node *nd = &t->v[at];
    int was_internal = nd->nbranch > 0;
    if (under_leaf)
        nd->attr = -1;
    if (was_internal)
        for (int b = 0; b < nd->nbranch; b++)
            settle(t, nd->child + b, under_leaf || nd->attr < 0);
}

/* ---- entry points ------------------------------------------------------- */

static int check(const cs_c45_data *d, const cs_c45_opts *o, cs_err *e)
{
    if (!(o->minobjs >= 1 && o->minobjs <= 1e9))
        return cs_fail(e, "C4.5 -m %g out of range (accepted: 1..1e9 cases)", o->minobjs);
    if (!(o->cf > 0 && o->cf <= 100))
        return cs_fail(e, "C4.5 -c %g%% out of range (accepted: a confidence in (0, 100])", o->cf);
    if (o->max_leaves < 0)
        return cs_fail(e, "C4.5 leaf cap %d (accepted: >= 1, or 0 for none)", o->max_leaves);
    if (d->nattr < 1 || d->nattr > CS_C45_MAXATTR || d->ncls < 1 || d->n < 1 || d->n > INT32_MAX)
        return cs_fail(e, "C4.5: %d attributes, %d classes, %zu cases (accepted: 1..%d, >= 1, "
                          ">= 1)", d->nattr, d->ncls, d->n, CS_C45_MAXATTR);
    for (int a = 0; a < d->nattr; a++)
        if (d->nvals[a] < 0 || d->nvals[a] > 4096)
            return cs_fail(e, "C4.5: attribute %d has %d values", a, d->nvals[a]);
    for (size_t i = 0; i < d->n; i++) {
        if (d->cls[i] < 0 || d->cls[i] >= d->ncls)
            return cs_fail(e, "C4.5: case %zu has class %d (of %d)", i, d->cls[i], d->ncls);
        if (d->w && !(d->w[i] > 0 && isfinite(d->w[i])))
            return cs_fail(e, "C4.5: case %zu has weight %g (must be positive)", i, d->w[i]);
        for (int a = 0; a < d->nattr; a++) {
            double v = d->x[i * d->nattr + a];
            if (!isfinite(v) || (d->nvals[a] && (v != floor(v) || v < 0 || v >= d->nvals[a])))
                return cs_fail(e, "C4.5: case %zu attribute %d value %g out of range", i, a, v);
        }
    }
    return 0;
}

int cs_c45_grow(cs_c45 *t, const cs_c45_data *d, const cs_c45_opts *o, cs_err *e)
{
    memset(t, 0, sizeof *t);
    if (check(d, o, e) < 0)
        return -1;
    memcpy(t->nvals, d->nvals, sizeof t->nvals);
    int maxv = 2;
    for (int a = 0; a < d->nattr; a++)
        maxv = d->nvals[a] > maxv ? d->nvals[a] : maxv;
    grower g = {d, o, t, calloc((size_t)d->ncls * (maxv + 2) + (size_t)maxv, sizeof(double)),
                malloc(d->n * sizeof(int)), 0};
    int *idx = malloc(d->n * sizeof *idx);
    int rc = -1;
    if (!g.freq || !g.sorted || !idx || new_nodes(t, 1) < 0) {
        cs_fail(e, "C4.5: out of memory");
        goto out;
    }
    for (size_t i = 0; i < d->n; i++)
        idx[i] = (int)i;
    double err = grow(&g, 0, idx, (int)d->n, 0, 0);
    if (err < 0) {
        cs_fail(e, "C4.5: out of memory");
        goto out;
    }
    settle(t, 0, 0);
    cs_c45_shape s;
    cs_c45_shape_get(t, &s);
    t->leaves_grown = s.leaves;
    t->errors_grown = s.errors;
    prune(t, 0, o->cf / 100);
    settle(t, 0, 0);
    for (;;) {
        cs_c45_shape_get(t, &s);
        if (!o->max_leaves || s.leaves <= o->max_leaves || !collapse_cheapest(t, o->cf / 100))
            break;
        settle(t, 0, 0);
    }
    rc = 0;
out:
    free(g.freq);
    free(g.sorted);
    free(idx);
    if (rc < 0)
        cs_c45_free(t);
    return rc;
}

void cs_c45_free(cs_c45 *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}

int cs_c45_leaf(const cs_c45 *t, const double *x)
{
    int at = 0;
    while (t->v[at].attr >= 0) {
        const cs_c45_node *nd = &t->v[at];
        double v = x[nd->attr];
        at = nd->child + (t->nvals[nd->attr] ? (int)v : v > nd->thresh);
    }
    return at;
}
