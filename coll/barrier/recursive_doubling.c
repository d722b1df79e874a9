/* Barrier: recursive doubling / pairwise exchange
 * ("barrier.recursive_doubling").
 *
 * Algorithm: let q be the largest power of two <= p.  Ranks r >= q ("extra"
 * ranks) first signal rank r - q and wait for its release.  Ranks r < q then
 * exchange zero-byte messages with r XOR 1, r XOR 2, ..., r XOR q/2 (after
 * round i each knows that the 2^(i+1) ranks of its block have entered), and
 * finally release their extra partner r + q, if any.  Butterfly barrier of
 * Brooks, "The butterfly barrier", IJPP 15(4), 1986; Open MPI coll/base
 * "recursivedoubling" (same non-power-of-two fix-up).
 * Restrictions: none.
 * Cost: log2(q) alpha for p = q; 2 + floor(log2 p) alpha otherwise; no bytes.
 */
#include "barrier.h"

int cs_barrier_recursive_doubling(const cs_call *c, const cs_method *m)
{
    (void)m;
    int p = c->size, r = c->rank, q = 1, rc = MPI_SUCCESS;
    while (q * 2 <= p)
        q *= 2;
    if (r >= q) { /* extra rank: folded onto r - q */
        CS_TRY(cs_bar_send(c, r - q));
        CS_TRY(cs_bar_recv(c, r - q));
        goto out;
    }
    if (r + q < p)
        CS_TRY(cs_bar_recv(c, r + q));
    for (int mask = 1; mask < q; mask <<= 1)
        CS_TRY(cs_bar_sendrecv(c, r ^ mask, r ^ mask));
    if (r + q < p)
        CS_TRY(cs_bar_send(c, r + q));
out:
    return rc;
}
