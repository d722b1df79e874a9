/* collsel MPI_Reduce algorithms: the registry table and the entry points.
 *
 * registry.c holds the table (entry 0 = "reduce.native"); every other file
 * is one algorithm.  The tree-shaped methods are thin wrappers around one
 * segmented-tree engine (engine.c, trees.c); in-order binary reuses the
 * engine on the in-order binary tree rooted at the call's root; linear and
 * Rabenseifner have their own code; scratch.c caches temporaries.
 *
 * Operand order.  MPI requires result = x0 op x1 op ... op x(p-1) for a
 * non-commutative op.  PMPI_Reduce_local(in, inout) computes
 * inout = in op inout.  Which methods preserve rank order (and so apply to
 * non-commutative ops):
 *   native, linear, inorder_binary(.segNk)        -- every op
 *   chain, pipeline, binary, binomial, knomial,   -- commutative ops only
 *   rabenseifner (also count >= size)
 */
#ifndef COLLSEL_REDUCE_H
#define COLLSEL_REDUCE_H

#include "coll/coll.h"
#include "coll/topo.h"

extern const cs_method cs_reduce_methods[];
extern const int cs_reduce_nmethods;

/* Datatype geometry of one call (identical on every rank: reduce passes the
 * same dt everywhere).  A buffer of n elements spans
 * [tlb, tlb + textent + (n-1)*extent) relative to its start pointer. */
typedef struct cs_rtype {
    MPI_Aint extent;   /* PMPI_Type_get_extent: stride between elements */
    MPI_Aint tlb;      /* true lower bound */
    MPI_Aint textent;  /* true extent: bytes one element really touches */
    int size;          /* PMPI_Type_size: bytes of data in one element */
    int contig;        /* 1: n elements are n*extent contiguous bytes at tlb */
} cs_rtype;

/* Fill t for dt.  Returns an MPI error code. */
int cs_reduce_rtype(MPI_Datatype dt, cs_rtype *t);
/* Temporary buffer for n elements (n >= 1), allocated by true extent
 * (scratch.c: from a small cache of reused blocks).  The returned pointer
 * is to be used as an MPI buffer; give *raw back with cs_reduce_tmp_free().
 * NULL (and *raw = NULL) when out of memory. */
char *cs_reduce_tmp(const cs_rtype *t, int n, char **raw);
void cs_reduce_tmp_free(char *raw); /* NULL: no-op */
/* Free the cached scratch blocks (e.g. at MPI_Finalize; optional). */
void cs_reduce_scratch_release(void);
/* Copy n elements of c->dt from src to dst (same layout, gaps untouched).
 * Returns an MPI error code. */
int cs_reduce_copy(const cs_call *c, const cs_rtype *t, const void *src, void *dst, int n);
/* Complete requests on an exit path: cancel (receives) and wait, so that
 * no buffer is freed under a pending request. */
void cs_reduce_drain(MPI_Request *r, int n, int cancel);
/* Elements per segment for a segment size in bytes (0 = whole message). */
int cs_reduce_segcount(const cs_call *c, const cs_rtype *t, int segsize);

/* The segmented-tree engine (engine.c).  Topology t must be rooted at
 * t->root, which need not be c->root: at the tree root the result is
 * written to rbuf (ignored elsewhere).  Each rank contributes c->sendbuf
 * (or c->buf when c->sendbuf is MPI_IN_PLACE).  For a non-commutative op
 * the result is in rank order iff every subtree is a contiguous rank range
 * whose children below the node come in decreasing and those above it in
 * increasing rank order (e.g. the in-order binary tree). */
int cs_reduce_tree(const cs_call *c, const cs_topo *t, int segsize, void *rbuf);

/* applies(): op is commutative (tree methods that reorder operands). */
int cs_reduce_applies_commute(const cs_call *c, const cs_method *m);
/* applies(): Rabenseifner (commutative op, count >= size). */
int cs_reduce_applies_rabenseifner(const cs_call *c, const cs_method *m);

/* Algorithms (cs_algo_fn). */
int cs_reduce_native(const cs_call *c, const cs_method *m);
int cs_reduce_linear(const cs_call *c, const cs_method *m);
int cs_reduce_chain(const cs_call *c, const cs_method *m);
int cs_reduce_pipeline(const cs_call *c, const cs_method *m);
int cs_reduce_binary(const cs_call *c, const cs_method *m);
int cs_reduce_binomial(const cs_call *c, const cs_method *m);
int cs_reduce_knomial(const cs_call *c, const cs_method *m);
int cs_reduce_inorder_binary(const cs_call *c, const cs_method *m);
int cs_reduce_rabenseifner(const cs_call *c, const cs_method *m);
int cs_reduce_shm_direct(const cs_call *c, const cs_method *m);
int cs_reduce_shm_ag(const cs_call *c, const cs_method *m);
int cs_reduce_shm_tree(const cs_call *c, const cs_method *m);
int cs_reduce_shm_tree_applies(const cs_call *c, const cs_method *m);
int cs_reduce_node(const cs_call *c, const cs_method *m);

#endif
