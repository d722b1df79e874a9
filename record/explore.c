/* The profile's table of methods measured in the application (explore.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/colls.h"
#include "record/explore.h"
#include "record/profile.h"

static int key_cmp(const cs_xcell *a, uint32_t coll, uint32_t cs, uint64_t bytes, const char *m)
{
    if (a->coll != coll)
        return a->coll < coll ? -1 : 1;
    if (a->comm_size != cs)
        return a->comm_size < cs ? -1 : 1;
    if (a->bytes != bytes)
        return a->bytes < bytes ? -1 : 1;
    return strcmp(a->method, m);
}

/* The index of the key, or where it would go (*found 0). */
static size_t locate(const cs_xtab *t, uint32_t coll, uint32_t cs, uint64_t bytes, const char *m,
                     int *found)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (key_cmp(&t->x[mid], coll, cs, bytes, m) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < t->n && key_cmp(&t->x[lo], coll, cs, bytes, m) == 0;
    return lo;
}

const cs_xcell *cs_xtab_find(const cs_xtab *t, uint32_t coll, uint32_t comm_size,
                             uint64_t bytes, const char *method)
{
    int found;
    size_t i = locate(t, coll, comm_size, bytes, method, &found);
    return found ? &t->x[i] : NULL;
}

int cs_xtab_add(cs_xtab *t, const cs_xcell *c)
{
    int found;
    size_t i = locate(t, c->coll, c->comm_size, c->bytes, c->method, &found);
    if (!found) {
        if (t->n >= CS_XTAB_MAX) {
            t->dropped = cs_count_add(t->dropped, c->calls);
            return 0;
        }
        if (cs_grow(&t->x, t->n, &t->cap, sizeof *t->x, 16) < 0)
            return -1;
        char *name = strdup(c->method);
        if (!name)
            return -1;
        memmove(&t->x[i + 1], &t->x[i], (t->n - i) * sizeof *t->x);
        t->x[i] = (cs_xcell){c->coll, c->comm_size, c->bytes, name, 0, 0, 0, c->tmin, 0};
        t->n++;
    }
    cs_xcell *d = &t->x[i];
    if (c->tmin < d->tmin)
        d->tmin = c->tmin;
    d->clipped = cs_count_add(d->clipped, c->clipped);
    d->calls = cs_count_add(d->calls, c->calls);
    d->t = cs_time_add(d->t, c->t);
    d->t2 = cs_time_add(d->t2, c->t2);
    return 0;
}

int cs_xtab_merge(cs_xtab *dst, const cs_xtab *src)
{
    if (src->k > dst->k)
        dst->k = src->k;
    dst->dropped = cs_count_add(dst->dropped, src->dropped);
    for (size_t i = 0; i < src->n; i++)
        if (cs_xtab_add(dst, &src->x[i]) < 0)
            return -1;
    return 0;
}

void cs_xtab_free(cs_xtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->x[i].method);
    free(t->x);
    memset(t, 0, sizeof *t);
}

double cs_xcell_mean(const cs_xcell *c, double *half)
{
    double n = (double)c->calls, m = n > 0 ? c->t / n : 0;
    double var = n > 1 ? (c->t2 - n * m * m) / (n - 1) : 0;
    if (half)
        *half = n > 1 && var > 0 ? 1.96 * sqrt(var / n) : 0;
    return m;
}

size_t cs_xtab_point_end(const cs_xtab *t, size_t i)
{
    size_t j = i;
    while (j < t->n && t->x[j].coll == t->x[i].coll && t->x[j].comm_size == t->x[i].comm_size &&
           t->x[j].bytes == t->x[i].bytes)
        j++;
    return j;
}

const cs_xcell *cs_xtab_native(const cs_xtab *t, const cs_xcell *x)
{
    char name[80];
    snprintf(name, sizeof name, "%s.native", cs_coll_name((int)x->coll));
    return cs_xtab_find(t, x->coll, x->comm_size, x->bytes, name);
}

int cs_xcell_is_segment(const cs_xcell *x)
{
    return cs_name_is_segment(x->method);
}

int cs_xcell_is_first(const cs_xcell *x)
{
    return cs_name_is_first(x->method);
}

int cs_xcell_is_uncounted(const cs_xcell *x)
{
    return cs_name_is_uncounted(x->method);
}

/* A method's counted calls (not a segment's making, first calls, the
 * uncounted ones). */
static int is_calls(const cs_xcell *x)
{
    return !cs_xcell_is_segment(x) && !cs_xcell_is_first(x) && !cs_xcell_is_uncounted(x);
}

const cs_xcell *cs_xtab_first(const cs_xtab *t, const cs_xcell *x, const char *method)
{
    char name[160];
    snprintf(name, sizeof name, "%s" CS_FIRST_SUFFIX, method);
    const cs_xcell *f = cs_xtab_find(t, x->coll, x->comm_size, x->bytes, name);
    return f && f->calls ? f : NULL;
}

int cs_xtab_segment(const cs_xtab *t, uint32_t coll, uint32_t comm_size, double *seconds,
                    uint64_t *calls)
{
    double sum = 0;
    uint64_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const cs_xcell *x = &t->x[i];
        if (x->coll != coll || x->comm_size != comm_size || !cs_xcell_is_segment(x))
            continue;
        sum += x->t;
        n += x->calls;
    }
    *seconds = n ? sum / (double)n : 0;
    *calls = n;
    return n ? 0 : -1;
}

int cs_xtab_first_swap(const cs_xtab *t, const cs_xcell *n0, const char *method, double fcalls,
                       double fspent, double *dn, double *dm, double *var)
{
    const cs_xcell *fn = cs_xtab_first(t, n0, n0->method), *fm = cs_xtab_first(t, n0, method);
    double hn = 0, hm = 0;
    const double mn = fn ? cs_xcell_mean(fn, &hn) : 0, mm = fm ? cs_xcell_mean(fm, &hm) : 0;
    if (fcalls <= 0 || !fn || !fm || fn == fm || fabs(mn - mm) <= hn + hm)
        return 0;
    *dn += fcalls * mn - fspent;
    *dm += fcalls * mm - fspent;
    if (var)
        *var += fcalls * fcalls * (hn * hn + hm * hm);
    return 1;
}

int cs_xcell_beats(const cs_xcell *x, const cs_xcell *nat)
{
    if (!nat || x == nat || !is_calls(x) || x->calls < CS_XMIN_CALLS ||
        nat->calls < CS_XMIN_CALLS)
        return 0;
    double h, hn, m = cs_xcell_mean(x, &h), mn = cs_xcell_mean(nat, &hn);
    return mn - m > h + hn;
}

size_t cs_xtab_undecided(const cs_xtab *t, double share)
{
    double all = 0;
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        all += t->x[i].t;
    for (size_t i = 0, j; i < t->n; i = j) {
        double tp = 0;
        int few = 0;
        j = cs_xtab_point_end(t, i);
        size_t methods = 0;
        for (size_t k = i; k < j; k++) {
            tp += t->x[k].t;
            if (!is_calls(&t->x[k]))
                continue; /* a segment is made once, a first call is one: no count decides */
            few |= t->x[k].calls < CS_XMIN_CALLS;
            methods++;
        }
        n += few && methods > 1 && all > 0 && tp >= share * all;
    }
    return n;
}

int cs_xtab_expect(const cs_xtab *t, double total, double *nat, double *best, double *half)
{
    double dn = 0, db = 0, var = 0, seg = 0;
    int measured = 0, segments = 0;
    for (size_t i = 0; i < t->n; i++)
        if (cs_xcell_is_segment(&t->x[i]))
            seg += t->x[i].t;
    for (size_t i = 0, j; i < t->n; i = j) {
        j = cs_xtab_point_end(t, i);
        const cs_xcell *n0 = cs_xtab_native(t, &t->x[i]);
        if (!n0 || n0->calls == 0)
            continue;
        measured = 1;
        double hn = 0, hb = 0, h, calls = 0, spent = 0, fcalls = 0, fspent = 0;
        const double mn = cs_xcell_mean(n0, &hn);
        double mb = mn;
        const char *mbest = NULL;
        for (size_t k = i; k < j; k++) {
            const double m = cs_xcell_mean(&t->x[k], &h);
            if (cs_xcell_is_segment(&t->x[k])) /* the making only, not a call */
                continue;
            if (cs_xcell_is_first(&t->x[k])) { /* a point's first calls: below */
                fcalls += (double)t->x[k].calls;
                fspent += t->x[k].t;
                continue;
            }
            calls += (double)t->x[k].calls; /* (the uncounted too: as the others) */
            spent += t->x[k].t;
            if (cs_xcell_beats(&t->x[k], n0) && m < mb)
                mb = m, hb = h, mbest = t->x[k].method;
        }
        segments |= mbest && cs_name_needs_segment(mbest);
        dn += calls * mn - spent;
        db += calls * mb - spent;
        if (mb < mn) /* the saving's interval; none where native stays */
            var += calls * calls * (hn * hn + hb * hb);
        if (mbest)
            cs_xtab_first_swap(t, n0, mbest, fcalls, fspent, &dn, &db, &var);
    }
    /* total holds the segments' making: natively none is made */
    *nat = total + dn - seg, *best = total + db - (segments ? 0 : seg), *half = sqrt(var);
    if (measured && *nat > 0)
        return 0;
    *nat = *best = *half = 0;
    return -1;
}

/* best / nat of runs[0..n) merged, run `skip` left out (-1: none), and in
 * *rhalf (if not NULL) the calls' 95 % half width over nat; -1 if that
 * cannot be told. */
static double runs_ratio(const cs_xtab *runs, const double *totals, int n, int skip,
                         double *rhalf)
{
    cs_xtab m = {0};
    double total = 0, nat, best, half, r = -1;
    int ok = 1;
    for (int i = 0; i < n && ok; i++)
        if (i != skip) {
            ok = cs_xtab_merge(&m, &runs[i]) == 0;
            total += totals[i];
        }
    if (ok && cs_xtab_expect(&m, total, &nat, &best, &half) == 0) {
        r = best / nat;
        if (rhalf)
            *rhalf = half / nat;
    }
    cs_xtab_free(&m);
    return r;
}

int cs_xtab_expect_runs(const cs_xtab *runs, const double *totals, int n, double *ratio,
                        double *half)
{
    /* Student's t, 97.5 % quantile, for 1..30 degrees of freedom */
    static const double t975[] = {12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23,
                                  2.20,  2.18, 2.16, 2.14, 2.13, 2.12, 2.11, 2.10, 2.09, 2.09,
                                  2.08,  2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05, 2.04};
    double loo[64], mean = 0, ss = 0, jump = 0, qhalf = 0;
    *ratio = *half = 0;
    if (n < 2 || n > 64 || (*ratio = runs_ratio(runs, totals, n, -1, &qhalf)) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if ((loo[i] = runs_ratio(runs, totals, n, i, NULL)) < 0)
            return -1;
        mean += loo[i] / n;
        jump = fmax(jump, fabs(loo[i] - *ratio));
    }
    for (int i = 0; i < n; i++)
        ss += (loo[i] - mean) * (loo[i] - mean);
    /* The jackknife assumes a smooth statistic; this one has thresholds (a
     * method counts only where it beats native beyond the noise).  When
     * every run left out still falls on the same side of them while all
     * runs together cross one (LAMMPS: 1.000 with any 2 of 3 runs, 0.933
     * with all 3), its spread is 0 and says nothing: the half width is at
     * least that jump, and at least the calls' own interval (quadrature). */
    *half = fmax(t975[n - 2 < 30 ? n - 2 : 29] * sqrt(ss * (n - 1) / n), fmax(jump, qhalf));
    return 0;
}

void cs_xtab_serialize(const cs_xtab *t, cs_buf *out)
{
    cs_buf_u32(out, t->k);
    cs_buf_u64(out, t->dropped);
    cs_buf_u64(out, t->n);
    for (size_t i = 0; i < t->n; i++) {
        const cs_xcell *c = &t->x[i];
        cs_buf_u32(out, c->coll);
        cs_buf_u32(out, c->comm_size);
        cs_buf_u64(out, c->bytes);
        cs_buf_str(out, c->method);
        cs_buf_u64(out, c->calls);
        cs_buf_f64(out, c->t);
        cs_buf_f64(out, c->t2);
        cs_buf_f64(out, c->tmin);
        cs_buf_u64(out, c->clipped);
    }
}

#define XCELL_MIN_BYTES (4 + 4 + 8 + 4 + 8 + 8 + 8 + 8 + 8)

int cs_xtab_deserialize(cs_xtab *t, cs_rd *r, cs_err *e)
{
    uint64_t n;
    memset(t, 0, sizeof *t);
    cs_rd_u32(r, &t->k);
    cs_rd_u64(r, &t->dropped);
    if (cs_rd_u64(r, &n) < 0 || n > CS_XTAB_MAX || n > (r->n - r->off) / XCELL_MIN_BYTES)
        return cs_fail(e, "explored methods cut short, or %llu of them (at most %d)",
                       (unsigned long long)n, CS_XTAB_MAX);
    if (t->k > 64 || t->dropped > CS_COUNT_MAX)
        return cs_fail(e, "explored methods: %u candidates or %llu dropped calls out of range",
                       t->k, (unsigned long long)t->dropped);
    for (uint64_t i = 0; i < n; i++) {
        cs_xcell c = {0};
        cs_rd_u32(r, &c.coll);
        cs_rd_u32(r, &c.comm_size);
        cs_rd_u64(r, &c.bytes);
        if (cs_rd_str(r, &c.method) < 0)
            return cs_fail(e, "explored method %llu cut short", (unsigned long long)i);
        cs_rd_u64(r, &c.calls);
        cs_rd_f64(r, &c.t);
        cs_rd_f64(r, &c.t2);
        cs_rd_f64(r, &c.tmin);
        cs_rd_u64(r, &c.clipped);
        const char *cn = c.coll < CS_NCOLL ? cs_coll_name((int)c.coll) : NULL;
        size_t cl = cn ? strlen(cn) : 0;
        int bad = r->bad || !cn || c.comm_size == 0 || c.calls > CS_COUNT_MAX ||
                  !(c.t >= 0 && c.t <= CS_TIME_MAX) || !(c.t2 >= 0 && c.t2 <= CS_TIME_MAX) ||
                  !(c.tmin >= 0 && c.tmin <= CS_TIME_MAX) || c.clipped > c.calls ||
                  strncmp(c.method, cn, cl) || c.method[cl] != '.' ||
                  (t->n && key_cmp(&t->x[t->n - 1], c.coll, c.comm_size, c.bytes, c.method) >= 0);
        if (bad) {
            free(c.method);
            return cs_fail(e, "explored method %llu is out of range, cut short or out of order",
                           (unsigned long long)i);
        }
        if (cs_grow(&t->x, t->n, &t->cap, sizeof *t->x, 16) < 0) {
            free(c.method);
            return cs_fail(e, "out of memory reading explored methods");
        }
        t->x[t->n++] = c;
    }
    return 0;
}
