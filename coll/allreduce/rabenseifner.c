/* Allreduce: Rabenseifner's algorithm ("allreduce.rabenseifner").
 *
 * Algorithm: fold the p ranks onto the largest power of two npart <= p
 * (fold.c); reduce-scatter by recursive halving among the npart leaders
 * (round i: exchange half of the current range of blocks with the partner
 * at distance npart / 2^(i+1), combine the kept half), after which leader j
 * holds block j fully reduced; allgather by recursive doubling (the same
 * exchanges in reverse, no combining); unfold.  Every block is reduced once,
 * at one leader, and copied: the same bits everywhere.  Rabenseifner,
 * "Optimization of collective reduction operations", ICCS 2004; Open MPI's
 * algorithm 6, MPICH's reduce_scatter_allgather.
 * Restrictions: commutative ops, count >= p.
 * Cost: 2 log2(p) alpha + 2 (p - 1)/p n beta + (p - 1)/p n gamma (plus the
 * fold: one vector each way for the folded ranks).
 */
#include <stdlib.h>

#include "allreduce.h"

int cs_allreduce_rabenseifner(const cs_call *c, const cs_method *m)
{
    (void)m;
    if (c->count == 0)
        return MPI_SUCCESS;
    const int p = c->size, npart = cs_allreduce_pow_below(p, 2);
    char *raw = NULL, *tmp = NULL, *acc;
    int *disp = NULL, leader = 0, rc;
    cs_rtype t;
    CS_TRY(cs_reduce_rtype(c->dt, &t));
    tmp = cs_reduce_tmp(&t, c->count, &raw);
    disp = malloc(sizeof *disp * (size_t)(npart + 1));
    if (!tmp || !disp) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    CS_TRY(cs_allreduce_fold_in(c, &t, npart, &leader, &acc, tmp));
    if (leader) {
        char *buf = c->buf;
        if (acc != buf)
            CS_TRY(cs_reduce_copy(c, &t, acc, buf, c->count));
        const int j = cs_allreduce_part_of(p, npart, c->rank);
        for (int i = 0; i <= npart; i++) /* block i = [disp[i], disp[i+1]) */
            disp[i] = (int)cs_piece_at((size_t)c->count, npart, i);
#define AT(b, i) ((b) + (MPI_Aint)disp[i] * t.extent)
        int lo = 0;
        for (int mask = npart / 2; mask >= 1; mask /= 2) { /* reduce-scatter */
            int peer, hi_;
            cs_allreduce_range(p, npart, j ^ mask, &peer, &hi_);
            const int keep = j & mask ? lo + mask : lo, give = j & mask ? lo : lo + mask;
            const int nkeep = disp[keep + mask] - disp[keep];
            const int ngive = disp[give + mask] - disp[give];
            CS_TRY(PMPI_Sendrecv(AT(buf, give), ngive, c->dt, peer, CS_TAG_ALLREDUCE,
                                 AT(tmp, keep), nkeep, c->dt, peer, CS_TAG_ALLREDUCE, c->pcomm,
                                 MPI_STATUS_IGNORE));
            CS_TRY(PMPI_Reduce_local(AT(tmp, keep), AT(buf, keep), nkeep, c->dt, c->op));
            lo = keep;
        }
        for (int mask = 1; mask < npart; mask *= 2) { /* allgather */
            int peer, hi_;
            cs_allreduce_range(p, npart, j ^ mask, &peer, &hi_);
            const int mine = j & ~(mask - 1), theirs = mine ^ mask;
            CS_TRY(PMPI_Sendrecv(AT(buf, mine), disp[mine + mask] - disp[mine], c->dt, peer,
                                 CS_TAG_ALLREDUCE, AT(buf, theirs),
                                 disp[theirs + mask] - disp[theirs], c->dt, peer,
                                 CS_TAG_ALLREDUCE, c->pcomm, MPI_STATUS_IGNORE));
        }
#undef AT
    }
    CS_TRY(cs_allreduce_fold_out(c, &t, npart, leader, c->buf));
out:
    cs_reduce_tmp_free(raw);
    free(disp);
    return rc;
}
