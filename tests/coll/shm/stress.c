/* Stress of every shared-memory method (every registry method of
 * cs_method_shm_only: composed methods of shared-memory steps too, and
 * methods added later; at least one per collective must be found, and
 * every one must apply): back-to-back calls with no
 * barrier between them, changing roots and sizes (across the 64 KiB slots
 * and the 32 KiB reduction chunks: a fast rank must never overwrite a slot
 * a slow one still reads, nor take a flag of the previous call for this
 * one), and communicators split, duplicated, freed and made again (each
 * with its own segment).  Every result is checked against values computed
 * locally (alltoall: the sizes are the p blocks' total, in place every
 * other call); a barrier is checked with a counter in shared memory (after
 * barrier k every rank must see p (k + 1) arrivals).  Phases of small
 * messages from one root let the writers run as far ahead as they may.
 * The dynamic methods (*.dynamic) get a random delay on every rank before
 * each call (so the arrival order, and bcast.node.dynamic's leaders,
 * change from call to call), and every other call of the reductions sums
 * integer-valued doubles, in rank order and (c.reorder_fp) in arrival
 * order by turns: exact either way.
 * The shared-memory methods run on each node's ranks (every node at once on
 * a cluster, tools/cluster.sh); where the world spans nodes, the node-aware
 * bcast, reduce, allreduce and alltoall run on the world too.
 *   usage: stress [CALLS_PER_METHOD [NAME_SUBSTRING]]   (default 10000, all) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"
#include "tests/coll/arrival.h"

static const int sizes[] = {1, 3, 8, 14, 15, 100, 1000, 8191, 8192, 8193, 16385, 40000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXN 40000

static long failures;

static void fail(const cs_method *m, int it, const char *what, int i, long got, long want)
{
    if (failures++ < 10)
        fprintf(stderr, "FAIL %s call %d: %s at %d: got %ld want %ld\n", m->name, it, what, i,
                got, want);
}

/* The communicator of call it: a duplicate of base, the two halves of a
 * split, remade every 997 calls. */
static MPI_Comm comm_for(MPI_Comm base, int it, MPI_Comm *cur)
{
    if (it % 997 == 0) {
        if (*cur != MPI_COMM_NULL)
            MPI_Comm_free(cur);
        int wr;
        MPI_Comm_rank(base, &wr);
        switch (it / 997 % 3) {
        case 0: MPI_Comm_dup(base, cur); break;
        case 1: MPI_Comm_split(base, wr % 2, -wr, cur); break;
        default: MPI_Comm_split(base, 0, wr, cur); break;
        }
    }
    return *cur;
}

/* A dynamic reduction on integer-valued doubles (sum: exact in any order),
 * in rank order (it % 4 == 1) or in arrival order (3). */
static void one_double(const cs_method *m, enum cs_coll coll, int it, MPI_Comm comm, int n,
                       int root, int rank, int p)
{
    static double dbuf[MAXN], dres[MAXN];
    for (int i = 0; i < n; i++)
        dbuf[i] = rank + i + it;
    cs_call c;
    int rc = coll == CS_REDUCE
                 ? cs_call_reduce(&c, dbuf, dres, n, MPI_DOUBLE, MPI_SUM, root, comm)
                 : cs_call_allreduce(&c, dbuf, dres, n, MPI_DOUBLE, MPI_SUM, comm);
    c.reorder_fp = it % 4 == 3;
    if (rc != MPI_SUCCESS || !cs_method_applies(m, &c) ||
        (rc = cs_method_run(m, &c)) != MPI_SUCCESS) {
        fail(m, it, "double call failed or method does not apply", 0, rc, MPI_SUCCESS);
        return;
    }
    for (int i = 0; (coll != CS_REDUCE || rank == root) && i < n; i++) {
        double want = (double)p * (p - 1) / 2 + (double)p * (i + it);
        if (dres[i] != want) {
            fail(m, it, "wrong double element", i, (long)dres[i], (long)want);
            break;
        }
    }
}

static void one(const cs_method *m, enum cs_coll coll, int it, MPI_Comm comm, int *buf,
                int *res, int *arrivals, int *nbar)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    static unsigned seed;
    if (!seed) {
        int wr;
        MPI_Comm_rank(MPI_COMM_WORLD, &wr);
        seed = 12345u + 7919u * (unsigned)wr;
    }
    const int dynamic = strstr(m->name, ".dynamic") != NULL;
    if (dynamic)
        test_arrival_delay(&seed);
    /* calls 0..199 of every 500: a small message from root 0 while the
     * ranks that only read pause now and then, so that the writers run
     * ahead until the ring of small payloads is full (its guard holds) */
    const int ahead = it % 500 < 200;
    int n = ahead ? 2 : sizes[(it * 7 + it / 13) % NSIZES], root = ahead ? 0 : (it / 3) % p, rc;
    if (ahead && it % 40 == 0 &&
        (coll == CS_REDUCE ? rank == root : coll == CS_BCAST ? rank != root : rank % 2))
        usleep(300);
    if (dynamic && it % 2 && coll != CS_BCAST) {
        one_double(m, coll, it, comm, n, root, rank, p);
        return;
    }
    cs_call c;
    if (coll == CS_BARRIER) {
        __atomic_fetch_add(arrivals, 1, __ATOMIC_SEQ_CST);
        rc = cs_call_barrier(&c, comm);
        if (rc == MPI_SUCCESS && cs_method_applies(m, &c))
            rc = cs_method_run(m, &c);
        ++*nbar;
        int seen = __atomic_load_n(arrivals, __ATOMIC_SEQ_CST);
        if (rc != MPI_SUCCESS || seen < p * *nbar)
            fail(m, it, "barrier passed early", 0, seen, (long)p * *nbar);
        return;
    }
    if (coll == CS_ALLTOALL) { /* block j to rank j: n / p elements each */
        const int blk = n / p, inplace = it % 2;
        for (int j = 0; j < p; j++)
            for (int i = 0; i < blk; i++)
                buf[j * blk + i] = rank * 1000003 + j * 7919 + i + it;
        rc = cs_call_alltoall(&c, inplace ? MPI_IN_PLACE : buf, blk, MPI_INT,
                              inplace ? buf : res, blk, MPI_INT, comm);
        if (rc != MPI_SUCCESS || !cs_method_applies(m, &c) ||
            (rc = cs_method_run(m, &c)) != MPI_SUCCESS) {
            fail(m, it, "call failed or method does not apply", 0, rc, MPI_SUCCESS);
            return;
        }
        const int *out = inplace ? buf : res;
        for (int k = 0; k < blk * p; k++) {
            long want = (long)(k / blk) * 1000003 + rank * 7919 + k % blk + it;
            if (out[k] != want) {
                fail(m, it, "wrong element", k, out[k], want);
                break;
            }
        }
        return;
    }
    for (int i = 0; i < n; i++)
        buf[i] = coll == CS_BCAST ? (rank == root ? it * 31 + i : -7) : rank + i + it;
    if (coll == CS_BCAST)
        rc = cs_call_bcast(&c, buf, n, MPI_INT, root, comm);
    else if (coll == CS_REDUCE)
        rc = cs_call_reduce(&c, it % 2 && rank == root ? MPI_IN_PLACE : buf,
                            it % 2 && rank == root ? buf : res, n, MPI_INT, MPI_SUM, root, comm);
    else
        rc = cs_call_allreduce(&c, it % 2 ? MPI_IN_PLACE : buf, it % 2 ? buf : res, n, MPI_INT,
                               MPI_SUM, comm);
    if (rc != MPI_SUCCESS || !cs_method_applies(m, &c) ||
        (rc = cs_method_run(m, &c)) != MPI_SUCCESS) {
        fail(m, it, "call failed or method does not apply", 0, rc, MPI_SUCCESS);
        return;
    }
    const int *out = coll == CS_BCAST || it % 2 ? buf : res;
    int check = coll != CS_REDUCE || rank == root;
    for (int i = 0; check && i < n; i++) {
        long want = coll == CS_BCAST ? it * 31 + i : (long)p * (p - 1) / 2 + (long)p * (i + it);
        if (out[i] != want) {
            fail(m, it, "wrong element", i, out[i], want);
            break;
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int calls = argc > 1 ? atoi(argv[1]) : 10000, wrank, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int *buf = malloc(MAXN * sizeof *buf), *res = malloc(MAXN * sizeof *res);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL, &node);
    int nfound = 0;
    int nsize, wsize;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int coll = 0; coll < CS_NCOLL; coll++) {
        int nm, found = 0;
        const cs_method *t = cs_methods((enum cs_coll)coll, &nm);
        for (int k = 1; k < nm; k++) {
            MPI_Comm base = MPI_COMM_NULL;
            if (argc > 2 && !strstr(t[k].name, argv[2]))
                continue;
            if (cs_method_shm_only(&t[k]))
                base = node;
            else if (strstr(t[k].name, ".node.") && coll != CS_BARRIER && nsize < wsize)
                base = MPI_COMM_WORLD; /* the matrix checks node-aware barriers */
            if (base == MPI_COMM_NULL)
                continue;
            found++;
            MPI_Comm cur = MPI_COMM_NULL;
            MPI_Win win = MPI_WIN_NULL;
            int *arrivals = NULL;
            int nbar = 0;
            for (int it = 0; it < calls; it++) {
                MPI_Comm comm = comm_for(base, it, &cur);
                if (coll == CS_BARRIER && it % 997 == 0) { /* a fresh counter for the fresh communicator */
                    int r;
                    MPI_Comm_rank(comm, &r);
                    MPI_Aint sz;
                    int du;
                    void *base;
                    MPI_Win_allocate_shared(r == 0 ? sizeof(int) : 0, 1, MPI_INFO_NULL, comm,
                                            &base, &win);
                    MPI_Win_shared_query(win, 0, &sz, &du, (void *)&arrivals);
                    if (r == 0)
                        __atomic_store_n(arrivals, 0, __ATOMIC_SEQ_CST);
                    nbar = 0;
                    MPI_Barrier(comm);
                }
                one(&t[k], (enum cs_coll)coll, it, comm, buf, res, arrivals, &nbar);
                total++;
                if (win != MPI_WIN_NULL && ((it + 1) % 997 == 0 || it + 1 == calls))
                    MPI_Win_free(&win); /* before its communicator is remade */
            }
            MPI_Comm_free(&cur);
        }
        if (wrank == 0)
            printf("shm stress: %s: %d shared-memory methods\n", cs_coll_name(coll), found);
        nfound += found;
        if (!found && argc <= 2) { /* a name filter (argv[2]) may leave a collective out */
            if (wrank == 0)
                fprintf(stderr, "FAIL: no shared-memory method of %s in the registry\n",
                        cs_coll_name(coll));
            failures++;
        }
    }
    if (!nfound) {
        if (wrank == 0)
            fprintf(stderr, "FAIL: no shared-memory method matches '%s'\n", argv[2]);
        failures++;
    }
    long all;
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("shm stress: %d calls per rank (%d per method), %ld failures\n", total, calls,
               all);
    MPI_Comm_free(&node);
    free(buf);
    free(res);
    MPI_Finalize();
    return all != 0;
}
