/* A job that is killed without warning (SIGKILL, the out-of-memory killer)
 * while recording with periodic snapshots (COLLSEL_RECORD_INTERVAL).
 *
 *   shim_killed OUT idle|busy|hang
 *
 * Every rank makes a known set of collectives (world, a split
 * communicator, from two threads when it can), writes what it called to
 * OUT.expect.RANK (the format of mix.c) and its process id to OUT.pid.RANK,
 * then:
 *   idle  sleeps until killed;
 *   busy  keeps calling an 8-byte MPI_Bcast on MPI_COMM_SELF (a cell of
 *         communicator size 1, kept out of the expectation) until killed,
 *         writing how many it made to OUT.busy.RANK every 1000 calls: the
 *         snapshots are taken while the thread records;
 *   hang  blocks in a collective that never completes (ranks > 0 in
 *         MPI_Barrier, rank 0 in a receive nobody sends).
 * The test kills it and checks that the partial files hold every call made
 * before the last interval.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/profile.h"

static int me, np;

static void *second_thread(void *arg)
{
    MPI_Comm c = *(MPI_Comm *)arg;
    int x = me, y;
    for (int i = 0; i < 7; i++)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, c);
    return NULL;
}

static void write_file(const char *out, const char *what, const char *text)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s.%s.%d", out, what, me);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "idle") && strcmp(argv[2], "busy") && strcmp(argv[2], "hang"))) {
        fprintf(stderr, "usage: shim_killed OUT idle|busy|hang\n");
        return 2;
    }
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);
    double x[512] = {0}, y[512];
    MPI_Comm half, dup = MPI_COMM_NULL;
    PMPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    int hn;
    PMPI_Comm_size(half, &hn);
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 5; i++)
        MPI_Allreduce(x, y, 8 + i, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        MPI_Bcast(x, 512, MPI_DOUBLE, 0, half);
    int threads = provided == MPI_THREAD_MULTIPLE;
    if (threads) { /* a second thread's table, on its own communicator */
        pthread_t t;
        PMPI_Comm_dup(MPI_COMM_WORLD, &dup);
        pthread_create(&t, NULL, second_thread, &dup);
        pthread_join(t, NULL);
    }

    char text[1024];
    int n = snprintf(text, sizeof text, "%d %d 0 -1 3\n", CS_R_BARRIER, np);
    for (int i = 0; i < 5; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%d %d %d -1 1\n", CS_R_ALLREDUCE, np,
                      (8 + i) * 8);
    n += snprintf(text + n, sizeof text - (size_t)n, "%d %d %d 0 4\n", CS_R_BCAST, hn, 512 * 8);
    if (threads)
        n += snprintf(text + n, sizeof text - (size_t)n, "%d %d 4 -1 7\n", CS_R_ALLREDUCE, np);
    write_file(argv[1], "expect", text);
    snprintf(text, sizeof text, "%ld\n", (long)getpid());
    write_file(argv[1], "pid", text);

    if (!strcmp(argv[2], "idle")) {
        for (;;)
            sleep(1);
    } else if (!strcmp(argv[2], "busy")) {
        char b[8] = {0};
        for (long i = 1;; i++) {
            MPI_Bcast(b, 8, MPI_BYTE, 0, MPI_COMM_SELF);
            if (i % 1000 == 0) {
                snprintf(text, sizeof text, "%ld\n", i);
                write_file(argv[1], "busy", text);
            }
        }
    } else if (me == 0) {
        int v;
        PMPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize(); /* never reached */
    return 0;
}
