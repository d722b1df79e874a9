/* The MPI_Allreduce method table: the single source of allreduce method
 * names (see ../coll.h for the naming rule).  Entry 0 is native. */
#include "allreduce.h"

int cs_allreduce_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Allreduce(c->sendbuf, c->buf, c->count, c->dt, c->op, c->comm);
}

#define M(name, algo, seg, fan, desc, applies, fn) \
    {"allreduce." name, CS_ALLREDUCE, algo, seg, fan, desc, applies, fn}

const cs_method cs_allreduce_methods[] = {
    /* name, algorithm, segment bytes, fan-out, description, applies, function */
    M("native", "native", 0, 0, "the MPI library's own MPI_Allreduce", NULL, cs_allreduce_native),
};
const int cs_allreduce_nmethods =
    (int)(sizeof cs_allreduce_methods / sizeof cs_allreduce_methods[0]);
