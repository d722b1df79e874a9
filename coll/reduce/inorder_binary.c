/* Reduce: in-order binary tree ("reduce.inorder_binary[.segNk]").
 *
 * Algorithm: the segmented-tree engine (engine.c) on a binary search tree
 * over the ranks rooted at the call's root (topo.c, CS_TOPO_INORDER_BINARY):
 * the root's left subtree holds ranks 0..root-1 and its right subtree
 * root+1..p-1, each balanced around its middle rank.  Every subtree is a
 * contiguous rank range, so a node computes L op x(me) op R (L, R: its
 * children's partial results; right child combined first) and the result
 * is x0 op ... op x(p-1) for any op, commutative or not.  At the root a
 * right child costs one extra local copy per segment for a
 * non-commutative op.
 * Reference: Open MPI coll/base "in-order binary" reduce
 * (ompi_coll_base_reduce_intra_in_order_binary), there rooted at p-1 and
 * forwarded to the root; here rooted at the root itself.
 * Restrictions: none (the method for non-commutative ops).
 * Cost: like binary: (n/s + log2 p - 1) * 2 (alpha + s beta + s gamma),
 * s = segment bytes (s = n when unsegmented).
 */
#include "reduce.h"

int cs_reduce_inorder_binary(const cs_call *c, const cs_method *m)
{
    const cs_topo *t = cs_topo_cached(c, CS_TOPO_INORDER_BINARY, c->root, 2);
    if (!t)
        return MPI_ERR_NO_MEM;
    return cs_reduce_tree(c, t, m->segsize, c->buf);
}
