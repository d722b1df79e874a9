/* Barrier: double ring ("barrier.double_ring").
 *
 * Algorithm: a token goes twice around the ring 0 -> 1 -> ... -> p-1 -> 0.
 * Rank 0 starts it; every other rank forwards it to its right neighbour
 * after receiving it from the left.  When the token is back at rank 0 after
 * the first lap every rank has entered; the second lap is the release
 * (a rank leaves once it has forwarded the second token).  Open MPI
 * coll/base "doublering" barrier.
 * Restrictions: none.
 * Cost: 2 p alpha (strictly sequential); no bytes.  Only competitive for
 * very small p, kept as a measured candidate.
 */
#include "barrier.h"

int cs_barrier_double_ring(const cs_call *c, const cs_method *m)
{
    (void)m;
    int left = (c->rank + c->size - 1) % c->size, right = (c->rank + 1) % c->size;
    int rc = MPI_SUCCESS;
    for (int lap = 0; c->size > 1 && lap < 2; lap++) {
        if (c->rank > 0)
            CS_TRY(cs_bar_recv(c, left));
        CS_TRY(cs_bar_send(c, right));
        if (c->rank == 0)
            CS_TRY(cs_bar_recv(c, left));
    }
out:
    return rc;
}
