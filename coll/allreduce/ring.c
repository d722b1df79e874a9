/* Allreduce: ring ("allreduce.ring", segmented "allreduce.ring.segNk").
 *
 * Algorithm: the vector is cut into p blocks.  Reduce-scatter: in step
 * s = 0 .. p-2 rank r sends block r - s to r + 1 and combines block
 * r - s - 1, received from r - 1, into its own; after p - 1 steps it holds
 * block r + 1 fully reduced.  Allgather: p - 1 more steps pass the reduced
 * blocks around the ring.  Every block is reduced once, at one rank, and
 * copied to the others: the same bits everywhere.  Segmented: the vector
 * is processed in chunks of p blocks of at most segsize bytes each (the
 * temporary stays one block; Open MPI's segmented ring, algorithm 5,
 * pipelines the same way).  Patarasuk & Yuan, "Bandwidth optimal all-reduce
 * algorithms for clusters of workstations", JPDC 2009; Open MPI's
 * ompi_coll_base_allreduce_intra_ring.
 * Restrictions: commutative ops (each block is combined in a rotated
 * order).
 * Cost: 2 (p - 1) alpha + 2 (p - 1)/p n beta + (p - 1)/p n gamma per chunk
 * (bandwidth-optimal; latency linear in p).
 */
#include <stdlib.h>

#include "allreduce.h"

int cs_allreduce_ring(const cs_call *c, const cs_method *m)
{
    const int p = c->size, r = c->rank;
    if (c->count == 0)
        return MPI_SUCCESS;
    char *raw = NULL, *tmp = NULL;
    int *disp = NULL;
    cs_rtype t;
    int rc;
    CS_TRY(cs_reduce_rtype(c->dt, &t));
    const void *own = c->sendbuf == MPI_IN_PLACE ? c->buf : c->sendbuf;
    if (own != c->buf)
        CS_TRY(cs_reduce_copy(c, &t, own, c->buf, c->count));
    if (p == 1)
        goto out;
    long block = m->segsize > 0 ? m->segsize / (t.size > 0 ? t.size : 1) : 0;
    if (block < 1 || block > (c->count + p - 1) / p)
        block = (c->count + p - 1) / p; /* unsegmented: one chunk */
    const long chunk = block * p;
    tmp = cs_reduce_tmp(&t, (int)block, &raw);
    disp = malloc(sizeof *disp * (size_t)(p + 1));
    const int right = (r + 1) % p, left = (r - 1 + p) % p;
    if (!tmp || !disp) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (long off = 0; off < c->count; off += chunk) {
        const int n = (int)(c->count - off < chunk ? c->count - off : chunk);
        char *base = (char *)c->buf + off * t.extent;
        for (int i = 0; i <= p; i++)
            disp[i] = (int)cs_piece_at((size_t)n, p, i);
#define AT(b) (base + (MPI_Aint)disp[b] * t.extent)
#define LEN(b) (disp[(b) + 1] - disp[b])
        for (int s = 0; s < p - 1; s++) {
            const int sb = (r - s + p) % p, rb = (r - s - 1 + 2 * p) % p;
            CS_TRY(PMPI_Sendrecv(AT(sb), LEN(sb), c->dt, right, CS_TAG_ALLREDUCE, tmp, LEN(rb),
                                 c->dt, left, CS_TAG_ALLREDUCE, c->pcomm, MPI_STATUS_IGNORE));
            CS_TRY(PMPI_Reduce_local(tmp, AT(rb), LEN(rb), c->dt, c->op));
        }
        for (int s = 0; s < p - 1; s++) {
            const int sb = (r + 1 - s + p) % p, rb = (r - s + p) % p;
            CS_TRY(PMPI_Sendrecv(AT(sb), LEN(sb), c->dt, right, CS_TAG_ALLREDUCE, AT(rb),
                                 LEN(rb), c->dt, left, CS_TAG_ALLREDUCE, c->pcomm,
                                 MPI_STATUS_IGNORE));
        }
#undef AT
#undef LEN
    }
out:
    cs_reduce_tmp_free(raw);
    free(disp);
    return rc;
}
