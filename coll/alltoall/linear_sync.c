/* Alltoall, throttled linear: "alltoall.linear_sync.kN".
 *
 * Algorithm: as linear (receives from rank - i, sends to rank + i), but at
 * most k receives and k sends in flight: a completed request makes room
 * for the next of its kind (a sliding window).  Open MPI's linear_sync
 * alltoall (max_requests), MPICH's scattered alltoall (batches).
 * Restrictions: none (p x block bytes fit an int).
 * Cost: (p - 1) alpha + (p - 1) n beta, with at most k messages of each
 * kind in flight: less contention than linear for large blocks and many
 * ranks, more latency exposed for small ones.
 */
#include <stdlib.h>

#include "alltoall.h"

int cs_alltoall_linear_sync(const cs_call *c, const cs_method *m)
{
    const int p = c->size, r = c->rank, n = (int)c->bytes;
    const int k = m->fanout < p - 1 ? m->fanout : p - 1;
    cs_alltoall_bytes b;
    int rc;
    if (!cs_alltoall_begin(c, &b, &rc))
        return rc;
    MPI_Request *req = malloc(2 * (size_t)k * sizeof *req); /* [0, k) receives, [k, 2k) sends */
    if (!req) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    int nrecv = 1, nsend = 1; /* the next peer distance of each kind */
    for (int j = 0; j < k; j++, nrecv++) {
        const int src = (r - nrecv + p) % p;
        CS_TRY(PMPI_Irecv(b.r + (size_t)src * c->bytes, n, MPI_BYTE, src, CS_TAG_ALLTOALL,
                          c->pcomm, &req[j]));
    }
    for (int j = 0; j < k; j++, nsend++) {
        const int dst = (r + nsend) % p;
        CS_TRY(PMPI_Isend(b.s + (size_t)dst * c->bytes, n, MPI_BYTE, dst, CS_TAG_ALLTOALL,
                          c->pcomm, &req[k + j]));
    }
    cs_alltoall_self(c, &b);
    for (;;) {
        int j;
        CS_TRY(PMPI_Waitany(2 * k, req, &j, MPI_STATUS_IGNORE));
        if (j == MPI_UNDEFINED)
            break;
        if (j < k && nrecv < p) {
            const int src = (r - nrecv++ + p) % p;
            CS_TRY(PMPI_Irecv(b.r + (size_t)src * c->bytes, n, MPI_BYTE, src,
                              CS_TAG_ALLTOALL, c->pcomm, &req[j]));
        } else if (j >= k && nsend < p) {
            const int dst = (r + nsend++) % p;
            CS_TRY(PMPI_Isend(b.s + (size_t)dst * c->bytes, n, MPI_BYTE, dst,
                              CS_TAG_ALLTOALL, c->pcomm, &req[j]));
        }
    }
out:
    free(req);
    return cs_alltoall_bytes_put(c, &b, rc);
}
