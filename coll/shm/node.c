/* The node split of a communicator (see shm.h). */
#include "shm.h"

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
    int rc = PMPI_Comm_split_type(st->pcomm, MPI_COMM_TYPE_SHARED, st->rank, MPI_INFO_NULL,
                                  &node);
    if (rc != MPI_SUCCESS)
        return rc;
    int nrank, nsize;
    PMPI_Comm_rank(node, &nrank);
    PMPI_Comm_size(node, &nsize);
    if (node_size > 0 && node_size < nsize) { /* virtual nodes of node_size ranks */
        MPI_Comm v;
        rc = PMPI_Comm_split(node, nrank / node_size, nrank, &v);
        PMPI_Comm_free(&node);
        if (rc != MPI_SUCCESS)
            return rc;
        node = v;
        PMPI_Comm_size(node, &nsize);
    }
    st->nodecomm = node;
    /* every rank of a one-node communicator has all of them in its node */
    st->node_local = nsize == st->size;
    return MPI_SUCCESS;
#endif
}
