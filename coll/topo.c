/* Tree topologies of the tree-shaped algorithms, built by pure functions of
 * (kind, rank, size, root, fanout), and a small per-communicator cache.
 *
 * Every kind except INORDER_BINARY is built on *virtual* ranks
 * v = (rank - root + size) % size, so the root is v = 0, and mapped back.
 * Children are listed in the order data should be sent to them: the child
 * with the largest subtree first, so that the longest path starts earliest.
 *
 *   LINEAR    v = 0 -> 1, 2, ..., P-1                            depth 1
 *   CHAIN(k)  the P-1 others cut into min(k, P-1) consecutive chains of
 *             near-equal length (the first (P-1) % k one longer), each
 *             hanging off the root (Open MPI "chain"; k = 1: pipeline)
 *                                                     depth ceil((P-1)/k)
 *   KARY(k)   heap order: children of v are k*v+1 .. k*v+k (Open MPI
 *             "bintree" layout for k = 2)                depth ~ log_k P
 *   BINOMIAL  parent of v = v with its lowest set bit cleared; children
 *             v + 2^j for 2^j below that bit (MPICH)
 *                                                     depth ceil(log2 P)
 *   KNOMIAL(k) base-k digits: parent of v = v with its lowest non-zero
 *             digit cleared; children v + d*k^j for every position j below
 *             that digit and d = 1..k-1 (UCC knomial)  depth ceil(log_k P)
 *             (binomial, k-nomial: children ordered by decreasing subtree
 *             size, which differs from mask order when P is not a power)
 *   INORDER_BINARY  see topo.h: a search tree on the ranks rooted at root.
 */
#include <stdlib.h>

#include "coll.h"
#include "topo.h"

static cs_topo *topo_new(int kind, int root, int fanout, int maxchildren)
{
    cs_topo *t = malloc(sizeof *t + (size_t)(maxchildren > 0 ? maxchildren : 0) * sizeof(int));
    if (!t)
        return NULL;
    t->kind = kind;
    t->root = root;
    t->fanout = fanout;
    t->parent = -1;
    t->nchildren = 0;
    return t;
}

/* Lower middle of [lo, hi]: the subtree root of that range. */
static int mid(int lo, int hi) { return lo + (hi - lo) / 2; }

static cs_topo *build_inorder(int rank, int size, int root, int fanout)
{
    cs_topo *t = topo_new(CS_TOPO_INORDER_BINARY, root, fanout, 2);
    if (!t)
        return NULL;
    int lo = 0, hi = size - 1, node = root, parent = -1;
    while (node != rank) {
        parent = node;
        if (rank < node)
            hi = node - 1;
        else
            lo = node + 1;
        node = mid(lo, hi);
    }
    t->parent = parent;
    if (lo <= rank - 1)
        t->children[t->nchildren++] = mid(lo, rank - 1);
    if (rank + 1 <= hi)
        t->children[t->nchildren++] = mid(rank + 1, hi);
    return t;
}

/* Virtual parent of v (-1 for the root v = 0). */
static int vparent_of(int kind, int v, int size, int k)
{
    if (v == 0)
        return -1;
    switch (kind) {
    case CS_TOPO_CHAIN: {
        int n = size - 1, nch = k < n ? k : n, len = n / nch, extra = n % nch;
        for (int c = 0, start = 1; ; c++) { /* chain c: [start, start + len + (c < extra)) */
            if (v == start)
                return 0;
            start += len + (c < extra);
            if (v < start)
                return v - 1;
        }
    }
    case CS_TOPO_KARY:
        return (v - 1) / k;
    case CS_TOPO_BINOMIAL:
    case CS_TOPO_KNOMIAL: {
        long pos = 1; /* k^j of v's lowest non-zero base-k digit */
        while ((v / pos) % k == 0)
            pos *= k;
        return (int)(v - ((v / pos) % k) * pos);
    }
    default: /* LINEAR */
        return 0;
    }
}

/* Number of ranks in the binomial / k-nomial subtree of child v > 0. */
static long knomial_span(int v, int size, int k)
{
    long pos = 1;
    while ((v / pos) % k == 0)
        pos *= k;
    return pos < size - v ? pos : size - v;
}

/* Virtual children of v in sending order; writes them to out (if not NULL)
 * and returns how many there are. */
static int vchildren_of(int kind, int v, int size, int k, int *out)
{
    int n = 0;
#define EMIT(x) do { if (out) out[n] = (int)(x); n++; } while (0)
    switch (kind) {
    case CS_TOPO_LINEAR:
        for (int c = 1; v == 0 && c < size; c++)
            EMIT(c);
        break;
    case CS_TOPO_CHAIN: {
        int others = size - 1, nch = k < others ? k : others;
        if (v == 0) {
            for (int c = 0, start = 1; c < nch; start += others / nch + (c < others % nch), c++)
                EMIT(start);
        } else if (v + 1 < size && vparent_of(kind, v + 1, size, k) == v) {
            EMIT(v + 1);
        }
        break;
    }
    case CS_TOPO_KARY:
        for (long c = (long)k * v + 1; c <= (long)k * v + k && c < size; c++)
            EMIT(c);
        break;
    case CS_TOPO_BINOMIAL:
    case CS_TOPO_KNOMIAL: {
        long pos = 1; /* k^j of v's lowest non-zero digit; >= size for the root */
        while (pos < size && (v / pos) % k == 0)
            pos *= k;
        for (long p = pos / k; p >= 1; p /= k)
            for (long d = 1; d < k && v + d * p < size; d++)
                EMIT(v + d * p);
        /* child c spans [c, min(c + its digit position, size)): with a
         * truncated last subtree, put larger subtrees first (stable) */
        for (int i = 1; out && i < n; i++)
            for (int j = i; j > 0 && knomial_span(out[j], size, k) >
                                         knomial_span(out[j - 1], size, k); j--) {
                int x = out[j];
                out[j] = out[j - 1];
                out[j - 1] = x;
            }
        break;
    }
    }
#undef EMIT
    return n;
}

/* The fan-out a kind really uses (the one convention for every caller, so
 * that a bcast and a reduce binomial tree are one cache entry): linear 1,
 * binomial 2, the in-order binary tree 2; else the argument. */
static int kind_fanout(int kind, int fanout)
{
    switch (kind) {
    case CS_TOPO_LINEAR: return 1;
    case CS_TOPO_BINOMIAL: case CS_TOPO_INORDER_BINARY: return 2;
    default: return fanout;
    }
}

cs_topo *cs_topo_build(int kind, int rank, int size, int root, int fanout)
{
    if (size < 1 || rank < 0 || rank >= size || root < 0 || root >= size)
        return NULL;
    int k = kind_fanout(kind, fanout);
    if (kind == CS_TOPO_INORDER_BINARY)
        return build_inorder(rank, size, root, k);
    switch (kind) {
    case CS_TOPO_LINEAR: case CS_TOPO_BINOMIAL: break;
    case CS_TOPO_CHAIN: case CS_TOPO_KARY: if (k < 1) return NULL; break;
    case CS_TOPO_KNOMIAL: if (k < 2) return NULL; break;
    default: return NULL;
    }
    int v = (rank - root + size) % size;
    cs_topo *t = topo_new(kind, root, k, vchildren_of(kind, v, size, k, NULL));
    if (!t)
        return NULL;
    int vp = vparent_of(kind, v, size, k);
    t->parent = vp < 0 ? -1 : (vp + root) % size;
    t->nchildren = vchildren_of(kind, v, size, k, t->children);
    for (int i = 0; i < t->nchildren; i++)
        t->children[i] = (t->children[i] + root) % size;
    return t;
}

/* ---- per-communicator cache: a move-to-front list of at most
 * CS_TOPO_CACHE_MAX entries keyed by (kind, root, fanout). ---- */

typedef struct topo_entry {
    struct topo_entry *next;
    cs_topo *t;
} topo_entry;

const cs_topo *cs_topo_cached(const struct cs_call *c, int kind, int root, int fanout)
{
    topo_entry **head = (topo_entry **)&c->st->topo_cache, **pp = head, *e;
    int n = 0;
    fanout = kind_fanout(kind, fanout);
    for (; (e = *pp) != NULL; pp = &e->next, n++) {
        if (e->t->kind == kind && e->t->root == root && e->t->fanout == fanout) {
            *pp = e->next; /* move to front */
            e->next = *head;
            *head = e;
            return e->t;
        }
    }
    cs_topo *t = cs_topo_build(kind, c->rank, c->size, root, fanout);
    if (!t)
        return NULL;
    if (n >= CS_TOPO_CACHE_MAX) { /* recycle the last entry */
        for (pp = head; (*pp)->next; pp = &(*pp)->next)
            ;
        e = *pp;
        *pp = NULL;
        free(e->t);
    } else if (!(e = malloc(sizeof *e))) {
        free(t);
        return NULL;
    }
    e->t = t;
    e->next = *head;
    *head = e;
    return t;
}

void cs_topo_cache_free(void *cache)
{
    for (topo_entry *e = cache, *next; e; e = next) {
        next = e->next;
        free(e->t);
        free(e);
    }
}
