/* Allreduce, node-aware with dynamic leaders: "allreduce.node.dynamic".
 *
 * Algorithm: reduce.node.dynamic to rank 0 (every node's result leaves its
 * node with the node's last arrival, straight to rank 0), then
 * bcast.node.binomial from rank 0 (each node's leader receives and
 * shares through shared memory).  The result is made once, at rank 0, and
 * copied: the same bits on every rank.
 * Restrictions: two or more (virtual) nodes, a commutative op, dense
 * elements; a node of more than 64 ranks runs the MPI library's
 * allreduce.
 * Cost: T_reduce.node.dynamic(n) + T_bcast.node.binomial(n).
 */
#include "coll/reduce/reduce.h"
#include "coll/shm/shm.h"
#include "allreduce.h"

int cs_allreduce_node_dynamic(const cs_call *c, const cs_method *m)
{
    (void)m;
    enum cs_coll cc;
    const cs_method *bcast = cs_method_find("bcast.node.binomial", &cc, NULL);
    if (!bcast)
        return cs_shm_native(c);
    cs_call r = *c, b = *c;
    r.coll = CS_REDUCE;
    r.root = 0;
    int rc;
    CS_TRY(cs_reduce_node_dynamic_into(&r, c->buf));
    b.coll = CS_BCAST;
    b.sendbuf = NULL;
    b.root = 0;
    CS_TRY(cs_method_run(bcast, &b));
out:
    return rc;
}
