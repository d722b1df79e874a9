/* Recording internals of the preload library (shim owner): the per-call hot
 * path (rec.c), call-site symbolisation (sites.c), and the run's life cycle
 * (life.c: init, metadata, the merge at MPI_Finalize, partial files of
 * incomplete runs).  Everything here is hidden.
 */
#ifndef COLLSEL_SHIM_REC_H
#define COLLSEL_SHIM_REC_H

#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <time.h>

#include "../common/colls.h"
#include "../record/profile.h"
#include "shim.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* cs_rec_on: recording is active (COLLSEL_RECORD accepted by every rank).
 * cs_hook_on: recording or any selection is active; the wrappers test only
 * this flag when nothing is configured (one branch per call). */
extern int cs_rec_on CS_HIDDEN;
extern int cs_hook_on CS_HIDDEN;

/* Root argument of a collective that has none (any negative root is not
 * tracked by cs_cell_record: on an intercommunicator MPI_ROOT and
 * MPI_PROC_NULL callers leave the root mode to the other group). */
#define CS_NOROOT INT_MIN

/* The clock of the hot path: raw ticks (the TSC on x86, nanoseconds
 * elsewhere), converted to seconds once, when the profile is built. */
static inline uint64_t cs_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* Per-thread caches of communicator sizes and datatype sizes: handle ->
 * value, valid while the global generation is unchanged.  The generation
 * moves on every MPI_Comm_free / MPI_Comm_disconnect / MPI_Type_free (C and
 * Fortran wrappers), after which a handle may name a new object. */
typedef struct cs_hc {
    uintptr_t h;
    unsigned gen;
    uint32_t v;
} cs_hc;
#define CS_HC_N 8 /* power of two */
extern unsigned cs_handle_gen CS_HIDDEN;
extern __thread cs_hc cs_tl_comm[CS_HC_N] CS_HIDDEN __attribute__((tls_model("initial-exec")));
extern __thread cs_hc cs_tl_type[CS_HC_N] CS_HIDDEN __attribute__((tls_model("initial-exec")));

static inline void cs_handle_freed(void)
{
    __atomic_add_fetch(&cs_handle_gen, 1, __ATOMIC_RELAXED);
}

static inline cs_hc *cs_hc_slot(cs_hc *tab, uintptr_t h)
{
    return &tab[((h >> 4) ^ (h >> 11)) & (CS_HC_N - 1)];
}

/* Processes taking part in a collective on comm: the communicator size, or
 * for an intercommunicator local + remote group (every process of both
 * groups calls, so rank_calls / comm_size stays the number of operations). */
static inline uint32_t cs_comm_procs(MPI_Comm comm)
{
    uintptr_t h = (uintptr_t)comm;
    unsigned g = __atomic_load_n(&cs_handle_gen, __ATOMIC_RELAXED);
    cs_hc *e = cs_hc_slot(cs_tl_comm, h);
    if (e->h == h && e->gen == g)
        return e->v;
    int n = 0, inter = 0, r = 0;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &r);
    e->h = h;
    e->gen = g;
    e->v = (uint32_t)(n + r);
    return e->v;
}

/* Size of a datatype in bytes (0 for MPI_DATATYPE_NULL). */
static inline uint64_t cs_type_size(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL)
        return 0;
    uintptr_t h = (uintptr_t)t;
    unsigned g = __atomic_load_n(&cs_handle_gen, __ATOMIC_RELAXED);
    cs_hc *e = cs_hc_slot(cs_tl_type, h);
    if (e->h == h && e->gen == g)
        return e->v;
    int s = 0;
    PMPI_Type_size(t, &s);
    e->h = h;
    e->gen = g;
    e->v = s > 0 ? (uint32_t)s : 0;
    return e->v;
}

/* Record one call that ran from t0 to t1 (ticks), made from return address
 * ra, on comm, contributing `bytes` with root `root` (CS_NOROOT if none).
 * Never allocates or locks in the common case; never loses a count. */
void cs_rec_call(int rcoll, MPI_Comm comm, uint64_t bytes, int root, uint64_t t0,
                 uint64_t t1, void *ra) CS_HIDDEN;

/* Build this rank's profile from every thread's tables (and the spill),
 * times converted with sec_per_tick.  Call sites symbolised. */
int cs_rec_build(cs_profile *p, double sec_per_tick) CS_HIDDEN;

/* "module+0xOFF function+0xOFF" for a return address (sites.c). */
void cs_site_name(void *ra, char *buf, size_t len) CS_HIDDEN;

/* Configuration (config.c). */
void cs_config_load(void) CS_HIDDEN;

/* Life cycle (life.c). */
int cs_life_init(int provided) CS_HIDDEN;     /* after PMPI_Init* */
int cs_life_finalize(void) CS_HIDDEN;         /* before PMPI_Finalize: merge, write,
                                                 cs_dispatch_finalize() */
void cs_life_abort(void) CS_HIDDEN;           /* before PMPI_Abort */

#endif
