/* Bcast, node-aware ("bcast.node.M", M a point-to-point bcast method).
 *
 * Algorithm: on the root's node, a shared-memory bcast from the root
 * (bcast.shm.ota); then the node leaders (node rank 0) run M among
 * themselves from the root's node; then every other node's leader
 * shared-memory-bcasts to its node.  One copy of the message crosses the
 * network per node instead of one per rank; the node steps cost what the
 * shared-memory method costs.  Open MPI's coll/han and xhc, MPICH's
 * MPIR_Bcast_intra_smp have the same shape.
 * Restrictions: the communicator spans two or more (virtual) nodes.
 * Cost: T_shm(n) + T_M(nodes, n) + T_shm(n).
 */
#include "coll/shm/shm.h"
#include "bcast.h"

int cs_bcast_node(const cs_call *c, const cs_method *m)
{
    cs_node *nd = cs_node_get(c);
    const cs_method *outer = cs_node_outer(m), *inner = cs_node_inner(CS_BCAST);
    if (!nd || !outer || !inner)
        return cs_shm_native(c);
    cs_call in, out;
    cs_node_calls(nd, c, &in, &out);
    const int rnode = nd->node_of[2 * c->root], home = nd->my_node == rnode;
    int rc = MPI_SUCCESS;
    if (home) {
        in.root = nd->node_of[2 * c->root + 1];
        CS_TRY(cs_method_run(inner, &in));
    }
    if (nd->leaders != MPI_COMM_NULL) {
        out.root = rnode;
        CS_TRY(cs_method_applies(outer, &out)
                   ? cs_method_run(outer, &out)
                   : PMPI_Bcast(c->buf, c->count, c->dt, rnode, nd->leaders));
    }
    if (!home) {
        in.root = 0;
        CS_TRY(cs_method_run(inner, &in));
    }
out:
    return rc;
}
