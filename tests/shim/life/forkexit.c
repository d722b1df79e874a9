/* shim_forkexit PIDFILE: each rank forks a helper process after MPI_Init
 * that outlives the rank and then exit()s (atexit hooks run).  It inherits
 * the shim's atexit hook and signal handlers; neither may leave partial
 * files for the rank (forkexit.sh checks that the profile stays complete).
 * The helpers' pids go to PIDFILE.RANK so that the script can wait for them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    pid_t parent = getpid(), child = fork();
    if (child == 0) {
        /* wait (at most 10 s) until the rank is gone, then exit normally */
        for (int i = 0; i < 1000 && getppid() == parent; i++)
            usleep(10000);
        exit(0);
    }
    if (child > 0 && argc > 1) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", argv[1], rank);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%ld\n", (long)child);
            fclose(f);
        }
    }
    MPI_Bcast(&rank, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return child < 0;
}
