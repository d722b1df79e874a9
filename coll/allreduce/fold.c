/* The fold of the recursive allreduce algorithms onto a power of their
 * radix: see allreduce.h.  Participant j of npart stands for the ranks
 * [floor(j p / npart), floor((j + 1) p / npart)): contiguous ranges of
 * 1 .. radix - 1 ranks, so that combining a range in rank order, then the
 * participants in participant order, keeps the op's rank order (MPICH folds
 * pairs 2i, 2i + 1 the same way for recursive doubling).
 * Cost: 2 (ceil(p / npart) - 1) (alpha + n beta) + (ceil(p / npart) - 1) n gamma
 * at the leaders, nothing when p is a power of the radix. */
#include "allreduce.h"

int cs_allreduce_pow_below(int p, int radix)
{
    long q = 1;
    while (q * radix <= p)
        q *= radix;
    return (int)q;
}

void cs_allreduce_range(int p, int npart, int j, int *lo, int *hi)
{
    *lo = (int)((long long)j * p / npart);
    *hi = (int)((long long)(j + 1) * p / npart);
}

int cs_allreduce_part_of(int p, int npart, int r)
{
    /* the j with floor(j p / npart) <= r < floor((j + 1) p / npart) */
    return (int)(((long long)(r + 1) * npart + p - 1) / p) - 1;
}

int cs_allreduce_fold_in(const cs_call *c, const cs_rtype *t, int npart, int *leader,
                         char **acc, char *tmp)
{
    int p = c->size, lo, hi, rc = MPI_SUCCESS;
    cs_allreduce_range(p, npart, cs_allreduce_part_of(p, npart, c->rank), &lo, &hi);
    const void *own = c->sendbuf == MPI_IN_PLACE ? c->buf : c->sendbuf;
    char *a = c->buf, *b = tmp;
    *leader = c->rank == lo;
    *acc = a;
    if (!*leader)
        return PMPI_Send(own, c->count, c->dt, lo, CS_TAG_ALLREDUCE, c->pcomm);
    if (own != c->buf)
        CS_TRY(cs_reduce_copy(c, t, own, c->buf, c->count));
    for (int q = lo + 1; q < hi; q++) {
        CS_TRY(PMPI_Recv(b, c->count, c->dt, q, CS_TAG_ALLREDUCE, c->pcomm, MPI_STATUS_IGNORE));
        CS_TRY(PMPI_Reduce_local(a, b, c->count, c->dt, c->op)); /* b = a op b */
        char *x = a;
        a = b, b = x;
    }
out:
    *acc = a;
    return rc;
}

int cs_allreduce_fold_out(const cs_call *c, const cs_rtype *t, int npart, int leader,
                          const char *acc)
{
    (void)t;
    int p = c->size, lo, hi, rc = MPI_SUCCESS;
    cs_allreduce_range(p, npart, cs_allreduce_part_of(p, npart, c->rank), &lo, &hi);
    if (!leader)
        return PMPI_Recv(c->buf, c->count, c->dt, lo, CS_TAG_ALLREDUCE, c->pcomm,
                         MPI_STATUS_IGNORE);
    for (int q = lo + 1; q < hi; q++)
        CS_TRY(PMPI_Send(acc, c->count, c->dt, q, CS_TAG_ALLREDUCE, c->pcomm));
out:
    return rc;
}
