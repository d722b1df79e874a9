/* Reduce through shared memory in arrival order: "reduce.shm.dynamic".
 *
 * Algorithm (../shm/dynamic.c): below 4 KiB every rank posts its vector
 * (up to 56 B in one line with its step: no lock, no closing round) and
 * leaves, and the root folds the contributions as it finds them posted,
 * so when the last one comes only it is left.  From 4 KiB the
 * ranks but the root fold their contributions into shared accumulators as
 * they arrive, each under the accumulator's lock (one CAS): the early
 * ones combine whatever is posted, in the order they find it, so when the
 * last one arrives only its own contribution is left to fold in; the root
 * copies its own elements into its result meanwhile and combines each
 * accumulator with them as it completes (one pass, as reduce.shm.tree's
 * root).  Vectors of 4 KiB and more are cut into up to p - 1 pieces with
 * an accumulator each (in the slots of ranks root + 1, root + 2, ...): the
 * ranks post their chunk and take the pieces in turn, so the
 * pre-reduction runs in parallel.  The order of the operands depends on
 * arrival only where that cannot change the bits (an exact op:
 * cs_shm_op_exact) or where the caller allows it for floating point
 * (c->reorder_fp, the shim's COLLSEL_REORDER_FP); otherwise they go in
 * one fixed order, the others' p-1, ..., 0 without the root, then the
 * root's (rank order, the bits of reduce.shm.direct, when the root is rank
 * 0), and the arrived prefix of that order is combined before the late
 * ranks come.  At 2 ranks a commutative op above one line (56 B) runs
 * reduce.shm.tree.k2's code (one other contribution: nothing to order).  The root of a small chunk
 * posts nothing (it is the only rank that folds) and folds its own
 * elements straight from its buffer.  Non-commutative ops: rank order, the root's contribution
 * in the accumulators (the pieces then hold all p and the root copies
 * them out).
 * References: Open MPI's xhc (coll_xhc_dynamic_reduce: out of rank order,
 * non-floating-point types by default); Proficz, J. Supercomputing 2018
 * (pre-reduction by the early arrivals); Marendic et al., Euro-Par 2012.
 * Restrictions: one node, dense datatype elements, at most 64 ranks (one
 * bit each in a piece's mask).
 * Cost per chunk of n bytes (alpha: a cache-line transfer; gamma: combining
 * a byte): 2 ranks, commutative op, above one line: shm.tree.k2's, n
 * copy-in at the other rank, n copy at the root while it waits, alpha + n
 * gamma after the last arrival (the root late: n copy + n gamma).
 * Otherwise n < 4 KiB: a copy-in at every rank but the root, p n gamma at
 * the root, of
 * which only alpha + n gamma after the last arrival (the root loads its
 * line; fixed order: the folds from its place in the order on; the root
 * arriving last: alpha, the others' lines loaded together, + p n gamma);
 * from 4 KiB (pieces, commutative op): n copy-in per rank but the root,
 * about n gamma per rank in parallel, n copy + n gamma at the root (the
 * copy while it waits); after the last of a skewed arrival: n copy-in +
 * n/(p-1) gamma (a non-root late; its post and fold, one copy where it
 * is the only folder), then alpha + n gamma at the root; the root late:
 * n copy + n gamma, whatever came before.
 */
#include "coll/shm/shm.h"
#include "reduce.h"

int cs_reduce_shm_dynamic(const cs_call *c, const cs_method *m)
{
    if (c->size == 2 && c->commute && c->bytes > CS_SHM_INLINE) {
        /* one contribution besides the root's: no order to choose, and
         * reduce.shm.tree's root already does what the engine would (its
         * own elements into its result while it waits, the other's folded
         * in one pass once posted, whoever comes first), with less
         * machinery (measured, 2 ranks one per core, 10 alternating runs,
         * balanced: the engine 1.13-1.22x the faster of shm.tree.k2 and
         * shm.direct at 64 B-3 KiB, 1.03-1.07x from 4 KiB).  A call of one line keeps the engine's
         * (line_run: 0.15 against the tree's 0.17 us at 8 B) */
        cs_method tree = *m;
        tree.fanout = 2;
        return cs_reduce_shm_tree(c, &tree);
    }
    return cs_shm_dynamic(c, 0);
}
