/* alltoall.native: the MPI library's own MPI_Alltoall, on the user
 * communicator (its errors go to the user communicator's handler, as
 * without collsel).  Reference: the MPI library in use.  Restrictions:
 * none.  Cost: the library's. */
#include "coll/alltoall/alltoall.h"

int cs_alltoall_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Alltoall(c->sendbuf, c->count, c->dt, c->buf, c->rcount, c->rdt, c->comm);
}
