/* An MPI 4 application that starts MPI with a session, not MPI_Init: a
 * communicator from the "mpi://WORLD" process set, an allreduce and a
 * bcast on it (results checked), then MPI_Session_finalize.  session.sh
 * runs it under collsel exec --record (see shim/wrap_c.c,
 * MPI_Session_init). */
#include <mpi.h>
#include <stdio.h>

int main(void)
{
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != MPI_SUCCESS ||
        MPI_Group_from_session_pset(s, "mpi://WORLD", &g) != MPI_SUCCESS ||
        MPI_Comm_create_from_group(g, "collsel.test.session", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                   &c) != MPI_SUCCESS) {
        fprintf(stderr, "session: cannot start MPI with a session\n");
        return 1;
    }
    int rank, np, sum = 0, x;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &np);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    x = rank == 0 ? 42 : 0;
    MPI_Bcast(&x, 1, MPI_INT, 0, c);
    int ok = sum == np * (np - 1) / 2 && x == 42;
    if (!ok)
        fprintf(stderr, "session: rank %d: sum %d, bcast %d\n", rank, sum, x);
    MPI_Group_free(&g);
    MPI_Comm_free(&c);
    MPI_Session_finalize(&s);
    return ok ? 0 : 1;
}
