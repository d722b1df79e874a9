/* `collsel compare --perf PERF [--profile P] [-o curve.png] [--csv]`: the
 * quadtree and C4.5 decision functions built from the same measurements,
 * side by side per collective: leaves, nodes, encoded bytes, penalty
 * (mean / max / median, weighted mean with a profile), decision time of
 * the run-time table, size of the generated C; and the penalty-vs-leaves
 * curves of both as a PNG.
 *
 * Trees compared: quadtrees of the papers' construction at depth caps 1..6
 * and exact, at thresholds 80/90/95 %, under leaf budgets 4..64 (and,
 * with a profile, the profile-weighted quadtree under the same budgets);
 * C4.5 at -m 2/5/10/20/40 x -c 5/25 (and, with a profile, weighted C4.5
 * at -m 2..40, -c 25). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "select/c45.h"
#include "select/cmd_util.h"
#include "render.h"
#include "select/penalty.h"

int cs_cmd_compare(int argc, char **argv);

enum { G_DEPTH, G_THR, G_BUDGET, G_WEIGHTED, G_C45, G_C45W, NGROUP };
static const char *const group_name[NGROUP] = {
    "quadtree, depth cap", "quadtree, threshold", "quadtree, leaf budget",
    "quadtree, weighted", "C4.5 (-m, -c)", "C4.5, weighted"};

typedef struct crow {
    int group;
    char setting[32];
    unsigned leaves, nodes;
    size_t bytes, code_bytes, code_tests;
    cs_pen_stats ps;
    double ns;
} crow;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: collsel compare --perf PERF [--profile PROFILE] [--margin PCT]\n"
            "                       [-o CURVE.png] [--csv]\n\n"
            "Builds quadtrees and C4.5 trees from the same measurements and prints them\n"
            "side by side, per collective: quadtrees (papers' construction) at depth caps\n"
            "1..6 and exact, thresholds 80/90/95 %%, leaf budgets 4..64 (and with\n"
            "--profile the profile-weighted quadtree under the same budgets); C4.5 at\n"
            "-m 2/5/10/20/40 x -c 5/25 (with --profile also weighted C4.5, -c 25).\n"
            "Columns: answering leaves, nodes, encoded bytes, penalty mean/max/median\n"
            "(%%, against the fastest measured method at each point), weighted mean\n"
            "penalty (with --profile), ns per decision of the run-time table (random\n"
            "queries over the measured ranges, fastest of 9 passes), bytes and\n"
            "comparisons of the generated C function (collsel codegen).\n"
            "  --margin PCT  as for collsel tune (default %g)\n"
            "  -o, --output CURVE.png\n"
            "                mean penalty against leaves of every kind, one panel per\n"
            "                collective (and per collective the weighted penalty with\n"
            "                --profile)\n"
            "  --csv         the table as CSV: collective,kind,setting,leaves,nodes,bytes,\n"
            "                mean_pct,max_pct,median_pct,wmean_pct,decide_ns,code_bytes,\n"
            "                code_tests (wmean_pct empty without a profile)\n"
            "  --help        this text\n"
            "exit status: 0 ok, 1 failure (writing), 2 bad input or usage\n",
            CS_TUNE_MARGIN);
}

#define NQ 16384
typedef struct queries {
    uint32_t cs[NQ];
    uint64_t ms[NQ];
} queries;

static double decide_ns(const cs_tree *t, int coll, const queries *q)
{
    double best = 1e30;
    volatile unsigned long sink = 0;
    for (int rep = 0; rep < 9; rep++) {
        unsigned long sum = 0;
        double t0 = cs_now();
        for (int i = 0; i < NQ; i++) {
            const uint16_t *ids;
            sum += (unsigned long)cs_tree_decide(t, coll, q->cs[i], q->ms[i], &ids) + ids[0];
        }
        double dt = (cs_now() - t0) / NQ * 1e9;
        best = dt < best ? dt : best;
        sink += sum;
    }
    (void)sink;
    return best;
}

static int eval(const cs_tree *t, const cs_map *m, const queries *q, crow *r, cs_err *e)
{
    cs_tree_stats st;
    cs_tree_stats_get(t, m->coll, &st);
    r->leaves = st.answering;
    r->nodes = st.nodes;
    r->bytes = st.bytes;
    if (cs_penalty_eval(t, m, &r->ps, NULL, NULL, e) < 0)
        return -1;
    r->ns = decide_ns(t, m->coll, q);
    cs_bands bs;
    if (cs_bands_build(t, m->coll, &bs, e) < 0)
        return -1;
    cs_buf o = {0};
    r->code_tests = cs_codegen_coll(&o, t, m->coll, &bs, "f");
    r->code_bytes = o.n;
    cs_buf_free(&o);
    cs_bands_free(&bs);
    return 0;
}

/* Every tree of collective m's comparison into rows (returns the count). */
static int build_rows(const cs_map *m, int weighted, const queries *q, crow *rows, cs_err *e)
{
    static const int budgets[] = {4, 8, 16, 32, 64};
    static const double thr[] = {80, 90, 95};
    static const int mv[] = {2, 5, 10, 20, 40};
    static const double cv[] = {5, 25};
    int n = 0;
    cs_tree *t = cs_tree_new();
    if (!t)
        return cs_fail(e, "out of memory");
    for (int d = 1; d <= 7; d++) {
        cs_quadtree_opts o;
        cs_quadtree_opts_default(&o);
        o.max_depth = d == 7 ? -1 : d;
        crow *r = &rows[n++];
        r->group = G_DEPTH;
        snprintf(r->setting, sizeof r->setting, d == 7 ? "exact" : "depth %d", d);
        CS_CHECK(cs_quadtree_build(t, m, &o, e));
        CS_CHECK(eval(t, m, q, r, e));
    }
    for (size_t i = 0; i < sizeof thr / sizeof thr[0]; i++) {
        cs_quadtree_opts o;
        cs_quadtree_opts_default(&o);
        o.threshold = thr[i];
        crow *r = &rows[n++];
        r->group = G_THR;
        snprintf(r->setting, sizeof r->setting, "threshold %g%%", thr[i]);
        CS_CHECK(cs_quadtree_build(t, m, &o, e));
        CS_CHECK(eval(t, m, q, r, e));
    }
    for (int w = 0; w <= weighted; w++)
        for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
            cs_quadtree_opts o;
            cs_quadtree_opts_default(&o);
            o.mode = w ? CS_TUNE_WEIGHTED : CS_TUNE_BUDGET;
            o.max_leaves = budgets[i];
            crow *r = &rows[n++];
            r->group = w ? G_WEIGHTED : G_BUDGET;
            snprintf(r->setting, sizeof r->setting, "%d leaves", budgets[i]);
            CS_CHECK(cs_quadtree_build(t, m, &o, e));
            CS_CHECK(eval(t, m, q, r, e));
        }
    for (int w = 0; w <= weighted; w++)
        for (size_t c = 0; c < sizeof cv / sizeof cv[0]; c++)
            for (size_t i = 0; i < sizeof mv / sizeof mv[0]; i++) {
                if (w && cv[c] != 25)
                    continue;
                cs_c45_tune o;
                cs_c45_result res;
                cs_c45_tune_default(&o);
                o.c.minobjs = mv[i];
                o.c.cf = cv[c];
                o.weighted = w;
                crow *r = &rows[n++];
                r->group = w ? G_C45W : G_C45;
                snprintf(r->setting, sizeof r->setting, "-m %d -c %g", mv[i], cv[c]);
                CS_CHECK(cs_c45_build(t, &m, 1, &o, &res, e));
                CS_CHECK(eval(t, m, q, r, e));
            }
    cs_tree_free(t);
    return n;
out:
    cs_tree_free(t);
    return -1;
}

static void make_queries(const cs_map *m, queries *q)
{
    unsigned s = 12345;
    double l0 = log2(m->ms[0] ? (double)m->ms[0] : 1), l1 = log2((double)m->ms[m->nms - 1] + 1);
    for (int i = 0; i < NQ; i++) {
        s = s * 1103515245u + 12345u;
        q->cs[i] = m->cs[0] + (s >> 8) % (m->cs[m->ncs - 1] - m->cs[0] + 1);
        s = s * 1103515245u + 12345u;
        q->ms[i] = (uint64_t)exp2(l0 + (l1 - l0) * ((s >> 8) & 0xFFFF) / 65536.0);
    }
}

static void print_rows(const cs_map *m, const crow *rows, int n, int weighted, int csv)
{
    const char *cn = cs_coll_name(m->coll);
    if (!csv) {
        printf("%s: %d comm sizes x %d message sizes, %d methods, margin %g%%\n", cn, m->ncs,
               m->nms, m->nmethods, m->margin);
        printf("  %-22s %-14s %6s %6s %6s %7s %7s %7s %7s %6s %7s %5s\n", "kind", "setting",
               "leaves", "nodes", "bytes", "mean%", "max%", "median%", weighted ? "wmean%" : "-",
               "ns", "code B", "tests");
    }
    for (int i = 0; i < n; i++) {
        const crow *r = &rows[i];
        double wm = weighted && r->ps.nweighted ? 100 * r->ps.wmean : NAN;
        char wbuf[32] = "";
        if (!isnan(wm))
            snprintf(wbuf, sizeof wbuf, csv ? "%.4f" : "%7.2f", wm);
        if (csv)
            printf("%s,%s,%s,%u,%u,%zu,%.4f,%.4f,%.4f,%s,%.2f,%zu,%zu\n", cn,
                   r->group >= G_C45 ? (r->group == G_C45W ? "c45-weighted" : "c45")
                   : r->group == G_WEIGHTED ? "quadtree-weighted" : "quadtree",
                   r->setting, r->leaves, r->nodes, r->bytes, 100 * r->ps.mean,
                   100 * r->ps.max, 100 * r->ps.median, wbuf, r->ns, r->code_bytes,
                   r->code_tests);
        else
            printf("  %-22s %-14s %6u %6u %6zu %7.2f %7.1f %7.2f %7s %6.2f %7zu %5zu\n",
                   group_name[r->group], r->setting, r->leaves, r->nodes, r->bytes,
                   100 * r->ps.mean, 100 * r->ps.max, 100 * r->ps.median, wbuf[0] ? wbuf : "-",
                   r->ns, r->code_bytes, r->code_tests);
    }
}

/* Panels of collective m: uniform mean penalty vs leaves, and with a
 * profile the weighted one. */
static int add_panels(const cs_map *m, const crow *rows, int n, int weighted, cs_cpanel *p)
{
    for (int k = 0; k <= weighted; k++) {
        memset(&p[k], 0, sizeof p[k]);
        snprintf(p[k].title, sizeof p[k].title, "%s: %s penalty vs leaves", cs_coll_name(m->coll),
                 k ? "weighted" : "mean");
        snprintf(p[k].ylabel, sizeof p[k].ylabel, "%s penalty (%%)",
                 k ? "application-weighted mean" : "mean");
        int map[NGROUP];
        for (int g = 0; g < NGROUP; g++)
            map[g] = -1;
        for (int i = 0; i < n; i++) {
            const crow *r = &rows[i];
            if (r->group == G_THR)
                continue;
            int g = r->group;
            if (map[g] < 0) {
                map[g] = p[k].ns++;
                snprintf(p[k].s[map[g]].name, sizeof p[k].s[0].name, "%s", group_name[g]);
            }
            cs_cseries *s = &p[k].s[map[g]];
            if (s->n < CS_CURVE_MAXPTS) {
                s->x[s->n] = r->leaves;
                s->y[s->n++] = 100 * (k ? r->ps.wmean : r->ps.mean);
            }
        }
    }
    return weighted + 1;
}

/* The rows of collective coll (printed) and its panels (added at
 * panels[*np]): 1 done, 0 PERF has no row of it, -1 failed (a line said
 * why). */
static int compare_coll(int coll, const cs_perf *perf, const char *perf_path,
                        const cs_profile *prof, double margin, int csv, queries *q, crow *rows,
                        cs_cpanel *panels, int *np)
{
    int present = 0;
    for (size_t r = 0; r < perf->n && !present; r++)
        present = perf->rows[r].coll == coll;
    if (!present)
        return 0;
    cs_map m;
    cs_err e;
    if (cs_map_build(&m, perf, coll, prof, &e) < 0) {
        fprintf(stderr, "collsel compare: %s: %s\n", perf_path, e.msg);
        return -1;
    }
    m.margin = margin;
    int weighted = 0;
    for (int i = 0; m.w && i < m.ncs * m.nms; i++)
        weighted |= m.w[i] > 0;
    make_queries(&m, q);
    int n = build_rows(&m, weighted, q, rows, &e);
    if (n < 0) {
        fprintf(stderr, "collsel compare: %s: %s\n", perf_path, e.msg);
        cs_map_free(&m);
        return -1;
    }
    print_rows(&m, rows, n, weighted, csv);
    *np += add_panels(&m, rows, n, weighted, &panels[*np]);
    cs_map_free(&m);
    return 1;
}

int cs_cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        {"perf", required_argument, 0, 'p'}, {"profile", required_argument, 0, 'P'},
        {"margin", required_argument, 0, 'M'}, {"output", required_argument, 0, 'o'},
        {"csv", no_argument, 0, 'c'},        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *perf_path = NULL, *prof_path = NULL, *out = NULL;
    double margin = CS_TUNE_MARGIN;
    int csv = 0, c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': perf_path = optarg; break;
        case 'P': prof_path = optarg; break;
        case 'o': out = optarg; break;
        case 'c': csv = 1; break;
        case 'h': usage(stdout); return CS_EXIT_OK;
        case 'M':
            if (cs_sel_num(optarg, 0, 100, &margin) < 0) {
                fprintf(stderr, "collsel compare: --margin '%s' (accepted: a percentage in "
                                "[0, 100])\n", optarg);
                return CS_EXIT_USAGE;
            }
            break;
        case ':':
            fprintf(stderr, "collsel compare: %s needs a value\n", argv[optind - 1]);
            return CS_EXIT_USAGE;
        default:
            fprintf(stderr, "collsel compare: unknown option '%s' (collsel compare --help)\n",
                    argv[optind - 1]);
            return CS_EXIT_USAGE;
        }
    }
    if (optind < argc || !perf_path) {
        fprintf(stderr, "collsel compare: --perf PERF is required, no other argument "
                        "(collsel compare --help)\n");
        return CS_EXIT_USAGE;
    }
    if (out && !cs_curve_draw) {
        fprintf(stderr, "collsel compare: -o: this collsel was built without cairo (no PNG)\n");
        return CS_EXIT_USAGE;
    }
    cs_perf perf;
    cs_profile *prof;
    if (cs_sel_load("compare", perf_path, prof_path, &perf, &prof) < 0)
        return CS_EXIT_USAGE;
    int rc = CS_EXIT_USAGE, np = 0, any = 0;
    cs_err e;
    crow *rows = calloc(64, sizeof *rows);
    queries *q = malloc(sizeof *q);
    cs_cpanel *panels = calloc(2 * CS_NCOLL, sizeof *panels);
    if (!rows || !q || !panels) {
        fprintf(stderr, "collsel compare: out of memory\n");
        goto out;
    }
    if (csv)
        printf("collective,kind,setting,leaves,nodes,bytes,mean_pct,max_pct,median_pct,"
               "wmean_pct,decide_ns,code_bytes,code_tests\n");
    for (int coll = 0; coll < CS_NCOLL; coll++) {
        int r = compare_coll(coll, &perf, perf_path, prof, margin, csv, q, rows, panels, &np);
        if (r < 0)
            goto out;
        any |= r;
    }
    if (!any) {
        fprintf(stderr, "collsel compare: %s: no rows\n", perf_path);
        goto out;
    }
    rc = CS_EXIT_OK;
    if (out) {
        if (cs_curve_draw(panels, np, out, &e) < 0) {
            fprintf(stderr, "collsel compare: %s\n", e.msg);
            rc = CS_EXIT_FAIL;
        } else if (!csv) {
            printf("wrote %s (%d panel%s)\n", out, np, np == 1 ? "" : "s");
        }
    }
out:
    free(rows);
    free(q);
    free(panels);
    cs_perf_free(&perf);
    cs_sel_free_profile(prof);
    return rc;
}
