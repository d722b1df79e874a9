/* `collsel show --explored PROFILE [--csv]`: the methods measured inside
 * the application (COLLSEL_EXPLORE; record/explore.h).
 *
 * Text: per point (collective, communicator size, exact bytes) each method
 * tried, its rank calls, mean time per rank call with the 95 % interval,
 * and against native at the same point the difference per call (with
 * the intervals of both added) and the ratio of the means.  The times hold
 * the wait for the last rank as well, which is the same whatever the
 * method (drawn per call): the differences are the completions'.
 * CSV: a perf table (select/perf.h's plain form, arrivals column
 * "application"), which `collsel tune --perf` builds a tree from: the
 * methods ranked where the application calls, as it calls. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/colls.h"
#include "show_explore.h"



/* The expectation of the explored points (cs_xtab_expect) in one line. */
static void expect(FILE *f, const cs_profile *p)
{
    double total = 0, tn, tb, half;
    for (size_t i = 0; i < p->ncells; i++)
        total += p->cells[i].t_total;
    if (total > 0 && cs_xtab_expect(&p->xtab, total, &tn, &tb, &half) == 0)
        fprintf(f, "the collective time of this run natively at the explored points: %.4f s "
                   "(summed over ranks; measured %.4f s with the methods drawn); with each "
                   "point's fastest method: %.4f s (+- %.4f: 95 %% interval of the saving, the "
                   "points' in quadrature; a short run measures little), tuned / native %.3f "
                   "(+- %.3f)\n", tn, total, tb, half, tb / tn, half / tn);
}

int cs_show_explored(FILE *f, const char *path, const cs_profile *p, int csv)
{
    const cs_xtab *t = &p->xtab;
    if (t->k == 0 || t->n == 0) {
        fprintf(stderr, "collsel show: %s: no methods explored (record a run with "
                        "COLLSEL_EXPLORE=K and COLLSEL_TREE, e.g. collsel exec --explore 3 "
                        "--tree T --record P)\n", path);
        return -1;
    }
    if (csv) {
        fprintf(f, "# methods measured in the application: %s (COLLSEL_EXPLORE=%u; time: mean "
                   "per rank call, min/max: its 95 %% interval, reps: rank calls; a method "
                   "only where it beat native beyond the noise: at least %d calls each, the "
                   "difference above both intervals)\n", path, t->k, CS_XMIN_CALLS);
        fprintf(f, "collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps,"
                   "arrivals\n");
        for (size_t i = 0; i < t->n; i++) {
            const cs_xcell *x = &t->x[i], *nat = cs_xtab_native(t, x);
            if (x != nat && !cs_xcell_beats(x, nat)) /* not shown faster: native stays */
                continue;
            double h, m = cs_xcell_mean(x, &h);
            fprintf(f, "%s,%u,%llu,%s,%.6g,%.6g,%.6g,%llu,application\n",
                    cs_coll_name((int)x->coll), x->comm_size, (unsigned long long)x->bytes,
                    x->method, 1e6 * m, 1e6 * (m > h ? m - h : 0), 1e6 * (m + h),
                    (unsigned long long)x->calls);
        }
        /* the segments' costs, one row per (collective, size), as the
         * replay's COLL.segment rows: bytes 0, reps the rank calls; only
         * for a collective with rows above (a table with a segment and no
         * method of its collective builds no tree: a few calls of it, none
         * native beyond its first) */
        for (size_t i = 0; i < t->n; i++) {
            const cs_xcell *x = &t->x[i];
            double sec;
            uint64_t n;
            int seen = 0, rows = 0; /* seen: an earlier point of the size made one */
            for (size_t j = 0; j < t->n; j++) {
                seen |= j < i && t->x[j].coll == x->coll && t->x[j].comm_size == x->comm_size &&
                        cs_xcell_is_segment(&t->x[j]);
                rows |= t->x[j].coll == x->coll && cs_xtab_native(t, &t->x[j]) == &t->x[j];
            }
            if (!cs_xcell_is_segment(x) || seen || !rows ||
                cs_xtab_segment(t, x->coll, x->comm_size, &sec, &n) < 0)
                continue;
            fprintf(f, "%s,%u,0,%s,%.6g,%.6g,%.6g,%llu,application\n",
                    cs_coll_name((int)x->coll), x->comm_size, x->method, 1e6 * sec, 1e6 * sec,
                    1e6 * sec, (unsigned long long)n);
        }
        return 0;
    }
    fprintf(f, "methods measured in the application: %s\n(COLLSEL_EXPLORE=%u: each call ran "
               "one of its tree leaf's first %u candidates or native, drawn per call; time: "
               "mean per rank call with its 95 %% interval, the wait for the last rank "
               "included, which is the same for every method: the difference to native is "
               "the completion's)\n", path, t->k, t->k);
    fprintf(f, "(a call longer than %.0f x the fastest of its method at its point and than "
               "%.0f us counts as that: a call descheduled for milliseconds would hit any "
               "method; column clipped)\n", CS_XCLIP, CS_XCLIP_FLOOR * 1e6);
    fprintf(f, "(COLL.segment: the making of a communicator's shared-memory segment by a "
               "call at that point, per rank that made one, apart from the call's method; "
               "charged once to the shared-memory methods: CSV rows COLL.segment,SIZE,0)\n");
    fprintf(f, "(METHOD@first: the calls that were the first at their point in a process, "
               "whichever method was drawn, apart from that method's other calls: the "
               "application's buffer touched for the first time, cold caches; the "
               "expectation below takes native's and the best method's for them)\n");
    fprintf(f, "(COLL.uncounted: calls at the point counted as no method's: each method's "
               "first there, the rest of a call that made a segment; the expectation below "
               "takes native's and the best method's mean for them)\n");
    fprintf(f, "(beats: faster than native beyond the noise, at least %d calls each and the "
               "difference above both intervals: only those are candidates of the tree built "
               "on these times, and of the expectation below)\n", CS_XMIN_CALLS);
    fprintf(f, "%-10s %5s %12s  %-32s %9s %20s %22s %7s %8s %s\n", "collective", "comm",
            "bytes", "method", "calls", "us per call", "vs native, us", "ratio", "clipped",
            "beats");
    for (size_t i = 0; i < t->n; i++) {
        const cs_xcell *x = &t->x[i], *nat = cs_xtab_native(t, x);
        if (nat && cs_xcell_is_first(x)) /* first calls against native's first calls */
            nat = cs_xtab_first(t, x, nat->method);
        double h, m = cs_xcell_mean(x, &h), hn = 0, mn = nat ? cs_xcell_mean(nat, &hn) : 0;
        char a[32], b[32];
        snprintf(a, sizeof a, "%.3f +- %.3f", 1e6 * m, 1e6 * h);
        const int alike = !cs_xcell_is_segment(x) && !cs_xcell_is_uncounted(x); /* a method's */
        if (nat && nat != x && nat->calls > 0 && alike)
            snprintf(b, sizeof b, "%+.3f +- %.3f", 1e6 * (m - mn), 1e6 * (h + hn));
        else
            snprintf(b, sizeof b, "-");
        fprintf(f, "%-10s %5u %12llu  %-32s %9llu %20s %22s", cs_coll_name((int)x->coll),
                x->comm_size, (unsigned long long)x->bytes, x->method,
                (unsigned long long)x->calls, a, b);
        if (nat && nat != x && mn > 0 && alike)
            fprintf(f, " %7.3f", m / mn);
        else
            fprintf(f, " %7s", "-");
        fprintf(f, " %8llu %s\n", (unsigned long long)x->clipped,
                cs_xcell_beats(x, nat) ? "yes" : "");
    }
    if (t->dropped)
        fprintf(f, "(%llu rank calls at points beyond the table's %d not kept)\n",
                (unsigned long long)t->dropped, CS_XTAB_MAX);
    expect(f, p);
    return 0;
}
