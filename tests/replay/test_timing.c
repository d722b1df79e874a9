/* MPI test of replay/timing.c and the root rotation of replay/op.c:
 *  - a round's time is the maximum over ranks: rank r sleeps (r + 1) x D per
 *    call, so the median per call is >= size x D (lower bounds only: the
 *    machine may be slow, never fast);
 *  - every rank gets the same result (same stop decision, same rounds);
 *  - a very fast closure gets many calls per round (round >= ~100 us);
 *  - a closure that never settles stops at the round/time bound;
 *  - root rotation: ZERO -> 0, FIXED -> root mod size, VARYING -> i mod size,
 *    and cs_rop_run passes those roots to the method. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../record/profile.h"
#include "../../replay/op.h"
#include "../../replay/timing.h"

static int fails, rank, size;
#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "rank %d: %s:%d: FAILED: %s\n", rank, __FILE__, __LINE__, #cond); \
            fails++;                                                                       \
        }                                                                                  \
    } while (0)

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
    cs_method m = {"bcast.test", CS_BCAST, "test", 0, 0, "records roots", NULL, record_root};
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
    CHECK(t.max_us >= 450 && t.min_us < 450);
    same_everywhere(&t);

    test_roots();

    int all;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("timing test at %d ranks: %s\n", size, all ? "FAILED" : "all passed");
    MPI_Finalize();
    return all ? 1 : 0;
}
