/* Benchmark (not a test): every applicable reduce method against native,
 * MPI_INT + MPI_SUM, root 0, at a few message sizes, in one run.  A
 * round is a barrier then one reduce; its time is the maximum over ranks;
 * each method gets `reps` rounds after 2 warm-up rounds and reports the
 * median, and its ratio to native (< 1: faster than native).
 *
 * Usage: mpirun -n P bench_reduce [--reps N] [--only PREFIX] [BYTES ...]
 * (default sizes 8, 4096, 65536, 1048576). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/reduce/reduce.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double measure(const cs_method *m, const cs_call *c, int reps, double *t)
{
    for (int r = -2; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        cs_method_run(m, c);
        double dt = MPI_Wtime() - t0, mx;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= 0)
            t[r] = mx;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    return t[reps / 2];
}

int main(int argc, char **argv)
{
    int rank, size, reps = 21, nsizes = 0;
    long sizes[32];
    const char *only = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (nsizes < 32)
            sizes[nsizes++] = atol(argv[i]);
    }
    if (nsizes == 0) {
        long d[] = {8, 4096, 65536, 1048576};
        memcpy(sizes, d, sizeof d);
        nsizes = 4;
    }
    if (reps < 1)
        reps = 1;
    double *t = malloc((size_t)reps * sizeof *t);
    if (rank == 0)
        printf("# np %d, MPI_INT MPI_SUM root 0, median of %d rounds\n%-32s %10s %12s %8s\n",
               size, reps, "method", "bytes", "median_us", "ratio");
    for (int si = 0; si < nsizes; si++) {
        int count = (int)(sizes[si] / 4);
        int *sb = malloc((size_t)count * 4 + 4), *rb = malloc((size_t)count * 4 + 4);
        for (int i = 0; i < count; i++)
            sb[i] = rank + i;
        double native = 0;
        for (int mi = 0; mi < cs_reduce_nmethods; mi++) {
            const cs_method *m = &cs_reduce_methods[mi];
            if (mi > 0 && only && strncmp(m->name, only, strlen(only)) != 0)
                continue;
            cs_call c;
            cs_call_reduce(&c, sb, rb, count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            if (m->applies && !m->applies(&c, m))
                continue;
            double med = measure(m, &c, reps, t);
            if (mi == 0)
                native = med;
            if (rank == 0)
                printf("%-32s %10ld %12.1f %8.2f\n", m->name, sizes[si], med * 1e6,
                       native > 0 ? med / native : 0.0);
        }
        free(sb);
        free(rb);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
