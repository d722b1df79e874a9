/* The MPI_Alltoall method table: the single source of alltoall method
 * names (see coll/coll.h for the naming rule).  Entry 0 is native; the
 * applies() functions are in applies.c, native in native.c. */
#include "alltoall.h"

#define M(name, algo, seg, fan, desc, applies, fn) \
    CS_METHOD(CS_ALLTOALL, "alltoall." name, algo, seg, fan, desc, applies, fn)
#define APPLIES cs_alltoall_applies
#define SYNC(k)                                                                             \
    M("linear_sync.k" #k, "linear_sync", 0, k,                                              \
      "throttled linear: at most " #k " receives and " #k " sends in flight", APPLIES,      \
      cs_alltoall_linear_sync)
#define BRUCK(k, name)                                                                      \
    M(name, "bruck", 0, k,                                                                  \
      "Bruck, radix " #k ": rotate, (k-1) ceil(log" #k " p) exchanges of packed blocks, "   \
      "rotate back (small blocks)", APPLIES, cs_alltoall_bruck)

const cs_method cs_alltoall_methods[] = {
    /* name, algorithm, segment bytes, fan-out, description, applies, function */
    M("native", "native", 0, 0, "the MPI library's own MPI_Alltoall", NULL, cs_alltoall_native),
    M("linear", "linear", 0, 0, "every receive and send posted at once, one wait", APPLIES,
      cs_alltoall_linear),
    SYNC(2), SYNC(4), SYNC(8),
    M("pairwise", "pairwise", 0, 0,
      "p - 1 sendrecv steps with partner rank ^ i (power-of-two p)", cs_alltoall_applies_pow2,
      cs_alltoall_pairwise),
    M("ring", "ring", 0, 0, "p - 1 sendrecv steps: to rank + i, from rank - i", APPLIES,
      cs_alltoall_ring),
    BRUCK(2, "bruck"), BRUCK(4, "bruck.k4"),
    M("shm.direct", "shm.direct", 0, 0,
      "shared memory: every rank posts its blocks in its slots, each copies its own out "
      "(chunked, double-buffered)",
      cs_alltoall_applies_shm, cs_alltoall_shm_direct),
    M("shm.cma", "shm.cma", 0, 0,
      "single copy: each rank reads its block from every peer's send buffer "
      "(process_vm_readv)",
      cs_alltoall_applies_cma, cs_alltoall_shm_cma),
    M("node.linear", "node", 0, 0,
      "node-aware: blocks gathered at node leaders, one linear exchange among them, scattered",
      cs_alltoall_applies_node, cs_alltoall_node),
    M("node.ring", "node", 0, 1,
      "node-aware: blocks gathered at node leaders, ring exchange among them, scattered",
      cs_alltoall_applies_node, cs_alltoall_node),
};
const int cs_alltoall_nmethods = (int)(sizeof cs_alltoall_methods / sizeof cs_alltoall_methods[0]);
