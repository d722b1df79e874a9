/* The MPI_Allreduce method table: the single source of allreduce method
 * names (see ../coll.h for the naming rule).  Entry 0 is native.
 *
 * The fixed methods are listed below.  The compositions "a reduce to rank 0
 * then a bcast" are generated from the reduce and bcast registries when the
 * library is loaded, so that every reduce method gets its allreduce without
 * a list kept by hand: a reduce method pairs with the bcast method of the
 * same shape (the same name after the collective: the bcast tree is the
 * reduce tree reversed), unsegmented or with 64 KiB segments; the two reduce
 * methods without a bcast twin pair with the bcast that suits them
 * (inorder_binary, order-keeping, with binomial; rabenseifner, for long
 * vectors, with scatter_ringallgather).  Name:
 *   allreduce.reduce_bcast.R-B   R, B: the reduce / bcast method's name
 *                                after the collective, '.' -> '_'
 * e.g. allreduce.reduce_bcast.knomial_k4-knomial_k4.  Shared-memory reduce
 * and bcast methods compose the same way. */
#include <stdio.h>
#include <string.h>

#include "coll/bcast/bcast.h"
#include "coll/shm/shm.h"
#include "allreduce.h"

#define M(name, algo, seg, fan, desc, applies, fn) \
    CS_METHOD(CS_ALLREDUCE, "allreduce." name, algo, seg, fan, desc, applies, fn)
#define COMMUTE cs_reduce_applies_commute
#define KNOMIAL(k)                                                                            \
    M("knomial.k" #k, "knomial", 0, k,                                                        \
      "recursive multiplying: exchange within groups of " #k ", ceil(log" #k " p) rounds",    \
      NULL, cs_allreduce_knomial)

static const cs_method fixed[] = {
    /* name, algorithm, segment bytes, fan-out, description, applies, function */
    M("native", "native", 0, 0, "the MPI library's own MPI_Allreduce", NULL, cs_allreduce_native),
    M("recursive_doubling", "recursive_doubling", 0, 2,
      "pairwise exchange of whole vectors with r^2^k, extra ranks folded (any op)", NULL,
      cs_allreduce_recursive_doubling),
    KNOMIAL(3), KNOMIAL(4), KNOMIAL(5), KNOMIAL(6), KNOMIAL(7), KNOMIAL(8),
    M("rabenseifner", "rabenseifner", 0, 0,
      "reduce-scatter by recursive halving + allgather by recursive doubling (commutative "
      "ops, count >= p)",
      cs_reduce_applies_rabenseifner, cs_allreduce_rabenseifner),
    M("shm.direct", "shm.direct", 0, 0,
      "shared memory: all post their vector, every rank combines all in rank order (any op)",
      cs_shm_applies_dense, cs_allreduce_shm_direct),
    M("shm.ag", "shm.ag", 0, 0,
      "shared memory: rank j combines piece j of all vectors, all copy the pieces (any op)",
      cs_shm_applies_dense, cs_allreduce_shm_ag),
    M("node.recursive_doubling", "node", 0, 2,
      "node-aware: shared memory in nodes, recursive doubling among leaders (commutative ops)",
      cs_node_applies_reduction, cs_allreduce_node),
    M("node.knomial.k4", "node", 0, 4,
      "node-aware: shared memory in nodes, recursive multiplying k=4 among leaders",
      cs_node_applies_reduction, cs_allreduce_node),
    M("node.rabenseifner", "node", 0, 0,
      "node-aware: shared memory in nodes, Rabenseifner among leaders (commutative ops)",
      cs_node_applies_reduction, cs_allreduce_node),
    M("node.ring", "node", 0, 0,
      "node-aware: shared memory in nodes, ring among leaders (commutative ops)",
      cs_node_applies_reduction, cs_allreduce_node),
    CS_SEGMENTED(CS_ALLREDUCE, "allreduce.ring", "ring", 0,
                 "ring reduce-scatter + ring allgather (commutative ops; segmented: the vector "
                 "in chunks of p segments)",
                 COMMUTE, cs_allreduce_ring),
};
#define NFIXED ((int)(sizeof fixed / sizeof fixed[0]))

/* Room for the compositions: at most one per reduce method. */
#define CS_ALLREDUCE_MAX 256
cs_method cs_allreduce_methods[CS_ALLREDUCE_MAX];
int cs_allreduce_nmethods;
static char names[CS_ALLREDUCE_MAX][64], descs[CS_ALLREDUCE_MAX][160];

/* "knomial.k4.seg64k" -> "knomial_k4_seg64k" into out. */
static void flat(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s", strchr(name, '.') + 1);
    for (char *p = out; *p; p++)
        if (*p == '.')
            *p = '_';
}

static void compose(const cs_method *r, const cs_method *b)
{
    int i = cs_allreduce_nmethods;
    char rf[64], bf[64];
    flat(rf, sizeof rf, r->name);
    flat(bf, sizeof bf, b->name);
    if (i >= CS_ALLREDUCE_MAX ||
        snprintf(names[i], sizeof names[i], "allreduce.reduce_bcast.%s-%s", rf, bf) >=
            (int)sizeof names[i])
        return; /* would not fit a perf table's name column: not offered */
    snprintf(descs[i], sizeof descs[i], "%s to rank 0, then %s", r->name, b->name);
    cs_allreduce_methods[i] = (cs_method){.name = names[i], .coll = CS_ALLREDUCE,
                                          .algo = "reduce_bcast", .desc = descs[i],
                                          .applies = CS_CODE(cs_allreduce_applies_reduce_bcast),
                                          .fn = CS_CODE(cs_allreduce_reduce_bcast),
                                          .part = {r, b}};
    cs_allreduce_nmethods++;
}

static const cs_method *bcast_named(const char *suffix)
{
    char full[96];
    snprintf(full, sizeof full, "bcast.%s", suffix);
    int i = cs_method_index(CS_BCAST, full);
    return i > 0 ? &cs_bcast_methods[i] : NULL;
}

__attribute__((constructor)) static void build(void)
{
    memcpy(cs_allreduce_methods, fixed, sizeof fixed);
    cs_allreduce_nmethods = NFIXED;
    for (int i = 1; i < cs_reduce_nmethods; i++) {
        const cs_method *r = &cs_reduce_methods[i], *b;
        if (r->segsize != 0 && r->segsize != 64 * 1024)
            continue;
        const char *suffix = strchr(r->name, '.') + 1;
        if ((b = bcast_named(suffix)) != NULL)
            compose(r, b);
        else if (!strcmp(r->algo, "inorder_binary") &&
                 (b = bcast_named(r->segsize ? "binomial.seg64k" : "binomial")))
            compose(r, b);
        else if (!strcmp(r->algo, "rabenseifner") && (b = bcast_named("scatter_ringallgather")))
            compose(r, b);
    }
}
