/* Allreduce through shared memory in arrival order:
 * "allreduce.shm.dynamic".
 *
 * Algorithm (../shm/dynamic.c): as reduce.shm.dynamic, with every rank
 * copying the result out.  Each element is combined once, into one shared
 * accumulator that every rank copies: every rank holds the same bits, also
 * when the order of the operands followed the arrival (an exact op, or
 * floating point with c->reorder_fp).  Otherwise the fixed order of
 * allreduce.shm.direct (the same bits), its arrived prefix combined early.
 * References: Open MPI's xhc (coll_xhc_dynamic_reduce); Proficz,
 * J. Supercomputing 2018; MPICH's release-gather allreduce (the shared
 * accumulators of a node).
 * Restrictions: one node, dense datatype elements, at most 64 ranks.
 * Cost per chunk of n bytes: balanced arrival, one piece (n < 4 KiB): p
 * lock hand-offs and p n gamma in turn, alpha + n copy-out per rank;
 * pieces: n copy-in, about n gamma per rank in parallel, n copy-out.  After
 * the last of a skewed arrival: alpha + n gamma (one piece) or n copy-in +
 * n/p gamma, then alpha + n copy-out.
 */
#include "../shm/shm.h"
#include "allreduce.h"

int cs_allreduce_shm_dynamic(const cs_call *c, const cs_method *m)
{
    (void)m;
    return cs_shm_dynamic(c, 1);
}
