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
    if (comm == MPI_COMM_NULL) /* the call will fail; no error from us first */
        return 0;
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

/* Recording one call: cs_rec_begin() before it (finds the cell of
 * (collective, communicator size, size bin) in this thread's table; returns
 * 1 if this call is to be timed), cs_rec_end() after it succeeded, with the
 * ticks it took (if timed) and the application's return address.  Never
 * allocates or locks in the common case; never loses a count.  The common
 * case (the same call as last time for this collective on this thread) is
 * inline; the rest is in rec.c. */
#define CS_TIME_FIRST 16 /* calls of a cell always timed */
#define CS_TIME_EVERY 8  /* then 1 call in CS_TIME_EVERY (power of two) */
#define CS_TAB_CELLS 512 /* power of two */
#define CS_TAB_SITES 256 /* power of two */

typedef struct cs_hsite {
    void *ra;
    uint32_t coll, ntimed; /* ntimed: calls whose time is in ticks */
    uint64_t calls;
    double ticks;
} cs_hsite;

/* The last cell and call site of one collective on this thread: loops that
 * repeat the same call skip the size look-ups and both hashes.  Set only
 * after a successful call (its cell then has rank_calls > 0 and is never
 * re-keyed). */
typedef struct cs_memo {
    uintptr_t comm;
    uint64_t bytes;
    unsigned gen;
    uint32_t *ntimed;
    cs_cell *cell;
    void *ra;
    cs_hsite *site;
} cs_memo;

/* One thread's table (see rec.c). */
typedef struct cs_rtab {
    struct cs_rtab *next;
    uint32_t rng; /* xorshift32 state: which calls are timed */
    cs_memo memo[CS_R_N];
    cs_cell cells[CS_TAB_CELLS];
    uint32_t ntimed[CS_TAB_CELLS]; /* calls of cells[i] whose time is in t_* */
    cs_hsite sites[CS_TAB_SITES];
    uint64_t other_calls[CS_R_N]; /* call sites that found no slot */
    uint64_t other_timed[CS_R_N];
    double other_ticks[CS_R_N];
} cs_rtab;
extern __thread cs_rtab *cs_tl_tab CS_HIDDEN __attribute__((tls_model("initial-exec")));

typedef struct cs_rslot {
    cs_cell *cell;    /* NULL: the spill path */
    uint32_t *ntimed; /* timed calls of cell */
    uint32_t coll, comm_size, bin;
    int root;
    uint64_t bytes;
    uintptr_t comm;   /* handle, for the memo */
    unsigned gen;
} cs_rslot;
int cs_rec_begin_slow(cs_rslot *s, MPI_Comm comm) CS_HIDDEN;
void cs_rec_end_slow(const cs_rslot *s, int timed, uint64_t ticks, void *ra) CS_HIDDEN;
void cs_rec_site_slow(cs_rtab *tab, uint32_t coll, int timed, double t, void *ra) CS_HIDDEN;

/* Time this call?  The first CS_TIME_FIRST of a cell, then a random 1 in
 * CS_TIME_EVERY (xorshift32: no aliasing with periodic call patterns). */
static inline int cs_timed_call(cs_rtab *tab, const uint32_t *ntimed)
{
    if (*ntimed < CS_TIME_FIRST)
        return 1;
    uint32_t x = tab->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    tab->rng = x;
    return (x & (CS_TIME_EVERY - 1)) == 0;
}

static inline int cs_rec_begin(cs_rslot *s, int coll, MPI_Comm comm, uint64_t bytes, int root)
{
    s->coll = (uint32_t)coll;
    s->bytes = bytes;
    s->root = root;
    s->comm = (uintptr_t)comm;
    s->gen = __atomic_load_n(&cs_handle_gen, __ATOMIC_RELAXED);
    cs_rtab *tab = cs_tl_tab;
    if (__builtin_expect(tab != NULL, 1)) {
        const cs_memo *m = &tab->memo[coll];
        if (m->comm == s->comm && m->bytes == bytes && m->gen == s->gen && m->cell) {
            s->cell = m->cell;
            s->ntimed = m->ntimed;
            return cs_timed_call(tab, s->ntimed);
        }
    }
    return cs_rec_begin_slow(s, comm);
}

static inline void cs_rec_end(const cs_rslot *s, int timed, uint64_t ticks, void *ra)
{
    cs_cell *c = s->cell;
    if (__builtin_expect(!c, 0)) { /* spill */
        cs_rec_end_slow(s, timed, ticks, ra);
        return;
    }
    cs_rtab *tab = cs_tl_tab; /* non-NULL: c lives in it */
    double t = (double)ticks;
    if (timed) {
        cs_cell_record(c, s->bytes, s->root, t);
        if ((*s->ntimed)++ == 0) /* the cell's first timed call */
            c->t_min = c->t_max = t;
    } else {
        /* count, sizes and root only: keep the time fields as they were */
        double tt = c->t_total, lo = c->t_min, hi = c->t_max;
        cs_cell_record(c, s->bytes, s->root, 0);
        c->t_total = tt;
        c->t_min = lo;
        c->t_max = hi;
    }
    cs_memo *m = &tab->memo[s->coll];
    m->comm = s->comm;
    m->bytes = s->bytes;
    m->gen = s->gen;
    m->cell = c;
    m->ntimed = s->ntimed;
    cs_hsite *e = m->site;
    if (__builtin_expect(m->ra != ra || !e, 0)) {
        cs_rec_site_slow(tab, s->coll, timed, t, ra);
        return;
    }
    e->calls++;
    if (timed) {
        e->ntimed++;
        e->ticks += t;
    }
}

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
