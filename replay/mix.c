/* collsel-replay --mix: replay a profile's Bcast/Reduce/Barrier mix natively
 * (registry entry 0) and through a decision tree (what the shim does with
 * COLLSEL_TREE: cs_tree_decide, first applicable candidate, else native),
 * in the same run.
 *
 * Each point (a cell's exact size) gets calls in proportion to its recorded
 * operations, scaled so that the whole replay fits the time budget (a short
 * native probe of every point gives the scale, rescaled after every round
 * when the machine turns out slower or faster; at least one call per point).
 * Rounds alternate native and tuned passes over the whole mix, in the order
 * N T T N N T ... (each side first in half of the rounds, so a drift of the
 * machine cancels), so that a noisy machine hurts both sides alike.  A
 * point's time in a pass is the maximum over its ranks; its time per call is
 * the median over rounds (robust to a round hit by another process).  Totals
 * weight each point's time per call by the profile's operations (the time
 * the application would spend in these collectives); the replayed totals
 * are plain sums.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../select/tree.h"
#include "op.h"
#include "replay.h"
#include "timing.h"

typedef struct item {
    const cs_point *p;
    long calls;              /* in the current round, per side */
    long total;              /* calls per side, all rounds */
    double *t[2];            /* seconds per call in each round: [0] native, [1] tuned */
    double rep[2];           /* seconds replayed, all rounds */
    double med[2];           /* median over rounds, seconds per call */
    char method[96];         /* the tree's choice (first root) */
} item;

/* Run calls of op through run(), timed, max over the point's ranks. */
static int timed(MPI_Comm comm, cs_rop *op, cs_timed_fn run, long calls, double *sec)
{
    int rc = PMPI_Barrier(comm);
    double t0 = PMPI_Wtime();
    for (long i = 0; i < calls && rc == MPI_SUCCESS; i++)
        rc = run(op, i);
    double dt = PMPI_Wtime() - t0;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(&dt, sec, 1, MPI_DOUBLE, MPI_MAX, comm);
    return rc;
}

/* Tree-local id -> registry index, per collective (-1: unknown name). */
static int *tree_map(const cs_tree *t, int coll, int *n, int rank)
{
    *n = cs_tree_has(t, coll) ? cs_tree_nmethods(t, coll) : 0;
    int *map = malloc(sizeof *map * (size_t)(*n > 0 ? *n : 1));
    for (int i = 0; map && i < *n; i++) {
        const char *name = cs_tree_method_name(t, coll, i);
        map[i] = name ? cs_method_index((enum cs_coll)coll, name) : -1;
        if (map[i] < 0 && rank == 0)
            fprintf(stderr, "collsel-replay: tree method '%s' is not in this build's registry; "
                            "it is skipped (the next candidate or native is used)\n",
                    name ? name : "?");
    }
    return map;
}

/* One pass over all items with side s (0 native, 1 tuned) into round r;
 * probe: time `probe_calls` native calls per item into med[0]. */
static int pass(item *it, size_t n, cs_rop *ops, int side, int r, long probe_calls)
{
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        MPI_Comm comm = cs_replay_comm((int)it[i].p->comm_size);
        if (comm != MPI_COMM_NULL) {
            double sec = 0;
            long calls = probe_calls ? probe_calls : it[i].calls;
            rc = timed(comm, &ops[i], side ? cs_rop_run_tree : cs_rop_run, calls, &sec);
            if (probe_calls) {
                it[i].med[0] = sec / calls;
            } else {
                it[i].t[side][r] = sec / calls;
                it[i].rep[side] += sec;
            }
        }
        MPI_Request req; /* the other ranks wait here, asleep */
        if (rc == MPI_SUCCESS)
            rc = PMPI_Ibarrier(MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS)
            rc = cs_replay_wait(&req, comm == MPI_COMM_NULL);
    }
    return rc;
}

static void print_table(const cs_replay_opts *o, item *it, size_t n, double tot[2],
                        double rep[2])
{
    double ratio = tot[0] > 0 ? tot[1] / tot[0] : 0;
    char b[32];
    if (o->format == CS_OUT_CSV) {
        printf("collective,comm_size,msg_bytes,root_mode,ops,calls,native_us,tuned_us,method,"
               "ratio,slower\n");
    } else if (o->format == CS_OUT_JSON) {
        printf("{\n  \"rounds\": %d,\n  \"points\": [\n", o->rounds);
    } else {
        printf("%-8s %5s %10s %8s %10s %8s %11s %11s %7s  %s\n", "coll", "ranks", "size", "root",
               "ops", "calls", "native_us", "tuned_us", "ratio", "method (tuned)");
    }
    for (size_t i = 0; i < n; i++) {
        const cs_point *p = it[i].p;
        double nu = it[i].med[0] * 1e6, tu = it[i].med[1] * 1e6, r = nu > 0 ? tu / nu : 0;
        int slow = r > 1.05;
        const char *coll = cs_coll_name(p->coll), *rm = cs_root_mode_name(p->root_mode);
        if (o->format == CS_OUT_CSV)
            printf("%s,%u,%llu,%s,%.6g,%ld,%.3f,%.3f,%s,%.4f,%d\n", coll, p->comm_size,
                   (unsigned long long)p->bytes, rm, p->ops, it[i].total, nu, tu,
                   it[i].method, r, slow);
        else if (o->format == CS_OUT_JSON)
            printf("    {\"collective\": \"%s\", \"comm_size\": %u, \"msg_bytes\": %llu, "
                   "\"root_mode\": \"%s\", \"ops\": %.6g, \"calls\": %ld, \"native_us\": %.3f, "
                   "\"tuned_us\": %.3f, \"method\": \"%s\", \"ratio\": %.4f, \"slower\": %s}%s\n",
                   coll, p->comm_size, (unsigned long long)p->bytes, rm, p->ops,
                   it[i].total, nu, tu, it[i].method, r, slow ? "true" : "false",
                   i + 1 < n ? "," : "");
        else
            printf("%-8s %5u %10s %8s %10.4g %8ld %11.2f %11.2f %7.3f  %s%s\n", coll,
                   p->comm_size, p->coll == CS_BARRIER ? "-" : cs_fmt_bytes(b, sizeof b, (double)p->bytes),
                   rm, p->ops, it[i].total, nu, tu, r, it[i].method,
                   slow ? "  <-- SLOWER than native by > 5 %" : "");
    }
    if (o->format == CS_OUT_CSV)
        printf("total,,,,,,%.3f,%.3f,,%.4f,%d\n", tot[0] * 1e6, tot[1] * 1e6, ratio,
               ratio > 1.05);
    else if (o->format == CS_OUT_JSON)
        printf("  ],\n  \"native_s\": %.6f,\n  \"tuned_s\": %.6f,\n  \"ratio\": %.4f,\n"
               "  \"replayed_native_s\": %.6f,\n  \"replayed_tuned_s\": %.6f\n}\n",
               tot[0], tot[1], ratio, rep[0], rep[1]);
    else
        printf("\nprofile-weighted time in these collectives: native %.6f s, tuned %.6f s, "
               "ratio tuned/native %.3f\n(per call: median over %d alternating rounds per side)\nreplayed: native "
               "%.4f s, tuned %.4f s, ratio %.3f\n",
               tot[0], tot[1], ratio, o->rounds, rep[0], rep[1], rep[0] > 0 ? rep[1] / rep[0] : 0);
}

int cs_replay_mix(const cs_replay_opts *o, const cs_points *pts, const cs_tree *tree)
{
    size_t n = 0;
    item *it = calloc(pts->n ? pts->n : 1, sizeof *it);
    cs_rop *ops = calloc(pts->n ? pts->n : 1, sizeof *ops);
    int *map[CS_NCOLL] = {0}, nmap[CS_NCOLL] = {0}, rc = MPI_SUCCESS, status = 0;
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
    /* Set up every point on its group (collective over the group). */
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        const cs_point *p = it[i].p;
        MPI_Comm comm = cs_replay_comm((int)p->comm_size);
        if (comm == MPI_COMM_NULL)
            continue;
        rc = cs_rop_init(&ops[i], (enum cs_coll)p->coll, comm, p->bytes, p->root_mode, p->root);
        int nm;
        ops[i].m = &cs_methods(ops[i].coll, &nm)[0];
        ops[i].tree = tree;
        ops[i].tree_map = map[p->coll];
        ops[i].tree_nmap = nmap[p->coll];
        const cs_method *m = cs_rop_tree_pick(&ops[i], 0);
        snprintf(it[i].method, sizeof it[i].method, "%s", m->name);
        for (int r = 1; p->root_mode == CS_ROOT_VARYING && r < ops[i].call.size; r++)
            if (cs_rop_tree_pick(&ops[i], r) != m) {
                snprintf(it[i].method, sizeof it[i].method, "%s (root 0; varies)", m->name);
                break;
            }
    }
    for (size_t i = 0; i < n; i++)
        if (!(it[i].t[0] = calloc(2 * (size_t)o->rounds, sizeof(double))))
            PMPI_Abort(MPI_COMM_WORLD, 1);
        else
            it[i].t[1] = it[i].t[0] + o->rounds;
    /* Probe: native time per call of every point (after a warm-up). */
    if (rc == MPI_SUCCESS)
        rc = pass(it, n, ops, 0, 0, 2);
    if (rc == MPI_SUCCESS)
        rc = pass(it, n, ops, 0, 0, 3);
    /* Scale on world rank 0 (in every group: it has every point's times),
     * then share the call counts; again after every round. */
    long *calls = malloc(sizeof *calls * n);
    if (!calls)
        PMPI_Abort(MPI_COMM_WORLD, 1); /* the ranks would disagree */
    double round_budget = o->budget / o->rounds, per_mix = 0;
    for (size_t i = 0; o->rank == 0 && i < n; i++)
        per_mix += it[i].p->ops * it[i].med[0];
    double scale = per_mix > 0 ? round_budget / 2 / per_mix : 1;
    for (int r = 0; r < o->rounds && rc == MPI_SUCCESS; r++) {
        if (o->rank == 0 && r > 0) { /* rescale to what round r - 1 took */
            double took = 0;
            for (size_t i = 0; i < n; i++)
                took += (it[i].t[0][r - 1] + it[i].t[1][r - 1]) * (double)it[i].calls;
            double f = took > 0 ? round_budget / took : 1;
            scale *= f > 4 ? 4 : f;
        }
        for (size_t i = 0; o->rank == 0 && i < n; i++) {
            double c = floor(it[i].p->ops * scale + 0.5);
            calls[i] = c < 1 ? 1 : c > 1e7 ? 10000000 : (long)c;
        }
        rc = PMPI_Bcast(calls, (int)n, MPI_LONG, 0, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i++) {
            it[i].calls = calls[i];
            it[i].total += calls[i];
        }
        for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++)
            rc = pass(it, n, ops, (r % 2) ^ k, r, 0); /* N T, T N, N T, ... */
    }
    free(calls);
    if (rc == MPI_SUCCESS && o->rank == 0) {
        double tot[2] = {0, 0}, rep[2] = {0, 0};
        for (size_t i = 0; i < n; i++)
            for (int s = 0; s < 2; s++) {
                rep[s] += it[i].rep[s];
                it[i].med[s] = cs_median_sorted(it[i].t[s], o->rounds);
                tot[s] += it[i].p->ops * it[i].med[s];
            }
        print_table(o, it, n, tot, rep);
        fflush(stdout);
    }
out:
    if (!it || !ops || rc != MPI_SUCCESS)
        status = 1;
    if (rc != MPI_SUCCESS && o->rank == 0)
        fprintf(stderr, "collsel-replay: --mix: MPI error %d\n", rc);
    else if ((!it || !ops) && o->rank == 0)
        fprintf(stderr, "collsel-replay: --mix: out of memory\n");
    for (size_t i = 0; ops && i < n; i++) {
        cs_rop_free(&ops[i]);
        free(it[i].t[0]);
    }
    for (int c = 0; c < CS_NCOLL; c++)
        free(map[c]);
    free(it);
    free(ops);
    return status;
}
