/* The collectives collsel can replace (MPI-free, shared by the shim, the
 * algorithms, select/ and the tools): one row each.  The order is part of
 * the tree file format: append only (a tree written before a collective was
 * added still loads).  Adding a collective is a row here (its recorded twin
 * CS_R_<ID> in record/profile.h is found by the same ID), its registry in
 * coll/ and its dispatch in the shim. */
#ifndef COLLSEL_COLLS_H
#define COLLSEL_COLLS_H

/* X(ID, name, rooted, reduces, sized):
 *   name     the lower-case name of trees, CSV rows and method names;
 *   rooted   the call has a root (bcast, reduce);
 *   reduces  the call combines values with an MPI_Op (send and receive
 *            buffers, commutativity matters);
 *   sized    the call carries a message (a barrier does not: 0 bytes). */
#define CS_COLL_LIST(X)                    \
    X(BCAST, "bcast", 1, 0, 1)             \
    X(REDUCE, "reduce", 1, 1, 1)           \
    X(BARRIER, "barrier", 0, 0, 0)         \
    X(ALLREDUCE, "allreduce", 0, 1, 1)     \
    X(ALLTOALL, "alltoall", 0, 0, 1)

#define CS_COLL_ENUM(id, name, rooted, reduces, sized) CS_##id,
enum cs_coll { CS_COLL_LIST(CS_COLL_ENUM) CS_NCOLL };
#undef CS_COLL_ENUM

/* "bcast", "reduce", "barrier", "allreduce", "alltoall"; NULL if out of range. */
const char *cs_coll_name(int c);
/* "bcast, reduce, barrier, allreduce, alltoall": every name, for messages that list
 * what is accepted. */
const char *cs_coll_names(void);
/* Reverse of cs_coll_name (exact, lower case); -1 if unknown. */
int cs_coll_from_name(const char *s);
/* The row's flags (0 out of range). */
int cs_coll_rooted(int c);
int cs_coll_reduces(int c);
int cs_coll_sized(int c);

/* The names of methods and of the rows beside them ("COLL.METHOD"):
 * CS_SEGMENT_SUFFIX ends the row of a communicator's shared-memory
 * segment, the one-time cost the replay and exploring measure
 * ("allreduce.segment"); cs_name_is_segment says so of a name.
 * cs_name_needs_segment: the registry's rule (cs_method_needs_node), read
 * off a name: an algorithm, or a step of a composed one, whose name starts
 * with shm or node ("allreduce.reduce_bcast.shm_tree_k4-knomial_k2"). */
#define CS_SEGMENT_SUFFIX ".segment"
int cs_name_is_segment(const char *name);
/* CS_FIRST_SUFFIX ends the row of a method's calls that were the first at
 * their point in a process ("bcast.shm.ota@first": the first touch of the
 * application's buffer, cold caches), which exploring keeps apart from the
 * method's other calls; cs_name_is_first says so of a name. */
#define CS_FIRST_SUFFIX "@first"
int cs_name_is_first(const char *name);
/* CS_UNCOUNTED_SUFFIX ends the row of a point's calls that exploring did
 * not count as any method's ("bcast.uncounted": each method's first call
 * there, what a call that made a segment took besides the making), kept
 * so that the expectations can put native's and the best method's mean in
 * their place; cs_name_is_uncounted says so of a name. */
#define CS_UNCOUNTED_SUFFIX ".uncounted"
int cs_name_is_uncounted(const char *name);
int cs_name_needs_segment(const char *name);

#endif
