/* Bcast, node-aware with a dynamic leader: "bcast.node.dynamic".
 *
 * Algorithm: a pull.  On every node but the root's, the node's ranks count
 * themselves in with one CAS on the call's arrival word in the node's
 * segment (cs_shm_arrive, the count of reduce.node.dynamic): the word keeps
 * the first arrival's node rank, so every rank learns from its own CAS,
 * with no message, who receives for the node; two ranks arriving "at once"
 * get distinct places.  The first one (the leader) sends an empty request
 * to the root (tag CS_TAG_NODE_DYNAMIC_BCAST + its node) and receives the
 * message from the root under the same tag, then broadcasts it in its node
 * through shared memory (bcast.shm.ota from the leader, which the others
 * already wait for).  The root posts one receive per other node
 * (MPI_ANY_SOURCE, that node's tag) and sends the message to each request's
 * sender as it comes (requests already there first, then its own node
 * through shared memory, then MPI_Waitany): an early node is served first,
 * and requests sent before the root arrived cost it nothing but the sends.
 * A node of one rank has no choice: the root sends it the message at once,
 * unasked (first thing, before its own node).  Nor has a small message to
 * a small node (cs_bcast_node_dynamic_pushed: up to 256 B, up to 4 ranks;
 * the rule depends on the size and the node only, so every rank knows it
 * with no message): the root sends it to every rank of the node, unasked,
 * and each rank receives its own copy, no leader, no shared-memory step.
 * Balanced, that saves the request's trip (the root's sends of a few
 * small messages cost less), and a late rank still waits for nobody but
 * the root.  (Pushing to the first arrival alone cannot be done: the root
 * would have to learn, with no message, whether another rank took over.)  Where a node's segment
 * cannot be made (its ranks agree on that), its node rank 0 leads and the
 * node step runs the MPI library's bcast on the node.
 * Why no call's request or data can be matched by another call's: node A
 * has one request per call (only the first arrival's CAS sees place 1),
 * and its request of a call is sent only after every earlier call of A's
 * ranks has completed there; a rank completes call k of a non-root node
 * only after A's data of call k came through its node's leader, which had
 * its request of call k received by the root first.  So when A's request
 * of call k + 1 is sent, the root of call k has consumed A's request of
 * call k with its one receive for tag A, and a root of call k + 1 posts its
 * own.  The data goes back under A's tag from the root to the one rank
 * that asked (or the one rank of A), which has one receive for it (source
 * the root); the root sends A's tag once per call, and MPI's
 * non-overtaking rule orders its messages to that rank.  Tags of other
 * nodes and other methods are distinct (coll.h), so no Ssend is needed.
 * Prior art: Open MPI's xhc elects its leader as the first arrival with one
 * CAS (coll_xhc_dynamic_leader); the "competitive" pipelined broadcasts,
 * where a node's processes compete to be its inter-node leader.  Here the
 * winner pulls, as point to point cannot address a receiver chosen at run
 * time.
 * Restrictions: two or more (virtual) nodes, fewer than 0x2000; where a
 * node has more than CS_SHM_DYN_MAX (64) ranks the call runs the MPI
 * library's bcast.  The root serves the nodes itself (no tree among them):
 * meant for a few nodes.
 * Cost (n bytes), after the last arrival: pushed nodes: alpha_net + n
 * beta_net per rank of them, the root's sends one after another; else root late: (nodes - 1) sends of
 * alpha_net + n beta_net (one after another on the root's link) + T_shm(n);
 * root early: alpha_net (the request) + alpha_net + n beta_net + T_shm(n)
 * from the node's first arrival, which a late rank of the node no longer
 * delays (it only copies the message out: T_shm; beyond two 64 KiB chunks
 * the leader's slots wait for it, so a long message's copy-in and copy-out
 * take turns).  A fixed leader (bcast.node.*) waits for that one rank of
 * each node to arrive; balanced, the request costs alpha_net more than it.
 */
#include <stdlib.h>

#include "coll/shm/shm.h"
#include "bcast.h"

unsigned long cs_bcast_node_dynamic_leads;

int cs_bcast_node_dynamic_applies(const cs_call *c, const cs_method *m)
{
    return cs_node_applies(c, m) && c->st->nnodes < 0x2000;
}

int cs_bcast_node_dynamic_pushed(size_t bytes, int nranks)
{
    return nranks == 1 || (bytes <= CS_BCAST_DYN_PUSH_BYTES && nranks <= CS_BCAST_DYN_PUSH_RANKS);
}

/* The root: every other node's request as it comes, the root's node
 * through shared memory (in) after the requests already there. */
static int serve(const cs_call *c, const cs_node *nd, int rnode, const cs_method *inner,
                 const cs_call *in)
{
    const int n = c->st->nnodes, p = c->size;
    MPI_Request stack[3 * 32], *rq = stack, *sq, *pq;
    MPI_Status st;
    int rc = MPI_SUCCESS, k = MPI_UNDEFINED, flag = 1, npush = 0;
    if ((n > 32 || p > 32) && !(rq = malloc(sizeof *rq * (2 * (size_t)n + (size_t)p))))
        return MPI_ERR_NO_MEM;
    sq = rq + n;
    pq = sq + n;
    for (int i = 0; i < 2 * n; i++)
        rq[i] = MPI_REQUEST_NULL;
    /* a pushed node (cs_bcast_node_dynamic_pushed): every rank of it gets
     * the message unasked, at once; the others' requests are awaited */
    for (int r = 0; r < p; r++) {
        const int i = nd->node_of[2 * r];
        if (i != rnode && cs_bcast_node_dynamic_pushed(c->bytes, nd->nranks[i]))
            CS_TRY(PMPI_Isend(c->buf, c->count, c->dt, r, CS_TAG_NODE_DYNAMIC_BCAST + i, c->pcomm,
                              &pq[npush++]));
    }
    for (int i = 0; i < n; i++)
        if (i != rnode && !cs_bcast_node_dynamic_pushed(c->bytes, nd->nranks[i]))
            CS_TRY(PMPI_Irecv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, CS_TAG_NODE_DYNAMIC_BCAST + i,
                              c->pcomm, &rq[i]));
    for (int home = 0;;) {
        if (home)
            CS_TRY(PMPI_Waitany(n, rq, &k, &st));
        else
            CS_TRY(PMPI_Testany(n, rq, &k, &flag, &st));
        if (!home && (!flag || k == MPI_UNDEFINED)) { /* none waiting: the root's node */
            CS_TRY(cs_method_run(inner, in));
            home = 1;
            continue;
        }
        if (k == MPI_UNDEFINED)
            break;
        CS_TRY(PMPI_Isend(c->buf, c->count, c->dt, st.MPI_SOURCE,
                          CS_TAG_NODE_DYNAMIC_BCAST + k, c->pcomm, &sq[k]));
    }
out:
    for (int i = 0; i < n; i++)
        if (rq[i] != MPI_REQUEST_NULL) { /* an error: the receives not matched */
            PMPI_Cancel(&rq[i]);
            PMPI_Wait(&rq[i], MPI_STATUS_IGNORE);
        }
    int w = cs_bcast_waitall(n, sq), wp = cs_bcast_waitall(npush, pq);
    rc = rc != MPI_SUCCESS ? rc : w != MPI_SUCCESS ? w : wp;
    if (rq != stack)
        free(rq);
    return rc;
}

int cs_bcast_node_dynamic(const cs_call *c, const cs_method *m)
{
    (void)m;
    if (c->bytes == 0)
        return MPI_SUCCESS;
    cs_node *nd = cs_node_get(c);
    const cs_method *inner = cs_node_inner(CS_BCAST);
    if (!nd || !inner || nd->largest > CS_SHM_DYN_MAX)
        return cs_shm_native(c);
    cs_call in, out;
    cs_node_calls(nd, c, &in, &out);
    const int rnode = nd->node_of[2 * c->root];
    int rc = MPI_SUCCESS;
    if (nd->my_node == rnode) {
        in.root = nd->node_of[2 * c->root + 1];
        return c->rank == c->root ? serve(c, nd, rnode, inner, &in) : cs_method_run(inner, &in);
    }
    const int tag = CS_TAG_NODE_DYNAMIC_BCAST + nd->my_node;
    MPI_Request data = MPI_REQUEST_NULL;
    if (cs_bcast_node_dynamic_pushed(c->bytes, nd->nranks[nd->my_node])) { /* no leader */
        CS_TRY(PMPI_Recv(c->buf, c->count, c->dt, c->root, tag, c->pcomm, MPI_STATUS_IGNORE));
        __atomic_fetch_add(&cs_bcast_node_dynamic_leads, 1, __ATOMIC_RELAXED);
        return MPI_SUCCESS;
    }
    cs_shm *s = in.size > 1 ? cs_shm_get(&in) : NULL;
    in.root = 0; /* one rank, or no segment: node rank 0 */
    if (s)
        cs_shm_arrive(s, 0, s->step + 1, &in.root);
    if (in.root == in.rank) { /* the receive first: the message finds it posted */
        CS_TRY(PMPI_Irecv(c->buf, c->count, c->dt, c->root, tag, c->pcomm, &data));
        if (in.size > 1)
            CS_TRY(PMPI_Send(NULL, 0, MPI_BYTE, c->root, tag, c->pcomm));
        CS_TRY(PMPI_Wait(&data, MPI_STATUS_IGNORE));
        __atomic_fetch_add(&cs_bcast_node_dynamic_leads, 1, __ATOMIC_RELAXED);
    }
    CS_TRY(cs_method_run(inner, &in));
out:
    if (data != MPI_REQUEST_NULL) { /* the request could not be sent */
        PMPI_Cancel(&data);
        PMPI_Wait(&data, MPI_STATUS_IGNORE);
    }
    return rc;
}
