/* reduce.native: the MPI library's own MPI_Reduce, on the user communicator
 * (its errors go to the user communicator's handler, as without collsel).
 * Reference: the MPI library in use.  Restrictions: none.  Cost: the
 * library's. */
#include "coll/reduce/reduce.h"

int cs_reduce_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Reduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->root, c->comm);
}
