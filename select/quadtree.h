/* Quadtree construction (select/ and its commands, tests, benchmarks;
 * render may use the grid for pictures).  The penalty of a tree: penalty.h.
 *
 * Science: Pjesivac-Grbovic, Bosilca, Fagg, Angskun, Dongarra, "MPI
 * collective algorithm selection and quadtree encoding", Parallel Computing
 * 33(9), 2007; and Pjesivac-Grbovic, Fagg et al., "Decision trees and MPI
 * collective algorithm selection problem", Euro-Par 2007. */
#ifndef COLLSEL_QUADTREE_H
#define COLLSEL_QUADTREE_H

#include "select/map.h"
#include "select/tree.h"

/* A decision map made complete: 2^k x 2^k points (x: comm sizes, y:
 * message sizes).  The axes are padded to 2^k by replicating the last
 * column/row; a point where nothing was measured takes the times of the
 * nearest measured point (grid distance, ties to the smaller x then y); a
 * method not measured at a measured point is no candidate there (it gets
 * 100 x the best time of the point).  Weights are those of the map on real
 * points, 0 on padding. */
typedef struct cs_grid {
    int k, n;          /* n = 2^k */
    int ncs, nms;      /* real extent: x < ncs, y < nms */
    int nm;            /* methods (map-local ids) */
    double *t;         /* t[(x * n + y) * nm + m], complete */
    double *w;         /* w[x * n + y] profile weight; NULL without profile */
    int *best;         /* best[x * n + y]: the point's decision under the map's margin
                          (map.h): the fastest method (ties: lower id) if it is native
                          or beats native by the margin, else native */
    int *fastest;      /* fastest[x * n + y]: fastest method (ties: lower id); equal
                          to best at margin 0 */
    unsigned char *measured; /* real point with at least one measured method */
    int native;        /* map-local id of native, -1 if absent */
    double margin;     /* the map's margin (percent) */
} cs_grid;

int cs_grid_build(cs_grid *g, const cs_map *m, cs_err *e);
void cs_grid_free(cs_grid *g);

enum cs_quadtree_mode {
    CS_TUNE_PAPERS = 0,  /* threshold + max depth, no leaf budget (the papers) */
    CS_TUNE_BUDGET = 1,  /* the papers' criterion, split breadth-first (shallowest,
                            least pure block first) until max_leaves */
    CS_TUNE_WEIGHTED = 2 /* profile-weighted: greedy best split until max_leaves */
};

typedef struct cs_quadtree_opts {
    int mode;          /* enum cs_quadtree_mode */
    int max_depth;     /* -1 = no cap */
    double threshold;  /* percent in (0, 100]: a block is a leaf when at least this
                          share of its points has one best method */
    int max_leaves;    /* leaf budget (BUDGET, WEIGHTED), counting the leaves that answer
                          inputs (blocks entirely in the padding are free) */
    int nchoices;      /* methods ranked per leaf before native is appended (<= 7) */
    int leaf_penalty;  /* PAPERS/BUDGET: a leaf answers the method of least summed
                          normalised time over its block, not its majority method
                          (the split criterion stays the majority's share) */
} cs_quadtree_opts;

/* Sort method ids 0..n-1 into rank by key1, then key2, then id (all
 * ascending): how a leaf ranks its methods (quadtree and C4.5). */
void cs_rank_methods(int *rank, int n, const double *key1, const double *key2);

/* Default decision margin of the commands (collsel tune / penalty --table
 * --margin), percent; see map.h.  The library's maps start at 0. */
#define CS_TUNE_MARGIN 10.0

/* Defaults: papers, no depth cap, 100 %, 16 leaves, 4 choices. */
void cs_quadtree_opts_default(cs_quadtree_opts *o);

/* Build the quadtree of map m (collective m->coll) and install it in t,
 * replacing an existing one.  WEIGHTED needs m->w; when the profile puts no
 * weight on the collective it falls back to BUDGET.
 * The map's margin (m->margin, map.h) governs every construction: the
 * papers' criterion counts the points' margin decisions (cs_grid.best); the
 * weighted criterion ranks a leaf by weighted normalised time and puts
 * native first unless the best method's total beats native's total by the
 * margin.  So a leaf's ranked list starts with native wherever no method
 * beats native by the margin over the leaf's block.  Margin 0: the trees of
 * the plain fastest method. */
int cs_quadtree_build(cs_tree *t, const cs_map *m, const cs_quadtree_opts *o, cs_err *e);

#endif
