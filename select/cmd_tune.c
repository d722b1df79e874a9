/* collsel tune: build the decision trees from a performance table (and an
 * application profile) and print their shape and penalties. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "c45.h"
#include "cmd_util.h"
#include "tree_impl.h"
#include "select/penalty.h"

int cs_cmd_tune(int argc, char **argv);

static void usage(FILE *f)
{
    fprintf(f,
            "usage: collsel tune --perf PERF... [--profile PROFILE]... [--weights W1,W2,...]\n"
            "                    [--max-depth N] [--threshold PCT] [--max-leaves N]\n"
            "                    [--leaf majority|penalty] [--margin PCT] [--arrivals PATTERN]\n"
            "                    [--json] -o TREE\n"
            "       collsel tune --c45 [-m N] [-c PCT] [--combined] --perf PERF...\n"
            "                    [--profile PROFILE]... [--weights W1,W2,...] [--max-leaves N]\n"
            "                    [--margin PCT] -o TREE\n\n"
            "Builds one quadtree decision function per collective in PERF and writes\n"
            "them to TREE (for COLLSEL_TREE, collsel-replay --mix, codegen, map).\n\n"
            "--c45: C4.5 decision trees instead (Quinlan; as in Pjesivac-Grbovic et al.,\n"
            "\"Decision trees and MPI collective algorithm selection problem\"): cases are\n"
            "the measured points, attributes comm size and message size (cut at\n"
            "thresholds), class the point's best method (under --margin).\n"
            "  -m N     a split needs at least N cases in at least two branches\n"
            "           (default 2; 1..1000000)\n"
            "  -c PCT   confidence level of the pruning estimate (default 25; (0, 100];\n"
            "           lower prunes more)\n"
            "  --combined  one tree for all collectives of PERF, the collective an\n"
            "           attribute (classes: method names without the collective)\n"
            "  --max-leaves N  after pruning, collapse the subtrees that cost the fewest\n"
            "           training errors until N leaves are left\n"
            "  --profile  cases weighted by the time the application spent at their\n"
            "           point (a split needs N cases of average weight); the unweighted\n"
            "           C4.5 tree with the same number of leaves is printed beside it\n"
            "The tree is compiled into the same run-time table as a quadtree (same\n"
            "decision time); boundaries between measured sizes as for quadtrees.\n\n"
            "Without --profile: the papers' construction.  A block of the decision map\n"
            "becomes a leaf when at least PCT %% of its points share the best method\n"
            "(default 100 = exact) or at depth N (default: no cap); --max-leaves N\n"
            "additionally caps the leaves (split breadth-first).  A leaf answers its\n"
            "block's majority method (the papers), or with --leaf penalty the method\n"
            "of the least summed normalised time (lowest mean penalty) over the block.\n"
            "With --profile: refined where the application calls.  Leaves take the\n"
            "method with the lowest call-weighted time; the split that removes the most\n"
            "weighted penalty is taken first, up to --max-leaves (default 16) leaves per\n"
            "collective (leaves entirely in the padding of the 2^k x 2^k grid are not\n"
            "counted).  The papers' tree (--threshold, --max-depth) with the same number\n"
            "of leaves is built for comparison and both profile-weighted penalties are\n"
            "printed.\n"
            "Several --profile (the applications of a site): each profile's time in the\n"
            "collectives collsel replaces is scaled to its weight (1 each, or --weights,\n"
            "e.g. the applications' node-hours), then the profiles are added: every\n"
            "application counts by its weight, not by how long it ran.  Several --perf:\n"
            "their rows together (where two measure one point and method, the last).\n\n"
            "  --margin PCT  (default %g) a method other than native counts as better\n"
            "           than native at a point only if it is at least PCT %% faster there\n"
            "           (t < t_native x (1 - PCT/100)); otherwise the point's decision is\n"
            "           native.  A papers' leaf answers the majority of its points'\n"
            "           decisions; with --profile a leaf ranks native first unless the\n"
            "           best call-weighted total over its block beats native's by PCT %%.\n"
            "           Guards against measurement noise; 0 = the plain fastest method.\n\n"
            "Penalty of a point = (t_chosen - t_best) / t_best over the measured points\n"
            "(t_best: the fastest measured method, margin or not); weighted by the time\n"
            "the application spent at the point.  \"vs native\" = (t_chosen - t_native) /\n"
            "t_native (negative: faster than native): mean, max, and the number of\n"
            "points where the tree's choice is more than 5 %% slower than native.\n"
            "  --arrivals PATTERN  build on the rows measured under this arrival pattern\n"
            "           (collsel-replay --arrivals: their times are completion, the part\n"
            "           a method changes): recorded, none, one-late:20us, ...; back-to-back\n"
            "           for rows without a pattern.  Default: recorded when PERF has such\n"
            "           rows (collsel-replay measures them whenever the profile recorded\n"
            "           arrivals), else the rows without a pattern, else none.  When the\n"
            "           tree is built under a pattern and PERF also has balanced rows (none,\n"
            "           else back-to-back), the points where the fastest method differs\n"
            "           between the two are listed (or: none differs)\n"
            "  --json   statistics as JSON on stdout\n"
            "  -o, --output TREE  the tree file to write\n"
            "  --help   this text\n"
            "exit status: 0 ok, 1 failure (writing), 2 bad input or usage\n",
            CS_TUNE_MARGIN);
}

#define TUNE_MAX_PROFILES 64

typedef struct tune_args {
    const char *perf, *profile, *out;
    const char *profiles[TUNE_MAX_PROFILES], *perfs[TUNE_MAX_PROFILES];
    int nprofiles, nweights, nperfs;
    double weights[TUNE_MAX_PROFILES];
    cs_quadtree_opts o;
    double margin;
    int leaves_given, json;
    const char *arrivals;       /* --arrivals (NULL: the default) */
    int c45, combined, c45_opt; /* c45_opt: -m or -c given */
    cs_c45_tune c;
} tune_args;

/* --weights W1,W2,...: 0, or -1 (a line said why). */
static int weights(char *s, tune_args *a)
{
    a->nweights = 0;
    for (char *w = s, *end; *w; w = *end ? end + 1 : end) {
        if (a->nweights == TUNE_MAX_PROFILES ||
            !((a->weights[a->nweights++] = strtod(w, &end)) > 0) || end == w ||
            (*end && *end != ',')) {
            fprintf(stderr, "collsel tune: --weights '%s' (accepted: positive numbers "
                            "separated by commas, one per --profile)\n", s);
            return -1;
        }
    }
    return 0;
}

/* One option of getopt_long (c, its value in optarg): 0 taken, 1 --help
 * (printed), -1 bad (a line said why).  *qt_opt: a quadtree-only option. */
static int option(int c, char **argv, tune_args *a, int *qt_opt)
{
    long v;
    *qt_opt |= c == 'd' || c == 't';
    switch (c) {
    case '4': a->c45 = 1; break;
    case 'L':
        if (strcmp(optarg, "majority") && strcmp(optarg, "penalty")) {
            fprintf(stderr, "collsel tune: --leaf '%s' (accepted: majority, penalty)\n",
                    optarg);
            return -1;
        }
        a->o.leaf_penalty = optarg[0] == 'p';
        *qt_opt = 1;
        break;
    case 'C': a->combined = 1; break;
    case 'm':
        if (cs_sel_int(optarg, 1, 1000000, &v) < 0) {
            fprintf(stderr, "collsel tune: -m '%s' (accepted: 1..1000000 cases)\n", optarg);
            return -1;
        }
        a->c.c.minobjs = (double)v;
        a->c45_opt = 1;
        break;
    case 'c':
        if (cs_sel_num(optarg, 1e-9, 100, &a->c.c.cf) < 0) {
            fprintf(stderr, "collsel tune: -c '%s' (accepted: a confidence level in "
                            "(0, 100])\n", optarg);
            return -1;
        }
        a->c45_opt = 1;
        break;
    case 'p':
        if (a->nperfs == TUNE_MAX_PROFILES) {
            fprintf(stderr, "collsel tune: more than %d --perf\n", TUNE_MAX_PROFILES);
            return -1;
        }
        if (!a->perf)
            a->perf = optarg;
        a->perfs[a->nperfs++] = optarg;
        break;
    case 'P':
        if (a->nprofiles == TUNE_MAX_PROFILES) {
            fprintf(stderr, "collsel tune: more than %d --profile\n", TUNE_MAX_PROFILES);
            return -1;
        }
        a->profiles[a->nprofiles++] = a->profile = optarg;
        break;
    case 'w': return weights(optarg, a);
    case 'o': a->out = optarg; break;
    case 'A': a->arrivals = !strcmp(optarg, "back-to-back") ? "" : optarg; break;
    case 'j': a->json = 1; break;
    case 'h': usage(stdout); return 1;
    case 'd':
        if (cs_sel_int(optarg, 0, CS_TREE_MAXK, &v) < 0) {
            fprintf(stderr, "collsel tune: --max-depth '%s' (accepted: 0..%d)\n", optarg,
                    CS_TREE_MAXK);
            return -1;
        }
        a->o.max_depth = (int)v;
        break;
    case 't':
        if (cs_sel_num(optarg, 1e-9, 100, &a->o.threshold) < 0) {
            fprintf(stderr, "collsel tune: --threshold '%s' (accepted: a percentage in "
                            "(0, 100])\n", optarg);
            return -1;
        }
        break;
    case 'M':
        if (cs_sel_num(optarg, 0, 100, &a->margin) < 0) {
            fprintf(stderr, "collsel tune: --margin '%s' (accepted: a percentage in "
                            "[0, 100])\n", optarg);
            return -1;
        }
        break;
    case 'l':
        if (cs_sel_int(optarg, 1, 65536, &v) < 0) {
            fprintf(stderr, "collsel tune: --max-leaves '%s' (accepted: 1..65536)\n", optarg);
            return -1;
        }
        a->o.max_leaves = (int)v;
        a->leaves_given = 1;
        break;
    case ':':
        fprintf(stderr, "collsel tune: %s needs a value\n", argv[optind - 1]);
        return -1;
    default:
        fprintf(stderr, "collsel tune: unknown option '%s' (collsel tune --help)\n",
                argv[optind - 1]);
        return -1;
    }
    return 0;
}

/* What the options say together. */
static int options_agree(tune_args *a, int qt_opt)
{
    if (!a->perf || !a->out) {
        fprintf(stderr,
                "collsel tune: --perf PERF and -o TREE are required (collsel tune --help)\n");
        return -1;
    }
    if (!a->c45 && (a->c45_opt || a->combined)) {
        fprintf(stderr, "collsel tune: -m, -c and --combined need --c45\n");
        return -1;
    }
    if (a->nweights && a->nweights != a->nprofiles) {
        fprintf(stderr, "collsel tune: --weights gives %d weight(s) for %d --profile\n",
                a->nweights, a->nprofiles);
        return -1;
    }
    if (a->c45 && qt_opt) {
        fprintf(stderr, "collsel tune: --max-depth and --threshold are quadtree options (not "
                        "with --c45)\n");
        return -1;
    }
    a->o.mode = a->profile ? CS_TUNE_WEIGHTED : a->leaves_given ? CS_TUNE_BUDGET : CS_TUNE_PAPERS;
    a->c.weighted = a->profile != NULL;
    a->c.c.max_leaves = a->leaves_given ? a->o.max_leaves : 0;
    return 0;
}

static int parse(int argc, char **argv, tune_args *a)
{
    static const struct option opts[] = {
        {"perf", required_argument, 0, 'p'},      {"profile", required_argument, 0, 'P'},
        {"max-depth", required_argument, 0, 'd'}, {"threshold", required_argument, 0, 't'},
        {"max-leaves", required_argument, 0, 'l'}, {"output", required_argument, 0, 'o'},
        {"json", no_argument, 0, 'j'},            {"help", no_argument, 0, 'h'},
        {"margin", required_argument, 0, 'M'},    {"c45", no_argument, 0, '4'},
        {"combined", no_argument, 0, 'C'},        {"weights", required_argument, 0, 'w'},
        {"leaf", required_argument, 0, 'L'},      {"arrivals", required_argument, 0, 'A'},
        {0, 0, 0, 0}};
    memset(a, 0, sizeof *a);
    cs_quadtree_opts_default(&a->o);
    cs_c45_tune_default(&a->c);
    a->margin = CS_TUNE_MARGIN;
    optind = 0;
    opterr = 0;
    int c, qt_opt = 0;
    while ((c = getopt_long(argc, argv, ":o:hm:c:", opts, NULL)) != -1) {
        int r = option(c, argv, a, &qt_opt);
        if (r != 0)
            return r;
    }
    if (optind < argc) {
        fprintf(stderr, "collsel tune: unexpected argument '%s' (collsel tune --help)\n",
                argv[optind]);
        return -1;
    }
    return options_agree(a, qt_opt);
}

static void json_pen(FILE *f, const char *key, const cs_pen_stats *s, int w)
{
    size_t n = w ? s->nweighted : s->npoints;
    fprintf(f, "\"%s\":{\"points\":%zu,\"min\":%.6g,\"max\":%.6g,\"mean\":%.6g,\"median\":%.6g}",
            key, n, w ? s->wmin : s->min, w ? s->wmax : s->max, w ? s->wmean : s->mean,
            w ? s->wmedian : s->median);
}

static void print_c45(const tune_args *a, const cs_c45_result *r, int json)
{
    double n = r->cases > 0 ? r->cases : 1;
    if (json) {
        printf("\"c45\":{\"m\":%g,\"c\":%g,\"combined\":%s,\"weighted\":%s,\"cases\":%.6g,"
               "\"classes\":%d,\"leaves_grown\":%d,\"errors_grown\":%.6g,\"leaves\":%d,"
               "\"nodes\":%d,\"depth\":%d,\"errors\":%.6g,\"predicted_errors\":%.6g,"
               "\"collective_level\":%d},",
               a->c.c.minobjs, a->c.c.cf, a->combined ? "true" : "false",
               a->c.weighted ? "true" : "false", r->cases, r->ncls, r->leaves_grown,
               r->errors_grown, r->leaves, r->nodes, r->depth, r->errors, r->est,
               r->coll_level);
        return;
    }
    printf("  C4.5 -m %g -c %g%s%s: %.0f cases, %d classes; before pruning %d leaves, "
           "%.1f errors (%.1f%%); after %d leaves, %.1f errors (%.1f%%), predicted %.1f%%\n",
           a->c.c.minobjs, a->c.c.cf, a->c.weighted ? ", weighted" : "",
           a->combined ? ", combined" : "", r->cases, r->ncls, r->leaves_grown, r->errors_grown,
           100 * r->errors_grown / n, r->leaves, r->errors, 100 * r->errors / n, 100 * r->est / n);
    if (a->combined)
        printf("  combined tree: %d nodes, depth %d; first test on the collective at level %d%s\n",
               r->nodes, r->depth, r->coll_level, r->coll_level ? "" : " (none)");
}

/* Print the statistics of collective m->coll's function in t (and of the
 * comparison tree cmp, built with a profile: the same kind, unweighted,
 * with the same number of leaves). */
static int print_one(const tune_args *a, const cs_map *m, const cs_tree *t, const cs_tree *cmp,
                     const cs_c45_result *r, int first)
{
    cs_err e;
    int coll = m->coll, prof = cmp != NULL;
    cs_tree_stats st;
    cs_pen_stats ps, pc;
    cs_tree_stats_get(t, coll, &st);
    CS_CHECK(cs_penalty_eval(t, m, &ps, NULL, NULL, &e));
    if (prof)
        CS_CHECK(cs_penalty_eval(cmp, m, &pc, NULL, NULL, &e));
    cs_tree_stats sc = {0};
    if (prof)
        cs_tree_stats_get(cmp, coll, &sc);
    const char *cn = cs_coll_name(coll);
    const char *other = a->c45 ? "unweighted C4.5 tree" : "papers' tree";
    char b1[32], b2[32];
    if (a->json) {
        printf("%s{\"collective\":\"%s\",\"comm_sizes\":%d,\"msg_sizes\":%d,\"methods\":%d,"
               "\"grid\":%d,\"kind\":\"%s\",",
               first ? "" : ",", cn, m->ncs, m->nms, m->nmethods, 1 << st.k,
               a->c45 ? "c45" : "quadtree");
        if (a->c45)
            print_c45(a, r, 1);
        printf("\"nodes\":%u,\"leaves\":%u,\"answering\":%u,\"min_depth\":%u,\"max_depth\":%u,"
               "\"mean_depth\":%.4g,\"bytes\":%zu,",
               st.nodes, st.leaves, st.answering, st.min_depth, st.max_depth, st.mean_depth,
               st.bytes);
        json_pen(stdout, "penalty", &ps, 0);
        putchar(',');
        cs_sel_json_native(stdout, &ps, prof);
        if (prof) {
            putchar(',');
            json_pen(stdout, "weighted_penalty", &ps, 1);
            printf(",\"%s_same_leaves\":{\"leaves\":%u,", a->c45 ? "unweighted" : "papers",
                   sc.answering);
            json_pen(stdout, "penalty", &pc, 0);
            putchar(',');
            json_pen(stdout, "weighted_penalty", &pc, 1);
            putchar(',');
            cs_sel_json_native(stdout, &pc, 1);
            putchar('}');
        }
        putchar('}');
        return 0;
    }
    int nnat = 0, npts = 0;
    for (int i = 0; i < m->ncs; i++)
        for (int j = 0; j < m->nms; j++) {
            int d = cs_map_decide(m, i, j);
            npts += d >= 0;
            nnat += d >= 0 && d == m->native;
        }
    printf("%s: %d comm sizes (%u..%u) x %d message sizes (%s..%s), %d methods, grid %d x %d\n",
           cn, m->ncs, m->cs[0], m->cs[m->ncs - 1], m->nms, cs_sel_size(b1, 32, m->ms[0]),
           cs_sel_size(b2, 32, m->ms[m->nms - 1]), m->nmethods, 1 << st.k, 1 << st.k);
    printf("  margin %g%%: native is the decision at %d of %d measured points%s\n", m->margin,
           nnat, npts, m->native < 0 ? " (native not measured)" : "");
    for (int i = 0; m->seg_us && i < m->ncs; i++)
        if (!isnan(m->seg_us[i]) && m->seg_calls[i] >= 1)
            printf("  segment at %u ranks: %.0f us once, over the profile's %.0f calls per "
                   "communicator: +%.3f us per call of the shared-memory methods\n",
                   m->cs[i], m->seg_us[i], m->seg_calls[i], m->seg_us[i] / m->seg_calls[i]);
    if (a->c45 && (first || !a->combined))
        print_c45(a, r, 0);
    printf("  %s: %u nodes, %u leaves (%u answering), depth min %u max %u mean %.2f, "
           "%zu bytes encoded (%zu in nodes)\n",
           st.binary ? "tree (binary, C4.5)" : "tree", st.nodes, st.leaves, st.answering,
           st.min_depth, st.max_depth, st.mean_depth, st.bytes, st.bytes_nodes);
    cs_sel_print_pen(stdout, "penalty uniform", &ps, 0);
    if (prof)
        cs_sel_print_pen(stdout, "penalty weighted", &ps, 1);
    cs_sel_print_native(stdout, &ps, 0);
    if (prof) {
        cs_sel_print_native(stdout, &ps, 1);
        printf("  %s, %u answering leaves (no profile):\n", other, sc.answering);
        cs_sel_print_pen(stdout, "penalty uniform", &pc, 0);
        cs_sel_print_pen(stdout, "penalty weighted", &pc, 1);
        cs_sel_print_native(stdout, &pc, 0);
        cs_sel_print_native(stdout, &pc, 1);
    }
    return 0;
out:
    fprintf(stderr, "collsel tune: %s\n", e.msg);
    return -1;
}

/* Build the functions of maps[0..n) into t (and the comparison trees into
 * cmp when it is not NULL); r[k]: the C4.5 result of map k. */
static int build(const tune_args *a, const cs_map *maps, int n, cs_tree *t, cs_tree *cmp,
                 cs_c45_result *r, cs_err *e)
{
    const cs_map *mp[CS_NCOLL];
    cs_c45_result rc;
    for (int k = 0; k < n; k++)
        mp[k] = &maps[k];
    if (a->c45 && a->combined) {
        CS_CHECK(cs_c45_build(t, mp, n, &a->c, &r[0], e));
        for (int k = 1; k < n; k++)
            r[k] = r[0];
        if (cmp) {
            cs_c45_tune c = a->c;
            c.weighted = 0;
            c.c.max_leaves = r[0].leaves;
            CS_CHECK(cs_c45_build(cmp, mp, n, &c, &rc, e));
        }
        return 0;
    }
    for (int k = 0; k < n; k++) {
        if (a->c45) {
            CS_CHECK(cs_c45_build(t, &mp[k], 1, &a->c, &r[k], e));
            if (cmp) {
                cs_c45_tune c = a->c;
                c.weighted = 0;
                c.c.max_leaves = r[k].leaves;
                CS_CHECK(cs_c45_build(cmp, &mp[k], 1, &c, &rc, e));
            }
            continue;
        }
        CS_CHECK(cs_quadtree_build(t, &maps[k], &a->o, e));
        if (cmp) { /* the papers' criterion with the same number of leaves */
            cs_tree_stats st;
            cs_tree_stats_get(t, maps[k].coll, &st);
            cs_quadtree_opts o = a->o;
            o.mode = CS_TUNE_BUDGET;
            o.max_leaves = (int)st.answering;
            CS_CHECK(cs_quadtree_build(cmp, &maps[k], &o, e));
        }
    }
    return 0;
out:
    return -1;
}

/* Time of p in the collectives collsel replaces (what weights the tree). */
static double replaced_time(const cs_profile *p)
{
    double t = 0;
    for (size_t i = 0; i < p->ncells; i++) {
        if (cs_coll_of_rcoll((int)p->cells[i].coll) >= 0)
            t += p->cells[i].t_total;
    }
    return t;
}

/* Scale p's times so that replaced_time(p) == w; -1 if p has none. */
static int normalise(cs_profile *p, const char *path, double w)
{
    double t = replaced_time(p);
    if (!(t > 0)) {
        fprintf(stderr, "collsel tune: %s: no time in the collectives collsel replaces (%s) to weigh\n",
                path, cs_coll_names());
        return -1;
    }
    for (size_t i = 0; i < p->ncells; i++)
        p->cells[i].t_total *= w / t;
    for (size_t i = 0; i < p->nsites; i++)
        p->sites[i].t_total *= w / t;
    return 0;
}

/* The site's profile: every --profile scaled to its weight, added into prof
 * (which holds the first).  *same: 0 when a profile's layout (nodes x ranks
 * per node) differs from the first's. */
static int site_profile(const tune_args *a, cs_profile *prof, int *same)
{
    double w0 = a->nweights ? a->weights[0] : 1;
    if (!a->json)
        printf("site profile: %s weight %g (%.3f s of collective time)", a->profiles[0], w0,
               replaced_time(prof));
    if (normalise(prof, a->profiles[0], w0) < 0)
        return -1;
    for (int i = 1; i < a->nprofiles; i++) {
        cs_profile q;
        cs_err e;
        if (cs_profile_load(&q, a->profiles[i], &e) < 0) {
            fprintf(stderr, "\ncollsel tune: %s\n", e.msg);
            return -1;
        }
        double w = a->nweights ? a->weights[i] : 1;
        *same &= q.meta.nnodes == prof->meta.nnodes &&
                 q.meta.ranks_per_node == prof->meta.ranks_per_node;
        if (!a->json)
            printf(", %s weight %g (%.3f s)", a->profiles[i], w, replaced_time(&q));
        int rc = normalise(&q, a->profiles[i], w);
        if (rc == 0 && cs_profile_merge(prof, &q) < 0) {
            fprintf(stderr, "\ncollsel tune: out of memory merging %s\n", a->profiles[i]);
            rc = -1;
        }
        cs_profile_free(&q);
        if (rc < 0)
            return -1;
    }
    if (!a->json)
        printf("\n");
    return 0;
}

/* The fastest method of every point under pattern pat: index into t's
 * rows, per point (a sorted list of (coll, size, bytes, row)). */
typedef struct best_at {
    int coll;
    uint32_t cs;
    uint64_t bytes;
    size_t row;
} best_at;

static size_t fastest(const cs_perf *t, const char *pat, best_at *b)
{
    size_t n = 0;
    for (size_t r = 0; r < t->n; r++) {
        const cs_perf_row *x = &t->rows[r];
        if (strcmp(x->arrivals, pat) || cs_perf_is_segment(x))
            continue;
        size_t k = 0;
        while (k < n && !(b[k].coll == x->coll && b[k].cs == x->comm_size && b[k].bytes == x->msg_bytes))
            k++;
        if (k == n)
            b[n++] = (best_at){x->coll, x->comm_size, x->msg_bytes, r};
        else if (x->median_us < t->rows[b[k].row].median_us)
            b[k].row = r;
    }
    return n;
}

/* The row of method m at point at in t under pattern pat, or NULL. */
static cs_perf_row *row_of(cs_perf *t, const char *pat, const best_at *at, const char *m)
{
    for (size_t r = 0; r < t->n; r++) {
        cs_perf_row *x = &t->rows[r];
        if (x->coll == at->coll && x->comm_size == at->cs && x->msg_bytes == at->bytes &&
            !strcmp(x->arrivals, pat) && !strcmp(x->method, m))
            return x;
    }
    return NULL;
}

/* A tree under pattern pat when PERF (all) has balanced rows too (none,
 * else back-to-back): the points where the fastest method under pat is not
 * the fastest under balanced arrival.  Where the balanced one is within
 * the margin of the pattern's fastest under pat, the point keeps it (its
 * time in perf, the rows the tree is built on, is set just below the
 * fastest): a method replaces the balanced choice only where the pattern
 * makes it at least margin % faster, as a method replaces native - a near
 * tie between two runs is noise, not the pattern. */
static void compare_balanced(const cs_perf *all, cs_perf *perf, const char *pat, double margin,
                             int json)
{
    const char *bal = NULL;
    for (size_t r = 0; r < all->n && !bal; r++)
        if (!strcmp(all->rows[r].arrivals, "none"))
            bal = "none";
    for (size_t r = 0; r < all->n && !bal; r++)
        if (!all->rows[r].arrivals[0] && !cs_perf_is_segment(&all->rows[r]))
            bal = "";
    if (!bal || !strcmp(bal, pat))
        return;
    best_at *bp = malloc(sizeof *bp * (all->n + 1)), *bb = malloc(sizeof *bb * (all->n + 1));
    if (!bp || !bb) {
        free(bp), free(bb);
        return;
    }
    size_t np = fastest(all, pat, bp), nb = fastest(all, bal, bb), both = 0, differ = 0, kept = 0;
    if (!json)
        printf("arrivals: the fastest method under %s against balanced arrival (%s; a point "
               "keeps the balanced one unless the pattern's is %g %% faster):\n",
               pat, *bal ? bal : "back-to-back rows", margin);
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < nb; j++) {
            if (bp[i].coll != bb[j].coll || bp[i].cs != bb[j].cs || bp[i].bytes != bb[j].bytes)
                continue;
            both++;
            const cs_perf_row *xp = &all->rows[bp[i].row], *xb = &all->rows[bb[j].row];
            if (!strcmp(xp->method, xb->method))
                continue;
            differ++;
            cs_perf_row *keep = row_of(perf, pat, &bp[i], xb->method);
            double tb = keep ? keep->median_us : -1; /* balanced best, under pat */
            int within = tb >= 0 && tb <= xp->median_us * (1 + margin / 100);
            if (within) {
                keep->median_us = xp->median_us * (1 - 1e-9);
                kept++;
            }
            char sz[32];
            if (!json)
                printf("  %-9s %4u ranks %9s: %s %.2f us under %s; balanced: %s (%.2f us under "
                       "%s%s)%s\n",
                       cs_coll_name(xp->coll), xp->comm_size, cs_sel_size(sz, sizeof sz, xp->msg_bytes),
                       xp->method, xp->median_us, pat, xb->method, tb, pat,
                       tb >= 0 ? "" : ": not measured", within ? ": kept, within the margin" : "");
        }
    if (!json)
        printf("  %zu of %zu point(s) measured under both differ%s; %zu keep the balanced "
               "method (within the margin)\n",
               differ, both, differ ? "" : ": the pattern changes no best method here", kept);
    free(bp), free(bb);
}

int cs_cmd_tune(int argc, char **argv)
{
    tune_args a;
    int p = parse(argc, argv, &a);
    if (p)
        return p > 0 ? CS_EXIT_OK : CS_EXIT_USAGE;
    cs_perf perf;
    cs_profile *prof;
    if (cs_sel_load("tune", a.perf, a.profiles[0], &perf, &prof) < 0)
        return CS_EXIT_USAGE;
    for (int i = 1; i < a.nperfs; i++) { /* more perf tables: their rows appended */
        cs_perf more;
        cs_err e;
        cs_perf_init(&more);
        int bad = cs_perf_read(&more, a.perfs[i], &e) < 0;
        if (bad)
            fprintf(stderr, "collsel tune: %s\n", e.msg);
        for (size_t r = 0; r < more.n && !bad; r++)
            if (cs_perf_add(&perf, &more.rows[r]) < 0) {
                fprintf(stderr, "collsel tune: out of memory reading %s\n", a.perfs[i]);
                bad = 1;
            }
        cs_perf_free(&more);
        if (bad) {
            cs_sel_free_profile(prof);
            cs_perf_free(&perf);
            return CS_EXIT_USAGE;
        }
    }
    /* one arrival pattern's rows (the others kept for the comparison) */
    cs_perf all;
    cs_perf_init(&all);
    char pat[CS_PERF_ARRIVALS_MAX];
    for (size_t r = 0; r < perf.n; r++)
        if (cs_perf_add(&all, &perf.rows[r]) < 0) {
            fprintf(stderr, "collsel tune: out of memory\n");
            cs_perf_free(&all), cs_perf_free(&perf), cs_sel_free_profile(prof);
            return CS_EXIT_FAIL;
        }
    int npat = cs_perf_select_arrivals(&perf, a.arrivals, pat);
    size_t methods = 0; /* rows of methods (segment rows are kept whatever the pattern) */
    for (size_t r = 0; r < perf.n; r++)
        methods += !cs_perf_is_segment(&perf.rows[r]);
    if (a.arrivals && methods == 0) {
        fprintf(stderr, "collsel tune: %s has no rows measured under arrivals '%s'\n", a.perf,
                a.arrivals);
        cs_perf_free(&all), cs_perf_free(&perf), cs_sel_free_profile(prof);
        return CS_EXIT_USAGE;
    }
    if (!a.json && (npat > 1 || *pat))
        printf("arrivals: built on the rows measured under %s%s (%d pattern(s) in the table)\n",
               *pat ? pat : "back-to-back calls",
               *pat && strcmp(pat, "none") ? ", completion times" : "", npat);
    if (!a.json && prof && cs_arr_recorded(prof) && strcmp(pat, "recorded"))
        printf("arrivals: the profile recorded arrivals, but the tree is built on %s rows "
               "(collsel-replay --arrivals recorded measures under them)\n",
               *pat ? pat : "back-to-back");
    if (*pat && strcmp(pat, "none"))
        compare_balanced(&all, &perf, pat, a.margin, a.json);
    cs_perf_free(&all);
    /* the layout the profiles were recorded on (a tree is used on that one) */
    uint32_t nodes = prof ? prof->meta.nnodes : 0, rpn = prof ? prof->meta.ranks_per_node : 0;
    int same = 1;
    if ((a.nprofiles > 1 || a.nweights) && site_profile(&a, prof, &same) < 0) {
        cs_sel_free_profile(prof);
        cs_perf_free(&perf);
        return CS_EXIT_USAGE;
    }
    int rc = CS_EXIT_USAGE, n = 0;
    cs_map maps[CS_NCOLL];
    cs_c45_result res[CS_NCOLL];
    cs_err e;
    cs_tree *t = cs_tree_new(), *cmp = prof ? cs_tree_new() : NULL;
    if (!t || (prof && !cmp))
        goto out;
    for (int c = 0; c < CS_NCOLL; c++) {
        int present = 0;
        for (size_t r = 0; r < perf.n && !present; r++)
            present = perf.rows[r].coll == c;
        if (!present)
            continue;
        if (cs_map_build(&maps[n], &perf, c, prof, &e) < 0) {
            fprintf(stderr, "collsel tune: %s: %s\n", a.perf, e.msg);
            goto out;
        }
        maps[n++].margin = a.margin;
    }
    if (!n) {
        fprintf(stderr, "collsel tune: %s: no rows\n", a.perf);
        goto out;
    }
    if (build(&a, maps, n, t, cmp, res, &e) < 0) {
        fprintf(stderr, "collsel tune: %s: %s\n", a.perf, e.msg);
        goto out;
    }
    if (a.json)
        printf("{\"perf\":\"%s\",\"mode\":\"%s\",\"collectives\":[", a.perf,
               a.c45 ? (a.combined ? "c45-combined" : "c45")
               : a.o.mode == CS_TUNE_WEIGHTED ? "weighted"
               : a.o.mode == CS_TUNE_BUDGET   ? "budget"
                                              : "papers");
    for (int k = 0; k < n; k++)
        if (print_one(&a, &maps[k], t, cmp, &res[k], k == 0) < 0)
            goto out;
    if (a.json)
        printf("],\"margin\":%g}\n", a.margin);
    if (!same)
        nodes = rpn = 0;
    cs_tree_set_layout(t, nodes, rpn);
    if (!same && !a.json)
        printf("the profiles' layouts differ: the tree is not tied to one\n");
    if (cs_tree_write(t, a.out, &e) < 0) {
        fprintf(stderr, "collsel tune: %s\n", e.msg);
        rc = CS_EXIT_FAIL;
        goto out;
    }
    if (!a.json)
        printf("wrote %s (%d collective%s; tuned for %s)\n", a.out, n, n > 1 ? "s" : "",
               cs_layout_str(nodes, rpn, (char[64]){0}, 64));
    rc = CS_EXIT_OK;
out:
    for (int k = 0; k < n; k++)
        cs_map_free(&maps[k]);
    cs_tree_free(t);
    cs_tree_free(cmp);
    cs_perf_free(&perf);
    cs_sel_free_profile(prof);
    return rc;
}
