/* bcast.native: the MPI library's own MPI_Bcast, on the user communicator
 * (its errors go to the user communicator's handler, as without collsel).
 * Reference: the MPI library in use.  Restrictions: none.  Cost: the
 * library's. */
#include "coll/bcast/bcast.h"

int cs_bcast_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Bcast(c->buf, c->count, c->dt, c->root, c->comm);
}
