/* Alltoall, node-aware: "alltoall.node.linear", "alltoall.node.ring".
 *
 * Algorithm: (1) every rank sends its p blocks to its node's leader
 * (point-to-point on the node communicator, which the MPI library carries
 * through shared memory); (2) for every other node b the leader packs the
 * blocks its node's ranks send to b's ranks (sources, then destinations, in
 * rank order) and the leaders exchange these aggregates, one message per
 * pair of nodes: all at once (linear) or in p_nodes - 1 shifted sendrecv
 * steps (ring); (3) every leader assembles, for each rank of its node, the
 * p blocks sent to it in source order and sends them to it.  Few large
 * messages between nodes instead of n^2 small ones per node pair: the
 * aggregation of MVAPICH's and Open MPI HAN's hierarchical alltoalls
 * (Träff and Rougier's node-aware schemes).
 * Restrictions: two or more (virtual) nodes (p x block bytes fit an int).
 * Cost: a leader moves its node's n_a p blocks three times (gather, pack,
 * scatter) and sends p_nodes - 1 messages between nodes; (1) and (3) are
 * n_a - 1 messages of p n bytes.  For small blocks across nodes.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/shm/shm.h"
#include "coll/bcast/bcast.h" /* cs_bcast_waitall */
#include "alltoall.h"

/* The leaders' exchange (step 2): to leader q len[q] bytes at sb + at[q],
 * from it as many at rb + at[q]. */
static int exchange(const cs_call *c, const cs_method *m, const cs_node *nd, const char *sb,
                    char *rb, const size_t *at, const size_t *len)
{
    const int nn = c->st->nnodes, me = nd->my_node;
    int rc = MPI_SUCCESS, nreq = 0;
    MPI_Request *req = malloc(2 * (size_t)nn * sizeof *req);
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < nn; i++) {
        const int dst = (me + i) % nn, src = (me - i + nn) % nn;
        if (m->fanout) { /* ring: one step at a time */
            CS_TRY(PMPI_Sendrecv(sb + at[dst], (int)len[dst], MPI_BYTE, dst, CS_TAG_ALLTOALL,
                                 rb + at[src], (int)len[src], MPI_BYTE, src, CS_TAG_ALLTOALL,
                                 nd->leaders, MPI_STATUS_IGNORE));
        } else {
            CS_TRY(PMPI_Irecv(rb + at[src], (int)len[src], MPI_BYTE, src, CS_TAG_ALLTOALL,
                              nd->leaders, &req[nreq++]));
            CS_TRY(PMPI_Isend(sb + at[dst], (int)len[dst], MPI_BYTE, dst, CS_TAG_ALLTOALL,
                              nd->leaders, &req[nreq++]));
        }
    }
    CS_TRY(cs_bcast_waitall(nreq, req));
out:
    free(req);
    return rc;
}

int cs_alltoall_node(const cs_call *c, const cs_method *m)
{
    cs_alltoall_bytes b;
    int rc;
    if (!cs_alltoall_begin(c, &b, &rc))
        return rc;
    cs_node *nd = cs_node_get(c);
    if (!nd) {
        cs_alltoall_bytes_drop(&b);
        return cs_shm_native(c);
    }
    const int p = c->size, nn = c->st->nnodes, me = nd->my_node;
    const size_t n = c->bytes, row = (size_t)p * n;
    const int *of = nd->node_of; /* of[2 r]: node of rank r, of[2 r + 1]: its node rank */
    MPI_Comm node = nd->node_st.pcomm;
    const int nr = nd->node_st.rank, ns = nd->node_st.size;
    char *g = NULL, *sb = NULL, *rb = NULL;
    size_t *at = NULL, *len = NULL, *cnt = NULL;
    MPI_Request *req = NULL;
    if (nr != 0) { /* (1) and (3) on a non-leader */
        CS_TRY(PMPI_Send(b.s, (int)row, MPI_BYTE, 0, CS_TAG_ALLTOALL, node));
        CS_TRY(PMPI_Recv(b.r, (int)row, MPI_BYTE, 0, CS_TAG_ALLTOALL, node, MPI_STATUS_IGNORE));
        goto out;
    }
    g = malloc((size_t)ns * row);        /* g[i]: node rank i's p blocks */
    sb = malloc((size_t)ns * row);       /* to each node: its aggregate */
    rb = malloc((size_t)ns * row);       /* from each node: its aggregate; then rows out */
    at = calloc(2 * (size_t)nn + 1, sizeof *at);
    cnt = calloc((size_t)nn, sizeof *cnt); /* ranks per node */
    req = malloc((size_t)ns * sizeof *req);
    if (!g || !sb || !rb || !at || !cnt || !req) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    len = at + nn;
    for (int r = 0; r < p; r++)
        cnt[of[2 * r]]++;
    /* (1) gather */
    cs_copy(g, b.s, row);
    for (int i = 1; i < ns; i++)
        CS_TRY(PMPI_Irecv(g + (size_t)i * row, (int)row, MPI_BYTE, i, CS_TAG_ALLTOALL, node,
                          &req[i - 1]));
    CS_TRY(cs_bcast_waitall(ns - 1, req));
    /* (2) aggregates: to node q, ns x cnt[q] blocks (source node rank, then
     * destination in rank order); from node q, cnt[q] x ns blocks */
    for (int q = 0, o = 0; q < nn; o += (int)cnt[q], q++) {
        at[q] = (size_t)o * (size_t)ns * n;
        len[q] = cnt[q] * (size_t)ns * n;
    }
    for (int q = 0; q < nn; q++) {
        char *d = sb + at[q];
        for (int i = 0; i < ns; i++)
            for (int r = 0; r < p; r++)
                if (of[2 * r] == q) {
                    cs_copy(d, g + (size_t)i * row + (size_t)r * n, n);
                    d += n;
                }
    }
    cs_copy(rb + at[me], sb + at[me], len[me]);
    CS_TRY(exchange(c, m, nd, sb, rb, at, len));
    /* (3) rows: for node rank j, the block of every source rank r, found in
     * the aggregate of r's node at (r's node rank, j) */
    for (int j = ns - 1; j >= 0; j--) {
        char *d = j ? sb + (size_t)(j - 1) * row : b.r; /* sb is free again */
        for (int r = 0; r < p; r++) {
            const int q = of[2 * r], i = of[2 * r + 1];
            cs_copy(d + (size_t)r * n, rb + at[q] + ((size_t)i * (size_t)ns + (size_t)j) * n, n);
        }
        if (j)
            CS_TRY(PMPI_Isend(d, (int)row, MPI_BYTE, j, CS_TAG_ALLTOALL, node, &req[j - 1]));
    }
    CS_TRY(cs_bcast_waitall(ns - 1, req));
out:
    free(g);
    free(sb);
    free(rb);
    free(at);
    free(cnt);
    free(req);
    return cs_alltoall_bytes_put(c, &b, rc);
}
