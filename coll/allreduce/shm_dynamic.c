/* Allreduce through shared memory in arrival order:
 * "allreduce.shm.dynamic".
 *
 * Algorithm (../shm/dynamic.c): as reduce.shm.dynamic, every rank wanting
 * the result.  Below 4 KiB every rank posts its vector (up to 56 B in one
 * line with its step) and folds the posted contributions into its own
 * buffer as it finds them, in the order found where the op is exact (any
 * order, the same bits) or in the fixed order of allreduce.shm.direct (the
 * same operations everywhere: floating point, also where it may be
 * reordered, up to 56 B); floating point that may be reordered
 * (c->reorder_fp) from 57 B goes into one shared accumulator, under its
 * lock, that every rank copies: the same bits on every rank.  From 4 KiB
 * the pieces' shared accumulators, combined once, copied out by all.
 * 2 ranks: below DYN_TWO_RB every chunk is folded in each rank in the
 * fixed order (two operands: the same bits on both); from DYN_TWO_RB
 * reduce.shm.dynamic to rank 0, then bcast.shm.tree.k1.
 * References: Open MPI's xhc (coll_xhc_dynamic_reduce); Proficz,
 * J. Supercomputing 2018; MPICH's release-gather allreduce (the shared
 * accumulators of a node).
 * Restrictions: one node, dense datatype elements, at most 64 ranks.
 * Cost per chunk of n bytes (alpha: a cache-line transfer; gamma:
 * combining a byte): n < 4 KiB (2 ranks: below DYN_TWO_RB): a copy-in,
 * p n gamma per rank; after the last arrival 2 alpha (the last rank loads
 * the others' lines, the loads overlapped with its own store; the others
 * load its line) and the folds left: p n gamma on the last rank, at most
 * n gamma on the others in arrival order (fixed order: those from the
 * last rank's place on; a few elements folded inline, cs_combine, and up
 * to a line nothing computed before the store); no closing round (the
 * step in the line; once every 64 calls a check of the others' `done`
 * lines); reordered floating point from 57 B: p lock hand-offs in turn,
 * then alpha + n copy-out.  From 4 KiB: n copy-in, about n gamma per rank
 * in parallel, n copy-out; after the last of a skewed arrival: n copy-in
 * + n/p gamma, then alpha + n copy-out.  2 ranks from DYN_TWO_RB: n
 * copy-in at rank 1, n gamma at rank 0 (one crossing of the cores), then
 * n copy-in at rank 0 and n copy-out at rank 1 (the other crossing), each
 * pipelined by half a slot; after a late arrival the same, less rank 1's
 * copy-in where rank 1 was early.
 */
#include "coll/bcast/bcast.h"
#include "coll/shm/shm.h"
#include "allreduce.h"

/* From this many bytes a 2-rank call reduces to rank 0 in arrival order
 * (reduce.shm.dynamic) and broadcasts the result down the pipelined
 * slots (bcast.shm.tree.k1); below, each rank folds both vectors itself
 * (../shm/dynamic.c), as allreduce.shm.direct does.  With two ranks no
 * contribution can be combined before the late one comes; folding in
 * both ranks reads the other's vector on each core at once, which from
 * about 100 KiB costs more than the two crossings one after the other.
 * Measured (collsel-bench --arrivals --interleave 300, each round in a new
 * order, 2 ranks one per core, double sum in the fixed order, medians;
 * folded in both against reduce then bcast): balanced 64 KiB 7.66 / 8.10
 * us, 128 KiB 15.0 / 13.1, 256 KiB 29.4 / 23.1; rank 0 20 us late 96 KiB
 * 11.1 / 10.3, rank 1 late 11.3 / 11.1.  (A bench that ran the methods in
 * one fixed order had put this at 16 KiB: the method after native paid
 * for native's aftermath.)  At 4 ranks (on 2 cores) the pieces stay ahead:
 * 1 MiB 184 us against 253. */
#define DYN_TWO_RB (96 * 1024)

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
