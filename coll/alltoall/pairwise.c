/* Alltoall, pairwise exchange: "alltoall.pairwise".
 *
 * Algorithm: in step i (1 .. p - 1) every rank exchanges one block with
 * partner rank XOR i (one sendrecv): every step is a perfect matching, so
 * no rank receives from two at once.  MPICH's pairwise alltoall
 * (power-of-two communicators).  The steps are run by the ring's loop
 * (ring.c) with this partner rule.
 * Restrictions: p a power of two (p x block bytes fit an int).
 * Cost: (p - 1) (alpha + n beta), one message each way per step.
 */
#include "alltoall.h"

int cs_alltoall_pairwise(const cs_call *c, const cs_method *m)
{
    (void)m;
    return cs_alltoall_steps(c, 1);
}
