/* Allreduce through shared memory: "allreduce.shm.direct" and
 * "allreduce.shm.ag".
 *
 * Both: every rank copies its vector, in chunks of half a slot, into its
 * own slot of the communicator's segment (../shm/shm.h) and raises its post
 * flag; operands are combined with PMPI_Reduce_local straight from the
 * slots, in rank order (every op works, non-commutative ones included).
 *   direct  every rank combines all p contributions itself: the same
 *           operations on the same operands in the same order on every
 *           rank, so the same bits.  One flag wait per chunk: the fastest
 *           for small vectors.  Cost per chunk of n bytes: copy-in, one flag
 *           transfer, (p - 1) n gamma per rank.
 *   ag      rank j combines piece j (1/p of the chunk) into the second half
 *           of its slot; then every rank copies the p pieces out (each
 *           element reduced once: the same bits).  Cost per chunk: copy-in,
 *           (p - 1)/p n gamma, 2 flag transfers, n copy-out.  Large vectors.
 * Velamati et al., HiPC 2007 (AG); MPICH's release-gather allreduce.
 * Restrictions: one node; dense datatype elements (cs_shm_applies_dense).
 */
#include "coll/shm/shm.h"
#include "allreduce.h"

int cs_allreduce_shm_direct(const cs_call *c, const cs_method *m)
{
    (void)m;
    return cs_shm_reduction(c, 0, 1);
}

int cs_allreduce_shm_ag(const cs_call *c, const cs_method *m)
{
    (void)m;
    return cs_shm_reduction(c, 1, 1);
}
