/* The engine of the shared-memory reductions (reduce.shm.*, allreduce.shm.*;
 * their files carry the algorithms' descriptions and costs).
 *
 * Per chunk of at most half a slot: every rank posts its elements
 * (cs_shm_post), then either the ranks that need the result combine the
 * whole chunk (direct: the root, or every rank), or rank j combines piece j
 * into the second half of its slot and the ranks that need the result copy
 * the p pieces out (ag).  Operands in rank order everywhere. */

#include "coll/shm/shm.h"

int cs_shm_chunk(size_t esz)
{
    return (int)(CS_SHM_SLOT / 2 / esz);
}

uint64_t cs_shm_post(cs_shm *s, const void *own, int n, size_t esz)
{
    const uint64_t step = ++s->step;
    const size_t bytes = (size_t)n * esz;
    cs_shm_data_free(s, step, bytes);
    cs_copy(cs_shm_data(s, s->rank, step, bytes), own, bytes);
    cs_shm_set(cs_shm_posted(s, s->rank, step, bytes), step);
    return step;
}

int cs_shm_fold(const cs_shm *s, uint64_t step, size_t posted, int first, int n, size_t esz,
                MPI_Datatype dt, MPI_Op op, void *out)
{
    const int p = s->p;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < p; i++)
        if (i != s->rank)
            cs_shm_wait(s, cs_shm_posted(s, i, step, posted), step);
    if (n <= 0)
        return MPI_SUCCESS;
    const size_t at = (size_t)first * esz, bytes = (size_t)n * esz;
    cs_copy(out, cs_shm_data(s, p - 1, step, posted) + at, bytes);
    for (int i = p - 2; i >= 0; i--)
        CS_TRY(PMPI_Reduce_local(cs_shm_data(s, i, step, posted) + at, out, n, dt, op));
out:
    return rc;
}

cs_shm *cs_shm_reduction_start(const cs_call *c, int *esz, int *rc)
{
    *rc = MPI_SUCCESS;
    if (c->count == 0)
        return NULL;
    cs_shm *s = cs_shm_get(c);
    if (!s) {
        *rc = cs_shm_native(c);
        return NULL;
    }
    if (c->bytes > 0 && c->bytes % (size_t)c->count == 0 &&
        c->bytes / (size_t)c->count <= (size_t)INT32_MAX) { /* count x the type's size */
        *esz = (int)(c->bytes / (size_t)c->count);
        return s;
    }
    return (*rc = PMPI_Type_size(c->dt, esz)) == MPI_SUCCESS ? s : NULL;
}

int cs_shm_reduction(const cs_call *c, int ag, int everyone)
{
    int esz, rc;
    cs_shm *s = cs_shm_reduction_start(c, &esz, &rc);
    if (!s)
        return rc;
    const int chunk = cs_shm_chunk((size_t)esz), p = s->p, me = s->rank;
    const int wants = everyone || me == c->root; /* this rank gets the result */
    const char *own = c->sendbuf == MPI_IN_PLACE ? c->buf : c->sendbuf;
    cs_shm_rank *mine = s->r[me];
    for (int off = 0; off < c->count; off += chunk) {
        const int n = c->count - off < chunk ? c->count - off : chunk;
        const size_t at = (size_t)off * (size_t)esz;
        const uint64_t step = cs_shm_post(s, own + at, n, (size_t)esz);
        char *out = (char *)c->buf + at;
        if (!ag) {
            if (wants)
                rc = cs_shm_fold(s, step, (size_t)n * (size_t)esz, 0, n, (size_t)esz, c->dt,
                                 c->op, out);
        } else {
            const int first = (int)cs_piece_at((size_t)n, p, me);
            const int len = (int)cs_piece_at((size_t)n, p, me + 1) - first;
            rc = cs_shm_fold(s, step, (size_t)n * (size_t)esz, first, len, (size_t)esz, c->dt,
                             c->op, cs_shm_result(s, me, step));
            cs_shm_set(&mine->ready, step);
            for (int i = 0; wants && i < p; i++) {
                const size_t fi = cs_piece_at((size_t)n, p, i);
                const size_t li = cs_piece_at((size_t)n, p, i + 1) - fi;
                if (i != me)
                    cs_shm_wait(s, &s->r[i]->ready, step);
                cs_copy(out + fi * (size_t)esz, cs_shm_result(s, i, step), li * (size_t)esz);
            }
        }
        cs_shm_set(&mine->done, step);
        CS_TRY_CODE(rc); /* after the step: nobody waits for this rank's flags */
    }
out:
    return rc;
}
