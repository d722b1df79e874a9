/* One replayed collective operation: buffers, the cs_call descriptor and
 * the root rotation, plus the closures that run it through one registry
 * method (measuring) or through a decision tree (the --mix replay).
 *
 * Data: bcast moves MPI_BYTE; reduce and allreduce sum MPI_DOUBLE, so their
 * message size
 * is rounded to the nearest multiple of 8 bytes (at least 8: count >= 1);
 * cs_rop_bytes() gives the size really moved, which is what perf tables
 * record.  Barrier moves nothing (size 0).
 *
 * Roots (enum cs_root_mode of record/profile.h): ZERO -> 0, FIXED -> root
 * modulo the communicator size, VARYING -> call i uses root i mod size.
 */
#ifndef COLLSEL_REPLAY_OP_H
#define COLLSEL_REPLAY_OP_H

#include <mpi.h>
#include <stdint.h>

#include "coll/coll.h"

struct cs_tree;

typedef struct cs_rop {
    enum cs_coll coll;
    MPI_Comm comm;
    int root_mode, root;   /* enum cs_root_mode; root for FIXED */
    void *buf, *sbuf;      /* bcast buffer / reduce recv; reduce send */
    cs_call call;          /* filled once; .root set per call */
    const cs_method *m;    /* cs_rop_run: the method to run */
    /* cs_rop_run_tree: the tree and the map tree-local id -> registry index */
    const struct cs_tree *tree;
    const int *tree_map;
    int tree_nmap;
    uint64_t decide_bytes; /* size given to the decision function */
    const cs_method **picks; /* cs_rop_set_tree: the tree's method per root (index:
                                root), decided once as the shim's cache does */
} cs_rop;

/* One way to run an operation: op through method m, or through the tree's
 * picks when m is NULL.  The closure of the interleaved timing (stage 2 of
 * collsel-replay, --mix): both use the same buffers, datatypes, root
 * rotation and rounds as cs_rop_run. */
typedef struct cs_rop_with {
    cs_rop *op;
    const cs_method *m;
} cs_rop_with;

uint64_t cs_rop_bytes(enum cs_coll coll, uint64_t bytes);

/* Collective over comm.  Returns an MPI error code. */
int cs_rop_init(cs_rop *op, enum cs_coll coll, MPI_Comm comm, uint64_t bytes, int root_mode,
                int root);
void cs_rop_free(cs_rop *op);
int cs_rop_root(const cs_rop *op, long i);
/* 1 if m applies to every call of op (every root the rotation uses). */
int cs_rop_applies(cs_rop *op, const cs_method *m);
/* 1 if m is a segmented variant whose segment covers the whole message (it
 * would behave exactly as the unsegmented method). */
int cs_rop_redundant(const cs_rop *op, const cs_method *m);

/* Decide the tree's method for every root the rotation uses (local, no
 * MPI; call after cs_rop_init).  Returns 0, or -1 out of memory. */
int cs_rop_set_tree(cs_rop *op, const struct cs_tree *tree, const int *map, int nmap);

/* cs_timed_fn closures (timing.h): call i of op through op->m ... */
int cs_rop_run(void *op, long i);
/* ... through a cs_rop_with ... */
int cs_rop_run_with(void *with, long i);
/* ... or through the tree: first applicable candidate of the leaf, native
 * if none (what the shim does; decided in advance by cs_rop_set_tree, so
 * the timed calls cost what the method costs, as with the shim's cached
 * decision). */
int cs_rop_run_tree(void *op, long i);
/* The method the tree picks for call i (registry entry). */
const cs_method *cs_rop_tree_pick(cs_rop *op, long i);

#endif
