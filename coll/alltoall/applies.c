/* When the alltoall methods apply (alltoall.h): on values identical on
 * every rank of the call (communicator size, block bytes, the node split,
 * the segment's state). */
#include <limits.h>

#include "coll/shm/shm.h"
#include "coll/alltoall/alltoall.h"

int cs_alltoall_applies(const cs_call *c, const cs_method *m)
{
    (void)m;
    return c->bytes <= (size_t)INT_MAX / (size_t)(c->size > 0 ? c->size : 1);
}

int cs_alltoall_applies_pow2(const cs_call *c, const cs_method *m)
{
    return (c->size & (c->size - 1)) == 0 && cs_alltoall_applies(c, m);
}

int cs_alltoall_applies_shm(const cs_call *c, const cs_method *m)
{
    return cs_shm_applies(c, m) && cs_alltoall_applies(c, m);
}

int cs_alltoall_applies_cma(const cs_call *c, const cs_method *m)
{
    return cs_shm_applies_cma(c, m) && cs_alltoall_applies(c, m);
}

int cs_alltoall_applies_node(const cs_call *c, const cs_method *m)
{
    return cs_node_applies(c, m) && cs_alltoall_applies(c, m);
}
