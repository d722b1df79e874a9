/* Alltoall, linear: "alltoall.linear".
 *
 * Algorithm: every rank posts its p - 1 receives, then its p - 1 sends
 * (to rank + 1, rank + 2, ... so that not every rank sends to rank 0
 * first), copies its own block, and waits for all.  Open MPI's
 * basic_linear alltoall.
 * Restrictions: none (p x block bytes fit an int).
 * Cost: (p - 1) alpha + (p - 1) n beta, all messages in flight at once
 * (contention for large blocks and many ranks).
 */
#include <stdlib.h>

#include "coll/bcast/bcast.h" /* cs_bcast_waitall */
#include "alltoall.h"

int cs_alltoall_linear(const cs_call *c, const cs_method *m)
{
    (void)m;
    const int p = c->size, r = c->rank, n = (int)c->bytes;
    cs_alltoall_bytes b;
    int rc;
    if (!cs_alltoall_begin(c, &b, &rc))
        return rc;
    MPI_Request *req = malloc(2 * (size_t)(p - 1) * sizeof *req);
    if (!req) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int i = 1; i < p; i++) {
        const int src = (r - i + p) % p;
        CS_TRY(PMPI_Irecv(b.r + (size_t)src * c->bytes, n, MPI_BYTE, src, CS_TAG_ALLTOALL,
                          c->pcomm, &req[i - 1]));
    }
    for (int i = 1; i < p; i++) {
        const int dst = (r + i) % p;
        CS_TRY(PMPI_Isend(b.s + (size_t)dst * c->bytes, n, MPI_BYTE, dst, CS_TAG_ALLTOALL,
                          c->pcomm, &req[p - 1 + i - 1]));
    }
    cs_alltoall_self(c, &b);
    CS_TRY(cs_bcast_waitall(2 * (p - 1), req));
out:
    free(req);
    return cs_alltoall_bytes_put(c, &b, rc);
}
