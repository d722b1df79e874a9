/* Decision trees: the quadtree decision function of each collective.
 *
 * Build side (collsel tune): a decision map per collective (measured
 * communicator sizes x message sizes -> time of every method, optionally a
 * profile weight per point) is completed to 2^k x 2^k and encoded as a
 * quadtree, with the papers' accuracy threshold / maximum depth, or with
 * profile-weighted refinement under a leaf budget.
 *
 * Run side (the shim, collsel-replay --mix): a compact, pointer-free
 * encoding.  (comm size, message bytes) map to grid coordinates in O(1)
 * (table lookups, no search over axis values); each leaf holds a ranked list
 * of methods (best first) so that dispatch can fall back to the next best
 * applicable method.  Points outside the measured ranges take the nearest
 * boundary rule.
 *
 * File: versioned, CRC-checked, written atomically; a bad file is rejected
 * with a message naming the file.  Methods are stored by name; the reader
 * of the tree (shim) maps names to its registry.
 */
#ifndef COLLSEL_TREE_H
#define COLLSEL_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "common/colls.h"
#include "common/util.h"

typedef struct cs_tree cs_tree; /* all collectives of one tree file */

int cs_tree_read(cs_tree **t, const char *path, cs_err *e);
int cs_tree_write(const cs_tree *t, const char *path, cs_err *e);
void cs_tree_free(cs_tree *t);

/* The layout the tree was tuned for (the profile's: nodes x ranks per
 * node); 0 x 0 when unknown (tuned without a profile, or from profiles of
 * different layouts).  Stored in the file (version 3). */
void cs_tree_set_layout(cs_tree *t, uint32_t nodes, uint32_t ranks_per_node);
void cs_tree_layout(const cs_tree *t, uint32_t *nodes, uint32_t *ranks_per_node);
/* "2 nodes x 2 ranks per node" ("unknown layout" for 0); returns buf. */
const char *cs_layout_str(uint32_t nodes, uint32_t ranks_per_node, char *buf, size_t len);

/* 1 if the tree has a decision function for collective coll. */
int cs_tree_has(const cs_tree *t, int coll);

/* The decision: the leaf's ranked candidate list for (comm_size, bytes).
 * Returns the number of candidates n >= 1 and sets *ids to n tree-local
 * method ids, best first (at most 7; 0 if the tree has no function for
 * coll).  t must not be NULL and coll must be a valid enum cs_coll.  Fast
 * (two table lookups for the grid coordinates, one for the leaf; about 5 ns)
 * and allocation-free; safe to call from several threads. */
int cs_tree_decide(const cs_tree *t, int coll, uint32_t comm_size, uint64_t bytes,
                   const uint16_t **ids);

/* Method names of collective coll, indexed by tree-local id. */
int cs_tree_nmethods(const cs_tree *t, int coll);
const char *cs_tree_method_name(const cs_tree *t, int coll, int id);

/* Measured axes of collective coll (the map the tree was built from). */
int cs_tree_axes(const cs_tree *t, int coll, const uint32_t **cs, int *ncs,
                 const uint64_t **ms, int *nms);

/* The leaves of collective coll's tree, for printing, pictures, code
 * generation and exports.  A leaf covers the grid block [x0, x1) x [y0, y1)
 * of the 2^k x 2^k map (x: communicator-size axis, y: message-size axis)
 * and, in real units, communicator sizes cs_lo..cs_hi and message sizes
 * ms_lo..ms_hi inclusive (exactly the inputs for which cs_tree_decide()
 * answers this leaf; the first/last leaves extend to 0 / UINT32_MAX /
 * UINT64_MAX: outside the measured range the nearest boundary rule holds).
 * ids: ranked methods, best first (tree-local ids). */
typedef struct cs_leaf {
    int depth;
    int x0, x1, y0, y1;
    uint32_t cs_lo, cs_hi;
    uint64_t ms_lo, ms_hi;
    int n;
    const uint16_t *ids;
} cs_leaf;
/* *leaves is malloc'd (free it); order: depth-first, quadrant order (binary
 * trees: first child first).  A binary tree's leaves are rectangles.
 * Blocks are clipped to the measured extent (x1 <= ncs, y1 <= nms; the grid
 * is padded to 2^k by replicating the last column/row); a leaf lying
 * entirely in the padding answers no input and is not listed.  Boundaries
 * between measured points: comm sizes at the arithmetic midpoint
 * floor((a + b) / 2), message sizes at the geometric midpoint
 * floor(sqrt(a * b)) (the midpoint itself belongs to the lower point). */
int cs_tree_leaves(const cs_tree *t, int coll, cs_leaf **leaves, size_t *n);

/* An empty tree (no collective); collectives are added by the quadtree
 * build (select/quadtree.h).  NULL when out of memory. */
cs_tree *cs_tree_new(void);

/* Shape of collective coll's tree: nodes, leaves (all, including those in
 * the padding), leaf depths, and the encoded size in bytes (nodes, leaf
 * lists, axes, names as stored in the file) and of the run-time tables. */
typedef struct cs_tree_stats {
    uint32_t nodes, leaves, min_depth, max_depth;
    uint32_t answering; /* leaves not entirely in the padding (cs_tree_leaves) */
    double mean_depth;
    size_t bytes, bytes_nodes, bytes_runtime;
    int k; /* grid is 2^k x 2^k */
    int binary; /* a binary tree of cuts (C4.5, select/c45.h), not a quadtree */
} cs_tree_stats;
int cs_tree_stats_get(const cs_tree *t, int coll, cs_tree_stats *s);

/* Same answer as cs_tree_decide, found by descending the tree (quadtree or
 * binary tree of cuts) instead of the flat leaf table (for the benchmark
 * and the tests). */
int cs_tree_decide_qt(const cs_tree *t, int coll, uint32_t comm_size, uint64_t bytes,
                      const uint16_t **ids);

#endif
