/* Allreduce: recursive doubling ("allreduce.recursive_doubling") and its
 * radix-k generalisation, recursive multiplying ("allreduce.knomial.kN").
 *
 * Algorithm: fold the p ranks onto npart = k^m participants (fold.c), each
 * a contiguous range of ranks.  Round i = 0 .. m-1: participant j exchanges
 * its whole vector with the k - 1 others of its group (the participants
 * that differ from j only in base-k digit i) and every member computes the
 * group's combination v_0 op v_1 op ... op v_(k-1), in digit order, with
 * the same operands: after round i each holds the combination, in rank
 * order, of its aligned block of k^(i+1) participants, the same bits on
 * every member.  Then the leaders send the result to the rest of their
 * range.  k = 2 is the classic recursive doubling (Thakur, Rabenseifner &
 * Gropp, "Optimization of collective communication operations in MPICH",
 * IJHPCA 2005); k > 2 trades rounds for messages per round (recursive
 * multiplying, Ruefenacht, Bull & Booth, "Generalisation of recursive
 * doubling for AllReduce", Parallel Computing 2017).
 * Restrictions: none (any op, rank order kept); k <= 8.
 * Cost: ceil(log_k p) (alpha + (k - 1) n beta + (k - 1) n gamma) plus the
 * fold; temporaries (k - 1) n.
 */
#include <stdlib.h>

#include "allreduce.h"

#define CS_RM_MAXK 8

static int multiply(const cs_call *c, int k)
{
    if (k < 2 || k > CS_RM_MAXK)
        return MPI_ERR_ARG;
    if (c->count == 0)
        return MPI_SUCCESS;
    const int p = c->size, npart = cs_allreduce_pow_below(p, k);
    char *raw[CS_RM_MAXK] = {NULL}, *pool[CS_RM_MAXK], *acc = NULL;
    MPI_Request rq[2 * (CS_RM_MAXK - 1)];
    cs_rtype t;
    int rc, leader = 0, n = 0;
    CS_TRY(cs_reduce_rtype(c->dt, &t));
    for (int u = 0; u < k - 1; u++)
        if (!(pool[u + 1] = cs_reduce_tmp(&t, c->count, &raw[u]))) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
    CS_TRY(cs_allreduce_fold_in(c, &t, npart, &leader, &acc, pool[1]));
    if (leader) {
        /* pool[0]: the running result; pool[1..k-1]: free buffers */
        if (acc != c->buf)
            pool[1] = c->buf;
        pool[0] = acc;
        const int j = cs_allreduce_part_of(p, npart, c->rank);
        for (int d = 1; d < npart; d *= k) {
            const int digit = j / d % k, base = j - digit * d;
            char *v[CS_RM_MAXK];
            for (int u = 0, x = 1; u < k; u++)
                v[u] = u == digit ? pool[0] : pool[x++];
            n = 0;
            for (int u = 0; u < k; u++) {
                if (u == digit)
                    continue;
                int lo, hi;
                cs_allreduce_range(p, npart, base + u * d, &lo, &hi);
                CS_TRY(PMPI_Irecv(v[u], c->count, c->dt, lo, CS_TAG_ALLREDUCE, c->pcomm,
                                  &rq[n++]));
                CS_TRY(PMPI_Isend(pool[0], c->count, c->dt, lo, CS_TAG_ALLREDUCE, c->pcomm,
                                  &rq[n++]));
            }
            for (int i = 0; i < n; i++) /* not Waitall: MPICH's annotation trips gcc 12 */
                CS_TRY(PMPI_Wait(&rq[i], MPI_STATUS_IGNORE));
            n = 0;
            for (int u = 1; u < k; u++) /* v[u] = v[u-1] op v[u]: digit order */
                CS_TRY(PMPI_Reduce_local(v[u - 1], v[u], c->count, c->dt, c->op));
            pool[0] = v[k - 1];
            for (int u = 0; u < k - 1; u++)
                pool[u + 1] = v[u];
        }
        if (pool[0] != c->buf)
            CS_TRY(cs_reduce_copy(c, &t, pool[0], c->buf, c->count));
    }
    CS_TRY(cs_allreduce_fold_out(c, &t, npart, leader, c->buf));
out:
    cs_reduce_drain(rq, n, 1);
    for (int u = 0; u < k - 1; u++)
        cs_reduce_tmp_free(raw[u]);
    return rc;
}

int cs_allreduce_recursive_doubling(const cs_call *c, const cs_method *m)
{
    (void)m;
    return multiply(c, 2);
}

int cs_allreduce_knomial(const cs_call *c, const cs_method *m)
{
    return multiply(c, m->fanout);
}
