/* Exploring methods inside the application (COLLSEL_EXPLORE=K, with a
 * tree; record/explore.h says why and what the profile keeps).
 *
 * dispatch.c draws the method of each call among the tree leaf's first K
 * applicable candidates and native (cs_explore_draw) and times the call
 * (cs_explore_note).  This file keeps the times: one table per process, a
 * slot per (collective, communicator size, exact bytes, method) in open
 * addressing, under a spin lock (exploring is a tuning run: a lock per call,
 * uncontended some 20 ns, is nothing next to the calls it times).  A
 * slot's first call is not counted (a method's first call at a point
 * meets cold caches and code); a call that made a shared-memory segment
 * goes to the point's segment slot instead (idx CS_EXPLORE_SEGMENT, every
 * call counted, not clipped: "COLL.segment" in the profile), so the
 * segment's cost, which exploring once dropped, is measured where the
 * application pays it.  The first call at a point in a process (whatever
 * method was drawn) goes to that method's first-call slot (idx
 * CS_EXPLORE_FIRST + idx, every call counted, not clipped: "METHOD@first"),
 * apart from the making of a segment it did: the first touch of the
 * application's buffer is paid there, by native inside the call, by a
 * shared-memory method partly in a wait (coll/shm/prepare.c), and the
 * expectations put native's and the tree's own first calls in place of the
 * ones the runs drew.  A call counted as no method's (a method's first at
 * a point, the rest of a call that made a segment) goes to the point's
 * uncounted slot (idx CS_EXPLORE_UNCOUNTED: "COLL.uncounted"), so that
 * the expectations can count it as native's mean and the best method's
 * (with 8 calls of a point per rank and run, 4 methods drawn, they were a
 * third of its calls, counted in both as whatever was drawn).
 * cs_explore_build copies the table into a profile, with the methods'
 * names, at MPI_Finalize and at every snapshot. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "coll/coll.h"
#include "common/colls.h"
#include "record/profile.h"
#include "shim.h"

#define XSLOTS 1024 /* power of two; the profile keeps CS_XTAB_MAX of them */

typedef struct xslot {
    uint32_t used, coll, size, idx;
    uint64_t bytes, calls, clipped;
    double t, t2, tmin;
} xslot;

static xslot slots[XSLOTS];
static uint64_t points[XSLOTS]; /* points seen (a hash of the key, never 0) */
static uint64_t dropped; /* calls that found no slot */
static int lock;

static void take(void)
{
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&lock, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
}

static void give(void)
{
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

double cs_explore_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cs_explore_draw(uint64_t call, uint64_t seed, const int *cand, int n)
{
    /* the high bits of a multiplicative hash: calls in step with an
     * application's period (a sum then a max allreduce, every step) still
     * meet every candidate.  The seed shifts the sequence by a
     * pseudo-random amount, so that another run gives each call position
     * another candidate: without it every run would put the same method on
     * the same calls (the first ones, with the startup's skew, say), and
     * no number of runs would average a position's cost out. */
    uint64_t h = (call + 1 + seed * 0xD1B54A32D192ED03ull) * 0x9E3779B97F4A7C15ull;
    return cand[(int)((h >> 32) * (uint64_t)n >> 32)];
}

/* The call's time into its slot; count 0: only make the slot (its first
 * call, not counted).  Returns 1 when the call was not counted. */
static int note(int coll, uint32_t size, uint64_t bytes, int idx, double seconds, int count)
{
    uint64_t h = ((uint64_t)coll * 31 + size) * 0x9E3779B97F4A7C15ull ^ bytes * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)idx * 0x165667B19E3779F9ull;
    const int seg = idx == CS_EXPLORE_SEGMENT || idx == CS_EXPLORE_UNCOUNTED ||
                    idx >= CS_EXPLORE_FIRST; /* every call counted */
    take();
    for (uint32_t k = 0; k < XSLOTS; k++) {
        xslot *s = &slots[(h + k) & (XSLOTS - 1)];
        if (!s->used) {
            *s = (xslot){1, (uint32_t)coll, size, (uint32_t)idx, bytes, 0, 0, 0, 0, 0};
            if (!seg) {
                give(); /* the first call of a method's slot is not counted */
                return 1;
            }
        }
        if (s->coll == (uint32_t)coll && s->size == size && s->bytes == bytes &&
            s->idx == (uint32_t)idx) {
            if (!count) { /* its first call only: the slot is there */
                give();
                return 1;
            }
            if (s->calls == 0 || seconds < s->tmin)
                s->tmin = seconds;
            double cap = CS_XCLIP * s->tmin > CS_XCLIP_FLOOR ? CS_XCLIP * s->tmin : CS_XCLIP_FLOOR;
            if (!seg && seconds > cap) { /* descheduled (record/explore.h) */
                seconds = cap;
                s->clipped++;
            }
            s->calls++;
            s->t += seconds;
            s->t2 += seconds * seconds;
            give();
            return 0;
        }
    }
    dropped += count;
    give();
    return 0;
}

void cs_explore_note(int coll, uint32_t size, uint64_t bytes, int idx, double seconds)
{
    if (note(coll, size, bytes, idx, seconds, 1))
        note(coll, size, bytes, CS_EXPLORE_UNCOUNTED, seconds, 1);
}

void cs_explore_first(int coll, uint32_t size, uint64_t bytes, int idx, double seconds)
{
    note(coll, size, bytes, idx, 0, 0);
    if (seconds >= 0)
        note(coll, size, bytes, CS_EXPLORE_UNCOUNTED, seconds, 1);
}

int cs_explore_point_first(int coll, uint32_t size, uint64_t bytes)
{
    uint64_t h = ((uint64_t)coll * 31 + size) * 0x9E3779B97F4A7C15ull;
    h = (h ^ bytes * 0xC2B2AE3D27D4EB4Full) | 1;
    int first = 0;
    take();
    for (uint32_t k = 0; k < XSLOTS; k++) {
        uint64_t *s = &points[(h + k) & (XSLOTS - 1)];
        if (*s == h)
            break;
        if (!*s) {
            *s = h;
            first = 1;
            break;
        }
    } /* (a full table: no point is first any more) */
    give();
    return first;
}

int cs_explore_build(cs_profile *p)
{
    if (cs_cfg.explore <= 0)
        return 0;
    p->xtab.k = (uint32_t)cs_cfg.explore;
    int rc = 0;
    take();
    p->xtab.dropped = cs_count_add(p->xtab.dropped, dropped);
    for (uint32_t k = 0; k < XSLOTS && rc == 0; k++) {
        const xslot *s = &slots[k];
        int n;
        const cs_method *t = s->used && s->calls ? cs_methods((enum cs_coll)s->coll, &n) : NULL;
        char segname[128];
        const char *name = NULL;
        const int seg = s->idx == (uint32_t)CS_EXPLORE_SEGMENT;
        if (t && (seg || s->idx == (uint32_t)CS_EXPLORE_UNCOUNTED)) {
            snprintf(segname, sizeof segname, "%s%s", cs_coll_name((int)s->coll),
                     seg ? CS_SEGMENT_SUFFIX : CS_UNCOUNTED_SUFFIX);
            name = segname;
        } else if (t && s->idx >= CS_EXPLORE_FIRST && (int)(s->idx - CS_EXPLORE_FIRST) < n) {
            snprintf(segname, sizeof segname, "%s" CS_FIRST_SUFFIX,
                     t[s->idx - CS_EXPLORE_FIRST].name);
            name = segname;
        } else if (t && (int)s->idx < n) {
            name = t[s->idx].name;
        }
        if (!name)
            continue;
        cs_xcell c = {s->coll,  s->size, s->bytes, (char *)name, s->calls,
                      s->t,     s->t2,   s->tmin,  s->clipped};
        rc = cs_xtab_add(&p->xtab, &c);
    }
    give();
    return rc;
}
