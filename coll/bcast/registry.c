/* Bcast methods: the registry table (the single source of bcast method
 * names, see ../coll.h for the naming rules).  Entry 0 is native.  The
 * tree-shaped families come unsegmented and with every segment size of
 * SEGMENTED(), generated here rather than written out. */
#include <limits.h>

#include "bcast.h"

/* bcast.native: the MPI library's own MPI_Bcast on the user communicator. */
int cs_bcast_native(const cs_call *c, const cs_method *m)
{
    (void)m;
    return PMPI_Bcast(c->buf, c->count, c->dt, c->root, c->comm);
}

int cs_bcast_applies_int_bytes(const cs_call *c, const cs_method *m)
{
    (void)m;
    return c->bytes <= INT_MAX;
}

#define M(name, algo, seg, k, desc, fn, applies) \
    {"bcast." name, CS_BCAST, algo, seg, k, desc, applies, fn}
/* name: family name; the unsegmented method, then .seg1k .. .seg128k */
#define SEGMENTED(name, algo, k, desc, fn)                          \
    M(name, algo, 0, k, desc, fn, NULL),                            \
    M(name ".seg1k", algo, 1 << 10, k, desc, fn, NULL),             \
    M(name ".seg8k", algo, 8 << 10, k, desc, fn, NULL),             \
    M(name ".seg16k", algo, 16 << 10, k, desc, fn, NULL),           \
    M(name ".seg32k", algo, 32 << 10, k, desc, fn, NULL),           \
    M(name ".seg64k", algo, 64 << 10, k, desc, fn, NULL),           \
    M(name ".seg128k", algo, 128 << 10, k, desc, fn, NULL)
#define KNOMIAL(k) SEGMENTED("knomial.k" #k, "knomial", k, \
                             "k-nomial tree of radix k (UCC knomial)", cs_bcast_knomial)

const cs_method cs_bcast_methods[] = {
    M("native", "native", 0, 0, "the MPI library's own MPI_Bcast", cs_bcast_native, NULL),
    M("linear", "linear", 0, 0, "root sends to every rank in turn", cs_bcast_linear, NULL),
    SEGMENTED("chain.k2", "chain", 2, "k chains hanging off the root", cs_bcast_chain),
    SEGMENTED("chain.k4", "chain", 4, "k chains hanging off the root", cs_bcast_chain),
    SEGMENTED("pipeline", "pipeline", 1, "one chain through all ranks", cs_bcast_chain),
    SEGMENTED("binary", "binary", 2, "complete binary tree", cs_bcast_binary),
    SEGMENTED("splitbinary", "splitbinary", 2,
              "binary tree, each half of the message down one subtree, then pairwise exchange",
              cs_bcast_splitbinary),
    SEGMENTED("binomial", "binomial", 2, "binomial tree", cs_bcast_binomial),
    KNOMIAL(3), KNOMIAL(4), KNOMIAL(5), KNOMIAL(6), KNOMIAL(7), KNOMIAL(8),
    M("scatter_rdallgather", "scatter_rdallgather", 0, 0,
      "binomial scatter + recursive-doubling allgather (long messages)",
      cs_bcast_scatter_rdallgather, cs_bcast_applies_int_bytes),
    M("scatter_ringallgather", "scatter_ringallgather", 0, 0,
      "binomial scatter + ring allgather (van de Geijn, long messages)",
      cs_bcast_scatter_ringallgather, cs_bcast_applies_int_bytes),
};
const int cs_bcast_nmethods = (int)(sizeof cs_bcast_methods / sizeof cs_bcast_methods[0]);
