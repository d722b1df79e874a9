/* shim_spawn: the parent job (2 ranks) spawns a child job of 2 ranks of
 * this program ("child" argument); the parent calls MPI_Barrier 5 times,
 * the child MPI_Bcast 7 times.  Under recording each job must keep its own
 * profile (spawn.sh). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        MPI_Comm inter;
        int errs[2];
        char *args[] = {"child", NULL};
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        for (int i = 0; i < 5; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_disconnect(&inter);
    } else {
        int x = 1;
        for (int i = 0; i < 7; i++)
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return 0;
}
