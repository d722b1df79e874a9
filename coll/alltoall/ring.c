/* Alltoall, ring (shifted pairwise): "alltoall.ring".
 *
 * Algorithm: in step i (1 .. p - 1) every rank sends its block for rank
 * + i and receives the block of rank - i (one sendrecv): each step is a
 * cyclic shift, any p.  Open MPI's pairwise alltoall.
 * Restrictions: none (p x block bytes fit an int).
 * Cost: (p - 1) (alpha + n beta), one message each way per step.
 */
#include "alltoall.h"

int cs_alltoall_steps(const cs_call *c, int xor)
{
    const int p = c->size, r = c->rank, n = (int)c->bytes;
    cs_alltoall_bytes b;
    int rc;
    if (!cs_alltoall_begin(c, &b, &rc))
        return rc;
    cs_alltoall_self(c, &b);
    for (int i = 1; i < p; i++) {
        const int dst = xor ? r ^ i : (r + i) % p, src = xor ? dst : (r - i + p) % p;
        CS_TRY(PMPI_Sendrecv(b.s + (size_t)dst * c->bytes, n, MPI_BYTE, dst, CS_TAG_ALLTOALL,
                             b.r + (size_t)src * c->bytes, n, MPI_BYTE, src, CS_TAG_ALLTOALL,
                             c->pcomm, MPI_STATUS_IGNORE));
    }
out:
    return cs_alltoall_bytes_put(c, &b, rc);
}

int cs_alltoall_ring(const cs_call *c, const cs_method *m)
{
    (void)m;
    return cs_alltoall_steps(c, 0);
}
