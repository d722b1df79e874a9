/* A waiting rank maps its receive buffer (coll/shm/prepare.c): for every
 * shared-memory bcast, reduce and allreduce method (cs_method_shm_only,
 * those added later too), 2 ranks, rank 0 late by 60 ms; rank 1 receives
 * 2 MiB into a mapping it has just made (no page mapped yet), once as the
 * first call on a new communicator (the ranks meet in the barrier before
 * its private duplicate) and once on a communicator that has its segment
 * (the method's own waits).  30 ms into rank 1's call, while rank 0 still
 * sleeps, a thread of rank 1 counts the buffer's pages the kernel has
 * mapped (mincore): at least 90 % must be; with COLLSEL's preparation off
 * (cs_shm_set_prepare(0)) at most 10 %, so the check can fail.  A look that
 * came after rank 0 arrived (the looker woken late on a loaded machine;
 * CLOCK_MONOTONIC is the node's) is not judged, but at least one look with
 * the preparation on must be.  Every result is checked (integer-valued
 * doubles).  Where the kernel cannot populate (MADV_POPULATE_WRITE, Linux
 * >= 5.14) there is nothing to judge: skipped (exit 77), saying so.
 *   usage: prepare   (2 ranks) */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "coll/coll.h"
#include "coll/shm/shm.h"

#define BYTES (2u << 20)
#define N (int)(BYTES / sizeof(double))
#define LATE_MS 60
#define LOOK_MS 30

static long failures;

typedef struct {
    const char *buf;
    size_t bytes;
    double share; /* of the pages mapped, LOOK_MS into the call */
    double when;  /* CLOCK_MONOTONIC of the look (the node's clock) */
} look;

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *looker(void *arg)
{
    look *l = arg;
    struct timespec ts = {0, LOOK_MS * 1000000L};
    nanosleep(&ts, NULL);
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096, n = l->bytes / page, in = 0;
    unsigned char *v = malloc(n);
    if (v && mincore((void *)l->buf, n * page, v) == 0)
        for (size_t i = 0; i < n; i++)
            in += v[i] & 1;
    l->share = v ? (double)in / (double)n : -1;
    l->when = mono();
    free(v);
    return NULL;
}

/* The kernel can populate (Linux >= 5.14). */
static int can_populate(void)
{
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    long pg = sysconf(_SC_PAGESIZE);
    void *m = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int ok = m != MAP_FAILED && madvise(m, (size_t)pg, MADV_POPULATE_WRITE) == 0;
    if (m != MAP_FAILED)
        munmap(m, (size_t)pg);
    return ok;
}

/* One call of m on comm, rank 0 late, rank 1's receive buffer just
 * mapped; returns the share of its pages mapped LOOK_MS into the call on
 * rank 1 (-1 elsewhere, or when m does not apply), checks the result. */
static double one(const cs_method *m, enum cs_coll coll, MPI_Comm comm, int rank, int prepare)
{
    cs_shm_set_prepare(prepare);
    char *map =
        mmap(NULL, BYTES + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    double *send = malloc(BYTES);
    if (map == MAP_FAILED || !send) {
        perror("prepare: mmap");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *recv = (double *)(void *)(map + 128); /* not page-aligned */
    for (int i = 0; i < N; i++)
        send[i] = (double)(i % 1000 + rank);
    if (rank == 0) /* the late rank's buffer is not the subject: mapped */
        memcpy(recv, send, BYTES);
    look l = {(const char *)map + 4096, BYTES - 4096, -1, 0};
    pthread_t th;
    int looking = rank == 1 && pthread_create(&th, NULL, looker, &l) == 0;
    if (rank == 0)
        nanosleep(&(struct timespec){0, LATE_MS * 1000000L}, NULL);
    /* cs_call_* makes the private duplicate on a fresh communicator: the
     * ranks meet there first */
    double arrived = mono(); /* rank 0's, sent to rank 1 below */
    cs_call c;
    int rc = coll == CS_BCAST    ? cs_call_bcast(&c, recv, N, MPI_DOUBLE, 0, comm)
             : coll == CS_REDUCE ? cs_call_reduce(&c, send, recv, N, MPI_DOUBLE, MPI_SUM, 1, comm)
                                 : cs_call_allreduce(&c, send, recv, N, MPI_DOUBLE, MPI_SUM, comm);
    int ran = rc == MPI_SUCCESS && cs_method_applies(m, &c);
    if (ran)
        rc = cs_method_run(m, &c);
    if (looking)
        pthread_join(th, NULL);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "FAIL %s: error %d\n", m->name, rc);
        failures++;
    }
    int receives = coll == CS_ALLREDUCE || rank == 1;
    for (int i = 0; ran && receives && i < N; i++) {
        double want = coll == CS_BCAST ? (double)(i % 1000) : (double)(2 * (i % 1000) + 1);
        if (recv[i] != want) {
            if (failures++ < 10)
                fprintf(stderr, "FAIL %s rank %d: element %d is %g, not %g\n", m->name, rank, i,
                        recv[i], want);
            break;
        }
    }
    munmap(map, BYTES + 4096);
    free(send);
    /* a look after rank 0 arrived (a loaded machine woke the looker late)
     * sees the copy's pages, not the wait's: not judged */
    if (rank == 0)
        MPI_Send(&arrived, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
    else
        MPI_Recv(&arrived, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (ran && rank == 1 && l.when >= arrived) {
        printf("skip %s: looked %.1f ms after rank 0 arrived (a loaded machine): not judged\n",
               m->name, 1e3 * (l.when - arrived));
        return -1;
    }
    return ran && rank == 1 ? l.share : -1;
}

/* Judges one look (share < 0: none); returns 1 if it was judged. */
static int judge(const cs_method *m, const char *where, double share, int prepare)
{
    if (share < 0)
        return 0;
    int bad = prepare ? share < 0.9 : share > 0.1;
    printf("%s %s, %s: %.0f %% of the receive pages mapped while rank 0 was late\n",
           bad ? "FAIL" : "ok  ", m->name, where, 100 * share);
    failures += bad;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "prepare: needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    int populate = can_populate(), everywhere;
    MPI_Allreduce(&populate, &everywhere, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!everywhere) {
        if (rank == 0)
            printf("prepare: skipped: the kernel cannot populate (madvise MADV_POPULATE_WRITE "
                   "fails; Linux >= 5.14 can)\n");
        MPI_Finalize();
        return 77;
    }
    int tried = 0, judged_on = 0;
    enum cs_coll colls[] = {CS_BCAST, CS_REDUCE, CS_ALLREDUCE};
    for (int k = 0; k < 3; k++) {
        int n;
        const cs_method *t = cs_methods(colls[k], &n);
        for (int i = 1; i < n; i++) {
            if (!cs_method_shm_only(&t[i]))
                continue;
            for (int prepare = 1; prepare >= 0; prepare--) {
                MPI_Comm comm;
                MPI_Comm_dup(MPI_COMM_WORLD, &comm);
                double first = one(&t[i], colls[k], comm, rank, prepare);
                double later = one(&t[i], colls[k], comm, rank, prepare);
                if (rank == 1) {
                    int j = judge(&t[i], prepare ? "first call" : "first call, preparation off",
                                  first, prepare);
                    j += judge(&t[i], prepare ? "segment made" : "segment made, preparation off",
                               later, prepare);
                    judged_on += prepare * j;
                }
                tried += first >= 0;
                MPI_Comm_free(&comm);
            }
        }
    }
    long all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int any = 0, on = 0;
    MPI_Allreduce(&tried, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&judged_on, &on, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int bad = all || !any || !on;
    if (rank == 0)
        printf("%s: %ld failure(s), %d first-call look(s) judged, %d with the preparation "
               "on%s\n", bad ? "FAIL" : "PASS", all, any, on,
               on ? "" : " (none: every look came too late)");
    MPI_Finalize();
    return bad;
}
