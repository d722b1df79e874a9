/* mixed_app: a fixed mix of collectives with known counts, for recording
 * tests.  Rank 0 prints what a recorder must see, one line per
 * (collective, communicator size, exact bytes per rank) with the number of
 * operations and the root behaviour, in the form
 *   expect,COLLECTIVE,COMM_SIZE,BYTES,OPS,ROOT_MODE
 * (collective names and root modes as `collsel show --csv` prints them), and
 * checks the data of every call so that a broken replacement is noticed:
 * exit 0 if all results are right, 1 otherwise. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, errors;

static void expect(const char *coll, int comm, long bytes, int ops, const char *root)
{
    if (rank == 0)
        printf("expect,%s,%d,%ld,%d,%s\n", coll, comm, bytes, ops, root);
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "mixed_app: rank %d: wrong result of %s\n", rank, what);
        errors++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { BIG = 1 << 17 }; /* ints: 512 KiB */
    int *big = malloc(BIG * sizeof *big), *all = malloc((size_t)size * 4 * sizeof *all);
    int v[4], r[4];

    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    expect("Barrier", size, 0, 3, "none");

    for (int i = 0; i < 5; i++) { /* 8 bytes, root 0 */
        v[0] = rank == 0 ? 100 + i : -1;
        v[1] = rank == 0 ? i : -1;
        MPI_Bcast(v, 2, MPI_INT, 0, MPI_COMM_WORLD);
        check(v[0] == 100 + i && v[1] == i, "Bcast 8 B");
    }
    expect("Bcast", size, 8, 5, "zero");

    int vroot = 0;
    for (int i = 0; i < 4; i++) { /* 512 KiB, root varies */
        vroot = i % size;
        for (int j = 0; j < BIG; j++)
            big[j] = rank == vroot ? j ^ i : 0;
        MPI_Bcast(big, BIG, MPI_INT, vroot, MPI_COMM_WORLD);
        int ok = 1;
        for (int j = 0; j < BIG; j++)
            ok &= big[j] == (j ^ i);
        check(ok, "Bcast 512 KiB");
    }
    expect("Bcast", size, (long)BIG * 4, 4, size > 1 ? "varying" : "zero");

    int froot = size - 1;
    for (int i = 0; i < 4; i++) { /* 12 bytes, fixed root size-1 */
        v[0] = rank, v[1] = 1, v[2] = i;
        MPI_Reduce(v, r, 3, MPI_INT, MPI_SUM, froot, MPI_COMM_WORLD);
        if (rank == froot)
            check(r[0] == size * (size - 1) / 2 && r[1] == size && r[2] == i * size, "Reduce");
    }
    expect("Reduce", size, 12, 4, froot ? "fixed" : "zero");

    for (int i = 0; i < 7; i++) {
        v[0] = rank + i;
        MPI_Allreduce(v, r, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        check(r[0] == size - 1 + i, "Allreduce");
    }
    expect("Allreduce", size, 4, 7, "none");

    v[0] = rank;
    MPI_Gather(v, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; rank == 0 && i < size; i++)
        check(all[i] == i, "Gather");
    expect("Gather", size, 4, 1, "zero");

    MPI_Allgather(v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        check(all[i] == i, "Allgather");
    expect("Allgather", size, 4, 1, "none");

    for (int i = 0; i < size; i++)
        all[i] = rank * 1000 + i;
    MPI_Alltoall(all, 1, MPI_INT, all + size, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        check(all[size + i] == i * 1000 + rank, "Alltoall");
    expect("Alltoall", size, 4, 1, "none");

    MPI_Scan(v, r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(r[0] == rank * (rank + 1) / 2, "Scan");
    expect("Scan", size, 4, 1, "none");

    MPI_Request req;
    v[0] = rank == 0 ? 42 : 0;
    MPI_Ibcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(v[0] == 42, "Ibcast");
    expect("Ibcast", size, 4, 1, "zero");

    /* halves of the world: Bcast and Reduce on a sub-communicator */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hsize;
    MPI_Comm_size(half, &hsize);
    for (int i = 0; i < 6; i++) {
        double d[2] = {rank % 2 + 0.5, i};
        int hr;
        MPI_Comm_rank(half, &hr);
        if (hr != 0)
            d[0] = d[1] = -1;
        MPI_Bcast(d, 2, MPI_DOUBLE, 0, half);
        check(d[0] == rank % 2 + 0.5 && d[1] == i, "Bcast on half");
        MPI_Reduce(&d[1], &d[0], 1, MPI_DOUBLE, MPI_SUM, 0, half);
        if (hr == 0)
            check(d[0] == (double)i * hsize, "Reduce on half");
    }
    /* the halves have (size+1)/2 and size/2 ranks: one cell each, or one
     * cell with both when they are equally large */
    int h0 = (size + 1) / 2, h1 = size / 2;
    for (int h = 0; h < 2; h++) {
        int hs = h ? h1 : h0;
        if (hs == 0 || (h == 1 && h1 == h0))
            continue;
        expect("Bcast", hs, 16, h0 == h1 ? 2 * 6 : 6, "zero");
        expect("Reduce", hs, 8, h0 == h1 ? 2 * 6 : 6, "zero");
    }
    MPI_Comm_free(&half);

    int bad = 0;
    MPI_Reduce(&errors, &bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    expect("Reduce", size, 4, 1, "zero");
    if (rank == 0 && bad)
        fprintf(stderr, "mixed_app: %d wrong results\n", bad);
    free(big);
    free(all);
    MPI_Finalize();
    return rank == 0 && bad ? 1 : 0;
}
