/* A known collective mix, run under the shim: every recorded collective
 * (blocking and non-blocking), sizes 0 B .. 8 KB, MPI_COMM_WORLD and a
 * sub-communicator from MPI_Comm_split, roots zero / fixed / varying,
 * MPI_IN_PLACE where the standard allows it, NULL arrays where they are not
 * significant, (2+ ranks) an intercommunicator, and with an MPI 4 library
 * the large-count bindings (MPI_Bcast_c, ...).
 *
 *   shim_mix EXPECT [--threads N]
 *
 * Each rank logs what it called (collective, communicator size, the bytes it
 * contributes by the profile's convention, root); rank 0 gathers the logs
 * with PMPI (not recorded) and writes them to EXPECT, one line per
 * (coll, comm_size, bytes, root): "COLL COMM_SIZE BYTES ROOT RANK_CALLS".
 * shim_check compares that with the recorded profile.
 *
 * --threads N: MPI_THREAD_MULTIPLE, N threads each running the mix on its
 * own duplicate of MPI_COMM_WORLD at the same time.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/profile.h"

#define MAXLOG 4096
#define NOROOT (-1)
#define BUFSZ (1 << 20)

typedef struct ent {
    int32_t coll, root;
    uint32_t comm_size, pad;
    uint64_t bytes, calls;
} ent;

static ent logv[MAXLOG];
static int nlog;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

/* Log one call: on an intercommunicator the size recorded is local +
 * remote group; MPI_ROOT / MPI_PROC_NULL are logged as "no root". */
static void ex(int coll, MPI_Comm comm, uint64_t bytes, int root)
{
    int n, inter, rn = 0;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &rn);
    n += rn;
    if (root < 0)
        root = NOROOT;
    pthread_mutex_lock(&log_mu);
    int i;
    for (i = 0; i < nlog; i++)
        if (logv[i].coll == coll && logv[i].comm_size == (uint32_t)n &&
            logv[i].bytes == bytes && logv[i].root == root)
            break;
    if (i == nlog) {
        if (nlog == MAXLOG) {
            fprintf(stderr, "shim_mix: log full\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        memset(&logv[i], 0, sizeof logv[i]);
        logv[i].coll = coll;
        logv[i].comm_size = (uint32_t)n;
        logv[i].bytes = bytes;
        logv[i].root = root;
        nlog++;
    }
    logv[i].calls++;
    pthread_mutex_unlock(&log_mu);
}

#define NK 4
static const int cnts[NK] = {0, 1, 7, 1000};

static MPI_Datatype type_of(int k)
{
    const MPI_Datatype t[NK] = {MPI_UNSIGNED_CHAR, MPI_INT, MPI_DOUBLE, MPI_INT};
    return t[k];
}

static int root_of(int k, int j, int n)
{
    return k % 3 == 0 ? 0 : k % 3 == 1 ? n - 1 : j % n;
}

static uint64_t mean(const int *c, int n, uint64_t ts)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        s += (uint64_t)c[i];
    return (s * ts + (uint64_t)n / 2) / (uint64_t)n;
}

static void prefix(const int *c, int *d, int n)
{
    d[0] = 0;
    for (int i = 1; i < n; i++)
        d[i] = d[i - 1] + c[i - 1];
}

static void fin(int nb, MPI_Request *rq)
{
    if (nb)
        PMPI_Wait(rq, MPI_STATUS_IGNORE);
}

/* The mix on comm; nb = 1: the non-blocking variants. */
static __attribute__((noinline)) void run_mix(MPI_Comm comm, int nb, char *s, char *r)
{
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    int *c1 = malloc(sizeof(int) * (size_t)n * 6);
    int *d1 = c1 + n, *c2 = c1 + 2 * n, *d2 = c1 + 3 * n;
    MPI_Datatype *tv = malloc(sizeof(MPI_Datatype) * (size_t)n);
    MPI_Request rq;
    for (int k = 0; k < NK; k++) {
        int c = cnts[k];
        MPI_Datatype t = type_of(k);
        int tsi;
        PMPI_Type_size(t, &tsi);
        uint64_t ts = (uint64_t)tsi, b = (uint64_t)c * ts;
        MPI_Op op = MPI_SUM;

        if (nb) MPI_Ibarrier(comm, &rq); else MPI_Barrier(comm);
        fin(nb, &rq);
        ex(nb ? CS_R_IBARRIER : CS_R_BARRIER, comm, 0, NOROOT);

        for (int j = 0; j < 3; j++) {
            int root = root_of(k, j, n);
            if (nb) MPI_Ibcast(s, c, t, root, comm, &rq); else MPI_Bcast(s, c, t, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IBCAST : CS_R_BCAST, comm, b, root);

            const void *sb = me == root && j == 1 ? MPI_IN_PLACE : s;
            if (nb) MPI_Ireduce(sb, r, c, t, op, root, comm, &rq);
            else MPI_Reduce(sb, r, c, t, op, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IREDUCE : CS_R_REDUCE, comm, b, root);

            sb = me == root && j == 1 ? MPI_IN_PLACE : s;
            if (nb) MPI_Igather(sb, c, t, r, c, t, root, comm, &rq);
            else MPI_Gather(sb, c, t, r, c, t, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IGATHER : CS_R_GATHER, comm, b, root);

            void *rb = me == root && j == 1 ? MPI_IN_PLACE : r;
            if (nb) MPI_Iscatter(s, c, t, rb, c, t, root, comm, &rq);
            else MPI_Scatter(s, c, t, rb, c, t, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_ISCATTER : CS_R_SCATTER, comm, b, root);

            for (int i = 0; i < n; i++)
                c2[i] = c + i;
            prefix(c2, d2, n);
            /* arrays significant only at the root: NULL elsewhere */
            int *rc2 = me == root ? c2 : NULL, *rd2 = me == root ? d2 : NULL;
            if (nb) MPI_Igatherv(s, c + me, t, r, rc2, rd2, t, root, comm, &rq);
            else MPI_Gatherv(s, c + me, t, r, rc2, rd2, t, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IGATHERV : CS_R_GATHERV, comm,
               me == root ? mean(c2, n, ts) : (uint64_t)(c + me) * ts, root);

            if (nb) MPI_Iscatterv(s, rc2, rd2, t, r, c + me, t, root, comm, &rq);
            else MPI_Scatterv(s, rc2, rd2, t, r, c + me, t, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_ISCATTERV : CS_R_SCATTERV, comm,
               me == root ? mean(c2, n, ts) : (uint64_t)(c + me) * ts, root);
        }

        for (int j = 0; j < 2; j++) {
            const void *sb = j == 0 ? MPI_IN_PLACE : s;
            if (j == 0)
                memcpy(r, s, b);
            if (nb) MPI_Iallreduce(sb, r, c, t, op, comm, &rq);
            else MPI_Allreduce(sb, r, c, t, op, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLREDUCE : CS_R_ALLREDUCE, comm, b, NOROOT);

            if (nb) MPI_Iallgather(sb, c, t, r, c, t, comm, &rq);
            else MPI_Allgather(sb, c, t, r, c, t, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLGATHER : CS_R_ALLGATHER, comm, b, NOROOT);

            if (nb) MPI_Ialltoall(s, c, t, r, c, t, comm, &rq);
            else MPI_Alltoall(s, c, t, r, c, t, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLTOALL : CS_R_ALLTOALL, comm, b, NOROOT);

            for (int i = 0; i < n; i++)
                c2[i] = c + i;
            prefix(c2, d2, n);
            if (nb) MPI_Iallgatherv(s, c + me, t, r, c2, d2, t, comm, &rq);
            else MPI_Allgatherv(s, c + me, t, r, c2, d2, t, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLGATHERV : CS_R_ALLGATHERV, comm, mean(c2, n, ts), NOROOT);

            /* pairwise counts c + (me+i)%2 are symmetric: send = recv */
            for (int i = 0; i < n; i++) {
                c1[i] = c + (me + i) % 2;
                tv[i] = t;
            }
            prefix(c1, d1, n);
            if (nb) MPI_Ialltoallv(s, c1, d1, t, r, c1, d1, t, comm, &rq);
            else MPI_Alltoallv(s, c1, d1, t, r, c1, d1, t, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLTOALLV : CS_R_ALLTOALLV, comm, mean(c1, n, ts), NOROOT);

            for (int i = 0; i < n; i++)
                d1[i] *= (int)ts; /* alltoallw displacements are in bytes */
            if (nb) MPI_Ialltoallw(s, c1, d1, tv, r, c1, d1, tv, comm, &rq);
            else MPI_Alltoallw(s, c1, d1, tv, r, c1, d1, tv, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLTOALLW : CS_R_ALLTOALLW, comm, mean(c1, n, ts), NOROOT);

            for (int i = 0; i < n; i++)
                c2[i] = c + i % 2;
            if (nb) MPI_Ireduce_scatter(s, r, c2, t, op, comm, &rq);
            else MPI_Reduce_scatter(s, r, c2, t, op, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IREDUCE_SCATTER : CS_R_REDUCE_SCATTER, comm, mean(c2, n, ts), NOROOT);

            if (nb) MPI_Ireduce_scatter_block(s, r, c, t, op, comm, &rq);
            else MPI_Reduce_scatter_block(s, r, c, t, op, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IREDUCE_SCATTER_BLOCK : CS_R_REDUCE_SCATTER_BLOCK, comm, b, NOROOT);

            if (nb) MPI_Iscan(s, r, c, t, op, comm, &rq);
            else MPI_Scan(s, r, c, t, op, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_ISCAN : CS_R_SCAN, comm, b, NOROOT);

            if (nb) MPI_Iexscan(s, r, c, t, op, comm, &rq);
            else MPI_Exscan(s, r, c, t, op, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IEXSCAN : CS_R_EXSCAN, comm, b, NOROOT);
        }
    }
    free(c1);
    free(tv);
}

#if MPI_VERSION >= 4
/* The MPI 4 large-count bindings (MPICH 4), recorded in the same cells as
 * the plain calls: every one of them once per (blocking, non-blocking),
 * counts 0 and 5 ints, roots 0 and last. */
static __attribute__((noinline)) void run_mix_c(MPI_Comm comm, char *s, char *r)
{
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    MPI_Count *cv = malloc(sizeof *cv * (size_t)n);
    MPI_Aint *dv = malloc(sizeof *dv * (size_t)n), *dw = malloc(sizeof *dw * (size_t)n);
    MPI_Datatype *tv = malloc(sizeof *tv * (size_t)n);
    MPI_Request rq;
    for (int k = 0; k < 2; k++)
        for (int nb = 0; nb < 2; nb++) {
            MPI_Count c = k ? 5 : 0;
            uint64_t b = (uint64_t)c * 4;
            int root = k ? n - 1 : 0;
            for (int i = 0; i < n; i++) {
                cv[i] = c;
                dv[i] = (MPI_Aint)(i * c);
                dw[i] = dv[i] * 4;
                tv[i] = MPI_INT;
            }
            if (nb) MPI_Ibcast_c(s, c, MPI_INT, root, comm, &rq); else MPI_Bcast_c(s, c, MPI_INT, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IBCAST : CS_R_BCAST, comm, b, root);
            if (nb) MPI_Ireduce_c(s, r, c, MPI_INT, MPI_SUM, root, comm, &rq);
            else MPI_Reduce_c(s, r, c, MPI_INT, MPI_SUM, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IREDUCE : CS_R_REDUCE, comm, b, root);
            if (nb) MPI_Iallreduce_c(s, r, c, MPI_INT, MPI_SUM, comm, &rq);
            else MPI_Allreduce_c(s, r, c, MPI_INT, MPI_SUM, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLREDUCE : CS_R_ALLREDUCE, comm, b, NOROOT);
            if (nb) MPI_Igather_c(s, c, MPI_INT, r, c, MPI_INT, root, comm, &rq);
            else MPI_Gather_c(s, c, MPI_INT, r, c, MPI_INT, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IGATHER : CS_R_GATHER, comm, b, root);
            if (nb) MPI_Igatherv_c(s, c, MPI_INT, r, cv, dv, MPI_INT, root, comm, &rq);
            else MPI_Gatherv_c(s, c, MPI_INT, r, cv, dv, MPI_INT, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IGATHERV : CS_R_GATHERV, comm, b, root);
            if (nb) MPI_Iscatter_c(s, c, MPI_INT, r, c, MPI_INT, root, comm, &rq);
            else MPI_Scatter_c(s, c, MPI_INT, r, c, MPI_INT, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_ISCATTER : CS_R_SCATTER, comm, b, root);
            if (nb) MPI_Iscatterv_c(s, cv, dv, MPI_INT, r, c, MPI_INT, root, comm, &rq);
            else MPI_Scatterv_c(s, cv, dv, MPI_INT, r, c, MPI_INT, root, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_ISCATTERV : CS_R_SCATTERV, comm, b, root);
            if (nb) MPI_Iallgather_c(s, c, MPI_INT, r, c, MPI_INT, comm, &rq);
            else MPI_Allgather_c(s, c, MPI_INT, r, c, MPI_INT, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLGATHER : CS_R_ALLGATHER, comm, b, NOROOT);
            if (nb) MPI_Iallgatherv_c(s, c, MPI_INT, r, cv, dv, MPI_INT, comm, &rq);
            else MPI_Allgatherv_c(s, c, MPI_INT, r, cv, dv, MPI_INT, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLGATHERV : CS_R_ALLGATHERV, comm, b, NOROOT);
            if (nb) MPI_Ialltoall_c(s, c, MPI_INT, r, c, MPI_INT, comm, &rq);
            else MPI_Alltoall_c(s, c, MPI_INT, r, c, MPI_INT, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLTOALL : CS_R_ALLTOALL, comm, b, NOROOT);
            if (nb) MPI_Ialltoallv_c(s, cv, dv, MPI_INT, r, cv, dv, MPI_INT, comm, &rq);
            else MPI_Alltoallv_c(s, cv, dv, MPI_INT, r, cv, dv, MPI_INT, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLTOALLV : CS_R_ALLTOALLV, comm, b, NOROOT);
            if (nb) MPI_Ialltoallw_c(s, cv, dw, tv, r, cv, dw, tv, comm, &rq);
            else MPI_Alltoallw_c(s, cv, dw, tv, r, cv, dw, tv, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IALLTOALLW : CS_R_ALLTOALLW, comm, b, NOROOT);
            if (nb) MPI_Ireduce_scatter_c(s, r, cv, MPI_INT, MPI_SUM, comm, &rq);
            else MPI_Reduce_scatter_c(s, r, cv, MPI_INT, MPI_SUM, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IREDUCE_SCATTER : CS_R_REDUCE_SCATTER, comm, b, NOROOT);
            if (nb) MPI_Ireduce_scatter_block_c(s, r, c, MPI_INT, MPI_SUM, comm, &rq);
            else MPI_Reduce_scatter_block_c(s, r, c, MPI_INT, MPI_SUM, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IREDUCE_SCATTER_BLOCK : CS_R_REDUCE_SCATTER_BLOCK, comm, b, NOROOT);
            if (nb) MPI_Iscan_c(s, r, c, MPI_INT, MPI_SUM, comm, &rq);
            else MPI_Scan_c(s, r, c, MPI_INT, MPI_SUM, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_ISCAN : CS_R_SCAN, comm, b, NOROOT);
            if (nb) MPI_Iexscan_c(s, r, c, MPI_INT, MPI_SUM, comm, &rq);
            else MPI_Exscan_c(s, r, c, MPI_INT, MPI_SUM, comm);
            fin(nb, &rq);
            ex(nb ? CS_R_IEXSCAN : CS_R_EXSCAN, comm, b, NOROOT);
        }
    free(cv);
    free(dv);
    free(dw);
    free(tv);
}
#endif

/* Runs of identical calls (the shim's memo path) and their transitions:
 * long runs, two sizes of one bin alternating, six sizes of one bin (more
 * than a cell keeps exactly), a root change in the middle of a run. */
static __attribute__((noinline)) void run_repeats(MPI_Comm comm, char *s)
{
    int n;
    PMPI_Comm_size(comm, &n);
    for (int i = 0; i < 50; i++) {
        MPI_Bcast(s, 8, MPI_BYTE, 0, comm);
        ex(CS_R_BCAST, comm, 8, 0);
    }
    for (int i = 0; i < 20; i++) {
        int c = 8 + i % 2;
        MPI_Bcast(s, c, MPI_BYTE, 0, comm);
        ex(CS_R_BCAST, comm, (uint64_t)c, 0);
    }
    for (int k = 0; k < 6; k++)
        for (int i = 0; i < 10 - k; i++) {
            MPI_Bcast(s, 64 + k, MPI_BYTE, 0, comm);
            ex(CS_R_BCAST, comm, (uint64_t)(64 + k), 0);
        }
    for (int i = 0; i < 30; i++) {
        int root = i < 15 ? 0 : n - 1;
        MPI_Reduce(s, s + 4096, 3, MPI_INT, MPI_MAX, root, comm);
        ex(CS_R_REDUCE, comm, 12, root);
        MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE, MPI_MAX, comm);
        ex(CS_R_ALLREDUCE, comm, 8, NOROOT);
    }
}

/* An intercommunicator between the even and the odd ranks: rooted calls
 * from group 0's rank 0 (MPI_ROOT there, MPI_PROC_NULL for the rest of its
 * group, root 0 in group 1), and an Allreduce. */
static __attribute__((noinline)) void run_inter(MPI_Comm sub, int color, char *s, char *r)
{
    MPI_Comm ic;
    int me, n, rn;
    PMPI_Intercomm_create(sub, 0, MPI_COMM_WORLD, 1 - color, 77, &ic);
    PMPI_Comm_rank(ic, &me);
    PMPI_Comm_size(ic, &n);
    PMPI_Comm_remote_size(ic, &rn);
    int root = color == 1 ? 0 : me == 0 ? MPI_ROOT : MPI_PROC_NULL;
    for (int j = 0; j < 3; j++) {
        int c = 10 * (j + 1);
        MPI_Bcast(s, c, MPI_INT, root, ic);
        ex(CS_R_BCAST, ic, root == MPI_PROC_NULL ? 0 : (uint64_t)c * 4, root);
        MPI_Allreduce(s, r, c, MPI_INT, MPI_SUM, ic);
        ex(CS_R_ALLREDUCE, ic, (uint64_t)c * 4, NOROOT);
    }
    int *cnt = malloc(sizeof(int) * (size_t)(rn + n)), *dis = cnt + rn;
    for (int i = 0; i < rn; i++)
        cnt[i] = i + 1;
    prefix(cnt, dis, rn);
    MPI_Gatherv(s, me + 1, MPI_INT, r, cnt, dis, MPI_INT, root, ic);
    ex(CS_R_GATHERV, ic,
       root == MPI_ROOT ? mean(cnt, rn, 4) : root == MPI_PROC_NULL ? 0 : (uint64_t)(me + 1) * 4,
       root);
    free(cnt);
    PMPI_Comm_free(&ic);
}

static void *thread_main(void *arg)
{
    MPI_Comm comm = *(MPI_Comm *)arg;
    char *s = calloc(1, BUFSZ), *r = calloc(1, BUFSZ);
    for (int nb = 0; nb < 2; nb++)
        run_mix(comm, nb, s, r);
    run_repeats(comm, s);
    free(s);
    free(r);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: shim_mix EXPECT [--threads N]\n");
        return 2;
    }
    int nthreads = argc >= 4 && !strcmp(argv[2], "--threads") ? atoi(argv[3]) : 0;
    int me, np, provided = 0;
    if (nthreads > 0) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided < MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "shim_mix: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
            MPI_Abort(MPI_COMM_WORLD, 77);
        }
    } else {
        MPI_Init(&argc, &argv);
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);

    if (nthreads > 0) {
        MPI_Comm comms[16];
        pthread_t th[16];
        if (nthreads > 16)
            nthreads = 16;
        for (int i = 0; i < nthreads; i++)
            PMPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
        for (int i = 0; i < nthreads; i++)
            pthread_create(&th[i], NULL, thread_main, &comms[i]);
        for (int i = 0; i < nthreads; i++)
            pthread_join(th[i], NULL);
        for (int i = 0; i < nthreads; i++)
            PMPI_Comm_free(&comms[i]);
    } else {
        MPI_Comm sub;
        PMPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &sub);
        char *s = calloc(1, BUFSZ), *r = calloc(1, BUFSZ);
        for (int nb = 0; nb < 2; nb++) {
            run_mix(MPI_COMM_WORLD, nb, s, r);
            run_mix(sub, nb, s, r);
        }
#if MPI_VERSION >= 4
        run_mix_c(MPI_COMM_WORLD, s, r);
        run_mix_c(sub, s, r);
#endif
        if (np >= 2)
            run_inter(sub, me % 2, s, r);
        run_repeats(MPI_COMM_WORLD, s);
        PMPI_Comm_free(&sub);
        free(s);
        free(r);
    }

    /* gather every rank's log at rank 0 (PMPI: not recorded) */
    int nbytes = nlog * (int)sizeof(ent);
    int *counts = malloc(sizeof(int) * (size_t)np), *displs = malloc(sizeof(int) * (size_t)np);
    PMPI_Gather(&nbytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    if (me == 0)
        for (int i = 0; i < np; i++) {
            displs[i] = total;
            total += counts[i];
        }
    ent *all = malloc(total > 0 ? (size_t)total : 1);
    PMPI_Gatherv(logv, nbytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    int rc = 0;
    if (me == 0) {
        FILE *f = fopen(argv[1], "w");
        if (!f) {
            perror(argv[1]);
            rc = 1;
        } else {
            for (size_t i = 0; i < (size_t)total / sizeof(ent); i++)
                fprintf(f, "%d %u %llu %d %llu\n", all[i].coll, all[i].comm_size,
                        (unsigned long long)all[i].bytes, all[i].root,
                        (unsigned long long)all[i].calls);
            fclose(f);
        }
    }
    free(all);
    free(counts);
    free(displs);
    MPI_Finalize();
    return rc;
}
