/* Reduce: Rabenseifner ("reduce.rabenseifner"): reduce-scatter by
 * recursive halving, then a binomial gather of the blocks to the root.
 *
 * Algorithm (p ranks, p' = largest power of two <= p, r = p - p'):
 *  1. fold: among ranks 0..2r-1 every even rank sends its vector to the
 *     next odd rank, which combines, and drops out; the p' remaining ranks
 *     get new ranks 0..p'-1 (odd i < 2r -> i/2, i >= 2r -> i - r);
 *  2. reduce-scatter by recursive halving: the count elements are cut into
 *     p' blocks (sizes differ by at most one element); for mask = p'/2 .. 1
 *     a rank exchanges the half of its current block range it gives away
 *     with partner newrank ^ mask and combines the half it keeps; at the
 *     end new rank i owns the fully reduced block i;
 *  3. binomial gather in the same pairs in reverse (mask = 1 .. p'/2): of
 *     each pair of block groups, the group holding the (new) root -- or the
 *     lower group when neither does -- receives the other's blocks;
 *  4. when the root dropped out in step 1, its partner (root+1) forwards
 *     the result.
 * The root works directly in its receive buffer; no rank copies its own
 * vector (the first combine receives into the working buffer).
 * Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of
 * collective communication operations in MPICH", IJHPCA 19(1), 2005;
 * R. Rabenseifner, "Optimization of collective reduction operations",
 * ICCS 2004.
 * Restrictions: commutative ops only (blocks are combined in pair order,
 * not rank order); count >= p (applies()), so that every block is
 * non-empty (smaller counts would work, but only waste messages).
 * Cost (n bytes): p' power of two: 2 lg p alpha + 2 n (p-1)/p beta
 * + n (p-1)/p gamma; otherwise one more alpha + n beta + n gamma for the
 * fold (and once more alpha + n beta when the root dropped out).
 */
#include <stdlib.h>

#include "reduce.h"

/* Real rank of new rank nr (r = number of folded pairs). */
static int real_rank(int nr, int r) { return nr < r ? 2 * nr + 1 : nr + r; }

int cs_reduce_applies_rabenseifner(const cs_call *c, const cs_method *m)
{
    (void)m;
    return c->commute && c->count >= c->size;
}

int cs_reduce_rabenseifner(const cs_call *c, const cs_method *m)
{
    (void)m;
    const int me = c->rank, p = c->size, count = c->count;
    const char *own = c->sendbuf == MPI_IN_PLACE ? c->buf : c->sendbuf;
    char *raw[2] = {NULL, NULL}, *w = NULL, *tmp = NULL;
    int *disp = NULL, rc, pof2 = 1;
    cs_rtype ty;

    if (count == 0)
        return MPI_SUCCESS;
    CS_TRY(cs_reduce_rtype(c->dt, &ty));
    while (pof2 * 2 <= p)
        pof2 *= 2;
    const int r = p - pof2;
    const int nr = me < 2 * r ? (me % 2 ? me / 2 : -1) : me - r;
    const int rootout = c->root < 2 * r && c->root % 2 == 0; /* root folded away */
    const int newroot = c->root < 2 * r ? c->root / 2 : c->root - r;
    const MPI_Aint x = ty.extent;
#define AT(b, i) ((b) + (MPI_Aint)disp[i] * x)

    rc = MPI_ERR_NO_MEM;
    /* w: this rank's working vector (the receive buffer at the root). */
    if (me == c->root)
        w = c->buf;
    else if (nr >= 0 && !(w = cs_reduce_tmp(&ty, count, &raw[0])))
        goto out;
    if ((nr >= 0 && !(tmp = cs_reduce_tmp(&ty, count, &raw[1]))) ||
        !(disp = malloc((size_t)(pof2 + 1) * sizeof *disp)))
        goto out;
    for (int i = 0; i <= pof2; i++) /* block i = [disp[i], disp[i+1]) */
        disp[i] = (int)cs_piece_at((size_t)count, pof2, i);
    rc = MPI_SUCCESS;

    /* 1. fold */
    if (nr < 0 && me < 2 * r) {
        CS_TRY(PMPI_Send(own, count, c->dt, me + 1, CS_TAG_REDUCE, c->pcomm));
        if (me == c->root) /* 4. the result comes back from the partner */
            CS_TRY(PMPI_Recv(c->buf, count, c->dt, me + 1, CS_TAG_REDUCE, c->pcomm,
                             MPI_STATUS_IGNORE));
        goto out;
    }
    /* src: where this rank's partial vector is; until the first combine it
     * is the caller's (read-only) data, afterwards always w.  The first
     * combine receives into w itself (own op received: commutative), so
     * the own vector is never copied. */
    const char *src = own;
    if (me < 2 * r) {
        char *into = w != own ? w : tmp;
        CS_TRY(PMPI_Recv(into, count, c->dt, me - 1, CS_TAG_REDUCE, c->pcomm, MPI_STATUS_IGNORE));
        CS_TRY(PMPI_Reduce_local(into == w ? own : tmp, w, count, c->dt, c->op));
        src = w;
    }

    /* 2. reduce-scatter by recursive halving over block range [lo, lo+2*mask) */
    int lo = 0;
    for (int mask = pof2 / 2; mask >= 1; mask /= 2) {
        const int peer = real_rank(nr ^ mask, r), up = nr & mask;
        const int keep = up ? lo + mask : lo, give = up ? lo : lo + mask;
        const int nkeep = disp[keep + mask] - disp[keep], ngive = disp[give + mask] - disp[give];
        char *into = src == w ? tmp : w;
        CS_TRY(PMPI_Sendrecv(AT(src, give), ngive, c->dt, peer, CS_TAG_REDUCE, AT(into, keep),
                             nkeep, c->dt, peer, CS_TAG_REDUCE, c->pcomm, MPI_STATUS_IGNORE));
        CS_TRY(PMPI_Reduce_local(AT(src == w ? tmp : src, keep), AT(w, keep), nkeep, c->dt,
                                 c->op));
        src = w;
        lo = keep;
    }
    if (src != w) /* p = 1 */
        CS_TRY(cs_reduce_copy(c, &ty, own, w, count));

    /* 3. binomial gather: the group of 2*mask blocks at g collects at newroot
     * if it holds it, else at g.  This rank collects [lo, lo+mask). */
    for (int mask = 1; mask < pof2; mask *= 2) {
        const int g = nr & ~(2 * mask - 1), other = lo ^ mask;
        const int in_g = newroot >= g && newroot < g + 2 * mask;
        const int in_other = newroot >= other && newroot < other + mask;
        const int collector = in_g ? newroot : g;
        const int peer = real_rank(in_other ? newroot : other, r);
        if (collector == nr) {
            CS_TRY(PMPI_Recv(AT(w, other), disp[other + mask] - disp[other], c->dt, peer,
                             CS_TAG_REDUCE, c->pcomm, MPI_STATUS_IGNORE));
            lo = g;
        } else {
            CS_TRY(PMPI_Send(AT(w, lo), disp[lo + mask] - disp[lo], c->dt,
                             real_rank(collector, r), CS_TAG_REDUCE, c->pcomm));
            goto out;
        }
    }
    /* 4. forward to a folded-away root */
    if (rootout && nr == newroot)
        CS_TRY(PMPI_Send(w, count, c->dt, c->root, CS_TAG_REDUCE, c->pcomm));
#undef AT
out:
    cs_reduce_tmp_free(raw[0]);
    cs_reduce_tmp_free(raw[1]);
    free(disp);
    return rc;
}
