/* Reduce, node-aware ("reduce.node.M", M a point-to-point reduce method).
 *
 * Algorithm: every node reduces to its leader through shared memory
 * (reduce.shm.direct); the leaders run M to the root's node leader; that
 * leader hands the result to the root if the root is another rank of its
 * node.  One vector per node crosses the network.
 * Restrictions: two or more (virtual) nodes; a commutative op (the nodes
 * regroup the ranks) and dense datatype elements (the node step).
 * Cost: T_shm(n) + T_M(nodes, n) (+ alpha + n beta to a non-leader root).
 */
#include "coll/shm/shm.h"
#include "reduce.h"

int cs_reduce_node(const cs_call *c, const cs_method *m)
{
    cs_node *nd = cs_node_get(c);
    const cs_method *outer = cs_node_outer(m), *inner = cs_node_inner(CS_REDUCE);
    if (!nd || !outer || !inner)
        return cs_shm_native(c);
    const int rnode = nd->node_of[2 * c->root], rlocal = nd->node_of[2 * c->root + 1];
    const int leader = nd->leaders != MPI_COMM_NULL;
    char *raw = NULL, *part = NULL;
    cs_rtype t;
    int rc;
    CS_TRY(cs_reduce_rtype(c->dt, &t));
    rc = MPI_ERR_NO_MEM; /* a leader's memory: the node step cannot run either */
    if (leader && c->count > 0 && !(part = cs_reduce_tmp(&t, c->count, &raw)))
        goto out;
    cs_call in, out;
    cs_node_calls(nd, c, &in, &out);
    /* 1. the node's vectors to its leader (the root's own data in place) */
    in.root = 0;
    in.buf = part;
    if (c->sendbuf == MPI_IN_PLACE)
        in.sendbuf = c->buf;
    CS_TRY(cs_method_run(inner, &in));
    /* 2. the leaders, to the root's node leader: into the result buffer
     * when that leader is the root */
    if (leader) {
        const int here = nd->my_node == rnode;
        out.sendbuf = here && rlocal != 0 ? MPI_IN_PLACE : part; /* in place: result in part */
        out.buf = here && rlocal == 0 ? c->buf : part;
        out.root = rnode;
        CS_TRY(cs_method_applies(outer, &out)
                   ? cs_method_run(outer, &out)
                   : PMPI_Reduce(out.sendbuf, out.buf, c->count, c->dt, c->op, rnode,
                                 nd->leaders));
    }
    /* 3. to a root that is not its node's leader */
    if (nd->my_node == rnode && rlocal != 0 && c->count > 0) {
        if (leader)
            CS_TRY(PMPI_Send(part, c->count, c->dt, rlocal, CS_TAG_REDUCE, in.pcomm));
        else if (c->rank == c->root)
            CS_TRY(PMPI_Recv(c->buf, c->count, c->dt, 0, CS_TAG_REDUCE, in.pcomm,
                             MPI_STATUS_IGNORE));
    }
out:
    cs_reduce_tmp_free(raw);
    return rc;
}
