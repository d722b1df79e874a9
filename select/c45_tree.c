/* C4.5 on decision maps (c45.h): cases from measured points, the tree
 * compiled into each collective's run-time decision function.
 *
 * Cases: every measured point (i, j) of a map (cs_map_decide >= 0), with
 * attributes comm size and message size (continuous) and, in a combined
 * tree, the collective (discrete); class = the point's decision under the
 * map's margin (so a method other than native is a class only where it
 * beats native by the margin, as in the quadtree).  Weighted (a profile):
 * a case weighs the time the application spent at its point plus a small
 * eps (1e-6 of the mean weight, so that never-called points still get a
 * sensible class), normalised so that the weights average 1: -m then
 * counts "cases" of average weight, and regions the application does not
 * call hold too little weight to be split.
 *
 * Compilation: a cut "x <= T" of the C4.5 tree separates measured axis
 * values, so it is a cut of the grid between two columns (rows); the
 * run-time boundary between those two measured values is the grid's
 * (tree_impl.h: arithmetic midpoint for comm sizes, geometric for message
 * sizes).  A test on the collective is resolved at compile time, and a
 * cut that leaves one side of a block empty is dropped, so each
 * collective gets a binary tree of cuts (CS_DTREE_BIN) whose leaves are
 * the C4.5 leaves it reaches; its flat table is filled from it and a
 * decision is the same table lookup as a quadtree's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "c45.h"
#include "quadtree.h"
#include "tree_impl.h"

void cs_c45_tune_default(cs_c45_tune *o)
{
    memset(o, 0, sizeof *o);
    o->c.minobjs = 2;
    o->c.cf = 25;
    o->nchoices = 4;
}

/* The class name of a method: the whole name in a tree of one collective,
 * the part after the collective in a combined tree. */
static const char *class_name(const char *method, int combined)
{
    const char *d = strchr(method, '.');
    return combined && d ? d + 1 : method;
}

static int is_native(const char *s)
{
    const char *d = strchr(s, '.');
    return !strcmp(d ? d + 1 : s, "native");
}

static int cmp_class(const void *a, const void *b)
{
    const char *x = a, *y = b;
    int nx = is_native(x), ny = is_native(y);
    if (nx != ny)
        return ny - nx;
    return strcmp(x, y);
}

typedef struct builder {
    const cs_map *const *maps;
    int nmaps, combined, ncls;
    char (*cls)[64];   /* class names, native first */
    int *meth_cls[CS_NCOLL]; /* per map: method -> class */
    double *w[CS_NCOLL];     /* per map: case weight of each point (ncs x nms), 0 unmeasured */
    cs_c45 tree;
    /* compile scratch */
    const cs_map *m;
    int mi, nch, depth_overflow;
    cs_dtree d;
    double *key1, *key2;
    int *rank;
} builder;

static int class_of(const builder *b, const char *name)
{
    const char (*p)[64] = bsearch(name, b->cls, (size_t)b->ncls, sizeof *b->cls, cmp_class);
    return p ? (int)(p - b->cls) : -1;
}

static int make_classes(builder *b)
{
    int n = 0;
    for (int k = 0; k < b->nmaps; k++)
        n += b->maps[k]->nmethods;
    if (!(b->cls = malloc((size_t)n * sizeof *b->cls)))
        return -1;
    n = 0;
    for (int k = 0; k < b->nmaps; k++)
        for (int q = 0; q < b->maps[k]->nmethods; q++)
            snprintf(b->cls[n++], 64, "%s", class_name(b->maps[k]->methods[q], b->combined));
    qsort(b->cls, (size_t)n, sizeof *b->cls, cmp_class);
    b->ncls = 0;
    for (int i = 0; i < n; i++)
        if (!b->ncls || strcmp(b->cls[b->ncls - 1], b->cls[i]))
            memmove(b->cls[b->ncls++], b->cls[i], 64);
    for (int k = 0; k < b->nmaps; k++) {
        const cs_map *m = b->maps[k];
        if (!(b->meth_cls[k] = malloc((size_t)m->nmethods * sizeof(int))))
            return -1;
        for (int q = 0; q < m->nmethods; q++)
            b->meth_cls[k][q] = class_of(b, class_name(m->methods[q], b->combined));
    }
    return 0;
}

/* The cases and, per map, the weight of each point. */
static int make_cases(builder *b, int weighted, cs_c45_data *d, double **x, int **cls, double **w)
{
    size_t n = 0;
    double wsum = 0;
    for (int k = 0; k < b->nmaps; k++) {
        const cs_map *m = b->maps[k];
        if (!(b->w[k] = calloc((size_t)m->ncs * m->nms, sizeof(double))))
            return -1;
        for (int i = 0; i < m->ncs; i++)
            for (int j = 0; j < m->nms; j++)
                if (cs_map_decide(m, i, j) >= 0) {
                    n++;
                    wsum += m->w ? m->w[i * m->nms + j] : 0;
                }
    }
    weighted = weighted && wsum > 0;
    d->nattr = b->combined ? 3 : 2;
    d->nvals[2] = b->combined ? b->nmaps : 0;
    d->ncls = b->ncls;
    *x = malloc((n ? n : 1) * 3 * sizeof **x);
    *cls = malloc((n ? n : 1) * sizeof **cls);
    *w = malloc((n ? n : 1) * sizeof **w);
    if (!*x || !*cls || !*w)
        return -1;
    double eps = n ? 1e-6 * wsum / (double)n : 0, total = 0;
    size_t c = 0;
    for (int k = 0; k < b->nmaps; k++) {
        const cs_map *m = b->maps[k];
        for (int i = 0; i < m->ncs; i++)
            for (int j = 0; j < m->nms; j++) {
                int dec = cs_map_decide(m, i, j);
                if (dec < 0)
                    continue;
                (*x)[c * d->nattr] = m->cs[i];
                (*x)[c * d->nattr + 1] = (double)m->ms[j];
                if (b->combined)
                    (*x)[c * d->nattr + 2] = k;
                (*cls)[c] = b->meth_cls[k][dec];
                (*w)[c] = weighted ? (m->w ? m->w[i * m->nms + j] : 0) + eps : 1;
                total += (*w)[c];
                c++;
            }
    }
    for (size_t i = 0; i < c; i++) /* mean weight 1 */
        (*w)[i] *= (double)c / total;
    c = 0;
    for (int k = 0; k < b->nmaps; k++) { /* the same weights per point, for ranking */
        const cs_map *m = b->maps[k];
        for (int i = 0; i < m->ncs; i++)
            for (int j = 0; j < m->nms; j++)
                if (cs_map_decide(m, i, j) >= 0)
                    b->w[k][i * m->nms + j] = (*w)[c++];
    }
    d->n = c;
    d->x = *x;
    d->cls = *cls;
    d->w = *w;
    return 0;
}

/* ---- compilation -------------------------------------------------------- */

/* Ranked methods of leaf `at` over the real points of its block. */
static void leaf_list(builder *b, int at, int x0, int x1, int y0, int y1, uint16_t *ids,
                      uint8_t *nids)
{
    const cs_map *m = b->m;
    int nm = m->nmethods;
    for (int q = 0; q < nm; q++)
        b->key1[q] = b->key2[q] = 0;
    for (int i = x0; i < x1 && i < m->ncs; i++)
        for (int j = y0; j < y1 && j < m->nms; j++) {
            int dec = cs_map_decide(m, i, j);
            if (dec < 0)
                continue;
            double tb = cs_map_time(m, i, j, cs_map_best(m, i, j));
            tb = tb > 1e-9 ? tb : 1e-9;
            b->key1[dec] -= b->w[b->mi][i * m->nms + j];
            for (int q = 0; q < nm; q++) {
                double t = cs_map_time(m, i, j, q);
                b->key2[q] += isnan(t) ? 100 : t / tb;
            }
        }
    cs_rank_methods(b->rank, nm, b->key1, b->key2);
    int first = -1; /* the tree's class, as a method of this collective */
    for (int q = 0; q < nm && first < 0; q++)
        if (b->meth_cls[b->mi][q] == b->tree.v[at].cls)
            first = q;
    int n = 0, has_native = 0;
    if (first >= 0)
        ids[n++] = (uint16_t)first;
    for (int r = 0; r < nm && n < b->nch; r++)
        if (b->rank[r] != first)
            ids[n++] = (uint16_t)b->rank[r];
    for (int r = 0; r < n; r++)
        has_native |= ids[r] == m->native;
    if (!has_native && m->native >= 0)
        ids[n++] = (uint16_t)m->native;
    *nids = (uint8_t)n;
}

/* Emit C4.5 node `at` restricted to the block [x0, x1) x [y0, y1) into
 * binary node `slot`. */
static void emit(builder *b, uint32_t slot, int at, int x0, int x1, int y0, int y1, int depth)
{
    const cs_map *m = b->m;
    for (;;) {
        const cs_c45_node *nd = &b->tree.v[at];
        if (nd->attr < 0)
            break;
        if (nd->attr == 2) { /* the collective: known here */
            at = nd->child + b->mi;
            continue;
        }
        int axis = nd->attr, lo = axis ? y0 : x0, hi = axis ? y1 : x1;
        int real = axis ? m->nms : m->ncs, end = hi < real ? hi : real, s = lo;
        while (s < end && (axis ? (double)m->ms[s] : (double)m->cs[s]) <= nd->thresh)
            s++;
        if (s <= lo || s >= end) { /* one side is empty (the padding follows the last value) */
            at = nd->child + (s <= lo);
            continue;
        }
        if (depth + 1 > CS_BIN_MAXDEPTH) {
            b->depth_overflow = 1;
            break;
        }
        uint32_t ch = b->d.nnodes;
        b->d.nnodes += 2;
        b->d.nodes[slot] = CS_BIN_NODE(ch, axis, s);
        if (axis) {
            emit(b, ch, nd->child, x0, x1, y0, s, depth + 1);
            emit(b, ch + 1, nd->child + 1, x0, x1, s, y1, depth + 1);
        } else {
            emit(b, ch, nd->child, x0, s, y0, y1, depth + 1);
            emit(b, ch + 1, nd->child + 1, s, x1, y0, y1, depth + 1);
        }
        return;
    }
    uint32_t l = b->d.nleaves++;
    b->d.nodes[slot] = CS_TREE_LEAF | l;
    leaf_list(b, at, x0, x1, y0, y1, &b->d.leaf_ids_own[l * CS_TREE_MAXCHOICE],
              &b->d.leaf_n_own[l]);
}

static int compile(builder *b, cs_tree *t, int mi, cs_err *e)
{
    const cs_map *m = b->maps[mi];
    cs_dtree *d = &b->d;
    memset(d, 0, sizeof *d);
    b->m = m;
    b->mi = mi;
    int side = m->ncs > m->nms ? m->ncs : m->nms;
    while ((1 << d->k) < side)
        d->k++;
    if (d->k > CS_TREE_MAXK)
        return cs_fail(e, "%s map is %d x %d points (at most %d per axis supported)",
                       cs_coll_name(m->coll), m->ncs, m->nms, 1 << CS_TREE_MAXK);
    size_t cap = (size_t)b->tree.n + 1;
    d->kind = CS_DTREE_BIN;
    d->ncs = m->ncs;
    d->nms = m->nms;
    d->nmethods = m->nmethods;
    d->cs = malloc((size_t)m->ncs * sizeof *d->cs);
    d->ms = malloc((size_t)m->nms * sizeof *d->ms);
    d->methods = malloc((size_t)m->nmethods * sizeof *d->methods);
    d->nodes = malloc(cap * sizeof *d->nodes);
    d->leaf_n_own = calloc(cap, 1);
    d->leaf_ids_own = calloc(cap * CS_TREE_MAXCHOICE, 2);
    if (!d->cs || !d->ms || !d->methods || !d->nodes || !d->leaf_n_own || !d->leaf_ids_own) {
        cs_dtree_free(d);
        return cs_fail(e, "out of memory compiling the %s C4.5 tree", cs_coll_name(m->coll));
    }
    memcpy(d->cs, m->cs, (size_t)m->ncs * sizeof *d->cs);
    memcpy(d->ms, m->ms, (size_t)m->nms * sizeof *d->ms);
    memcpy(d->methods, m->methods, (size_t)m->nmethods * sizeof *d->methods);
    d->nnodes = 1;
    b->depth_overflow = 0;
    emit(b, 0, 0, 0, 1 << d->k, 0, 1 << d->k, 0);
    if (b->depth_overflow) {
        cs_dtree_free(d);
        return cs_fail(e, "the %s C4.5 tree is deeper than %d (not supported)",
                       cs_coll_name(m->coll), CS_BIN_MAXDEPTH);
    }
    char what[64];
    snprintf(what, sizeof what, "%s C4.5 tree", cs_coll_name(m->coll));
    return cs_dtree_install(t, m->coll, d, what, e);
}

/* Depth (1 = root) of the shallowest test on attribute a; 0 if none. */
static int first_test(const cs_c45 *t, int at, int a, int depth)
{
    const cs_c45_node *nd = &t->v[at];
    if (nd->attr < 0)
        return 0;
    if (nd->attr == a)
        return depth;
    int best = 0;
    for (int k = 0; k < nd->nbranch; k++) {
        int f = first_test(t, nd->child + k, a, depth + 1);
        if (f && (!best || f < best))
            best = f;
    }
    return best;
}

int cs_c45_build(cs_tree *t, const cs_map *const *maps, int nmaps, const cs_c45_tune *o,
                 cs_c45_result *r, cs_err *e)
{
    builder b = {.maps = maps, .nmaps = nmaps, .combined = nmaps > 1};
    cs_c45_data d = {0};
    double *x = NULL, *w = NULL;
    int *cls = NULL, rc = -1;
    memset(r, 0, sizeof *r);
    if (nmaps < 1 || nmaps > CS_NCOLL)
        return cs_fail(e, "C4.5: %d maps (accepted 1..%d)", nmaps, CS_NCOLL);
    for (int k = 0; k < nmaps; k++)
        for (int q = 0; q < k; q++)
            if (maps[k]->coll == maps[q]->coll)
                return cs_fail(e, "C4.5: %s given twice", cs_coll_name(maps[k]->coll));
    b.nch = o->nchoices < 1 ? 1 : o->nchoices > CS_TREE_MAXCHOICE - 1 ? CS_TREE_MAXCHOICE - 1
                                                                       : o->nchoices;
    int maxm = 1;
    for (int k = 0; k < nmaps; k++)
        maxm = maps[k]->nmethods > maxm ? maps[k]->nmethods : maxm;
    b.key1 = malloc((size_t)maxm * sizeof *b.key1);
    b.key2 = malloc((size_t)maxm * sizeof *b.key2);
    b.rank = malloc((size_t)maxm * sizeof *b.rank);
    if (!b.key1 || !b.key2 || !b.rank || make_classes(&b) < 0 ||
        make_cases(&b, o->weighted, &d, &x, &cls, &w) < 0) {
        cs_fail(e, "C4.5: out of memory");
        goto out;
    }
    if (d.n == 0) {
        cs_fail(e, "C4.5: no measured point in the %s map", cs_coll_name(maps[0]->coll));
        goto out;
    }
    if (cs_c45_grow(&b.tree, &d, &o->c, e) < 0)
        goto out;
    cs_c45_shape s;
    cs_c45_shape_get(&b.tree, &s);
    *r = (cs_c45_result){b.tree.leaves_grown, s.leaves, s.nodes, s.depth, s.cases,
                         b.tree.errors_grown, s.errors, s.est, b.ncls,
                         b.combined ? first_test(&b.tree, 0, 2, 1) : 0};
    for (int k = 0; k < nmaps; k++)
        if (compile(&b, t, k, e) < 0)
            goto out;
    rc = 0;
out:
    for (int k = 0; k < nmaps; k++) {
        free(b.meth_cls[k]);
        free(b.w[k]);
    }
    free(b.cls);
    free(b.key1);
    free(b.key2);
    free(b.rank);
    free(x);
    free(cls);
    free(w);
    cs_c45_free(&b.tree);
    return rc;
}
