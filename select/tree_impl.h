/* Inside of a decision tree (select/ only; everyone else uses tree.h).
 *
 * One collective's decision function, as stored in the file:
 *   axes      the measured comm sizes cs[ncs] and message sizes ms[nms]
 *             (ascending), padded to a 2^k x 2^k grid;
 *   methods   names, index = tree-local id;
 *   nodes     the quadtree, a flat uint32 array, root at 0.  A node with
 *             bit 31 set is a leaf (low bits: leaf index); otherwise it is
 *             the index of its first child, the 4 children are contiguous
 *             and come after their parent.  Child c covers the quadrant
 *             (x half c >> 1, y half c & 1) of its parent's block;
 *   leaves    per leaf a ranked method list (1..CS_TREE_MAXCHOICE ids).
 *   kind      CS_DTREE_QUAD (above) or CS_DTREE_BIN: a binary tree of
 *             axis-aligned cuts (a C4.5 tree compiled onto the grid,
 *             select/c45.h).  A binary node is CS_BIN_NODE(child, axis, s):
 *             its 2 children are contiguous and come after it; the first
 *             covers the coordinates < s on its axis (0: x, comm size; 1: y,
 *             message size), the second those >= s; s lies strictly inside
 *             the node's block.  The root covers the whole 2^k x 2^k grid.
 * Run-time tables (built at load by cs_dtree_install):
 *   xtab      comm size -> x (sizes >= nxtab take the last column);
 *   ytab/mshi message bytes -> y: ytab[q] for the quarter-octave q of the
 *             size gives the first candidate row, then one branch-free
 *             step if the size is above that row's upper bound mshi[] (a
 *             loop only if some quarter-octave holds two bounds: `multi`);
 *   leaf_rec  per leaf its ranked ids and their count in one 16-byte record;
 *   flat      the tree expanded to a 2^k x 2^k leaf table, flat[x << k | y].
 * Boundaries: comm size c belongs to column i when it is at most the
 * arithmetic midpoint floor((cs[i] + cs[i+1]) / 2); message size b belongs
 * to row j when it is at most the geometric midpoint
 * floor(sqrt(ms[j] * ms[j+1])).  Below the first / above the last measured
 * value the first / last column or row answers (nearest boundary rule). */
#ifndef COLLSEL_TREE_IMPL_H
#define COLLSEL_TREE_IMPL_H

#include "tree.h"

#define CS_TREE_MAXCHOICE 7 /* a leaf record is uint16[8]: ids, then n */
#define CS_TREE_MAXK 8          /* grid up to 256 x 256 */
#define CS_TREE_LEAF 0x80000000u
#define CS_TREE_MAX_XTAB (1u << 20) /* comm-size table limit */

enum { CS_DTREE_QUAD = 0, CS_DTREE_BIN = 1 };
#define CS_BIN_NODE(child, axis, s) ((uint32_t)(child) | (uint32_t)(axis) << 20 | (uint32_t)(s) << 21)
#define CS_BIN_CHILD(v) ((v) & 0xFFFFFu)
#define CS_BIN_AXIS(v) ((v) >> 20 & 1u)
#define CS_BIN_SPLIT(v) ((v) >> 21 & 0xFFu)
#define CS_BIN_MAXDEPTH 255 /* leaf depths are kept in a byte */

typedef struct cs_dtree {
    /* hot: read by cs_tree_decide */
    int k, ncs, nms;
    uint32_t nxtab;
    const uint8_t *xtab;
    const uint64_t *mshi;
    const uint16_t *flat;
    const uint16_t (*leaf_rec)[8]; /* per leaf: ids[0..6], n in [7] */
    int multi;                     /* some quarter-octave holds 2+ row bounds */
    uint8_t ytab[257];
    /* stored */
    int present;
    int kind; /* CS_DTREE_QUAD or CS_DTREE_BIN */
    uint32_t *cs;
    uint64_t *ms;
    int nmethods;
    char (*methods)[64];
    uint32_t nnodes, nleaves;
    uint32_t *nodes;
    uint8_t *leaf_n_own;
    uint16_t *leaf_ids_own;
    uint8_t *leaf_depth;
    uint8_t *xtab_own;
    uint64_t *mshi_own;
    uint16_t *flat_own;
    uint16_t (*leaf_rec_own)[8];
} cs_dtree;

struct cs_tree {
    cs_dtree d[CS_NCOLL];
    uint32_t nodes, ranks_per_node; /* the layout it was tuned for; 0: unknown */
};

/* Validate d (every index, axis, name, list; messages prefixed with `what`)
 * and install it as collective coll of t, building the run-time tables.
 * Takes ownership of d's stored arrays in every case (freed on failure). */
int cs_dtree_install(cs_tree *t, int coll, cs_dtree *d, const char *what, cs_err *e);
void cs_dtree_free(cs_dtree *d);
/* Comm-size column upper bound of column i < ncs-1 (arithmetic midpoint). */
uint32_t cs_dtree_cshi(const cs_dtree *d, int i);

#endif
