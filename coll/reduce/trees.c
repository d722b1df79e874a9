/* Reduce: the tree-shaped methods, thin wrappers around the segmented-tree
 * engine (engine.c) on a topology from topo.c, rooted at the call's root
 * (trees built on virtual ranks rank - root).
 *
 *   reduce.chain.kK[.segNk]    K chains hanging off the root (Open MPI
 *                              "chain"); depth ceil((p-1)/K)
 *   reduce.pipeline[.segNk]    one chain: p-1 hops, best with small segments
 *   reduce.binary[.segNk]      complete binary tree in heap order
 *   reduce.binomial[.segNk]    binomial tree (MPICH/Open MPI binomial)
 *   reduce.knomial.kK[.segNk]  k-nomial tree, radix K = 3..8 (UCC knomial)
 *
 * Reference: Open MPI coll/base ompi_coll_base_reduce_intra_{chain,
 * pipeline,binary,binomial}; Pjesivac-Grbovic et al., Cluster Computing
 * 10(2), 2007; UCC tl/ucp reduce_knomial.
 * Restrictions: commutative ops only: the virtual-rank trees (and chains
 * for a root > 0) do not combine in rank order.
 * Cost (n bytes, s-byte segments, depth d, fan-out k):
 *   (n/s + d - 1) k (alpha + s beta + s gamma);  chain d = (p-1)/K, k = K;
 *   pipeline d = p-1, k = 1; binary d = log2 p, k = 2; binomial and
 *   k-nomial: at most (k-1) log_k p receives at the root, d = log_k p.
 */
#include "reduce.h"

static int run(const cs_call *c, const cs_method *m, int kind, int fanout)
{
    const cs_topo *t = cs_topo_cached(c, kind, c->root, fanout);
    if (!t)
        return MPI_ERR_NO_MEM;
    return cs_reduce_tree(c, t, m->segsize, c->buf);
}

int cs_reduce_chain(const cs_call *c, const cs_method *m)
{
    return run(c, m, CS_TOPO_CHAIN, m->fanout);
}

int cs_reduce_pipeline(const cs_call *c, const cs_method *m)
{
    return run(c, m, CS_TOPO_CHAIN, 1);
}

int cs_reduce_binary(const cs_call *c, const cs_method *m)
{
    return run(c, m, CS_TOPO_KARY, 2);
}

int cs_reduce_binomial(const cs_call *c, const cs_method *m)
{
    return run(c, m, CS_TOPO_BINOMIAL, 2);
}

int cs_reduce_knomial(const cs_call *c, const cs_method *m)
{
    return run(c, m, CS_TOPO_KNOMIAL, m->fanout);
}

int cs_reduce_applies_commute(const cs_call *c, const cs_method *m)
{
    (void)m;
    return c->commute;
}
