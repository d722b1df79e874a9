/* The barrier registry: the single source of barrier method names
 * (`collsel methods`, COLLSEL_FORCE, tree files, collsel-replay and the
 * test matrix read it through ../registry.c).  Entry 0 is native. */
#include "barrier.h"

int cs_barrier_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Barrier(c->comm);
}

#define TREE(k)                                                                     \
    {"barrier.tree.k" #k, CS_BARRIER, "tree", 0, k,                                 \
     "fan-in to rank 0 then fan-out on a " #k "-ary tree", NULL, cs_barrier_tree}

const cs_method cs_barrier_methods[] = {
    {"barrier.native", CS_BARRIER, "native", 0, 0, "the MPI library's own MPI_Barrier",
     NULL, cs_barrier_native},
    {"barrier.linear", CS_BARRIER, "linear", 0, 0,
     "all signal rank 0, rank 0 releases all (2(p-1) messages at rank 0)", NULL,
     cs_barrier_linear},
    TREE(2),
    TREE(3),
    TREE(4),
    TREE(8),
    {"barrier.double_ring", CS_BARRIER, "double_ring", 0, 0,
     "a token travels twice around the ring (2p sequential messages)", NULL,
     cs_barrier_double_ring},
    {"barrier.recursive_doubling", CS_BARRIER, "recursive_doubling", 0, 0,
     "pairwise exchange with r^2^k, extra ranks folded onto the power of two", NULL,
     cs_barrier_recursive_doubling},
    {"barrier.dissemination", CS_BARRIER, "dissemination", 0, 2,
     "round k: signal r+2^k, wait for r-2^k (ceil(log2 p) rounds)", NULL,
     cs_barrier_dissemination},
    {"barrier.bruck", CS_BARRIER, "bruck", 0, 3,
     "k-port dissemination, k=3: 2 concurrent signals per round, ceil(log3 p) rounds", NULL,
     cs_barrier_bruck},
    {"barrier.two_proc", CS_BARRIER, "two_proc", 0, 0,
     "one exchange between the two ranks (communicators of size 2 only)",
     cs_barrier_two_proc_applies, cs_barrier_two_proc},
};
const int cs_barrier_nmethods = sizeof cs_barrier_methods / sizeof cs_barrier_methods[0];
