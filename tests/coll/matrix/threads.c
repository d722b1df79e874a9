/* Our methods from several threads at once (MPI_THREAD_MULTIPLE): each
 * thread runs bcast / reduce / barrier / allreduce / alltoall methods
 * (point-to-point and shared memory; with --node, on virtual nodes of one
 * rank, the node-aware ones, bcast.node.dynamic among them) on its own
 * communicator and
 * keeps creating and freeing sub-communicators, so that the keyval creation
 * (once), the per-thread state cache (invalidated by every free) and the
 * list of private communicators are exercised concurrently.  Results are
 * checked against values computed locally.  The dynamic methods run
 * after a random delay of every rank (../arrival.h).  --node: the
 * short-lived communicators are duplicates (a split of 2 ranks would lie
 * within one node, where no node-aware method applies).  MPI_THREAD_MULTIPLE not
 * provided is a failure, not a skip: both MPI libraries collsel is built
 * for provide it, and a skip (exit 77 passes) would hide a regression. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/shm/shm.h"
#include "tests/coll/arrival.h"

#define NT 6
#define ITERS 60
#define N 100

static MPI_Comm comms[NT];
static int failures[NT];
#define NC 5
static const char *names[NT][NC] = {
    {"bcast.binomial", "reduce.binomial", "barrier.dissemination", "allreduce.ring",
     "alltoall.linear"},
    {"bcast.pipeline.seg1k", "reduce.inorder_binary", "barrier.tree.k2",
     "allreduce.recursive_doubling", "alltoall.pairwise"},
    {"bcast.knomial.k3", "reduce.chain.k2", "barrier.bruck", "allreduce.knomial.k3",
     "alltoall.bruck"},
    /* shared memory: each communicator has its own segment */
    {"bcast.shm.ota", "reduce.shm.direct", "barrier.shm.dissemination", "allreduce.shm.direct",
     "alltoall.shm.direct"},
    {"bcast.shm.ota", "reduce.shm.ag", "barrier.shm.counter", "allreduce.shm.ag",
     "alltoall.shm.cma"},
    {"bcast.shm.tree.k2", "reduce.shm.dynamic", "barrier.shm.pairwise", "allreduce.shm.dynamic",
     "alltoall.shm.direct"},
};
/* --node: every method node-aware (virtual nodes of one rank) */
static const char *node_names[NT][NC] = {
    {"bcast.node.dynamic", "reduce.node.dynamic", "barrier.node.dissemination",
     "allreduce.node.dynamic", "alltoall.node.ring"},
    {"bcast.node.binomial", "reduce.node.binomial", "barrier.node.recursive_doubling",
     "allreduce.node.ring", "alltoall.node.linear"},
    {"bcast.node.dynamic", "reduce.node.rabenseifner", "barrier.node.dissemination",
     "allreduce.node.recursive_doubling", "alltoall.node.ring"},
    {"bcast.node.knomial.k4", "reduce.node.dynamic", "barrier.node.recursive_doubling",
     "allreduce.node.dynamic", "alltoall.node.linear"},
    {"bcast.node.dynamic", "reduce.node.knomial.k4", "barrier.node.dissemination",
     "allreduce.node.knomial.k4", "alltoall.node.ring"},
    {"bcast.node.scatter_ringallgather", "reduce.node.dynamic", "barrier.node.dissemination",
     "allreduce.node.rabenseifner", "alltoall.node.linear"},
};
static int node_mode;

static int run(const char *name, MPI_Comm comm, int it, int *buf, int *res)
{
    static _Thread_local int a2a_send[8 * N], a2a_recv[8 * N];
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
    } else if (coll == CS_ALLREDUCE) {
        for (int i = 0; i < N; i++)
            buf[i] = rank + i + it, res[i] = -1;
        rc = cs_call_allreduce(&c, buf, res, N, MPI_INT, MPI_SUM, comm);
    } else if (coll == CS_ALLTOALL) {
        if (size > 8)
            return 1;
        for (int i = 0; i < N * size; i++) /* block i / N goes to rank i / N */
            a2a_send[i] = rank * 100000 + (i / N) * 1000 + i % N + it, a2a_recv[i] = -1;
        rc = cs_call_alltoall(&c, a2a_send, N, MPI_INT, a2a_recv, N, MPI_INT, comm);
    } else {
        rc = cs_call_barrier(&c, comm);
    }
    if (rc != MPI_SUCCESS || !m || !cs_method_applies(m, &c))
        return 1;
    static _Thread_local unsigned seed;
    if (!seed)
        seed = 1u + (unsigned)rank * 7919u + (unsigned)(it & 0xff);
    if (strstr(name, ".dynamic"))
        test_arrival_delay(&seed);
    if (cs_method_run(m, &c) != MPI_SUCCESS)
        return 1;
    for (int i = 0; i < N; i++) {
        if (coll == CS_BCAST && buf[i] != it * 1000 + i)
            return 1;
        if ((coll == CS_ALLREDUCE || (coll == CS_REDUCE && rank == root)) &&
            res[i] != size * (size - 1) / 2 + size * (i + it))
            return 1;
    }
    for (int i = 0; coll == CS_ALLTOALL && i < N * size; i++) /* from rank i / N */
        if (a2a_recv[i] != (i / N) * 100000 + rank * 1000 + i % N + it)
            return 1;
    return 0;
}

static void *worker(void *arg)
{
    int t = (int)(long)arg, buf[N], res[N];
    for (int it = 0; it < ITERS; it++) {
        const char *const *row = node_mode ? node_names[t] : names[t];
        for (int k = 0; k < NC; k++)
            failures[t] += run(row[k], comms[t], it, buf, res);
        if (it % 5 == 0) { /* a short-lived sub-communicator */
            int rank;
            MPI_Comm sub;
            MPI_Comm_rank(comms[t], &rank);
            if (node_mode)
                MPI_Comm_dup(comms[t], &sub);
            else
                MPI_Comm_split(comms[t], rank % 2, -rank, &sub);
            for (int k = 0; k < NC; k++)
                failures[t] += run(row[k], sub, it, buf, res);
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
    node_mode = argc > 1 && !strcmp(argv[1], "--node");
    if (node_mode)
        cs_shm_set_node_size(1);
    if (provided != MPI_THREAD_MULTIPLE) {
        if (wrank == 0)
            fprintf(stderr, "threads: FAILED: MPI_THREAD_MULTIPLE asked, %d provided\n", provided);
        MPI_Finalize();
        return 1;
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
        printf("threads%s: %d threads x %d iterations, %d failed calls\n",
               node_mode ? " (node-aware)" : "", NT, ITERS, total);
    MPI_Finalize();
    return total != 0;
}
