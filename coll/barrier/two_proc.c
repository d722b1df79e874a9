/* Barrier: two processes ("barrier.two_proc").
 *
 * Algorithm: the two ranks exchange one zero-byte message (a simultaneous
 * send-receive): each has then heard from the other.  Open MPI coll/base
 * "two_procs" barrier.
 * Restrictions: applies only when p == 2 (dispatch falls back otherwise).
 * Cost: alpha; no bytes.
 */
#include "barrier.h"

int cs_barrier_two_proc_applies(const cs_call *c, const cs_method *m)
{
    (void)m;
    return c->size == 2;
}

int cs_barrier_two_proc(const cs_call *c, const cs_method *m)
{
    (void)m;
    int peer = 1 - c->rank;
    return cs_bar_sendrecv(c, peer, peer);
}
