/* Collectives in the application's MPI_COMM_SELF delete callbacks, which
 * MPI_Finalize runs first (libraries clean up there).
 *
 *   shim_selfattr EXPECT
 *
 * Sets two attributes on MPI_COMM_SELF after MPI_Init; their delete
 * callbacks (run inside MPI_Finalize, the second one first) call
 * MPI_Bcast, MPI_Reduce, MPI_Barrier and MPI_Allreduce on MPI_COMM_WORLD
 * and check the results.  The recorded profile must hold these calls too
 * (EXPECT.RANK lists them, mix.c's format), and with COLLSEL_FORCE the
 * results must still be right (our methods still run there).  Exit status
 * 1 if a result is wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "record/profile.h"

static int me, np, wrong;

static int cleanup(MPI_Comm comm, int key, void *attr, void *extra)
{
    (void)comm, (void)key, (void)extra;
    long tag = (long)attr;
    int v[5], sum[5];
    for (int i = 0; i < 5; i++)
        v[i] = me == (int)(tag % np) ? 100 * (int)tag + i : -1;
    MPI_Bcast(v, 5, MPI_INT, (int)(tag % np), MPI_COMM_WORLD);
    for (int i = 0; i < 5; i++)
        if (v[i] != 100 * (int)tag + i)
            wrong++;
    for (int i = 0; i < 5; i++)
        v[i] = me + i;
    MPI_Reduce(v, sum, 5, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int i = 0; me == 0 && i < 5; i++)
        if (sum[i] != np * (np - 1) / 2 + np * i)
            wrong++;
    MPI_Barrier(MPI_COMM_WORLD);
    int w = wrong, all = 0;
    MPI_Allreduce(&w, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (all)
        fprintf(stderr, "shim_selfattr: rank %d: %d wrong results in callback %ld\n", me, all,
                tag);
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: shim_selfattr EXPECT\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);
    for (long t = 1; t <= 2; t++) {
        int key;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cleanup, &key, NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, key, (void *)t);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    char path[4200];
    snprintf(path, sizeof path, "%s.%d", argv[1], me);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    /* the barrier above, then per callback: bcast (root 1 % np, then 2 % np),
     * reduce, barrier, allreduce */
    fprintf(f, "%d %d 0 -1 3\n", CS_R_BARRIER, np);
    fprintf(f, "%d %d %d %d 1\n", CS_R_BCAST, np, 20, 1 % np);
    fprintf(f, "%d %d %d %d 1\n", CS_R_BCAST, np, 20, 2 % np);
    fprintf(f, "%d %d %d 0 2\n", CS_R_REDUCE, np, 20);
    fprintf(f, "%d %d %d -1 2\n", CS_R_ALLREDUCE, np, 4);
    fclose(f);
    int bad = 0;
    MPI_Finalize();
    bad = wrong != 0;
    return bad;
}
