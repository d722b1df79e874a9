/* Alltoall, Bruck: "alltoall.bruck" (radix 2), "alltoall.bruck.kN".
 *
 * Algorithm: block j of the send side goes to rank + j.  (1) Rotate: tmp[j]
 * = block for rank + j.  (2) For every digit d of j in base k (weight w =
 * k^d) and every digit value v = 1 .. k - 1: the blocks whose digit d is v
 * travel v w ranks forward: packed and sent to rank + v w, the same
 * positions received from rank - v w (the k - 1 exchanges of a digit run
 * at once).  After the last digit, a block that started at rank s in
 * position j has moved j ranks: tmp[j] at rank r holds the block rank r - j
 * sent to r.  (3) Rotate back: recv[r - j] = tmp[j].  Bruck et al., IEEE
 * TPDS 8(11), 1997; MPICH's brucks alltoall (radix k); Open MPI's modified
 * Bruck (k = 2).
 * Restrictions: none (p x block bytes fit an int).
 * Cost: (k - 1) ceil(log_k p) alpha + ceil(log_k p) (k - 1)/k p n beta,
 * plus three local copies of the p n bytes: few messages, more bytes; for
 * small blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/bcast/bcast.h" /* cs_bcast_waitall */
#include "alltoall.h"

int cs_alltoall_bruck(const cs_call *c, const cs_method *m)
{
    const int p = c->size, r = c->rank, k = m->fanout >= 2 ? m->fanout : 2;
    const size_t n = c->bytes;
    cs_alltoall_bytes b;
    int rc;
    if (!cs_alltoall_begin(c, &b, &rc))
        return rc;
    char *tmp = malloc(3 * (size_t)p * n);
    MPI_Request *req = malloc(2 * (size_t)k * sizeof *req);
    int *off = malloc((size_t)(k + 1) * sizeof *off); /* first block of digit value v */
    if (!tmp || !req || !off) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    char *sb = tmp + (size_t)p * n, *rb = sb + (size_t)p * n;
    for (int j = 0; j < p; j++)
        cs_copy(tmp + (size_t)j * n, b.s + (size_t)((r + j) % p) * n, n);
    for (long w = 1; w < p; w *= k) {
        int nreq = 0;
        off[0] = off[1] = 0;
        for (int v = 1; v < k; v++) { /* pack the blocks of digit value v, in order */
            off[v + 1] = off[v];
            for (int j = 0; j < p; j++)
                if ((j / w) % k == v)
                    cs_copy(sb + (size_t)off[v + 1]++ * n, tmp + (size_t)j * n, n);
            const int cnt = (off[v + 1] - off[v]) * (int)n;
            if (cnt == 0)
                continue;
            const int dst = (int)((r + v * w) % p), src = (int)((r - v * w % p + p) % p);
            CS_TRY(PMPI_Irecv(rb + (size_t)off[v] * n, cnt, MPI_BYTE, src, CS_TAG_ALLTOALL,
                              c->pcomm, &req[nreq++]));
            CS_TRY(PMPI_Isend(sb + (size_t)off[v] * n, cnt, MPI_BYTE, dst, CS_TAG_ALLTOALL,
                              c->pcomm, &req[nreq++]));
        }
        CS_TRY(cs_bcast_waitall(nreq, req));
        for (int v = 1, at = 0; v < k; v++)
            for (int j = 0; j < p; j++)
                if ((j / w) % k == v)
                    cs_copy(tmp + (size_t)j * n, rb + (size_t)at++ * n, n);
    }
    for (int j = 0; j < p; j++)
        cs_copy(b.r + (size_t)((r - j + p) % p) * n, tmp + (size_t)j * n, n);
out:
    free(tmp);
    free(req);
    free(off);
    return cs_alltoall_bytes_put(c, &b, rc);
}
