/* Barrier: Bruck k-port dissemination ("barrier.bruck", radix k =
 * m->fanout).
 *
 * Algorithm: the dissemination barrier with k-1 concurrent messages per
 * round: in round i (distance d = k^i) rank r signals ranks r + j d and
 * waits for ranks r - j d (mod p), j = 1 .. k-1, j d < p, all posted at once.
 * After round i, r has heard from the k^(i+1) ranks before it, so
 * ceil(log_k p) rounds suffice.  Bruck, Ho, Kipnis, Upfal & Weathersby,
 * "Efficient algorithms for all-to-all communications in multiport
 * message-passing systems", IEEE TPDS 8(11), 1997 (the k-port
 * dissemination); MPICH's k-dissemination barrier.
 * Restrictions: 2 <= k <= 8.
 * Cost: ceil(log_k p) alpha with k-1 messages overlapped per round (a
 * multi-port network or shared memory overlaps them; a single-port one pays
 * (k-1) ceil(log_k p) alpha); no bytes.
 */
#include "barrier.h"

#define CS_BRUCK_MAXK 8

int cs_barrier_bruck(const cs_call *c, const cs_method *m)
{
    int p = c->size, r = c->rank, k = m->fanout;
    if (k < 2 || k > CS_BRUCK_MAXK)
        return MPI_ERR_ARG;
    MPI_Request req[2 * (CS_BRUCK_MAXK - 1)];
    MPI_Status st[2 * (CS_BRUCK_MAXK - 1)]; /* not MPI_STATUSES_IGNORE: gcc 12 warns
                                               on MPICH's annotated prototype */
    int rc = MPI_SUCCESS, n = 0;
    for (int i = 0; i < 2 * (CS_BRUCK_MAXK - 1); i++)
        req[i] = MPI_REQUEST_NULL;
    for (long d = 1; d < p; d *= k) {
        n = 0;
        for (long j = 1; j < k && j * d < p; j++) {
            int off = (int)(j * d);
            CS_TRY(PMPI_Irecv(NULL, 0, MPI_BYTE, (r - off + p) % p, CS_TAG_BARRIER, c->pcomm,
                              &req[n++]));
            CS_TRY(PMPI_Isend(NULL, 0, MPI_BYTE, (r + off) % p, CS_TAG_BARRIER, c->pcomm,
                              &req[n++]));
        }
        CS_TRY(PMPI_Waitall(n, req, st));
        n = 0;
    }
out:
    for (int i = 0; i < n; i++) /* a failed round: release what was posted (zero
                                    bytes: no buffer outlives the call) */
        if (req[i] != MPI_REQUEST_NULL)
            PMPI_Request_free(&req[i]);
    return rc;
}
