/* MPI test of replay/timing.c and the root rotation of replay/op.c:
 *  - a round's time is the maximum over ranks: rank r sleeps (r + 1) x D per
 *    call, so the median per call is >= size x D (lower bounds only: the
 *    machine may be slow, never fast; no check here compares two timings
 *    or bounds one from above, as a busy machine can stretch any round);
 *  - every rank gets the same result (same stop decision, same rounds);
 *  - a very fast closure gets many calls per round (round >= ~100 us);
 *  - a closure that never settles stops at the round/time bound;
 *  - interleaved timing: every closure gets the same number of rounds, in
 *    a shuffled order per cycle (cs_time_order: no closure always after the
 *    same one), results identical on every rank, bounds respected;
 *    the shared round size is a power of two;
 *  - root rotation: ZERO -> 0, FIXED -> root mod size, VARYING -> i mod size,
 *    and cs_rop_run passes those roots to the method;
 *  - a point's groups (cs_replay_comm): floor(P/s) disjoint groups of
 *    consecutive ranks working at once, synced over all of them (a round's
 *    time is the slowest group's), or one group with --alone; the rest idle;
 *  - the deterministic-clock probe says no on real hardware. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "record/profile.h"
#include "replay/op.h"
#include "replay/replay.h"
#include "replay/timing.h"
#include "check.h"

static int fails, rank, size;

#define D_US 300.0

static int sleeper(void *arg, long i)
{
    (void)arg;
    (void)i;
    double until = MPI_Wtime() + (rank + 1) * D_US * 1e-6;
    while (MPI_Wtime() < until)
        ;
    return MPI_SUCCESS;
}

static int noop(void *arg, long i)
{
    (void)i;
    (*(long *)arg)++;
    return MPI_SUCCESS;
}

/* Alternately fast and 5x slower rounds on rank 0: never within 5 %. */
static int erratic(void *arg, long i)
{
    long *calls_per_round = arg;
    double d = ((i / *calls_per_round) % 2 ? 500e-6 : 100e-6);
    double until = MPI_Wtime() + (rank == 0 ? d : 0);
    while (MPI_Wtime() < until)
        ;
    return MPI_SUCCESS;
}

/* Busy for *(double *)arg seconds on rank 0; records the cycle order. */
static int order_log[64], norder;
static int spin0(void *arg, long i)
{
    (void)i;
    double until = MPI_Wtime() + (rank == 0 ? *(double *)arg : 0);
    while (MPI_Wtime() < until)
        ;
    return MPI_SUCCESS;
}
static int tagged(void *arg, long i)
{
    (void)i;
    if (norder < 64)
        order_log[norder++] = *(int *)arg;
    return MPI_SUCCESS;
}

/* The result must be identical on all ranks. */
static void same_everywhere(const cs_timing *t)
{
    double v[4] = {t->median_us, t->min_us, (double)t->rounds, (double)t->calls_per_round};
    double lo[4], hi[4];
    MPI_Allreduce(v, lo, 4, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(v, hi, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int k = 0; k < 4; k++)
        CHECK(lo[k] == hi[k]);
}

/* A fake method that records the roots it is called with. */
static int roots_seen[64], nroots_seen;
static int record_root(const cs_call *c, const cs_method *m)
{
    (void)m;
    if (nroots_seen < 64)
        roots_seen[nroots_seen++] = c->root;
    return MPI_SUCCESS;
}

static void test_roots(void)
{
    cs_rop op;
    cs_method m = CS_METHOD(CS_BCAST, "bcast.test", "test", 0, 0, "records roots", NULL, record_root);
    CHECK(cs_rop_init(&op, CS_BCAST, MPI_COMM_WORLD, 100, CS_ROOT_VARYING, 0) == MPI_SUCCESS);
    op.m = &m;
    nroots_seen = 0;
    for (long i = 0; i < 2 * size; i++)
        cs_rop_run(&op, i);
    for (int i = 0; i < 2 * size; i++)
        CHECK(roots_seen[i] == i % size);
    op.root_mode = CS_ROOT_FIXED;
    op.root = size + 1; /* modulo the size */
    CHECK(cs_rop_root(&op, 0) == 1 % size && cs_rop_root(&op, 5) == 1 % size);
    op.root_mode = CS_ROOT_ZERO;
    CHECK(cs_rop_root(&op, 3) == 0);
    CHECK(op.call.bytes == 100 && op.call.count == 100 && op.call.size == size);
    cs_rop_free(&op);
    CHECK(cs_rop_init(&op, CS_REDUCE, MPI_COMM_WORLD, 100, CS_ROOT_ZERO, 0) == MPI_SUCCESS);
    CHECK(op.call.bytes == 104 && op.call.count == 13 && op.call.dt == MPI_DOUBLE);
    cs_rop_free(&op);
}

static void test_interleaved(void)
{
    double d[2] = {100e-6, 300e-6};
    cs_timed f[2] = {{spin0, &d[0], 0}, {spin0, &d[1], 0}};
    cs_timing_opts o;
    memset(&o, 0, sizeof o);
    o.calls_per_round = 1;
    o.warmup = 1;
    o.min_rounds = 4;
    o.max_rounds = 6;
    o.max_seconds = 10;
    cs_timing t[2];
    double x[12];
    CHECK(cs_time_interleaved(MPI_COMM_WORLD, f, 2, &o, t, x) == MPI_SUCCESS);
    for (int k = 0; k < 2; k++) {
        CHECK(t[k].rounds == 6 && t[k].calls_per_round == 1);
        CHECK(f[k].i == 7); /* warm-up + 6 rounds of 1 call */
        CHECK(t[k].median_us >= d[k] * 1e6 * 0.999);
        CHECK(t[k].min_us <= t[k].median_us && t[k].median_us <= t[k].max_us);
        same_everywhere(&t[k]);
        for (int c = 0; c < 6; c++)
            CHECK(x[k * 6 + c] * 1e6 >= t[k].min_us * 0.999 && x[k * 6 + c] * 1e6 <= t[k].max_us * 1.001);
    }
    /* (each closure's own lower bound above is what tells them apart:
     * rounds given to the wrong closure put 100 us under the 300 us one) */
    /* time bound: at least min_rounds cycles, then stop */
    o.max_rounds = 100000;
    o.min_rounds = 3;
    o.max_seconds = 0.01;
    CHECK(cs_time_interleaved(MPI_COMM_WORLD, f, 2, &o, t, NULL) == MPI_SUCCESS);
    CHECK(t[0].rounds >= 3 && t[0].rounds == t[1].rounds && t[0].rounds < 100);
    same_everywhere(&t[0]);
    /* order: every cycle runs each closure once, in cs_time_order's order */
    int id[3] = {0, 1, 2};
    cs_timed g[3] = {{tagged, &id[0], 0}, {tagged, &id[1], 0}, {tagged, &id[2], 0}};
    o.warmup = 0;
    o.min_rounds = o.max_rounds = 20;
    norder = 0;
    CHECK(cs_time_interleaved(MPI_COMM_WORLD, g, 3, &o, t, NULL) == MPI_SUCCESS);
    CHECK(norder == 60);
    int follows[3][3] = {{0}};
    for (int c = 0; c < 20 && norder == 60; c++) {
        int want[3];
        cs_time_order(want, 3, c);
        for (int j = 0; j < 3; j++) {
            CHECK(order_log[3 * c + j] == want[j]);
            if (3 * c + j > 0)
                follows[order_log[3 * c + j]][order_log[3 * c + j - 1]]++;
        }
    }
    /* ... and no closure always follows the same one (a rotated order
     * would: 0 1 2, 1 2 0, 2 0 1 puts 0 after 2 every time) */
    for (int k = 0; k < 3; k++) {
        int preds = 0;
        for (int j = 0; j < 3; j++)
            preds += j != k && follows[k][j] > 0;
        CHECK(preds == 2);
    }
    /* cs_time_order: a permutation, its adjacent pairs and first places
     * spread evenly (4 closures, 1200 cycles: 300 expected each) */
    int pairs[4][4] = {{0}}, first[4] = {0};
    for (int c = 0; c < 1200; c++) {
        int p[4], seen = 0;
        cs_time_order(p, 4, c);
        for (int j = 0; j < 4; j++) {
            CHECK(p[j] >= 0 && p[j] < 4 && !(seen & 1 << p[j]));
            seen |= 1 << (p[j] & 3);
            if (j > 0)
                pairs[p[j]][p[j - 1]]++;
        }
        first[p[0] & 3]++;
    }
    for (int k = 0; k < 4; k++) {
        CHECK(first[k] > 200 && first[k] < 400);
        for (int j = 0; j < 4; j++)
            CHECK(j == k ? pairs[k][j] == 0 : pairs[k][j] > 200 && pairs[k][j] < 400);
    }
    /* the shared round size: a power of two, identical everywhere */
    long calls = 0;
    cs_timed nf = {noop, &calls, 0};
    int r = 0;
    double pc = 0;
    memset(&o, 0, sizeof o);
    CHECK(cs_time_round_size(MPI_COMM_WORLD, &nf, &o, &r, &pc) == MPI_SUCCESS);
    CHECK(r > 10 && (r & (r - 1)) == 0 && nf.i == calls);
    int rmin, rmax;
    MPI_Allreduce(&r, &rmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&r, &rmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(rmin == rmax);
}

static int comm_size(MPI_Comm c)
{
    int n = -1;
    if (c != MPI_COMM_NULL)
        MPI_Comm_size(c, &n);
    return n;
}

static int group_sleeper(void *arg, long i)
{
    (void)i;
    MPI_Comm c = *(MPI_Comm *)arg;
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    struct timespec d = {0, (long)(r + 1) * D_US * 1000};
    nanosleep(&d, NULL);
    return MPI_Barrier(c); /* the group's own collective */
}

static void test_groups(void)
{
    for (int s = 1; s <= size; s++)
        for (int alone = 0; alone < 2; alone++) {
            cs_replay_group g = cs_replay_comm(s, alone);
            int groups = alone ? 1 : size / s, in = rank < groups * s;
            CHECK(g.groups == groups);
            CHECK(in ? comm_size(g.comm) == s : g.comm == MPI_COMM_NULL);
            CHECK(in ? comm_size(g.sync) == groups * s : g.sync == MPI_COMM_NULL);
            CHECK((g.sync == g.comm) == (groups == 1));
            if (in) { /* consecutive ranks: group rank = world rank mod s */
                int gr;
                MPI_Comm_rank(g.comm, &gr);
                CHECK(gr == rank % s);
            }
            cs_replay_group again = cs_replay_comm(s, alone); /* cached: no new split */
            CHECK(again.comm == g.comm && again.sync == g.sync);
        }
    /* size 1 groups (one per rank) run at once; the round takes the
     * slowest, rank size - 1: size x D */
    cs_replay_group g = cs_replay_comm(1, 0);
    cs_timing_opts o;
    cs_timing t;
    memset(&o, 0, sizeof o);
    o.max_seconds = 0.2;
    o.calls_per_round = 1;
    CHECK(cs_time_collective(g.sync, group_sleeper, &g.comm, &o, &t) == MPI_SUCCESS);
    CHECK(t.median_us >= size * D_US * 0.999);
    same_everywhere(&t);
    int det = 1;
    cs_timed f = {group_sleeper, &g.comm, 0};
    CHECK(cs_time_deterministic(g.sync, &f, &det) == MPI_SUCCESS && det == 0);
    CHECK(cs_time_same(1e-6, 1e-6 + 5e-12, 0) && !cs_time_same(1e-6, 1.001e-6, 1e-4));
    CHECK(cs_time_same(1e-6, 1.00001e-6, 1e-4));
    cs_replay_comms_free();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cs_timing_opts o;
    cs_timing t;
    memset(&o, 0, sizeof o);
    o.max_seconds = 0.3;

    CHECK(cs_time_collective(MPI_COMM_WORLD, sleeper, NULL, &o, &t) == MPI_SUCCESS);
    CHECK(t.median_us >= size * D_US * 0.999);
    CHECK(t.min_us <= t.median_us && t.median_us <= t.max_us);
    CHECK(t.ci_lo_us <= t.median_us && t.median_us <= t.ci_hi_us);
    CHECK(t.rounds >= 5 && t.calls_per_round == 1);
    same_everywhere(&t);

    long calls = 0;
    CHECK(cs_time_collective(MPI_COMM_WORLD, noop, &calls, &o, &t) == MPI_SUCCESS);
    CHECK(t.calls_per_round > 10 && calls >= (long)t.rounds * t.calls_per_round);
    CHECK(t.median_us > 0);
    same_everywhere(&t);

    cs_timing_opts eo = o;
    eo.max_rounds = 12;
    eo.max_seconds = 10;
    eo.max_round_calls = 1;
    long one = 1;
    CHECK(cs_time_collective(MPI_COMM_WORLD, erratic, &one, &eo, &t) == MPI_SUCCESS);
    CHECK(!t.converged && t.rounds == 12);
    CHECK(t.max_us >= 450 && t.min_us >= 100 * 0.999);
    same_everywhere(&t);

    test_roots();
    test_interleaved();
    test_groups();

    int all;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("timing test at %d ranks: %s\n", size, all ? "FAILED" : "all passed");
    MPI_Finalize();
    return all ? 1 : 0;
}
