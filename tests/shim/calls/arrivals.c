/* A known arrival pattern for the arrival recording tests (arrivals.sh):
 *
 *   arrivals LATE DELAY_US CALLS [RARE]
 *
 * CALLS times: world rank LATE sleeps DELAY_US, then every rank calls
 * MPI_Barrier on MPI_COMM_WORLD (the others wait for LATE there); then an
 * MPI_Allreduce of 8 bytes on MPI_COMM_WORLD and an MPI_Bcast of 64 bytes
 * on a communicator of the even and one of the odd ranks (two
 * communicators of the same size, each with its own key), without delay.
 * Then RARE (default 6) MPI_Bcast of 4 KiB from rank 0 on MPI_COMM_WORLD:
 * a cell of few calls made long after the communicator's first ones.
 * The results are checked (exit 1 if wrong): recording must not change
 * them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int late = argc > 1 ? atoi(argv[1]) : np - 1;
    long delay = argc > 2 ? atol(argv[2]) : 2000;
    int calls = argc > 3 ? atoi(argv[3]) : 20;
    int rare = argc > 4 ? atoi(argv[4]) : 6;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    for (int i = 0; i < calls; i++) {
        if (me == late) {
            struct timespec ts = {delay / 1000000, (delay % 1000000) * 1000};
            nanosleep(&ts, NULL);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        long v = me + i, sum = 0;
        MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        bad |= sum != (long)np * (np - 1) / 2 + (long)np * i;
        char buf[64];
        for (int k = 0; k < 64; k++)
            buf[k] = (char)(me == 0 || me == 1 ? i + k : 0);
        MPI_Bcast(buf, 64, MPI_CHAR, 0, half);
        for (int k = 0; k < 64; k++)
            bad |= buf[k] != (char)(i + k);
    }
    for (int i = 0; i < rare; i++) {
        static int big[1024];
        for (int k = 0; k < 1024; k++)
            big[k] = me == 0 ? i * k : -1;
        MPI_Bcast(big, 1024, MPI_INT, 0, MPI_COMM_WORLD);
        for (int k = 0; k < 1024; k++)
            bad |= big[k] != i * k;
    }
    MPI_Comm_free(&half);
    if (bad)
        fprintf(stderr, "arrivals: rank %d: wrong results\n", me);
    MPI_Finalize();
    return bad;
}
