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
#include <time.h>
#include <unistd.h>

#include "../select/perf.h"
#include "op.h"
#include "replay.h"
#include "timing.h"

static MPI_Comm *comms; /* comms[s]: first s world ranks; index 0 unused */
static char *made;      /* made[s]: the split for size s was done */
static int ncomms;

MPI_Comm cs_replay_comm(int size)
{
    int wsize;
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (size < 1 || size > wsize)
        return MPI_COMM_NULL;
    if (!comms) {
        comms = calloc((size_t)wsize + 1, sizeof *comms);
        made = calloc((size_t)wsize + 1, 1);
        if (!comms || !made)
            PMPI_Abort(MPI_COMM_WORLD, 1); /* ranks would disagree on the splits */
        for (int i = 0; i <= wsize; i++)
            comms[i] = MPI_COMM_NULL;
        ncomms = wsize + 1;
    }
    if (!made[size]) { /* every world rank gets here once per size */
        int rank;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (PMPI_Comm_split(MPI_COMM_WORLD, rank < size ? 0 : MPI_UNDEFINED, rank,
                            &comms[size]) != MPI_SUCCESS)
            comms[size] = MPI_COMM_NULL;
        made[size] = 1;
    }
    return comms[size];
}

void cs_replay_comms_free(void)
{
    for (int i = 0; i < ncomms; i++)
        if (comms[i] != MPI_COMM_NULL)
            PMPI_Comm_free(&comms[i]);
    free(comms);
    free(made);
    comms = NULL;
    made = NULL;
    ncomms = 0;
}

int cs_replay_wait(MPI_Request *req, int idle)
{
    if (!idle)
        return PMPI_Wait(req, MPI_STATUS_IGNORE);
    int done = 0, rc;
    while ((rc = PMPI_Test(req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
        nanosleep(&(struct timespec){0, 200000}, NULL);
    return rc;
}

const char *cs_fmt_secs(char *buf, size_t len, double s)
{
    if (s < 0)
        s = 0;
    if (s < 60)
        snprintf(buf, len, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    return buf;
}

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
    int tty = o->progress > 0 || (o->progress == 0 && (isatty(2) || isatty(1))), status = 0;
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
