/* Allreduce, node-aware ("allreduce.node.M", M a point-to-point allreduce
 * method).
 *
 * Algorithm: every node reduces to its leader through shared memory
 * (reduce.shm.direct, into the leader's receive buffer); the leaders run M
 * in place among themselves; every leader bcasts the result to its node
 * through shared memory (bcast.shm.ota).  Each element is combined by one
 * leader-level expression the leaders agree on and copied to the node:
 * the same bits everywhere (as far as M gives its leaders the same bits,
 * which every allreduce method does).  MPICH's MPIR_Allreduce_intra_smp.
 * Restrictions: two or more (virtual) nodes; a commutative op and dense
 * datatype elements.
 * Cost: T_shm_reduce(n) + T_M(nodes, n) + T_shm_bcast(n).
 */
#include "coll/shm/shm.h"
#include "allreduce.h"

int cs_allreduce_node(const cs_call *c, const cs_method *m)
{
    cs_node *nd = cs_node_get(c);
    const cs_method *outer = cs_node_outer(m), *reduce = cs_node_inner(CS_REDUCE);
    const cs_method *bcast = cs_node_inner(CS_BCAST);
    if (!nd || !outer || !reduce || !bcast)
        return cs_shm_native(c);
    cs_call in, out;
    cs_node_calls(nd, c, &in, &out);
    in.coll = CS_REDUCE;
    in.root = 0;
    int rc;
    CS_TRY(cs_method_run(reduce, &in)); /* sendbuf, or buf in place: to buf at the leader */
    if (nd->leaders != MPI_COMM_NULL) {
        out.sendbuf = MPI_IN_PLACE;
        CS_TRY(cs_method_applies(outer, &out)
                   ? cs_method_run(outer, &out)
                   : PMPI_Allreduce(MPI_IN_PLACE, c->buf, c->count, c->dt, c->op, nd->leaders));
    }
    cs_call b = in;
    b.coll = CS_BCAST;
    b.sendbuf = NULL;
    CS_TRY(cs_method_run(bcast, &b));
out:
    return rc;
}
