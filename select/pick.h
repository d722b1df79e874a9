/* The one place that picks the method for a call from a decision tree (on
 * the select side: the algorithms in coll/ know nothing of trees; a
 * library of its own, cs_pick, as it needs both):
 * the preload library's dispatch (shim/dispatch.c) and the tuned side of
 * `collsel-replay --mix` (replay/op.c) both call it, so that the mix
 * measures exactly what the shim runs.
 *
 * A tree names its methods; cs_pick_map() maps those names to this build's
 * registry once.  Per call, cs_pick() takes the leaf's ranked candidates
 * and returns the first that this build has and that applies to the call,
 * else native (registry index 0).  Native itself always applies.  A
 * communicator of one rank always gets native: the MPI library answers it
 * with a local copy at most (Open MPI's self component, MPICH's own check),
 * and a method of ours would add the dispatch and a private communicator
 * (measured in the example application: the tree's bcast.linear on its
 * one-rank row communicators cost 15x native there). */
#ifndef COLLSEL_PICK_H
#define COLLSEL_PICK_H

#include "coll/coll.h"
#include "select/tree.h"

/* Tree-local method id -> registry index of collective coll (-1: not in
 * this build).  *n: the number of ids (0 when the tree has no function for
 * coll).  Returns a malloc'd array (at least one element), NULL when out of
 * memory. */
int *cs_pick_map(const cs_tree *t, int coll, int *n);

/* The registry index for call c (decided at bytes, which may differ from
 * c->bytes: the replay decides on the profile's size, moves a rounded
 * one).  *pos: the candidate's rank in the leaf's list, -1 when none
 * applies (native then). */
int cs_pick(const cs_tree *t, const int *map, int nmap, const cs_call *c, uint64_t bytes,
            int *pos);

/* Exploring (COLLSEL_EXPLORE): the leaf's first k candidates that this
 * build has and that apply to call c (check 0: every one taken as
 * applying, for a call whose communicator has no node split yet), in the
 * tree's order, then native if not among them, into out (room for k + 1);
 * their number (>= 1). */
int cs_pick_ranked(const cs_tree *t, const int *map, int nmap, const cs_call *c, uint64_t bytes,
                   int *out, int k, int check);

#endif
