/* Shared declarations of the preload library (shim/).  Everything here is
 * hidden; the library exports only MPI names.
 *
 * Parts: config.c (the COLLSEL_* table, parsed once at MPI_Init), the
 * wrappers (wrap_c.c, wrap_fortran.c), recording (rec.c, callsites.c,
 * finalize merge) on one side; selection (dispatch.c: COLLSEL_FORCE and
 * COLLSEL_TREE, the private-communicator cache) on the other.
 */
#ifndef COLLSEL_SHIM_H
#define COLLSEL_SHIM_H

#include <mpi.h>

#include "common/colls.h"
#include "common/util.h"
#include "shim/config.h"

/* Set at load time when the process's MPI library is not the one this
 * library was built for (foreign.c): collsel then stays off. */
extern int cs_foreign_mpi CS_HIDDEN;

/* COLLSEL_FORCE (force.c; no MPI call): force[c] = the registry index of
 * collective c's forced method, 0 (native) for an unknown method, -1 when
 * not forced; bad items get one line on stderr from world rank 0. */
void cs_force_parse(const char *spec, int force[CS_NCOLL]) CS_HIDDEN;

/* The layout of the processes of comm (collective): the nodes they run on
 * (virtual ones under COLLSEL_NODE_SIZE) and the most ranks on one
 * (life.c; the profile's and a tree's layout). */
void cs_run_layout(MPI_Comm comm, int *nodes, int *ranks_per_node) CS_HIDDEN;

/* Selection (dispatch.c).  cs_dispatch_init() runs at the end of MPI_Init
 * (after config): parses COLLSEL_FORCE, loads COLLSEL_TREE, and sets
 * cs_sel_active[c] for each collective that is not plain native.  The
 * wrappers call cs_dispatch_*() only when cs_sel_active[c] is set, so that
 * with nothing configured the library is a pure pass-through. */
extern int cs_sel_active[CS_NCOLL] CS_HIDDEN;
int cs_dispatch_init(void) CS_HIDDEN;
void cs_dispatch_finalize(void) CS_HIDDEN;
int cs_dispatch_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) CS_HIDDEN;
int cs_dispatch_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                       MPI_Op op, int root, MPI_Comm comm) CS_HIDDEN;
int cs_dispatch_barrier(MPI_Comm comm) CS_HIDDEN;
int cs_dispatch_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                          MPI_Op op, MPI_Comm comm) CS_HIDDEN;
int cs_dispatch_alltoall(const void *sendbuf, int scount, MPI_Datatype sdt, void *recvbuf,
                         int rcount, MPI_Datatype rdt, MPI_Comm comm) CS_HIDDEN;

/* Exploring (explore.c; record/explore.h): the candidate for the call
 * numbered `call` on its communicator among cand[0..n) (a hash: the same
 * on every rank); the time of a call of method idx (a registry index, or
 * CS_EXPLORE_SEGMENT: a call that made a shared-memory segment, kept as
 * "COLL.segment" at its point); this process's table into p->xtab
 * (nothing unless COLLSEL_EXPLORE). */
struct cs_profile;
#define CS_EXPLORE_MAX 8 /* COLLSEL_EXPLORE's largest K */
#define CS_EXPLORE_SEGMENT (-2)
/* CS_EXPLORE_FIRST + idx: the call was the first at its point in this
 * process (cs_explore_point_first), run by method idx: kept as
 * "METHOD@first", every call counted (not a method's steady time: the
 * application's buffer touched for the first time, cold caches) */
#define CS_EXPLORE_FIRST 0x10000
/* CS_EXPLORE_UNCOUNTED: a call counted as no method's (a method's first at
 * its point, the rest of a call that made a segment): "COLL.uncounted" */
#define CS_EXPLORE_UNCOUNTED (-3)
int cs_explore_draw(uint64_t call, uint64_t seed, const int *cand, int n) CS_HIDDEN;
double cs_explore_clock(void) CS_HIDDEN; /* seconds, CLOCK_MONOTONIC */
void cs_explore_note(int coll, uint32_t size, uint64_t bytes, int idx, double seconds) CS_HIDDEN;
/* The call that made a segment stands for its method's first call at the
 * point (not counted, as every first call): the slot is made if it is not
 * there, so that the method's next call there counts; its seconds (the
 * making's taken out) go to the point's uncounted calls (< 0: none, the
 * call is a first-call slot's). */
void cs_explore_first(int coll, uint32_t size, uint64_t bytes, int idx, double seconds) CS_HIDDEN;
int cs_explore_build(struct cs_profile *p) CS_HIDDEN;
/* 1 the first time this process asks of the point (coll, size, bytes),
 * then 0. */
int cs_explore_point_first(int coll, uint32_t size, uint64_t bytes) CS_HIDDEN;

#endif
