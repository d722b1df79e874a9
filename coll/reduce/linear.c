/* Reduce: linear ("reduce.linear").
 *
 * Algorithm: every rank sends its vector to the root; the root combines in
 * descending rank order, acc = x(p-1), then acc = x(i) op acc for
 * i = p-2 .. 0, which is exactly x0 op x1 op ... op x(p-1), so any op
 * (commutative or not) is supported.  The receive from the next rank is
 * posted before the current one is combined (two temporaries).  With
 * MPI_IN_PLACE the root first saves its own vector to a temporary.
 * Reference: the basic linear reduce of Open MPI coll/basic and MPICH
 * (MPI-1 reference implementation).
 * Restrictions: none.
 * Cost: (p-1) (alpha + n beta + n gamma) serialised at the root.
 */
#include "reduce.h"

/* Next source below i other than the root, or -1. */
static int below(const cs_call *c, int i)
{
    for (i--; i >= 0; i--)
        if (i != c->root)
            return i;
    return -1;
}

int cs_reduce_linear(const cs_call *c, const cs_method *m)
{
    (void)m;
    if (c->count == 0)
        return MPI_SUCCESS;
    if (c->rank != c->root)
        return PMPI_Send(c->sendbuf, c->count, c->dt, c->root, CS_TAG_REDUCE, c->pcomm);

    MPI_Request rreq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    char *raw[3] = {NULL, NULL, NULL}, *in[2] = {NULL, NULL}, *acc = c->buf;
    const char *own = c->sendbuf;
    const int last = c->size - 1;
    cs_rtype ty;
    int rc, cur = 0, src;
    CS_TRY(cs_reduce_rtype(c->dt, &ty));
    if (own == MPI_IN_PLACE) {
        if (c->size == 1)
            return MPI_SUCCESS;
        rc = MPI_ERR_NO_MEM;
        if (!(own = cs_reduce_tmp(&ty, c->count, &raw[2])))
            goto out;
        CS_TRY(cs_reduce_copy(c, &ty, acc, (char *)own, c->count));
    }
    for (int b = 0; b < 2; b++) /* temporaries for the sources below `last` */
        if (below(c, b == 0 ? last : below(c, last)) >= 0 &&
            !(in[b] = cs_reduce_tmp(&ty, c->count, &raw[b]))) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
    CS_TRY(last == c->root ? cs_reduce_copy(c, &ty, own, acc, c->count)
                           : PMPI_Recv(acc, c->count, c->dt, last, CS_TAG_REDUCE, c->pcomm,
                                       MPI_STATUS_IGNORE));
    if ((src = below(c, last)) >= 0)
        CS_TRY(PMPI_Irecv(in[0], c->count, c->dt, src, CS_TAG_REDUCE, c->pcomm, &rreq[0]));
    for (int i = last - 1; i >= 0; i--) {
        if (i == c->root) { /* acc = own op acc */
            CS_TRY(PMPI_Reduce_local(own, acc, c->count, c->dt, c->op));
            continue;
        }
        if ((src = below(c, i)) >= 0)
            CS_TRY(PMPI_Irecv(in[1 - cur], c->count, c->dt, src, CS_TAG_REDUCE, c->pcomm,
                              &rreq[1 - cur]));
        CS_TRY(PMPI_Wait(&rreq[cur], MPI_STATUS_IGNORE));
        CS_TRY(PMPI_Reduce_local(in[cur], acc, c->count, c->dt, c->op));
        cur = 1 - cur;
    }
out:
    cs_reduce_drain(rreq, 2, 1);
    for (int b = 0; b < 3; b++)
        cs_reduce_tmp_free(raw[b]);
    return rc;
}
