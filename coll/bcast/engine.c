/* Bcast: the generic segmented-tree engine.
 *
 * Algorithm: the n message bytes are cut into S = ceil(n/s) segments of s
 * bytes (the last one shorter; unsegmented: one segment).  A non-root node
 * posts the receive of segment i+1 from its parent before it waits for
 * segment i, then forwards segment i to each child with PMPI_Isend; the
 * sends of segment i-2 are completed just before those of segment i are
 * posted, so at most two segments per child are in flight and segments
 * stream down the tree as a pipeline.  Any tree works (linear, chain,
 * pipeline, k-ary, binomial, k-nomial: trees.c); children are served in the
 * order the topology lists them (largest subtree first).
 * Reference: the generic segmented broadcast of Open MPI coll/base
 * (ompi_coll_base_bcast_intra_generic); Pjesivac-Grbovic, Angskun, Bosilca,
 * Fagg, Gabriel, Dongarra, "Performance analysis of MPI collective
 * operations", Cluster Computing 10(2), 2007 (the tree / segment models).
 * Restrictions: none (any size, any root, any byte count; "unsegmented"
 * messages above CS_BCAST_MAXSEG are cut at that size).  On an MPI error
 * the pending receives are cancelled and the sends completed before the
 * error is returned (the caller may free the buffer).
 * Cost (n bytes, segments of s bytes, tree depth d, at most k children per
 * node): T ~ (n/s + d - 1) * k * (alpha + s beta); unsegmented (s = n):
 * d k (alpha + n beta).  E.g. binomial unsegmented: ceil(log2 P)(alpha +
 * n beta); pipeline: (n/s + P - 2)(alpha + s beta).
 */
#include <stdlib.h>

#include "bcast.h"

int cs_bcast_tree_bytes(MPI_Comm comm, int parent, const int *children, int nchildren,
                        char *p, size_t n, size_t seg)
{
    if (n == 0 || (parent < 0 && nchildren == 0))
        return MPI_SUCCESS;
    if (seg == 0 || seg > CS_BCAST_MAXSEG)
        seg = CS_BCAST_MAXSEG;
    size_t nseg = (n + seg - 1) / seg;
#define SEGP(i) (p + (i) * seg)
#define SEGN(i) ((int)((i) == nseg - 1 ? n - (i) * seg : seg))
    MPI_Request rreq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Request stack[2 * 16], *sreq = stack; /* two banks of nchildren */
    int rc = MPI_SUCCESS;
    if (nchildren > 16 && !(sreq = malloc(2 * (size_t)nchildren * sizeof *sreq)))
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < 2 * nchildren; i++)
        sreq[i] = MPI_REQUEST_NULL;
    if (parent >= 0)
        CS_TRY(PMPI_Irecv(SEGP(0), SEGN(0), MPI_BYTE, parent, CS_TAG_BCAST, comm, &rreq[0]));
    for (size_t i = 0; i < nseg; i++) {
        if (parent >= 0) {
            if (i + 1 < nseg)
                CS_TRY(PMPI_Irecv(SEGP(i + 1), SEGN(i + 1), MPI_BYTE, parent, CS_TAG_BCAST, comm,
                               &rreq[(i + 1) & 1]));
            CS_TRY(PMPI_Wait(&rreq[i & 1], MPI_STATUS_IGNORE));
        }
        if (nchildren == 0)
            continue;
        MPI_Request *bank = sreq + (i & 1) * nchildren;
        CS_TRY(cs_bcast_waitall(nchildren, bank)); /* segment i-2 */
        for (int c = 0; c < nchildren; c++)
            CS_TRY(PMPI_Isend(SEGP(i), SEGN(i), MPI_BYTE, children[c], CS_TAG_BCAST, comm,
                           &bank[c]));
    }
    CS_TRY(cs_bcast_waitall(2 * nchildren, sreq));
out:
    if (rc != MPI_SUCCESS) {
        for (int i = 0; i < 2; i++)
            if (rreq[i] != MPI_REQUEST_NULL) {
                PMPI_Cancel(&rreq[i]);
                PMPI_Wait(&rreq[i], MPI_STATUS_IGNORE);
            }
        cs_bcast_waitall(2 * nchildren, sreq);
    }
    if (sreq != stack)
        free(sreq);
    return rc;
#undef SEGP
#undef SEGN
}

int cs_bcast_tree(const cs_call *c, const cs_topo *t, size_t seg)
{
    if (c->size < 2 || c->bytes == 0)
        return MPI_SUCCESS;
    if (!t)
        return MPI_ERR_NO_MEM;
    cs_bcast_bytes b;
    int rc;
    CS_TRY(cs_bcast_bytes_get(c, &b));
    rc = cs_bcast_tree_bytes(c->pcomm, t->parent, t->children, t->nchildren, b.p, c->bytes, seg);
out:
    return cs_bcast_bytes_put(c, &b, rc);
}
