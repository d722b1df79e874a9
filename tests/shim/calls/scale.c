/* Recording at scale: many communicators of many sizes and thousands of
 * distinct (communicator size, message size) cells.
 *
 *   shim_scale EXPECT [BINS]
 *
 * For every s in 1..P the ranks split MPI_COMM_WORLD into groups of s
 * consecutive ranks (the last group smaller), so each rank holds P
 * communicators and together they have every size 1..P.  On each, for the
 * message-size bins 0..BINS (default 48: 0 B to about 3.4 KiB, one size
 * per quarter octave), MPI_Allreduce, MPI_Bcast, MPI_Reduce and
 * MPI_Allgather once: up to 4 x P x (BINS + 1) cells per rank.  Rank 0
 * writes what the whole job called to EXPECT (one line per cell, the
 * format of mix.c; counts reduced over ranks with PMPI).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/profile.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, bins = argc > 2 ? atoi(argv[2]) : 48;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2 || bins < 0 || bins >= CS_NBINS) {
        if (me == 0)
            fprintf(stderr, "usage: shim_scale EXPECT [BINS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    enum { AR, BC, RE, AG, NC };
    static const int rcoll[NC] = {CS_R_ALLREDUCE, CS_R_BCAST, CS_R_REDUCE, CS_R_ALLGATHER};
    size_t ncount = (size_t)NC * (size_t)(np + 1) * (size_t)(bins + 1);
    long *count = calloc(ncount, sizeof *count), *all = calloc(ncount, sizeof *all);
    uint64_t maxb = cs_bin_lo(bins);
    unsigned char *a = calloc(maxb + 1, 1), *b = calloc((maxb + 1) * (size_t)np, 1);
    if (!count || !all || !a || !b)
        MPI_Abort(MPI_COMM_WORLD, 3);
#define COUNT(c, s, k) count[((size_t)(c) * (size_t)(np + 1) + (size_t)(s)) * (size_t)(bins + 1) + (size_t)(k)]
    for (int s = 1; s <= np; s++) {
        MPI_Comm comm;
        int n;
        PMPI_Comm_split(MPI_COMM_WORLD, me / s, me, &comm);
        PMPI_Comm_size(comm, &n);
        for (int k = 0; k <= bins; k++) {
            int bytes = (int)cs_bin_lo(k);
            MPI_Allreduce(a, b, bytes, MPI_BYTE, MPI_BOR, comm);
            MPI_Bcast(a, bytes, MPI_BYTE, 0, comm);
            MPI_Reduce(a, b, bytes, MPI_BYTE, MPI_BOR, 0, comm);
            MPI_Allgather(a, bytes, MPI_BYTE, b, bytes, MPI_BYTE, comm);
            for (int c = 0; c < NC; c++)
                COUNT(c, n, k)++;
        }
        MPI_Comm_free(&comm); /* MPI_: the shim forgets the handle */
    }
    PMPI_Reduce(count, all, (int)ncount, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        FILE *f = fopen(argv[1], "w");
        if (!f) {
            perror(argv[1]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        long cells = 0, calls = 0;
        for (int c = 0; c < NC; c++)
            for (int s = 1; s <= np; s++)
                for (int k = 0; k <= bins; k++) {
                    long x = all[((size_t)c * (size_t)(np + 1) + (size_t)s) * (size_t)(bins + 1) + (size_t)k];
                    if (!x)
                        continue;
                    fprintf(f, "%d %d %llu %d %ld\n", rcoll[c], s, (unsigned long long)cs_bin_lo(k),
                            c == BC || c == RE ? 0 : -1, x);
                    cells++;
                    calls += x;
                }
        fclose(f);
        printf("shim_scale: %d ranks, %ld cells, %ld rank calls\n", np, cells, calls);
    }
    free(count);
    free(all);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
