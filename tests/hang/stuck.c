/* A rank stopped inside a run of shared-memory collectives (the stuck-wait
 * report, tests/hang/stuck.sh).
 *   usage: stuck DIR CALLS K STOPPED [allreduce]
 * Every rank writes its pid to DIR/pid.RANK, then calls MPI_Barrier CALLS
 * times (allreduce: an MPI_Allreduce of one int instead, its sum checked);
 * before call K (0-based) rank STOPPED stops itself (SIGSTOP: the others
 * are already waiting for its flag); the test continues it.  Each call is
 * checked with a bcast of the call number from a rotating root afterwards.
 * Exit 0 when every check held. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 5) {
        if (rank == 0)
            fprintf(stderr, "usage: stuck DIR CALLS K STOPPED\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int calls = atoi(argv[2]), k = atoi(argv[3]), stopped = atoi(argv[4]);
    const int allreduce = argc > 5 && !strcmp(argv[5], "allreduce");
    char path[4096];
    snprintf(path, sizeof path, "%s/pid.%d", argv[1], rank);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int it = 0; it < calls; it++) {
        if (it == k && rank == stopped)
            raise(SIGSTOP);
        if (allreduce) {
            int sum = rank + it;
            MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            bad += sum != size * (size - 1) / 2 + size * it;
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
        int v = rank == it % size ? it : -1;
        MPI_Bcast(&v, 1, MPI_INT, it % size, MPI_COMM_WORLD);
        bad += v != it;
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("stuck: %d calls, %d wrong\n", calls, bad);
    MPI_Finalize();
    return bad != 0;
}
