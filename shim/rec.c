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
 * Time: reading the clock twice costs more than everything else here, so
 * after the first CS_TIME_FIRST timed calls of a cell (per thread) only a
 * random 1 in CS_TIME_EVERY calls is timed (xorshift, so no aliasing with
 * periodic call patterns).  Counts, sizes and roots stay exact; a cell's
 * t_total is estimated as the timed total x calls / timed calls; t_min and
 * t_max are over the timed calls.  Times are kept in clock ticks
 * (cs_ticks()) and converted to seconds once, by cs_rec_build().
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"

#define CS_PROBE 16


int cs_rec_on;
int cs_hook_on;
unsigned cs_handle_gen = 1;
__thread cs_hc cs_tl_comm[CS_HC_N] __attribute__((tls_model("initial-exec")));
__thread cs_hc cs_tl_type[CS_HC_N] __attribute__((tls_model("initial-exec")));

__thread cs_rtab *cs_tl_tab __attribute__((tls_model("initial-exec")));
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
    t->rng = (uint32_t)((uintptr_t)t >> 4) | 1u;
    pthread_mutex_lock(&tabs_mu);
    t->next = all_tabs;
    all_tabs = t;
    pthread_mutex_unlock(&tabs_mu);
    cs_tl_tab = t;
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

int cs_rec_begin_slow(cs_rslot *s, MPI_Comm comm)
{
    int coll = (int)s->coll;
    uint64_t bytes = s->bytes;
    cs_rtab *tab = cs_tl_tab;
    s->comm_size = cs_comm_procs(comm);
    s->bin = (uint32_t)cs_bin_of(bytes);
    s->cell = NULL;
    if (!tab && !(tab = tab_new()))
        return 1; /* spill: always timed */
    uint32_t h = hash3(s->coll, s->comm_size, s->bin);
    for (uint32_t i = 0; i < CS_PROBE; i++) {
        uint32_t k = (h + i) & (CS_TAB_CELLS - 1);
        cs_cell *c = &tab->cells[k];
        if (c->rank_calls == 0) {
            cell_first(c, coll, s->comm_size, s->bin);
            tab->ntimed[k] = 0;
        } else if (c->coll != s->coll || c->comm_size != s->comm_size || c->bin != s->bin) {
            continue;
        }
        s->cell = c;
        s->ntimed = &tab->ntimed[k];
        return cs_timed_call(tab, s->ntimed);
    }
    return 1; /* spill */
}

static cs_hsite *site_find(cs_rtab *tab, uint32_t coll, void *ra)
{
    uintptr_t a = (uintptr_t)ra;
    uint32_t h = hash3(coll, (uint32_t)a, (uint32_t)(a >> 32));
    for (uint32_t i = 0; i < CS_PROBE; i++) {
        cs_hsite *e = &tab->sites[(h + i) & (CS_TAB_SITES - 1)];
        if (e->calls == 0) {
            e->ra = ra;
            e->coll = coll;
            return e;
        }
        if (e->ra == ra && e->coll == coll)
            return e;
    }
    return NULL;
}

void cs_rec_site_slow(cs_rtab *tab, uint32_t coll, int timed, double t, void *ra)
{
    cs_hsite *e = site_find(tab, coll, ra);
    if (!e) {
        tab->other_calls[coll]++;
        if (timed) {
            tab->other_timed[coll]++;
            tab->other_ticks[coll] += t;
        }
        return;
    }
    tab->memo[coll].ra = ra;
    tab->memo[coll].site = e;
    e->calls++;
    if (timed) {
        e->ntimed++;
        e->ticks += t;
    }
}

void cs_rec_end_slow(const cs_rslot *s, int timed, uint64_t ticks, void *ra)
{
    spill_cell((int)s->coll, s->comm_size, s->bin, s->bytes, s->root, (double)ticks);
    if (cs_tl_tab)
        cs_rec_site_slow(cs_tl_tab, s->coll, timed, (double)ticks, ra);
}

/* Estimated total of `calls` calls from the `timed` ones that were timed. */
static double estimate(double ticks, uint64_t calls, uint64_t timed, double spt)
{
    return timed ? ticks * spt * ((double)calls / (double)timed) : 0;
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
            c.t_total = estimate(t->cells[i].t_total, c.rank_calls, t->ntimed[i], spt);
            if (cs_profile_add_cell(p, &c) < 0)
                rc = -1;
        }
        for (size_t i = 0; i < CS_TAB_SITES; i++) {
            const cs_hsite *s = &t->sites[i];
            if (s->calls == 0)
                continue;
            cs_site_name(s->ra, where, sizeof where);
            if (cs_profile_add_site(p, s->coll, where, s->calls,
                                    estimate(s->ticks, s->calls, s->ntimed, spt)) < 0)
                rc = -1;
        }
        for (int k = 0; k < CS_R_N; k++)
            if (t->other_calls[k] &&
                cs_profile_add_site(p, (uint32_t)k, "other", t->other_calls[k],
                                    estimate(t->other_ticks[k], t->other_calls[k],
                                             t->other_timed[k], spt)) < 0)
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
