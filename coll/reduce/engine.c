/* Reduce: the generic segmented-tree engine, and buffer helpers.
 *
 * Algorithm: the message is cut into S segments of `seg` elements (the last
 * one shorter).  For every segment, a node receives the segment from each
 * child into a temporary, combines it with its own (partial) segment with
 * PMPI_Reduce_local and sends the result to its parent.  Receives are
 * double-buffered (the next (segment, child) receive is posted before the
 * current one is combined) and up to two segments are in flight to the
 * parent, so segments move down the tree as a pipeline.  Leaves send
 * straight from the user's buffer; the tree root combines into the result
 * buffer.  Buffers are allocated by true extent, so any datatype works.
 * Reference: the generic segmented reduce of Open MPI coll/base
 * (ompi_coll_base_reduce_generic); Pjesivac-Grbovic, Angskun, Bosilca,
 * Fagg, Gabriel, Dongarra, "Performance analysis of MPI collective
 * operations", Cluster Computing 10(2), 2007.
 * Operand order: for a commutative op children are combined in topology
 * order.  Otherwise a child whose subtree lies above this rank is combined
 * on the right (acc = acc op child), one below it on the left
 * (acc = child op acc), right ones first in increasing, then left ones in
 * decreasing rank order: rank order is kept whenever every subtree is a
 * contiguous rank range (in-order binary tree).
 * Restrictions: none beyond the topology's (see reduce.h for which trees
 * keep operand order).  On an MPI error pending receives are cancelled and
 * sends completed before the temporaries are freed.
 * Cost (n bytes, segments of s bytes, depth d, at most k children per
 * node): T ~ (n/s + d - 1) * k * (alpha + s beta + s gamma); unsegmented
 * (s = n): d k (alpha + n beta + n gamma).  The root receives its first
 * child straight into the result (no copy of its own vector) unless the
 * op is non-commutative and its first child lies below it.  Memory: 4
 * segments per inner node, 2 at the root, none at leaves.
 */
#include <stdlib.h>
#include <string.h>

#include "reduce.h"

int cs_reduce_rtype(MPI_Datatype dt, cs_rtype *t)
{
    MPI_Aint lb;
    int rc;
    t->contig = 0;
    CS_TRY(PMPI_Type_get_extent(dt, &lb, &t->extent));
    CS_TRY(PMPI_Type_get_true_extent(dt, &t->tlb, &t->textent));
    CS_TRY(PMPI_Type_size(dt, &t->size));
    t->contig = (MPI_Aint)t->size == t->textent && t->textent == t->extent;
out:
    return rc;
}

int cs_reduce_copy(const cs_call *c, const cs_rtype *t, const void *src, void *dst, int n)
{
    if (n == 0 || src == dst)
        return MPI_SUCCESS;
    if (t->contig) {
        memmove((char *)dst + t->tlb, (const char *)src + t->tlb, (size_t)n * (size_t)t->extent);
        return MPI_SUCCESS;
    }
    return PMPI_Sendrecv(src, n, c->dt, c->rank, CS_TAG_REDUCE, dst, n, c->dt, c->rank,
                         CS_TAG_REDUCE, c->pcomm, MPI_STATUS_IGNORE);
}

int cs_reduce_segcount(const cs_call *c, const cs_rtype *t, int segsize)
{
    if (segsize <= 0 || t->size <= 0)
        return c->count > 0 ? c->count : 1;
    int seg = segsize / t->size;
    return seg < 1 ? 1 : seg > c->count && c->count > 0 ? c->count : seg;
}

/* Children in combination order (see the header comment). */
static void order_children(const cs_call *c, const cs_topo *t, int *ch)
{
    int n = 0;
    if (c->commute) {
        for (int j = 0; j < t->nchildren; j++)
            ch[n++] = t->children[j];
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        int first = n;
        for (int j = 0; j < t->nchildren; j++)
            if ((t->children[j] > c->rank) == (pass == 0))
                ch[n++] = t->children[j];
        for (int i = first + 1; i < n; i++) /* insertion sort: up, then down */
            for (int x = i; x > first && (pass == 0 ? ch[x - 1] > ch[x] : ch[x - 1] < ch[x]); x--) {
                int tmp = ch[x];
                ch[x] = ch[x - 1];
                ch[x - 1] = tmp;
            }
    }
}

int cs_reduce_tree(const cs_call *c, const cs_topo *t, int segsize, void *rbuf)
{
    const int k = t->nchildren, isroot = t->parent < 0;
    const char *own = c->sendbuf == MPI_IN_PLACE ? c->buf : c->sendbuf;
    MPI_Request rreq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Request sreq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    char *raw[4] = {NULL, NULL, NULL, NULL}, *in[2] = {NULL, NULL}, *acc[2] = {NULL, NULL};
    int *ch = NULL, rc;
    cs_rtype ty;

    if (c->count == 0)
        return MPI_SUCCESS;
    CS_TRY(cs_reduce_rtype(c->dt, &ty));
    const int seg = cs_reduce_segcount(c, &ty, segsize);
    const int nseg = (c->count + seg - 1) / seg, njobs = nseg * k;
    const MPI_Aint segbytes = (MPI_Aint)seg * ty.extent;
#define SEGN(s) ((s) == nseg - 1 ? c->count - (s) * seg : seg)
    /* direct: the root receives its first child's segment straight into the
     * result and combines own op child there (needs own != result, and the
     * child on the right unless the op commutes); else it copies its own
     * vector into the result first. */
    int direct = 0;
#define TARGET(i) (direct && (i) % k == 0 ? (char *)rbuf + (i) / k * segbytes : in[(i) % 2])

    if (k > 0) {
        rc = MPI_ERR_NO_MEM;
        if (!(ch = malloc((size_t)k * sizeof *ch)))
            goto out;
        order_children(c, t, ch);
        direct = isroot && own != rbuf && (c->commute || ch[0] > c->rank);
        for (int b = 0; b < 4; b++) { /* in[0..1] when needed, acc[0..1] off the root */
            char **slot = b < 2 ? &in[b] : &acc[b - 2];
            if ((b < 2 && b < njobs && (!direct || k > 1)) || (b >= 2 && !isroot && b - 2 < nseg))
                if (!(*slot = cs_reduce_tmp(&ty, seg, &raw[b])))
                    goto out;
        }
    }
    rc = MPI_SUCCESS;
    if (isroot && !direct)
        CS_TRY(cs_reduce_copy(c, &ty, own, rbuf, c->count));
    if (k > 0)
        CS_TRY(PMPI_Irecv(TARGET(0), SEGN(0), c->dt, ch[0], CS_TAG_REDUCE, c->pcomm, &rreq[0]));
    for (int s = 0; s < nseg; s++) {
        const int n = SEGN(s);
        char *a = isroot ? (char *)rbuf + s * segbytes : (char *)own + s * segbytes;
        int ro = !isroot; /* a is the caller's send buffer: read-only */
        CS_TRY(PMPI_Wait(&sreq[s % 2], MPI_STATUS_IGNORE));
        for (int j = 0; j < k; j++) {
            const int i = s * k + j, cur = i % 2, right = !c->commute && ch[j] > c->rank;
            if (i + 1 < njobs)
                CS_TRY(PMPI_Irecv(TARGET(i + 1), SEGN((i + 1) / k), c->dt, ch[(i + 1) % k],
                                  CS_TAG_REDUCE, c->pcomm, &rreq[1 - cur]));
            CS_TRY(PMPI_Wait(&rreq[cur], MPI_STATUS_IGNORE));
            if (direct && j == 0) { /* result = own op child, received in place */
                CS_TRY(PMPI_Reduce_local(own + s * segbytes, a, n, c->dt, c->op));
            } else if (!ro && !right) { /* acc = child op acc */
                CS_TRY(PMPI_Reduce_local(in[cur], a, n, c->dt, c->op));
            } else if (ro && !c->commute && !right) { /* left of read-only own data */
                CS_TRY(cs_reduce_copy(c, &ty, a, acc[s % 2], n));
                CS_TRY(PMPI_Reduce_local(in[cur], acc[s % 2], n, c->dt, c->op));
                a = acc[s % 2], ro = 0;
            } else { /* in = acc op child, which becomes the accumulator */
                CS_TRY(PMPI_Reduce_local(a, in[cur], n, c->dt, c->op));
                if (isroot) {
                    CS_TRY(cs_reduce_copy(c, &ty, in[cur], a, n));
                } else {
                    char *tmp = acc[s % 2];
                    acc[s % 2] = in[cur], in[cur] = tmp;
                    a = acc[s % 2], ro = 0;
                }
            }
        }
        if (!isroot)
            CS_TRY(PMPI_Isend(a, n, c->dt, t->parent, CS_TAG_REDUCE, c->pcomm, &sreq[s % 2]));
    }
    for (int b = 0; b < 2; b++) /* not Waitall: MPICH's annotation trips gcc 12 */
        CS_TRY(PMPI_Wait(&sreq[b], MPI_STATUS_IGNORE));
#undef SEGN
#undef TARGET
out:
    cs_reduce_drain(rreq, 2, 1);
    cs_reduce_drain(sreq, 2, 0);
    for (int b = 0; b < 4; b++)
        cs_reduce_tmp_free(raw[b]);
    free(ch);
    return rc;
}

void cs_reduce_drain(MPI_Request *r, int n, int cancel)
{
    for (int i = 0; i < n; i++) {
        if (r[i] == MPI_REQUEST_NULL)
            continue;
        if (cancel)
            PMPI_Cancel(&r[i]);
        PMPI_Wait(&r[i], MPI_STATUS_IGNORE);
    }
}
