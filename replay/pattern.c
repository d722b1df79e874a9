/* Arrival patterns and the completion timing: see pattern.h. */
#include "pattern.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll/shm/shm.h"

#define PAT_SEED 0x636f6c6c73656c41ULL /* the same on every rank: the draws need no message */
#define PAT_SLACK0 20e-6               /* first slack between two calls */
#define PAT_SLACK_MAX 2e-3
#define PAT_LATE_OK 2e-6 /* an arrival this much after its time is still on time */

static int parse_delay(const char *s, double *sec, cs_err *e, const char *pat)
{
    char *end;
    double v = strtod(s, &end);
    static const struct { const char *u; double f; } units[] = {
        {"", 1e-6}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
    for (size_t k = 0; end != s && k < sizeof units / sizeof units[0]; k++)
        if (!strcmp(end, units[k].u)) {
            *sec = v * units[k].f;
            if (*sec > 0 && *sec <= 1)
                return 0;
            break;
        }
    return cs_fail(e, "arrival pattern '%s': delay '%s' is not a duration in (0, 1 s] "
                      "(e.g. 20us, 1.5ms, 500ns)", pat, s);
}

int cs_pattern_parse(const char *s, cs_pattern *a, cs_err *e)
{
    memset(a, 0, sizeof *a);
    a->late_rank = -1;
    a->seed = PAT_SEED;
    const char *accepted = "none, one-late:DELAY[@RANK], random:DELAY, recorded";
    if (!strcmp(s, "none"))
        return 0;
    if (!strcmp(s, "recorded")) {
        a->kind = CS_PAT_RECORDED;
        return 0;
    }
    const char *arg = NULL;
    if (!strncmp(s, "one-late:", 9))
        a->kind = CS_PAT_ONE_LATE, arg = s + 9;
    else if (!strncmp(s, "random:", 7))
        a->kind = CS_PAT_RANDOM, arg = s + 7;
    else
        return cs_fail(e, "unknown arrival pattern '%s' (accepted: %s)", s, accepted);
    char d[64];
    snprintf(d, sizeof d, "%s", arg);
    char *at = strchr(d, '@');
    if (at) {
        char *end;
        long r = strtol(at + 1, &end, 10);
        if (a->kind != CS_PAT_ONE_LATE || at[1] < '0' || at[1] > '9' || *end || r > 1 << 24)
            return cs_fail(e, "arrival pattern '%s': '@%s' is not a rank (one-late:DELAY@RANK)", s,
                           at + 1);
        a->late_rank = (int)r;
        *at = 0;
    }
    return parse_delay(d, &a->delay, e, s);
}

int cs_pattern_parse_list(const char *s, cs_pattern *a, int max, int *n, cs_err *e)
{
    char *d = strdup(s), *save = NULL;
    int rc = d ? 0 : cs_fail(e, "out of memory");
    *n = 0;
    for (char *t = d ? strtok_r(d, ",", &save) : NULL; t && rc == 0; t = strtok_r(NULL, ",", &save))
        rc = *n >= max ? cs_fail(e, "more than %d arrival patterns in '%s'", max, s)
                       : cs_pattern_parse(t, &a[(*n)++], e);
    if (rc == 0 && *n == 0)
        rc = cs_fail(e, "no arrival pattern in '%s'", s);
    free(d);
    return rc;
}

const char *cs_pattern_name(const cs_pattern *a, char *buf, size_t len)
{
    static const char *kinds[] = {"none", "one-late", "random", "recorded"};
    if (a->kind == CS_PAT_NONE || a->kind == CS_PAT_RECORDED)
        snprintf(buf, len, "%s", kinds[a->kind]);
    else if (a->late_rank >= 0)
        snprintf(buf, len, "%s:%.6gus@%d", kinds[a->kind], a->delay * 1e6, a->late_rank);
    else
        snprintf(buf, len, "%s:%.6gus", kinds[a->kind], a->delay * 1e6);
    return buf;
}

void cs_pattern_set_samples(cs_pattern *a, const double *vec, size_t nvec, int vranks)
{
    a->vec = vec;
    a->nvec = vranks > 0 ? nvec : 0;
    a->vranks = vranks;
}

/* splitmix64's finaliser: a well-mixed 64-bit hash. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

double cs_pattern_lateness(const cs_pattern *a, long call, int rank, int size)
{
    uint64_t h = mix(a->seed ^ mix((uint64_t)call));
    switch (a->kind) {
    case CS_PAT_ONE_LATE: {
        int late = a->late_rank >= 0 ? a->late_rank % size : (int)(h % (uint64_t)size);
        return rank == late ? a->delay : 0;
    }
    case CS_PAT_RANDOM:
        return (double)(mix(h ^ (uint64_t)rank) >> 11) * 0x1.0p-53 * a->delay;
    case CS_PAT_RECORDED:
        return a->nvec ? a->vec[(h % a->nvec) * (size_t)a->vranks + (size_t)(rank % a->vranks)]
                       : 0;
    default:
        return 0;
    }
}

double cs_pattern_max(const cs_pattern *a)
{
    double m = a->kind == CS_PAT_NONE ? 0 : a->delay;
    for (size_t i = 0; a->kind == CS_PAT_RECORDED && i < a->nvec * (size_t)a->vranks; i++)
        m = a->vec[i] > m ? a->vec[i] : m;
    return m;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double cs_pat_now(const cs_pat_run *r)
{
    return mono() + r->offset;
}

/* Rank 0's clock minus ours: the ping-pong of least round trip among 8
 * (Cristian's method), every rank in turn.  Collective over comm. */
static int clock_offset(MPI_Comm comm, int rank, int size, double *off)
{
    int rc = MPI_SUCCESS;
    *off = 0;
    for (int peer = 1; peer < size && rc == MPI_SUCCESS; peer++) {
        double best = 1e9;
        for (int k = 0; k < 8 && rc == MPI_SUCCESS; k++) {
            double t1 = mono(), t0 = 0;
            if (rank == 0) {
                rc = PMPI_Recv(&t1, 1, MPI_DOUBLE, peer, 0x5a7, comm, MPI_STATUS_IGNORE);
                t0 = mono();
                if (rc == MPI_SUCCESS)
                    rc = PMPI_Send(&t0, 1, MPI_DOUBLE, peer, 0x5a7, comm);
            } else if (rank == peer) {
                rc = PMPI_Send(&t1, 1, MPI_DOUBLE, 0, 0x5a7, comm);
                if (rc == MPI_SUCCESS)
                    rc = PMPI_Recv(&t0, 1, MPI_DOUBLE, 0, 0x5a7, comm, MPI_STATUS_IGNORE);
                double t2 = mono();
                if (t2 - t1 < best)
                    best = t2 - t1, *off = t0 - 0.5 * (t1 + t2);
            }
        }
    }
    return rc;
}

int cs_pat_run_init(cs_pat_run *r, const cs_pattern *pat, MPI_Comm sync, int grank, int gsize)
{
    memset(r, 0, sizeof *r);
    r->pat = pat;
    r->grank = grank;
    r->gsize = gsize;
    r->slack = PAT_SLACK0;
    int rank, size, local = 1, one = 0;
    MPI_Comm node;
    PMPI_Comm_rank(sync, &rank);
    PMPI_Comm_size(sync, &size);
    int rc = PMPI_Comm_split_type(sync, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Comm_size(node, &local);
    PMPI_Comm_free(&node);
    r->yield = cs_shm_spin_for(local, 0) == 0; /* a node with more ranks than processors */
    int mine = local == size;
    rc = PMPI_Allreduce(&mine, &one, 1, MPI_INT, MPI_MIN, sync);
    if (rc == MPI_SUCCESS && !one) /* several nodes: their clocks differ */
        rc = clock_offset(sync, rank, size, &r->offset);
    return rc;
}

/* Spin until the clock reads t; the arrival stamp. */
static double spin_until(const cs_pat_run *r, double t)
{
    double now;
    while ((now = cs_pat_now(r)) < t) {
        if (r->yield)
            sched_yield();
#if defined(__x86_64__) || defined(__i386__)
        else
            __builtin_ia32_pause();
#endif
    }
    return now;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of x[0..n) (sorted in place). */
static double median(double *x, int n)
{
    if (n <= 0)
        return 0;
    qsort(x, (size_t)n, sizeof *x, cmp_dbl);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

int cs_pat_parse_work(const char *s, double *seconds, size_t *kib, cs_err *e)
{
    char dur[64];
    const char *colon = strchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : 0;
    char *end = NULL;
    unsigned long long k = colon ? strtoull(colon + 1, &end, 10) : 0;
    if (!colon || len == 0 || len >= sizeof dur || !end || *end || k == 0 || k > (1ULL << 22))
        return cs_fail(e, "work '%s': need DURATION:KIB (e.g. 10ms:2048: 10 ms of sweeps over "
                          "2 MiB), KIB in 1..4194304", s);
    memcpy(dur, s, len);
    dur[len] = 0;
    cs_err e2;
    if (parse_delay(dur, seconds, &e2, s) < 0)
        return cs_fail(e, "work '%s': '%s' is not a duration in (0, 1 s] (e.g. 10ms, 500us)", s,
                       dur);
    *kib = (size_t)k;
    return 0;
}

int cs_pat_set_work(cs_pat_run *r, double seconds, size_t kib)
{
    cs_pat_run_free(r);
    if (!(seconds > 0) || kib == 0)
        return 0;
    size_t n = kib * 1024 / sizeof(double);
    double *w = malloc((n + 2) * sizeof *w);
    if (!w)
        return -1;
    for (size_t j = 0; j < n + 2; j++)
        w[j] = (double)(j * j % 97) / 97.0; /* uneven: every sweep changes it */
    r->work = w, r->work_n = n, r->work_s = seconds;
    return 0;
}

void cs_pat_run_free(cs_pat_run *r)
{
    free(r->work);
    r->work = NULL, r->work_n = 0, r->work_s = 0;
}

/* The run's computation: sweeps (each element from its neighbours, the
 * values kept bounded) until work_s has passed, the clock read every 4096
 * elements. */
static void compute(cs_pat_run *r)
{
    double end = cs_pat_now(r) + r->work_s, *w = r->work;
    for (;;)
        for (size_t j = 1; j <= r->work_n; j++) {
            w[j] = 0.25 * (w[j - 1] + 2 * w[j] + w[j + 1]);
            if (((j & 4095) == 0 || j == r->work_n) && cs_pat_now(r) >= end)
                return;
        }
}

int cs_pat_round(MPI_Comm sync, cs_pat_run *r, int (*fn)(void *, long), void *arg, long *i,
                 int n, double t_start, double out[5])
{
    double now = cs_pat_now(r), start = 0, all[7] = {0, 0, 0, 0, 0, 0, 0};
    /* [0..n): the calls on time; [n..2n): every call */
    double comp[2 * CS_PAT_ROUND_CALLS], span[2 * CS_PAT_ROUND_CALLS];
    double skew[2 * CS_PAT_ROUND_CALLS];
    int rc = PMPI_Barrier(sync), err = MPI_SUCCESS, ontime = 0, done = 0;
    if (n > CS_PAT_ROUND_CALLS)
        n = CS_PAT_ROUND_CALLS;
    if (rc == MPI_SUCCESS) /* the first start: everybody's clock has passed it */
        rc = PMPI_Allreduce(&now, &start, 1, MPI_DOUBLE, MPI_MAX, sync);
    for (int k = 0; k < n && rc == MPI_SUCCESS && all[4] == 0; k++) {
        double target = start + r->work_s + r->slack +
                        cs_pattern_lateness(r->pat, *i, r->grank, r->gsize);
        double mine[7];
        if (r->work)
            compute(r);
        mine[5] = cs_pat_now(r) > target; /* the slack was too short for this rank */
        double a = spin_until(r, target);
        mine[3] = a > target + PAT_LATE_OK; /* not on time: started late, or preempted */
        err = fn(arg, (*i)++);
        double x = cs_pat_now(r);
        mine[0] = x, mine[1] = -a, mine[2] = a, mine[4] = err != MPI_SUCCESS, mine[6] = -x;
        rc = PMPI_Allreduce(mine, all, 7, MPI_DOUBLE, MPI_MAX, sync);
        if (rc != MPI_SUCCESS)
            break;
        if (all[3] == 0) { /* every rank arrived when the pattern said */
            comp[ontime] = all[0] - all[2]; /* last exit - last arrival */
            skew[ontime] = all[0] + all[6]; /* last exit - first exit */
            span[ontime++] = all[0] + all[1]; /* last exit - first arrival */
        }
        comp[CS_PAT_ROUND_CALLS + done] = all[0] - all[2];
        skew[CS_PAT_ROUND_CALLS + done] = all[0] + all[6];
        span[CS_PAT_ROUND_CALLS + done++] = all[0] + all[1];
        r->calls++;
        r->misses += all[3] != 0;
        if (all[5] != 0) { /* longer (the same everywhere) */
            r->slack = fmin(2 * r->slack, PAT_SLACK_MAX);
            r->streak = 0;
        } else if (++r->streak >= 16 && r->slack > PAT_SLACK0) { /* a passing load: back */
            r->slack = fmax(0.5 * r->slack, PAT_SLACK0);
            r->streak = 0;
        }
        start = all[0];
    }
    double el = PMPI_Wtime() - t_start, elmax = el;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(&el, &elmax, 1, MPI_DOUBLE, MPI_MAX, sync);
    /* the median call that kept the pattern; of every call when none did */
    int off = ontime ? 0 : CS_PAT_ROUND_CALLS, m = ontime ? ontime : done;
    out[0] = median(comp + off, m);
    out[1] = elmax;
    out[2] = all[4];
    out[3] = median(span + off, m);
    out[4] = median(skew + off, m);
    if (rc != MPI_SUCCESS)
        return rc;
    if (err != MPI_SUCCESS)
        return err;
    return all[4] != 0 ? MPI_ERR_OTHER : MPI_SUCCESS;
}
