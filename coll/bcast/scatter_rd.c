/* Bcast: binomial scatter + recursive-doubling allgather.
 *
 * Algorithm: scatter the P blocks of the message with a binomial tree
 * (scatter.c), then allgather them by recursive doubling on virtual ranks:
 * in the step of distance `mask` (1, 2, 4, ...) rank v, which holds the
 * blocks of its aligned group [v & ~(mask-1), +mask), swaps that group with
 * its partner v ^ mask, so the held group doubles.  When P is not a power of
 * two the upper group of a pair may be short: a lower rank whose partner
 * does not exist receives the upper group from the upper group's first rank
 * (which exists and serves every such lower rank after its own swap).
 *
 *   P = 8, after scatter v holds block v:  mask 1: 0<->1 2<->3 4<->5 6<->7
 *   mask 2: 0<->2 1<->3 4<->6 5<->7        mask 4: 0<->4 1<->5 2<->6 3<->7
 *   P = 6, mask 4: 0<->4 1<->5, rank 4 also sends {4,5} to 2 and 3.
 *
 * Reference: MPICH bcast_intra_scatter_recursive_doubling_allgather;
 * Thakur, Rabenseifner, Gropp, "Optimization of collective communication
 * operations in MPICH", IJHPCA 19(1), 2005 (Barnett et al. / van de Geijn
 * long-message broadcast).
 * Restrictions: n <= INT_MAX (registry applies()); any P, any n >= 1 (with
 * n < P some blocks are empty and move as empty messages).
 * Cost (P a power of two): 2 log2(P) alpha + 2 ((P-1)/P) n beta; otherwise
 * the first rank of a short upper group adds up to mask-1 sends of its
 * group in that step.
 */
#include "bcast.h"

int cs_bcast_scatter_rdallgather(const cs_call *c, const cs_method *m)
{
    (void)m;
    if (c->size < 2 || c->bytes == 0)
        return MPI_SUCCESS;
    int P = c->size, v = (c->rank - c->root + P) % P;
#define RANK(vr) (((vr) + c->root) % P)
    cs_bcast_bytes b;
    int rc;
    CS_TRY(cs_bcast_bytes_get(c, &b));
    CS_TRY(cs_bcast_scatter(c, b.p));
    for (int mask = 1; mask < P; mask <<= 1) {
        int gs = v & ~(mask - 1), other = gs ^ mask; /* my group, the other group */
        if (other >= P)
            continue; /* the other group is empty: nothing to swap */
        size_t soff, slen, roff, rlen;
        cs_bcast_block_range(c->bytes, P, gs, mask, &soff, &slen);
        cs_bcast_block_range(c->bytes, P, other, mask, &roff, &rlen);
        if ((v ^ mask) < P)
            CS_TRY(PMPI_Sendrecv(b.p + soff, (int)slen, MPI_BYTE, RANK(v ^ mask), CS_TAG_BCAST,
                                 b.p + roff, (int)rlen, MPI_BYTE, RANK(v ^ mask), CS_TAG_BCAST,
                                 c->pcomm, MPI_STATUS_IGNORE));
        else /* lower rank without a partner: from the upper group's first rank */
            CS_TRY(PMPI_Recv(b.p + roff, (int)rlen, MPI_BYTE, RANK(other), CS_TAG_BCAST,
                             c->pcomm, MPI_STATUS_IGNORE));
        if (v == gs && (v & mask)) /* first of an upper group: serve partnerless lower ranks */
            for (int j = P - gs; j < mask; j++)
                CS_TRY(PMPI_Send(b.p + soff, (int)slen, MPI_BYTE, RANK(other + j), CS_TAG_BCAST,
                                 c->pcomm));
    }
out:
    return cs_bcast_bytes_put(c, &b, rc);
#undef RANK
}
