/* collsel-replay --mix: replay a profile's mix of the collectives collsel
 * replaces natively (registry entry 0) and through a decision tree (what
 * the shim does with COLLSEL_TREE: cs_tree_decide, first applicable
 * candidate, else native; the decision is taken once per root, as the shim
 * caches it), in the same run.
 *
 * Each point (a cell's exact size) is measured exactly as collsel-replay
 * measures it (one shared code path: the same groups working at once
 * (cs_replay_comm), the same cs_rop buffers, datatypes and root rotation, the same round size from cs_time_round_size on native, the
 * same rounds - back-to-back calls between a barrier and an allreduce, max
 * over ranks - and the interleaving of stage 2, cs_time_interleaved): native
 * and tuned rounds alternate, N T, T N, N T, ..., so drifting load hits both
 * sides alike.  A point's time per call is the median over its rounds; its
 * ratio is the median of the ratios tuned/native of the paired rounds (each
 * pair ran back to back), with the 95 % CI of that median as its spread.
 *
 * Every point gets at least --rounds rounds per side (meaningful even for
 * points with few recorded calls); the rest of the budget goes half in
 * equal shares, half in proportion to the point's share of the profile's
 * time (operations x native time per call).  Totals weight each point's
 * time per call by the profile's operations (the time the application would
 * spend in these collectives; tuned = native x the point's ratio); the
 * replayed totals are plain sums.
 *
 * Under an arrival pattern (--arrivals; by default "recorded" for a profile
 * with arrival data) every call is timed on its own under the pattern and
 * the times are completions (replay/pattern.h).  The prediction is then
 * given twice: on completion, sum(C_i x ratio_i) / sum(C_i), and on the
 * application's collective time, (T - sum(T_i) + sum(W_i + C_i x ratio_i))
 * / T, where T is the profile's time in every collective, T_i, W_i, C_i a
 * replayed point's recorded time, wait and completion (a cell without
 * arrival data: all completion), plus what the point's exit skew changes
 * (exits_change: the wait its uneven exits add at the next calls is not
 * fixed).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/pick.h"
#include "mixcsv.h"
#include "op.h"
#include "pattern.h"
#include "replay.h"
#include "timing.h"

#define MIX_MAX_CYCLES 2000
#define MIX_ROUND_OVERHEAD 40e-6 /* barrier + allreduce of a round (budgeting only) */
#define MIX_CALL_OVERHEAD 30e-6  /* under a pattern: a call's allreduce and slack (budgeting) */

typedef struct item {
    const cs_point *p;
    int r;                   /* calls per round */
    double est;              /* native seconds per call (round sizing) */
    int cycles;              /* rounds per side */
    double med[2];           /* median over rounds, seconds per call: [0] native, [1] tuned */
    double ratio, rlo, rhi;  /* median of the paired ratios tuned/native, its 95 % CI */
    double rep[2];           /* seconds replayed per side */
    double skew[2];          /* under arrivals: median exit skew per call, s (native, tuned) */
    int same;                /* the tree runs native at every root */
    char method[96];         /* the tree's choice (first root) */
    cs_pattern pat;          /* the arrival pattern (with the point's vectors) */
    cs_pat_run run;
} item;

/* Tree-local id -> registry index, per collective (-1: unknown name). */
static int *tree_map(const cs_tree *t, int coll, int *n, int rank)
{
    int *map = cs_pick_map(t, coll, n);
    for (int i = 0; map && i < *n; i++) {
        const char *name = cs_tree_method_name(t, coll, i);
        if (map[i] < 0 && rank == 0)
            fprintf(stderr, "collsel-replay: tree method '%s' is not in this build's registry; "
                            "it is skipped (the next candidate or native is used)\n",
                    name ? name : "?");
    }
    return map;
}

/* Every rank waits for the point's group (asleep if not in it). */
static int world_sync(int rc, int idle)
{
    MPI_Request req;
    int all = rc;
    if (PMPI_Iallreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req) != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    int w = cs_replay_wait(&req, idle);
    return w != MPI_SUCCESS ? w : all;
}

/* The point's measurement: cycles of a native and a tuned round (under
 * the pattern when arr). */
static int measure_item(item *it, cs_rop *op, MPI_Comm sync, double max_seconds, int min_cycles,
                        int arr)
{
    int nm;
    cs_rop_with w[2] = {{op, &cs_methods(op->coll, &nm)[0]}, {op, NULL}};
    cs_timed f[2] = {{cs_rop_run_with, &w[0], 0}, {cs_rop_run_with, &w[1], 0}};
    cs_timing_opts io;
    memset(&io, 0, sizeof io);
    io.calls_per_round = it->r;
    io.warmup = 2;
    io.min_rounds = min_cycles < it->cycles ? min_cycles : it->cycles;
    io.max_rounds = it->cycles;
    io.max_seconds = max_seconds;
    io.arrivals = arr ? &it->run : NULL;
    cs_timing t[2];
    double *x = malloc(sizeof *x * 3 * (size_t)it->cycles);
    if (!x)
        return MPI_ERR_NO_MEM;
    int rc = cs_time_interleaved(sync, f, 2, &io, t, x);
    if (rc == MPI_SUCCESS) {
        int c = t[0].rounds;
        double *q = x + 2 * (size_t)it->cycles;
        for (int k = 0; k < c; k++) {
            double nv = x[k], tv = x[it->cycles + k];
            q[k] = nv > 0 ? tv / nv : 1;
            it->rep[0] += nv * it->r;
            it->rep[1] += tv * it->r;
        }
        it->cycles = c;
        it->med[0] = t[0].median_us * 1e-6;
        it->med[1] = t[1].median_us * 1e-6;
        it->skew[0] = t[0].skew_us * 1e-6;
        it->skew[1] = t[1].skew_us * 1e-6;
        it->ratio = cs_median_sorted(q, c);
        cs_median_ci(q, c, &it->rlo, &it->rhi);
    }
    free(x);
    return rc;
}

/* The prediction under arrivals (see the top): [0] on completion, [1] on
 * the application's collective time; each {recorded, predicted, lo, hi}
 * in seconds summed over ranks. */
typedef struct prediction {
    double v[2][4];
    double wait, t_all; /* recorded wait of the replayed points; every collective */
    size_t unrecorded;  /* points without arrival data (all taken as completion) */
    double exits[2];    /* wait the points' uneven exits add at the next calls: recorded,
                           predicted (q x recorded, with the tuned ratio) */
    double change;      /* what the exits change in the application time (exits_change) */
} prediction;

/* The exit skew's share of the application time (profiles of format 4):
 * a point's ranks leave unevenly (their lags behind the last exit, lag_s)
 * and the early ones wait that much more at the next call (causes_s: at
 * most the lags; less where an early leaver had more work to do).  Under a
 * method whose last exit comes r times as long after the last arrival as
 * native's and whose exit skew (last - first exit) is q times native's
 * (both measured here, under the pattern), the ranks' completions sum to
 * about r (C + lag_s) - q lag_s (C: the recorded completion, counted by
 * the ratio as r C) and the next calls' wait loses (1 - q) causes_s.  The
 * change against taking the wait as fixed: (r - q) lag_s - (1 - q)
 * causes_s.  Where both are the lags (balanced work) that is (r - 1) lag_s
 * whatever q: a faster call shortens the lags, a more even release only
 * moves the waiting into the call.  Native kept: no change. */
static double skew_ratio(const item *it, double r)
{
    if (it->same)
        return 1;
    double q = it->skew[0] > 50e-9 ? it->skew[1] / it->skew[0] : r; /* none: scales with r */
    return q > 4 ? 4 : q;
}

static double exits_change(const item *it, double r)
{
    const cs_point *p = it->p;
    if (it->same)
        return 0;
    double q = skew_ratio(it, r);
    return (r - q) * p->lag_s - (1 - q) * p->causes_s;
}

static void predict(const cs_points *pts, const item *it, size_t n, prediction *pr)
{
    memset(pr, 0, sizeof *pr);
    pr->t_all = pts->t_all;
    double rest = pts->t_all;
    for (size_t i = 0; i < n; i++) {
        const cs_point *p = it[i].p;
        double r[3] = {it[i].ratio, it[i].rlo, it[i].rhi};
        pr->v[0][0] += p->compl_s;
        for (int k = 0; k < 3; k++) {
            double t = p->wait_s + p->compl_s * r[k] + exits_change(&it[i], r[k]);
            pr->v[0][1 + k] += p->compl_s * r[k];
            pr->v[1][1 + k] += t > 0 ? t : 0;
        }
        pr->exits[0] += p->causes_s;
        pr->exits[1] += skew_ratio(&it[i], it[i].ratio) * p->causes_s;
        pr->change += exits_change(&it[i], it[i].ratio);
        pr->wait += p->wait_s;
        pr->unrecorded += !p->arr;
        rest -= p->t_s;
    }
    pr->v[1][0] = pts->t_all;
    for (int k = 1; k < 4; k++)
        pr->v[1][k] += rest > 0 ? rest : 0;
}

/* The application's own native calls at point p, microseconds per rank
 * call: their recorded completion (0: not known - a grid point, a cell
 * without arrival data, or a mix not under a pattern, whose per-call times
 * are not completions).  Against the replay's native completion per call
 * it says whether the replay reproduces the application's conditions: it
 * is a mean over ranks against the replay's last exit, so about 1 or below
 * where it does. */
static double recorded_us(const cs_point *p, int arr)
{
    double calls = p->ops * p->comm_size;
    return arr && p->arr && calls > 0 ? p->compl_s / calls * 1e6 : 0;
}

/* The replayed points' recorded completion (seconds summed over ranks). */
static double recorded_all(const item *it, size_t n)
{
    double all = 0;
    for (size_t i = 0; i < n; i++)
        all += it[i].p->arr ? it[i].p->compl_s : 0;
    return all;
}

static double ratio_of(const prediction *pr, int w, int k)
{
    return pr->v[w][0] > 0 ? pr->v[w][k] / pr->v[w][0] : 0;
}

static void print_prediction(const cs_replay_opts *o, const prediction *pr, const char *pat)
{
    static const char *what[2] = {"completion", "application"};
    if (o->format == CS_OUT_CSV) {
        for (int w = 0; w < 2; w++) /* the table's columns: times in us, ratio, its CI */
            printf("%s,,,,,,%.3f,%.3f,%s,,%.4f,%.4f,%.4f,0\n", what[w], pr->v[w][0] * 1e6,
                   pr->v[w][1] * 1e6, pat, ratio_of(pr, w, 2), ratio_of(pr, w, 3),
                   ratio_of(pr, w, 1));
        /* the wait the replayed points' uneven exits cause: recorded, predicted */
        double er = pr->exits[0] != 0 ? pr->exits[1] / pr->exits[0] : 1;
        printf("exits,,,,,,%.3f,%.3f,%s,,%.4f,%.4f,%.4f,0\n", pr->exits[0] * 1e6,
               pr->exits[1] * 1e6, pat, er, er, er);
        return;
    }
    if (o->format == CS_OUT_JSON) {
        printf(",\n  \"arrivals\": \"%s\",\n", pat);
        for (int w = 0; w < 2; w++)
            printf("  \"predicted_%s\": {\"recorded_s\": %.6f, \"tuned_s\": %.6f, "
                   "\"ratio\": %.4f, \"ratio_lo\": %.4f, \"ratio_hi\": %.4f}%s\n",
                   what[w], pr->v[w][0], pr->v[w][1], ratio_of(pr, w, 1), ratio_of(pr, w, 2),
                   ratio_of(pr, w, 3), ",");
        printf("  \"recorded_wait_s\": %.6f,\n  \"exits_wait_s\": %.6f,\n"
               "  \"exits_wait_tuned_s\": %.6f,\n  \"exits_change_s\": %.6f,\n"
               "  \"points_without_arrivals\": %zu\n}\n",
               pr->wait, pr->exits[0], pr->exits[1], pr->change, pr->unrecorded);
        return;
    }
    printf("\nunder arrivals %s (times per call above: completion, last exit - last arrival)\n"
           "expected gain on completion time (what the tree changes): %.3f [%.3f, %.3f]\n"
           "  (recorded completion %.6f s -> %.6f s, summed over ranks)\n"
           "expected gain on the application's collective time (recorded wait + tuned "
           "completion; every collective, those not replayed unchanged): %.3f [%.3f, %.3f]\n"
           "  (recorded %.6f s, of which wait %.6f s (%.0f %%))\n",
           pat, ratio_of(pr, 0, 1), ratio_of(pr, 0, 2), ratio_of(pr, 0, 3), pr->v[0][0],
           pr->v[0][1], ratio_of(pr, 1, 1), ratio_of(pr, 1, 2), ratio_of(pr, 1, 3), pr->t_all,
           pr->wait, pr->t_all > 0 ? 100 * pr->wait / pr->t_all : 0);
    if (pr->exits[0] != 0 || pr->exits[1] != 0)
        printf("  (of that wait, %.6f s is the replayed points' uneven exits making ranks wait "
               "at the next call, %.6f s with the tree's methods; with the ranks' lags in the "
               "calls, the tree's exits change the whole by %+.6f s)\n",
               pr->exits[0], pr->exits[1], pr->change);
    if (pr->unrecorded)
        printf("  (%zu point(s) without arrival data: all their time taken as completion)\n",
               pr->unrecorded);
}

static void print_table(const cs_replay_opts *o, item *it, size_t n, double tot[2], double rep[2],
                        double tlo, double thi, int more, int arr)
{
    double rec_all = recorded_all(it, n);
    double ratio = tot[0] > 0 ? tot[1] / tot[0] : 0;
    char b[32];
    if (o->format == CS_OUT_CSV) {
        printf("collective,comm_size,msg_bytes,root_mode,ops,calls,native_us,tuned_us,method,"
               "rounds,ratio_lo,ratio_hi,ratio,slower,recorded_us,unlike\n");
    } else if (o->format == CS_OUT_JSON) {
        printf("{\n  \"min_rounds\": %d,\n  \"points\": [\n", o->rounds);
    } else {
        printf("%-9s %5s %10s %8s %9s %6s %8s %11s %11s %7s %-17s  %s\n", "coll", "ranks", "size",
               "root", "ops", "rounds", "calls", "native_us", "tuned_us", "ratio", "[95% CI]",
               "method (tuned)");
    }
    for (size_t i = 0; i < n; i++) {
        const cs_point *p = it[i].p;
        double nu = it[i].med[0] * 1e6, tu = it[i].med[1] * 1e6, r = it[i].ratio;
        double ru = recorded_us(p, arr);
        long calls = (long)it[i].cycles * it[i].r;
        int slow = r > 1.05 && !it[i].same;
        const char *coll = cs_coll_name(p->coll), *rm = cs_root_mode_name(p->root_mode);
        if (o->format == CS_OUT_CSV)
            printf("%s,%u,%llu,%s,%.6g,%ld,%.3f,%.3f,%s,%d,%.4f,%.4f,%.4f,%d,%.3f,%d\n", coll,
                   p->comm_size, (unsigned long long)p->bytes, rm, p->ops, calls, nu, tu,
                   it[i].method, it[i].cycles, it[i].rlo, it[i].rhi, r, slow, ru,
                   cs_mix_unlike(ru, nu, rec_all > 0 ? p->compl_s / rec_all : 0));
        else if (o->format == CS_OUT_JSON)
            printf("    {\"collective\": \"%s\", \"comm_size\": %u, \"msg_bytes\": %llu, "
                   "\"root_mode\": \"%s\", \"ops\": %.6g, \"rounds\": %d, \"calls\": %ld, "
                   "\"native_us\": %.3f, \"tuned_us\": %.3f, \"method\": \"%s\", "
                   "\"same_as_native\": %s, \"ratio\": %.4f, \"ratio_lo\": %.4f, "
                   "\"ratio_hi\": %.4f, \"slower\": %s, \"recorded_us\": %.3f, "
                   "\"unlike\": %s}%s\n",
                   coll, p->comm_size, (unsigned long long)p->bytes, rm, p->ops, it[i].cycles,
                   calls, nu, tu, it[i].method, it[i].same ? "true" : "false", r, it[i].rlo,
                   it[i].rhi, slow ? "true" : "false", ru,
                   cs_mix_unlike(ru, nu, rec_all > 0 ? p->compl_s / rec_all : 0) ? "true" : "false",
                   i + 1 < n ? "," : "");
        else {
            char ci[40];
            snprintf(ci, sizeof ci, "[%.3f, %.3f]", it[i].rlo, it[i].rhi);
            printf("%-9s %5u %10s %8s %9.4g %6d %8ld %11.2f %11.2f %7.3f %-17s  %s%s\n", coll,
                   p->comm_size,
                   !cs_coll_sized(p->coll) ? "-" : cs_fmt_bytes(b, sizeof b, (double)p->bytes), rm,
                   p->ops, it[i].cycles, calls, nu, tu, r, ci, it[i].method,
                   it[i].same ? "  (= native: the ratio shows the noise)"
                   : !slow ? ""
                   : it[i].rlo > 1 ? "  <-- SLOWER than native by > 5 %"
                                   : "  <-- > 5 % slower, within the spread (CI includes 1)");
        }
    }
    if (o->format == CS_OUT_CSV)
        printf("total,,,,,,%.3f,%.3f,,,%.4f,%.4f,%.4f,%d\n", tot[0] * 1e6, tot[1] * 1e6, tlo, thi,
               ratio, ratio > 1.05);
    else if (o->format == CS_OUT_JSON)
        printf("  ],\n  \"native_s\": %.6f,\n  \"tuned_s\": %.6f,\n  \"ratio\": %.4f,\n"
               "  \"ratio_lo\": %.4f,\n  \"ratio_hi\": %.4f,\n"
               "  \"replayed_native_s\": %.6f,\n  \"replayed_tuned_s\": %.6f%s",
               tot[0], tot[1], ratio, tlo, thi, rep[0], rep[1], more ? "" : "\n}\n");
    else
        printf("\nprofile-weighted time in these collectives: native %.6f s, tuned %.6f s, "
               "ratio tuned/native %.3f\n(every point at the low / high end of its CI: %.3f / "
               "%.3f; per point: medians over >= %d rounds per side, N and T rounds "
               "alternating; ratio = median of the paired rounds' ratios; tuned total =\n"
               "sum of operations x native time x ratio)\nreplayed: native "
               "%.4f s, tuned %.4f s, ratio %.3f\n",
               tot[0], tot[1], ratio, tlo, thi, o->rounds, rep[0], rep[1],
               rep[0] > 0 ? rep[1] / rep[0] : 0);
}

/* Set up point i on its group g (collective over g.sync): the operation
 * on g.comm, the tree's method at every root the rotation uses, the round
 * size on native.  Returns this rank's MPI error code. */
static int setup_item(item *it, cs_rop *op, cs_replay_group g, const cs_tree *tree,
                      const int *map, int nmap, const cs_replay_opts *o)
{
    MPI_Comm comm = g.comm;
    const cs_point *p = it->p;
    int nm, rc = cs_rop_init(op, (enum cs_coll)p->coll, comm, p->bytes, p->root_mode, p->root);
    const cs_method *nat = &cs_methods((enum cs_coll)p->coll, &nm)[0];
    if (rc == MPI_SUCCESS && cs_rop_set_tree(op, tree, map, nmap) < 0)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS)
        return rc;
    const cs_method *m = cs_rop_tree_pick(op, 0);
    snprintf(it->method, sizeof it->method, "%s", m->name);
    it->same = m == nat;
    for (int r = 1; p->root_mode == CS_ROOT_VARYING && r < op->call.size; r++) {
        const cs_method *mr = cs_rop_tree_pick(op, r);
        it->same &= mr == nat;
        if (mr != m)
            snprintf(it->method, sizeof it->method, "%s (root 0; varies)", m->name);
    }
    cs_rop_with wn = {op, nat};
    cs_timed fn = {cs_rop_run_with, &wn, 0};
    cs_timing_opts so;
    memset(&so, 0, sizeof so);
    so.warmup = 3;
    rc = cs_time_round_size(g.sync, &fn, &so, &it->r, &it->est);
    if (rc == MPI_SUCCESS && o->npats > 0) { /* the pattern, with the point's vectors */
        int grank;
        PMPI_Comm_rank(comm, &grank);
        it->pat = o->pats[0];
        if (it->pat.kind == CS_PAT_RECORDED)
            cs_pattern_set_samples(&it->pat, p->late, p->nvec, (int)p->vranks);
        rc = cs_pat_run_init(&it->run, &it->pat, g.sync, grank, (int)p->comm_size);
        if (rc == MPI_SUCCESS && o->work_kib && p->gap_s > 0) {
            double w = p->gap_s < CS_REPLAY_WORK_MAX ? p->gap_s : CS_REPLAY_WORK_MAX;
            if (cs_pat_set_work(&it->run, w, o->work_kib) < 0)
                rc = MPI_ERR_NO_MEM;
            it->est += w;
        }
        /* a call costs its completion, a bookkeeping allreduce, the slack
         * and the pattern's delays; rounds are at most CS_PAT_ROUND_CALLS */
        it->est += MIX_CALL_OVERHEAD + cs_pattern_max(&it->pat);
        if (it->r > CS_PAT_ROUND_CALLS)
            it->r = CS_PAT_ROUND_CALLS;
    }
    return rc;
}

/* Rank 0: rounds per point within the budget (every point gets o->rounds,
 * what is left goes half evenly, half by the profile's weight). */
static void plan_cycles(const cs_replay_opts *o, const item *it, size_t n, double t_start,
                        int *cycles)
{
    double left = o->budget - (PMPI_Wtime() - t_start), base = 0, wsum = 0;
    for (size_t i = 0; i < n; i++) {
        double cost = 2 * (it[i].r * it[i].est + MIX_ROUND_OVERHEAD);
        base += o->rounds * cost;
        wsum += it[i].p->ops * it[i].est;
    }
    double extra = left - base > 0 ? left - base : 0;
    for (size_t i = 0; i < n; i++) {
        double cost = 2 * (it[i].r * it[i].est + MIX_ROUND_OVERHEAD);
        double share = extra / 2 / (double)n +
                       (wsum > 0 ? extra / 2 * it[i].p->ops * it[i].est / wsum : 0);
        double c = o->rounds + floor(share / cost);
        cycles[i] = c > MIX_MAX_CYCLES ? MIX_MAX_CYCLES : (int)c;
    }
}

/* Text, under a pattern: the points where the application's own native
 * calls took far more or less than the replay's (recorded_us). */
static void print_fidelity(const item *it, size_t n)
{
    int head = 0;
    double all = recorded_all(it, n);
    for (size_t i = 0; i < n; i++) {
        const cs_point *p = it[i].p;
        double ru = recorded_us(p, 1), nu = it[i].med[0] * 1e6;
        if (!cs_mix_unlike(ru, nu, all > 0 ? p->compl_s / all : 0))
            continue;
        char b[32];
        if (!head++)
            printf("\nwhere the replay does not reproduce the application's native calls (their "
                   "recorded completion per rank call against the replay's native completion "
                   "per call): the predictions there carry that uncertainty\n");
        printf("  %-9s %5u ranks %10s: application %.2f us, replay %.2f us (%.2fx)%s\n",
               cs_coll_name(p->coll), p->comm_size,
               !cs_coll_sized(p->coll) ? "-" : cs_fmt_bytes(b, sizeof b, (double)p->bytes), ru,
               nu, ru / nu, it[i].same ? " (kept native)" : "");
    }
}

/* Rank 0: the profile-weighted totals and the table (and the prediction
 * under arrivals). */
static void report(const cs_replay_opts *o, const cs_points *pts, item *it, size_t n)
{
    double tot[2] = {0, 0}, rep[2] = {0, 0}, lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        for (int s = 0; s < 2; s++)
            rep[s] += it[i].rep[s];
        /* tuned: native x the paired ratio (robust to drift between the
         * rounds; consistent with the per-point ratios) */
        tot[0] += it[i].p->ops * it[i].med[0];
        tot[1] += it[i].p->ops * it[i].med[0] * it[i].ratio;
        lo += it[i].p->ops * it[i].med[0] * it[i].rlo;
        hi += it[i].p->ops * it[i].med[0] * it[i].rhi;
    }
    int arr = o->npats > 0;
    print_table(o, it, n, tot, rep, tot[0] > 0 ? lo / tot[0] : 0, tot[0] > 0 ? hi / tot[0] : 0,
                arr, arr);
    if (arr && o->format == CS_OUT_TEXT)
        print_fidelity(it, n);
    if (arr) {
        prediction pr;
        char name[CS_PAT_NAME_MAX];
        predict(pts, it, n, &pr);
        print_prediction(o, &pr, cs_pattern_name(&o->pats[0], name, sizeof name));
    }
    fflush(stdout);
}

int cs_replay_mix(const cs_replay_opts *o, const cs_points *pts, const cs_tree *tree)
{
    size_t n = 0;
    item *it = calloc(pts->n ? pts->n : 1, sizeof *it);
    cs_rop *ops = calloc(pts->n ? pts->n : 1, sizeof *ops);
    int *map[CS_NCOLL] = {0}, nmap[CS_NCOLL] = {0}, rc = MPI_SUCCESS, status = 0;
    double t_start = PMPI_Wtime();
    if (!it || !ops)
        goto out;
    for (int c = 0; c < CS_NCOLL; c++)
        if (!(map[c] = tree_map(tree, c, &nmap[c], o->rank)))
            goto out;
    for (size_t i = 0; i < pts->n; i++)
        if (pts->p[i].comm_size <= (uint32_t)o->size && pts->p[i].ops > 0)
            it[n++].p = &pts->p[i];
    if (o->rank == 0 && n < pts->n)
        fprintf(stderr, "collsel-replay: %zu point(s) need more than %d ranks and are skipped\n",
                pts->n - n, o->size);
    if (n == 0) {
        if (o->rank == 0)
            fprintf(stderr, "collsel-replay: --mix: nothing to replay at %d ranks\n", o->size);
        status = 1;
        goto out;
    }
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        cs_replay_group g = cs_replay_comm((int)it[i].p->comm_size, o->alone);
        int c = it[i].p->coll, mine = MPI_SUCCESS;
        if (g.comm != MPI_COMM_NULL)
            mine = setup_item(&it[i], &ops[i], g, tree, map[c], nmap[c], o);
        rc = world_sync(mine, g.comm == MPI_COMM_NULL);
    }
    /* Rounds per point, on world rank 0 (in every group: it has every
     * point's sizing), shared with everybody. */
    int *cycles = malloc(sizeof *cycles * n);
    if (!cycles)
        PMPI_Abort(MPI_COMM_WORLD, 1); /* the ranks would disagree */
    if (o->rank == 0)
        plan_cycles(o, it, n, t_start, cycles);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(cycles, (int)n, MPI_INT, 0, MPI_COMM_WORLD);
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        cs_replay_group g = cs_replay_comm((int)it[i].p->comm_size, o->alone);
        int mine = MPI_SUCCESS;
        it[i].cycles = cycles[i];
        if (g.comm != MPI_COMM_NULL) {
            /* a bound in case the machine turns slow: 3 x the plan */
            double plan = cycles[i] * 2 * (it[i].r * it[i].est + MIX_ROUND_OVERHEAD);
            mine = measure_item(&it[i], &ops[i], g.sync, 3 * plan + 0.05, o->rounds,
                                o->npats > 0);
        }
        rc = world_sync(mine, g.comm == MPI_COMM_NULL);
    }
    free(cycles);
    if (rc == MPI_SUCCESS && o->rank == 0)
        report(o, pts, it, n);
out:
    if (!it || !ops || rc != MPI_SUCCESS)
        status = 1;
    if (rc != MPI_SUCCESS && o->rank == 0)
        fprintf(stderr, "collsel-replay: --mix: MPI error %d\n", rc);
    else if ((!it || !ops) && o->rank == 0)
        fprintf(stderr, "collsel-replay: --mix: out of memory\n");
    for (size_t i = 0; ops && i < n; i++)
        cs_rop_free(&ops[i]);
    for (int c = 0; c < CS_NCOLL; c++)
        free(map[c]);
    free(it);
    free(ops);
    return status;
}
