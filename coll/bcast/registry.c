/* Bcast methods: the registry table (the single source of bcast method
 * names, see ../coll.h for the naming rules).  Entry 0 is native.  The
 * tree-shaped families come unsegmented and with every segment size of
 * SEGMENTED(), generated here rather than written out. */
#include "coll/shm/shm.h"
#include "bcast.h"

#define M(name, algo, seg, fan, desc, applies, fn) \
    CS_METHOD(CS_BCAST, "bcast." name, algo, seg, fan, desc, applies, fn)
#define SEGMENTED(name, algo, fan, desc, fn) \
    CS_SEGMENTED(CS_BCAST, "bcast." name, algo, fan, desc, NULL, fn)
#define KNOMIAL(k) SEGMENTED("knomial.k" #k, "knomial", k, \
                             "k-nomial tree of radix k (UCC knomial)", cs_bcast_knomial)

const cs_method cs_bcast_methods[] = {
    /* name, algorithm, segment bytes, fan-out, description, applies, function */
    M("native", "native", 0, 0, "the MPI library's own MPI_Bcast", NULL, cs_bcast_native),
    M("linear", "linear", 0, 0, "root sends to every rank in turn", NULL, cs_bcast_linear),
    SEGMENTED("chain.k2", "chain", 2, "k chains hanging off the root", cs_bcast_chain),
    SEGMENTED("chain.k4", "chain", 4, "k chains hanging off the root", cs_bcast_chain),
    SEGMENTED("pipeline", "pipeline", 1, "one chain through all ranks", cs_bcast_chain),
    SEGMENTED("binary", "binary", 2, "complete binary tree", cs_bcast_binary),
    SEGMENTED("splitbinary", "splitbinary", 2,
              "binary tree, each half of the message down one subtree, then pairwise exchange",
              cs_bcast_splitbinary),
    SEGMENTED("binomial", "binomial", 2, "binomial tree", cs_bcast_binomial),
    KNOMIAL(3), KNOMIAL(4), KNOMIAL(5), KNOMIAL(6), KNOMIAL(7), KNOMIAL(8),
    M("scatter_rdallgather", "scatter_rdallgather", 0, 0,
      "binomial scatter + recursive-doubling allgather (long messages)",
      cs_bcast_applies_int_bytes, cs_bcast_scatter_rdallgather),
    M("scatter_ringallgather", "scatter_ringallgather", 0, 0,
      "binomial scatter + ring allgather (van de Geijn, long messages)",
      cs_bcast_applies_int_bytes, cs_bcast_scatter_ringallgather),
    M("shm.ota", "shm.ota", 0, 0,
      "shared memory: the root copies in, all copy out, 64 KiB double-buffered chunks",
      cs_shm_applies, cs_bcast_shm_ota),
#define SHM_TREE(k)                                                                        \
    M("shm.tree.k" #k, "shm.tree", 0, k,                                                   \
      "shared memory: chunks pipelined down a " #k "-ary tree of slots", cs_shm_applies,   \
      cs_bcast_shm_tree)
    SHM_TREE(1), SHM_TREE(2), SHM_TREE(3), SHM_TREE(4),
    M("shm.cma", "shm.cma", 0, 0,
      "shared memory, one copy: every rank reads the root's buffer (process_vm_readv)",
      cs_shm_applies_cma, cs_bcast_shm_cma),
    M("shm.ag", "shm.ag", 0, 0,
      "shared memory: each rank reads one piece of the root's buffer into its slot "
      "(process_vm_readv), all copy every piece out",
      cs_shm_applies_cma, cs_bcast_shm_ag),
    /* node-aware (two or more nodes): shared memory in the nodes, M among the leaders */
    M("node.binomial", "node", 0, 2, "node-aware: shared memory in nodes, binomial among them",
      cs_node_applies, cs_bcast_node),
    M("node.knomial.k4", "node", 0, 4, "node-aware: shared memory in nodes, 4-nomial among them",
      cs_node_applies, cs_bcast_node),
    M("node.scatter_ringallgather", "node", 0, 0,
      "node-aware: shared memory in nodes, scatter + ring allgather among them", cs_node_applies,
      cs_bcast_node),
    M("node.dynamic", "node.dynamic", 0, 0,
      "node-aware, dynamic leader: each node's first arrival pulls the message from the root "
      "(served in request order) and shares it through shared memory; a small message to a "
      "small node goes to each of its ranks unasked",
      cs_bcast_node_dynamic_applies, cs_bcast_node_dynamic),
};
const int cs_bcast_nmethods = (int)(sizeof cs_bcast_methods / sizeof cs_bcast_methods[0]);
