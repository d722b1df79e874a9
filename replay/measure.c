/* collsel-replay, measuring mode: every selected method at every point,
 * into a perf table (select/perf.h) checkpointed after each point.  Two
 * stages per point (see measure_point): a short screening of every method,
 * then an interleaved final of the K best and native with most of the
 * point's time - with 88 methods and a short budget the best of a single
 * pass is mostly the luckiest (winner's curse).
 *
 * A point of communicator size s is measured by world ranks 0..s-1 on their
 * own communicator; the other ranks wait, asleep, in the allreduce that ends
 * the point, so they do not disturb the timings.  Points larger than the world
 * are skipped (and reported).  Every rank walks the same point list in the
 * same order, so the collective calls match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../select/perf.h"
#include "op.h"
#include "replay.h"
#include "timing.h"

/* Methods of point p that get measured (native first), into idx[]. */
static int point_methods(const cs_replay_opts *o, cs_rop *op, int *idx)
{
    int nm, n = 0;
    const cs_method *tab = cs_methods(op->coll, &nm);
    for (int i = 0; i < nm; i++) {
        if (i > 0 && (!o->sel[op->coll][i] || cs_rop_redundant(op, &tab[i]) ||
                      !cs_rop_applies(op, &tab[i])))
            continue;
        idx[n++] = i;
    }
    return n;
}

static void progress(const cs_replay_opts *o, const cs_point *p, const cs_rop *op, int tty,
                     size_t done, size_t total, double t_start, const char *what, int k, int n,
                     double frac_point)
{
    if (!tty || o->rank != 0)
        return;
    char b[32], eta[32];
    double el = cs_now() - t_start, frac = (done + frac_point) / (double)total;
    fprintf(stderr, "\r\033[K[%zu/%zu] %s %u ranks %s  %-28s %3d/%d  left ~%s", done + 1, total,
            cs_coll_name(p->coll), p->comm_size, cs_fmt_bytes(b, sizeof b, (double)op->call.bytes),
            what, k + 1, n, frac > 0 ? cs_fmt_secs(eta, sizeof eta, el / frac - el) : "?");
}

static const cs_timing *stage1_sort_t;
static int cmp_stage1(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    double mx = stage1_sort_t[x].median_us, my = stage1_sort_t[y].median_us;
    return mx < my ? -1 : mx > my ? 1 : (x > y) - (x < y);
}

/* Measure one point on comm (we are in its group).  Rows go to perf on
 * the point's rank 0.
 *
 * The round size r (calls per round) is sized once on native and shared by
 * every measurement of the point (and by --mix: cs_time_round_size).
 * Stage 1 screens every method with cs_time_collective (a share of the
 * point's time); stage 2 re-measures the K best of stage 1 and native,
 * interleaved (cs_time_interleaved), with the rest of the point's time.
 * The finalists' and native's rows get the stage-2 figures (reps = stage-2
 * rounds); the other methods keep their stage-1 figures, scaled up by
 * best2/best1 when the best stage-2 median is above the best stage-1
 * median (a method that lost the screening must not look faster than the
 * final's winner only because stage 1 caught a quiet moment).  Every
 * decision (r, finalists, stops) comes from allreduced values: the same on
 * every rank. */
static int measure_point(const cs_replay_opts *o, const cs_point *p, MPI_Comm comm, cs_perf *perf,
                         int tty, size_t done, size_t total, double t_start, cs_err *e)
{
    cs_rop op;
    int rc = cs_rop_init(&op, (enum cs_coll)p->coll, comm, p->bytes, p->root_mode, p->root);
    if (rc != MPI_SUCCESS)
        return cs_fail(e, "setting up %s at %u ranks, %llu bytes: MPI error %d",
                       cs_coll_name(p->coll), p->comm_size, (unsigned long long)p->bytes, rc);
    int nm;
    const cs_method *tab = cs_methods(op.coll, &nm);
    int *idx = malloc(sizeof *idx * (size_t)nm), *order = malloc(sizeof *order * (size_t)nm);
    int *fin_of = malloc(sizeof *fin_of * (size_t)nm);
    cs_timing *t1 = calloc((size_t)nm, sizeof *t1), *t2 = calloc((size_t)nm, sizeof *t2);
    cs_rop_with *w = calloc((size_t)nm, sizeof *w);
    cs_timed *f = calloc((size_t)nm, sizeof *f);
    if (!idx || !order || !fin_of || !t1 || !t2 || !w || !f) {
        free(idx), free(order), free(fin_of), free(t1), free(t2), free(w), free(f);
        cs_rop_free(&op);
        return cs_fail(e, "out of memory");
    }
    int n = point_methods(o, &op, idx);
    for (int k = 0; k < n; k++) {
        w[k].op = &op;
        w[k].m = &tab[idx[k]];
        fin_of[k] = -1;
    }
    double t0 = PMPI_Wtime(), tpp = o->time_per_point;
    int K = o->finalists < n - 1 ? o->finalists : n - 1;

    /* the round size, on native */
    cs_timing_opts so;
    memset(&so, 0, sizeof so);
    so.warmup = 3;
    int r = 1;
    cs_timed nat = {cs_rop_run_with, &w[0], 0};
    rc = cs_time_round_size(comm, &nat, &so, &r, NULL);

    /* stage 1: every method, a share of the point's time */
    cs_timing_opts to;
    memset(&to, 0, sizeof to);
    to.rel_ci = o->rel_ci;
    to.calls_per_round = r;
    to.max_seconds = (K > 0 ? 0.35 : 1.0) * tpp / n;
    if (to.max_seconds < 0.002)
        to.max_seconds = 0.002;
    if (K > 0) { /* screening: the final decides */
        to.warmup = 2;
        to.min_rounds = 3;
    }
    const char *failed = NULL;
    for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
        progress(o, p, &op, tty, done, total, t_start, w[k].m->name, k, n,
                 (K > 0 ? 0.35 : 1.0) * k / n);
        rc = cs_time_collective(comm, cs_rop_run_with, &w[k], &to, &t1[k]);
        if (rc != MPI_SUCCESS)
            failed = w[k].m->name;
    }

    /* stage 2: the K best of stage 1 and native, interleaved */
    int nf = 0;
    double s1 = 0, s2 = 0, scale = 1;
    if (rc == MPI_SUCCESS && K > 0) {
        for (int k = 1; k < n; k++)
            order[k - 1] = k;
        stage1_sort_t = t1;
        qsort(order, (size_t)(n - 1), sizeof *order, cmp_stage1);
        for (int j = 0; j < K; j++)
            f[nf++] = (cs_timed){cs_rop_run_with, &w[order[j]], 0};
        f[nf++] = (cs_timed){cs_rop_run_with, &w[0], 0}; /* A B C D N */
        for (int j = 0; j < K; j++)
            fin_of[order[j]] = j;
        fin_of[0] = K;
        double el = PMPI_Wtime() - t0; /* the same budget on every rank */
        rc = PMPI_Allreduce(&el, &s1, 1, MPI_DOUBLE, MPI_MAX, comm);
        s2 = tpp - s1;
        if (s2 < 0.5 * tpp) /* stage 1 overran (large messages: its minimum rounds) */
            s2 = 0.5 * tpp;
        cs_timing_opts io;
        memset(&io, 0, sizeof io);
        io.calls_per_round = r;
        io.warmup = 1;
        io.min_rounds = 10;
        io.max_rounds = 500;
        io.max_seconds = s2;
        progress(o, p, &op, tty, done, total, t_start, "final", K, K + 1, 0.35);
        if (rc == MPI_SUCCESS)
            rc = cs_time_interleaved(comm, f, nf, &io, t2, NULL);
        if (rc != MPI_SUCCESS)
            failed = "the final (stage 2)";
        double best1 = t1[0].median_us, best2 = t2[0].median_us;
        for (int k = 1; k < n; k++)
            best1 = t1[k].median_us < best1 ? t1[k].median_us : best1;
        for (int j = 1; j < nf; j++)
            best2 = t2[j].median_us < best2 ? t2[j].median_us : best2;
        scale = best1 > 0 && best2 > best1 ? best2 / best1 : 1;
        s2 = PMPI_Wtime() - t0 - s1;
    }
    if (rc != MPI_SUCCESS)
        cs_fail(e, "%s at %u ranks, %llu bytes: %s: MPI error %d", cs_coll_name(p->coll),
                p->comm_size, (unsigned long long)op.call.bytes, failed ? failed : "round size",
                rc);
    for (int k = 0; k < n && rc == MPI_SUCCESS && o->rank == 0; k++) {
        const cs_timing *t = fin_of[k] >= 0 ? &t2[fin_of[k]] : &t1[k];
        double sc = fin_of[k] >= 0 ? 1 : scale;
        cs_perf_row row = {p->coll, p->comm_size, op.call.bytes, {0}, t->median_us * sc,
                           t->min_us * sc, t->max_us * sc, (uint32_t)t->rounds};
        snprintf(row.method, sizeof row.method, "%s", w[k].m->name);
        if (cs_perf_add(perf, &row) < 0) {
            rc = MPI_ERR_NO_MEM;
            cs_fail(e, "out of memory (%zu perf rows)", perf->n);
        }
    }
    if (rc == MPI_SUCCESS && o->rank == 0 && o->verbose) {
        fprintf(stderr, "%scollsel-replay: final %s,%u,%llu calls=%d methods=%d cycles=%d "
                        "stage1=%.3fs stage2=%.3fs scale=%.4f",
                tty ? "\r\033[K" : "", cs_coll_name(p->coll), p->comm_size,
                (unsigned long long)op.call.bytes, r, n, nf ? t2[0].rounds : 0, s1, s2, scale);
        for (int j = 0; j < nf; j++) {
            int k = j < K ? order[j] : 0;
            fprintf(stderr, " %s=%.3f/%.3f", w[k].m->name, t2[j].median_us, t1[k].median_us);
        }
        fprintf(stderr, "\n");
    }
    free(idx), free(order), free(fin_of), free(t1), free(t2), free(w), free(f);
    cs_rop_free(&op);
    return rc == MPI_SUCCESS ? 0 : -1;
}

int cs_replay_measure(const cs_replay_opts *o, const cs_points *pts)
{
    cs_perf perf;
    cs_perf_init(&perf);
    cs_err e = {{0}};
    size_t total = 0, skipped = 0, done = 0;
    for (size_t i = 0; i < pts->n; i++)
        pts->p[i].comm_size <= (uint32_t)o->size ? total++ : skipped++;
    if (o->rank == 0 && skipped)
        fprintf(stderr, "collsel-replay: %zu point(s) need more than %d ranks and are skipped "
                        "(run with more ranks to measure them)\n", skipped, o->size);
    if (total == 0) {
        if (o->rank == 0)
            fprintf(stderr, "collsel-replay: no point to measure at %d ranks; nothing written\n",
                    o->size);
        return 1;
    }
    int tty = o->progress > 0 || (o->progress == 0 && o->rank == 0 && cs_replay_stderr_is_terminal());
    int status = 0;
    double t0 = cs_now();
    for (size_t i = 0; i < pts->n && status == 0; i++) {
        const cs_point *p = &pts->p[i];
        if (p->comm_size > (uint32_t)o->size)
            continue;
        MPI_Comm comm = cs_replay_comm((int)p->comm_size);
        int mine = 0;
        if (comm != MPI_COMM_NULL)
            mine = measure_point(o, p, comm, &perf, tty, done, total, t0, &e);
        if (mine == 0 && o->rank == 0)
            mine = cs_perf_checkpoint(&perf, o->out, &e);
        if (mine < 0)
            fprintf(stderr, "%scollsel-replay: rank %d: %s\n", tty && o->rank == 0 ? "\n" : "",
                    o->rank, e.msg);
        MPI_Request req; /* the ranks outside the point wait here, asleep */
        PMPI_Iallreduce(&mine, &status, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req);
        cs_replay_wait(&req, comm == MPI_COMM_NULL);
        done++;
    }
    if (o->rank == 0) {
        char b[32];
        if (tty)
            fprintf(stderr, "\r\033[K");
        fprintf(stderr, "collsel-replay: %s %zu of %zu point(s), %zu rows, %s, -> %s\n",
                status == 0 ? "measured" : "FAILED after", done - (status != 0), total, perf.n,
                cs_fmt_secs(b, sizeof b, cs_now() - t0), o->out);
    }
    cs_perf_free(&perf);
    return status == 0 ? 0 : 1;
}
