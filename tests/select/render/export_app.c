/* MPI program for the export tests: Bcast / Reduce / Barrier / Allreduce
 * over message sizes 4 B .. 1 MiB, results checked.  Prints
 * "collectives ok" on rank 0 and exits 0 when every result was right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int cnt = 1; cnt <= (1 << 18); cnt *= 8) {
        int *b = malloc(sizeof(int) * cnt), *o = malloc(sizeof(int) * cnt);
        for (int rep = 0; rep < 3; rep++) {
            for (int i = 0; i < cnt; i++)
                b[i] = r == 0 ? i : -1;
            MPI_Bcast(b, cnt, MPI_INT, 0, MPI_COMM_WORLD);
            for (int i = 0; i < cnt; i++)
                bad += b[i] != i;
            for (int i = 0; i < cnt; i++)
                b[i] = r + i;
            MPI_Reduce(b, o, cnt, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            for (int i = 0; r == 0 && i < cnt; i++)
                bad += o[i] != n * (n - 1) / 2 + n * i;
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < cnt; i++)
                b[i] = r * 3 + i;
            MPI_Allreduce(b, o, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            for (int i = 0; i < cnt; i++)
                bad += o[i] != 3 * n * (n - 1) / 2 + n * i;
            MPI_Allreduce(MPI_IN_PLACE, b, cnt, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            for (int i = 0; i < cnt; i++)
                bad += b[i] != 3 * (n - 1) + i;
        }
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        free(b);
        free(o);
    }
    if (r == 0)
        printf("collectives %s\n", bad ? "WRONG" : "ok");
    MPI_Finalize();
    return bad != 0;
}
