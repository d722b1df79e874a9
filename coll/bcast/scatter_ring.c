/* Bcast: binomial scatter + ring allgather (van de Geijn).
 *
 * Algorithm: scatter the P blocks of the message with a binomial tree
 * (scatter.c), then allgather them around a ring of virtual ranks: in step
 * i = 0 .. P-2 rank v sends block (v - i) mod P to v+1 and receives block
 * (v - i - 1) mod P from v-1 (one PMPI_Sendrecv), so after P-1 steps every
 * rank holds every block.
 *
 *   P = 4, blocks A B C D on v 0 1 2 3:
 *   step 0: 0->1 A, 1->2 B, 2->3 C, 3->0 D
 *   step 1: 0->1 D, 1->2 A, 2->3 B, 3->0 C
 *   step 2: 0->1 C, 1->2 D, 2->3 A, 3->0 B
 *
 * Reference: MPICH bcast_intra_scatter_ring_allgather; Barnett, Shuler,
 * van de Geijn, Gupta, Payne, Watts, "Interprocessor collective
 * communication library (InterCom)", SHPCC 1994; Thakur, Rabenseifner,
 * Gropp, IJHPCA 19(1), 2005.
 * Restrictions: n <= INT_MAX (registry applies()); any P, any n >= 1 (with
 * n < P some blocks are empty and move as empty messages).
 * Cost: (log2(P) + P - 1) alpha + 2 ((P-1)/P) n beta: bandwidth-optimal
 * for long messages, P alpha latency.
 */
#include "bcast.h"

int cs_bcast_scatter_ringallgather(const cs_call *c, const cs_method *m)
{
    (void)m;
    if (c->size < 2 || c->bytes == 0)
        return MPI_SUCCESS;
    int P = c->size, v = (c->rank - c->root + P) % P;
    int right = (c->rank + 1) % P, left = (c->rank - 1 + P) % P;
    cs_bcast_bytes b;
    int rc;
    CS_TRY(cs_bcast_bytes_get(c, &b));
    CS_TRY(cs_bcast_scatter(c, b.p));
    for (int i = 0; i < P - 1; i++) {
        size_t soff, slen, roff, rlen;
        cs_bcast_block_range(c->bytes, P, (v - i + P) % P, 1, &soff, &slen);
        cs_bcast_block_range(c->bytes, P, (v - i - 1 + 2 * P) % P, 1, &roff, &rlen);
        CS_TRY(PMPI_Sendrecv(b.p + soff, (int)slen, MPI_BYTE, right, CS_TAG_BCAST, b.p + roff,
                             (int)rlen, MPI_BYTE, left, CS_TAG_BCAST, c->pcomm,
                             MPI_STATUS_IGNORE));
    }
out:
    return cs_bcast_bytes_put(c, &b, rc);
}
