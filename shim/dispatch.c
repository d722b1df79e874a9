/* Selection: COLLSEL_FORCE and COLLSEL_TREE (owner: dispatch).
 * Initial pass-through version: nothing is selected yet. */
#include "shim.h"

int cs_sel_active[3];

int cs_dispatch_init(void) { return 0; }
void cs_dispatch_finalize(void) {}

int cs_dispatch_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return PMPI_Bcast(buf, count, dt, root, comm);
}

int cs_dispatch_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                       MPI_Op op, int root, MPI_Comm comm)
{
    return PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
}

int cs_dispatch_barrier(MPI_Comm comm) { return PMPI_Barrier(comm); }
