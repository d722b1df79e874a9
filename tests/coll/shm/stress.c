/* Stress of every shared-memory method: back-to-back calls with no
 * barrier between them, changing roots and sizes (across the 64 KiB slots
 * and the 32 KiB reduction chunks: a fast rank must never overwrite a slot
 * a slow one still reads, nor take a flag of the previous call for this
 * one), and communicators split, duplicated, freed and made again (each
 * with its own segment).  Every result is checked against values computed
 * locally; a barrier is checked with a counter in shared memory (after
 * barrier k every rank must see p (k + 1) arrivals).  Phases of small
 * messages from one root let the writers run as far ahead as they may.
 * The shared-memory methods run on each node's ranks (every node at once on
 * a cluster, tools/cluster.sh); where the world spans nodes, the node-aware
 * bcast, reduce and allreduce run on the world too.
 *   usage: stress [CALLS_PER_METHOD]   (default 10000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"

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

static void one(const cs_method *m, enum cs_coll coll, int it, MPI_Comm comm, int *buf,
                int *res, int *arrivals, int *nbar)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    /* calls 0..199 of every 500: a small message from root 0 while the
     * ranks that only read pause now and then, so that the writers run
     * ahead until the ring of small payloads is full (its guard holds) */
    const int ahead = it % 500 < 200;
    int n = ahead ? 2 : sizes[(it * 7 + it / 13) % NSIZES], root = ahead ? 0 : (it / 3) % p, rc;
    if (ahead && it % 40 == 0 &&
        (coll == CS_REDUCE ? rank == root : coll == CS_BCAST ? rank != root : rank % 2))
        usleep(300);
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
    int nsize, wsize;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int coll = 0; coll < CS_NCOLL; coll++) {
        int nm;
        const cs_method *t = cs_methods((enum cs_coll)coll, &nm);
        for (int k = 1; k < nm; k++) {
            MPI_Comm base = MPI_COMM_NULL;
            if (strstr(t[k].name, ".shm.") && !strstr(t[k].name, ".node."))
                base = node;
            else if (strstr(t[k].name, ".node.") && coll != CS_BARRIER && nsize < wsize)
                base = MPI_COMM_WORLD; /* the matrix checks node-aware barriers */
            if (base == MPI_COMM_NULL)
                continue;
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
