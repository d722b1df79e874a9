/* Reduce through shared memory: "reduce.shm.direct" and "reduce.shm.ag".
 *
 * Both: every rank copies its vector, in chunks of half a slot, into its
 * own slot of the communicator's segment (../shm/shm.h) and raises its post
 * flag; operands are combined with PMPI_Reduce_local straight from the
 * slots, in rank order, so every op works, non-commutative ones included.
 *   direct  the root combines all p contributions of each chunk itself.
 *           Cost per chunk of n bytes: one copy-in everywhere, (p - 1) n
 *           gamma at the root, one flag transfer.  Small messages.
 *   ag      (the intra-Cell paper's AG) rank j combines piece j (1/p of the
 *           chunk) across all contributions into the second half of its
 *           slot, then the root copies the p pieces out.  Cost per chunk:
 *           copy-in, (p - 1)/p n gamma per rank in parallel, 2 flag
 *           transfers, n copy at the root.  Large messages.
 * Velamati et al., HiPC 2007 (reduce: TREE and AG).
 * Restrictions: one node; a datatype with dense elements (cs_shm_applies_dense:
 * the slots hold elements, not packed bytes).
 */
#include "../shm/shm.h"
#include "reduce.h"

int cs_reduce_shm_direct(const cs_call *c, const cs_method *m)
{
    (void)m;
    return cs_shm_reduction(c, 0, 0);
}

int cs_reduce_shm_ag(const cs_call *c, const cs_method *m)
{
    (void)m;
    return cs_shm_reduction(c, 1, 0);
}
