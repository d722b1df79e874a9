/* Communication topologies of the tree-shaped algorithms, as data.
 *
 * A topology is built by a pure function of (kind, rank, size, root,
 * fanout): no MPI, unit-tested on its own.  Ranks are communicator ranks.
 * cs_topo_cached() keeps built topologies per (communicator, kind, root,
 * fanout) in the communicator's state (cs_comm_state.topo_cache).
 */
#ifndef COLLSEL_TOPO_H
#define COLLSEL_TOPO_H

enum cs_topo_kind {
    CS_TOPO_LINEAR,          /* root -> every other rank */
    CS_TOPO_CHAIN,           /* `fanout` chains hanging off the root (pipeline: 1) */
    CS_TOPO_KARY,            /* complete k-ary tree (binary: k = 2) */
    CS_TOPO_BINOMIAL,        /* binomial tree */
    CS_TOPO_KNOMIAL,         /* k-nomial tree, radix = fanout */
    CS_TOPO_INORDER_BINARY,  /* binary tree whose in-order traversal is rank
                                order (non-commutative reduce), see below */
};

/* CS_TOPO_INORDER_BINARY (fanout ignored): a binary search
 * tree on the ranks 0..size-1, rooted at `root` itself (no rotation): the
 * root's left subtree holds ranks [0, root), its right subtree
 * (root, size); below the root every subtree over a range [lo, hi] is
 * rooted at its lower middle lo + (hi - lo) / 2.  So every subtree covers a
 * contiguous range of ranks, and children[] lists at most two children in
 * ascending rank order: a child < rank roots the range just below rank, a
 * child > rank the range just above.  A non-commutative reduce computes
 * (left range) op (own value) op (right range) at each rank and the result
 * ends at the user's root with no extra hop.  Depth (edges) <= 1 +
 * floor(log2(max(root, size - 1 - root))) (= floor(log2 size) for root
 * in the middle, one more than balanced for root 0 or size - 1). */

typedef struct cs_topo {
    int kind;        /* enum cs_topo_kind */
    int root;        /* root rank of the tree */
    int fanout;      /* the fan-out / radix the tree really has (linear 1,
                        binomial and in-order binary 2, whatever the
                        argument; the cache key) */
    int parent;      /* parent rank; -1 at the root */
    int nchildren;   /* number of children of this rank */
    int children[];  /* child ranks, in the order data is sent to them */
} cs_topo;

/* Build the topology seen by `rank` (malloc'd; free with free()).  Returns
 * NULL on bad arguments or out of memory. */
cs_topo *cs_topo_build(int kind, int rank, int size, int root, int fanout);

struct cs_call;
/* The cached topology for this call's communicator (c->st, c->rank,
 * c->size), NULL on out of memory or bad arguments.  The cache keeps the
 * CS_TOPO_CACHE_MAX most recently used (kind, root, fanout); a returned
 * pointer stays valid until the cache is freed or CS_TOPO_CACHE_MAX other
 * topologies have been fetched on the communicator since. */
#define CS_TOPO_CACHE_MAX 32
const cs_topo *cs_topo_cached(const struct cs_call *c, int kind, int root, int fanout);
/* Free a communicator's cache (called by the state's delete callback). */
void cs_topo_cache_free(void *cache);

#endif
