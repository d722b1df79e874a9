/* Reduce through shared memory: "reduce.shm.direct" and "reduce.shm.ag".
 *
 * Both: every rank copies its vector, in chunks of half a slot, into its
 * own slot of the communicator's segment (../shm/shm.h) and raises its post
 * flag; operands are combined with PMPI_Reduce_local straight from the
 * slots, in rank order, so every op works, non-commutative ones included.
 *   direct  the root combines all p contributions of each chunk itself.
 *           Cost per chunk of n bytes: one copy-in everywhere, (p - 1) n
 *           gamma at the root, one flag transfer.  Small messages.
 *   ag      (the intra-Cell paper's AG) rank j combines piece j (1/p of the
 *           chunk) across all contributions into the second half of its
 *           slot, then the root copies the p pieces out.  Cost per chunk:
 *           copy-in, (p - 1)/p n gamma per rank in parallel, 2 flag
 *           transfers, n copy at the root.  Large messages.
 *   tree.kN (the paper's TREE, commutative ops) every rank combines its
 *           children's partial results into its own, up a k-ary tree rooted
 *           at the root, in the second half of its slot.  Cost per chunk:
 *           ceil(log_k p) levels of a flag transfer and k n gamma.  Spreads
 *           the combining when p is large.
 * Velamati et al., HiPC 2007 (reduce: TREE and AG).
 * Restrictions: one node; a datatype with dense elements (cs_shm_applies_dense:
 * the slots hold elements, not packed bytes); tree: a commutative op.
 */

#include "coll/shm/shm.h"
#include "reduce.h"

int cs_reduce_shm_direct(const cs_call *c, const cs_method *m)
{
    (void)m;
    return cs_shm_reduction(c, 0, 0);
}

int cs_reduce_shm_ag(const cs_call *c, const cs_method *m)
{
    (void)m;
    return cs_shm_reduction(c, 1, 0);
}

int cs_reduce_shm_tree_applies(const cs_call *c, const cs_method *m)
{
    return c->commute && cs_shm_applies_dense(c, m);
}

/* Fold the partial results of children first .. last - 1 (virtual ranks)
 * of step into acc (n elements), each as soon as it is posted. */
static int fold_children(const cs_shm *s, const cs_call *c, long first, long last, uint64_t step,
                         char *acc, int n)
{
    const int P = s->p;
    int rc = MPI_SUCCESS;
    for (long ch = first; ch < last; ch++) {
        int r = (int)((ch + c->root) % P);
        cs_shm_wait(s, &s->r[r]->post, step);
        CS_TRY(PMPI_Reduce_local(cs_shm_result(s, r, step), acc, n, c->dt, c->op));
    }
out:
    return rc;
}

int cs_reduce_shm_tree(const cs_call *c, const cs_method *m)
{
    int esz, rc;
    cs_shm *s = cs_shm_reduction_start(c, &esz, &rc);
    if (!s)
        return rc;
    const int P = s->p, k = m->fanout, v = (s->rank - c->root + P) % P;
    const int chunk = cs_shm_chunk((size_t)esz);
    const long first = (long)v * k + 1, last = first + k < P ? first + k : P;
    const char *own = c->sendbuf == MPI_IN_PLACE ? c->buf : c->sendbuf;
    cs_shm_rank *me = s->r[s->rank];
    for (int off = 0; off < c->count; off += chunk) {
        const int n = c->count - off < chunk ? c->count - off : chunk;
        const size_t at = (size_t)off * (size_t)esz, bytes = (size_t)n * (size_t)esz;
        const uint64_t step = ++s->step;
        /* the partial result: the root's own receive buffer, else the
         * second half of this rank's slot (read by its parent) */
        char *acc = v == 0 ? (char *)c->buf + at : (char *)cs_shm_result(s, s->rank, step);
        if (v != 0)
            cs_shm_slot_free(s, step);
        if (acc != own + at)
            cs_copy(acc, own + at, bytes);
        rc = fold_children(s, c, first, last, step, acc, n);
        if (v != 0)
            cs_shm_set(&me->post, step);
        cs_shm_set(&me->done, step);
        CS_TRY_CODE(rc); /* after the step: nobody waits for this rank's flags */
    }
out:
    return rc;
}
