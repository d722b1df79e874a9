/* Bcast: the binomial scatter shared by the two scatter-allgather methods
 * (scatter_rd.c, scatter_ring.c).
 *
 * Algorithm: the n bytes are cut into P blocks of ceil(n/P) bytes, block j
 * belonging to virtual rank j (v = (rank - root + P) % P); trailing blocks
 * may be short or empty.  Down a binomial tree (parent of v: v with its
 * lowest set bit cleared) each rank receives the blocks of its whole
 * subtree [v, v + min(lowbit(v), P - v)) in one message and passes each
 * child c = v + 2^j its subtree's blocks, largest first.  Afterwards rank v
 * holds block v (and its subtree's).
 * Reference: MPICH MPII_Scatter_for_bcast (bcast_intra_scatter_*);
 * Thakur, Rabenseifner, Gropp, "Optimization of collective communication
 * operations in MPICH", IJHPCA 19(1), 2005.
 * Restrictions: n <= INT_MAX (one message per subtree); any P, any n >= 1.
 * Cost: ceil(log2 P) alpha + ((P-1)/P) n beta.
 */
#include <limits.h>

#include "bcast.h"

void cs_bcast_block_range(size_t n, int size, int first, int nblocks, size_t *off, size_t *len)
{
    size_t bs = (n + (size_t)size - 1) / (size_t)size;
    size_t lo = (size_t)first * bs, hi = (size_t)(first + nblocks) * bs;
    lo = lo < n ? lo : n;
    hi = hi < n ? hi : n;
    *off = lo;
    *len = hi - lo;
}

int cs_bcast_scatter(const cs_call *c, char *p)
{
    int P = c->size, v = (c->rank - c->root + P) % P, rc = MPI_SUCCESS;
    int span = 1; /* lowbit(v); for the root the first power of two >= P */
    while (span < P && !(v & span))
        span <<= 1;
    size_t off, len;
    if (v != 0) {
        cs_bcast_block_range(c->bytes, P, v, span < P - v ? span : P - v, &off, &len);
        CS_TRY(PMPI_Recv(p + off, (int)len, MPI_BYTE, (v - span + c->root) % P, CS_TAG_BCAST,
                         c->pcomm, MPI_STATUS_IGNORE));
    }
    for (int mask = span >> 1; mask > 0; mask >>= 1) {
        int child = v + mask;
        if (child >= P)
            continue;
        cs_bcast_block_range(c->bytes, P, child, mask < P - child ? mask : P - child, &off, &len);
        CS_TRY(PMPI_Send(p + off, (int)len, MPI_BYTE, (child + c->root) % P, CS_TAG_BCAST,
                         c->pcomm));
    }
out:
    return rc;
}

/* applies() of the scatter-allgather bcasts: their blocks are counted in
 * int. */
int cs_bcast_applies_int_bytes(const cs_call *c, const cs_method *m)
{
    (void)m;
    return c->bytes <= INT_MAX;
}
