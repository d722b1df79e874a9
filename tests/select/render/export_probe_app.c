/* export_probe_app COLL BYTES: one call of the collective (bcast, reduce,
 * barrier, allreduce, alltoall: BYTES per rank, alltoall BYTES per block;
 * ints, MPI_SUM, root 0) between MPI_Pcontrol(1) and MPI_Pcontrol(0), after
 * one unprobed call of the same (the communicator's setup).  The result is
 * checked against the arithmetic; prints "probe ok" on rank 0 and exits 0
 * when it is right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(const char *coll, int cnt, int r, int n, int *b, int *o)
{
    int bad = 0;
    for (int i = 0; i < cnt * n; i++)
        b[i] = r * 1000 + i, o[i] = -1;
    if (strcmp(coll, "bcast") == 0) {
        MPI_Bcast(b, cnt, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < cnt; i++)
            bad += b[i] != i;
    } else if (strcmp(coll, "reduce") == 0) {
        MPI_Reduce(b, o, cnt, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        for (int i = 0; r == 0 && i < cnt; i++)
            bad += o[i] != 1000 * n * (n - 1) / 2 + n * i;
    } else if (strcmp(coll, "allreduce") == 0) {
        MPI_Allreduce(b, o, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < cnt; i++)
            bad += o[i] != 1000 * n * (n - 1) / 2 + n * i;
    } else if (strcmp(coll, "alltoall") == 0) {
        MPI_Alltoall(b, cnt, MPI_INT, o, cnt, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < cnt * n; i++)
            bad += o[i] != (i / cnt) * 1000 + r * cnt + i % cnt;
    } else if (strcmp(coll, "barrier") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        return -1;
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 3) {
        if (r == 0)
            fprintf(stderr, "usage: export_probe_app COLL BYTES\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int cnt = atoi(argv[2]) / (int)sizeof(int);
    int *b = malloc(sizeof(int) * (size_t)(cnt + 1) * (size_t)n);
    int *o = malloc(sizeof(int) * (size_t)(cnt + 1) * (size_t)n);
    int bad = run(argv[1], cnt, r, n, b, o);
    if (bad < 0) {
        if (r == 0)
            fprintf(stderr, "export_probe_app: unknown collective '%s'\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    bad += run(argv[1], cnt, r, n, b, o);
    MPI_Pcontrol(0);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (r == 0)
        printf("probe %s\n", bad ? "WRONG" : "ok");
    free(b);
    free(o);
    MPI_Finalize();
    return bad != 0;
}
