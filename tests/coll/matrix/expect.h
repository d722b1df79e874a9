/* The matrix's own answer to "where must this method run?" (expect.c),
 * apart from the methods' applies(): each family's restrictions as its
 * header comment states them (one node, several nodes, a commutative op,
 * dense elements, count >= p, a power of two, 2 ranks, cross-memory
 * attach, at most 64 ranks), judged on the group's layout as MPI and the
 * test see it.  A method whose applies() refuses a case its restrictions
 * allow (or takes one they exclude) fails the matrix. */
#ifndef COLLSEL_TESTS_EXPECT_H
#define COLLSEL_TESTS_EXPECT_H

#include <stddef.h>

#include "coll/coll.h"

/* A group's layout: the (virtual) nodes it spans, from MPI's shared-memory
 * split cut into nodes of node_size ranks (0: real nodes); cma: every rank
 * can read every other's memory (process_vm_readv, tried here). */
typedef struct mx_layout {
    int nnodes, cma;
} mx_layout;

/* A case as the test made it. */
typedef struct mx_case {
    enum cs_coll coll;
    int size, count; /* count: elements (alltoall: of one block) */
    MPI_Datatype dt;
    MPI_Op op;       /* MPI_OP_NULL: none */
} mx_case;

/* Collective over comm. */
void mx_layout_of(MPI_Comm comm, int node_size, mx_layout *l);

/* 1 if m must apply to k on a group of layout l, 0 if it must not (*why:
 * the restriction that holds or fails), -1 if the matrix knows no
 * restrictions for m's family (*why says so: a new family needs its row
 * in expect.c). */
int mx_expect(const cs_method *m, const mx_layout *l, const mx_case *k, const char **why);

#endif
