/* collsel penalty: how much slower than the best measured method a tree's
 * choices are, over the points of a performance table (uniform and weighted
 * by a profile); --table: the papers' table (penalty of trees of maximum
 * depth 1..6 built from the table itself). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_util.h"
#include "select/penalty.h"

int cs_cmd_penalty(int argc, char **argv);

static void usage(FILE *f)
{
    fprintf(f,
            "usage: collsel penalty TREE --perf PERF [--profile PROFILE] [--csv]\n"
            "       collsel penalty --table --perf PERF [--profile PROFILE] [--threshold PCT]\n"
            "                       [--margin PCT]\n\n"
            "Penalty of a point = (t_chosen - t_best) / t_best, where t_best is the fastest\n"
            "method measured at the point and t_chosen the time of the tree's choice (its\n"
            "first method measured there).  Prints min, max, mean and median over the\n"
            "measured points, and weighted by the time the profile spent at each point.\n"
            "Also against native, (t_chosen - t_native) / t_native (negative: faster):\n"
            "mean and max, and the points where the choice is more than 5 %% slower.\n"
            "  --csv     one line per point instead:\n"
            "            collective,comm_size,msg_bytes,chosen,best,t_chosen_us,t_best_us,"
            "penalty,weight\n"
            "  --table   no TREE: build the papers' trees of maximum depth 1..6 (and the\n"
            "            exact one) from PERF and print leaves, mean depth and penalties\n"
            "            (nat-mean%%, nat-max%%: against native; >5%%: points more than 5 %%\n"
            "            slower than native)\n"
            "  --margin PCT  (--table, default %g) build the trees with this decision\n"
            "            margin: a method other than native is taken only where it is at\n"
            "            least PCT %% faster than native (see collsel tune --help)\n"
            "exit status: 0 ok, 2 bad input or usage\n",
            CS_TUNE_MARGIN);
}

static void print_csv(const cs_tree *t, const cs_map *m, const double *pen, const int *chosen)
{
    (void)t;
    for (int i = 0; i < m->ncs; i++)
        for (int j = 0; j < m->nms; j++) {
            size_t p = (size_t)i * m->nms + j;
            int b = cs_map_best(m, i, j);
            if (chosen[p] < 0 || b < 0)
                continue;
            printf("%s,%u,%llu,%s,%s,%.9g,%.9g,%.6g,%.9g\n", cs_coll_name(m->coll), m->cs[i],
                   (unsigned long long)m->ms[j], m->methods[chosen[p]], m->methods[b],
                   cs_map_time(m, i, j, chosen[p]), cs_map_time(m, i, j, b), pen[p],
                   m->w ? m->w[p] : 0.0);
        }
}

static int penalty_tree(const char *tree, const char *perf_path, const cs_perf *perf,
                        const cs_profile *prof, int csv)
{
    cs_tree *t;
    cs_err e;
    int rc = CS_EXIT_USAGE, n = 0;
    if (cs_tree_read(&t, tree, &e) < 0) {
        fprintf(stderr, "collsel penalty: %s\n", e.msg);
        return rc;
    }
    if (csv)
        printf("collective,comm_size,msg_bytes,chosen,best,t_chosen_us,t_best_us,penalty,weight\n");
    for (int c = 0; c < CS_NCOLL; c++) {
        cs_map m;
        if (!cs_tree_has(t, c) || cs_map_build(&m, perf, c, prof, &e) < 0)
            continue;
        size_t np = (size_t)m.ncs * m.nms;
        double *pen = malloc(np * sizeof *pen);
        int *chosen = malloc(np * sizeof *chosen);
        cs_pen_stats s;
        if (!pen || !chosen || cs_penalty_eval(t, &m, &s, pen, chosen, &e) < 0) {
            fprintf(stderr, "collsel penalty: %s\n", pen && chosen ? e.msg : "out of memory");
            free(pen);
            free(chosen);
            cs_map_free(&m);
            goto out;
        }
        n++;
        if (csv) {
            print_csv(t, &m, pen, chosen);
        } else {
            printf("%s: %zu measured points", cs_coll_name(c), s.npoints);
            if (s.nfallback)
                printf(", at %zu the tree's first method was not measured (next used)",
                       s.nfallback);
            printf("\n");
            cs_sel_print_pen(stdout, "penalty uniform", &s, 0);
            if (prof)
                cs_sel_print_pen(stdout, "penalty weighted", &s, 1);
            cs_sel_print_native(stdout, &s, 0);
            if (prof)
                cs_sel_print_native(stdout, &s, 1);
        }
        free(pen);
        free(chosen);
        cs_map_free(&m);
    }
    if (!n)
        fprintf(stderr, "collsel penalty: %s and %s have no collective in common\n", tree,
                perf_path);
    else
        rc = CS_EXIT_OK;
out:
    cs_tree_free(t);
    return rc;
}

static int penalty_table(const char *perf_path, const cs_perf *perf, const cs_profile *prof,
                         double threshold, double margin)
{
    cs_err e;
    if (perf->n == 0) {
        fprintf(stderr, "collsel penalty: %s: no rows\n", perf_path);
        return CS_EXIT_USAGE;
    }
    for (int c = 0; c < CS_NCOLL; c++) {
        cs_map m;
        if (cs_map_build(&m, perf, c, prof, &e) < 0)
            continue;
        m.margin = margin;
        printf("%s (%d x %d points, %d methods, threshold %g%%, margin %g%%)\n", cs_coll_name(c),
               m.ncs, m.nms, m.nmethods, threshold, margin);
        printf("  %-9s %6s %6s %6s %6s %8s %8s %8s %8s%s %9s %8s %4s%s\n", "max-depth", "leaves",
               "nodes", "depth", "bytes", "min%", "max%", "mean%", "median%", prof ? " wmean%" : "",
               "nat-mean%", "nat-max%", ">5%", prof ? " nat-wmean%" : "");
        for (int d = 1; d <= 7; d++) {
            cs_quadtree_opts o;
            cs_quadtree_opts_default(&o);
            o.threshold = threshold;
            o.max_depth = d == 7 ? -1 : d;
            cs_tree *t = cs_tree_new();
            cs_pen_stats s;
            cs_tree_stats st;
            if (!t || cs_quadtree_build(t, &m, &o, &e) < 0 ||
                cs_penalty_eval(t, &m, &s, NULL, NULL, &e) < 0) {
                fprintf(stderr, "collsel penalty: %s: %s\n", perf_path,
                        t ? e.msg : "out of memory");
                cs_tree_free(t);
                cs_map_free(&m);
                return CS_EXIT_USAGE;
            }
            cs_tree_stats_get(t, c, &st);
            char dn[16];
            snprintf(dn, sizeof dn, d == 7 ? "none" : "%d", d);
            printf("  %-9s %6u %6u %6.2f %6zu %8.2f %8.2f %8.2f %8.2f", dn, st.leaves, st.nodes,
                   st.mean_depth, st.bytes, 100 * s.min, 100 * s.max, 100 * s.mean, 100 * s.median);
            if (prof)
                printf(" %7.2f", 100 * s.wmean);
            printf(" %9.2f %8.2f %4zu", 100 * s.nat_mean, 100 * s.nat_max, s.nslower);
            if (prof)
                printf(" %10.2f", 100 * s.nat_wmean);
            printf("\n");
            cs_tree_free(t);
        }
        cs_map_free(&m);
    }
    return CS_EXIT_OK;
}

int cs_cmd_penalty(int argc, char **argv)
{
    static const struct option opts[] = {
        {"perf", required_argument, 0, 'p'}, {"profile", required_argument, 0, 'P'},
        {"csv", no_argument, 0, 'c'},        {"table", no_argument, 0, 'T'},
        {"threshold", required_argument, 0, 't'}, {"help", no_argument, 0, 'h'},
        {"margin", required_argument, 0, 'm'},
        {0, 0, 0, 0}};
    const char *perf_path = NULL, *prof_path = NULL;
    int csv = 0, table = 0, c;
    double thr = 100, margin = CS_TUNE_MARGIN;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': perf_path = optarg; break;
        case 'P': prof_path = optarg; break;
        case 'c': csv = 1; break;
        case 'T': table = 1; break;
        case 'h': usage(stdout); return CS_EXIT_OK;
        case 't':
            if (cs_sel_num(optarg, 1e-9, 100, &thr) < 0) {
                fprintf(stderr, "collsel penalty: --threshold '%s' (accepted: a percentage in "
                                "(0, 100])\n", optarg);
                return CS_EXIT_USAGE;
            }
            break;
        case 'm':
            if (cs_sel_num(optarg, 0, 100, &margin) < 0) {
                fprintf(stderr, "collsel penalty: --margin '%s' (accepted: a percentage in "
                                "[0, 100])\n", optarg);
                return CS_EXIT_USAGE;
            }
            break;
        case ':':
            fprintf(stderr, "collsel penalty: %s needs a value\n", argv[optind - 1]);
            return CS_EXIT_USAGE;
        default:
            fprintf(stderr, "collsel penalty: unknown option '%s' (collsel penalty --help)\n",
                    argv[optind - 1]);
            return CS_EXIT_USAGE;
        }
    }
    int nargs = argc - optind;
    if (!perf_path || nargs != (table ? 0 : 1)) {
        fprintf(stderr, "collsel penalty: usage: collsel penalty TREE --perf PERF [--profile P] "
                        "[--csv] | --table --perf PERF\n");
        return CS_EXIT_USAGE;
    }
    cs_perf perf;
    cs_profile *prof;
    if (cs_sel_load("penalty", perf_path, prof_path, &perf, &prof) < 0)
        return CS_EXIT_USAGE;
    int rc = table ? penalty_table(perf_path, &perf, prof, thr, margin)
                   : penalty_tree(argv[optind], perf_path, &perf, prof, csv);
    cs_perf_free(&perf);
    cs_sel_free_profile(prof);
    return rc;
}
