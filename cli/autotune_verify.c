/* collsel autotune --verify N: does the tree keep its promise in the
 * application itself?  The expectation comes from the replay or from
 * exploring, and both can miss what using one method on every call does
 * (README, Measured inside the application: 4 ranks on 2 cores, LAMMPS's
 * tree expected 0.93 and measured 1.12 of native).  So the application
 * runs N times natively and N times with the tree, alternating (native
 * first in odd pairs, tuned first in even ones: a drift falls on both),
 * every run recorded; per collective collsel replaces, the pairs' ratios
 * of tuned / native time and completion (the profiles' own) give medians
 * and their distribution-free 95 % intervals (common/stats.h).  A
 * collective slower with the tree beyond the noise (autotune_rule.h: its
 * completion's interval above 1; or, none being, the whole collective
 * time's, and then every collective; with more ranks than cores, any
 * collective not faster beyond the noise) is made native: the tree is
 * built again with native only for it (its other methods' rows left out of
 * the same times), and the report says so.  The runs cost N
 * x 2 application runs, outside --budget (the user asked for them). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/autotune.h"
#include "cli/autotune_rule.h"
#include "common/colls.h"
#include "common/stats.h"
#include "common/util.h"
#include "record/arrivals.h"
#include "record/profile.h"
#include "select/perf.h"
#include "select/tree.h"
#include "shim/flavours.h"

#define MAX_PAIRS 99

/* Seconds per collective collsel replaces (index: enum cs_coll) and their
 * sum (index CS_NCOLL) in a recorded run: t, the time in them; k, their
 * completion (from the last arrival on: what a method changes; the wait a
 * slow collective causes lands on the next one's wait), over its cells
 * with arrivals (the sampled calls of a rare cell may match none), -1
 * where none has them.  0, or -1 if it cannot be read. */
static int coll_times(const char *path, double t[CS_NCOLL + 1], double k[CS_NCOLL + 1])
{
    cs_profile p;
    cs_err e;
    if (cs_profile_load(&p, path, &e) < 0) {
        fprintf(stderr, CMD "%s\n", e.msg);
        return -1;
    }
    memset(t, 0, sizeof(double) * (CS_NCOLL + 1));
    for (int c = 0; c <= CS_NCOLL; c++)
        k[c] = -1;
    for (size_t i = 0; i < p.ncells; i++) {
        int c = cs_coll_of_rcoll((int)p.cells[i].coll);
        double w, cpl;
        if (c < 0)
            continue;
        t[c] += p.cells[i].t_total;
        t[CS_NCOLL] += p.cells[i].t_total;
        if (cs_arr_split(&p, &p.cells[i], &w, &cpl) == 0) {
            k[c] = (k[c] < 0 ? 0 : k[c]) + cpl;
            k[CS_NCOLL] = (k[CS_NCOLL] < 0 ? 0 : k[CS_NCOLL]) + cpl;
        }
    }
    cs_profile_free(&p);
    return 0;
}

/* One recorded run, natively (tree NULL) or with the tree: 0 or -1. */
static int one_run(at_opts *o, const char *tree, const char *prof)
{
    char out[PATH_MAX + 32], err[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/verify.out", o->dir);
    snprintf(err, sizeof err, "%s/verify.err", o->dir);
    char *words[10];
    int w = 0;
    words[w++] = o->self, words[w++] = "exec", words[w++] = "--mpi";
    words[w++] = (char *)cs_flavours[o->flavour].name;
    words[w++] = "--record", words[w++] = (char *)prof;
    if (tree)
        words[w++] = "--tree", words[w++] = (char *)tree;
    words[w++] = "--", words[w] = NULL;
    char *argv[2 * MAX_ARGS];
    at_build_argv(o, argv, words, 1);
    remove(prof);
    int rc = at_run(argv, out, err);
    if (rc != 0) {
        fprintf(stderr, CMD "a verifying run exited with status %d (its output: %s, %s)\n", rc, out,
                err);
        at_tail(err, 6);
        return -1;
    }
    return 0;
}

/* Has table t a row of a method of collective coll? */
static int has_coll(const cs_perf *t, int coll)
{
    for (size_t i = 0; i < t->n; i++)
        if ((int)t->rows[i].coll == coll && !cs_perf_is_segment(&t->rows[i]))
            return 1;
    return 0;
}

/* Has table t a segment row of collective coll at comm_size? */
static int has_segment(const cs_perf *t, int coll, uint32_t comm_size)
{
    for (size_t i = 0; i < t->n; i++)
        if ((int)t->rows[i].coll == coll && t->rows[i].comm_size == comm_size &&
            cs_perf_is_segment(&t->rows[i]))
            return 1;
    return 0;
}

/* Rows of perf table path into *t (added); where segments, only its
 * segment rows of collectives t already has methods of (collsel tune
 * wants methods for every collective in its table) and no segment row of
 * at that size (exploring's, measured in the application, stays): 0, or
 * -1 (said). */
static int perf_rows(cs_perf *t, const char *path, int segments, const int *strip)
{
    cs_perf in;
    cs_err e;
    cs_perf_init(&in);
    if (cs_perf_read(&in, path, &e) < 0) {
        fprintf(stderr, CMD "%s\n", e.msg);
        cs_perf_free(&in);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < in.n && rc == 0; i++) {
        const cs_perf_row *r = &in.rows[i];
        const char *dot = strchr(r->method, '.'); /* COLL.native */
        const int seg = cs_perf_is_segment(r);
        if (segments ? seg && has_coll(t, (int)r->coll) &&
                           !has_segment(t, (int)r->coll, r->comm_size)
                     : !strip || !strip[r->coll] || seg || (dot && !strcmp(dot, ".native")))
            rc = cs_perf_add(t, r);
    }
    if (rc != 0)
        fprintf(stderr, CMD "out of memory\n");
    cs_perf_free(&in);
    return rc;
}

int at_perf_select(const char *in, const char *out, const int *strip, const char *seg)
{
    cs_perf t;
    cs_err e;
    cs_perf_init(&t);
    int rc = perf_rows(&t, in, 0, strip);
    if (rc == 0 && seg)
        rc = perf_rows(&t, seg, 1, NULL);
    if (rc == 0 && cs_perf_write(&t, out, &e) < 0) {
        fprintf(stderr, CMD "%s\n", e.msg);
        rc = -1;
    }
    cs_perf_free(&t);
    return rc;
}

/* The ratios tun[i][c] / nat[i][c] of the pairs where both are > 0:
 * their number, median (sorts r) and interval [*lo, *hi]; "-" printed
 * without any. */
static int ratios(double (*nat)[CS_NCOLL + 1], double (*tun)[CS_NCOLL + 1], int n, int c,
                  double *r, double *lo, double *hi)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (nat[i][c] > 0 && tun[i][c] > 0)
            r[m++] = tun[i][c] / nat[i][c];
    if (m == 0) {
        printf(" %24s", "-");
        return 0;
    }
    double med = cs_median_sorted(r, m);
    cs_median_ci(r, m, lo, hi);
    printf(" %7.3f (%6.3f-%6.3f)", med, *lo, *hi);
    return m;
}

/* Does tree t drive collective c somewhere (a leaf whose first candidate
 * is not native)?  Without a tree: as if it did. */
static int drives(const cs_tree *t, int c)
{
    cs_leaf *lv = NULL;
    size_t nl = 0;
    if (!t)
        return 1;
    if (!cs_tree_has(t, c) || cs_tree_leaves(t, c, &lv, &nl) < 0)
        return 0;
    int d = 0;
    for (size_t i = 0; i < nl && !d; i++) {
        const char *name = lv[i].n > 0 ? cs_tree_method_name(t, c, lv[i].ids[0]) : NULL;
        const char *dot = name ? strchr(name, '.') : NULL;
        d = dot && strcmp(dot, ".native") != 0;
    }
    free(lv);
    return d;
}

int at_verify(at_opts *o)
{
    static double nat[MAX_PAIRS][CS_NCOLL + 1], tun[MAX_PAIRS][CS_NCOLL + 1],
        natk[MAX_PAIRS][CS_NCOLL + 1], tunk[MAX_PAIRS][CS_NCOLL + 1];
    const int n = o->verify < MAX_PAIRS ? o->verify : MAX_PAIRS;
    char what[160];
    cs_tree *tree = NULL;
    cs_err e;
    if (cs_tree_read(&tree, o->tree, &e) < 0)
        tree = NULL; /* run as it is (the runs say why); drives() says yes */
    int driven[CS_NCOLL], any = 0;
    for (int c = 0; c < CS_NCOLL; c++)
        any |= driven[c] = drives(tree, c);
    cs_tree_free(tree);
    if (!any) { /* the runs would compare native with native */
        at_step(o, o->nsteps, "verifying: the tree keeps every collective native, no paired "
                              "runs", 0);
        return 0;
    }
    snprintf(what, sizeof what, "verifying: %d alternating native / tuned runs of the "
                                "application, each recorded (DIR/verify-*.prof)", n);
    at_step(o, o->nsteps, what, 0);
    for (int i = 0; i < n; i++) {
        char pn[PATH_MAX + 32], pt[PATH_MAX + 32];
        snprintf(pn, sizeof pn, "%s/verify-native-%d.prof", o->dir, i + 1);
        snprintf(pt, sizeof pt, "%s/verify-tuned-%d.prof", o->dir, i + 1);
        for (int k = 0; k < 2; k++) {
            int tuned = (k == 0) == (i % 2 == 1); /* odd pairs (1-based) native first */
            if (one_run(o, tuned ? o->tree : NULL, tuned ? pt : pn) < 0)
                return 1;
            if (at_stopped(o, "the verifying runs"))
                return 130;
        }
        if (coll_times(pn, nat[i], natk[i]) < 0 || coll_times(pt, tun[i], tunk[i]) < 0)
            return 1;
        printf("        pair %d of %d: collective time tuned / native %.3f\n", i + 1, n,
               nat[i][CS_NCOLL] > 0 ? tun[i][CS_NCOLL] / nat[i][CS_NCOLL] : 0);
        fflush(stdout);
    }
    printf("\n== verified in the application: %d pairs of runs (tuned / native, the median of "
           "the pairs with its 95 %% interval%s; a collective is judged on its completion, from "
           "the last arrival on, where recorded: the wait a slow collective causes lands on the "
           "next one)\n%-10s %24s %24s\n",
           n, n < 6 ? ", below 6 pairs only the range" : "", "", "collective time",
           "completion");
    at_judged judged[CS_NCOLL + 1] = {{0}};
    int strip[CS_NCOLL], whole;
    double r[MAX_PAIRS];
    for (int c = 0; c <= CS_NCOLL; c++) {
        at_judged *jc = &judged[c];
        for (int i = 0; i < n; i++)
            jc->seen |= nat[i][c] > 0 || tun[i][c] > 0;
        if (!jc->seen)
            continue;
        printf("  %-10s", c == CS_NCOLL ? "all" : cs_coll_name(c));
        jc->pairs = ratios(nat, tun, n, c, r, &jc->lo, &jc->hi);
        jc->kpairs = ratios(natk, tunk, n, c, r, &jc->klo, &jc->khi);
        const int native = c < CS_NCOLL && !driven[c];
        printf("%s\n", native ? "  (native everywhere in the tree)" : "");
        jc->seen = !native;
    }
    int ran = 0; /* driven collectives that ran */
    for (int c = 0; c < CS_NCOLL; c++)
        ran += judged[c].seen;
    const int nstrip = at_verify_rule(judged, CS_NCOLL, o->prove, strip, &whole);
    if (!nstrip) {
        printf("  %s: %s stays\n",
               !ran      ? "no collective the tree drives ran in these runs: nothing to judge"
               : o->prove ? "every collective the tree drives, and the collective time as a "
                            "whole, was faster with it beyond the noise"
                          : "no collective was slower with the tree beyond the noise",
               o->tree);
        return 0;
    }
    /* the times the tree was built on, without the stripped collectives' methods */
    const char *perf = o->explore ? o->xtune : o->perf;
    char vperf[PATH_MAX + 32];
    snprintf(vperf, sizeof vperf, "%s/verified.csv", o->dir);
    if (at_perf_select(perf, vperf, strip, NULL) < 0)
        return 1;
    if (rename(o->tree, o->utree) < 0) {
        fprintf(stderr, CMD "cannot keep the tree as %s: %s\n", o->utree, strerror(errno));
        return 1;
    }
    char *tune[] = {o->self, "tune", "--perf", vperf, "--profile", o->prof, "-o", (char *)o->tree,
                    NULL};
    if (at_run(tune, o->log, o->log) != 0) {
        fprintf(stderr, CMD "collsel tune on %s failed: see %s; the tree stays as it was\n", vperf,
                o->log);
        rename(o->utree, o->tree);
        return 1;
    }
    if (whole && o->prove)
        printf("  not faster with the tree beyond the noise (the interval not below 1; more "
               "ranks than cores, where a gain must show): the collective time as a whole, so "
               "every collective the tree drives:");
    else if (whole)
        printf("  slower with the tree beyond the noise (the interval above 1): the collective "
               "time as a whole, so every collective the tree drives:");
    else if (o->prove)
        printf("  not faster with the tree beyond the noise (the interval not below 1; more "
               "ranks than cores, where the expectations are optimistic, a collective keeps "
               "its methods only where the pairs show their gain):");
    else
        printf("  slower with the tree beyond the noise (the interval above 1):");
    for (int c = 0; c < CS_NCOLL; c++)
        if (strip[c])
            printf(" %s", cs_coll_name(c));
    printf("\n  %s now keeps them native (built again on %s; the tree before: %s); the "
           "expectations above were for the tree before%s\n",
           o->tree, vperf, o->utree, o->explore ? "; for this one:" : "");
    if (o->explore)
        at_tree_expect(o);
    return 0;
}
