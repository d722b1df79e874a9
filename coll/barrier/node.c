/* Barrier, node-aware ("barrier.node.M", M a point-to-point barrier).
 *
 * Algorithm: a shared-memory barrier in every node
 * (barrier.shm.dissemination), M among the node leaders, and a second
 * shared-memory barrier in every node that releases it.
 * Restrictions: the communicator spans two or more (virtual) nodes.
 * Cost: 2 T_shm(node size) + T_M(nodes).
 */
#include "coll/shm/shm.h"
#include "barrier.h"

int cs_barrier_node(const cs_call *c, const cs_method *m)
{
    cs_node *nd = cs_node_get(c);
    const cs_method *outer = cs_node_outer(m), *inner = cs_node_inner(CS_BARRIER);
    if (!nd || !outer || !inner)
        return cs_shm_native(c);
    cs_call in, out;
    cs_node_calls(nd, c, &in, &out);
    int rc;
    CS_TRY(cs_method_run(inner, &in));
    if (nd->leaders != MPI_COMM_NULL)
        CS_TRY(cs_method_applies(outer, &out) ? cs_method_run(outer, &out)
                                              : PMPI_Barrier(nd->leaders));
    CS_TRY(cs_method_run(inner, &in));
out:
    return rc;
}
