/* Our methods from several threads at once (MPI_THREAD_MULTIPLE): each
 * thread runs bcast / reduce / barrier methods (point-to-point and shared
 * memory) on its own communicator and
 * keeps creating and freeing sub-communicators, so that the keyval creation
 * (once), the per-thread state cache (invalidated by every free) and the
 * list of private communicators are exercised concurrently.  Results are
 * checked against values computed locally.  Exit 77 (skipped) when the MPI
 * library does not provide MPI_THREAD_MULTIPLE. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"

#define NT 5
#define ITERS 60
#define N 100

static MPI_Comm comms[NT];
static int failures[NT];
static const char *names[NT][3] = {
    {"bcast.binomial", "reduce.binomial", "barrier.dissemination"},
    {"bcast.pipeline.seg1k", "reduce.inorder_binary", "barrier.tree.k2"},
    {"bcast.knomial.k3", "reduce.chain.k2", "barrier.bruck"},
    /* shared memory: each communicator has its own segment */
    {"bcast.shm.ota", "reduce.shm.direct", "barrier.shm.dissemination"},
    {"bcast.shm.ota", "reduce.shm.ag", "barrier.shm.counter"},
};

static int run(const char *name, MPI_Comm comm, int it, int *buf, int *res)
{
    enum cs_coll coll;
    const cs_method *m = cs_method_find(name, &coll, NULL);
    int rank, size, rc;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cs_call c;
    int root = it % size;
    if (coll == CS_BCAST) {
        for (int i = 0; i < N; i++)
            buf[i] = rank == root ? it * 1000 + i : -1;
        rc = cs_call_bcast(&c, buf, N, MPI_INT, root, comm);
    } else if (coll == CS_REDUCE) {
        for (int i = 0; i < N; i++)
            buf[i] = rank + i + it, res[i] = -1;
        rc = cs_call_reduce(&c, buf, res, N, MPI_INT, MPI_SUM, root, comm);
    } else {
        rc = cs_call_barrier(&c, comm);
    }
    if (rc != MPI_SUCCESS || !m || !cs_method_applies(m, &c))
        return 1;
    if (cs_method_run(m, &c) != MPI_SUCCESS)
        return 1;
    for (int i = 0; i < N; i++) {
        if (coll == CS_BCAST && buf[i] != it * 1000 + i)
            return 1;
        if (coll == CS_REDUCE && rank == root && res[i] != size * (size - 1) / 2 + size * (i + it))
            return 1;
    }
    return 0;
}

static void *worker(void *arg)
{
    int t = (int)(long)arg, buf[N], res[N];
    for (int it = 0; it < ITERS; it++) {
        for (int k = 0; k < 3; k++)
            failures[t] += run(names[t][k], comms[t], it, buf, res);
        if (it % 5 == 0) { /* a short-lived sub-communicator */
            int rank;
            MPI_Comm sub;
            MPI_Comm_rank(comms[t], &rank);
            MPI_Comm_split(comms[t], rank % 2, -rank, &sub);
            for (int k = 0; k < 3; k++)
                failures[t] += run(names[t][k], sub, it, buf, res);
            MPI_Comm_free(&sub);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, wrank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (wrank == 0)
            printf("threads: MPI_THREAD_MULTIPLE not provided; skipped\n");
        MPI_Finalize();
        return 77;
    }
    for (int t = 0; t < NT; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t th[NT];
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)(long)t);
    int mine = 0, total;
    for (int t = 0; t < NT; t++) {
        pthread_join(th[t], NULL);
        mine += failures[t];
        MPI_Comm_free(&comms[t]);
    }
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("threads: %d threads x %d iterations, %d failed calls\n", NT, ITERS, total);
    MPI_Finalize();
    return total != 0;
}
