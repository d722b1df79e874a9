/* C4.5 decision trees (Quinlan, "C4.5: Programs for Machine Learning",
 * 1993), as used for MPI collective selection by Pjesivac-Grbovic, Fagg,
 * Angskun, Bosilca, Dongarra, "Decision trees and MPI collective algorithm
 * selection problem", Euro-Par 2007.
 *
 * Two layers:
 *   cs_c45_grow   the learner on generic cases (continuous and discrete
 *                 attributes, weighted cases): gain-ratio splits, -m, the
 *                 pessimistic pruning of confidence -c (c45.c);
 *   cs_c45_build  the learner on decision maps: cases = measured points
 *                 (comm size, message size[, collective]), class = the
 *                 point's decision under the map's margin (map.h), weight =
 *                 the application's time there (profile) or 1; the tree is
 *                 compiled into each collective's run-time decision function
 *                 (a binary tree of cuts on the grid, tree_impl.h) so that
 *                 deciding costs what a quadtree's decision costs
 *                 (c45_tree.c). */
#ifndef COLLSEL_C45_H
#define COLLSEL_C45_H

#include <stddef.h>

#include "map.h"
#include "tree.h"

#define CS_C45_MAXATTR 4

/* Cases: x[i * nattr + a] is attribute a of case i; an attribute with
 * nvals[a] == 0 is continuous, otherwise discrete with values
 * 0..nvals[a]-1 (stored as doubles).  cls[i] in 0..ncls-1; w[i] > 0 the
 * case's weight (NULL: all 1).  Ties between classes go to the lower
 * class id. */
typedef struct cs_c45_data {
    int nattr, ncls;
    int nvals[CS_C45_MAXATTR];
    size_t n;
    const double *x;
    const int *cls;
    const double *w;
} cs_c45_data;

typedef struct cs_c45_opts {
    double minobjs;  /* -m: a split needs at least this much case weight in at least
                        two of its branches (>= 1; C4.5's default 2) */
    double cf;       /* -c: confidence level of the pruning estimate, percent in
                        (0, 100] (C4.5's default 25; lower prunes more) */
    int max_leaves;  /* after pruning, collapse the subtrees that cost the fewest
                        training errors until at most this many leaves; 0 = no cap */
} cs_c45_opts;

/* A node.  Internal: attr >= 0; continuous: cases with x <= thresh go to
 * child, the others to child + 1; discrete: value v goes to child + v.
 * Leaves (attr -1) answer cls; a branch that got no case is a leaf of
 * weight 0 answering its parent's class. */
typedef struct cs_c45_node {
    int attr;
    double thresh;
    int nbranch, child;
    int cls;        /* majority class of the node's cases */
    double w;       /* case weight reaching the node */
    double err;     /* training errors if the node were a leaf: w - weight of cls */
    double est;     /* pessimistic estimate of the errors of the (pruned) subtree */
    int depth;      /* root 0 */
} cs_c45_node;

typedef struct cs_c45 {
    cs_c45_node *v; /* v[0] is the root; pruned subtrees stay in the array, unreachable */
    int n, cap;
    int nvals[CS_C45_MAXATTR]; /* the data's attributes (0: continuous) */
    int leaves_grown;   /* leaves before pruning */
    double errors_grown; /* training errors before pruning */
} cs_c45;

/* Grow, collapse (a subtree that does not reduce the training errors
 * becomes a leaf), prune (pessimistic estimates at confidence o->cf), then
 * cap the leaves.  Fails (naming the problem) on bad options or data. */
int cs_c45_grow(cs_c45 *t, const cs_c45_data *d, const cs_c45_opts *o, cs_err *e);
void cs_c45_free(cs_c45 *t);
/* The leaf (node index) a case with attributes x reaches. */
int cs_c45_leaf(const cs_c45 *t, const double *x);

/* The reachable tree: leaves, all nodes, maximum depth, and sums over the
 * leaves of the training errors and the pessimistic estimates. */
typedef struct cs_c45_shape {
    int leaves, nodes, depth;
    double errors, est, cases;
} cs_c45_shape;
void cs_c45_shape_get(const cs_c45 *t, cs_c45_shape *s);

/* Quinlan's U_CF(E, N): the upper limit of the confidence interval of a
 * binomial error rate at confidence cf (a fraction in (0, 1]) after E
 * errors in N cases (real E and N: weighted cases), computed as C4.5 does
 * (c45.c).  U_0.25(0, 6) = 0.206, U_0.25(1, 16) = 0.157 (the book). */
double cs_c45_upper(double n, double err, double cf);

/* ---- on decision maps (c45_tree.c) ------------------------------------ */

typedef struct cs_c45_tune {
    cs_c45_opts c;
    int weighted;   /* weight the cases with the maps' profile weights (maps without
                       weight on any point: uniform) */
    int nchoices;   /* methods ranked per leaf before native is appended (<= 6) */
} cs_c45_tune;

/* What the build reports: the C4.5 tree (before and after pruning; in case
 * units: the weights are normalised to a mean of 1) and, for combined
 * trees, the depth of the first test on the collective (1 = the root's
 * test; 0 = none). */
typedef struct cs_c45_result {
    int leaves_grown, leaves, nodes, depth;
    double cases, errors_grown, errors, est;
    int ncls, coll_level;
} cs_c45_result;

void cs_c45_tune_default(cs_c45_tune *o); /* -m 2 -c 25, unweighted, 4 choices */

/* One C4.5 tree from maps[0..nmaps) (nmaps > 1: a combined tree with the
 * collective as a discrete attribute; classes are then the method names
 * without the collective, "binomial", shared across collectives), compiled
 * into the decision function of every map's collective in t (replacing
 * existing ones).  Each map's margin governs its classes; a leaf ranks the
 * tree's class first, then the methods by the number of the block's points
 * they decide and their summed normalised time; native is appended. */
int cs_c45_build(cs_tree *t, const cs_map *const *maps, int nmaps, const cs_c45_tune *o,
                 cs_c45_result *r, cs_err *e);

#endif
