/* Allreduce through shared memory in arrival order:
 * "allreduce.shm.dynamic".
 *
 * Algorithm (../shm/dynamic.c): as reduce.shm.dynamic, every rank wanting
 * the result.  Below 4 KiB (2 ranks: up to 8 KiB, but for floating
 * point that may be reordered) every rank posts its vector (up to 56 B in one
 * line with its step) and folds the posted contributions into its own
 * buffer as it finds them, in the order found where the op is exact (any
 * order, the same bits) or in the fixed order of allreduce.shm.direct (the
 * same operations everywhere: floating point, also where it may be
 * reordered, up to 56 B); floating point that may be reordered
 * (c->reorder_fp) from 57 B goes into one shared accumulator, under its
 * lock, that every rank copies: the same bits on every rank.  From 4 KiB
 * the pieces' shared accumulators, combined once, copied out by all.
 * References: Open MPI's xhc (coll_xhc_dynamic_reduce); Proficz,
 * J. Supercomputing 2018; MPICH's release-gather allreduce (the shared
 * accumulators of a node).
 * Restrictions: one node, dense datatype elements, at most 64 ranks.
 * Cost per chunk of n bytes (alpha: a cache-line transfer; gamma:
 * combining a byte): n < 4 KiB (2 ranks: n <= 8 KiB, where one fold is
 * cheaper than the pieces' locks and copy-out): a copy-in, p n gamma per
 * rank; after the
 * last arrival 2 alpha (the last rank loads the others' lines, the loads
 * overlapped with its own store; the others load its line) and the folds
 * left: p n gamma on the last rank, at most n gamma on the others in
 * arrival order (fixed order: those from the last rank's place on; a few
 * elements folded inline, cs_combine, and up to a line nothing computed
 * before the store); no
 * closing round (the step in the line; once every 64 calls a check of the
 * others' `done` lines); reordered floating point from 57 B: p lock
 * hand-offs in turn, then alpha + n copy-out.  From 4 KiB: n copy-in,
 * about n gamma per rank in parallel, n copy-out; after the last of a
 * skewed arrival: n copy-in + n/p gamma, then alpha + n copy-out.
 */
#include "coll/shm/shm.h"
#include "allreduce.h"

int cs_allreduce_shm_dynamic(const cs_call *c, const cs_method *m)
{
    (void)m;
    return cs_shm_dynamic(c, 1);
}
