/* Bcast: the tree-shaped methods, each a thin wrapper that fetches its
 * cached topology (../topo.c) and runs the segmented-tree engine
 * (engine.c) with the method's segment size m->segsize (0 = unsegmented).
 * Cost of each: the engine's T ~ (n/s + d - 1) k (alpha + s beta) with the
 * tree's depth d and fan-out k given below (n bytes, P processes,
 * s = segment size, s = n unsegmented).  Restrictions: none.
 *
 * linear    root sends to every rank in turn.  d = 1, k = P-1:
 *           (P-1)(alpha + n beta) unsegmented.  Reference: Open MPI
 *           coll/base basic_linear bcast.
 * chain.kF  F chains of ~(P-1)/F ranks hanging off the root; segments
 *           stream down each chain.  d = ceil((P-1)/F), k = F.  Reference:
 *           Open MPI ompi_coll_base_bcast_intra_chain.
 * pipeline  chain with F = 1: d = P-1, k = 1:
 *           (n/s + P - 2)(alpha + s beta), bandwidth-optimal for n >> P s.
 *           Reference: Open MPI ompi_coll_base_bcast_intra_pipeline.
 * binary    complete binary tree in heap order.  d = floor(log2 P), k = 2.
 *           Reference: Open MPI ompi_coll_base_bcast_intra_bintree.
 * binomial  binomial tree.  d = k = ceil(log2 P) at the root:
 *           ceil(log2 P)(alpha + n beta) unsegmented.  Reference: MPICH
 *           bcast_intra_binomial; Thakur, Rabenseifner, Gropp,
 *           "Optimization of collective communication operations in MPICH",
 *           IJHPCA 19(1), 2005.
 * knomial.kK  k-nomial tree of radix K: d = ceil(log_K P), up to K-1
 *           children per level: ceil(log_K P)(K-1)(alpha + n beta)
 *           unsegmented, fewer rounds than binomial for small n.
 *           Reference: UCC tl/ucp bcast_knomial.
 */
#include "bcast.h"

static int tree(const cs_call *c, const cs_method *m, int kind, int fanout)
{
    if (c->size < 2 || c->bytes == 0)
        return MPI_SUCCESS;
    return cs_bcast_tree(c, cs_topo_cached(c, kind, c->root, fanout), (size_t)m->segsize);
}

int cs_bcast_linear(const cs_call *c, const cs_method *m)
{
    return tree(c, m, CS_TOPO_LINEAR, 0);
}

int cs_bcast_chain(const cs_call *c, const cs_method *m)
{
    return tree(c, m, CS_TOPO_CHAIN, m->fanout);
}

int cs_bcast_binary(const cs_call *c, const cs_method *m)
{
    return tree(c, m, CS_TOPO_KARY, 2);
}

int cs_bcast_binomial(const cs_call *c, const cs_method *m)
{
    return tree(c, m, CS_TOPO_BINOMIAL, 2);
}

int cs_bcast_knomial(const cs_call *c, const cs_method *m)
{
    return tree(c, m, CS_TOPO_KNOMIAL, m->fanout);
}
