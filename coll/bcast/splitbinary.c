/* Bcast: split-binary tree.
 *
 * Algorithm: the message is cut into two halves (the first one byte longer
 * when n is odd).  On virtual ranks v = (rank - root + P) % P, the odd
 * ranks 1, 3, 5, ... form the left binary tree and the even ranks 2, 4, ...
 * the right one (heap order within each: index i = (v-1)/2, children
 * 2i+1, 2i+2), both hanging off the root.  The root streams the first half
 * down the left tree and the second half down the right tree, segment by
 * segment and interleaved (each tree runs the segmented engine on its
 * half).  Then every left rank v swaps halves with its right twin v+1 in
 * one PMPI_Sendrecv; when P is even, the last left rank (v = P-1) has no
 * twin and gets the second half from the root.
 *
 *   P = 8:          0                half A: 1 3 5 7    half B: 2 4 6
 *                 /   \              swaps: 1<->2 3<->4 5<->6, root -> 7 (B)
 *          A:   1       2   :B
 *              / \     / \
 *             3   5   4   6
 *            /
 *           7
 *
 * Reference: Open MPI ompi_coll_base_bcast_intra_split_bintree;
 * Pjesivac-Grbovic et al., "Performance analysis of MPI collective
 * operations", Cluster Computing 10(2), 2007.
 * Restrictions: none (P = 2: the one child gets both halves from the root;
 * n = 1: the second half is empty).
 * Cost (n bytes, segments of s bytes, d = floor(log2(P/2)) + 1 levels):
 * T ~ (n/(2s) + d - 1) * 2 (alpha + s beta) + alpha + (n/2) beta;
 * unsegmented: 2 d (alpha + n/2 beta) + alpha + n/2 beta, i.e. about the
 * binary tree's latency at half its bandwidth term.
 */
#include "bcast.h"

/* Send p[0..n) to `to` and receive q[0..m) from `from` (same or -1: none). */
static int swap(MPI_Comm comm, const char *p, size_t n, int to, char *q, size_t m, int from)
{
    int rc = MPI_SUCCESS;
    for (size_t off = 0; off < n || off < m; off += CS_BCAST_MAXSEG) {
        size_t sn = off < n ? n - off : 0, rn = off < m ? m - off : 0;
        sn = sn < CS_BCAST_MAXSEG ? sn : CS_BCAST_MAXSEG;
        rn = rn < CS_BCAST_MAXSEG ? rn : CS_BCAST_MAXSEG;
        if (to >= 0 && from >= 0)
            CS_TRY(PMPI_Sendrecv(p + off, (int)sn, MPI_BYTE, to, CS_TAG_BCAST, q + off, (int)rn,
                                 MPI_BYTE, from, CS_TAG_BCAST, comm, MPI_STATUS_IGNORE));
        else if (to >= 0)
            CS_TRY(PMPI_Send(p + off, (int)sn, MPI_BYTE, to, CS_TAG_BCAST, comm));
        else
            CS_TRY(PMPI_Recv(q + off, (int)rn, MPI_BYTE, from, CS_TAG_BCAST, comm,
                             MPI_STATUS_IGNORE));
    }
out:
    return rc;
}

/* Root: stream half h (bytes [off[h], off[h] + len[h])) to child[h]. */
static int root_send(MPI_Comm comm, char *p, const size_t *off, const size_t *len,
                     const int *child, size_t seg)
{
    MPI_Request req[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                          MPI_REQUEST_NULL};
    size_t nseg = (len[0] + seg - 1) / seg; /* half 0 is the longer one */
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < nseg; i++) {
        MPI_Request *bank = req + (i & 1) * 2;
        CS_TRY(cs_bcast_waitall(2, bank)); /* segment i-2 */
        for (int h = 0; h < 2; h++) {
            size_t o = i * seg, n = len[h] > o ? len[h] - o : 0;
            if (child[h] >= 0 && n > 0)
                CS_TRY(PMPI_Isend(p + off[h] + o, (int)(n < seg ? n : seg), MPI_BYTE, child[h],
                               CS_TAG_BCAST, comm, &bank[h]));
        }
    }
out:
    if (rc == MPI_SUCCESS)
        return cs_bcast_waitall(4, req);
    cs_bcast_waitall(4, req);
    return rc;
}

int cs_bcast_splitbinary(const cs_call *c, const cs_method *m)
{
    if (c->size < 2 || c->bytes == 0)
        return MPI_SUCCESS;
    int P = c->size, v = (c->rank - c->root + P) % P;
#define RANK(vr) (((vr) + c->root) % P)
    size_t n = c->bytes, seg = m->segsize > 0 ? (size_t)m->segsize : CS_BCAST_MAXSEG;
    size_t off[2] = {0, (n + 1) / 2}, len[2] = {(n + 1) / 2, n / 2};
    int nL = P / 2, nR = (P - 1) / 2; /* odd / even ranks in 1..P-1 */
    cs_bcast_bytes b;
    int rc;
    CS_TRY(cs_bcast_bytes_get(c, &b));
    if (v == 0) {
        int child[2] = {RANK(1), P > 2 ? RANK(2) : -1};
        CS_TRY(root_send(c->pcomm, b.p, off, len, child, seg));
        if (P % 2 == 0) /* the last left rank has no twin */
            CS_TRY(swap(c->pcomm, b.p + off[1], len[1], RANK(P - 1), NULL, 0, -1));
    } else {
        int g = (v - 1) % 2, i = (v - 1) / 2, ng = g ? nR : nL;
        int parent = i == 0 ? RANK(0) : RANK(2 * ((i - 1) / 2) + 1 + g);
        int children[2], nc = 0;
        for (int ci = 2 * i + 1; ci <= 2 * i + 2 && ci < ng; ci++)
            children[nc++] = RANK(2 * ci + 1 + g);
        CS_TRY(cs_bcast_tree_bytes(c->pcomm, parent, children, nc, b.p + off[g], len[g], seg));
        if (g == 1) /* right: twin v-1 */
            CS_TRY(swap(c->pcomm, b.p + off[1], len[1], RANK(v - 1), b.p, len[0], RANK(v - 1)));
        else if (i < nR) /* left with a twin v+1 */
            CS_TRY(swap(c->pcomm, b.p, len[0], RANK(v + 1), b.p + off[1], len[1], RANK(v + 1)));
        else /* left without a twin: second half from the root */
            CS_TRY(swap(c->pcomm, NULL, 0, -1, b.p + off[1], len[1], RANK(0)));
    }
out:
    return cs_bcast_bytes_put(c, &b, rc);
#undef RANK
}
