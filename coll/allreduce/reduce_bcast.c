/* Allreduce: reduce then bcast ("allreduce.reduce_bcast.R-B").
 *
 * Algorithm: one of our reduce methods (m->part[0]) combines every rank's
 * vector at rank 0, then one of our bcast methods (m->part[1]) sends the
 * result from rank 0 to all.  The result is computed once, so every rank
 * gets the same bits whatever the op.  Open MPI's "nonoverlapping"
 * allreduce (algorithm 2) is this with its own reduce and bcast choices.
 * Restrictions: those of both parts for this call (a non-commutative op
 * needs an order-keeping reduce: linear, inorder_binary).
 * Cost: T_reduce(p, n) + T_bcast(p, n); e.g. binomial + binomial:
 * 2 ceil(log2 p) (alpha + n beta) + ceil(log2 p) n gamma.
 */
#include "allreduce.h"

void cs_allreduce_as_reduce(const cs_call *c, cs_call *r)
{
    *r = *c;
    r->coll = CS_REDUCE;
    r->root = 0;
    /* in place: the root reduces in place, the others send what they hold */
    if (c->sendbuf == MPI_IN_PLACE && c->rank != 0)
        r->sendbuf = c->buf;
}

void cs_allreduce_as_bcast(const cs_call *c, cs_call *b)
{
    *b = *c;
    b->coll = CS_BCAST;
    b->root = 0;
    b->sendbuf = NULL;
}

int cs_allreduce_applies_reduce_bcast(const cs_call *c, const cs_method *m)
{
    cs_call r, b;
    cs_allreduce_as_reduce(c, &r);
    cs_allreduce_as_bcast(c, &b);
    return cs_method_applies(m->part[0], &r) && cs_method_applies(m->part[1], &b);
}

int cs_allreduce_reduce_bcast(const cs_call *c, const cs_method *m)
{
    cs_call r, b;
    cs_allreduce_as_reduce(c, &r);
    cs_allreduce_as_bcast(c, &b);
    int rc;
    CS_TRY(cs_method_run(m->part[0], &r));
    CS_TRY(cs_method_run(m->part[1], &b));
out:
    return rc;
}
