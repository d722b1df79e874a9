/* Quadtree construction: decision map -> complete 2^k x 2^k grid -> tree.
 *
 * Reference: Pjesivac-Grbovic, Bosilca, Fagg, Angskun, Dongarra, "MPI
 * collective algorithm selection and quadtree encoding", Parallel Computing
 * 2007.  Their construction (CS_TUNE_PAPERS): a block is a leaf when at
 * least `threshold` % of its points have the same best method (100 % =
 * exact) or the maximum depth is reached; otherwise it is split into its
 * four quadrants.  The leaf answers the majority method.  They report that
 * 3 levels kept the mean penalty under 10 % and 6 levels reproduced their
 * measured map exactly.  As in the papers the share counts every point of
 * the completed 2^k x 2^k map, padding included; but a block entirely in the
 * padding answers no input and is never split (same answers, fewer nodes
 * when the map is far from square).
 *
 * Extension (CS_TUNE_WEIGHTED): with an application profile, every point
 * carries a weight w (time the application spent in calls that fall on it).
 * A leaf answers the method with the lowest weighted normalised time over
 * its block, sum_p (w_p + eps) t_m(p) / t_best(p) (eps: a small weight so
 * never-called points still get a sensible method); its cost is the
 * weighted penalty sum_p w_p (t_m(p) - t_best(p)) / t_best(p).  Splits are
 * taken best first (a priority queue, here a scan of the leaves): the leaf
 * whose refinement can remove the most weighted cost (its cost minus the
 * cost of its block refined down to the depth cap) is split next, while the
 * leaf budget allows (a split adds up to 3 leaves; blocks entirely in the
 * padding answer nothing and are not counted).  One-step gains would be
 * myopic: a 2 x 2 checkerboard inside a block only shows after 3 splits.
 * Blocks without weight have no weighted cost, so regions the application
 * does not call stay coarse: only budget left once no weighted cost can be
 * removed goes to them (largest unweighted cost reduction first).
 *
 * Leaf rule (cs_quadtree_opts.leaf_penalty, collsel tune --leaf penalty): the
 * papers' leaf answers its block's majority method, which can cost a lot
 * where a minority of points is slow with it; the alternative answers the
 * method of least time over the block's measured points counting, where
 * it was not measured, the best single method for those points
 * (first_with_fallback), and then, as next candidates, the methods of
 * least time where the ones before were not measured (fallbacks).  Splits
 * still follow the majority's share, so both rules give trees of the same
 * shape.  On the papers' grid (docs/papers/tables.md) its mean penalty is
 * lower at every depth but one (reduce depth 3: 3.9 against 6.4 %; bcast
 * depth 4: 1.7 against 3.3 %; bcast depth 3: 4.6 against 4.5 %).
 *
 * CS_TUNE_BUDGET is the papers' criterion under a leaf budget (for a fair
 * comparison with the weighted tree): the shallowest, least pure block that
 * misses the threshold is split first.
 *
 * Margin (map.h, collsel tune --margin): on noisy maps with many methods
 * the fastest method is often only marginally faster than native.  The
 * grid's per-point decision (cs_grid.best) is native unless a method beats
 * it by the margin; the papers' criterion counts these decisions, and the
 * weighted leaf criterion compares the best weighted total with native's
 * by the same margin.  Costs stay penalties against the fastest method.
 *
 * Cost: building is O(nodes x block points x methods); at most 256 x 256
 * points. */
#include "quadtree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tree_impl.h"

void cs_quadtree_opts_default(cs_quadtree_opts *o)
{
    o->mode = CS_TUNE_PAPERS;
    o->max_depth = -1;
    o->threshold = 100;
    o->max_leaves = 16;
    o->nchoices = 4;
    o->leaf_penalty = 0;
}

void cs_grid_free(cs_grid *g)
{
    free(g->t);
    free(g->w);
    free(g->best);
    free(g->fastest);
    free(g->measured);
    memset(g, 0, sizeof *g);
}

/* Completion: a method not measured at a measured point is no candidate
 * there (it takes CS_UNMEASURED x the best time: a large finite penalty); a
 * point where nothing was measured takes the times of the nearest measured
 * point (grid distance, ties to the smaller x, then y); the padding
 * replicates the last column/row. */
#define CS_UNMEASURED 100.0

static void fill_measured(cs_grid *g, const cs_map *m, int i, int j, int best)
{
    double *t = &g->t[((size_t)i * g->n + j) * g->nm], tb = cs_map_time(m, i, j, best);
    for (int k = 0; k < m->nmethods; k++) {
        t[k] = cs_map_time(m, i, j, k);
        if (isnan(t[k]))
            t[k] = CS_UNMEASURED * (tb > 1e-9 ? tb : 1e-9);
    }
    g->measured[i * g->n + j] = 1;
}

static void fill_nearest(cs_grid *g, const int *list, int nlist, int i, int j)
{
    long bd = -1;
    int src = 0;
    for (int q = 0; q < nlist; q++) { /* list is in (x, y) order: ties keep the first */
        int a = list[q] / g->n, b = list[q] % g->n;
        long d = (long)(a - i) * (a - i) + (long)(b - j) * (b - j);
        if (bd < 0 || d < bd) {
            bd = d;
            src = list[q];
        }
    }
    memcpy(&g->t[((size_t)i * g->n + j) * g->nm], &g->t[(size_t)src * g->nm],
           (size_t)g->nm * sizeof *g->t);
}

static void complete(cs_grid *g, const cs_map *m, int *list)
{
    int n = g->n, nlist = 0;
    for (int i = 0; i < m->ncs; i++)
        for (int j = 0; j < m->nms; j++) {
            int best = cs_map_best(m, i, j);
            if (best >= 0) {
                fill_measured(g, m, i, j, best);
                list[nlist++] = i * n + j;
            }
        }
    for (int i = 0; i < m->ncs; i++)
        for (int j = 0; j < m->nms; j++)
            if (!g->measured[i * n + j])
                fill_nearest(g, list, nlist, i, j);
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++) {
            int i = x < m->ncs ? x : m->ncs - 1, j = y < m->nms ? y : m->nms - 1;
            double *t = &g->t[((size_t)x * n + y) * g->nm];
            if (x != i || y != j)
                memcpy(t, &g->t[((size_t)i * n + j) * g->nm], g->nm * sizeof *t);
            else if (g->w)
                g->w[x * n + y] = m->w[i * m->nms + j];
            int b = 0;
            for (int k = 1; k < g->nm; k++)
                if (t[k] < t[b])
                    b = k;
            g->fastest[x * n + y] = b;
            if (g->native >= 0 && b != g->native && !cs_margin_beats(t[b], t[g->native], g->margin))
                b = g->native;
            g->best[x * n + y] = b;
        }
}

int cs_grid_build(cs_grid *g, const cs_map *m, cs_err *e)
{
    memset(g, 0, sizeof *g);
    int side = m->ncs > m->nms ? m->ncs : m->nms;
    while ((1 << g->k) < side)
        g->k++;
    if (g->k > CS_TREE_MAXK)
        return cs_fail(e, "%s map is %d x %d points (at most %d per axis supported)",
                       cs_coll_name(m->coll), m->ncs, m->nms, 1 << CS_TREE_MAXK);
    int n = g->n = 1 << g->k;
    g->ncs = m->ncs;
    g->nms = m->nms;
    g->nm = m->nmethods;
    g->native = m->native;
    g->margin = m->margin;
    if (!(m->margin >= 0 && m->margin <= 100))
        return cs_fail(e, "margin %g%% out of range (accepted: [0, 100])", m->margin);
    size_t np = (size_t)n * n;
    g->t = malloc(np * g->nm * sizeof *g->t);
    g->best = malloc(np * sizeof *g->best);
    g->fastest = malloc(np * sizeof *g->fastest);
    g->measured = calloc(np, 1);
    g->w = m->w ? calloc(np, sizeof *g->w) : NULL;
    int *list = malloc(np * sizeof *list);
    if (!g->t || !g->best || !g->fastest || !g->measured || (m->w && !g->w) || !list) {
        free(list);
        cs_grid_free(g);
        return cs_fail(e, "out of memory completing the %s map", cs_coll_name(m->coll));
    }
    complete(g, m, list);
    free(list);
    return 0;
}

/* ---- building ---------------------------------------------------------- */

typedef struct qnode {
    int x0, y0, size, depth;
    int child;   /* first of 4 children, -1 = leaf */
    double gain;  /* WEIGHTED: weighted cost that splitting can remove */
    double ugain; /* WEIGHTED: the same, unweighted (used once no weighted gain is left) */
} qnode;

typedef struct qbuild {
    const cs_grid *g;
    const cs_quadtree_opts *o;
    int native;      /* map-local id of COLL.native, -1 if absent */
    double eps;      /* WEIGHTED: weight of a never-called point */
    double wsum;     /* WEIGHTED: total weight */
    double ucost;    /* WEIGHTED: unweighted cost of the last block_eval'd block */
    int weighted;
    qnode *v;
    int n, cap, nleaves;
    int nanswer;     /* leaves not entirely in the padding: what the budget counts */
    double *key1, *key2; /* scratch, nm: ranking keys (ascending) */
    int *rank;           /* scratch, nm */
} qbuild;

/* Normalised time of method m at point p: against the fastest method
 * there (not the margin decision), so that costs are honest penalties. */
static double ratio(const cs_grid *g, size_t p, int m)
{
    double tb = g->t[p * g->nm + g->fastest[p]];
    return g->t[p * g->nm + m] / (tb > 1e-9 ? tb : 1e-9);
}

typedef struct rank_keys {
    const double *key1, *key2;
} rank_keys;

static int cmp_rank(const void *a, const void *b, void *arg)
{
    const rank_keys *q = arg;
    int x = *(const int *)a, y = *(const int *)b;
    if (q->key1[x] != q->key1[y])
        return q->key1[x] < q->key1[y] ? -1 : 1;
    if (q->key2[x] != q->key2[y])
        return q->key2[x] < q->key2[y] ? -1 : 1;
    return x - y;
}

void cs_rank_methods(int *rank, int n, const double *key1, const double *key2)
{
    rank_keys k = {key1, key2};
    for (int m = 0; m < n; m++)
        rank[m] = m;
    qsort_r(rank, (size_t)n, sizeof *rank, cmp_rank, &k);
}

/* Rank the methods of a block (best first into b->rank) and return its
 * criterion: the majority share (papers) or the weighted cost (weighted).
 * Papers: by number of points where the method is the decision (margin
 * included: cs_grid.best), then by summed normalised time.  Weighted: by
 * summed (w + eps) x normalised time over the real points, with native
 * moved first unless the best total beats native's by the margin (a block
 * all in the padding is ranked like the papers). */
/* Least-penalty leaves: the candidates after the first, chosen for the
 * points where the ones before them were not measured (the run time and
 * the penalty take the first measured candidate): candidate k is the
 * method of least summed time over the block's measured points that no
 * candidate before k covers. */
static void fallbacks(qbuild *b, int x0, int y0, int size)
{
    const cs_grid *g = b->g;
    int nm = g->nm, nc = b->o->nchoices < nm ? b->o->nchoices : nm;
    for (int k = 1; k < nc; k++) {
        int pick = -1;
        double best = 0;
        for (int r = k; r < nm; r++) {
            int m = b->rank[r], any = 0;
            double sum = 0;
            for (int x = x0; x < x0 + size && x < g->ncs; x++)
                for (int y = y0; y < y0 + size && y < g->nms; y++) {
                    size_t p = (size_t)x * g->n + y;
                    int covered = !g->measured[p];
                    for (int q = 0; q < k && !covered; q++)
                        covered = ratio(g, p, b->rank[q]) < CS_UNMEASURED;
                    if (covered)
                        continue;
                    any = 1;
                    sum += ratio(g, p, m);
                }
            if (!any)
                return; /* every point covered: the rest keeps its order */
            if (pick < 0 || sum < best) {
                pick = r;
                best = sum;
            }
        }
        int m = b->rank[pick]; /* move it to position k, the others keep their order */
        memmove(&b->rank[k + 1], &b->rank[k], (size_t)(pick - k) * sizeof *b->rank);
        b->rank[k] = m;
    }
}

/* Least-penalty leaves: the first candidate, by its time where it was
 * measured plus, where it was not, the time of the best single method for
 * those points (the fallback fallbacks() then picks); a block where no
 * method has gaps keeps the ranking by summed time. */
static void first_with_fallback(qbuild *b, int x0, int y0, int size)
{
    const cs_grid *g = b->g;
    int nm = g->nm, pick = -1;
    double best = 0;
    for (int r = 0; r < nm; r++) {
        int m = b->rank[r], seen = 0;
        double own = 0, fb = -1;
        for (int x = x0; x < x0 + size && x < g->ncs; x++)
            for (int y = y0; y < y0 + size && y < g->nms; y++) {
                size_t p = (size_t)x * g->n + y;
                if (g->measured[p] && ratio(g, p, m) < CS_UNMEASURED)
                    own += ratio(g, p, m), seen = 1;
            }
        if (!seen)
            continue;
        for (int f = 0; f < nm; f++) { /* the best single fallback over m's gaps */
            double sum = 0;
            if (f == m)
                continue;
            for (int x = x0; x < x0 + size && x < g->ncs; x++)
                for (int y = y0; y < y0 + size && y < g->nms; y++) {
                    size_t p = (size_t)x * g->n + y;
                    if (g->measured[p] && ratio(g, p, m) >= CS_UNMEASURED)
                        sum += ratio(g, p, f);
                }
            fb = fb < 0 || sum < fb ? sum : fb;
        }
        double cost = own + (fb > 0 ? fb : 0);
        if (pick < 0 || cost < best - 1e-12) {
            pick = r;
            best = cost;
        }
    }
    if (pick > 0) {
        int m = b->rank[pick];
        memmove(&b->rank[1], &b->rank[0], (size_t)pick * sizeof *b->rank);
        b->rank[0] = m;
    }
}

static double block_eval(qbuild *b, int x0, int y0, int size)
{
    const cs_grid *g = b->g;
    int nm = g->nm;
    int real = x0 < g->ncs && y0 < g->nms, weighted = b->weighted && real;
    for (int m = 0; m < nm; m++)
        b->key1[m] = b->key2[m] = 0;
    for (int x = x0; x < x0 + size; x++)
        for (int y = y0; y < y0 + size; y++) {
            size_t p = (size_t)x * g->n + y;
            if (!weighted) {
                b->key1[g->best[p]] -= 1; /* more points first */
                /* least-penalty leaves: the measured points only (the
                 * padding replicates the edge and would outweigh it) */
                if (b->o->leaf_penalty && real && !(x < g->ncs && y < g->nms && g->measured[p]))
                    continue;
                for (int m = 0; m < nm; m++) {
                    double r = ratio(g, p, m);
                    /* least-penalty leaves: where m was not measured (it does
                     * not apply there, or a segmented variant the size makes
                     * redundant) the leaf's next candidate runs, as the
                     * penalty counts it: taken as the point's best, plus a
                     * small cost so that measured methods win ties */
                    if (b->o->leaf_penalty && r >= CS_UNMEASURED)
                        r = 1.001;
                    b->key2[m] += r;
                }
            } else if (x < g->ncs && y < g->nms) {
                for (int m = 0; m < nm; m++)
                    b->key1[m] += (g->w[p] + b->eps) * ratio(g, p, m);
            }
        }
    if (!weighted && b->o->leaf_penalty) { /* least summed time first; purity: the majority's */
        double most = 0;
        for (int m = 0; m < nm; m++) {
            double count = b->key1[m];
            most = count < most ? count : most;
            b->key1[m] = b->key2[m];
            b->key2[m] = count;
        }
        cs_rank_methods(b->rank, nm, b->key1, b->key2);
        first_with_fallback(b, x0, y0, size);
        fallbacks(b, x0, y0, size);
        return -most / ((double)size * size);
    }
    cs_rank_methods(b->rank, nm, b->key1, b->key2);
    int nat = g->native;
    if (weighted && nat >= 0 && b->rank[0] != nat &&
        !cs_margin_beats(b->key1[b->rank[0]], b->key1[nat], g->margin)) {
        int r = 0; /* no method beats native by the margin over the block: native first */
        while (b->rank[r] != nat)
            r++;
        memmove(&b->rank[1], &b->rank[0], (size_t)r * sizeof *b->rank);
        b->rank[0] = nat;
    }
    int top = b->rank[0];
    if (!b->weighted)
        return -b->key1[top] / ((double)size * size);
    double cost = 0;
    b->ucost = 0;
    for (int x = x0; x < x0 + size && x < g->ncs; x++)
        for (int y = y0; y < y0 + size && y < g->nms; y++) {
            size_t p = (size_t)x * g->n + y;
            cost += g->w[p] * (ratio(g, p, top) - 1);
            b->ucost += ratio(g, p, top) - 1;
        }
    return cost;
}

/* A block lying entirely in the padding answers no input: never split. */
static int can_split(const qbuild *b, const qnode *q)
{
    return q->size > 1 && (b->o->max_depth < 0 || q->depth < b->o->max_depth) &&
           q->x0 < b->g->ncs && q->y0 < b->g->nms;
}

static int pure_enough(qbuild *b, const qnode *q)
{
    return block_eval(b, q->x0, q->y0, q->size) * 100 >= b->o->threshold - 1e-9;
}

/* Weighted (and in *u unweighted) cost of a block once refined as far as
 * allowed (0 without a depth cap: single points are exact). */
static double floor_cost(qbuild *b, int x0, int y0, int size, int depth, double *u)
{
    qnode q = {x0, y0, size, depth, -1, 0, 0};
    if (!can_split(b, &q)) {
        double c = block_eval(b, x0, y0, size);
        *u += b->ucost;
        return c;
    }
    double c = 0;
    int h = size / 2;
    for (int k = 0; k < 4; k++)
        c += floor_cost(b, x0 + (k >> 1) * h, y0 + (k & 1) * h, h, depth + 1, u);
    return c;
}

/* Priority of splitting leaf q: the weighted cost that refining it can
 * remove (looking further than one split: a block whose quadrants still
 * answer the same method may hide a finer pattern); the unweighted one in
 * q->ugain. */
static void split_gain(qbuild *b, qnode *q)
{
    q->gain = q->ugain = 0;
    if (!can_split(b, q))
        return;
    double u = 0;
    q->gain = block_eval(b, q->x0, q->y0, q->size);
    q->ugain = b->ucost;
    q->gain -= floor_cost(b, q->x0, q->y0, q->size, q->depth, &u);
    q->ugain -= u;
}

/* Children of q that answer inputs (not entirely in the padding). */
static int answering_children(const qbuild *b, const qnode *q)
{
    int h = q->size / 2, n = 0;
    for (int c = 0; c < 4; c++)
        n += q->x0 + (c >> 1) * h < b->g->ncs && q->y0 + (c & 1) * h < b->g->nms;
    return n;
}

static int split(qbuild *b, int i)
{
    if (b->n + 4 > b->cap) {
        int cap = b->cap * 2 + 16;
        qnode *v = realloc(b->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        b->v = v;
        b->cap = cap;
    }
    qnode q = b->v[i];
    int h = q.size / 2;
    b->v[i].child = b->n;
    for (int c = 0; c < 4; c++) {
        qnode *k = &b->v[b->n++];
        *k = (qnode){q.x0 + (c >> 1) * h, q.y0 + (c & 1) * h, h, q.depth + 1, -1, 0, 0};
        if (b->weighted)
            split_gain(b, k);
    }
    b->nleaves += 3;
    b->nanswer += answering_children(b, &q) - 1;
    return 0;
}

/* The next leaf to split, -1 when done.  Weighted: the largest weighted
 * gain; when no weighted gain is left, the largest unweighted one (the rest
 * of the budget improves never-called regions, which still stay coarser). */
static int pick(qbuild *b)
{
    int best = -1;
    double bk = 0, bk2 = 0;
    for (int i = 0; i < b->n; i++) {
        qnode *q = &b->v[i];
        if (q->child >= 0 || !can_split(b, q) ||
            b->nanswer + answering_children(b, q) - 1 > b->o->max_leaves)
            continue;
        if (b->weighted) {
            int wg = q->gain > 1e-9 * b->wsum;
            if (wg ? (bk2 == 0 || q->gain > bk) : (bk2 == 0 && q->ugain > 1e-9 && q->ugain > bk)) {
                best = i;
                bk = wg ? q->gain : q->ugain;
                bk2 = bk2 || wg;
            }
            continue;
        }
        double purity = block_eval(b, q->x0, q->y0, q->size);
        if (purity * 100 >= b->o->threshold - 1e-9)
            continue;
        if (best < 0 || q->depth < bk || (q->depth == bk && purity < bk2)) {
            best = i;
            bk = q->depth;
            bk2 = purity;
        }
    }
    return best;
}

static int grow(qbuild *b)
{
    if (b->o->mode == CS_TUNE_PAPERS) {
        for (int i = 0; i < b->n; i++) /* breadth-first: children are appended */
            if (can_split(b, &b->v[i]) && !pure_enough(b, &b->v[i]))
                CS_CHECK(split(b, i));
        return 0;
    }
    if (b->weighted)
        split_gain(b, &b->v[0]);
    for (;;) { /* pick() only offers splits that fit the budget */
        int i = pick(b);
        if (i < 0)
            break;
        CS_CHECK(split(b, i));
    }
    return 0;
out:
    return -1;
}

/* Encode the built nodes as a cs_dtree and install it. */
static int encode(qbuild *b, cs_tree *t, const cs_map *m, cs_err *e)
{
    cs_dtree d = {0};
    const cs_grid *g = b->g;
    d.k = g->k;
    d.ncs = m->ncs;
    d.nms = m->nms;
    d.nmethods = m->nmethods;
    d.nnodes = (uint32_t)b->n;
    d.nleaves = (uint32_t)b->nleaves;
    d.cs = malloc((size_t)m->ncs * sizeof *d.cs);
    d.ms = malloc((size_t)m->nms * sizeof *d.ms);
    d.methods = malloc((size_t)m->nmethods * sizeof *d.methods);
    d.nodes = malloc((size_t)b->n * sizeof *d.nodes);
    d.leaf_n_own = calloc(d.nleaves, 1);
    d.leaf_ids_own = calloc((size_t)d.nleaves * CS_TREE_MAXCHOICE, 2);
    if (!d.cs || !d.ms || !d.methods || !d.nodes || !d.leaf_n_own || !d.leaf_ids_own) {
        cs_dtree_free(&d);
        return cs_fail(e, "out of memory encoding the %s tree", cs_coll_name(m->coll));
    }
    memcpy(d.cs, m->cs, (size_t)m->ncs * sizeof *d.cs);
    memcpy(d.ms, m->ms, (size_t)m->nms * sizeof *d.ms);
    memcpy(d.methods, m->methods, (size_t)m->nmethods * sizeof *d.methods);
    int nch = b->o->nchoices < 1 ? 1 : b->o->nchoices > CS_TREE_MAXCHOICE - 1
                                           ? CS_TREE_MAXCHOICE - 1 : b->o->nchoices;
    uint32_t leaf = 0;
    for (int i = 0; i < b->n; i++) {
        const qnode *q = &b->v[i];
        if (q->child >= 0) {
            d.nodes[i] = (uint32_t)q->child;
            continue;
        }
        d.nodes[i] = CS_TREE_LEAF | leaf;
        block_eval(b, q->x0, q->y0, q->size);
        uint16_t *ids = &d.leaf_ids_own[leaf * CS_TREE_MAXCHOICE];
        int n = 0, has_native = 0;
        for (int r = 0; r < g->nm && n < nch; r++) {
            ids[n++] = (uint16_t)b->rank[r];
            has_native |= b->rank[r] == b->native;
        }
        if (!has_native && b->native >= 0)
            ids[n++] = (uint16_t)b->native;
        d.leaf_n_own[leaf++] = (uint8_t)n;
    }
    char what[64];
    snprintf(what, sizeof what, "%s tree", cs_coll_name(m->coll));
    return cs_dtree_install(t, m->coll, &d, what, e);
}

int cs_quadtree_build(cs_tree *t, const cs_map *m, const cs_quadtree_opts *o, cs_err *e)
{
    cs_grid g;
    qbuild b = {0};
    int rc = -1;
    if (o->threshold <= 0 || o->threshold > 100)
        return cs_fail(e, "threshold %g%% out of range (accepted: (0, 100])", o->threshold);
    if (o->mode != CS_TUNE_PAPERS && o->max_leaves < 1)
        return cs_fail(e, "leaf budget %d (accepted: >= 1)", o->max_leaves);
    CS_CHECK(cs_grid_build(&g, m, e));
    b.g = &g;
    b.o = o;
    b.native = m->native;
    double wsum = 0;
    int nreal = 0;
    for (int x = 0; g.w && x < g.ncs; x++)
        for (int y = 0; y < g.nms; y++, nreal++)
            wsum += g.w[x * g.n + y];
    b.weighted = o->mode == CS_TUNE_WEIGHTED && wsum > 0;
    b.eps = nreal ? 1e-6 * wsum / nreal : 0;
    b.wsum = wsum;
    b.key1 = malloc((size_t)g.nm * sizeof *b.key1);
    b.key2 = malloc((size_t)g.nm * sizeof *b.key2);
    b.rank = malloc((size_t)g.nm * sizeof *b.rank);
    b.cap = 64;
    b.v = malloc((size_t)b.cap * sizeof *b.v);
    if (!b.key1 || !b.key2 || !b.rank || !b.v) {
        cs_fail(e, "out of memory building the %s tree", cs_coll_name(m->coll));
        goto out;
    }
    b.v[0] = (qnode){0, 0, g.n, 0, -1, 0, 0};
    b.n = b.nleaves = b.nanswer = 1;
    if (grow(&b) < 0) {
        cs_fail(e, "out of memory building the %s tree", cs_coll_name(m->coll));
        goto out;
    }
    rc = encode(&b, t, m, e);
out:
    free(b.v);
    free(b.key1);
    free(b.key2);
    free(b.rank);
    cs_grid_free(&g);
    return rc;
}
