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
 * count is ever lost (short of running out of memory).  In front of both, a
 * memo per collective (rec.h) takes repeats of the last call inline, with
 * no look-up at all, and hands them on in bulk (memo_flush).
 *
 * Time: reading the clock twice costs more than everything else here, so
 * after the first CS_TIME_FIRST timed calls of a cell (per thread) and the
 * first CS_ARR_FIRST calls of a communicator only 1 in CS_TIME_EVERY calls
 * is timed, chosen by a hash of the call's number on its communicator (no
 * aliasing with periodic call patterns; the same calls on every rank, so
 * that their arrivals match, arr.c).  Counts, sizes and roots stay exact; a cell's
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
__thread cs_hc cs_tl_rank[CS_HC_N] __attribute__((tls_model("initial-exec")));

__thread cs_rtab *cs_tl_tab __attribute__((tls_model("initial-exec")));
static cs_rtab *all_tabs;        /* under tabs_mu */
static cs_profile spill;         /* under tabs_mu; times in ticks */
static int spill_ready;          /* under tabs_mu */
static pthread_mutex_t tabs_mu = PTHREAD_MUTEX_INITIALIZER;

/* The owner's side of a snapshot (snap.c asks by moving cs_snap_req on and
 * giving the table a buffer): copy the table into it and answer. */
unsigned cs_snap_req;

void cs_tab_answer(cs_rtab *t)
{
    unsigned req = __atomic_load_n(&cs_snap_req, __ATOMIC_ACQUIRE);
    cs_rtab *buf = __atomic_load_n(&t->snap, __ATOMIC_ACQUIRE);
    if (buf)
        memcpy(buf, t, sizeof *t);
    __atomic_store_n(&t->snap_ans, req, __ATOMIC_RELEASE);
}

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

int cs_rec_begin_slow(cs_rslot *s, MPI_Comm comm, uint64_t bytes)
{
    int coll = (int)s->coll;
    s->bytes = bytes;
    cs_rtab *tab = cs_tl_tab;
    s->comm_size = cs_comm_procs(comm);
    s->bin = (uint32_t)cs_bin_of(s->bytes);
    s->cell = NULL;
    s->ntimed = NULL;
    cs_timed_call(s, cs_arr_comm(comm), 0, cs_arr_cslot(s->coll, s->bin)); /* the call number */
    if (!tab && !(tab = tab_new()))
        return 1; /* spill */
    uint32_t h = hash3(s->coll, s->comm_size, s->bin);
    for (uint32_t i = 0; i < CS_PROBE; i++) {
        uint32_t k = (h + i) & (CS_TAB_CELLS - 1);
        cs_cell *c = &tab->cells[k];
        if (c->rank_calls == 0) {
            cs_tab_enter(tab);
            cell_first(c, coll, s->comm_size, s->bin);
            tab->ntimed[k] = 0;
            cs_tab_leave(tab);
        } else if (c->coll != s->coll || c->comm_size != s->comm_size || c->bin != s->bin) {
            continue;
        }
        s->cell = c;
        s->ntimed = &tab->ntimed[k];
        break;
    }
    return 1; /* calls through the slow path are always timed: a memo then
               * starts from a cell whose t_min/t_max are set */
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

/* Add n calls (timed of them, ticks in total) to a call site, or to the
 * table's "other" site of the collective when e is NULL. */
static void site_add(cs_rtab *tab, cs_hsite *e, uint32_t coll, uint64_t n, uint64_t timed,
                     double ticks)
{
    if (!e) {
        tab->other_calls[coll] += n;
        tab->other_timed[coll] += timed;
        tab->other_ticks[coll] += ticks;
        return;
    }
    e->calls += n;
    e->ntimed += timed;
    e->ticks += ticks;
}

/* Move the memo's pending calls into its cell and call site: what
 * cs_cell_record() would have done call by call (same size, same root: the
 * root mode cannot change; the size is already among the exact sizes or in
 * other_size_calls; exact sizes stay most frequent first, ties smaller
 * first, as record/ keeps them). */
static void memo_flush(cs_rtab *tab, cs_memo *m)
{
    if (!m->cell || !m->pend)
        return;
    cs_cell *c = m->cell;
    c->rank_calls += m->pend;
    c->t_total += m->pend_ticks;
    *m->ntimed += m->pend_timed;
    uint32_t i;
    for (i = 0; i < c->nsizes && c->sizes[i].bytes != m->bytes; i++)
        ;
    if (i == c->nsizes) {
        c->other_size_calls += m->pend;
    } else {
        c->sizes[i].rank_calls += m->pend;
        for (; i > 0 && (c->sizes[i].rank_calls > c->sizes[i - 1].rank_calls ||
                         (c->sizes[i].rank_calls == c->sizes[i - 1].rank_calls &&
                          c->sizes[i].bytes < c->sizes[i - 1].bytes));
             i--) {
            __typeof__(c->sizes[0]) x = c->sizes[i];
            c->sizes[i] = c->sizes[i - 1];
            c->sizes[i - 1] = x;
        }
    }
    site_add(tab, m->site, (uint32_t)(c->coll), m->pend, m->pend_timed, m->pend_ticks);
    m->pend = m->pend_timed = 0;
    m->pend_ticks = 0;
}

void cs_rec_end_slow(const cs_rslot *s, uint64_t t0, uint64_t t1)
{
    double t = (double)(t1 - t0);
    cs_arr_note(s->ac, s->seq, t0, t1, s->coll, s->bin, s->ra, s->afirst);
    cs_rtab *tab = cs_tl_tab;
    cs_cell *c = s->cell;
    if (!c) { /* spill (or no table at all) */
        spill_cell((int)s->coll, s->comm_size, s->bin, s->bytes, s->root, t);
        if (tab) {
            cs_tab_enter(tab);
            site_add(tab, site_find(tab, s->coll, s->ra), s->coll, 1, 1, t);
            cs_tab_leave(tab);
        }
        return;
    }
    cs_tab_enter(tab);
    cs_memo *m = &tab->memo[s->coll];
    memo_flush(tab, m);
    /* timed: cs_rec_begin_slow() times every call */
    cs_cell_record(c, s->bytes, s->root, t);
    if ((*s->ntimed)++ == 0) /* the cell's first timed call */
        c->t_min = c->t_max = t;
    cs_hsite *e = site_find(tab, s->coll, s->ra);
    site_add(tab, e, s->coll, 1, 1, t);
    m->comm = s->comm;
    m->ka = s->ka;
    m->kb = s->kb;
    m->bytes = s->bytes;
    m->ra = s->ra;
    m->gen = s->gen;
    m->root = s->root;
    m->cell = c;
    m->ntimed = s->ntimed;
    m->site = e;
    m->ac = s->ac;
    m->cslot = cs_arr_cslot(s->coll, s->bin);
    m->late = 0;
    cs_tab_leave(tab);
}

void cs_rec_end_timed(const cs_rslot *s, uint64_t t0, uint64_t t1)
{
    cs_memo *m = s->memo;
    cs_cell *c = m->cell; /* has a timed call already: min/max are set */
    double t = (double)(t1 - t0);
    __atomic_store_n(&m->pend_timed, m->pend_timed + 1, __ATOMIC_RELAXED);
    double sum = m->pend_ticks + t;
    __atomic_store(&m->pend_ticks, &sum, __ATOMIC_RELAXED);
    if (t < c->t_min)
        __atomic_store(&c->t_min, &t, __ATOMIC_RELAXED);
    if (t > c->t_max)
        __atomic_store(&c->t_max, &t, __ATOMIC_RELAXED);
    cs_arr_note(s->ac, s->seq, t0, t1, c->coll, c->bin, m->ra, s->afirst);
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

/* A pointer into orig, moved to the same place in its copy t (pointers
 * already in t stay). */
static void *rebase(void *ptr, const cs_rtab *orig, cs_rtab *t)
{
    uintptr_t off = (uintptr_t)ptr - (uintptr_t)orig;
    return ptr && off < sizeof *orig ? (char *)t + off : ptr;
}

/* Add table t's data to p (t is orig itself, or a copy of it). */
static int tab_emit(cs_profile *p, cs_rtab *t, const cs_rtab *orig, double spt)
{
    int rc = 0;
    char where[512];
    for (int k = 0; k < CS_R_N; k++) {
        cs_memo *m = &t->memo[k];
        m->cell = rebase(m->cell, orig, t);
        m->ntimed = rebase(m->ntimed, orig, t);
        m->site = rebase(m->site, orig, t);
        memo_flush(t, m);
    }
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
    return rc;
}

/* The spill's cells (caller holds tabs_mu); a spilled call's site was
 * counted in its thread's table. */
static int spill_emit(cs_profile *p, double spt)
{
    int rc = 0;
    for (size_t i = 0; spill_ready && i < spill.ncells; i++) {
        cs_cell c = spill.cells[i];
        scale(&c, spt);
        if (cs_profile_add_cell(p, &c) < 0)
            rc = -1;
    }
    return rc;
}

int cs_rec_build(cs_profile *p, double spt)
{
    int rc = 0;
    pthread_mutex_lock(&tabs_mu);
    for (cs_rtab *t = all_tabs; t; t = t->next)
        if (tab_emit(p, t, t, spt) < 0)
            rc = -1;
    if (spill_emit(p, spt) < 0)
        rc = -1;
    pthread_mutex_unlock(&tabs_mu);
    return rc;
}

int cs_rec_build_copies(cs_profile *p, double spt, cs_rtab *const *copy, cs_rtab *const *orig,
                        size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        if (tab_emit(p, copy[i], orig[i], spt) < 0)
            rc = -1;
    pthread_mutex_lock(&tabs_mu);
    if (spill_emit(p, spt) < 0)
        rc = -1;
    pthread_mutex_unlock(&tabs_mu);
    return rc;
}

size_t cs_rec_tables(cs_rtab **out, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&tabs_mu);
    for (cs_rtab *t = all_tabs; t; t = t->next, n++)
        if (n < max)
            out[n] = t;
    pthread_mutex_unlock(&tabs_mu);
    return n;
}
