/* The barrier registry: the single source of barrier method names
 * (`collsel methods`, COLLSEL_FORCE, tree files, collsel-replay and the
 * test matrix read it through ../registry.c).  Entry 0 is native. */
#include "coll/shm/shm.h"
#include "barrier.h"

#define M(name, algo, fan, desc, applies, fn) \
    CS_METHOD(CS_BARRIER, "barrier." name, algo, 0, fan, desc, applies, fn)
#define TREE(k) \
    M("tree.k" #k, "tree", k, "fan-in to rank 0 then fan-out on a " #k "-ary tree", NULL, \
      cs_barrier_tree)

const cs_method cs_barrier_methods[] = {
    /* name, algorithm, fan-out, description, applies, function (no segments) */
    M("native", "native", 0, "the MPI library's own MPI_Barrier", NULL, cs_barrier_native),
    M("linear", "linear", 0, "all signal rank 0, rank 0 releases all (2(p-1) messages at rank 0)",
      NULL, cs_barrier_linear),
    TREE(2),
    TREE(3),
    TREE(4),
    TREE(8),
    M("double_ring", "double_ring", 0, "a token travels twice around the ring (2p sequential "
      "messages)", NULL, cs_barrier_double_ring),
    M("recursive_doubling", "recursive_doubling", 0,
      "pairwise exchange with r^2^k, extra ranks folded onto the power of two", NULL,
      cs_barrier_recursive_doubling),
    M("dissemination", "dissemination", 2,
      "round k: signal r+2^k, wait for r-2^k (ceil(log2 p) rounds)", NULL,
      cs_barrier_dissemination),
    M("bruck", "bruck", 3,
      "k-port dissemination, k=3: 2 concurrent signals per round, ceil(log3 p) rounds", NULL,
      cs_barrier_bruck),
    M("two_proc", "two_proc", 0,
      "one exchange between the two ranks (communicators of size 2 only)",
      cs_barrier_two_proc_applies, cs_barrier_two_proc),
    /* shared memory (one node): flags in the communicator's segment */
    M("shm.ota", "shm.ota", 0, "shared memory: all flag rank 0, rank 0 releases all",
      cs_shm_applies, cs_barrier_shm_ota),
    M("shm.counter", "shm.counter", 0, "shared memory: one atomic counter all add to (SIG)",
      cs_shm_applies, cs_barrier_shm_counter),
    M("shm.tree.k2", "shm.tree", 2, "shared memory: arrival up, release down a 2-ary tree",
      cs_shm_applies, cs_barrier_shm_tree),
    M("shm.tree.k4", "shm.tree", 4, "shared memory: arrival up, release down a 4-ary tree",
      cs_shm_applies, cs_barrier_shm_tree),
    M("shm.tree.k8", "shm.tree", 8, "shared memory: arrival up, release down a 8-ary tree",
      cs_shm_applies, cs_barrier_shm_tree),
    M("shm.pairwise", "shm.pairwise", 2,
      "shared memory: pairwise exchange of flags (recursive doubling, folded)", cs_shm_applies,
      cs_barrier_shm_pairwise),
    M("shm.dissemination", "shm.dissemination", 2,
      "shared memory: round k flags r+2^k, waits for r-2^k", cs_shm_applies,
      cs_barrier_shm_dissemination),
    M("node.dissemination", "node", 2,
      "node-aware: shared-memory barrier in nodes, dissemination among them, release",
      cs_node_applies, cs_barrier_node),
    M("node.recursive_doubling", "node", 0,
      "node-aware: shared-memory barrier in nodes, recursive doubling among them, release",
      cs_node_applies, cs_barrier_node),
};
const int cs_barrier_nmethods = sizeof cs_barrier_methods / sizeof cs_barrier_methods[0];
