/* Recording hot path: one table per thread, no lock and no allocation in the
 * common case, correct under MPI_THREAD_MULTIPLE.
 *
 * A thread's table is allocated on its first recorded call and linked into a
 * global list under a mutex (the uncommon case); tables outlive their
 * threads and are read at MPI_Finalize (when, by the MPI standard, no other
 * thread is inside MPI any more).  A table holds
 *  - an open-addressed hash of (collective, communicator size, size bin) ->
 *    cs_cell (profile.h), with exact sizes and the root mode;
 *  - an open-addressed hash of (collective, return address) -> call site.
 * Both have a fixed capacity and a bounded probe.  A cell that finds no slot
 * goes to a global spill profile under the mutex; a call site that finds no
 * slot is summed into the thread's "other" site of its collective.  So no
 * count is ever lost (short of running out of memory).
 *
 * Times are kept in clock ticks (cs_ticks()) and converted to seconds once,
 * by cs_rec_build().
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"

#define CS_TAB_CELLS 512 /* power of two */
#define CS_TAB_SITES 256 /* power of two */
#define CS_PROBE 16

typedef struct cs_hsite {
    void *ra;
    uint32_t coll;
    uint64_t calls;
    double ticks;
} cs_hsite;

typedef struct cs_rtab {
    struct cs_rtab *next;
    cs_cell cells[CS_TAB_CELLS];
    cs_hsite sites[CS_TAB_SITES];
    uint64_t other_calls[CS_R_N]; /* call sites that found no slot */
    double other_ticks[CS_R_N];
} cs_rtab;

int cs_rec_on;
int cs_hook_on;
unsigned cs_handle_gen = 1;
__thread cs_hc cs_tl_comm[CS_HC_N] __attribute__((tls_model("initial-exec")));
__thread cs_hc cs_tl_type[CS_HC_N] __attribute__((tls_model("initial-exec")));

static __thread cs_rtab *tl_tab __attribute__((tls_model("initial-exec")));
static cs_rtab *all_tabs;        /* under tabs_mu */
static cs_profile spill;         /* under tabs_mu; times in ticks */
static int spill_ready;          /* under tabs_mu */
static pthread_mutex_t tabs_mu = PTHREAD_MUTEX_INITIALIZER;

static void cell_first(cs_cell *c, int coll, uint32_t comm_size, uint32_t bin)
{
    c->coll = (uint32_t)coll;
    c->comm_size = comm_size;
    c->bin = bin;
}

/* The uncommon case: a thread's first call. */
static cs_rtab *tab_new(void)
{
    cs_rtab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_lock(&tabs_mu);
    t->next = all_tabs;
    all_tabs = t;
    pthread_mutex_unlock(&tabs_mu);
    tl_tab = t;
    return t;
}

/* The uncommon case: no slot (or no table). */
static void spill_cell(int coll, uint32_t comm_size, uint32_t bin, uint64_t bytes, int root,
                       double t)
{
    cs_cell c;
    memset(&c, 0, sizeof c);
    cell_first(&c, coll, comm_size, bin);
    cs_cell_record(&c, bytes, root, t);
    pthread_mutex_lock(&tabs_mu);
    if (!spill_ready) {
        cs_profile_init(&spill);
        spill_ready = 1;
    }
    cs_profile_add_cell(&spill, &c);
    pthread_mutex_unlock(&tabs_mu);
}

static inline uint32_t hash3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = a * 0x9E3779B1u ^ b * 0x85EBCA77u ^ c * 0xC2B2AE3Du;
    return h ^ (h >> 15);
}

void cs_rec_call(int coll, MPI_Comm comm, uint64_t bytes, int root, uint64_t t0, uint64_t t1,
                 void *ra)
{
    double t = (double)(t1 - t0);
    uint32_t comm_size = cs_comm_procs(comm);
    uint32_t bin = (uint32_t)cs_bin_of(bytes);
    cs_rtab *tab = tl_tab;
    if (__builtin_expect(!tab, 0) && !(tab = tab_new())) {
        spill_cell(coll, comm_size, bin, bytes, root, t);
        return;
    }

    uint32_t h = hash3((uint32_t)coll, comm_size, bin);
    cs_cell *c = NULL;
    for (uint32_t i = 0; i < CS_PROBE; i++) {
        cs_cell *s = &tab->cells[(h + i) & (CS_TAB_CELLS - 1)];
        if (s->rank_calls == 0) {
            cell_first(s, coll, comm_size, bin);
            c = s;
            break;
        }
        if (s->coll == (uint32_t)coll && s->comm_size == comm_size && s->bin == bin) {
            c = s;
            break;
        }
    }
    if (c)
        cs_cell_record(c, bytes, root, t);
    else
        spill_cell(coll, comm_size, bin, bytes, root, t);

    uintptr_t a = (uintptr_t)ra;
    h = hash3((uint32_t)coll, (uint32_t)a, (uint32_t)(a >> 32));
    for (uint32_t i = 0; i < CS_PROBE; i++) {
        cs_hsite *s = &tab->sites[(h + i) & (CS_TAB_SITES - 1)];
        if (s->calls == 0) {
            s->ra = ra;
            s->coll = (uint32_t)coll;
        } else if (s->ra != ra || s->coll != (uint32_t)coll) {
            continue;
        }
        s->calls++;
        s->ticks += t;
        return;
    }
    tab->other_calls[coll]++;
    tab->other_ticks[coll] += t;
}

static void scale(cs_cell *c, double spt)
{
    c->t_total *= spt;
    c->t_min *= spt;
    c->t_max *= spt;
}

int cs_rec_build(cs_profile *p, double spt)
{
    int rc = 0;
    char where[512];
    pthread_mutex_lock(&tabs_mu);
    for (const cs_rtab *t = all_tabs; t; t = t->next) {
        for (size_t i = 0; i < CS_TAB_CELLS; i++) {
            if (t->cells[i].rank_calls == 0)
                continue;
            cs_cell c = t->cells[i];
            scale(&c, spt);
            if (cs_profile_add_cell(p, &c) < 0)
                rc = -1;
        }
        for (size_t i = 0; i < CS_TAB_SITES; i++) {
            const cs_hsite *s = &t->sites[i];
            if (s->calls == 0)
                continue;
            cs_site_name(s->ra, where, sizeof where);
            if (cs_profile_add_site(p, s->coll, where, s->calls, s->ticks * spt) < 0)
                rc = -1;
        }
        for (int k = 0; k < CS_R_N; k++)
            if (t->other_calls[k] &&
                cs_profile_add_site(p, (uint32_t)k, "other", t->other_calls[k],
                                    t->other_ticks[k] * spt) < 0)
                rc = -1;
    }
    for (size_t i = 0; spill_ready && i < spill.ncells; i++) {
        cs_cell c = spill.cells[i];
        scale(&c, spt);
        if (cs_profile_add_cell(p, &c) < 0)
            rc = -1;
        /* a spilled call's site was counted in its thread's table */
    }
    pthread_mutex_unlock(&tabs_mu);
    return rc;
}
