/* Barrier: linear gather and release ("barrier.linear").
 *
 * Algorithm: every rank sends a zero-byte message to rank 0 and waits; once
 * rank 0 has received from all p-1 others it releases each of them with a
 * zero-byte message.  The all-to-one / one-to-all barrier (Open MPI
 * coll/basic "linear"; the one-to-all scheme of the Cell BE synchronisation
 * studies): simplest, no forwarding, everything serialised at rank 0.
 * Restrictions: none.
 * Cost: 2 (p-1) alpha on the critical path (rank 0 handles 2 (p-1)
 * messages); no bytes, no computation.
 */
#include "barrier.h"

int cs_barrier_linear(const cs_call *c, const cs_method *m)
{
    (void)m;
    int rc = MPI_SUCCESS;
    if (c->rank != 0) {
        CS_TRY(cs_bar_send(c, 0));
        CS_TRY(cs_bar_recv(c, 0));
    }
    for (int r = 1; c->rank == 0 && r < c->size; r++)
        CS_TRY(cs_bar_recv(c, r));
    for (int r = 1; c->rank == 0 && r < c->size; r++)
        CS_TRY(cs_bar_send(c, r));
out:
    return rc;
}
