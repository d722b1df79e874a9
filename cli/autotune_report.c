/* collsel autotune: the report (see autotune.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/autotune.h"
#include "common/colls.h"
#include "common/util.h"
#include "replay/mixcsv.h"
#include "select/perf.h"
#include "select/tree.h"

/* The report: the profile's shares, the mix's points and per-collective gain. */
void at_report(at_opts *o, const cs_profile *prof)
{
    double per[CS_R_N] = {0}, all = 0;
    for (size_t i = 0; i < prof->ncells; i++) {
        per[prof->cells[i].coll] += prof->cells[i].t_total;
        all += prof->cells[i].t_total;
    }
    char lay[64];
    printf("\n== where %s spends its collective time (%u ranks: %s, %.3f s run, %.3f s in "
           "collectives summed over ranks)\n",
           o->app[0], prof->nranks,
           cs_layout_str(prof->meta.nnodes, prof->meta.ranks_per_node, lay, sizeof lay),
           prof->meta.duration, all);
    for (int shown = 0; shown < 6; shown++) {
        int best = -1;
        for (int r = 0; r < CS_R_N; r++)
            if (per[r] > 0 && (best < 0 || per[r] > per[best]))
                best = r;
        if (best < 0)
            break;
        int ours = cs_coll_of_rcoll(best) >= 0;
        printf("  %-16s %5.1f %%%s\n", cs_rcoll_name(best), all > 0 ? 100 * per[best] / all : 0,
               ours ? "" : "  (not replaced by collsel)");
        per[best] = 0;
    }
    cs_mix_row rows[256], total, pred[2];
    cs_err e;
    memset(&total, 0, sizeof total);
    memset(pred, 0, sizeof pred);
    int n = cs_mix_read(o->mix, rows, 256, &total, pred, &e);
    if (n <= 0) {
        printf("(no mix to report: %s)\n", n < 0 ? e.msg : o->mix);
        return;
    }
    cs_perf perf;
    cs_perf_init(&perf);
    if (cs_perf_read(&perf, o->perf, &e) < 0)
        printf("(%s)\n", e.msg);
    cs_perf_select_arrivals(&perf, NULL, NULL); /* the rows tune took */
    printf("\n== what the tree changes (per recorded point: native time per call, the "
           "tree's method, tuned/native with its 95 %% CI)\n");
    int unmeasured = 0, unlike = 0;
    double rec_all = 0; /* the points' recorded completion, us summed over ranks */
    for (int i = 0; i < n; i++)
        rec_all += rows[i].ops * rows[i].cs * rows[i].recorded;
    for (int i = 0; i < n; i++) {
        char b[32];
        int same = strstr(rows[i].method, ".native") != NULL, measured = 0;
        for (size_t r = 0; r < perf.n && !measured; r++)
            measured = !strcmp(cs_coll_name(perf.rows[r].coll), rows[i].coll) &&
                       perf.rows[r].comm_size == rows[i].cs && perf.rows[r].msg_bytes == rows[i].bytes;
        unmeasured += !measured;
        printf("  %-9s %3u ranks %9s %8.0f ops  native %9.2f us  %-34s %.2f [%.2f, %.2f]%s%s\n",
               rows[i].coll, rows[i].cs, cs_fmt_bytes(b, sizeof b, (double)rows[i].bytes), rows[i].ops,
               rows[i].native, same ? "keeps native" : rows[i].method, rows[i].ratio, rows[i].lo,
               rows[i].hi, !same && rows[i].lo > 1.05 ? "  SLOWER" : "",
               measured ? "" : "  (not measured: the budget did not reach it)");
        if (cs_mix_unlike(rows[i].recorded, rows[i].native,
                          rec_all > 0 ? rows[i].ops * rows[i].cs * rows[i].recorded / rec_all
                                      : 0)) {
            printf("  %31s  (the application's native calls: %.2f us, %.2fx the replay's)\n", "",
                   rows[i].recorded, rows[i].recorded / rows[i].native);
            unlike++;
        }
    }
    cs_perf_free(&perf);
    if (unlike)
        printf("  %d point(s) where the application's own native calls (their recorded "
               "completion) took far more or less than the replay's: the replay does not "
               "reproduce the application's conditions there, and the expected gain below "
               "carries that uncertainty\n",
               unlike);
    if (unmeasured)
        printf("  %d of %d point(s) were not measured within the budget: the tree extends its "
               "neighbours' choices to them; --resume with a larger --budget measures them\n",
               unmeasured, n);
    printf("\n== expected gain per collective (tuned/native time, weighted by the profile; "
           "CI: every point at the low / high end of its own)\n");
    for (int c = 0; c < CS_NCOLL; c++) {
        double w = 0, t = 0, lo = 0, hi = 0;
        for (int i = 0; i < n; i++) {
            if (strcmp(rows[i].coll, cs_coll_name(c)) != 0)
                continue;
            double wi = rows[i].ops * rows[i].native;
            w += wi, t += wi * rows[i].ratio, lo += wi * rows[i].lo, hi += wi * rows[i].hi;
        }
        if (w > 0)
            printf("  %-9s %.3f [%.3f, %.3f]  (%s)\n", cs_coll_name(c), t / w, lo / w, hi / w,
                   t / w < 0.95 ? "faster" : t / w > 1.05 ? "slower" : "about the same");
    }
    if (total.native > 0)
        printf("  all       %.3f [%.3f, %.3f]  (the recorded calls: native %.3f ms, tuned %.3f ms "
               "per rank)\n",
               total.ratio, total.lo, total.hi, total.native * 1e-3, total.tuned * 1e-3);
    if (pred[0].native > 0 && pred[1].native > 0) {
        double wait = pred[1].native - pred[0].native; /* recorded wait of the replayed calls,
                                                          plus the collectives not replayed */
        printf("\n== expected gain under the application's arrivals (%s; the times above are "
               "completion: last exit - last arrival)\n"
               "  on completion time (what the tree changes):         %.3f [%.3f, %.3f]\n"
               "  on the application's collective time (recorded wait + tuned completion, "
               "the wait that uneven exits cause moved with the methods): %.3f [%.3f, %.3f]\n"
               "  (of %.3f s in collectives summed over ranks, %.3f s is wait or not replayed)\n",
               pred[0].method, pred[0].ratio, pred[0].lo, pred[0].hi, pred[1].ratio, pred[1].lo,
               pred[1].hi, pred[1].native * 1e-6, wait * 1e-6);
    }
    char *words[] = {o->self, "exec", "--tree", (char *)o->tree, "--", NULL};
    char *argv[2 * MAX_ARGS];
    at_build_argv(o, argv, words, 1);
    printf("\n== run the application with the tree:\n  ");
    at_print_cmd(stdout, argv);
    printf("\n");
}
