/* collsel-replay, measuring mode: every selected method at every point,
 * into a perf table (select/perf.h) checkpointed after each point.
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

/* Measure one point on comm (we are in its group).  Rows go to perf on
 * the point's rank 0. */
static int measure_point(const cs_replay_opts *o, const cs_point *p, MPI_Comm comm, cs_perf *perf,
                         int tty, size_t done, size_t total, double t_start, cs_err *e)
{
    cs_rop op;
    int rc = cs_rop_init(&op, (enum cs_coll)p->coll, comm, p->bytes, p->root_mode, p->root);
    if (rc != MPI_SUCCESS)
        return cs_fail(e, "setting up %s at %u ranks, %llu bytes: MPI error %d",
                       cs_coll_name(p->coll), p->comm_size, (unsigned long long)p->bytes, rc);
    int nm, *idx = NULL;
    const cs_method *tab = cs_methods(op.coll, &nm);
    idx = malloc(sizeof *idx * (size_t)nm);
    if (!idx) {
        cs_rop_free(&op);
        return cs_fail(e, "out of memory");
    }
    int n = point_methods(o, &op, idx);
    cs_timing_opts to;
    memset(&to, 0, sizeof to);
    to.rel_ci = o->rel_ci;
    to.max_seconds = o->time_per_point / n;
    if (to.max_seconds < 0.002)
        to.max_seconds = 0.002;
    char b[32], eta[32];
    for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
        const cs_method *m = &tab[idx[k]];
        if (tty && o->rank == 0) {
            double el = cs_now() - t_start, frac = (done + (double)k / n) / (double)total;
            fprintf(stderr, "\r\033[K[%zu/%zu] %s %u ranks %s  %-28s %3d/%d  left ~%s", done + 1,
                    total, cs_coll_name(p->coll), p->comm_size,
                    cs_fmt_bytes(b, sizeof b, (double)op.call.bytes), m->name, k + 1, n,
                    frac > 0 ? cs_fmt_secs(eta, sizeof eta, el / frac - el) : "?");
        }
        cs_timing t;
        op.m = m;
        rc = cs_time_collective(comm, cs_rop_run, &op, &to, &t);
        if (rc != MPI_SUCCESS) {
            cs_fail(e, "%s at %u ranks, %llu bytes: MPI error %d", m->name, p->comm_size,
                    (unsigned long long)op.call.bytes, rc);
            break;
        }
        if (o->rank == 0) {
            cs_perf_row r = {p->coll, p->comm_size, op.call.bytes, {0}, t.median_us, t.min_us,
                             t.max_us, (uint32_t)t.rounds};
            snprintf(r.method, sizeof r.method, "%s", m->name);
            if (cs_perf_add(perf, &r) < 0) {
                rc = MPI_ERR_NO_MEM;
                cs_fail(e, "out of memory (%zu perf rows)", perf->n);
            }
        }
    }
    free(idx);
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
