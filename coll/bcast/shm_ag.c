/* Bcast with the pieces moved in parallel: "bcast.shm.ag" (the intra-Cell
 * paper's AG bcast: each process moves a different piece).
 *
 * Algorithm: the root publishes where its bytes are (as bcast.shm.cma
 * does).  The message goes in spans of (p - 1) slots: non-root rank j
 * reads piece j of the span straight from the root's memory into its own
 * slot (process_vm_readv) and raises its post flag; then every non-root
 * rank copies all p - 1 pieces out of the slots into its buffer.  Each
 * byte crosses the root's memory once (bcast.shm.cma reads it p - 1 times,
 * all readers pinning the same pages) and the slots are double-buffered,
 * so the next span is read while this one is copied out.  The root
 * returns when every rank is done with its buffer.  Where the kernel does
 * not let the ranks read each other (found when the segment is made,
 * agreed by all) the method runs bcast.shm.ota and stops applying.
 * Velamati et al., HiPC 2007 (AG: best for large messages).
 * Restrictions: one node, cross-memory attach allowed.
 * Cost per span of (p - 1) s bytes: a system call and s bytes read per
 * rank in parallel, one flag transfer, (p - 1) s bytes copied out per rank.
 */
#include <unistd.h>

#include "coll/shm/shm.h"
#include "bcast.h"

/* Piece j (0 .. q - 1) of len bytes cut in q: offset and length. */
static void piece(size_t len, int q, int j, size_t *at, size_t *n)
{
    *at = cs_piece_at(len, q, j);
    *n = cs_piece_at(len, q, j + 1) - *at;
}

int cs_bcast_shm_ag(const cs_call *c, const cs_method *m)
{
    cs_bcast_bytes b;
    int rc;
    cs_shm *s = cs_bcast_shm_start(c, m, &b, &rc);
    if (!s)
        return rc;
    const int P = s->p, q = P - 1, j = (s->rank - c->root + P) % P - 1; /* -1: the root */
    cs_shm_rank *root = s->r[c->root], *me = s->r[s->rank];
    uint64_t step = ++s->step;
    if (j < 0) {
        root->cma.addr = (uint64_t)(uintptr_t)b.p;
        root->cma.pid = (int64_t)getpid();
        cs_shm_set(&root->cma.v, step);
    } else {
        cs_shm_wait(s, &root->cma.v, step);
    }
    cs_shm_set(&me->done, step);
    const size_t span = (size_t)q * CS_SHM_SLOT;
    for (size_t off = 0; off < c->bytes; off += span) {
        const size_t len = c->bytes - off < span ? c->bytes - off : span;
        step = ++s->step;
        if (j >= 0) {
            size_t at, n;
            piece(len, q, j, &at, &n);
            cs_shm_slot_free(s, step);
            int r = cs_shm_pull(root, off + at, me->slot[step % 2], n);
            rc = rc == MPI_SUCCESS ? r : rc;
            cs_shm_set(&me->post, step); /* raised on failure too: nobody waits forever */
            for (int i = 0; i < q; i++) {
                const int from = (c->root + 1 + i) % P;
                if (from != s->rank)
                    cs_shm_wait(s, &s->r[from]->post, step);
                piece(len, q, i, &at, &n);
                cs_copy(b.p + off + at, s->r[from]->slot[step % 2], n);
            }
        }
        cs_shm_set(&me->done, step);
    }
    if (j < 0) /* the root's buffer is read until every rank is done */
        for (int i = 0; i < P; i++)
            if (i != s->rank)
                cs_shm_wait(s, &s->r[i]->done, step);
    return cs_bcast_bytes_put(c, &b, rc);
}
