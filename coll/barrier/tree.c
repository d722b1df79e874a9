/* Barrier: k-ary tree fan-in / fan-out ("barrier.tree.kN", N = m->fanout).
 *
 * Algorithm: on the complete k-ary tree rooted at rank 0 (topo.c,
 * CS_TOPO_KARY), each rank waits for a zero-byte message from each of its
 * children, then signals its parent (fan-in); the root, having heard from
 * the whole tree, sends the release down the same tree (fan-out).  The
 * combining-tree barrier of Mellor-Crummey & Scott, "Algorithms for scalable
 * synchronization on shared-memory multiprocessors", ACM TOCS 9(1), 1991;
 * Open MPI coll/base "tree" barrier (k = 2).
 * Restrictions: none (any p, any k >= 2).
 * Cost: 2 ceil(log_k p) levels, each costing up to k alpha at the parent:
 * about 2 k log_k(p) alpha; no bytes.
 */
#include "coll/topo.h"
#include "barrier.h"

int cs_barrier_tree(const cs_call *c, const cs_method *m)
{
    if (c->size == 1)
        return MPI_SUCCESS;
    const cs_topo *t = cs_topo_cached(c, CS_TOPO_KARY, 0, m->fanout);
    if (!t)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < t->nchildren; i++)
        CS_TRY(cs_bar_recv(c, t->children[i]));
    if (t->parent >= 0) {
        CS_TRY(cs_bar_send(c, t->parent));
        CS_TRY(cs_bar_recv(c, t->parent));
    }
    for (int i = 0; i < t->nchildren; i++)
        CS_TRY(cs_bar_send(c, t->children[i]));
out:
    return rc;
}
