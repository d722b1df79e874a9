/* hello: a small MPI program built against either MPI library (the
 * flavour tests run it under the other library's preload).  Prints the
 * results of a few collectives on rank 0. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0, v = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int one = rank + 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        v = 42;
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hs = 0;
    MPI_Reduce(&one, &hs, 1, MPI_INT, MPI_SUM, 0, half);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("hello: %d ranks, sum %d, bcast %d, half-sum %d\n", size, sum, v, hs);
    MPI_Finalize();
    return 0;
}
