/* Deliberately broken methods for `matrix --selftest`: the matrix must
 * report every one of them as failing (so a matrix that passes is known to
 * be able to fail).  Entry 0 of each table stands for native, as in the
 * registry. */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "selftest.h"

#define TAG 999

static int native_bcast(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Bcast(c->buf, c->count, c->dt, c->root, c->comm);
}

/* Linear bcast that forgets the last rank. */
static int bcast_skip_last(const cs_call *c, const cs_method *m)
{
    (void)m;
    int last = c->root == c->size - 1 ? c->size - 2 : c->size - 1;
    if (c->rank == c->root) {
        for (int r = 0; r < c->size; r++)
            if (r != c->root && r != last)
                PMPI_Send(c->buf, c->count, c->dt, r, TAG, c->pcomm);
    } else if (c->rank != last) {
        PMPI_Recv(c->buf, c->count, c->dt, c->root, TAG, c->pcomm, MPI_STATUS_IGNORE);
    }
    return MPI_SUCCESS;
}

/* Correct data, but writes the byte just past the data (a gap or beyond). */
static int bcast_overrun(const cs_call *c, const cs_method *m)
{
    (void)m;
    int rc = PMPI_Bcast(c->buf, c->count, c->dt, c->root, c->comm);
    MPI_Aint tlb, text, lb, ext;
    PMPI_Type_get_true_extent(c->dt, &tlb, &text);
    PMPI_Type_get_extent(c->dt, &lb, &ext);
    if (c->rank != c->root && c->count > 0)
        ((char *)c->buf)[tlb + (c->count - 1) * ext + text] ^= 0x5a;
    return rc;
}

/* Linear reduce combining in reverse rank order: wrong for a
 * non-commutative op. */
static int reduce_reversed(const cs_call *c, const cs_method *m)
{
    (void)m;
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_get_extent(c->dt, &lb, &ext);
    PMPI_Type_get_true_extent(c->dt, &tlb, &text);
    const void *mine = c->sendbuf == MPI_IN_PLACE ? c->buf : c->sendbuf;
    if (c->rank != c->root)
        return PMPI_Send(mine, c->count, c->dt, c->root, TAG, c->pcomm);
    size_t span = c->count ? (size_t)((c->count - 1) * ext + text) : 0;
    char *tmp = malloc(span + 1), *acc = malloc(span + 1);
    if (!tmp || !acc) {
        free(tmp);
        free(acc);
        return MPI_ERR_NO_MEM;
    }
    /* acc = x(p-1) op ... op x0 */
    int first = 1;
    for (int r = c->size - 1; r >= 0; r--) {
        char *dst = first ? acc - tlb : tmp - tlb;
        if (r == c->rank)
            PMPI_Sendrecv(mine, c->count, c->dt, 0, 0, dst, c->count, c->dt, 0, 0, MPI_COMM_SELF,
                          MPI_STATUS_IGNORE);
        else
            PMPI_Recv(dst, c->count, c->dt, r, TAG, c->pcomm, MPI_STATUS_IGNORE);
        if (!first) /* acc = acc op x_r: reduce_local(in, inout) = in op inout */
            PMPI_Reduce_local(acc - tlb, tmp - tlb, c->count, c->dt, c->op),
                memcpy(acc, tmp, span);
        first = 0;
    }
    PMPI_Sendrecv(acc - tlb, c->count, c->dt, 0, 0, c->buf, c->count, c->dt, 0, 0, MPI_COMM_SELF,
                  MPI_STATUS_IGNORE);
    free(tmp);
    free(acc);
    return MPI_SUCCESS;
}

static int reduce_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Reduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->root, c->comm);
}

/* A barrier that does not wait. */
static int barrier_none(const cs_call *c, const cs_method *m)
{
    (void)c, (void)m;
    return MPI_SUCCESS;
}

static int barrier_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Barrier(c->comm);
}

static int allreduce_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Allreduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->comm);
}

/* Reduces at rank 0 and forgets to send the result back. */
static int allreduce_root_only(const cs_call *c, const cs_method *m)
{
    (void)m;
    if (c->rank == 0)
        return PMPI_Reduce(c->sendbuf, c->buf, c->count, c->dt, c->op, 0, c->comm);
    return PMPI_Reduce(c->sendbuf == MPI_IN_PLACE ? c->buf : c->sendbuf, NULL, c->count, c->dt,
                       c->op, 0, c->comm);
}

/* Right everywhere but on the last rank, whose first byte of data differs
 * (the ranks disagree). */
static int allreduce_last_rank_off(const cs_call *c, const cs_method *m)
{
    (void)m;
    int rc = PMPI_Allreduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->comm);
    MPI_Aint tlb, text;
    PMPI_Type_get_true_extent(c->dt, &tlb, &text);
    if (c->rank == c->size - 1 && c->count > 0)
        ((char *)c->buf)[tlb] ^= 0x01;
    return rc;
}

#define E(coll, name, fn) CS_METHOD(coll, name, "broken", 0, 0, "", NULL, fn)
static const cs_method bcast_t[] = {
    E(CS_BCAST, "bcast.native", native_bcast),
    E(CS_BCAST, "selftest.bcast_skip_last", bcast_skip_last),
    E(CS_BCAST, "selftest.bcast_overrun", bcast_overrun),
};
static const cs_method reduce_t[] = {
    E(CS_REDUCE, "reduce.native", reduce_native),
    E(CS_REDUCE, "selftest.reduce_reversed", reduce_reversed),
};
static const cs_method barrier_t[] = {
    E(CS_BARRIER, "barrier.native", barrier_native),
    E(CS_BARRIER, "selftest.barrier_none", barrier_none),
};
static const cs_method allreduce_t[] = {
    E(CS_ALLREDUCE, "allreduce.native", allreduce_native),
    E(CS_ALLREDUCE, "selftest.allreduce_root_only", allreduce_root_only),
    E(CS_ALLREDUCE, "selftest.allreduce_last_rank_off", allreduce_last_rank_off),
};

const cs_method *selftest_methods(enum cs_coll c, int *n)
{
    switch (c) {
    case CS_BCAST: *n = 3; return bcast_t;
    case CS_REDUCE: *n = 2; return reduce_t;
    case CS_ALLREDUCE: *n = 3; return allreduce_t;
    default: *n = 2; return barrier_t;
    }
}
