/* Shared declarations of the preload library (shim/).  Everything here is
 * hidden; the library exports only MPI names.
 *
 * Ownership: config.c (the COLLSEL_* table, parsed once at MPI_Init), the
 * wrappers (wrap_c.c, wrap_fortran.c), recording (rec.c, callsites.c,
 * finalize merge) on one side; selection (dispatch.c: COLLSEL_FORCE and
 * COLLSEL_TREE, the private-communicator cache) on the other.
 */
#ifndef COLLSEL_SHIM_H
#define COLLSEL_SHIM_H

#include <mpi.h>

#include "../common/colls.h"
#include "../common/util.h"

/* Configuration, filled once by cs_config_load() at MPI_Init from the
 * environment (one table of {name, default, doc}; unknown COLLSEL_*
 * variables and invalid values get one line on stderr from rank 0). */
typedef struct cs_config {
    const char *record; /* COLLSEL_RECORD: profile path, or NULL */
    const char *tree;   /* COLLSEL_TREE: tree path, or NULL */
    const char *force;  /* COLLSEL_FORCE: raw spec, or NULL (parsed by dispatch) */
    int verbose;        /* COLLSEL_VERBOSE 0..3 */
    int node_size;      /* COLLSEL_NODE_SIZE: virtual node size, 0 = real nodes */
    int shm_limit_mib;  /* COLLSEL_SHM_LIMIT: MiB of segments per process */
    int shm_warmup;     /* COLLSEL_SHM_WARMUP: calls before shared memory */
    double record_interval; /* COLLSEL_RECORD_INTERVAL: seconds between
                               snapshots to the partial files, 0 = none */
    int record_max_kib;  /* COLLSEL_RECORD_MAX_KIB: bound of a profile file */
} cs_config;
extern cs_config cs_cfg CS_HIDDEN;

/* Set at load time when the process's MPI library is not the one this
 * library was built for (foreign.c): collsel then stays off. */
extern int cs_foreign_mpi CS_HIDDEN;

/* World rank (valid after MPI_Init; -1 before). */
extern int cs_world_rank CS_HIDDEN;

/* Print "collsel: ..." on stderr if verbose >= level; rank0only limits it
 * to world rank 0.  Warnings about bad input use level 0 (always shown). */
void cs_log(int level, int rank0only, const char *fmt, ...) CS_HIDDEN CS_PRINTF(3, 4);

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

#endif
