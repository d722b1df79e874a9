/* collsel MPI_Bcast algorithms: the registry table and the entry points.
 *
 * registry.c holds the table (entry 0 = "bcast.native"); the tree-shaped
 * methods (linear, chain, pipeline, binary, binomial, knomial: trees.c) are
 * thin wrappers that fetch a cached topology and call the one segmented-tree
 * engine (engine.c); split-binary and the two scatter-allgather algorithms
 * have their own files.
 *
 * Bcast moves bytes: every algorithm works on the message as c->bytes
 * contiguous bytes (bytes.c: the user's buffer itself when the datatype is
 * dense, else a packed copy), so segments need no element alignment and
 * ranks may pass different datatypes with the same type signature.  All
 * traffic is MPI_BYTE on c->pcomm under CS_TAG_BCAST.  Count 0 and a single
 * process return at once.
 */
#ifndef COLLSEL_BCAST_H
#define COLLSEL_BCAST_H

#include <stddef.h>

#include "coll/coll.h"
#include "coll/topo.h"

extern const cs_method cs_bcast_methods[];
extern const int cs_bcast_nmethods;

/* The message as contiguous bytes on this rank. */
typedef struct cs_bcast_bytes {
    char *p;   /* c->bytes bytes: into the user's buffer, or tmp */
    void *tmp; /* packing buffer (non-dense datatype), else NULL */
} cs_bcast_bytes;

/* Prepare b for call c: a dense datatype uses c->buf directly (at its true
 * lower bound); otherwise a temporary is allocated, which the root fills
 * with PMPI_Pack.  Returns an MPI error code (MPI_ERR_NO_MEM). */
int cs_bcast_bytes_get(const cs_call *c, cs_bcast_bytes *b);
/* Finish: when rc is MPI_SUCCESS a non-root rank unpacks the temporary into
 * c->buf; the temporary is freed.  Returns rc, or the unpack error. */
int cs_bcast_bytes_put(const cs_call *c, cs_bcast_bytes *b, int rc);
/* 1 if count elements of dt are one gap-free run of bytes in type-map
 * order starting at the true lower bound (*tlb); 0 if not (or on error). */
int cs_bcast_dense(MPI_Datatype dt, MPI_Aint *tlb);

/* "Unsegmented" still moves at most this many bytes per message (MPI counts
 * are int). */
#define CS_BCAST_MAXSEG ((size_t)1 << 30)

/* The segmented-tree engine on raw bytes: receive p[0..n) from parent (-1:
 * this rank has the data) in segments of seg bytes (0: unsegmented) and
 * forward every segment to the children in order.  Returns an MPI error. */
int cs_bcast_tree_bytes(MPI_Comm comm, int parent, const int *children, int nchildren,
                        char *p, size_t n, size_t seg);
/* The engine on a call: prepares the bytes, runs the tree t, finishes. */
int cs_bcast_tree(const cs_call *c, const cs_topo *t, size_t seg);

/* Scatter-allgather helpers (scatter.c).  The n bytes are cut into P blocks
 * of ceil(n/P) bytes in virtual-rank order (v = (rank - root + P) % P); the
 * last blocks may be short or empty.  cs_bcast_block_range gives the bytes
 * [*off, *off + *len) of blocks [first, first + nblocks). */
void cs_bcast_block_range(size_t n, int size, int first, int nblocks, size_t *off, size_t *len);
/* Binomial scatter from the root: on return virtual rank v holds at least
 * its own block v (its whole binomial subtree's blocks, in fact). */
int cs_bcast_scatter(const cs_call *c, char *p);
/* applies(): the scatter-allgather methods (c->bytes <= INT_MAX). */
int cs_bcast_applies_int_bytes(const cs_call *c, const cs_method *m);
int cs_bcast_shm_ota(const cs_call *c, const cs_method *m);
int cs_bcast_shm_tree(const cs_call *c, const cs_method *m);
int cs_bcast_shm_cma(const cs_call *c, const cs_method *m);
int cs_bcast_shm_ag(const cs_call *c, const cs_method *m);
/* The opening of the single-copy bcasts (shm.c: bcast.shm.cma, .ag): the
 * segment, and the bytes in b; NULL when the call is over already (nothing
 * to move; no segment: it ran natively; no cross-memory reads: it ran
 * bcast.shm.ota; the bytes could not be had), *rc its result. */
struct cs_shm;
struct cs_shm *cs_bcast_shm_start(const cs_call *c, const cs_method *m, cs_bcast_bytes *b,
                                  int *rc);
int cs_bcast_node(const cs_call *c, const cs_method *m);
int cs_bcast_node_dynamic(const cs_call *c, const cs_method *m);
int cs_bcast_node_dynamic_applies(const cs_call *c, const cs_method *m);
/* The calls of bcast.node.dynamic in which this rank received the message
 * from the root (for its node, as its leader, or for itself in a pushed
 * node): read by the tests, which check that the leader follows the
 * arrivals. */
extern unsigned long cs_bcast_node_dynamic_leads;
/* Whether bcast.node.dynamic sends a message of `bytes` straight to every
 * rank of a (non-root) node of nranks ranks, unasked, instead of to the
 * rank that asks first for the node: a node of one rank, or a small
 * message (up to CS_BCAST_DYN_PUSH_BYTES) to a small node (up to
 * CS_BCAST_DYN_PUSH_RANKS ranks), where the root's few more sends cost
 * less than a request's trip and a second hop through shared memory.  The
 * same answer on every rank: no message to agree.  Bytes: a late rank
 * then takes the message out of its MPI's queue instead of a slot; Open
 * MPI's shared-memory transport took 0.25 us for 8 B, 0.8-1.5 us for 1 KiB
 * there (2 ranks, one per core; a slot: 0.2 us), and at 1 KiB a root whose
 * core the late rank shared waited for it (3-5 us): 256 B, the size that
 * transport still sends inline. */
#define CS_BCAST_DYN_PUSH_BYTES 256
#define CS_BCAST_DYN_PUSH_RANKS 4
int cs_bcast_node_dynamic_pushed(size_t bytes, int nranks);

/* Complete n requests (MPI_REQUEST_NULL ones are skipped), stopping at the
 * first error, which is returned.  Not PMPI_Waitall(.., MPI_STATUSES_IGNORE):
 * with MPICH's prototype (MPI_Status array_of_statuses[]) gcc 12 rejects
 * the (MPI_Status *)1 under -Werror=stringop-overflow. */
static inline int cs_bcast_waitall(int n, MPI_Request *r)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++)
        CS_TRY(PMPI_Wait(&r[i], MPI_STATUS_IGNORE));
out:
    return rc;
}

/* The algorithms (cs_algo_fn). */
int cs_bcast_native(const cs_call *c, const cs_method *m);
int cs_bcast_linear(const cs_call *c, const cs_method *m);
int cs_bcast_chain(const cs_call *c, const cs_method *m);    /* also pipeline: fanout 1 */
int cs_bcast_binary(const cs_call *c, const cs_method *m);
int cs_bcast_binomial(const cs_call *c, const cs_method *m);
int cs_bcast_knomial(const cs_call *c, const cs_method *m);
int cs_bcast_splitbinary(const cs_call *c, const cs_method *m);
int cs_bcast_scatter_rdallgather(const cs_call *c, const cs_method *m);
int cs_bcast_scatter_ringallgather(const cs_call *c, const cs_method *m);

#endif
