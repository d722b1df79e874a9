/* shim_sites: call sites in a stripped, -rdynamic program.
 *
 * Built with -O0 -fno-toplevel-reorder and linked -rdynamic -s, so the
 * dynamic symbol table holds collsel_test_tiny_exported and main but not
 * hidden_work, which is laid out right after the tiny function. A call site
 * inside hidden_work must not be named after the tiny function (the nearest
 * preceding symbol, whose size does not reach it); the call in main must be
 * named main.
 */
#include <mpi.h>
#include <stdio.h>

int collsel_test_tiny_exported(int x);
int collsel_test_tiny_exported(int x)
{
    return x + 1;
}

static __attribute__((noinline)) int hidden_work(MPI_Comm comm)
{
    int v[16] = {0};
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        for (int i = 0; i < 16; i++)
            v[i] = collsel_test_tiny_exported(i);
    MPI_Bcast(v, 16, MPI_INT, 0, comm);
    for (int i = 0; i < 16; i++)
        if (v[i] != i + 1)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int bad = hidden_work(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (bad)
        fprintf(stderr, "shim_sites: wrong broadcast data\n");
    MPI_Finalize();
    return bad;
}
