/* The barrier registry: the single source of barrier method names
 * (`collsel methods`, COLLSEL_FORCE, tree files, collsel-replay and the
 * test matrix read it through ../registry.c).  Entry 0 is native. */
#include "barrier.h"

int cs_barrier_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Barrier(c->comm);
}

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
};
const int cs_barrier_nmethods = sizeof cs_barrier_methods / sizeof cs_barrier_methods[0];
