/* Recording internals of the preload library: the per-call hot
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

#include "common/colls.h"
#include "record/profile.h"
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

/* The per-call helpers: inlined whatever the size of the wrapper (the
 * compiler otherwise calls some of them out of line in the larger ones). */
#define CS_HOT static inline __attribute__((always_inline))

/* The clock of the hot path: raw ticks (the TSC on x86, nanoseconds
 * elsewhere), converted to seconds once, when the profile is built. */
CS_HOT uint64_t cs_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* Per-thread caches of communicator sizes, own ranks and datatype sizes:
 * handle -> value, valid while the global generation is unchanged.  The generation
 * moves on every MPI_Comm_free / MPI_Comm_disconnect / MPI_Type_free (C and
 * Fortran wrappers), after which a handle may name a new object: before
 * the free, and again after it, since attribute delete callbacks that run
 * inside the free may call collectives on the dying object and so cache
 * its handle under the new generation.  (The recording memos of cs_rslot
 * carry the generation too.) */
typedef struct cs_hc {
    uintptr_t h;
    unsigned gen;
    uint32_t v;
} cs_hc;
#define CS_HC_N 8 /* power of two */
extern unsigned cs_handle_gen CS_HIDDEN;
extern __thread cs_hc cs_tl_comm[CS_HC_N] CS_HIDDEN __attribute__((tls_model("initial-exec")));
extern __thread cs_hc cs_tl_type[CS_HC_N] CS_HIDDEN __attribute__((tls_model("initial-exec")));
extern __thread cs_hc cs_tl_rank[CS_HC_N] CS_HIDDEN __attribute__((tls_model("initial-exec")));

static inline void cs_handle_freed(void)
{
    __atomic_add_fetch(&cs_handle_gen, 1, __ATOMIC_RELAXED);
}

CS_HOT cs_hc *cs_hc_slot(cs_hc *tab, uintptr_t h)
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

/* This process's rank in comm; -1 on an intercommunicator (and on
 * MPI_COMM_NULL, not cached: the call will fail). */
CS_HOT int cs_comm_rank(MPI_Comm comm)
{
    uintptr_t h = (uintptr_t)comm;
    unsigned g = __atomic_load_n(&cs_handle_gen, __ATOMIC_RELAXED);
    cs_hc *e = cs_hc_slot(cs_tl_rank, h);
    if (e->h == h && e->gen == g)
        return (int)e->v;
    if (comm == MPI_COMM_NULL)
        return -1;
    int inter = 0, r = -1;
    PMPI_Comm_test_inter(comm, &inter);
    if (!inter)
        PMPI_Comm_rank(comm, &r);
    e->h = h;
    e->gen = g;
    e->v = (uint32_t)r;
    return r;
}

/* Size of a datatype in bytes (0 for MPI_DATATYPE_NULL). */
CS_HOT uint64_t cs_type_size(MPI_Datatype t)
{
    uintptr_t h = (uintptr_t)t;
    unsigned g = __atomic_load_n(&cs_handle_gen, __ATOMIC_RELAXED);
    cs_hc *e = cs_hc_slot(cs_tl_type, h);
    if (e->h == h && e->gen == g) /* never MPI_DATATYPE_NULL: not cached */
        return e->v;
    if (t == MPI_DATATYPE_NULL)
        return 0;
    int s = 0;
    PMPI_Type_size(t, &s);
    e->h = h;
    e->gen = g;
    e->v = s > 0 ? (uint32_t)s : 0;
    return e->v;
}

/* Arrivals (arr.c; record/arrivals.h for the data model).  Every
 * communicator that records has a state: its call count (seq: the same
 * operation on every member), its key (the same on every member) and a
 * ring of the calls kept (entry and exit ticks).  Kept: the first
 * CS_ARR_FIRST calls, the first CS_ARR_CELL_FIRST of each collective and
 * size bin on it (a counter per slot, cs_arr_cslot: the same calls on every
 * member, since members make the same calls with the same sizes in the same
 * order), then those whose level is at least the ring's level
 * (CS_ARR_LEVEL0 at first; a full ring moves one level up and drops the
 * calls below it that were not kept as first ones, cs_arr_thin).  The
 * ring's owner is the thread that calls on the communicator (MPI orders
 * them).  An entry is written before
 * n moves past it (release), and only thinning moves entries (tgen odd
 * meanwhile), so a snapshot copies ent[0..n) while tgen stays even and
 * unchanged, without stopping the owner.  Intercommunicators and communicators
 * beyond the table share one state that only counts (off). */
typedef struct cs_arr_ent {
    uint64_t seq, t0, t1; /* call number, entry and exit ticks */
    void *ra;
    uint32_t coll, bin;
    uint32_t first;       /* 1: kept as one of the first calls of its communicator
                             or of its cell there (weight 1) */
} cs_arr_ent;

typedef struct cs_acomm {
    uint64_t seq;       /* calls so far on this rank */
    uint64_t key;       /* communicator key (record/arrivals.h) */
    uint32_t level;     /* later calls kept when their level >= this */
    uint32_t n;         /* used entries of ent[] */
    uint32_t off;       /* 1: not tracked (counts calls only) */
    unsigned tgen;      /* odd while thinning moves entries */
    uintptr_t handle;   /* the communicator; 0 once freed */
    uint32_t size, rank;
    uint64_t dropped;   /* entries dropped by thinning */
    uint8_t cfirst[CS_ARR_CSLOTS]; /* calls so far per cs_arr_cslot, up to CS_ARR_CELL_FIRST */
    cs_arr_ent ent[CS_ARR_RING];
} cs_acomm;

/* The state of comm (the slow path: never NULL, the shared "off" state
 * for what is not tracked). */
cs_acomm *cs_arr_comm(MPI_Comm comm) CS_HIDDEN;
/* A full ring: one level up, the calls below it dropped. */
void cs_arr_thin(cs_acomm *a) CS_HIDDEN;
/* MPI_Comm_free / _disconnect of comm: its state keeps its calls for the
 * profile, the handle may name a new communicator afterwards. */
void cs_arr_comm_freed(MPI_Comm comm) CS_HIDDEN;
/* MPI_Init (after the private duplicate pcomm): calibration of ticks to
 * CLOCK_MONOTONIC, the node offsets (ping-pong with world rank 0);
 * MPI_Finalize: the offsets again (linear drift between the two). */
void cs_arr_init(MPI_Comm pcomm) CS_HIDDEN;
void cs_arr_finalize(MPI_Comm pcomm) CS_HIDDEN;
/* Add this rank's kept calls to p->arr as pending records (snapshot: from
 * copies of the rings, without stopping the recording threads). */
int cs_arr_build(cs_profile *p, int snapshot) CS_HIDDEN;

/* The counter slot of a call's cell on its communicator: the collective
 * and, where every member's size is the same (CS_RCOLL_UNIFORM,
 * record/profile.h), the size bin; slots may be shared (they then share
 * their first calls), never differently on two members. */
static inline uint32_t cs_arr_cslot(uint32_t coll, uint32_t bin)
{
    uint32_t b = (CS_RCOLL_UNIFORM >> coll) & 1 ? bin + 1 : 0;
    return (coll * 5u + b * 3u) & (CS_ARR_CSLOTS - 1);
}

static inline void cs_arr_note(cs_acomm *a, uint64_t seq, uint64_t t0, uint64_t t1,
                               uint32_t coll, uint32_t bin, void *ra, uint32_t first)
{
    uint32_t lvl = cs_arr_level(a->key, seq);
    first |= seq < CS_ARR_FIRST;
    if (a->off || (!first && lvl < a->level))
        return;
    if (__builtin_expect(a->n == CS_ARR_RING, 0)) {
        cs_arr_thin(a);
        if ((!first && lvl < a->level) || a->n == CS_ARR_RING)
            return;
    }
    a->ent[a->n] = (cs_arr_ent){seq, t0, t1, ra, coll, bin, first};
    __atomic_store_n(&a->n, a->n + 1, __ATOMIC_RELEASE);
}

/* Recording one call: cs_rec_begin() before it (returns 1 if this call
 * is to be timed; or cs_rec_hit(), then cs_rec_begin_slow() if the memo
 * does not hold the call), cs_rec_end() after it succeeded with its entry
 * and exit ticks (if timed; the arrival ring keeps them for the calls it
 * keeps).  Never allocates or locks in the common case; never loses a
 * count.
 *
 * The common case is inline: the same call as the last one of this
 * collective on this thread (same communicator, key, root, call site),
 * found in the collective's memo.  The key is the call's bytes, or for
 * the collectives whose bytes are count x type size (wrap.h, CS_K_*) the
 * count and the type handle: their bytes (a type size look-up) are then
 * computed only when the memo does not hold the call.  Such calls are
 * only counted in the memo ("pending") and added to the cell and the call
 * site in one go when the memo moves to another call or the profile is
 * built (cs_memo_flush); adding k identical calls at once gives exactly
 * what k single calls give.  Everything else goes through rec.c
 * (cs_rec_begin_slow/cs_rec_end_slow); so does a timed call's time
 * (cs_rec_end_timed: 1 call in CS_TIME_EVERY, which reads the clock twice
 * anyway). */
#define CS_TIME_FIRST 16 /* calls of a cell always timed */
#define CS_TIME_EVERY 8  /* then 1 call in CS_TIME_EVERY (power of two) */
#define CS_TAB_CELLS 512 /* power of two */
#define CS_TAB_SITES 256 /* power of two */

typedef struct cs_hsite {
    void *ra;
    uint32_t coll;
    uint64_t ntimed; /* calls whose time is in ticks */
    uint64_t calls;
    double ticks;
} cs_hsite;

/* kb of a key that is the bytes themselves (ka); otherwise kb is a type
 * handle (cs_hkey: never this value). */
#define CS_KEY_BYTES UINTPTR_MAX
/* A handle as a key word: pointer handles as they are, integer handles
 * (MPICH) zero-extended. */
#define cs_hkey(h) \
    ((uintptr_t)(h) & (sizeof(h) < sizeof(uintptr_t) ? (uintptr_t)UINT32_MAX : UINTPTR_MAX))

typedef struct cs_memo {
    /* key: the last call recorded through the slow path */
    uintptr_t comm;
    uint64_t ka;      /* count, or the bytes (kb == CS_KEY_BYTES) */
    uintptr_t kb;     /* type handle (cs_hkey), or CS_KEY_BYTES */
    void *ra;
    unsigned gen;
    int root;
    uint64_t bytes;   /* of the call: what ka, kb stand for */
    cs_cell *cell;    /* NULL: memo empty */
    uint64_t *ntimed; /* timed calls of cell */
    cs_hsite *site;   /* NULL: the site table was full ("other") */
    cs_acomm *ac;     /* the communicator's arrival state */
    uint32_t cslot;   /* cs_arr_cslot of the call */
    uint32_t late;    /* 1: past every first call that is timed (of the cell,
                         the communicator, cslot; all only grow): the level
                         alone decides (cs_rec_hit) */
    /* identical calls since, not yet in cell and site */
    uint64_t pend, pend_timed;
    double pend_ticks;
} cs_memo;

/* One thread's table (see rec.c).  seq and snap_ans are the periodic
 * snapshot's protocol (snap.c): seq is odd while the owning thread changes
 * the table; snap_ans is the last snapshot request it answered by copying
 * the table into *snap. */
typedef struct cs_rtab {
    struct cs_rtab *next;
    unsigned seq, snap_ans;
    struct cs_rtab *snap; /* set by the snapshot thread before it asks */
    cs_memo memo[CS_R_N];
    cs_cell cells[CS_TAB_CELLS];
    uint64_t ntimed[CS_TAB_CELLS]; /* calls of cells[i] whose time is in t_* */
    cs_hsite sites[CS_TAB_SITES];
    uint64_t other_calls[CS_R_N]; /* call sites that found no slot */
    uint64_t other_timed[CS_R_N];
    double other_ticks[CS_R_N];
} cs_rtab;
extern __thread cs_rtab *cs_tl_tab CS_HIDDEN __attribute__((tls_model("initial-exec")));

typedef struct cs_rslot {
    cs_memo *memo;    /* non-NULL: the inline case */
    uint32_t coll;
    cs_acomm *ac;     /* arrivals: the communicator's state, this call's number */
    uint64_t seq;
    uint32_t afirst;  /* one of the first calls of its slot (cs_timed_call) */
    int root;
    uint64_t ka;      /* the memo's key (cs_memo) */
    uintptr_t kb;
    uint64_t bytes;
    uintptr_t comm;
    void *ra;
    unsigned gen;
    /* slow path only */
    uint32_t comm_size, bin;
    cs_cell *cell;    /* NULL: the spill path */
    uint64_t *ntimed;
} cs_rslot;
int cs_rec_begin_slow(cs_rslot *s, MPI_Comm comm, uint64_t bytes) CS_HIDDEN;
void cs_rec_end_slow(const cs_rslot *s, uint64_t t0, uint64_t t1) CS_HIDDEN; /* always timed */

/* The owning thread's changes to its table outside the memo's inline
 * counting (cs_rec_end): between cs_tab_enter() and cs_tab_leave() (a
 * seqlock: two plain stores and compiler barriers on x86).  On leaving, a
 * snapshot request (cs_snap_req moved on by snap.c) is answered by copying
 * the table, once per interval, outside any call. */
extern unsigned cs_snap_req CS_HIDDEN;
void cs_tab_answer(cs_rtab *t) CS_HIDDEN; /* rec.c */

static inline void cs_tab_enter(cs_rtab *t)
{
    __atomic_store_n(&t->seq, t->seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void cs_tab_leave(cs_rtab *t)
{
    __atomic_store_n(&t->seq, t->seq + 1, __ATOMIC_RELEASE);
    if (__builtin_expect(__atomic_load_n(&cs_snap_req, __ATOMIC_RELAXED) != t->snap_ans, 0))
        cs_tab_answer(t);
}

/* Time this call?  The first CS_TIME_FIRST of a cell, the first
 * CS_ARR_FIRST of the communicator and CS_ARR_CELL_FIRST of its slot
 * cslot (cs_arr_cslot), then 1 in CS_TIME_EVERY chosen by the call's
 * level (a hash of the communicator's key and the call number: no
 * aliasing with periodic call patterns, and the same calls on every
 * member, whose arrivals can then be matched). */
_Static_assert(CS_TIME_EVERY == 1 << CS_ARR_LEVEL0, "timed calls are those of level >= 3");
_Static_assert(CS_ARR_LEVEL0 >= 1, "pairs of sampled calls are disjoint from level 1 on");
/* The level part: call q of the communicator of key ac_key, past its
 * first calls (level >= 3, cs_arr_level: raw level >= 4 here or at the call
 * before). */
CS_HOT int cs_level_timed(uint64_t ac_key, uint64_t q)
{
    return cs_arr_hash(ac_key, q) < (1ull << (63 - CS_ARR_LEVEL0)) ||
           cs_arr_hash(ac_key, q - 1) < (1ull << (63 - CS_ARR_LEVEL0));
}

CS_HOT int cs_timed_call(cs_rslot *s, cs_acomm *ac, uint64_t ntimed, uint32_t cslot)
{
    uint64_t q = ac->seq;
    __atomic_store_n(&ac->seq, q + 1, __ATOMIC_RELAXED);
    s->ac = ac;
    s->seq = q;
    uint8_t k = __atomic_load_n(&ac->cfirst[cslot], __ATOMIC_RELAXED);
    s->afirst = k < CS_ARR_CELL_FIRST;
    if (s->afirst)
        __atomic_store_n(&ac->cfirst[cslot], (uint8_t)(k + 1), __ATOMIC_RELAXED);
    return ntimed < CS_TIME_FIRST || q < CS_ARR_FIRST || s->afirst || cs_level_timed(ac->key, q);
}

/* The inline case: returns whether the call is to be timed, or -1 when the
 * memo does not hold it; *s is then ready for cs_rec_begin_slow() with the
 * call's bytes. */
CS_HOT int cs_rec_hit(cs_rslot *s, int coll, MPI_Comm comm, uint64_t ka, uintptr_t kb, int root,
                      void *ra)
{
    unsigned gen = __atomic_load_n(&cs_handle_gen, __ATOMIC_RELAXED);
    cs_rtab *tab = cs_tl_tab;
    if (__builtin_expect(tab != NULL, 1)) {
        cs_memo *m = &tab->memo[coll];
        if (m->comm == (uintptr_t)comm && m->ka == ka && m->kb == kb && m->ra == ra &&
            m->root == root && m->gen == gen && m->cell) {
            cs_acomm *ac = m->ac;
            s->memo = m; /* the rest of *s is for the slow path only */
            s->ac = ac;
            if (__builtin_expect(m->late, 1)) { /* cs_timed_call() without its first calls */
                uint64_t q = ac->seq;
                __atomic_store_n(&ac->seq, q + 1, __ATOMIC_RELAXED);
                s->seq = q;
                s->afirst = 0;
                return cs_level_timed(ac->key, q);
            }
            uint64_t ntimed = *m->ntimed + m->pend_timed;
            int timed = cs_timed_call(s, ac, ntimed, m->cslot);
            m->late = ntimed >= CS_TIME_FIRST && s->seq >= CS_ARR_FIRST &&
                      ac->cfirst[m->cslot] >= CS_ARR_CELL_FIRST;
            return timed;
        }
    }
    s->coll = (uint32_t)coll;
    s->ka = ka;
    s->kb = kb;
    s->root = root;
    s->comm = (uintptr_t)comm;
    s->ra = ra;
    s->gen = gen;
    s->memo = NULL;
    return -1;
}

/* cs_rec_hit(), else the slow path, for a call keyed by its bytes. */
CS_HOT int cs_rec_begin(cs_rslot *s, int coll, MPI_Comm comm, uint64_t bytes, int root,
                        void *ra)
{
    int timed = cs_rec_hit(s, coll, comm, bytes, CS_KEY_BYTES, root, ra);
    return timed >= 0 ? timed : cs_rec_begin_slow(s, comm, bytes);
}

/* A timed call of the inline case (rec.c): its time into the memo, the
 * cell's min/max, the arrival ring. */
void cs_rec_end_timed(const cs_rslot *s, uint64_t t0, uint64_t t1) CS_HIDDEN;

CS_HOT void cs_rec_end(const cs_rslot *s, int timed, uint64_t t0, uint64_t t1)
{
    cs_memo *m = s->memo;
    if (__builtin_expect(m == NULL, 0)) {
        cs_rec_end_slow(s, t0, t1);
        return;
    }
    /* no seqlock here: each field is one aligned store (relaxed atomics,
     * plain moves), and a snapshot that reads pend a moment before or after
     * pend_timed or t_max only estimates this cell's time from one call more
     * or less (the counts it flushes all come from the one pend it read) */
    __atomic_store_n(&m->pend, m->pend + 1, __ATOMIC_RELAXED);
    if (timed)
        cs_rec_end_timed(s, t0, t1);
}

/* Build this rank's profile from every thread's tables (and the spill),
 * times converted with sec_per_tick.  Call sites symbolised.  The tables
 * are flushed in place: only when no thread records any more (finalize,
 * the end of the process). */
int cs_rec_build(cs_profile *p, double sec_per_tick) CS_HIDDEN;
/* The same from copies of the tables (snap.c): copy[i] is a consistent
 * copy of orig[i]; the copies are flushed, the spill is read under its
 * lock.  The thread tables themselves are not touched. */
int cs_rec_build_copies(cs_profile *p, double sec_per_tick, cs_rtab *const *copy,
                        cs_rtab *const *orig, size_t n) CS_HIDDEN;
/* Every thread table so far (up to max, newest first); their number. */
size_t cs_rec_tables(cs_rtab **out, size_t max) CS_HIDDEN;

/* Periodic snapshots (snap.c): a helper thread that every `interval`
 * seconds collects this rank's data without stopping the recording
 * threads and without MPI, and calls write(profile) (life.c writes the
 * partial file).  cs_snap_stop() ends it and waits for it. */
int cs_snap_start(double interval, void (*write)(void)) CS_HIDDEN;
void cs_snap_stop(void) CS_HIDDEN;
/* This rank's data now, from consistent copies of the tables (for the
 * write callback; allocates; no MPI). */
int cs_snap_collect(cs_profile *p, double sec_per_tick) CS_HIDDEN;

/* "module+0xOFF function+0xOFF" for a return address (sites.c). */
void cs_site_name(void *ra, char *buf, size_t len) CS_HIDDEN;

/* Configuration (config.c). */

/* Life cycle (life.c). */
int cs_life_init(int provided) CS_HIDDEN;     /* after PMPI_Init* */
int cs_life_finalize(void) CS_HIDDEN;         /* before PMPI_Finalize: merge, write,
                                                 cs_dispatch_finalize(), unless done
                                                 by MPI_COMM_SELF's delete callback */
void cs_life_abort(void) CS_HIDDEN;           /* before PMPI_Abort */

#endif
