/* allreduce.native: the MPI library's own MPI_Allreduce, on the user communicator
 * (its errors go to the user communicator's handler, as without collsel).
 * Reference: the MPI library in use.  Restrictions: none.  Cost: the
 * library's. */
#include "coll/allreduce/allreduce.h"

int cs_allreduce_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Allreduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->comm);
}
