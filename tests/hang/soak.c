/* The soak test of the worst scheduling (tests/hang/soak.sh runs it under
 * taskset, with one rank stopped and continued again and again).
 *
 * Every method of the registry that needs the node split (shared-memory,
 * node-aware, composed ones, and whatever is added later:
 * cs_method_needs_node), mixed in one long run; every second
 * communicator lies in one node, the others on two virtual nodes of half
 * the ranks (so that both kinds apply: node-aware methods on
 * communicators that span the two nodes, shared-memory ones on those
 * within one).  From one seed every rank draws the same choices: the
 * method (an owed one first, see below; drawn again when it does not
 * apply to the communicator), the root, the count (across the
 * inline-payload, the reduction-chunk and the slot boundaries, ±1), MPI_IN_PLACE or not,
 * bursts of small calls from one root (writers run ahead around the ring
 * of small payloads), and every 128 calls a new communicator (the world
 * on two virtual nodes, then on one, then at random: a
 * duplicate of the world, its halves, odd and even ranks, a random
 * split; the old one freed).  Each rank also draws delays of its own (up
 * to 200 us before a call).  Every result is checked: bcast and reduce
 * and allreduce (MPI_SUM of ints) against values computed locally, a
 * barrier against a counter in shared memory (after barrier k every rank
 * has seen p (k + 1) arrivals), an alltoall's every block against the
 * value its sender put there (the count is one block's).
 *
 *   usage: soak [--calls N | --seconds S] [--seed X] [--native] [--progress S]
 * --native runs the same sequence (same draws, same delays, same checks)
 * with the MPI library's own collectives: the reference of the slowdown.
 * Prints "soak: CALLS calls, T s, U us per call, F failures" (rank 0) and
 * the calls per method; exit 1 on a wrong result, a method of a
 * collective this test cannot check, or (not --native) a method that never
 * ran.  A run does not stop before its third communicator (the world seen
 * in both layouts, whatever --calls or --seconds say): every method is owed
 * a call from the start, and so is one drawn where it does not apply; the
 * owed ones that apply run first, so a method never runs only if it
 * applies to neither layout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"
#include "coll/shm/shm.h"

#define MAXM 512 /* methods followed */

static uint64_t shared_rng, own_rng; /* the same on every rank / this rank's */

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static struct {
    const cs_method *m[MAXM];
    long ran[MAXM];
    char owed[MAXM]; /* drawn where it did not apply: run first where it does */
    int n;
    int counts[32], ncounts;
    long failures;
    int native;
} S;

/* The counts (ints): every boundary of the segment, ±1. */
static void make_counts(void)
{
    const int b[] = {CS_SHM_INLINE / 4, cs_shm_chunk(4), CS_SHM_SLOT / 4, 2 * cs_shm_chunk(4) * 2};
    S.counts[S.ncounts++] = 0;
    S.counts[S.ncounts++] = 1;
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        for (int d = -1; d <= 1; d++)
            S.counts[S.ncounts++] = b[i] + d;
    S.counts[S.ncounts++] = 3 * CS_SHM_SLOT / 4 + 7;
}

/* The communicator and its barrier counter. */
typedef struct {
    MPI_Comm comm;
    MPI_Win win;
    int *arrivals;
    long nbar;
} comm_t;

static void comm_make(comm_t *c, int kind, int one_node, int wrank, int wsize, uint64_t salt)
{
    /* real nodes (one: the shared-memory methods apply to the whole
     * communicator) or two virtual nodes (node-aware ones apply across) */
    cs_shm_set_node_size(one_node || wsize < 2 ? 0 : (wsize + 1) / 2);
    switch (kind) {
    case 0: MPI_Comm_dup(MPI_COMM_WORLD, &c->comm); break;
    case 1: MPI_Comm_split(MPI_COMM_WORLD, wrank / ((wsize + 1) / 2), wrank, &c->comm); break;
    case 2: MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &c->comm); break;
    default: { /* a random split, at least two ranks per part where it can */
        uint64_t h = salt ^ (uint64_t)(wrank + 1) * 0x9E3779B97F4A7C15u;
        MPI_Comm_split(MPI_COMM_WORLD, wsize > 3 ? (int)(next(&h) % 2) : 0, (int)(next(&h) % 97),
                       &c->comm);
    }
    }
    int r;
    MPI_Aint sz;
    int du;
    void *base;
    MPI_Comm_rank(c->comm, &r);
    MPI_Win_allocate_shared(r == 0 ? sizeof(int) : 0, 1, MPI_INFO_NULL, c->comm, &base, &c->win);
    MPI_Win_shared_query(c->win, 0, &sz, &du, (void *)&c->arrivals);
    if (r == 0)
        __atomic_store_n(c->arrivals, 0, __ATOMIC_SEQ_CST);
    c->nbar = 0;
    MPI_Barrier(c->comm);
}

static void comm_free(comm_t *c)
{
    MPI_Win_free(&c->win);
    MPI_Comm_free(&c->comm);
}

static void fail(const cs_method *m, long it, const char *what, long got, long want)
{
    if (S.failures++ < 10)
        fprintf(stderr, "soak: FAIL %s call %ld: %s: got %ld want %ld\n", m ? m->name : "native",
                it, what, got, want);
}

/* Fill c for method m's collective; 0 if this test cannot check it. */
static int prepare(cs_call *c, enum cs_coll coll, comm_t *cm, int *buf, int *res, int n, int root,
                   int inplace, int rank)
{
    int rc;
    switch (coll) {
    case CS_BCAST: rc = cs_call_bcast(c, buf, n, MPI_INT, root, cm->comm); break;
    case CS_REDUCE:
        rc = cs_call_reduce(c, inplace && rank == root ? MPI_IN_PLACE : buf,
                            inplace && rank == root ? buf : res, n, MPI_INT, MPI_SUM, root, cm->comm);
        break;
    case CS_ALLREDUCE:
        rc = cs_call_allreduce(c, inplace ? MPI_IN_PLACE : buf, inplace ? buf : res, n, MPI_INT,
                               MPI_SUM, cm->comm);
        break;
    case CS_BARRIER: rc = cs_call_barrier(c, cm->comm); break;
    case CS_ALLTOALL:
        rc = cs_call_alltoall(c, inplace ? MPI_IN_PLACE : buf, n, MPI_INT, inplace ? buf : res, n,
                              MPI_INT, cm->comm);
        break;
    default: return 0;
    }
    return rc == MPI_SUCCESS ? 1 : -1;
}

/* The MPI library's own collective for c (spare: room for a copy of the
 * root's data, see below). */
static int run_native(const cs_call *c, int *spare)
{
    switch (c->coll) {
    case CS_BCAST: return MPI_Bcast(c->buf, c->count, c->dt, c->root, c->comm);
    case CS_REDUCE:
        if (c->sendbuf == MPI_IN_PLACE && c->root != 0) {
            /* MPICH 4.0.2 (Debian 12) crashes on an in-place MPI_Reduce at a
             * root other than 0 from about 2,048 ints up (reads through
             * MPI_IN_PLACE): the same reduction from a copy */
            memcpy(spare, c->buf, sizeof(int) * (size_t)c->count);
            return MPI_Reduce(spare, c->buf, c->count, c->dt, c->op, c->root, c->comm);
        }
        return MPI_Reduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->root, c->comm);
    case CS_ALLREDUCE: return MPI_Allreduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->comm);
    case CS_ALLTOALL:
        return MPI_Alltoall(c->sendbuf, c->count, c->dt, c->buf, c->rcount, c->rdt, c->comm);
    default: return MPI_Barrier(c->comm);
    }
}

/* One call: method index k (or the next that applies) on cm. */
/* Element e of the block rank src sends to rank dst in call it (alltoall). */
static int a2a_value(int src, int dst, int e, long it)
{
    return (int)((src * 131L + dst * 7L + e + it % 1000) % 1000003);
}

static void one(int k, comm_t *cm, long it, int n, int root, int inplace, int *buf, int *res)
{
    int rank, p;
    MPI_Comm_rank(cm->comm, &rank);
    MPI_Comm_size(cm->comm, &p);
    root %= p;
    cs_call c;
    int chosen = -1;
    uint64_t draw = (uint64_t)k * 0x9E3779B97F4A7C15u | 1; /* the same on every rank */
    /* A method drawn where it did not apply is owed a call: the owed ones
     * that apply here come first (so every method runs in a short run,
     * whatever the draws), then the drawn one, up to 8 more draws, then
     * the next in order.  Applicability is the same on every rank, so are
     * the choices. */
    int nowed = 0;
    for (int i = 0; i < S.n; i++)
        nowed += S.owed[i];
    for (int j = -nowed; j < 8 + S.n && chosen < 0; j++) {
        int i, ok;
        if (j < 0) { /* the owed ones in order */
            int skip = nowed + j;
            for (i = 0; i < S.n && (!S.owed[i] || skip-- > 0); i++)
                ;
        } else {
            i = j < 8 ? (j ? (int)(next(&draw) % (uint64_t)S.n) : k) : (k + j - 8) % S.n;
        }
        enum cs_coll coll = S.m[i]->coll;
        for (int e = 0; coll == CS_ALLTOALL && e < n * p; e++)
            buf[e] = a2a_value(rank, e / n, e % n, it);
        for (int e = 0; coll != CS_BARRIER && coll != CS_ALLTOALL && e < n; e++)
            buf[e] = coll == CS_BCAST ? (rank == root ? (int)(it % 100000) + e : -7)
                                      : rank + e + (int)(it % 1000);
        ok = prepare(&c, coll, cm, buf, res, n, root, inplace, rank);
        if (ok < 0) {
            fail(S.m[i], it, "call set-up failed", ok, 1);
            return;
        }
        if (ok && cs_method_applies(S.m[i], &c))
            chosen = i;
        else if (j == 0)
            S.owed[i] = 1;
    }
    if (chosen < 0) {
        fail(NULL, it, "no method applies to the communicator", p, 0);
        return;
    }
    const cs_method *m = S.m[chosen];
    S.owed[chosen] = 0;
    if (m->coll == CS_BARRIER)
        __atomic_fetch_add(cm->arrivals, 1, __ATOMIC_SEQ_CST);
    int rc = S.native ? run_native(&c, res) : cs_method_run(m, &c);
    S.ran[chosen]++;
    if (rc != MPI_SUCCESS) {
        fail(m, it, "error", rc, MPI_SUCCESS);
        return;
    }
    if (m->coll == CS_BARRIER) {
        long seen = __atomic_load_n(cm->arrivals, __ATOMIC_SEQ_CST);
        if (seen < (long)p * ++cm->nbar)
            fail(m, it, "barrier passed early", seen, (long)p * cm->nbar);
        return;
    }
    const int *out = m->coll == CS_BCAST || inplace ? buf : res;
    if (m->coll == CS_REDUCE && rank != root)
        return;
    for (int e = 0; m->coll == CS_ALLTOALL && e < n * p; e++)
        if (out[e] != a2a_value(e / n, rank, e % n, it)) {
            fail(m, it, "wrong alltoall element", out[e], a2a_value(e / n, rank, e % n, it));
            return;
        }
    if (m->coll == CS_ALLTOALL)
        return;
    for (int e = 0; e < n; e++) {
        long want = m->coll == CS_BCAST ? (it % 100000) + e
                                        : (long)p * (p - 1) / 2 + (long)p * (e + it % 1000);
        if (out[e] != want) {
            fail(m, it, "wrong element", out[e], want);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    long calls = 0;
    double seconds = 0, progress = 10;
    uint64_t seed = 12345;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--calls") && i + 1 < argc)
            calls = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--progress") && i + 1 < argc)
            progress = atof(argv[++i]);
        else if (!strcmp(argv[i], "--native"))
            S.native = 1;
        else {
            fprintf(stderr, "usage: soak [--calls N | --seconds S] [--seed X] [--native] "
                            "[--progress S]\n");
            return 2;
        }
    }
    if (calls <= 0 && seconds <= 0)
        calls = 10000;
    MPI_Init(&argc, &argv);
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    shared_rng = seed | 1;
    own_rng = (seed ^ (uint64_t)(wrank + 1) * 0x9E3779B97F4A7C15u) | 1;
    make_counts();
    int unchecked = 0;
    for (int coll = 0; coll < CS_NCOLL; coll++) {
        int nm;
        const cs_method *t = cs_methods((enum cs_coll)coll, &nm);
        for (int k = 1; k < nm && S.n < MAXM; k++) {
            if (!cs_method_needs_node(&t[k]))
                continue;
            if (coll != CS_BCAST && coll != CS_REDUCE && coll != CS_ALLREDUCE && coll != CS_BARRIER &&
                coll != CS_ALLTOALL) {
                if (wrank == 0)
                    fprintf(stderr, "soak: FAIL %s: no check for its collective here\n", t[k].name);
                unchecked++;
                continue;
            }
            S.m[S.n++] = &t[k];
        }
    }
    int maxn = 0;
    for (int i = 0; i < S.ncounts; i++)
        maxn = S.counts[i] > maxn ? S.counts[i] : maxn;
    /* alltoall: p blocks of the count */
    size_t room = (size_t)(maxn + 1) * (size_t)wsize;
    int *buf = malloc(sizeof *buf * room), *res = malloc(sizeof *res * room);
    comm_t cm;
    long ncomm = 0; /* communicators made: every second lies in one node */
    for (int k = 0; k < S.n; k++) /* every method is owed a call from the start */
        S.owed[k] = 1;
    comm_make(&cm, 0, 0, wrank, wsize, 1);
    double t0 = MPI_Wtime(), last = t0;
    long it = 0, burst = 0;
    int bk = 0, broot = 0, stop = 0;
    while (!stop) {
        if (it % 128 == 127) { /* a new communicator */
            comm_free(&cm);
            ncomm++;
            /* the world in both layouts first, then random kinds */
            int kind = ncomm < 2 ? 0 : (int)(next(&shared_rng) % 4);
            comm_make(&cm, kind, ncomm % 2 == 1, wrank, wsize, next(&shared_rng));
        }
        int k, n, root, inplace = (int)(next(&shared_rng) % 2);
        if (burst > 0) { /* small calls from one root: writers run ahead */
            burst--;
            k = bk, n = 2, root = broot;
        } else {
            k = (int)(next(&shared_rng) % (uint64_t)S.n);
            n = S.counts[next(&shared_rng) % (uint64_t)S.ncounts];
            root = (int)(next(&shared_rng) % 64);
            if (next(&shared_rng) % 60 == 0)
                burst = 100, bk = k, broot = root;
        }
        uint64_t d = next(&own_rng);
        if (d % 8 == 0)
            usleep((useconds_t)(d >> 8) % 200);
        one(k, &cm, it, n, root, inplace, buf, res);
        it++;
        if (it % 256 == 0) { /* everyone stops at the same call */
            double now = MPI_Wtime();
            stop = (calls > 0 ? it >= calls : now - t0 >= seconds) && ncomm >= 2;
            MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (wrank == 0 && progress > 0 && now - last >= progress) {
                fprintf(stderr, "soak: %ld calls, %.0f s, %ld failures so far\n", it, now - t0,
                        S.failures);
                last = now;
            }
        } else if (calls > 0 && it >= calls && ncomm >= 2) {
            stop = 1;
        }
    }
    double t = MPI_Wtime() - t0;
    comm_free(&cm);
    long failures = S.failures, all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int never = 0;
    for (int i = 0; i < S.n; i++) {
        if (wrank == 0)
            printf("  %-44s %ld calls\n", S.m[i]->name, S.ran[i]);
        never += S.ran[i] == 0;
    }
    if (wrank == 0) {
        printf("soak%s: %ld calls, %.2f s, %.2f us per call, %d ranks, %d methods (%d never ran), "
               "%ld failures\n", S.native ? " (native)" : "", it, t, t / (double)it * 1e6, wsize,
               S.n, never, all);
        if (never && !S.native)
            fprintf(stderr, "soak: FAIL %d methods never ran\n", never);
    }
    free(buf);
    free(res);
    MPI_Finalize();
    return all || unchecked || (never && !S.native) ? 1 : 0;
}
