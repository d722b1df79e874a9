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
 * the pieces' shared accumulators, combined once, copied out by all; but
 * 2 ranks from 16 KiB: reduce.shm.dynamic to rank 0, then
 * bcast.shm.tree.k1 (DYN_TWO_RB below).
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
 * 2 ranks from 16 KiB: n copy-in at rank 1, n gamma at rank 0 (one
 * crossing of the cores), then n copy-in at rank 0 and n copy-out at rank
 * 1 (the other crossing), each pipelined by half a slot; after a late
 * arrival the same, less rank 1's copy-in where rank 1 was early.
 */
#include "coll/bcast/bcast.h"
#include "coll/shm/shm.h"
#include "allreduce.h"

/* From this many bytes a 2-rank call reduces to rank 0 in arrival order
 * (reduce.shm.dynamic) and broadcasts the result down the pipelined
 * slots (bcast.shm.tree.k1) instead of the pieces: with two ranks no
 * contribution can be combined before the late one comes, and the pieces
 * (each rank posts its whole chunk, folds half, copies every half out)
 * cross the two cores both ways at once.  Measured (collsel-bench
 * --arrivals, 2 ranks one per core, double sum, median of 100-200 calls
 * in turn, the pieces against reduce then bcast): balanced 8 KiB 0.56 /
 * 0.61 us, 16 KiB 1.17 / 1.06, 32 KiB 2.33 / 1.86, 64 KiB 4.14 / 3.38,
 * 1 MiB 72.1 / 53.6; rank 1 20 us late 1 MiB 77.7 / 55.7, rank 0 late
 * 79.5 / 55.6.  At 4 ranks (on 2 cores) the pieces stay ahead: 1 MiB
 * 184 us against 253. */
#define DYN_TWO_RB (16 * 1024)

/* bcast.shm.tree.k1 from the registry (looked up once; a race stores the
 * same index twice). */
static const cs_method *bcast_chain(void)
{
    static int idx = -1;
    int i = __atomic_load_n(&idx, __ATOMIC_RELAXED);
    if (i < 0) {
        i = cs_method_index(CS_BCAST, "bcast.shm.tree.k1");
        __atomic_store_n(&idx, i, __ATOMIC_RELAXED);
    }
    return i > 0 ? &cs_bcast_methods[i] : NULL;
}

int cs_allreduce_shm_dynamic(const cs_call *c, const cs_method *m)
{
    (void)m;
    const cs_method *chain = c->size == 2 && c->bytes >= DYN_TWO_RB ? bcast_chain() : NULL;
    if (!chain)
        return cs_shm_dynamic(c, 1);
    cs_call r, b;
    cs_allreduce_as_reduce(c, &r);
    cs_allreduce_as_bcast(c, &b);
    int rc = cs_shm_dynamic(&r, 0); /* the result at rank 0, computed once: the same bits
                                       everywhere */
    int rb = cs_method_run(chain, &b); /* always: rank 0 does, and its peer waits for it */
    CS_TRY_CODE(rc);                   /* the reduce's error first */
    CS_TRY(rb);
out:
    return rc;
}
