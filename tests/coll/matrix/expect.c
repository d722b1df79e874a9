/* Where each method must run (expect.h): the restrictions of every family,
 * copied from the header comments of coll/COLL/FILE.c into the table
 * below, judged on what MPI and the test see (never on the code under
 * test: its node split, its segment, its applies()). */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "expect.h"

enum {
    ONE_NODE = 1,   /* the group lies within one (virtual) node */
    NODES = 2,      /* it spans two or more */
    COMMUTE = 4,    /* a commutative op */
    DENSE = 8,      /* dense datatype elements (no gap, extent = size, lower bound 0) */
    COUNT_P = 16,   /* count >= p */
    POW2 = 32,      /* p a power of two */
    TWO = 64,       /* p == 2 */
    CMA = 128,      /* cross-memory attach allowed */
    MAX64 = 256,    /* at most 64 ranks */
    INT_BYTES = 512 /* the bytes (alltoall: p x a block's) fit an int */
};

static const struct {
    enum cs_coll coll;
    const char *algo;
    unsigned need;
} families[] = {
    {CS_BCAST, "native", 0},
    {CS_BCAST, "linear", 0},
    {CS_BCAST, "chain", 0},
    {CS_BCAST, "pipeline", 0},
    {CS_BCAST, "binary", 0},
    {CS_BCAST, "splitbinary", 0},
    {CS_BCAST, "binomial", 0},
    {CS_BCAST, "knomial", 0},
    {CS_BCAST, "scatter_rdallgather", INT_BYTES},
    {CS_BCAST, "scatter_ringallgather", INT_BYTES},
    {CS_BCAST, "shm.ota", ONE_NODE},
    {CS_BCAST, "shm.tree", ONE_NODE},
    {CS_BCAST, "shm.cma", ONE_NODE | CMA},
    {CS_BCAST, "shm.ag", ONE_NODE | CMA},
    {CS_BCAST, "node", NODES},
    {CS_BCAST, "node.dynamic", NODES},
    {CS_REDUCE, "native", 0},
    {CS_REDUCE, "linear", 0},
    {CS_REDUCE, "inorder_binary", 0},
    {CS_REDUCE, "chain", COMMUTE},
    {CS_REDUCE, "pipeline", COMMUTE},
    {CS_REDUCE, "binary", COMMUTE},
    {CS_REDUCE, "binomial", COMMUTE},
    {CS_REDUCE, "knomial", COMMUTE},
    {CS_REDUCE, "rabenseifner", COMMUTE | COUNT_P},
    {CS_REDUCE, "shm.direct", ONE_NODE | DENSE},
    {CS_REDUCE, "shm.ag", ONE_NODE | DENSE},
    {CS_REDUCE, "shm.tree", ONE_NODE | DENSE | COMMUTE},
    {CS_REDUCE, "shm.dynamic", ONE_NODE | DENSE | MAX64},
    {CS_REDUCE, "node", NODES | COMMUTE | DENSE},
    {CS_REDUCE, "node.dynamic", NODES | COMMUTE | DENSE},
    {CS_BARRIER, "native", 0},
    {CS_BARRIER, "linear", 0},
    {CS_BARRIER, "tree", 0},
    {CS_BARRIER, "double_ring", 0},
    {CS_BARRIER, "recursive_doubling", 0},
    {CS_BARRIER, "dissemination", 0},
    {CS_BARRIER, "bruck", 0},
    {CS_BARRIER, "two_proc", TWO},
    {CS_BARRIER, "shm.ota", ONE_NODE},
    {CS_BARRIER, "shm.counter", ONE_NODE},
    {CS_BARRIER, "shm.tree", ONE_NODE},
    {CS_BARRIER, "shm.pairwise", ONE_NODE},
    {CS_BARRIER, "shm.dissemination", ONE_NODE},
    {CS_BARRIER, "node", NODES},
    {CS_ALLREDUCE, "native", 0},
    {CS_ALLREDUCE, "recursive_doubling", 0},
    {CS_ALLREDUCE, "knomial", 0},
    {CS_ALLREDUCE, "rabenseifner", COMMUTE | COUNT_P},
    {CS_ALLREDUCE, "ring", COMMUTE},
    {CS_ALLREDUCE, "shm.direct", ONE_NODE | DENSE},
    {CS_ALLREDUCE, "shm.ag", ONE_NODE | DENSE},
    {CS_ALLREDUCE, "shm.dynamic", ONE_NODE | DENSE | MAX64},
    {CS_ALLREDUCE, "node", NODES | COMMUTE | DENSE},
    {CS_ALLREDUCE, "node.dynamic", NODES | COMMUTE | DENSE},
    /* allreduce.reduce_bcast.*: the restrictions of both parts (mx_expect) */
    {CS_ALLTOALL, "native", 0},
    {CS_ALLTOALL, "linear", INT_BYTES},
    {CS_ALLTOALL, "linear_sync", INT_BYTES},
    {CS_ALLTOALL, "pairwise", POW2 | INT_BYTES},
    {CS_ALLTOALL, "ring", INT_BYTES},
    {CS_ALLTOALL, "bruck", INT_BYTES},
    {CS_ALLTOALL, "shm.direct", ONE_NODE | INT_BYTES},
    {CS_ALLTOALL, "shm.cma", ONE_NODE | CMA | INT_BYTES},
    {CS_ALLTOALL, "node", NODES | INT_BYTES},
};

static uint64_t probe = 0x436f6c6c53656c21ull; /* read by the other ranks */

void mx_layout_of(MPI_Comm comm, int node_size, mx_layout *l)
{
    MPI_Comm shm, node;
    int rank, nrank, nsize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    MPI_Comm_rank(shm, &nrank);
    MPI_Comm_size(shm, &nsize);
    MPI_Comm_split(shm, node_size > 0 ? nrank / node_size : 0, nrank, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    int lead = nrank == 0;
    MPI_Allreduce(&lead, &l->nnodes, 1, MPI_INT, MPI_SUM, comm);
    /* every rank reads every other's probe (one node only) */
    struct {
        int64_t pid;
        uint64_t addr;
    } me = {getpid(), (uint64_t)(uintptr_t)&probe}, peers[64];
    int ok = 1;
    if (l->nnodes == 1 && nsize <= 64) {
        MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, peers, (int)sizeof me, MPI_BYTE, node);
        for (int i = 0; i < nsize; i++) {
            uint64_t v = 0;
            struct iovec mine = {&v, sizeof v}, theirs = {(void *)(uintptr_t)peers[i].addr, 8};
            ok &= process_vm_readv((pid_t)peers[i].pid, &mine, 1, &theirs, 1, 0) == 8 &&
                  v == probe;
        }
    } else {
        ok = 0;
    }
    MPI_Allreduce(&ok, &l->cma, 1, MPI_INT, MPI_LAND, comm);
    MPI_Comm_free(&node);
    MPI_Comm_free(&shm);
}

static int dense(MPI_Datatype dt)
{
    MPI_Aint lb, ext, tlb, text;
    int size;
    MPI_Type_get_extent(dt, &lb, &ext);
    MPI_Type_get_true_extent(dt, &tlb, &text);
    MPI_Type_size(dt, &size);
    return size > 0 && lb == 0 && tlb == 0 && ext == size && text == size;
}

int mx_expect(const cs_method *m, const mx_layout *l, const mx_case *k, const char **why)
{
    if (m->coll == CS_ALLREDUCE && m->part[0] && m->part[1]) {
        mx_case r = *k, b = *k;
        r.coll = CS_REDUCE;
        b.coll = CS_BCAST;
        b.op = MPI_OP_NULL;
        int e = mx_expect(m->part[0], l, &r, why);
        return e == 1 ? mx_expect(m->part[1], l, &b, why) : e;
    }
    unsigned need = 0;
    size_t i, n = sizeof families / sizeof families[0];
    for (i = 0; i < n; i++)
        if (families[i].coll == m->coll && !strcmp(families[i].algo, m->algo)) {
            need = families[i].need;
            break;
        }
    if (i == n) {
        *why = "no restrictions known for its family (a row in tests/coll/matrix/expect.c)";
        return -1;
    }
    int commute = 1, size = 0;
    if (k->op != MPI_OP_NULL)
        MPI_Op_commutative(k->op, &commute);
    if (k->dt != MPI_DATATYPE_NULL)
        MPI_Type_size(k->dt, &size);
    const double bytes = (double)size * k->count * (m->coll == CS_ALLTOALL ? k->size : 1);
    static const struct {
        unsigned flag;
        const char *what;
    } checks[] = {{ONE_NODE, "the group within one node"}, {NODES, "two or more nodes"},
                  {COMMUTE, "a commutative op"},           {DENSE, "dense elements"},
                  {COUNT_P, "count >= p"},                 {POW2, "p a power of two"},
                  {TWO, "p == 2"},                          {CMA, "cross-memory attach"},
                  {MAX64, "at most 64 ranks"},              {INT_BYTES, "bytes that fit an int"}};
    for (size_t c = 0; c < sizeof checks / sizeof checks[0]; c++) {
        const unsigned f = checks[c].flag;
        if (!(need & f))
            continue;
        const int holds = f == ONE_NODE    ? l->nnodes == 1
                          : f == NODES     ? l->nnodes > 1
                          : f == COMMUTE   ? commute
                          : f == DENSE     ? k->dt != MPI_DATATYPE_NULL && dense(k->dt)
                          : f == COUNT_P   ? k->count >= k->size
                          : f == POW2      ? (k->size & (k->size - 1)) == 0
                          : f == TWO       ? k->size == 2
                          : f == CMA       ? l->cma
                          : f == MAX64     ? k->size <= 64
                                           : bytes <= (double)INT_MAX;
        if (!holds) {
            *why = checks[c].what;
            return 0;
        }
    }
    *why = "its restrictions hold";
    return 1;
}
