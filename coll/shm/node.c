/* The node split of a communicator and the state of the node-aware
 * methods (see shm.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/shm/shm.h"
#include "coll/topo.h"

static int node_size; /* virtual node size, 0 = real nodes */

void cs_shm_set_node_size(int n)
{
    node_size = n > 0 ? n : 0;
}

int cs_shm_node_init(cs_comm_state *st)
{
    st->node_local = 0;
    st->nodecomm = MPI_COMM_NULL;
#ifdef COLLSEL_SMPI
    return MPI_SUCCESS; /* a modelled cluster has no shared memory */
#else
    MPI_Comm node;
    int rc, nrank, nsize;
    CS_TRY(PMPI_Comm_split_type(st->pcomm, MPI_COMM_TYPE_SHARED, st->rank, MPI_INFO_NULL, &node));
    PMPI_Comm_rank(node, &nrank);
    PMPI_Comm_size(node, &nsize);
    if (node_size > 0 && node_size < nsize) { /* virtual nodes of node_size ranks */
        MPI_Comm v;
        rc = PMPI_Comm_split(node, nrank / node_size, nrank, &v);
        PMPI_Comm_free(&node);
        CS_TRY_CODE(rc);
        node = v;
        PMPI_Comm_size(node, &nsize);
        PMPI_Comm_rank(node, &nrank);
    }
    st->nodecomm = node;
    /* every rank of a one-node communicator has all of them in its node */
    st->node_local = nsize == st->size;
    int lead = nrank == 0;
    rc = PMPI_Allreduce(&lead, &st->nnodes, 1, MPI_INT, MPI_SUM, st->pcomm);
out:
    return rc;
#endif
}

int cs_node_applies(const cs_call *c, const cs_method *m)
{
    (void)m;
    return c->st && c->st->nnodes > 1 && !c->st->node_local && !c->st->shm_failed &&
           !c->st->shm_cold;
}

int cs_node_applies_reduction(const cs_call *c, const cs_method *m)
{
    if (!cs_node_applies(c, m) || !c->commute)
        return 0;
    cs_call probe = *c; /* the node step runs a shared-memory reduction */
    static cs_comm_state local = {.node_local = 1};
    probe.st = &local;
    return cs_shm_applies_dense(&probe, m);
}

static void node_free(cs_node *nd)
{
    if (!nd)
        return;
    cs_shm_free(nd->node_st.shm); /* its segment (the node communicator is ours) */
    cs_topo_cache_free(nd->leader_st.topo_cache);
    if (nd->leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&nd->leaders);
    free(nd->node_of);
    free(nd);
}

void cs_node_state_free(cs_comm_state *st)
{
    node_free(st->node);
    st->node = NULL;
}

/* A state for calls on one of our own communicators (no attribute). */
static void own_state(cs_comm_state *st, MPI_Comm comm, int node_local)
{
    memset(st, 0, sizeof *st);
    st->pcomm = comm;
    st->nodecomm = MPI_COMM_NULL;
    PMPI_Comm_rank(comm, &st->rank);
    PMPI_Comm_size(comm, &st->size);
    st->node_local = node_local;
}

/* The leaders' communicator, in comm-rank order: a leader's rank among
 * them is its node's number, which every rank of the node learns from its
 * leader; mine = {node number, node rank}, gathered into nd->node_of.
 * Collective over c->pcomm. */
static int node_learn(const cs_call *c, cs_node *nd, int mine[2])
{
    const cs_comm_state *st = c->st;
    int rc;
    CS_TRY(PMPI_Comm_rank(st->nodecomm, &mine[1]));
    CS_TRY(PMPI_Comm_split(st->pcomm, mine[1] == 0 ? 0 : MPI_UNDEFINED, c->rank, &nd->leaders));
    if (nd->leaders != MPI_COMM_NULL)
        CS_TRY(PMPI_Comm_rank(nd->leaders, &mine[0]));
    CS_TRY(PMPI_Bcast(&mine[0], 1, MPI_INT, 0, st->nodecomm));
    CS_TRY(PMPI_Allgather(mine, 2, MPI_INT, nd->node_of, 2, MPI_INT, st->pcomm));
out:
    return rc;
}

/* nranks, leader_of and largest from node_of. */
static void node_sizes(cs_node *nd, int p, int nnodes)
{
    nd->nranks = nd->node_of + 2 * (size_t)p;
    nd->leader_of = nd->nranks + nnodes;
    nd->largest = 0;
    for (int k = 0; k < nnodes; k++)
        nd->nranks[k] = 0;
    for (int r = 0; r < p; r++) {
        const int k = nd->node_of[2 * r], nr = nd->node_of[2 * r + 1];
        if (k < 0 || k >= nnodes)
            continue; /* cannot be: node numbers are the leaders' ranks */
        nd->nranks[k]++;
        if (nr == 0)
            nd->leader_of[k] = r;
        if (nr + 1 > nd->largest)
            nd->largest = nr + 1;
    }
}

cs_node *cs_node_get(const cs_call *c)
{
    cs_comm_state *st = c->st;
    if (st->node)
        return st->node;
    cs_node *nd = calloc(1, sizeof *nd);
    const size_t ints = 2 * (size_t)c->size + 2 * (size_t)(st->nnodes > 0 ? st->nnodes : 0);
    int ok = nd && (nd->node_of = malloc(sizeof(int) * ints)) != NULL, every;
    if (nd) /* what node_free may look at, before own_state fills the rest */
        nd->leaders = nd->node_st.nodecomm = nd->leader_st.nodecomm = MPI_COMM_NULL;
    /* every rank must have its memory before the collectives below */
    if (PMPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, st->pcomm) != MPI_SUCCESS || !every) {
        node_free(nd);
        st->shm_failed = 1; /* the node-aware methods stop applying */
        return NULL;
    }
    int mine[2] = {0, 0}, good = node_learn(c, nd, mine) == MPI_SUCCESS;
    if (PMPI_Allreduce(&good, &every, 1, MPI_INT, MPI_MIN, st->pcomm) != MPI_SUCCESS || !every) {
        node_free(nd);
        st->shm_failed = 1;
        return NULL;
    }
    nd->my_node = mine[0];
    node_sizes(nd, c->size, st->nnodes);
    own_state(&nd->node_st, st->nodecomm, 1);
    if (nd->leaders != MPI_COMM_NULL)
        own_state(&nd->leader_st, nd->leaders, 0);
    st->node = nd;
    return nd;
}

void cs_node_calls(const cs_node *nd, const cs_call *c, cs_call *in, cs_call *out)
{
    *in = *c;
    in->comm = in->pcomm = nd->node_st.pcomm;
    in->st = (cs_comm_state *)&nd->node_st;
    in->rank = nd->node_st.rank;
    in->size = nd->node_st.size;
    *out = *c;
    out->comm = out->pcomm = nd->leaders;
    out->st = (cs_comm_state *)&nd->leader_st;
    out->rank = nd->my_node;
    out->size = c->st->nnodes;
}

/* The point-to-point method that a node-aware method runs among the
 * leaders: its name with ".node" taken out ("bcast.node.knomial.k4" ->
 * "bcast.knomial.k4"), looked up once per method. */
#define CS_NODE_CACHE 512
const cs_method *cs_node_outer(const cs_method *m)
{
    static const cs_method *cache[CS_NCOLL][CS_NODE_CACHE];
    int n;
    const cs_method *t = cs_methods(m->coll, &n);
    long i = m - t;
    const cs_method *o =
        i >= 0 && i < CS_NODE_CACHE ? __atomic_load_n(&cache[m->coll][i], __ATOMIC_SEQ_CST) : NULL;
    if (o)
        return o;
    const char *dot = strstr(m->name, ".node.");
    char name[96];
    if (!dot)
        return NULL;
    snprintf(name, sizeof name, "%.*s%s", (int)(dot - m->name), m->name, dot + 5);
    int k = cs_method_index(m->coll, name);
    o = k >= 0 ? &t[k] : NULL;
    if (o && i >= 0 && i < CS_NODE_CACHE)
        __atomic_store_n(&cache[m->coll][i], o, __ATOMIC_SEQ_CST);
    return o;
}

/* The shared-memory method of the node step of collective coll. */
const cs_method *cs_node_inner(enum cs_coll coll)
{
    static const char *const names[CS_NCOLL] = {
        [CS_BCAST] = "bcast.shm.ota", [CS_REDUCE] = "reduce.shm.direct",
        [CS_BARRIER] = "barrier.shm.dissemination", [CS_ALLREDUCE] = "allreduce.shm.direct",
        [CS_ALLTOALL] = "alltoall.shm.direct"};
    static const cs_method *cache[CS_NCOLL];
    const cs_method *m = __atomic_load_n(&cache[coll], __ATOMIC_SEQ_CST);
    if (!m) {
        enum cs_coll cc;
        m = cs_method_find(names[coll], &cc, NULL);
        __atomic_store_n(&cache[coll], m, __ATOMIC_SEQ_CST);
    }
    return m;
}

void cs_shm_state_free(cs_comm_state *st)
{
    cs_node_state_free(st);
    cs_shm_free(st->shm);
    st->shm = NULL;
    if (st->nodecomm != MPI_COMM_NULL)
        PMPI_Comm_free(&st->nodecomm);
}
