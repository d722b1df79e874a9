/* Reduce, node-aware with dynamic leaders: "reduce.node.dynamic".
 *
 * Algorithm: every node reduces through shared memory in arrival order
 * (../shm/dynamic.c); in every node but the root's the result goes to the
 * rank that arrives last, which sends it to the root at once (MPI_Ssend,
 * tag CS_TAG_NODE_DYNAMIC + its node); the root's node reduces to the
 * root, which receives and folds the other nodes' results in node order.
 * Who crosses nodes is decided in shared memory with no message: the ranks
 * of a node count themselves in with a CAS on a counter of the node's
 * segment (two ranks arriving "at once" get distinct places), and the root
 * knows a node's result by its tag, not by the sender's rank.  A fixed
 * leader would make the node wait for that one rank to be scheduled; here
 * the node's result leaves as soon as its last contribution is in.
 * MPI_Ssend: a node's next call, whose sender may be another rank, cannot
 * overtake this one at the root.  Open MPI's xhc elects its leader the same
 * way (coll_xhc_dynamic_leader), inside a node.
 * Restrictions: two or more (virtual) nodes, a commutative op, dense
 * elements; a node of more than 64 ranks runs the MPI library's reduce.
 * Cost: T_dyn(node, n) (after the node's last arrival: alpha + n gamma or
 * less, see reduce.shm.dynamic) + alpha_net + n beta_net per other node at
 * the root, received in node order, + (nodes - 1) n gamma.
 */
#include "coll/shm/shm.h"
#include "reduce.h"

int cs_reduce_node_dynamic_applies(const cs_call *c, const cs_method *m)
{
    return cs_node_applies_reduction(c, m) && c->st->nnodes < 0x3c00;
}

int cs_reduce_node_dynamic_into(const cs_call *c, void *spare)
{
    cs_node *nd = cs_node_get(c);
    if (!nd || nd->largest > CS_SHM_DYN_MAX)
        return cs_shm_native(c);
    const int rnode = nd->node_of[2 * c->root];
    cs_call in, out;
    cs_node_calls(nd, c, &in, &out);
    if (c->sendbuf == MPI_IN_PLACE)
        in.sendbuf = c->buf;
    int rc = MPI_SUCCESS, last = 0;
    cs_rtype t;
    char *raw = NULL, *part;
    if (nd->my_node != rnode) { /* the node's result to whoever arrives last */
        in.root = 0;
        CS_TRY(cs_shm_dynamic_last(&in, spare, &last));
        if (last && c->count > 0)
            CS_TRY(PMPI_Ssend(spare, c->count, c->dt, c->root, CS_TAG_NODE_DYNAMIC + nd->my_node,
                              c->pcomm));
        goto out;
    }
    in.root = nd->node_of[2 * c->root + 1];
    CS_TRY(cs_shm_dynamic(&in, 0));
    if (c->rank != c->root || c->count == 0)
        goto out;
    CS_TRY(cs_reduce_rtype(c->dt, &t));
    if (!(part = cs_reduce_tmp(&t, c->count, &raw)))
        CS_TRY(MPI_ERR_NO_MEM);
    for (int k = 0; k < c->st->nnodes; k++)
        if (k != rnode) {
            CS_TRY(PMPI_Recv(part, c->count, c->dt, MPI_ANY_SOURCE, CS_TAG_NODE_DYNAMIC + k,
                             c->pcomm, MPI_STATUS_IGNORE));
            CS_TRY(PMPI_Reduce_local(part, c->buf, c->count, c->dt, c->op));
        }
out:
    cs_reduce_tmp_free(raw);
    return rc;
}

int cs_reduce_node_dynamic(const cs_call *c, const cs_method *m)
{
    (void)m;
    cs_rtype t;
    char *raw = NULL, *spare = NULL;
    int rc = MPI_SUCCESS;
    if (c->rank != c->root && c->count > 0) { /* this rank may be its node's last */
        CS_TRY(cs_reduce_rtype(c->dt, &t));
        if (!(spare = cs_reduce_tmp(&t, c->count, &raw)))
            CS_TRY(MPI_ERR_NO_MEM);
    }
    rc = cs_reduce_node_dynamic_into(c, spare);
out:
    cs_reduce_tmp_free(raw);
    return rc;
}
