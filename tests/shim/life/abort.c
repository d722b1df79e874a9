/* An application that never reaches MPI_Finalize.
 *
 *   shim_abort EXPECT abort|exit|full
 *
 * Every rank makes a known set of collectives, writes what it called to
 * EXPECT.RANK (the format of mix.c), synchronises with PMPI_Barrier (not
 * recorded), then the last rank calls MPI_Abort (abort) or exit(3) without
 * MPI_Finalize (exit) while the others wait in MPI_Barrier, to be killed by
 * the launcher (SIGTERM).  Every rank must leave a partial profile.
 * full: the same calls, then a normal MPI_Finalize (the control run).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/profile.h"

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "abort") && strcmp(argv[2], "exit") &&
                     strcmp(argv[2], "full"))) {
        fprintf(stderr, "usage: shim_abort EXPECT abort|exit|full\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int me, np;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);
    double x[64] = {0}, y[64];
    int nb = 3, nr = 5;
    for (int i = 0; i < nb; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < nr; i++)
        MPI_Allreduce(x, y, 8 + i, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 2; i++)
        MPI_Bcast(x, 64, MPI_DOUBLE, np - 1, MPI_COMM_WORLD);

    char path[4096];
    snprintf(path, sizeof path, "%s.%d", argv[1], me);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(f, "%d %d 0 -1 %d\n", CS_R_BARRIER, np, nb);
    for (int i = 0; i < nr; i++)
        fprintf(f, "%d %d %d -1 1\n", CS_R_ALLREDUCE, np, (8 + i) * 8);
    fprintf(f, "%d %d %d %d 2\n", CS_R_BCAST, np, 64 * 8, np - 1);
    fclose(f);

    PMPI_Barrier(MPI_COMM_WORLD);
    if (!strcmp(argv[2], "full")) {
        MPI_Finalize();
        return 0;
    }
    if (me == np - 1) {
        if (!strcmp(argv[2], "abort"))
            MPI_Abort(MPI_COMM_WORLD, 3);
        exit(3);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* never completes */
    MPI_Finalize();
    return 0;
}
