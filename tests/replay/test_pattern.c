/* Test of replay/pattern.c (run under MPI at 2 or more ranks):
 *  - parsing: every pattern, canonical names, bad input named;
 *  - draws: one-late makes exactly one rank late per call (R, or drawn),
 *    random stays within [0, D] and varies, recorded returns a recorded
 *    vector's entries, and every rank computes the same lateness;
 *  - timing (MPI): a barrier with one rank 20 ms late: completion far
 *    below the delay, the exit span at least the delay (the delay is never
 *    counted in the completion, it is in the span); a call in which the
 *    last rank to arrive works W after its arrival: completion >= W (the
 *    completion starts at the LAST arrival); the results are the same on
 *    every rank; cs_time_collective under a pattern reports them; work
 *    before each call (cs_pat_set_work, "DURATION:KIB" parsed) runs on
 *    every rank, writes its memory and never counts in the completion. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "replay/pattern.h"
#include "replay/timing.h"
#include "check.h"

static int fails, rank, size;

static void test_parse(void)
{
    cs_pattern a;
    cs_err e;
    char b[CS_PAT_NAME_MAX];
    CHECK(cs_pattern_parse("none", &a, &e) == 0 && a.kind == CS_PAT_NONE);
    CHECK(cs_pattern_parse("recorded", &a, &e) == 0 && a.kind == CS_PAT_RECORDED);
    CHECK(cs_pattern_parse("one-late:20us", &a, &e) == 0 && a.kind == CS_PAT_ONE_LATE &&
          fabs(a.delay - 20e-6) < 1e-12 && a.late_rank == -1);
    CHECK(!strcmp(cs_pattern_name(&a, b, sizeof b), "one-late:20us"));
    CHECK(cs_pattern_parse("one-late:1.5ms@3", &a, &e) == 0 && a.late_rank == 3 &&
          fabs(a.delay - 1.5e-3) < 1e-12);
    CHECK(!strcmp(cs_pattern_name(&a, b, sizeof b), "one-late:1500us@3"));
    CHECK(cs_pattern_parse("random:500ns", &a, &e) == 0 && a.kind == CS_PAT_RANDOM &&
          fabs(a.delay - 5e-7) < 1e-15);
    CHECK(!strcmp(cs_pattern_name(&a, b, sizeof b), "random:0.5us"));
    CHECK(cs_pattern_parse("random:7", &a, &e) == 0 && fabs(a.delay - 7e-6) < 1e-15);
    const char *badones[] = {"late:20us", "one-late:", "one-late:20xs", "one-late:0us",
                             "random:2s", "random:5us@1", "one-late:5us@x", "one-late:-3us", ""};
    for (size_t i = 0; i < sizeof badones / sizeof badones[0]; i++) {
        e.msg[0] = 0;
        CHECK(cs_pattern_parse(badones[i], &a, &e) < 0 && strstr(e.msg, "arrival pattern"));
    }
    cs_pattern l[4];
    int n;
    CHECK(cs_pattern_parse_list("recorded,none", l, 4, &n, &e) == 0 && n == 2 &&
          l[0].kind == CS_PAT_RECORDED && l[1].kind == CS_PAT_NONE);
    CHECK(cs_pattern_parse_list("none,bogus", l, 4, &n, &e) < 0 && strstr(e.msg, "bogus"));
    CHECK(cs_pattern_parse_list(",", l, 4, &n, &e) < 0);
    double ws;
    size_t wk;
    CHECK(cs_pat_parse_work("10ms:2048", &ws, &wk, &e) == 0 && fabs(ws - 10e-3) < 1e-12 &&
          wk == 2048);
    CHECK(cs_pat_parse_work("500us:1", &ws, &wk, &e) == 0 && fabs(ws - 5e-4) < 1e-12 && wk == 1);
    const char *badwork[] = {"10ms", "10ms:", ":2048", "10xs:2048", "2s:2048", "10ms:0",
                             "10ms:12k", "0us:4", "10ms:99999999"};
    for (size_t i = 0; i < sizeof badwork / sizeof badwork[0]; i++) {
        e.msg[0] = 0;
        CHECK(cs_pat_parse_work(badwork[i], &ws, &wk, &e) < 0 && strstr(e.msg, "work '"));
    }
}

static void test_draws(void)
{
    cs_pattern a;
    cs_err e;
    cs_pattern_parse("one-late:10us", &a, &e);
    int hits[8] = {0};
    for (long c = 0; c < 800; c++) {
        int late = 0, who = -1;
        for (int r = 0; r < 8; r++)
            if (cs_pattern_lateness(&a, c, r, 8) > 0)
                late++, who = r;
            else
                CHECK(cs_pattern_lateness(&a, c, r, 8) == 0);
        CHECK(late == 1);
        if (who >= 0)
            hits[who]++;
    }
    for (int r = 0; r < 8; r++) /* drawn uniformly: 100 expected each */
        CHECK(hits[r] > 50 && hits[r] < 150);
    cs_pattern_parse("one-late:10us@2", &a, &e);
    for (long c = 0; c < 50; c++)
        for (int r = 0; r < 4; r++)
            CHECK(cs_pattern_lateness(&a, c, r, 4) == (r == 2 ? a.delay : 0) && fabs(a.delay - 10e-6) < 1e-15);
    cs_pattern_parse("random:10us", &a, &e);
    double lo = 1, hi = 0;
    for (long c = 0; c < 500; c++)
        for (int r = 0; r < 4; r++) {
            double x = cs_pattern_lateness(&a, c, r, 4);
            CHECK(x >= 0 && x <= 10e-6);
            CHECK(x == cs_pattern_lateness(&a, c, r, 4));
            lo = x < lo ? x : lo, hi = x > hi ? x : hi;
        }
    CHECK(lo < 1e-6 && hi > 9e-6);
    double vec[3 * 2] = {0, 5e-6, 7e-6, 0, 1e-6, 2e-6};
    cs_pattern_parse("recorded", &a, &e);
    CHECK(cs_pattern_lateness(&a, 3, 1, 2) == 0); /* no samples: all at once */
    cs_pattern_set_samples(&a, vec, 3, 2);
    int seen[3] = {0};
    for (long c = 0; c < 300; c++) {
        double x0 = cs_pattern_lateness(&a, c, 0, 2), x1 = cs_pattern_lateness(&a, c, 1, 2);
        int k = -1;
        for (int v = 0; v < 3; v++)
            if (vec[2 * v] == x0 && vec[2 * v + 1] == x1)
                k = v;
        CHECK(k >= 0);
        if (k >= 0)
            seen[k]++;
    }
    CHECK(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
}

/* The closure of the timing tests: a barrier; with work > 0 the last rank
 * to arrive (the late one) works that long first (after > 0: that long
 * after the barrier, so it leaves that much after the others). */
typedef struct call_arg {
    const cs_pattern *pat;
    double work, after;
} call_arg;

static int late_call(void *arg, long i)
{
    call_arg *c = arg;
    if (c->work > 0 && cs_pattern_lateness(c->pat, i, rank, size) > 0) {
        double until = MPI_Wtime() + c->work;
        while (MPI_Wtime() < until)
            ;
    }
    int rc = PMPI_Barrier(MPI_COMM_WORLD);
    if (c->after > 0 && cs_pattern_lateness(c->pat, i, rank, size) > 0) {
        double until = MPI_Wtime() + c->after;
        while (MPI_Wtime() < until)
            ;
    }
    return rc;
}

static void same_everywhere(double x)
{
    double mn, mx;
    MPI_Allreduce(&x, &mn, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&x, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(mn == mx);
}

static void test_timing(void)
{
    cs_pattern a;
    cs_err e;
    cs_pattern_parse("one-late:20ms", &a, &e);
    cs_pat_run run;
    CHECK(cs_pat_run_init(&run, &a, MPI_COMM_WORLD, rank, size) == MPI_SUCCESS);
    CHECK(run.offset == 0); /* one node */
    call_arg c = {&a, 0, 0};
    long i = 0;
    double out[5];
    CHECK(cs_pat_round(MPI_COMM_WORLD, &run, late_call, &c, &i, 4, MPI_Wtime(), out) ==
          MPI_SUCCESS);
    CHECK(i == 4);
    CHECK(out[0] >= 0 && out[0] < 10e-3); /* a barrier after the last arrival: not the delay */
    CHECK(out[3] >= 20e-3);               /* the earliest rank waited the delay */
    CHECK(out[2] == 0);
    same_everywhere(out[0]);
    same_everywhere(out[3]);

    c.work = 30e-3; /* the late rank works 30 ms after it arrives */
    cs_pattern_parse("one-late:5ms", &a, &e);
    CHECK(cs_pat_round(MPI_COMM_WORLD, &run, late_call, &c, &i, 2, MPI_Wtime(), out) ==
          MPI_SUCCESS);
    CHECK(out[0] >= 30e-3);
    CHECK(out[3] >= 35e-3);
    same_everywhere(out[0]);

    /* the late rank leaves 20 ms after the others: the exit skew */
    c.work = 0, c.after = 20e-3;
    CHECK(cs_pat_round(MPI_COMM_WORLD, &run, late_call, &c, &i, 2, MPI_Wtime(), out) ==
          MPI_SUCCESS);
    CHECK(size < 2 || out[4] >= 19e-3); /* its spin starts a moment before the others leave */
    CHECK(out[4] <= out[0] + 1e-9); /* within the completion */
    same_everywhere(out[4]);
    c.after = 0;

    /* an application's computation before each call (cs_pat_set_work): 10
     * ms per call on every rank, over its own 64 KiB, never in the
     * completion; the pattern's instants move by it */
    cs_pattern_parse("none", &a, &e);
    CHECK(cs_pat_set_work(&run, 10e-3, 64) == 0 && run.work && run.work_n == 64 * 128);
    double w0 = run.work[100], t0 = MPI_Wtime();
    CHECK(cs_pat_round(MPI_COMM_WORLD, &run, late_call, &c, &i, 3, t0, out) == MPI_SUCCESS);
    CHECK(out[1] >= 30e-3);  /* 3 calls, each after 10 ms of work */
    CHECK(out[0] < 5e-3);    /* a barrier's completion: not the work */
    CHECK(run.work[100] != w0); /* the sweeps wrote the memory */
    same_everywhere(out[0]);
    cs_pat_run_free(&run);
    CHECK(!run.work && run.work_s == 0);

    cs_timing_opts o;
    memset(&o, 0, sizeof o);
    o.arrivals = &run;
    o.calls_per_round = 4;
    o.min_rounds = 5;
    o.max_rounds = 5;
    o.warmup = 1;
    c.work = 0;
    cs_pattern_parse("one-late:20ms", &a, &e);
    cs_timing t;
    CHECK(cs_time_collective(MPI_COMM_WORLD, late_call, &c, &o, &t) == MPI_SUCCESS);
    CHECK(t.rounds == 5);
    /* medians of 5 rounds: a loaded machine may preempt a rank in a call,
     * or make the early rank miss its time (its arrival then comes later) */
    if (!(t.median_us < 10e3 && t.span_us >= 10e3))
        fprintf(stderr, "completion %.1f us, span %.1f us\n", t.median_us, t.span_us);
    CHECK(t.median_us < 10e3 && t.span_us >= 10e3);
    same_everywhere(t.median_us);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_parse();
    test_draws();
    if (size >= 2)
        test_timing();
    else
        CHECK(!"run at 2 ranks or more");
    int all;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s (%d failure(s))\n", all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
