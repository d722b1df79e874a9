/* Unit tests of coll/topo.c (no MPI calls): for every kind, fan-out,
 * size 1..64 and root, the per-rank views agree (my child's parent is me),
 * the tree spans every rank exactly once from the root, children are sent
 * largest subtree first, depths meet their bounds, and INORDER_BINARY's
 * in-order traversal is rank order.  Then the per-communicator cache. */
#include <stdio.h>
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/topo.h"

static int failures;
#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        if (!(cond)) {                                                        \
            if (failures++ < 20) {                                            \
                fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);    \
                fprintf(stderr, __VA_ARGS__);                                 \
                fputc('\n', stderr);                                          \
            }                                                                 \
        }                                                                     \
    } while (0)

#define MAXP 64
static cs_topo *T[MAXP];
static int depth[MAXP], subtree[MAXP], seen[MAXP];

static int ceil_log(int k, int p) /* smallest n with k^n >= p */
{
    int n = 0;
    for (long x = 1; x < p; x *= k)
        n++;
    return n;
}

static int digits(int k, int v) /* non-zero base-k digits of v */
{
    int n = 0;
    for (; v > 0; v /= k)
        n += v % k != 0;
    return n;
}

static int floor_log2(int x)
{
    int n = -1;
    for (; x > 0; x >>= 1)
        n++;
    return n;
}

/* Walk from r; returns the subtree size, fills depth[] and seen[]. */
static int walk(int r, int d, int size)
{
    if (seen[r]++)
        return 0; /* reached twice: reported by the caller */
    depth[r] = d;
    int n = 1;
    for (int i = 0; i < T[r]->nchildren; i++) {
        int c = T[r]->children[i];
        if (c < 0 || c >= size)
            return n;
        n += walk(c, d + 1, size);
    }
    return subtree[r] = n;
}

static int inorder_pos;
static void inorder(int r, int *ok)
{
    const cs_topo *t = T[r];
    int i = 0;
    if (i < t->nchildren && t->children[i] < r)
        inorder(t->children[i++], ok);
    if (r != inorder_pos++)
        *ok = 0;
    if (i < t->nchildren && t->children[i] > r)
        inorder(t->children[i++], ok);
    if (i != t->nchildren)
        *ok = 0; /* children not (left < r < right) */
}

static const char *kname[] = {"linear", "chain", "kary", "binomial", "knomial", "inorder"};

static void check(int kind, int size, int root, int k)
{
    for (int r = 0; r < size; r++) {
        T[r] = cs_topo_build(kind, r, size, root, k);
        seen[r] = 0;
        subtree[r] = 0;
    }
    for (int r = 0; r < size; r++)
        if (!T[r]) {
            EXPECT(0, "%s P=%d root=%d k=%d rank %d: build failed", kname[kind], size, root, k, r);
            goto out;
        }
    for (int r = 0; r < size; r++) {
        const cs_topo *t = T[r];
        EXPECT(t->kind == kind && t->root == root, "%s rank %d: kind/root fields", kname[kind], r);
        EXPECT((r == root) == (t->parent == -1), "%s P=%d root=%d rank %d: parent %d",
               kname[kind], size, root, r, t->parent);
        for (int i = 0; i < t->nchildren; i++) {
            int c = t->children[i];
            EXPECT(c >= 0 && c < size && c != r && T[c]->parent == r,
                   "%s P=%d root=%d k=%d: child %d of %d has parent %d", kname[kind], size, root,
                   k, c, r, c >= 0 && c < size ? T[c]->parent : -2);
        }
    }
    walk(root, 0, size);
    int maxd = 0;
    for (int r = 0; r < size; r++) {
        EXPECT(seen[r] == 1, "%s P=%d root=%d k=%d: rank %d reached %d times", kname[kind],
               size, root, k, r, seen[r]);
        if (depth[r] > maxd)
            maxd = depth[r];
    }
    if (failures)
        goto out;
    /* sending order: largest subtree first (in-order: left then right) */
    if (kind != CS_TOPO_INORDER_BINARY)
        for (int r = 0; r < size; r++)
            for (int i = 1; i < T[r]->nchildren; i++)
                EXPECT(subtree[T[r]->children[i - 1]] >= subtree[T[r]->children[i]],
                       "%s P=%d root=%d k=%d rank %d: child %d sent before a larger subtree",
                       kname[kind], size, root, k, r, i - 1);
    switch (kind) {
    case CS_TOPO_LINEAR:
        EXPECT(maxd == (size > 1), "linear P=%d depth %d", size, maxd);
        break;
    case CS_TOPO_CHAIN:
        EXPECT(maxd == (size - 1 + k - 1) / k, "chain P=%d k=%d depth %d", size, k, maxd);
        EXPECT(T[root]->nchildren == (k < size - 1 ? k : size - 1), "chain root children");
        for (int r = 0; r < size; r++)
            EXPECT(r == root || T[r]->nchildren <= 1, "chain rank %d has %d children", r,
                   T[r]->nchildren);
        break;
    case CS_TOPO_KARY:
        for (int r = 0; r < size; r++)
            EXPECT(T[r]->nchildren <= k, "kary rank %d children", r);
        EXPECT(k == 1 ? maxd == size - 1 : maxd <= ceil_log(k, size), "kary P=%d k=%d depth %d",
               size, k, maxd);
        /* complete: depths fill level by level, so depth(P-1) is maximal */
        EXPECT(depth[(root + size - 1) % size] == maxd, "kary P=%d k=%d not complete", size, k);
        break;
    case CS_TOPO_BINOMIAL:
    case CS_TOPO_KNOMIAL: {
        int radix = kind == CS_TOPO_BINOMIAL ? 2 : k;
        /* one hop per non-zero base-radix digit of the virtual rank */
        for (int r = 0; r < size; r++)
            EXPECT(depth[r] == digits(radix, (r - root + size) % size),
                   "%s P=%d root=%d k=%d rank %d depth %d", kname[kind], size, root, k, r,
                   depth[r]);
        EXPECT(maxd <= ceil_log(radix, size), "%s P=%d k=%d depth %d > ceil(log_k P)",
               kname[kind], size, k, maxd);
        if (kind == CS_TOPO_BINOMIAL)
            EXPECT(T[root]->nchildren == ceil_log(2, size), "binomial root children");
        break;
    }
    case CS_TOPO_INORDER_BINARY: {
        int ok = 1, far = root > size - 1 - root ? root : size - 1 - root;
        inorder_pos = 0;
        inorder(root, &ok);
        EXPECT(ok && inorder_pos == size, "inorder P=%d root=%d: traversal not rank order",
               size, root);
        EXPECT(maxd <= (far ? 1 + floor_log2(far) : 0), "inorder P=%d root=%d depth %d", size,
               root, maxd);
        break;
    }
    }
out:
    for (int r = 0; r < size; r++) {
        free(T[r]);
        T[r] = NULL;
    }
}

/* A few shapes written out from the definitions in topo.c / topo.h. */
static void check_examples(void)
{
    cs_topo *t = cs_topo_build(CS_TOPO_BINOMIAL, 0, 8, 0, 0);
    EXPECT(t && t->nchildren == 3 && t->children[0] == 4 && t->children[1] == 2 &&
           t->children[2] == 1, "binomial P=8 root children should be 4 2 1");
    free(t);
    t = cs_topo_build(CS_TOPO_BINOMIAL, 6, 8, 3, 0); /* v = 3: parent v 2 = rank 5 */
    EXPECT(t && t->parent == 5 && t->nchildren == 0, "binomial P=8 root 3 rank 6");
    free(t);
    /* children 9 (1 rank), 3, 6 (3 ranks each), 1, 2: larger subtrees first */
    t = cs_topo_build(CS_TOPO_KNOMIAL, 0, 10, 0, 3);
    EXPECT(t && t->nchildren == 5 && t->children[0] == 3 && t->children[1] == 6 &&
           t->children[2] == 9 && t->children[3] == 1 && t->children[4] == 2,
           "knomial k3 P=10 root children should be 3 6 9 1 2");
    free(t);
    t = cs_topo_build(CS_TOPO_KNOMIAL, 7, 10, 0, 3); /* 7 = 21_3: parent 6 */
    EXPECT(t && t->parent == 6 && t->nchildren == 0, "knomial k3 P=10 rank 7");
    free(t);
    t = cs_topo_build(CS_TOPO_CHAIN, 0, 8, 0, 2); /* chains 1-2-3-4, 5-6-7 */
    EXPECT(t && t->nchildren == 2 && t->children[0] == 1 && t->children[1] == 5,
           "chain k2 P=8 root children should be 1 5");
    free(t);
    t = cs_topo_build(CS_TOPO_CHAIN, 5, 8, 0, 2);
    EXPECT(t && t->parent == 0 && t->nchildren == 1 && t->children[0] == 6, "chain k2 rank 5");
    free(t);
    t = cs_topo_build(CS_TOPO_KARY, 3, 8, 1, 2); /* v = 2: children v 5, 6 */
    EXPECT(t && t->parent == 1 && t->nchildren == 2 && t->children[0] == 6 &&
           t->children[1] == 7, "binary P=8 root 1 rank 3");
    free(t);
    t = cs_topo_build(CS_TOPO_INORDER_BINARY, 0, 7, 0, 0); /* right range 1..6 -> 3 */
    EXPECT(t && t->parent == -1 && t->nchildren == 1 && t->children[0] == 3, "inorder P=7 r0");
    free(t);
    t = cs_topo_build(CS_TOPO_INORDER_BINARY, 3, 7, 0, 0); /* ranges 1..2 -> 1, 4..6 -> 5 */
    EXPECT(t && t->parent == 0 && t->nchildren == 2 && t->children[0] == 1 &&
           t->children[1] == 5, "inorder P=7 root 0 rank 3");
    free(t);
    /* bad arguments */
    EXPECT(!cs_topo_build(CS_TOPO_BINOMIAL, 4, 4, 0, 0), "rank >= size accepted");
    EXPECT(!cs_topo_build(CS_TOPO_BINOMIAL, 0, 4, -1, 0), "root < 0 accepted");
    EXPECT(!cs_topo_build(CS_TOPO_KNOMIAL, 0, 4, 0, 1), "knomial radix 1 accepted");
    EXPECT(!cs_topo_build(CS_TOPO_CHAIN, 0, 4, 0, 0), "chain fanout 0 accepted");
    EXPECT(!cs_topo_build(99, 0, 4, 0, 2), "unknown kind accepted");
    EXPECT(!cs_topo_build(CS_TOPO_LINEAR, 0, 0, 0, 0), "size 0 accepted");
}

static void check_cache(void)
{
    cs_comm_state st = {0};
    cs_call c = {0};
    c.st = &st;
    c.rank = 5;
    c.size = 17;
    const cs_topo *a = cs_topo_cached(&c, CS_TOPO_BINOMIAL, 0, 0);
    EXPECT(a && a->parent == 4, "cached binomial P=17 rank 5");
    EXPECT(cs_topo_cached(&c, CS_TOPO_BINOMIAL, 0, 0) == a, "second fetch not cached");
    EXPECT(cs_topo_cached(&c, CS_TOPO_BINOMIAL, 0, 2) == a && a->fanout == 2,
           "binomial fetched with fan-out 0 (any argument) and 2 are two cache entries");
    const cs_topo *b = cs_topo_cached(&c, CS_TOPO_BINOMIAL, 3, 0);
    EXPECT(b && b != a && b->root == 3 && b->parent == 3, "root 3: v 2 -> parent v 0 = rank 3, got %d",
           b ? b->parent : -9);
    const cs_topo *d = cs_topo_cached(&c, CS_TOPO_KNOMIAL, 0, 4);
    EXPECT(d && d->fanout == 4 && d->parent == 4, "knomial k4 rank 5: parent 4");
    EXPECT(cs_topo_cached(&c, CS_TOPO_BINOMIAL, 0, 0) == a, "fetch after others not cached");
    const cs_topo *io = cs_topo_cached(&c, CS_TOPO_INORDER_BINARY, 16, 0);
    EXPECT(io && cs_topo_cached(&c, CS_TOPO_INORDER_BINARY, 16, 0) == io,
           "in-order topology (fanout ignored) not cached");
    const cs_topo *li = cs_topo_cached(&c, CS_TOPO_LINEAR, 2, 0);
    EXPECT(li && cs_topo_cached(&c, CS_TOPO_LINEAR, 2, 0) == li, "linear topology not cached");
    /* overflow the cache: every fetch stays correct */
    for (int round = 0; round < 3; round++)
        for (int root = 0; root < 17; root++)
            for (int kind = CS_TOPO_KARY; kind <= CS_TOPO_KNOMIAL; kind++) {
                const cs_topo *t = cs_topo_cached(&c, kind, root, 3);
                cs_topo *ref = cs_topo_build(kind, 5, 17, root, 3);
                int same = t && ref && t->parent == ref->parent && t->nchildren == ref->nchildren;
                for (int i = 0; same && i < t->nchildren; i++)
                    same = t->children[i] == ref->children[i];
                EXPECT(same && t->root == root && t->kind == kind, "cache kind %d root %d", kind,
                       root);
                free(ref);
            }
    int n = 0;
    for (void **e = st.topo_cache; e; e = *e)
        n++; /* entries start with their next pointer */
    EXPECT(n == CS_TOPO_CACHE_MAX, "cache holds %d entries, want the bound %d", n,
           CS_TOPO_CACHE_MAX);
    cs_topo_cache_free(st.topo_cache);
}

int main(void)
{
    int ncases = 0;
    check_examples();
    for (int size = 1; size <= MAXP; size++)
        for (int root = 0; root < size; root++) {
            check(CS_TOPO_LINEAR, size, root, 0);
            check(CS_TOPO_BINOMIAL, size, root, 0);
            check(CS_TOPO_INORDER_BINARY, size, root, 0);
            for (int k = 1; k <= 8; k++) {
                check(CS_TOPO_CHAIN, size, root, k);
                check(CS_TOPO_KARY, size, root, k);
                if (k >= 2)
                    check(CS_TOPO_KNOMIAL, size, root, k);
            }
            ncases += 3 + 8 + 8 + 7;
        }
    check_cache();
    if (failures) {
        fprintf(stderr, "test_topo: %d failures\n", failures);
        return 1;
    }
    printf("test_topo: %d topologies (sizes 1..%d, all roots) ok\n", ncases, MAXP);
    return 0;
}
