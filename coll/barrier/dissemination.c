/* Barrier: dissemination ("barrier.dissemination").
 *
 * Algorithm: in round k = 0, 1, ..., ceil(log2 p) - 1 every rank r signals
 * rank (r + 2^k) mod p and waits for the signal of rank (r - 2^k) mod p.
 * After round k, r has (transitively) heard from the 2^(k+1) ranks r,
 * r-1, ..., so after the last round from all p.  No fix-up needed for
 * non-powers of two.  Hensgen, Finkel & Manber, "Two algorithms for barrier
 * synchronization", IJPP 17(1), 1988; the MPICH barrier (radix 2).
 * Restrictions: none.
 * Cost: ceil(log2 p) alpha, every rank busy in every round; no bytes.
 */
#include "barrier.h"

int cs_barrier_dissemination(const cs_call *c, const cs_method *m)
{
    (void)m;
    int p = c->size, r = c->rank, rc = MPI_SUCCESS;
    for (int d = 1; d < p; d <<= 1)
        CS_TRY(cs_bar_sendrecv(c, (r + d) % p, (r - d + p) % p));
out:
    return rc;
}
