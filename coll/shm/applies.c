/* The applies() checks of the shared-memory methods, and their native run
 * when the segment cannot be had (see shm.h). */
#include "coll/shm/shm.h"

int cs_shm_applies_cma(const cs_call *c, const cs_method *m)
{
    if (!cs_shm_applies(c, m))
        return 0;
    const cs_shm *s = c->st->shm;
    return !s || s->cma;
}

int cs_shm_applies(const cs_call *c, const cs_method *m)
{
    (void)m;
    return c->st && c->st->node_local && !c->st->shm_failed && !c->st->shm_cold;
}

int cs_shm_applies_dense(const cs_call *c, const cs_method *m)
{
    if (!cs_shm_applies(c, m) || c->dt == MPI_DATATYPE_NULL)
        return 0;
    if (cs_dt_plain(c->dt))
        return 1;
    MPI_Aint lb, ext, tlb, text;
    int size;
    if (PMPI_Type_get_extent(c->dt, &lb, &ext) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(c->dt, &tlb, &text) != MPI_SUCCESS ||
        PMPI_Type_size(c->dt, &size) != MPI_SUCCESS)
        return 0;
    return size > 0 && ext == size && text == size && tlb == 0 && lb == 0;
}

int cs_shm_native(const cs_call *c)
{
    switch (c->coll) {
    case CS_BCAST: return PMPI_Bcast(c->buf, c->count, c->dt, c->root, c->comm);
    case CS_REDUCE:
        return PMPI_Reduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->root, c->comm);
    case CS_ALLREDUCE:
        return PMPI_Allreduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->comm);
    default: return PMPI_Barrier(c->comm);
    }
}
