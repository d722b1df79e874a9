/* The dynamic reductions (reduce.shm.dynamic, allreduce.shm.dynamic) under
 * changing arrival orders (a random delay on every rank before each call):
 *  - exact ops (int sum, max, bxor; long long sum) give the native bits;
 *  - floating-point sums in the fixed order (reorder_fp 0) give its bits:
 *    allreduce.shm.direct's (rank order), or for the reduce the others'
 *    in the order p-1, ..., 0 without the root, then the root's;
 *  - floating-point sums in arrival order (reorder_fp 1) agree with native
 *    within the documented tolerance (per element, 2 (p - 1) eps sum |x_i|:
 *    the bound of any summation order, for both sides) and every rank of
 *    an allreduce holds the same bits;
 *  - with --node-size N (virtual nodes of N ranks), the same for
 *    reduce.node.dynamic and allreduce.node.dynamic (every floating-point
 *    sum then within the tolerance of native: the nodes' results are
 *    combined in node order, not the order of any other method);
 *  - with --node-size N, bcast.node.dynamic too (with --stop until 20
 *    stops fell among its calls, or 8 times the calls): every call (random
 *    delays, roots and sizes, a strided datatype now and then, bursts of
 *    calls with nothing between them) gives the root's bytes, one rank of
 *    each non-root node received for it (cs_bcast_node_dynamic_leads), or
 *    every rank of it where the root pushes to it (a small message to a
 *    small node: cs_bcast_node_dynamic_pushed), and the receipts are
 *    counted per node rank; with nodes of 2 or more
 *    ranks, the fixed leader of a non-root node (its node rank 0) stops
 *    itself before 10 calls and node rank 1 lets it go on (SIGCONT) only
 *    after its own call returned: node rank 1 must have led every one of
 *    them (a fixed leader would keep it waiting: a watchdog then lets the
 *    stopped rank go after 5 s, and the count fails);
 *  - with --stop, a thread of world rank 0 stops another rank (SIGSTOP)
 *    for 1 to 5 ms at random moments and lets it go on (SIGCONT): the
 *    calls are delayed, every result stays right.
 *  - the shared-memory ones first: under a late rank (the last, which the
 *    fixed order folds first) every fold traced (cs_shm_dyn_traced) puts
 *    its contribution last: arrival order, not a fall-back to the fixed
 *    one;
 * Sizes: 1, 100, 5000 and 70001 elements (one piece, a chunk cut into
 * pieces, several chunks); every other call of a kind in place.
 *   usage: dynamic [ITERATIONS] [--stop] [--node-size N]   exit 0: every check held */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll/bcast/bcast.h"
#include "coll/coll.h"
#include "coll/shm/shm.h"
#include "tests/coll/arrival.h"

static const int sizes[] = {1, 100, 5000, 70001};
#define NSIZES 4
#define MAXN 70001

static long failures;
static int wrank, wsize;

static void fail(const char *name, int it, const char *what, int i, double got, double want)
{
    if (failures++ < 10)
        fprintf(stderr, "FAIL rank %d %s call %d: %s at %d: got %.17g want %.17g\n", wrank, name,
                it, what, i, got, want);
}

static const cs_method *method(enum cs_coll coll, const char *name)
{
    enum cs_coll cc;
    const cs_method *m = cs_method_find(name, &cc, NULL);
    if (!m || cc != coll) {
        fprintf(stderr, "dynamic: no method %s\n", name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return m;
}

/* Run m on the call (reorder as given); MPI error code. */
static int run(const cs_method *m, enum cs_coll coll, const void *sb, void *rb, int n,
               MPI_Datatype dt, MPI_Op op, int root, int reorder)
{
    cs_call c;
    int rc = coll == CS_REDUCE ? cs_call_reduce(&c, sb, rb, n, dt, op, root, MPI_COMM_WORLD)
                               : cs_call_allreduce(&c, sb, rb, n, dt, op, MPI_COMM_WORLD);
    c.reorder_fp = reorder;
    if (rc == MPI_SUCCESS && !cs_method_applies(m, &c))
        rc = MPI_ERR_OTHER;
    return rc == MPI_SUCCESS ? cs_method_run(m, &c) : rc;
}

static int native(enum cs_coll coll, const void *sb, void *rb, int n, MPI_Datatype dt,
                  MPI_Op op, int root)
{
    return coll == CS_REDUCE ? MPI_Reduce(sb, rb, n, dt, op, root, MPI_COMM_WORLD)
                             : MPI_Allreduce(sb, rb, n, dt, op, MPI_COMM_WORLD);
}

/* Every other call of a case in place (MPI_IN_PLACE at the root of a
 * reduce, everywhere in an allreduce): its contribution copied into rb. */
static const void *in_place(enum cs_coll coll, int it, int root, const void *sb, void *rb,
                            size_t bytes)
{
    if ((it / 3) % 2 == 0 || (coll == CS_REDUCE && wrank != root))
        return sb;
    memcpy(rb, sb, bytes);
    return MPI_IN_PLACE;
}

/* An exact op on ints: the native bits. */
static void exact_case(const cs_method *m, enum cs_coll coll, int it, int n, int root,
                       unsigned *seed)
{
    static int sb[MAXN], got[MAXN], want[MAXN];
    static const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_BXOR};
    MPI_Op op = ops[it % 3];
    for (int i = 0; i < n; i++)
        sb[i] = (int)(((unsigned)i * 2654435761u) ^ (unsigned)(wrank * 7919 + it)) % 100000;
    memset(got, 0, sizeof got[0] * (size_t)n);
    test_arrival_delay(seed);
    int rc = run(m, coll, in_place(coll, it, root, sb, got, sizeof sb[0] * (size_t)n), got, n,
                 MPI_INT, op, root, 0);
    int nrc = native(coll, sb, want, n, MPI_INT, op, root);
    if (rc != MPI_SUCCESS || nrc != MPI_SUCCESS)
        fail(m->name, it, "int call failed", 0, rc, nrc);
    else if ((coll == CS_ALLREDUCE || wrank == root) &&
             memcmp(got, want, sizeof got[0] * (size_t)n))
        for (int i = 0; i < n; i++)
            if (got[i] != want[i]) {
                fail(m->name, it, "int result differs from native", i, got[i], want[i]);
                break;
            }
}

/* The fold order under a known late rank (an int sum: exact, so the
 * arrival order is the method's): the last rank, which the fixed order
 * p-1, ..., 0 folds first, arrives LATE_MS after the others; every fold a
 * process traced (cs_shm_dyn_traced) must put it last (the early ranks'
 * contributions combined before it came), but its own fold of a chunk
 * it folds alone (which starts with its own).  The first chunk is traced:
 * after it, the early ranks wait for the late one at every step.  A call
 * where an early rank arrived after it (a loaded machine) is not judged;
 * returns 1 if the call was judged on a fold of two or more (at 2 ranks a
 * reduce from 4 KiB has one: its root combines its own apart).  A call
 * without delay comes first (the first on the communicator makes the
 * segment, where the ranks meet). */
#define LATE_MS 40
static int order_case(const cs_method *m, enum cs_coll coll, int it, int n)
{
    static int sb[MAXN], got[MAXN];
    const int late = wsize - 1, root = 0;
    for (int i = 0; i < n; i++)
        sb[i] = wrank + i;
    /* a call before: the segment made (its making meets the ranks) */
    if (run(m, coll, sb, got, n, MPI_INT, MPI_SUM, root, 0) != MPI_SUCCESS)
        fail(m->name, it, "call before the one under a late rank failed", 0, 0, 0);
    cs_shm_dyn_traced.on = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (wrank == late)
        usleep(LATE_MS * 1000);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* the node's clock */
    double arrived = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    int rc = run(m, coll, sb, got, n, MPI_INT, MPI_SUM, root, 0);
    cs_shm_dyn_traced.on = 0;
    if (rc != MPI_SUCCESS)
        fail(m->name, it, "call under a late rank failed", 0, rc, MPI_SUCCESS);
    enum { W = 2 + CS_SHM_DYN_MAX };
    int mine[W], *all = malloc(sizeof mine * (size_t)wsize);
    double *when = malloc(sizeof *when * (size_t)wsize);
    mine[0] = cs_shm_dyn_traced.n;
    mine[1] = cs_shm_dyn_traced.alone && wrank == late; /* its own first */
    memcpy(mine + 2, cs_shm_dyn_traced.who, sizeof cs_shm_dyn_traced.who);
    MPI_Gather(mine, W, MPI_INT, all, W, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&arrived, 1, MPI_DOUBLE, when, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int judged = 0;
    if (wrank == 0) {
        int early = 1;
        for (int r = 0; r < wsize; r++)
            early &= r == late || when[r] < when[late];
        for (int r = 0; early && r < wsize; r++) {
            const int *t = all + (size_t)r * W, nf = t[0];
            for (int q = 0; !t[1] && q < nf && q < CS_SHM_DYN_MAX; q++) {
                if (t[2 + q] == late && q != nf - 1)
                    fail(m->name, it, "the late rank's contribution folded before an early "
                         "one's (place, of the fold's count; the fixed order?)", q, q, nf);
                judged |= t[2 + q] == late && nf >= 2;
            }
        }
        if (!early)
            printf("%s %d ints: an early rank arrived after the late one (a loaded machine): "
                   "not judged\n", m->name, n);
    }
    free(all);
    free(when);
    MPI_Bcast(&judged, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return judged;
}

/* Back-to-back calls with nothing between them (a rank that does not
 * want the result may run ahead of the others), then each checked against
 * native. */
#define BURST 8
static void burst_case(const cs_method *m, enum cs_coll coll, int it, int root, unsigned *seed)
{
    static int sb[BURST][16], got[BURST][16], want[16];
    for (int k = 0; k < BURST; k++) {
        for (int i = 0; i < 16; i++)
            sb[k][i] = wrank * 1000 + k * 16 + i + it;
        if (wrank == (k + it) % wsize)
            test_arrival_delay(seed);
        if (run(m, coll, sb[k], got[k], 1 + k, MPI_INT, MPI_SUM, root, 0) != MPI_SUCCESS)
            fail(m->name, it, "burst call failed", k, 0, 0);
    }
    for (int k = 0; k < BURST; k++) {
        native(coll, sb[k], want, 1 + k, MPI_INT, MPI_SUM, root);
        if ((coll == CS_ALLREDUCE || wrank == root) && memcmp(got[k], want, sizeof(int) * (size_t)(1 + k)))
            fail(m->name, it, "burst result differs from native", k, got[k][0], want[0]);
    }
}

/* reduce.shm.dynamic's fixed order (a commutative op): the others' in
 * the order p-1, ..., 0 without the root, then the root's, into want at
 * the root (every rank calls it). */
static void fixed_order(const double *sb, double *want, int n, int root)
{
    double *all = wrank == root ? malloc(sizeof *all * (size_t)n * (size_t)wsize) : NULL;
    if (wrank == root && !all)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Gather(sb, n, MPI_DOUBLE, all, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
    if (wrank != root)
        return;
    for (int i = 0; i < n; i++) {
        double acc = 0;
        for (int k = wsize - 1, first = 1; k >= 0; k--)
            if (k != root) {
                acc = first ? all[(size_t)k * n + i] : all[(size_t)k * n + i] + acc;
                first = 0;
            }
        want[i] = wsize > 1 ? acc + all[(size_t)root * n + i] : all[i];
    }
    free(all);
}

/* A floating-point sum of numbers whose sum depends on the order. */
static void fp_case(const cs_method *m, const cs_method *direct, enum cs_coll coll, int it,
                    int n, int root, int reorder, unsigned *seed)
{
    static double sb[MAXN], got[MAXN], want[MAXN], mag[MAXN];
    for (int i = 0; i < n; i++)
        sb[i] = ((double)rand_r(seed) / RAND_MAX - 0.5) * pow(10.0, (i + wrank) % 9 - 4);
    test_arrival_delay(seed);
    int rc = run(m, coll, in_place(coll, it, root, sb, got, sizeof sb[0] * (size_t)n), got, n,
                 MPI_DOUBLE, MPI_SUM, root, reorder);
    /* the reference: native (arrival order), the reduce's fixed order, or
     * the allreduce's, rank order (the method's) */
    int nrc = MPI_SUCCESS;
    if (reorder || !direct)
        nrc = native(coll, sb, want, n, MPI_DOUBLE, MPI_SUM, root);
    else if (coll == CS_REDUCE)
        fixed_order(sb, want, n, root);
    else
        nrc = run(direct, coll, sb, want, n, MPI_DOUBLE, MPI_SUM, root, 0);
    for (int i = 0; i < n; i++)
        mag[i] = fabs(sb[i]);
    MPI_Allreduce(MPI_IN_PLACE, mag, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS || nrc != MPI_SUCCESS) {
        fail(m->name, it, "double call failed", 0, rc, nrc);
        return;
    }
    const int mine = coll == CS_ALLREDUCE || wrank == root;
    for (int i = 0; mine && i < n; i++) {
        const double tol = reorder || !direct ? 2.0 * (wsize - 1) * DBL_EPSILON * mag[i] : 0;
        if (!(fabs(got[i] - want[i]) <= tol)) {
            fail(m->name, it, reorder ? "double sum beyond the tolerance"
                                      : "double sum in the fixed order differs",
                 i, got[i], want[i]);
            break;
        }
    }
    if (coll != CS_ALLREDUCE)
        return;
    /* every rank the same bits: compare with rank 0's */
    static double r0[MAXN];
    memcpy(r0, got, sizeof got[0] * (size_t)n);
    MPI_Bcast(r0, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (memcmp(r0, got, sizeof got[0] * (size_t)n))
        fail(m->name, it, "allreduce: this rank's bits differ from rank 0's", 0, got[0], r0[0]);
}

/* --stop: world rank 0's thread stops a random other rank now and then
 * (not while `paused`: the stop and its SIGCONT under `pause_lock`). */
static pid_t *pids;
static int stopping = 1, stops, paused; /* __atomic: the stopper thread and main */
static int stop_mode; /* --stop */
static pthread_mutex_t pause_lock = PTHREAD_MUTEX_INITIALIZER;

static void *stopper(void *arg)
{
    unsigned seed = 99;
    (void)arg;
    while (__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
        usleep(2000 + (unsigned)rand_r(&seed) % 8000);
        if (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE))
            break;
        pthread_mutex_lock(&pause_lock);
        if (!paused) {
            pid_t victim = pids[1 + rand_r(&seed) % (wsize - 1)];
            kill(victim, SIGSTOP);
            usleep(1000 + (unsigned)rand_r(&seed) % 4000);
            kill(victim, SIGCONT);
            __atomic_fetch_add(&stops, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&pause_lock);
    }
    return NULL;
}

/* bcast.node.dynamic: the message of call it from root (n ints, or every
 * other int of 2 n when strided), checked against native. */
#define BCAST_N 70001
static MPI_Datatype strided;

static void bcast_fill(int *b, int n, int it, int root)
{
    for (int i = 0; i < n; i++)
        b[i] = (int)(((unsigned)i * 2654435761u) ^ (unsigned)(root * 7919 + it * 31));
}

static int bcast_run(const cs_method *m, int *buf, int n, int stride, int root)
{
    cs_call c;
    int rc = stride ? cs_call_bcast(&c, buf, 1, strided, root, MPI_COMM_WORLD)
                    : cs_call_bcast(&c, buf, n, MPI_INT, root, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && !cs_method_applies(m, &c))
        rc = MPI_ERR_OTHER;
    return rc == MPI_SUCCESS ? cs_method_run(m, &c) : rc;
}

static void bcast_check(const cs_method *m, int it, const int *got, int *want, int n, int stride,
                        int root)
{
    const int len = stride ? 2 * n : n;
    if (wrank == root)
        bcast_fill(want, len, it, root);
    else
        memset(want, 0, sizeof *want * (size_t)len);
    MPI_Bcast(want, stride ? 1 : n, stride ? strided : MPI_INT, root, MPI_COMM_WORLD);
    if (memcmp(got, want, sizeof *got * (size_t)len))
        for (int i = 0; i < len; i++)
            if (got[i] != want[i]) {
                fail(m->name, it, "bcast differs from native", i, got[i], want[i]);
                break;
            }
}

/* The receipts from the root that a call of `bytes` from root should
 * count (cs_bcast_node_dynamic_leads, summed over the ranks) on virtual
 * nodes of `node` ranks: one per non-root node (its leader), or one per
 * rank of a node that is pushed to. */
static long bcast_want_leads;
static void expect_leads(size_t bytes, int root, int node)
{
    for (int first = 0; first < wsize; first += node) {
        const int nranks = wsize - first < node ? wsize - first : node;
        if (root < first || root >= first + nranks)
            bcast_want_leads += cs_bcast_node_dynamic_pushed(bytes, nranks) ? nranks : 1;
    }
}

/* One call (every third of 5000 ints: strided), or (it % 10 == 9) a burst
 * of calls with changing roots and nothing between them, then checked.
 * Returns the calls run. */
static int bcast_case(const cs_method *m, int it, int node, unsigned *seed)
{
    static int got[BURST][2 * BCAST_N], want[2 * BCAST_N];
    const int burst = it % 10 == 9, calls = burst ? BURST : 1;
    for (int pass = 0; pass < 2; pass++) /* 0: the calls, 1: their checks */
        for (int k = 0; k < calls; k++) {
            const int n = burst ? 1 + 997 * k : sizes[it % NSIZES];
            const int stride = !burst && n == 5000 && it % 3 == 0, root = (it / NSIZES + k) % wsize;
            if (pass) {
                bcast_check(m, it + k, got[k], want, n, stride, root);
                continue;
            }
            if (wrank == root)
                bcast_fill(got[k], stride ? 2 * n : n, it + k, root);
            else
                memset(got[k], 0, sizeof got[k][0] * (size_t)(stride ? 2 * n : n));
            if (!burst || wrank == (k + it) % wsize)
                test_arrival_delay(seed);
            if (bcast_run(m, got[k], n, stride, root) != MPI_SUCCESS)
                fail(m->name, it, "bcast call failed", k, 0, 0);
            expect_leads(sizeof(int) * (size_t)n, root, node);
        }
    return calls;
}

static int stopped(pid_t pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    const int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    const char *e = ok ? strrchr(line, ')') : NULL;
    return e && (e[2] == 'T' || e[2] == 't');
}

static int watch_armed; /* __atomic: the helper's watchdog */
static void *watchdog(void *arg)
{
    const pid_t victim = *(const pid_t *)arg;
    for (int waited = 0; __atomic_load_n(&watch_armed, __ATOMIC_ACQUIRE) >= 0;) {
        usleep(10000);
        waited = __atomic_load_n(&watch_armed, __ATOMIC_ACQUIRE) > 0 ? waited + 1 : 0;
        if (waited > 500) { /* 5 s in one call: the stopped rank holds it up */
            kill(victim, SIGCONT);
            waited = 0;
        }
    }
    return NULL;
}

/* The fixed leader of node 1 (world rank node) stops itself before each
 * call; node rank 1 of that node must receive for the node.  Returns the
 * calls that rank led. */
#define LATE_CALLS 10
static long late_leader(const cs_method *m, int node)
{
    static int got[5000], want[5000];
    const int victim = node, helper = node + 1;
    unsigned long before = cs_bcast_node_dynamic_leads;
    pthread_t th;
    if (wrank == 0) { /* the stopper keeps still meanwhile */
        pthread_mutex_lock(&pause_lock);
        paused = 1;
        pthread_mutex_unlock(&pause_lock);
    }
    if (wrank == helper)
        pthread_create(&th, NULL, watchdog, &pids[victim]);
    for (int it = 0; it < LATE_CALLS; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (wrank == 0)
            bcast_fill(got, 5000, it, 0);
        if (wrank == victim)
            raise(SIGSTOP); /* until the helper's call returned */
        if (wrank == helper) {
            while (!stopped(pids[victim]))
                usleep(100);
            __atomic_store_n(&watch_armed, 1, __ATOMIC_RELEASE);
        }
        if (bcast_run(m, got, 5000, 0, 0) != MPI_SUCCESS)
            fail(m->name, it, "late-leader bcast failed", 0, 0, 0);
        if (wrank == helper) {
            __atomic_store_n(&watch_armed, 0, __ATOMIC_RELEASE);
            kill(pids[victim], SIGCONT);
        }
        bcast_check(m, it, got, want, 5000, 0, 0);
    }
    if (wrank == helper) {
        __atomic_store_n(&watch_armed, -1, __ATOMIC_RELEASE);
        pthread_join(th, NULL);
    }
    if (wrank == 0) {
        pthread_mutex_lock(&pause_lock);
        paused = 0;
        pthread_mutex_unlock(&pause_lock);
    }
    return (long)(cs_bcast_node_dynamic_leads - before);
}

/* bcast.node.dynamic on virtual nodes of `node` ranks. */
static void bcast_tests(int iters, int node, unsigned *seed)
{
    const cs_method *m = method(CS_BCAST, "bcast.node.dynamic");
    MPI_Type_vector(5000, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    const unsigned long before = cs_bcast_node_dynamic_leads;
    const int stops0 = __atomic_load_n(&stops, __ATOMIC_ACQUIRE);
    long calls = 0;
    /* with --stop, on until 20 of the stops fell in these calls (at most
     * 8 times the iterations): a rank stopped mid-call must delay it only */
    for (int it = 0, more = 1; more; it++) {
        calls += bcast_case(m, it, node, seed);
        if (it + 1 >= iters && (it + 1) % 10 == 0) {
            more = stop_mode && wsize > 1 && __atomic_load_n(&stops, __ATOMIC_ACQUIRE) - stops0 < 20 &&
                   it + 1 < 8 * iters;
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    /* per node rank: the calls its ranks led; one leader per non-root node */
    const int nodes = (wsize + node - 1) / node;
    long *led = calloc((size_t)node, sizeof *led), mine = (long)(cs_bcast_node_dynamic_leads - before);
    led[wrank % node] = mine;
    MPI_Allreduce(MPI_IN_PLACE, led, node, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long all = 0;
    for (int i = 0; i < node; i++)
        all += led[i];
    if (all != bcast_want_leads)
        fail(m->name, iters, "receipts from the root counted (want one per non-root node and "
             "call, or one per rank of a node pushed to)", 0, (double)all,
             (double)bcast_want_leads);
    if (wrank == 0) {
        printf("bcast.node.dynamic: %ld calls, %d nodes, %d stops; calls led by node rank", calls,
               nodes, __atomic_load_n(&stops, __ATOMIC_ACQUIRE) - stops0);
        for (int i = 0; i < node; i++)
            printf(" %d: %ld", i, led[i]);
        printf("\n");
    }
    free(led);
    if (node >= 2 && wsize >= 2 * node && pids) {
        long helped = late_leader(m, node), want = wrank == node + 1 ? LATE_CALLS : 0;
        if (wrank == node || wrank == node + 1) {
            if (helped != want)
                fail(m->name, 0, "calls led while node rank 0 of node 1 was stopped", wrank,
                     (double)helped, (double)want);
        }
        long h = wrank == node + 1 ? helped : 0;
        MPI_Allreduce(MPI_IN_PLACE, &h, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (wrank == 0)
            printf("bcast.node.dynamic: node 1's rank 0 stopped before %d calls, its rank 1 "
                   "led %ld of them\n", LATE_CALLS, h);
    }
    MPI_Type_free(&strided);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int iters = 400, stop = 0, node = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--stop"))
            stop = stop_mode = 1;
        else if (!strcmp(argv[i], "--node-size") && i + 1 < argc)
            cs_shm_set_node_size(node = atoi(argv[++i]));
        else
            iters = atoi(argv[i]);
    }
    pthread_t th;
    if (stop || node > 1) {
        pids = malloc(sizeof *pids * (size_t)wsize);
        pid_t me = getpid();
        MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, pids, (int)sizeof me, MPI_BYTE,
                      MPI_COMM_WORLD);
        if (stop && wrank == 0 && wsize > 1)
            pthread_create(&th, NULL, stopper, NULL);
    }
    unsigned seed = 7u + 31u * (unsigned)wrank;
    static const enum cs_coll colls[] = {CS_REDUCE, CS_ALLREDUCE};
    for (int k = 0; k < 2; k++) {
        const enum cs_coll coll = colls[k];
        const char *family = node ? "node" : "shm";
        char name[64];
        snprintf(name, sizeof name, "%s.%s.dynamic", cs_coll_name(coll), family);
        const cs_method *m = method(coll, name);
        snprintf(name, sizeof name, "%s.shm.direct", cs_coll_name(coll));
        const cs_method *direct = node ? NULL : method(coll, name);
        /* the shared-memory ones: the order of folding under a late rank,
         * each size twice; at least one call judged on a fold of two */
        int judged = 0;
        pthread_mutex_lock(&pause_lock); /* (--stop: no rank stopped meanwhile) */
        paused = 1;
        pthread_mutex_unlock(&pause_lock);
        for (int it = 0; !node && wsize > 1 && it < 2 * NSIZES; it++)
            judged += order_case(m, coll, it, sizes[it % NSIZES]);
        pthread_mutex_lock(&pause_lock);
        paused = 0;
        pthread_mutex_unlock(&pause_lock);
        if (!node && wsize > 1 && !judged)
            fail(m->name, 0, "no call under a late rank judged on its fold order", 0, 0, 1);
        else if (!node && wrank == 0)
            printf("%s: %d of %d calls under a late rank judged on their fold order\n", m->name,
                   judged, 2 * NSIZES);
        for (int it = 0; it < iters; it++) {
            const int n = sizes[it % NSIZES], root = (it / NSIZES) % wsize;
            if (it % 10 == 9)
                burst_case(m, coll, it, root, &seed);
            else if (it % 3 == 0)
                exact_case(m, coll, it, n, root, &seed);
            else
                fp_case(m, direct, coll, it, n, root, it % 3 == 2, &seed);
        }
    }
    if (node)
        bcast_tests(iters, node, &seed);
    if (stop && wrank == 0 && wsize > 1) {
        __atomic_store_n(&stopping, 0, __ATOMIC_RELEASE);
        pthread_join(th, NULL);
    }
    long all;
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("dynamic reductions: %d calls per method and rank, %d stops, %ld failures\n",
               iters, __atomic_load_n(&stops, __ATOMIC_ACQUIRE), all);
    free(pids);
    MPI_Finalize();
    return all != 0 || (stop && wsize > 1 && wrank == 0 && __atomic_load_n(&stops, __ATOMIC_ACQUIRE) == 0);
}
