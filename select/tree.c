/* Decision trees at run time: validation, the O(1) coordinate tables, the
 * flat leaf table, decisions, leaves and statistics.  Layout and boundary
 * rules: tree_impl.h.  File I/O: tree_io.c; construction: quadtree.c. */
#include "tree_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An absent collective answers through these: one leaf with no method, so
 * cs_tree_decide needs no test for presence. */
static const uint16_t empty_flat[1];
static const uint16_t empty_rec[1][8];
static const uint64_t empty_mshi[1] = {UINT64_MAX};
static const uint8_t empty_xtab[1];

static void set_empty(cs_dtree *d)
{
    memset(d, 0, sizeof *d);
    d->ncs = d->nms = 1;
    d->xtab = empty_xtab;
    d->mshi = empty_mshi;
    d->flat = empty_flat;
    d->leaf_rec = empty_rec;
}

cs_tree *cs_tree_new(void)
{
    cs_tree *t = malloc(sizeof *t);
    for (int c = 0; t && c < CS_NCOLL; c++)
        set_empty(&t->d[c]);
    if (t)
        cs_tree_set_layout(t, 0, 0);
    return t;
}

void cs_dtree_free(cs_dtree *d)
{
    free(d->cs);
    free(d->ms);
    free(d->methods);
    free(d->nodes);
    free(d->leaf_n_own);
    free(d->leaf_ids_own);
    free(d->leaf_depth);
    free(d->xtab_own);
    free(d->mshi_own);
    free(d->flat_own);
    free(d->leaf_rec_own);
    set_empty(d);
}

void cs_tree_set_layout(cs_tree *t, uint32_t nodes, uint32_t ranks_per_node)
{
    t->nodes = nodes && ranks_per_node ? nodes : 0;
    t->ranks_per_node = nodes && ranks_per_node ? ranks_per_node : 0;
}

void cs_tree_layout(const cs_tree *t, uint32_t *nodes, uint32_t *ranks_per_node)
{
    *nodes = t->nodes;
    *ranks_per_node = t->ranks_per_node;
}

const char *cs_layout_str(uint32_t nodes, uint32_t ranks_per_node, char *buf, size_t len)
{
    if (!nodes || !ranks_per_node)
        snprintf(buf, len, "unknown layout");
    else
        snprintf(buf, len, "%u node%s x %u rank%s per node", nodes, nodes == 1 ? "" : "s",
                 ranks_per_node, ranks_per_node == 1 ? "" : "s");
    return buf;
}

void cs_tree_free(cs_tree *t)
{
    if (!t)
        return;
    for (int c = 0; c < CS_NCOLL; c++)
        cs_dtree_free(&t->d[c]);
    free(t);
}

int cs_tree_has(const cs_tree *t, int coll)
{
    return t && coll >= 0 && coll < CS_NCOLL && t->d[coll].present;
}

static inline uint32_t col_of(const cs_dtree *d, uint32_t comm_size)
{
    return d->xtab[comm_size < d->nxtab ? comm_size : d->nxtab]; /* xtab[nxtab] = last */
}

static inline uint32_t row_of(const cs_dtree *d, uint64_t bytes)
{
    /* quarter-octave: 0 for 0 bytes, else 1 + 4 floor(log2 b) + 2 next bits */
    int lz = __builtin_clzll(bytes | 1);
    unsigned q = (bytes != 0) + 4 * (unsigned)(63 - lz) + (unsigned)((bytes << lz) >> 61 & 3);
    uint32_t y = d->ytab[q];
    y += bytes > d->mshi[y]; /* mshi[nms - 1] = UINT64_MAX */
    if (__builtin_expect(d->multi, 0))
        while (bytes > d->mshi[y])
            y++;
    return y;
}

int cs_tree_decide(const cs_tree *t, int coll, uint32_t comm_size, uint64_t bytes,
                   const uint16_t **ids)
{
    const cs_dtree *d = &t->d[coll]; /* absent: the empty function (n = 0) */
    const uint16_t *rec = d->leaf_rec[d->flat[col_of(d, comm_size) << d->k | row_of(d, bytes)]];
    *ids = rec;
    return rec[7];
}

int cs_tree_decide_qt(const cs_tree *t, int coll, uint32_t comm_size, uint64_t bytes,
                      const uint16_t **ids)
{
    const cs_dtree *d = &t->d[coll];
    if (!d->present)
        return 0;
    uint32_t x = col_of(d, comm_size), y = row_of(d, bytes), node = d->nodes[0];
    if (d->kind == CS_DTREE_BIN)
        while (!(node & CS_TREE_LEAF))
            node = d->nodes[CS_BIN_CHILD(node) + ((CS_BIN_AXIS(node) ? y : x) >= CS_BIN_SPLIT(node))];
    for (int s = d->k - 1; !(node & CS_TREE_LEAF); s--)
        node = d->nodes[node + ((x >> s & 1) << 1 | (y >> s & 1))];
    const uint16_t *rec = d->leaf_rec[node & ~CS_TREE_LEAF];
    *ids = rec;
    return rec[7];
}

int cs_tree_nmethods(const cs_tree *t, int coll)
{
    return cs_tree_has(t, coll) ? t->d[coll].nmethods : 0;
}

const char *cs_tree_method_name(const cs_tree *t, int coll, int id)
{
    if (!cs_tree_has(t, coll) || id < 0 || id >= t->d[coll].nmethods)
        return NULL;
    return t->d[coll].methods[id];
}

int cs_tree_axes(const cs_tree *t, int coll, const uint32_t **cs, int *ncs, const uint64_t **ms,
                 int *nms)
{
    if (!cs_tree_has(t, coll))
        return -1;
    const cs_dtree *d = &t->d[coll];
    *cs = d->cs;
    *ncs = d->ncs;
    *ms = d->ms;
    *nms = d->nms;
    return 0;
}

uint32_t cs_dtree_cshi(const cs_dtree *d, int i)
{
    return (uint32_t)(((uint64_t)d->cs[i] + d->cs[i + 1]) / 2);
}

static uint64_t mshi_of(uint64_t a, uint64_t b)
{
    unsigned __int128 p = (unsigned __int128)a * b;
    uint64_t s = (uint64_t)sqrtl((long double)p);
    while ((unsigned __int128)s * s > p)
        s--;
    while ((unsigned __int128)(s + 1) * (s + 1) <= p)
        s++;
    return s;
}

/* Walk the tree, calling fn for each leaf with its block [x0, x1) x [y0, y1)
 * and depth. */
typedef void (*leaf_fn)(void *arg, uint32_t leaf, int x0, int x1, int y0, int y1, int depth);
static void walk(const cs_dtree *d, uint32_t node, int x0, int x1, int y0, int y1, int depth,
                 leaf_fn fn, void *arg)
{
    uint32_t v = d->nodes[node];
    if (v & CS_TREE_LEAF) {
        fn(arg, v & ~CS_TREE_LEAF, x0, x1, y0, y1, depth);
        return;
    }
    if (d->kind == CS_DTREE_BIN) {
        uint32_t c = CS_BIN_CHILD(v);
        int s = (int)CS_BIN_SPLIT(v);
        if (CS_BIN_AXIS(v)) {
            walk(d, c, x0, x1, y0, s, depth + 1, fn, arg);
            walk(d, c + 1, x0, x1, s, y1, depth + 1, fn, arg);
        } else {
            walk(d, c, x0, s, y0, y1, depth + 1, fn, arg);
            walk(d, c + 1, s, x1, y0, y1, depth + 1, fn, arg);
        }
        return;
    }
    int h = (x1 - x0) / 2;
    for (int c = 0; c < 4; c++) {
        int qx = x0 + (c >> 1) * h, qy = y0 + (c & 1) * h;
        walk(d, v + (uint32_t)c, qx, qx + h, qy, qy + h, depth + 1, fn, arg);
    }
}

static void fill_flat(void *arg, uint32_t leaf, int x0, int x1, int y0, int y1, int depth)
{
    cs_dtree *d = arg;
    d->leaf_depth[leaf] = (uint8_t)depth;
    for (int x = x0; x < x1; x++)
        for (int y = y0; y < y1; y++)
            d->flat_own[x << d->k | y] = (uint16_t)leaf;
}

/* Structural checks: every child index in range and after its parent,
 * every node and leaf referenced exactly once, depth within k (binary: every
 * cut inside its block, depth within CS_BIN_MAXDEPTH). */
static int check_nodes(const cs_dtree *d, const char *what, cs_err *e)
{
    int rc = -1;
    uint8_t *node_seen = calloc(d->nnodes, 1), *leaf_seen = calloc(d->nleaves, 1);
    uint8_t *depth = calloc(d->nnodes, 1);
    uint16_t(*box)[4] = malloc(d->nnodes * sizeof *box); /* binary: x0, x1, y0, y1 */
    if (!node_seen || !leaf_seen || !depth || !box) {
        cs_fail(e, "%s: out of memory", what);
        goto out;
    }
    node_seen[0] = 1;
    box[0][0] = box[0][2] = 0;
    box[0][1] = box[0][3] = (uint16_t)(1 << d->k);
    for (uint32_t i = 0; i < d->nnodes; i++) {
        uint32_t v = d->nodes[i];
        if (!node_seen[i]) {
            cs_fail(e, "%s: node %u is not reachable from the root", what, i);
            goto out;
        }
        if (v & CS_TREE_LEAF) {
            uint32_t l = v & ~CS_TREE_LEAF;
            if (l >= d->nleaves || leaf_seen[l]) {
                cs_fail(e, "%s: node %u refers to leaf %u (%s; %u leaves)", what, i, l,
                        l >= d->nleaves ? "out of range" : "used twice", d->nleaves);
                goto out;
            }
            leaf_seen[l] = 1;
            continue;
        }
        uint32_t nch = d->kind == CS_DTREE_BIN ? 2 : 4;
        if (d->kind == CS_DTREE_BIN) {
            uint32_t s = CS_BIN_SPLIT(v), a = CS_BIN_AXIS(v);
            v = CS_BIN_CHILD(v);
            if (d->nodes[i] >> 29 & 3 || s <= box[i][2 * a] || s >= box[i][2 * a + 1] ||
                depth[i] >= CS_BIN_MAXDEPTH) {
                cs_fail(e, "%s: node %u cuts its block at %u on axis %u (must lie inside it, "
                           "depth below %d)", what, i, s, a, CS_BIN_MAXDEPTH);
                goto out;
            }
        }
        if (v <= i || d->nnodes < nch || v > d->nnodes - nch ||
            (d->kind != CS_DTREE_BIN && depth[i] >= d->k)) {
            cs_fail(e, "%s: node %u has children at %u (must be after it, %u within %u nodes, "
                       "depth below %d)", what, i, v, nch, d->nnodes, d->k);
            goto out;
        }
        for (uint32_t c = v; c < v + nch; c++) {
            if (node_seen[c]) {
                cs_fail(e, "%s: node %u has two parents", what, c);
                goto out;
            }
            node_seen[c] = 1;
            depth[c] = (uint8_t)(depth[i] + 1);
            if (d->kind == CS_DTREE_BIN) { /* the child's block */
                uint32_t a = CS_BIN_AXIS(d->nodes[i]);
                memcpy(box[c], box[i], sizeof box[c]);
                box[c][2 * a + (c == v)] = (uint16_t)CS_BIN_SPLIT(d->nodes[i]);
            }
        }
    }
    for (uint32_t l = 0; l < d->nleaves; l++)
        if (!leaf_seen[l]) {
            cs_fail(e, "%s: leaf %u is not used by any node", what, l);
            goto out;
        }
    rc = 0;
out:
    free(node_seen);
    free(leaf_seen);
    free(depth);
    free(box);
    return rc;
}

/* Method names are registry-style: letters, digits, '_', '-' and '.'. */
static int name_ok(const char *s)
{
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") ==
           strlen(s);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* No method listed twice (sorted, so that a file of 65535 names is not
 * compared pairwise). */
static int check_unique(const cs_dtree *d, const char *what, const char *cn, cs_err *e)
{
    const char **v = malloc((size_t)d->nmethods * sizeof *v);
    if (!v)
        return cs_fail(e, "%s: out of memory", what);
    for (int m = 0; m < d->nmethods; m++)
        v[m] = d->methods[m];
    qsort(v, (size_t)d->nmethods, sizeof *v, cmp_name);
    for (int m = 1; m < d->nmethods; m++)
        if (!strcmp(v[m - 1], v[m])) {
            cs_fail(e, "%s: %s method '%s' listed twice", what, cn, v[m]);
            free(v);
            return -1;
        }
    free(v);
    return 0;
}

static int check_stored(const cs_dtree *d, int coll, const char *what, cs_err *e)
{
    const char *cn = cs_coll_name(coll);
    if (d->kind != CS_DTREE_QUAD && d->kind != CS_DTREE_BIN)
        return cs_fail(e, "%s: %s tree kind %d (accepted 0, quadtree; 1, binary)", what, cn,
                       d->kind);
    if (d->k < 0 || d->k > CS_TREE_MAXK)
        return cs_fail(e, "%s: %s grid order %d (accepted 0..%d)", what, cn, d->k, CS_TREE_MAXK);
    int n = 1 << d->k;
    if (d->ncs < 1 || d->ncs > n || d->nms < 1 || d->nms > n)
        return cs_fail(e, "%s: %s axes %d x %d do not fit the %d x %d grid", what, cn, d->ncs,
                       d->nms, n, n);
    for (int i = 0; i < d->ncs; i++)
        if (d->cs[i] == 0 || (i > 0 && d->cs[i] <= d->cs[i - 1]))
            return cs_fail(e, "%s: %s comm sizes not positive and ascending at %d", what, cn, i);
    for (int j = 1; j < d->nms; j++)
        if (d->ms[j] <= d->ms[j - 1])
            return cs_fail(e, "%s: %s message sizes not ascending at %d", what, cn, j);
    if (d->ncs > 1 && cs_dtree_cshi(d, d->ncs - 2) >= CS_TREE_MAX_XTAB)
        return cs_fail(e, "%s: %s comm sizes up to %u (at most %u supported)", what, cn,
                       d->cs[d->ncs - 1], CS_TREE_MAX_XTAB);
    if (d->nmethods < 1 || d->nmethods > 65535)
        return cs_fail(e, "%s: %s has %d methods (accepted 1..65535)", what, cn, d->nmethods);
    size_t cl = strlen(cn);
    for (int m = 0; m < d->nmethods; m++) {
        const char *s = d->methods[m];
        /* the characters first: the next message quotes the name */
        if (!memchr(s, 0, sizeof d->methods[m]) || !name_ok(s))
            return cs_fail(e, "%s: %s method %d has characters other than letters, digits, "
                              "'_', '-' and '.' in its name", what, cn, m);
        if (strncmp(s, cn, cl) || s[cl] != '.' || !s[cl + 1])
            return cs_fail(e, "%s: %s method %d '%.63s' does not start with '%s.'", what, cn, m, s,
                           cn);
    }
    if (check_unique(d, what, cn, e) < 0)
        return -1;
    if (d->nnodes < 1 || d->nleaves < 1 || d->nleaves > 65536 || d->nnodes > (1u << 2 * d->k) * 2)
        return cs_fail(e, "%s: %s has %u nodes and %u leaves (too many or none)", what, cn,
                       d->nnodes, d->nleaves);
    for (uint32_t l = 0; l < d->nleaves; l++) {
        int nl = d->leaf_n_own[l];
        if (nl < 1 || nl > CS_TREE_MAXCHOICE)
            return cs_fail(e, "%s: %s leaf %u has %d methods (accepted 1..%d)", what, cn, l, nl,
                           CS_TREE_MAXCHOICE);
        for (int i = 0; i < nl; i++)
            if (d->leaf_ids_own[l * CS_TREE_MAXCHOICE + i] >= d->nmethods)
                return cs_fail(e, "%s: %s leaf %u method id %u out of range (%d methods)", what,
                               cn, l, d->leaf_ids_own[l * CS_TREE_MAXCHOICE + i], d->nmethods);
    }
    return check_nodes(d, what, e);
}

static unsigned row_slow(const cs_dtree *d, uint64_t bytes)
{
    unsigned y = 0;
    while ((int)y + 1 < d->nms && bytes > d->mshi_own[y])
        y++;
    return y;
}

static int build_runtime(cs_dtree *d)
{
    int n = 1 << d->k;
    d->nxtab = d->ncs > 1 ? cs_dtree_cshi(d, d->ncs - 2) + 1 : 0;
    d->xtab_own = malloc(d->nxtab + 1);
    d->mshi_own = malloc((size_t)d->nms * sizeof *d->mshi_own);
    d->flat_own = malloc((size_t)n * n * sizeof *d->flat_own);
    d->leaf_depth = malloc(d->nleaves);
    d->leaf_rec_own = calloc(d->nleaves, sizeof *d->leaf_rec_own);
    if (!d->xtab_own || !d->mshi_own || !d->flat_own || !d->leaf_depth || !d->leaf_rec_own)
        return -1;
    for (uint32_t l = 0; l < d->nleaves; l++) {
        memcpy(d->leaf_rec_own[l], &d->leaf_ids_own[l * CS_TREE_MAXCHOICE],
               CS_TREE_MAXCHOICE * sizeof(uint16_t));
        d->leaf_rec_own[l][7] = d->leaf_n_own[l];
    }
    for (uint32_t c = 0, x = 0; c <= d->nxtab; c++) {
        while ((int)x + 1 < d->ncs && c > cs_dtree_cshi(d, (int)x))
            x++;
        d->xtab_own[c] = (uint8_t)x;
    }
    for (int j = 0; j < d->nms; j++)
        d->mshi_own[j] = j + 1 < d->nms ? mshi_of(d->ms[j], d->ms[j + 1]) : UINT64_MAX;
    uint64_t lo[257]; /* smallest size of quarter-octave q */
    for (unsigned q = 0; q <= 256; q++) {
        unsigned o = (q - 1) / 4, f = (q - 1) % 4;
        lo[q] = q == 0 ? 0 : o >= 2 ? (1ull << o) + f * (1ull << (o - 2)) : ((4ull + f) << o) / 4;
    }
    d->multi = 0;
    for (unsigned q = 0; q <= 256; q++) {
        d->ytab[q] = (uint8_t)row_slow(d, lo[q]);
        uint64_t hi = q == 256 ? UINT64_MAX : lo[q + 1] - 1;
        if (hi >= lo[q] && row_slow(d, hi) > (unsigned)d->ytab[q] + 1)
            d->multi = 1; /* two row bounds inside one quarter-octave */
    }
    walk(d, 0, 0, n, 0, n, 0, fill_flat, d);
    d->xtab = d->xtab_own;
    d->mshi = d->mshi_own;
    d->flat = d->flat_own;
    d->leaf_rec = (const uint16_t(*)[8])d->leaf_rec_own;
    return 0;
}

int cs_dtree_install(cs_tree *t, int coll, cs_dtree *d, const char *what, cs_err *e)
{
    if (coll < 0 || coll >= CS_NCOLL) {
        cs_dtree_free(d);
        return cs_fail(e, "%s: unknown collective %d", what, coll);
    }
    if (check_stored(d, coll, what, e) < 0) {
        cs_dtree_free(d);
        return -1;
    }
    if (build_runtime(d) < 0) {
        cs_dtree_free(d);
        return cs_fail(e, "%s: out of memory", what);
    }
    d->present = 1;
    cs_dtree_free(&t->d[coll]);
    t->d[coll] = *d;
    memset(d, 0, sizeof *d);
    return 0;
}

typedef struct leaf_list {
    const cs_dtree *d;
    cs_leaf *v;
    size_t n;
} leaf_list;

static void add_leaf(void *arg, uint32_t leaf, int x0, int x1, int y0, int y1, int depth)
{
    leaf_list *L = arg;
    const cs_dtree *d = L->d;
    if (x0 >= d->ncs || y0 >= d->nms)
        return; /* entirely in the padding: answers no input */
    cs_leaf *o = &L->v[L->n++];
    o->depth = depth;
    o->x0 = x0;
    o->y0 = y0;
    o->x1 = x1 < d->ncs ? x1 : d->ncs;
    o->y1 = y1 < d->nms ? y1 : d->nms;
    o->cs_lo = x0 == 0 ? 0 : cs_dtree_cshi(d, x0 - 1) + 1;
    o->cs_hi = o->x1 == d->ncs ? UINT32_MAX : cs_dtree_cshi(d, o->x1 - 1);
    o->ms_lo = y0 == 0 ? 0 : d->mshi[y0 - 1] + 1;
    o->ms_hi = o->y1 == d->nms ? UINT64_MAX : d->mshi[o->y1 - 1];
    o->n = d->leaf_n_own[leaf];
    o->ids = d->leaf_rec[leaf];
}

int cs_tree_leaves(const cs_tree *t, int coll, cs_leaf **leaves, size_t *n)
{
    *leaves = NULL;
    *n = 0;
    if (!cs_tree_has(t, coll))
        return -1;
    leaf_list L = {&t->d[coll], malloc(t->d[coll].nleaves * sizeof(cs_leaf)), 0};
    if (!L.v)
        return -1;
    walk(L.d, 0, 0, 1 << L.d->k, 0, 1 << L.d->k, 0, add_leaf, &L);
    *leaves = L.v;
    *n = L.n;
    return 0;
}

int cs_tree_stats_get(const cs_tree *t, int coll, cs_tree_stats *s)
{
    memset(s, 0, sizeof *s);
    if (!cs_tree_has(t, coll))
        return -1;
    const cs_dtree *d = &t->d[coll];
    s->nodes = d->nnodes;
    s->leaves = d->nleaves;
    s->k = d->k;
    s->binary = d->kind == CS_DTREE_BIN;
    s->min_depth = UINT32_MAX;
    double sum = 0;
    size_t lists = 0;
    for (uint32_t l = 0; l < d->nleaves; l++) {
        uint32_t dep = d->leaf_depth[l];
        s->min_depth = dep < s->min_depth ? dep : s->min_depth;
        s->max_depth = dep > s->max_depth ? dep : s->max_depth;
        sum += dep;
        lists += 1 + 2 * (size_t)d->leaf_n_own[l];
    }
    s->mean_depth = sum / d->nleaves;
    cs_leaf *lv;
    size_t nl;
    if (cs_tree_leaves(t, coll, &lv, &nl) == 0) {
        s->answering = (uint32_t)nl;
        free(lv);
    }
    s->bytes_nodes = 4 * (size_t)d->nnodes;
    size_t names = 0;
    for (int m = 0; m < d->nmethods; m++)
        names += 4 + strlen(d->methods[m]);
    s->bytes = s->bytes_nodes + lists + 4 * (size_t)d->ncs + 8 * (size_t)d->nms + names + 28;
    s->bytes_runtime = d->nxtab + 8 * (size_t)d->nms + sizeof d->ytab +
                       2 * ((size_t)1 << 2 * d->k) + sizeof *d->leaf_rec * (size_t)d->nleaves;
    return 0;
}
