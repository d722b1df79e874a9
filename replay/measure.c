/* collsel-replay, measuring mode: every selected method at every point,
 * into a perf table (select/perf.h) checkpointed after each point.  Two
 * stages per point (see measure_point): a short screening of every method,
 * then an interleaved final of the K best and native with most of the
 * point's time - with 88 methods and a short budget the best of a single
 * pass is mostly the luckiest (winner's curse).
 *
 * A point of communicator size s is measured by floor(W / s) disjoint groups
 * of s consecutive world ranks at once, as an application's row or column
 * communicators run (--alone: by world ranks 0..s-1 only, the papers' way);
 * the timing syncs and takes its decisions over all the groups, so they run
 * the same method at the same time and a round's time is the slowest
 * group's (cs_replay_comm).  The ranks outside every group wait, asleep, in
 * the allreduce that ends the point, so they do not disturb the timings.
 * Points larger than the world
 * are skipped (and reported).  Every rank walks the same point list in the
 * same order, so the collective calls match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "select/perf.h"
#include "op.h"
#include "pattern.h"
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
/* The work of one point: its operation, its methods, both stages' figures. */
typedef struct point_work {
    const cs_replay_opts *o;
    const cs_point *p;
    MPI_Comm comm, sync; /* the point's group; every group of the point (timing) */
    cs_rop op;
    int n, K, nf, r;       /* methods, finalists, stage-2 entries, calls per round */
    int det;               /* a deterministic clock (cs_time_deterministic) */
    int *idx, *order, *fin_of; /* registry index; stage-1 ranking; k -> stage-2 slot */
    cs_timing *t1, *t2;
    cs_rop_with *w;
    cs_timed *f;
    double t0, s1, s2, scale; /* start; stage-1 and stage-2 seconds; stage-1 scale */
    double tpp;               /* seconds for the point under this pattern */
    cs_pat_run *arr;          /* the arrival pattern of both stages (NULL: back-to-back) */
    char arrname[CS_PAT_NAME_MAX]; /* its name in the rows ("": back-to-back) */
    const char *failed;       /* what failed, for the message */
} point_work;

static void work_free(point_work *pw)
{
    free(pw->idx), free(pw->order), free(pw->fin_of), free(pw->t1), free(pw->t2), free(pw->w),
        free(pw->f);
    cs_rop_free(&pw->op);
}

/* Stage 1: every method, a share of the point's time. */
static int stage1(point_work *pw, int tty, size_t done, size_t total, double t_start)
{
    const cs_replay_opts *o = pw->o;
    int n = pw->n, K = pw->K, rc = MPI_SUCCESS;
    cs_timing_opts to;
    memset(&to, 0, sizeof to);
    to.rel_ci = o->rel_ci;
    to.calls_per_round = pw->r;
    to.max_seconds = (K > 0 ? 0.35 : 1.0) * pw->tpp / n;
    to.arrivals = pw->arr;
    int tight = o->budget > 0 && to.max_seconds < 0.002; /* a budget below the floor */
    if (to.max_seconds < 0.002)
        to.max_seconds = 0.002;
    if (K > 0) { /* screening: the final decides */
        to.warmup = tight ? 1 : 2;
        to.min_rounds = tight ? 1 : 3;
    }
    if (pw->det) { /* exact after one warm-up call (the probe checked the clock) */
        to.warmup = 1;
        to.min_rounds = 1;
        to.max_rounds = 1;
    }
    for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
        progress(o, pw->p, &pw->op, tty, done, total, t_start, pw->w[k].m->name, k, n,
                 (K > 0 ? 0.35 : 1.0) * k / n);
        rc = cs_time_collective(pw->sync, cs_rop_run_with, &pw->w[k], &to, &pw->t1[k]);
        if (rc != MPI_SUCCESS)
            pw->failed = pw->w[k].m->name;
    }
    return rc;
}

/* Stage 2: the K best of stage 1 and native, interleaved, with the rest of
 * the point's time; sets the scale of the stage-1 figures. */
static int stage2(point_work *pw, int tty, size_t done, size_t total, double t_start)
{
    const cs_replay_opts *o = pw->o;
    int n = pw->n, K = pw->K, rc;
    double tpp = pw->tpp;
    for (int k = 1; k < n; k++)
        pw->order[k - 1] = k;
    stage1_sort_t = pw->t1;
    qsort(pw->order, (size_t)(n - 1), sizeof *pw->order, cmp_stage1);
    for (int j = 0; j < K; j++)
        pw->f[pw->nf++] = (cs_timed){cs_rop_run_with, &pw->w[pw->order[j]], 0};
    pw->f[pw->nf++] = (cs_timed){cs_rop_run_with, &pw->w[0], 0}; /* A B C D N */
    for (int j = 0; j < K; j++)
        pw->fin_of[pw->order[j]] = j;
    pw->fin_of[0] = K;
    double el = PMPI_Wtime() - pw->t0; /* the same budget on every rank */
    rc = PMPI_Allreduce(&el, &pw->s1, 1, MPI_DOUBLE, MPI_MAX, pw->sync);
    pw->s2 = tpp - pw->s1;
    if (pw->s2 < 0.5 * tpp) /* stage 1 overran (large messages: its minimum rounds) */
        pw->s2 = 0.5 * tpp;
    cs_timing_opts io;
    memset(&io, 0, sizeof io);
    io.calls_per_round = pw->r;
    io.warmup = 1;
    io.min_rounds = o->budget > 0 && pw->s2 < 0.05 ? 5 : 10; /* a tight budget: fewer */
    io.max_rounds = 500;
    io.max_seconds = pw->s2;
    io.arrivals = pw->arr;
    progress(o, pw->p, &pw->op, tty, done, total, t_start, "final", K, K + 1, 0.35);
    if (rc == MPI_SUCCESS)
        rc = cs_time_interleaved(pw->sync, pw->f, pw->nf, &io, pw->t2, NULL);
    if (rc != MPI_SUCCESS)
        pw->failed = "the final (stage 2)";
    double best1 = pw->t1[0].median_us, best2 = pw->t2[0].median_us;
    for (int k = 1; k < n; k++)
        best1 = pw->t1[k].median_us < best1 ? pw->t1[k].median_us : best1;
    for (int j = 1; j < pw->nf; j++)
        best2 = pw->t2[j].median_us < best2 ? pw->t2[j].median_us : best2;
    pw->scale = best1 > 0 && best2 > best1 ? best2 / best1 : 1;
    pw->s2 = PMPI_Wtime() - pw->t0 - pw->s1;
    return rc;
}

/* Rank 0: the point's rows (finalists and native from stage 2, the others
 * from stage 1 scaled). */
static int add_rows(const point_work *pw, cs_perf *perf, cs_err *e)
{
    for (int k = 0; k < pw->n; k++) {
        const cs_timing *t = pw->fin_of[k] >= 0 ? &pw->t2[pw->fin_of[k]] : &pw->t1[k];
        double sc = pw->fin_of[k] >= 0 ? 1 : pw->scale;
        cs_perf_row row = {.coll = pw->p->coll, .comm_size = pw->p->comm_size,
                           .msg_bytes = pw->op.call.bytes, .median_us = t->median_us * sc,
                           .min_us = t->min_us * sc, .max_us = t->max_us * sc,
                           .reps = (uint32_t)t->rounds};
        snprintf(row.method, sizeof row.method, "%s", pw->w[k].m->name);
        snprintf(row.arrivals, sizeof row.arrivals, "%s", pw->arrname);
        if (cs_perf_add(perf, &row) < 0) {
            cs_fail(e, "out of memory (%zu perf rows)", perf->n);
            return MPI_ERR_NO_MEM;
        }
    }
    return MPI_SUCCESS;
}

/* -v: one line per point with the stage times and the finalists. */
static void log_point(const point_work *pw, int tty)
{
    const cs_point *p = pw->p;
    fprintf(stderr, "%scollsel-replay: final %s,%u,%llu%s%s calls=%d methods=%d cycles=%d "
                    "stage1=%.3fs stage2=%.3fs scale=%.4f%s",
            tty ? "\r\033[K" : "", cs_coll_name(p->coll), p->comm_size,
            (unsigned long long)pw->op.call.bytes, pw->arrname[0] ? " arrivals=" : "", pw->arrname,
            pw->r, pw->n, pw->nf ? pw->t2[0].rounds : 0, pw->s1, pw->s2, pw->scale,
            pw->det ? " (deterministic clock)" : "");
    for (int j = 0; j < pw->nf; j++) {
        int k = j < pw->K ? pw->order[j] : 0;
        fprintf(stderr, " %s=%.3f/%.3f", pw->w[k].m->name, pw->t2[j].median_us,
                pw->t1[k].median_us);
    }
    fprintf(stderr, "\n");
}

/* The one-time cost of a communicator's shared-memory segment at this
 * point's communicator size, for the method m that needs one: on a fresh
 * duplicate of the group's communicator, the set-up (collsel's private
 * duplicate and node split, cs_rop_init of 8 bytes) and the first call of
 * m, minus a second call; the maximum over the point's ranks (all groups
 * at once), median of 3.  The map spreads it over the application's calls
 * per communicator (select/map.c, the COLL.segment row).  Collective over
 * pw->sync; *us: the cost in us (0 when negative; -1 when m does not apply
 * to 8 bytes: no row). */
static int measure_segment(const point_work *pw, const cs_method *m, double *us)
{
    double x[3];
    int rc = MPI_SUCCESS;
    for (int k = 0; k < 3 && rc == MPI_SUCCESS; k++) {
        MPI_Comm fresh = MPI_COMM_NULL;
        cs_rop op;
        memset(&op, 0, sizeof op);
        double t[4] = {0, 0, 0, 0}, mx = 0;
        rc = PMPI_Barrier(pw->sync);
        t[0] = PMPI_Wtime();
        if (rc == MPI_SUCCESS)
            rc = PMPI_Comm_dup(pw->comm, &fresh);
        if (rc == MPI_SUCCESS)
            rc = cs_rop_init(&op, pw->op.coll, fresh, 8, pw->p->root_mode, pw->p->root);
        cs_rop_with w = {&op, m};
        int applies = rc == MPI_SUCCESS && cs_rop_applies(&op, m); /* the same everywhere */
        if (rc == MPI_SUCCESS && !applies) { /* not at 8 bytes: no row, nothing failed */
            cs_rop_free(&op);
            PMPI_Comm_free(&fresh);
            *us = -1;
            return MPI_SUCCESS;
        }
        if (rc == MPI_SUCCESS)
            rc = cs_rop_run_with(&w, 0);
        t[1] = PMPI_Wtime();
        if (rc == MPI_SUCCESS)
            rc = PMPI_Barrier(pw->sync);
        t[2] = PMPI_Wtime();
        if (rc == MPI_SUCCESS)
            rc = cs_rop_run_with(&w, 1);
        t[3] = PMPI_Wtime();
        double mine[2] = {(t[1] - t[0]) - (t[3] - t[2]), rc != MPI_SUCCESS}, all[2];
        int rc2 = PMPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, pw->sync);
        if (rc == MPI_SUCCESS)
            rc = rc2 != MPI_SUCCESS ? rc2 : all[1] != 0 ? MPI_ERR_OTHER : MPI_SUCCESS;
        mx = all[0];
        x[k] = mx > 0 ? mx : 0;
        cs_rop_free(&op);
        if (fresh != MPI_COMM_NULL)
            PMPI_Comm_free(&fresh);
    }
    *us = rc == MPI_SUCCESS ? cs_median_sorted(x, 3) * 1e6 : 0;
    return rc;
}

/* Sizes whose segment cost is measured already, per collective. */
static uint32_t *seg_sizes[CS_NCOLL];
static size_t seg_n[CS_NCOLL];

static int segment_known(int coll, uint32_t size)
{
    for (size_t i = 0; i < seg_n[coll]; i++)
        if (seg_sizes[coll][i] == size)
            return 1;
    uint32_t *g = realloc(seg_sizes[coll], sizeof *g * (seg_n[coll] + 1));
    if (!g)
        return 1; /* not measured: the map then spreads nothing */
    seg_sizes[coll] = g;
    g[seg_n[coll]++] = size;
    return 0;
}

/* The point's COLL.segment row, once per (collective, communicator size),
 * when one of its measured methods needs a segment (rank 0 writes it). */
static int segment_row(point_work *pw, cs_perf *perf, cs_err *e)
{
    double us = -1; /* the first shared-memory method that applies to 8 bytes */
    for (int k = 1, first = 1; k < pw->n && us < 0; k++) {
        const cs_method *m = pw->w[k].m;
        if (!cs_method_needs_node(m) || !strstr(m->name, ".shm"))
            continue;
        if (first && segment_known(pw->op.coll, pw->p->comm_size)) /* the same everywhere */
            return MPI_SUCCESS;
        first = 0;
        int rc = measure_segment(pw, m, &us);
        if (rc != MPI_SUCCESS) {
            pw->failed = "the segment's cost";
            return rc;
        }
    }
    if (pw->o->rank != 0 || us < 0)
        return MPI_SUCCESS;
    cs_perf_row row = {.coll = pw->p->coll, .comm_size = pw->p->comm_size, .median_us = us,
                       .min_us = us, .max_us = us, .reps = 3};
    snprintf(row.method, sizeof row.method, "%s" CS_SEGMENT_SUFFIX, cs_coll_name(pw->p->coll));
    if (cs_perf_add(perf, &row) < 0) {
        cs_fail(e, "out of memory (%zu perf rows)", perf->n);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

static int measure_point(const cs_replay_opts *o, const cs_point *p, cs_replay_group g,
                         cs_perf *perf, int tty, size_t done, size_t total, double t_start,
                         cs_err *e)
{
    MPI_Comm comm = g.comm, sync = g.sync;
    point_work pw = {.o = o, .p = p, .comm = comm, .sync = sync, .r = 1, .scale = 1};
    int rc = cs_rop_init(&pw.op, (enum cs_coll)p->coll, comm, p->bytes, p->root_mode, p->root);
    if (rc != MPI_SUCCESS)
        return cs_fail(e, "setting up %s at %u ranks, %llu bytes: MPI error %d",
                       cs_coll_name(p->coll), p->comm_size, (unsigned long long)p->bytes, rc);
    int nm;
    const cs_method *tab = cs_methods(pw.op.coll, &nm);
    pw.idx = malloc(sizeof *pw.idx * (size_t)nm);
    pw.order = malloc(sizeof *pw.order * (size_t)nm);
    pw.fin_of = malloc(sizeof *pw.fin_of * (size_t)nm);
    pw.t1 = calloc((size_t)nm, sizeof *pw.t1);
    pw.t2 = calloc((size_t)nm, sizeof *pw.t2);
    pw.w = calloc((size_t)nm, sizeof *pw.w);
    pw.f = calloc((size_t)nm, sizeof *pw.f);
    if (!pw.idx || !pw.order || !pw.fin_of || !pw.t1 || !pw.t2 || !pw.w || !pw.f) {
        work_free(&pw);
        return cs_fail(e, "out of memory");
    }
    pw.n = point_methods(o, &pw.op, pw.idx);
    for (int k = 0; k < pw.n; k++) {
        pw.w[k].op = &pw.op;
        pw.w[k].m = &tab[pw.idx[k]];
        pw.fin_of[k] = -1;
    }
    pw.t0 = PMPI_Wtime();
    pw.K = o->finalists < pw.n - 1 ? o->finalists : pw.n - 1;

    /* a deterministic clock (a simulator): no final (the screening's one
     * round is exact); the round size, on native, all the same: rounds of
     * back-to-back calls are what the real machine measures */
    cs_timed nat = {cs_rop_run_with, &pw.w[0], 0};
    rc = cs_time_deterministic(sync, &nat, &pw.det);
    if (rc == MPI_SUCCESS && pw.det)
        pw.K = 0;
    if (rc == MPI_SUCCESS) {
        cs_timing_opts so;
        memset(&so, 0, sizeof so);
        so.warmup = pw.det ? 1 : 3; /* the probe warmed up already */
        rc = cs_time_round_size(sync, &nat, &so, &pw.r, NULL);
    }
    /* every pattern in turn (none given: back-to-back calls), each with its
     * share of the point's time; the rows name their pattern */
    int np = o->npats > 0 ? o->npats : 1, grank = 0, rows_rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &grank);
    for (int k = 0; k < np && rc == MPI_SUCCESS; k++) {
        cs_pattern pat;
        cs_pat_run run;
        pw.arr = NULL;
        pw.arrname[0] = 0;
        if (o->npats > 0) {
            pat = o->pats[k];
            if (pat.kind == CS_PAT_RECORDED)
                cs_pattern_set_samples(&pat, p->late, p->nvec, (int)p->vranks);
            rc = cs_pat_run_init(&run, &pat, sync, grank, (int)p->comm_size);
            pw.arr = &run;
            cs_pattern_name(&pat, pw.arrname, sizeof pw.arrname);
        }
        pw.tpp = o->time_per_point / np;
        pw.nf = 0, pw.scale = 1, pw.t0 = PMPI_Wtime();
        for (int j = 0; j < pw.n; j++)
            pw.fin_of[j] = -1;
        if (rc == MPI_SUCCESS)
            rc = stage1(&pw, tty, done, total, t_start);
        if (rc == MPI_SUCCESS && pw.K > 0)
            rc = stage2(&pw, tty, done, total, t_start);
        if (rc == MPI_SUCCESS && o->rank == 0 && rows_rc == MPI_SUCCESS) /* local only */
            rows_rc = add_rows(&pw, perf, e);
        if (rc == MPI_SUCCESS && o->rank == 0 && o->verbose)
            log_point(&pw, tty);
    }
    if (rc != MPI_SUCCESS)
        cs_fail(e, "%s at %u ranks, %llu bytes%s%s: %s: MPI error %d", cs_coll_name(p->coll),
                p->comm_size, (unsigned long long)pw.op.call.bytes,
                pw.arrname[0] ? ", arrivals " : "", pw.arrname, pw.failed ? pw.failed : "round size", rc);
    if (rc == MPI_SUCCESS) { /* collective: before anything only rank 0 does */
        rc = segment_row(&pw, perf, e);
        if (rc != MPI_SUCCESS && pw.failed)
            cs_fail(e, "%s at %u ranks: %s: MPI error %d", cs_coll_name(p->coll), p->comm_size,
                    pw.failed, rc);
    }
    if (rc == MPI_SUCCESS)
        rc = rows_rc; /* out of memory on rank 0: add_rows said so */
    work_free(&pw);
    return rc == MPI_SUCCESS ? 0 : -1;
}

int cs_replay_measure(const cs_replay_opts *o, const cs_points *pts)
{
    cs_perf perf;
    cs_perf_init(&perf);
    cs_err e = {{0}};
    if (o->resume && o->rank == 0 && access(o->out, F_OK) == 0 && cs_perf_read(&perf, o->out, &e) < 0)
        fprintf(stderr, "collsel-replay: --resume: %s\n", e.msg); /* read once already */
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
    /* the application's busiest points first (a budget may not reach the
     * last ones); grid points (no operations) last; the same order on
     * every rank */
    size_t *order = malloc(sizeof *order * (pts->n + 1));
    if (!order)
        PMPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < pts->n; i++)
        order[i] = i;
    for (size_t i = 1; i < pts->n; i++) /* insertion sort: stable, a few hundred points */
        for (size_t j = i; j > 0 && pts->p[order[j]].ops > pts->p[order[j - 1]].ops; j--) {
            size_t t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    for (size_t i = 0; i < pts->n && status == 0; i++) {
        const cs_point *p = &pts->p[order[i]];
        if (p->comm_size > (uint32_t)o->size)
            continue;
        cs_replay_group g = cs_replay_comm((int)p->comm_size, o->alone);
        MPI_Comm comm = g.comm;
        int mine = 0;
        if (comm != MPI_COMM_NULL)
            mine = measure_point(o, p, g, &perf, tty, done, total, t0, &e);
        if (mine == 0 && o->rank == 0)
            mine = cs_perf_checkpoint(&perf, o->out, &e);
        if (mine < 0)
            fprintf(stderr, "%scollsel-replay: rank %d: %s\n", tty && o->rank == 0 ? "\n" : "",
                    o->rank, e.msg);
        MPI_Request req; /* the ranks outside the point wait here, asleep */
        PMPI_Iallreduce(&mine, &status, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req);
        cs_replay_wait(&req, comm == MPI_COMM_NULL);
        done++;
        /* --budget bounds the whole measurement: rank 0's clock decides */
        int over = o->budget > 0 && o->rank == 0 && cs_now() - t0 >= o->budget && done < total;
        PMPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (over && status == 0) {
            if (o->rank == 0)
                fprintf(stderr, "%scollsel-replay: the budget (%.1f s) is used up after %zu of %zu "
                                "point(s); the others are not measured (--resume with more budget "
                                "measures them)\n",
                        tty ? "\r\033[K" : "", o->budget, done, total);
            break;
        }
    }
    if (o->rank == 0) {
        char b[32];
        if (tty)
            fprintf(stderr, "\r\033[K");
        fprintf(stderr, "collsel-replay: %s %zu of %zu point(s), %zu rows, %s, -> %s\n",
                status == 0 ? "measured" : "FAILED after", done - (status != 0), total, perf.n,
                cs_fmt_secs(b, sizeof b, cs_now() - t0), o->out);
    }
    free(order);
    cs_perf_free(&perf);
    return status == 0 ? 0 : 1;
}
