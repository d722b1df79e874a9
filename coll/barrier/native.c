/* barrier.native: the MPI library's own MPI_Barrier, on the user communicator
 * (its errors go to the user communicator's handler, as without collsel).
 * Reference: the MPI library in use.  Restrictions: none.  Cost: the
 * library's. */
#include "coll/barrier/barrier.h"

int cs_barrier_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Barrier(c->comm);
}
