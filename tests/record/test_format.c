/* Unit test: serialisation and file round trips, partial files and
 * cs_profile_load, and rejection of empty, truncated, corrupted, foreign and
 * newer-version files (every truncation length, every flipped byte). */
#include <dirent.h>
#include <math.h>
#include <unistd.h>

#include "record/show_explore.h"
#include "testprof.h"

static char dir[256];

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static void put_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static void sample(cs_profile *p)
{
    t_random_profile(p, 25, 6);
    p->meta.mpi_library = strdup("Open MPI v4.1.4 \"test\"");
    p->meta.cmdline = strdup("./app --n 3\tx");
    p->meta.hostname0 = strdup("node0");
    p->meta.world_size = 8;
    p->meta.nnodes = 2;
    p->meta.ranks_per_node = 4;
    p->meta.start_time = 1700000000;
    p->meta.duration = 12.25;
    p->complete = 1;
    /* methods explored in the application (explore.h) */
    cs_xcell x[3] = {{1, 4, 8, "reduce.native", 100, 1e-4, 1.1e-10, 5e-7, 2},
                     {1, 4, 8, "reduce.shm.direct", 90, 4.5e-5, 2.4e-11, 3e-7, 0},
                     {0, 4, 2097152, "bcast.shm.tree.k2", 8, 8e-4, 8.2e-8, 9e-5, 1}};
    p->xtab.k = 3;
    for (int i = 0; i < 3; i++)
        T_CHECK(cs_xtab_add(&p->xtab, &x[i]) == 0, "xtab add");
}

/* Bytes of p's explored table at the end of its payload (version 5). */
static size_t xtab_bytes(const cs_profile *p)
{
    cs_buf b = {0};
    cs_xtab_serialize(&p->xtab, &b);
    size_t n = b.n;
    cs_buf_free(&b);
    return n;
}

/* The explored table: sums add by key, sorted, bounded; the mean and its
 * interval. */
static void test_explore(void)
{
    cs_xtab t = {0}, u = {0};
    cs_xcell a = {2, 2, 8, "allreduce.native", 4, 4e-6, 4.2e-12, 8e-7, 0};
    cs_xcell b = {2, 2, 8, "allreduce.shm.direct", 2, 1e-6, 5e-13, 4e-7, 1};
    T_CHECK(cs_xtab_add(&t, &b) == 0 && cs_xtab_add(&t, &a) == 0 && t.n == 2, "add");
    T_CHECK(!strcmp(t.x[0].method, "allreduce.native"), "sorted by method: %s", t.x[0].method);
    T_CHECK(cs_xtab_add(&u, &a) == 0 && cs_xtab_merge(&t, &u) == 0, "merge");
    const cs_xcell *n = cs_xtab_find(&t, 2, 2, 8, "allreduce.native");
    double h, m = n ? cs_xcell_mean(n, &h) : -1;
    /* 8 calls: sum 8e-6 (mean 1 us), sum of squares 8.4e-12: variance
     * (8.4e-12 - 8e-12) / 7 */
    T_CHECK(n && n->calls == 8 && fabs(m - 1e-6) < 1e-15 &&
                fabs(h - 1.96 * sqrt(0.4e-12 / 7 / 8)) < 1e-12 && n->tmin == 8e-7,
            "native: %llu calls, mean %g +- %g", n ? (unsigned long long)n->calls : 0ull, m, h);
    T_CHECK(!cs_xtab_find(&t, 2, 2, 16, "allreduce.native"), "no such point");
    for (uint64_t k = 0; k < CS_XTAB_MAX + 10; k++) {
        cs_xcell c = {0, 2, 1000 + k, "bcast.native", 3, 1e-6, 1e-12, 1e-7, 0};
        T_CHECK(cs_xtab_add(&u, &c) == 0, "add %llu", (unsigned long long)k);
    }
    T_CHECK(u.n == CS_XTAB_MAX && u.dropped == 3 * 11, "bounded: %zu entries, %llu dropped",
            u.n, (unsigned long long)u.dropped);
    cs_xtab_free(&t);
    cs_xtab_free(&u);
}

/* A run's table at one point: native 20 calls of 10 us, a method 20 calls
 * of m us (a little spread each); *total: the run's collective seconds. */
static void expect_run(cs_xtab *t, double m, double *total)
{
    cs_xcell nat = {CS_ALLREDUCE, 2, 8, "allreduce.native", 20, 20 * 10e-6, 20 * 1e-10 * 1.0001, 9e-6, 0};
    cs_xcell x = {CS_ALLREDUCE, 2, 8, "allreduce.shm.direct", 20, 20 * m * 1e-6, 20 * m * m * 1e-12 * 1.0001,
                  m * 0.9e-6, 0};
    T_CHECK(cs_xtab_add(t, &nat) == 0 && cs_xtab_add(t, &x) == 0, "add");
    *total = nat.t + x.t;
}

/* The expectation of explored runs: native everywhere 400 us (40 calls of
 * 10), the method's 40 m; over runs, the jackknife's interval. */
static void test_expect(void)
{
    cs_xtab runs[3] = {{0}}, same[3] = {{0}};
    double totals[3], tsame[3], nat, best, half, ratio;
    const double m[3] = {4, 5, 6};
    for (int i = 0; i < 3; i++) {
        expect_run(&runs[i], m[i], &totals[i]);
        expect_run(&same[i], 5, &tsame[i]);
    }
    T_CHECK(cs_xtab_expect(&runs[0], totals[0], &nat, &best, &half) == 0 &&
                fabs(nat - 400e-6) < 1e-12 && fabs(best - 160e-6) < 1e-12 && half > 0,
            "one run: native %g, best %g, +- %g", nat, best, half);
    /* leaving one out: 0.55, 0.5, 0.45; jackknife variance 2/3 x 0.005,
     * t(2) = 4.30 */
    T_CHECK(cs_xtab_expect_runs(runs, totals, 3, &ratio, &half) == 0 && fabs(ratio - 0.5) < 1e-9 &&
                fabs(half - 4.30 * sqrt(0.005 * 2 / 3)) < 1e-6,
            "3 runs: %g +- %g", ratio, half);
    /* equal runs: no spread between them, the calls' own interval stays */
    cs_xtab all = {0};
    double q;
    for (int i = 0; i < 3; i++)
        T_CHECK(cs_xtab_merge(&all, &same[i]) == 0, "merge");
    T_CHECK(cs_xtab_expect(&all, 3 * tsame[0], &nat, &best, &q) == 0 && q > 0, "merged");
    T_CHECK(cs_xtab_expect_runs(same, tsame, 3, &ratio, &half) == 0 && fabs(ratio - 0.5) < 1e-9 &&
                fabs(half - q / nat) < 1e-9,
            "3 equal runs: %g +- %g (the calls' %g)", ratio, half, q / nat);
    cs_xtab_free(&all);
    /* a threshold crossed by all the runs only: 4 calls each of native
     * (10 us) and the method (5 us) per run; any 2 runs have 8 of each,
     * fewer than decide (CS_XMIN_CALLS), all 3 have 12.  Left out in turn,
     * every ratio is 1 (no spread); together 0.5 (every call at 5 us):
     * the half width is at least that jump. */
    cs_xtab few[3] = {{0}};
    double tfew[3];
    for (int i = 0; i < 3; i++) {
        cs_xcell fn = {CS_ALLREDUCE, 2, 8, "allreduce.native", 4, 4 * 10e-6, 4 * 1e-10 * 1.0001, 9e-6, 0};
        cs_xcell fx = {CS_ALLREDUCE, 2, 8, "allreduce.shm.direct", 4, 4 * 5e-6, 4 * 25e-12 * 1.0001,
                       4.5e-6, 0};
        T_CHECK(cs_xtab_add(&few[i], &fn) == 0 && cs_xtab_add(&few[i], &fx) == 0, "add");
        tfew[i] = fn.t + fx.t;
    }
    T_CHECK(cs_xtab_expect_runs(few, tfew, 3, &ratio, &half) == 0 && fabs(ratio - 0.5) < 1e-9 &&
                half >= 0.5 - 1e-9,
            "a threshold crossed by all runs only: %g +- %g", ratio, half);
    for (int i = 0; i < 3; i++)
        cs_xtab_free(&few[i]);
    T_CHECK(cs_xtab_expect_runs(runs, totals, 1, &ratio, &half) == -1, "one run: no spread");
    cs_xtab empty = {0};
    T_CHECK(cs_xtab_expect(&empty, 1, &nat, &best, &half) == -1, "nothing explored");
    for (int i = 0; i < 3; i++)
        cs_xtab_free(&runs[i]), cs_xtab_free(&same[i]);
}

/* The making of a segment (COLL.segment, record/explore.h): not a method,
 * kept out of native's time, charged to the best where that needs one. */
/* collsel show --explored --csv of table t (K 2), malloc'd. */
static char *explored_csv(const cs_xtab *t)
{
    cs_profile p;
    cs_profile_init(&p);
    p.xtab = *t;
    p.xtab.k = 2;
    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    T_CHECK(f && cs_show_explored(f, "t.prof", &p, 1) == 0, "show --explored --csv");
    if (f)
        fclose(f);
    return csv;
}

static void test_segment(void)
{
    cs_xtab t = {0};
    double total, nat, best, half, sec;
    uint64_t n;
    expect_run(&t, 5, &total); /* native 200 us, shm.direct 100 us */
    cs_xcell seg = {CS_ALLREDUCE, 2, 8, "allreduce" CS_SEGMENT_SUFFIX, 2, 300e-6, 0, 140e-6, 0};
    T_CHECK(cs_xtab_add(&t, &seg) == 0, "add");
    total += seg.t; /* the run's recorded time holds the making */
    const cs_xcell *x = cs_xtab_find(&t, CS_ALLREDUCE, 2, 8, "allreduce.segment");
    T_CHECK(x && cs_xcell_is_segment(x) && !cs_xcell_beats(x, cs_xtab_native(&t, x)),
            "a segment is not a method");
    T_CHECK(cs_xtab_segment(&t, CS_ALLREDUCE, 2, &sec, &n) == 0 && n == 2 &&
                fabs(sec - 150e-6) < 1e-12, "the segment per rank: %g s over %llu", sec,
            (unsigned long long)n);
    T_CHECK(cs_xtab_segment(&t, CS_ALLREDUCE, 4, &sec, &n) == -1 && n == 0, "none at 4 ranks");
    /* native: 40 calls of 10 us, no segment; best: 40 of 5 us and the 300 */
    T_CHECK(cs_xtab_expect(&t, total, &nat, &best, &half) == 0 && fabs(nat - 400e-6) < 1e-12 &&
                fabs(best - 500e-6) < 1e-12,
            "with a segment: native %g, best %g", nat, best);
    T_CHECK(cs_xtab_undecided(&t, 0) == 0, "2 segment calls leave nothing undecided");
    /* the CSV: the segment row after the methods', and none for a
     * collective without a native row (collsel tune builds no tree from a
     * segment alone: seen with mpi4py, an allreduce size explored a few
     * times) */
    cs_xcell lone = {CS_BCAST, 2, 4096, "bcast" CS_SEGMENT_SUFFIX, 2, 200e-6, 0, 90e-6, 0};
    cs_xcell other = {CS_BCAST, 2, 4096, "bcast.shm.ota", 3, 3e-6, 3e-12, 1e-6, 0};
    T_CHECK(cs_xtab_add(&t, &lone) == 0 && cs_xtab_add(&t, &other) == 0, "add");
    char *csv = explored_csv(&t);
    T_CHECK(csv && strstr(csv, "\nallreduce,2,0,allreduce.segment,150,150,150,2,application\n") &&
                !strstr(csv, "bcast.segment"),
            "segment rows: %s", csv ? csv : "(none)");
    free(csv);
    cs_xtab_free(&t);
    /* a best that needs none (a point-to-point method): the making goes */
    cs_xtab u = {0};
    cs_xcell un = {CS_ALLREDUCE, 2, 8, "allreduce.native", 20, 20 * 10e-6, 20 * 1e-10 * 1.0001, 9e-6, 0};
    cs_xcell ux = {CS_ALLREDUCE, 2, 8, "allreduce.ring", 20, 20 * 5e-6, 20 * 25e-12 * 1.0001, 4.5e-6, 0};
    T_CHECK(cs_xtab_add(&u, &un) == 0 && cs_xtab_add(&u, &ux) == 0 && cs_xtab_add(&u, &seg) == 0,
            "add");
    T_CHECK(cs_xtab_expect(&u, un.t + ux.t + seg.t, &nat, &best, &half) == 0 &&
                fabs(nat - 400e-6) < 1e-12 && fabs(best - 200e-6) < 1e-12,
            "a best without a segment: native %g, best %g", nat, best);
    cs_xtab_free(&u);
}

/* A point's first calls (METHOD@first): not a method's calls, and in the
 * expectation native's first calls stand for them on the native side, the
 * best method's on the other (as with the receive buffer's first touch:
 * native 1000 us, shm.direct 200 us); with no first call of the best
 * method drawn, or first calls that differ within their noise, they stay
 * as recorded.  The uncounted calls (COLL.uncounted) count at native's
 * and the best method's means. */
static void test_first(void)
{
    cs_xtab t = {0};
    double total, nat, best, half;
    expect_run(&t, 5, &total); /* native 200 us, shm.direct 100 us */
    cs_xcell fn = {CS_ALLREDUCE, 2, 8, "allreduce.native" CS_FIRST_SUFFIX, 2, 2e-3, 0, 990e-6, 0},
             fx = {CS_ALLREDUCE, 2, 8, "allreduce.shm.direct" CS_FIRST_SUFFIX, 1, 200e-6, 0,
                   200e-6, 0};
    T_CHECK(cs_name_is_first(fn.method) && !cs_name_is_first("allreduce.native") &&
                !cs_name_is_segment(fn.method), "the names");
    T_CHECK(cs_xtab_add(&t, &fn) == 0, "add");
    total += fn.t;
    const cs_xcell *x = cs_xtab_find(&t, CS_ALLREDUCE, 2, 8, fn.method);
    T_CHECK(x && cs_xcell_is_first(x) && !cs_xcell_beats(x, cs_xtab_native(&t, x)),
            "first calls are not a method");
    T_CHECK(cs_xtab_first(&t, x, "allreduce.shm.direct") == NULL &&
                cs_xtab_first(&t, x, "allreduce.native") == x, "cs_xtab_first");
    /* no first call of shm.direct: the 2 ms stay in both */
    T_CHECK(cs_xtab_expect(&t, total, &nat, &best, &half) == 0 && fabs(nat - 2400e-6) < 1e-12 &&
                fabs(best - 2200e-6) < 1e-12,
            "first calls as recorded: native %g, best %g", nat, best);
    T_CHECK(cs_xtab_add(&t, &fx) == 0, "add");
    total += fx.t;
    /* 3 first calls: native 3 x 1000 + 400, best 3 x 200 + 200 */
    T_CHECK(cs_xtab_expect(&t, total, &nat, &best, &half) == 0 && fabs(nat - 3400e-6) < 1e-12 &&
                fabs(best - 800e-6) < 1e-12,
            "first calls as native's and the best's: native %g, best %g", nat, best);
    T_CHECK(cs_xtab_undecided(&t, 0) == 0, "first calls leave nothing undecided");
    /* 4 uncounted calls (methods' first ones) of 50 us: native's 10 and
     * shm.direct's 5 in their place */
    cs_xcell un = {CS_ALLREDUCE, 2, 8, "allreduce" CS_UNCOUNTED_SUFFIX, 4, 4 * 50e-6, 0, 50e-6, 0};
    T_CHECK(cs_name_is_uncounted(un.method) && !cs_name_is_segment(un.method) &&
                !cs_name_is_first(un.method), "the uncounted name");
    T_CHECK(cs_xtab_add(&t, &un) == 0, "add");
    total += un.t;
    x = cs_xtab_find(&t, CS_ALLREDUCE, 2, 8, un.method);
    T_CHECK(x && cs_xcell_is_uncounted(x) && !cs_xcell_beats(x, cs_xtab_native(&t, x)),
            "uncounted calls are not a method");
    T_CHECK(cs_xtab_expect(&t, total, &nat, &best, &half) == 0 && fabs(nat - 3440e-6) < 1e-12 &&
                fabs(best - 820e-6) < 1e-12,
            "uncounted calls as native's and the best's: native %g, best %g", nat, best);
    /* first calls that differ within their noise (0 and 2 ms: the
     * startup's skew): as recorded */
    cs_xtab v = {0};
    double tv;
    expect_run(&v, 5, &tv);
    cs_xcell noisy = {CS_ALLREDUCE, 2, 8, "allreduce.native" CS_FIRST_SUFFIX, 2, 2e-3, 4e-6, 0, 0};
    T_CHECK(cs_xtab_add(&v, &noisy) == 0 && cs_xtab_add(&v, &fx) == 0, "add");
    tv += noisy.t + fx.t;
    T_CHECK(cs_xtab_expect(&v, tv, &nat, &best, &half) == 0 && fabs(nat - 2600e-6) < 1e-12 &&
                fabs(best - 2400e-6) < 1e-12,
            "first calls within their noise stay as drawn: native %g, best %g", nat, best);
    cs_xtab_free(&v);
    char *csv = explored_csv(&t);
    T_CHECK(csv && !strstr(csv, CS_FIRST_SUFFIX), "no first rows in the perf table: %s",
            csv ? csv : "(none)");
    free(csv);
    cs_xtab_free(&t);
}

static void test_roundtrip(void)
{
    cs_profile p, q;
    cs_buf b = {0};
    cs_err e;
    char path[512];
    sample(&p);
    T_CHECK(cs_profile_serialize(&p, &b) == 0, "serialize");
    T_CHECK(cs_profile_deserialize(&q, b.p, b.n, &e) == 0, "deserialize: %s", e.msg);
    T_CHECK(t_profile_eq(&p, &q, "serialize round trip"), "wire");
    cs_profile_free(&q);
    /* every strict prefix of the serialisation fails cleanly */
    for (size_t n = 0; n < b.n; n++) {
        int rc = cs_profile_deserialize(&q, b.p, n, &e);
        T_CHECK(rc < 0 && q.ncells == 0, "prefix of %zu bytes accepted", n);
    }
    cs_buf_u8(&b, 0);
    T_CHECK(cs_profile_deserialize(&q, b.p, b.n, &e) < 0 && strstr(e.msg, "after"),
            "trailing byte accepted: %s", e.msg);
    b.n--;
    /* random damage past the checksum: accepted or refused, never a crash
     * (run under valgrind/sanitizers to make this bite) */
    unsigned char *m = malloc(b.n);
    int refused = 0;
    for (int i = 0; i < 3000; i++) {
        memcpy(m, b.p, b.n);
        for (int k = 1 + (int)t_below(4); k > 0; k--)
            m[t_below((unsigned)b.n)] = (unsigned char)t_rand();
        if (cs_profile_deserialize(&q, m, b.n, &e) < 0)
            refused++;
        else
            cs_profile_free(&q);
    }
    T_CHECK(refused > 0, "no damaged payload refused");
    free(m);
    cs_buf_free(&b);

    path_in(path, sizeof path, "a.prof");
    T_CHECK(cs_profile_write(&p, path, &e) == 0, "write: %s", e.msg);
    T_CHECK(cs_profile_read(&q, path, &e) == 0, "read: %s", e.msg);
    T_CHECK(t_profile_eq(&p, &q, "file round trip"), "file");
    cs_profile_free(&q);

    /* encode + the signal-safe writer give the same file */
    cs_buf img = {0};
    T_CHECK(cs_profile_encode(&p, &img, &e) == 0, "encode");
    path_in(path, sizeof path, "raw.prof");
    T_CHECK(cs_profile_write_raw(path, img.p, img.n) == 0, "write_raw");
    T_CHECK(cs_profile_read(&q, path, &e) == 0, "read raw: %s", e.msg);
    T_CHECK(t_profile_eq(&p, &q, "raw round trip"), "raw");
    cs_profile_free(&q);
    T_CHECK(cs_profile_write_raw("/nonexistent-dir/x.prof", img.p, img.n) < 0, "bad dir fails");
    cs_buf_free(&img);
    cs_profile_free(&p);

    /* an empty profile round-trips too */
    cs_profile_init(&p);
    path_in(path, sizeof path, "empty.prof");
    T_CHECK(cs_profile_write(&p, path, &e) == 0 && cs_profile_read(&q, path, &e) == 0, "%s", e.msg);
    T_CHECK(t_profile_eq(&p, &q, "empty profile"), "empty");
    cs_profile_free(&q);
}

static void expect_reject(const void *data, size_t n, const char *name, const char *want)
{
    cs_profile q;
    cs_err e = {""};
    char path[512];
    path_in(path, sizeof path, name);
    put_file(path, data, n);
    int rc = cs_profile_read(&q, path, &e);
    T_CHECK(rc < 0, "%s accepted", name);
    T_CHECK(strstr(e.msg, path) != NULL, "%s: message does not name the file: %s", name, e.msg);
    T_CHECK(!want || strstr(e.msg, want), "%s: message '%s' lacks '%s'", name, e.msg, want);
    T_CHECK(q.ncells == 0 && q.cells == NULL, "%s: profile left filled", name);
}

static void test_rejects(void)
{
    cs_profile p, q;
    cs_buf img = {0};
    cs_err e;
    sample(&p);
    cs_profile_encode(&p, &img, &e);
    unsigned char *b = malloc(img.n + 16);
    memcpy(b, img.p, img.n);

    expect_reject(b, 0, "empty.bad", "empty file");
    expect_reject(b, 5, "trunc5.bad", "truncated");
    expect_reject(b, 20, "trunc20.bad", "truncated");
    expect_reject(b, CS_PROFILE_HEADER, "trunc24.bad", "truncated");
    expect_reject(b, img.n / 2, "trunchalf.bad", "truncated");
    expect_reject(b, img.n - 1, "trunclast.bad", "truncated");
    /* every length, in memory */
    for (size_t n = 0; n < img.n; n++)
        T_CHECK(cs_profile_decode(&q, b, n, "mem", &e) < 0, "truncated to %zu accepted", n);
    /* every single flipped byte, header and payload */
    for (size_t i = 0; i < img.n; i++) {
        b[i] ^= 0x5a;
        T_CHECK(cs_profile_decode(&q, b, img.n, "mem", &e) < 0, "flipped byte %zu accepted", i);
        b[i] ^= 0x5a;
    }
    b[CS_PROFILE_HEADER + 3] ^= 1;
    expect_reject(b, img.n, "flip-payload.bad", "checksum");
    b[CS_PROFILE_HEADER + 3] ^= 1;
    b[2] ^= 0x20;
    expect_reject(b, img.n, "flip-magic.bad", "not a collsel profile");
    b[2] ^= 0x20;
    b[21] ^= 0x10;
    expect_reject(b, img.n, "flip-crc.bad", "checksum");
    b[21] ^= 0x10;
    memset(b + img.n, 0, 16);
    expect_reject(b, img.n + 3, "trailing.bad", "unexpected bytes");

    b[8] = CS_PROFILE_VERSION + 1;
    char newer[96];
    snprintf(newer, sizeof newer, "written by a newer collsel (format v%u, this reads up to v%u)",
             CS_PROFILE_VERSION + 1, CS_PROFILE_VERSION);
    expect_reject(b, img.n, "newer.bad", newer);
    b[8] = 0;
    expect_reject(b, img.n, "v0.bad", "invalid format version 0");
    b[8] = CS_PROFILE_VERSION;
    T_CHECK(cs_profile_decode(&q, b, img.n, "mem", &e) == 0, "restored image: %s", e.msg);
    cs_profile_free(&q);

    /* a version 1 file (no selection and folding fields after the sites)
     * reads as fold 0 */
    {
        cs_buf raw1 = {0}, v1 = {0};
        void *z = NULL;
        size_t zn = 0;
        cs_profile_serialize(&p, &raw1);
        /* version 3's arrival flag (4 bytes: not recorded), version 2's fields */
        raw1.n -= xtab_bytes(&p) + 4 + 4 + strlen(p.meta.selection ? p.meta.selection : "") + 12;
        T_CHECK(cs_zstd_compress(raw1.p, raw1.n, &z, &zn, &e) == 0, "compress");
        unsigned char h[CS_PROFILE_HEADER] = "COLLSELP";
        uint32_t crc = cs_crc32(0, z, zn);
        for (int i = 0; i < 4; i++)
            h[8 + i] = (unsigned char)(i == 0), h[20 + i] = (unsigned char)(crc >> (8 * i));
        for (int i = 0; i < 8; i++)
            h[12 + i] = (unsigned char)((uint64_t)zn >> (8 * i));
        cs_buf_put(&v1, h, sizeof h);
        cs_buf_put(&v1, z, zn);
        cs_xtab keep = p.xtab; /* a version 1 file has none */
        memset(&p.xtab, 0, sizeof p.xtab);
        T_CHECK(cs_profile_decode(&q, v1.p, v1.n, "v1", &e) == 0 && q.fold == 0 &&
                    t_profile_eq(&p, &q, "v1 file"), "v1 file: %s", e.msg);
        p.xtab = keep;
        cs_profile_free(&q);
        free(z);
        cs_buf_free(&raw1);
        cs_buf_free(&v1);
    }

    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
                                        'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0};
    expect_reject(png, sizeof png, "image.png", "PNG");
    const char *csv = "collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps\n";
    expect_reject(csv, strlen(csv), "perf.csv", "not a collsel profile");
    expect_reject("COLLSELT", 8, "tree.bad", "another kind of collsel file");

    /* a payload with an absurd count, properly framed and checksummed */
    cs_buf raw = {0};
    cs_profile_init(&q);
    cs_profile_serialize(&q, &raw); /* empty: ... u64 ncells, u64 nsites, u32 fold, u64 */
    raw.n -= 28 + xtab_bytes(&q);
    cs_buf_u64(&raw, (uint64_t)1 << 40);
    cs_buf_u64(&raw, 0);
    cs_buf_u32(&raw, 0);
    cs_buf_u64(&raw, 0);
    T_CHECK(cs_profile_deserialize(&q, raw.p, raw.n, &e) < 0 && strstr(e.msg, "absurd"),
            "absurd cell count: %s", e.msg);
    cs_buf_free(&raw);
    /* cells out of order, unknown collective */
    cs_buf w = {0};
    cs_profile_serialize(&p, &w);
    cs_profile tmp;
    T_CHECK(cs_profile_deserialize(&tmp, w.p, w.n, &e) == 0, "%s", e.msg);
    cs_profile_free(&tmp);
    /* swap the first two cells in memory, serialize without sorting */
    if (p.ncells >= 2) {
        cs_cell c0 = p.cells[0];
        p.cells[0] = p.cells[1];
        p.cells[1] = c0;
        cs_buf w2 = {0};
        cs_profile_serialize(&p, &w2);
        T_CHECK(cs_profile_deserialize(&tmp, w2.p, w2.n, &e) < 0 && strstr(e.msg, "order"),
                "out-of-order cells: %s", e.msg);
        cs_buf_free(&w2);
        p.cells[1] = p.cells[0];
        p.cells[0] = c0;
        p.cells[0].coll = CS_R_N;
        cs_profile_serialize(&p, &w2);
        T_CHECK(cs_profile_deserialize(&tmp, w2.p, w2.n, &e) < 0 && strstr(e.msg, "collective"),
                "bad collective: %s", e.msg);
        cs_buf_free(&w2);
    }
    cs_buf_free(&w);
    free(b);
    cs_buf_free(&img);
    cs_profile_free(&p);
}

static void test_partials(void)
{
    cs_profile p, q, want;
    cs_err e;
    char path[512], part[512];
    sample(&p);
    path_in(path, sizeof path, "run.prof");
    T_CHECK(cs_profile_partial_path(part, sizeof part, path, 12) == 0 &&
                !strcmp(part + strlen(part) - 19, "run.prof.partial.12"),
            "partial path %s", part);
    T_CHECK(cs_profile_partial_path(part, 8, path, 1) < 0, "too small buffer");

    e.msg[0] = 0;
    T_CHECK(cs_profile_load(&q, path, &e) < 0 && strstr(e.msg, path), "nothing there: %s", e.msg);

    /* two partial files only (rank 3 and rank 10) */
    cs_profile_partial_path(part, sizeof part, path, 10);
    cs_profile_write(&p, part, &e);
    cs_profile_partial_path(part, sizeof part, path, 3);
    cs_profile_write(&p, part, &e);
    path_in(part, sizeof part, "run.prof.partial.4.tmp.99"); /* a writer's leftover */
    put_file(part, "junk", 4);
    path_in(part, sizeof part, "run.prof.partial.x");
    put_file(part, "junk", 4);
    path_in(part, sizeof part, "xrun.prof.partial.1");
    put_file(part, "junk", 4);
    /* not the name a rank writes (leading zeros): not rank 3 a second time */
    path_in(part, sizeof part, "run.prof.partial.03");
    cs_profile_write(&p, part, &e);
    path_in(part, sizeof part, "run.prof.partial.007");
    cs_profile_write(&p, part, &e);
    T_CHECK(cs_profile_load(&q, path, &e) == 0, "partials only: %s", e.msg);
    cs_profile_init(&want);
    cs_profile_merge(&want, &p);
    cs_profile_merge(&want, &p);
    want.complete = 0;
    cs_profile_sort(&want);
    cs_profile_sort(&q);
    T_CHECK(q.npartial == 2 && q.complete == 0, "npartial %u complete %u", q.npartial, q.complete);
    T_CHECK(t_profile_eq(&q, &want, "two partials"), "merged partials");
    cs_profile_free(&q);

    /* the main file too: three copies merged, still incomplete */
    cs_profile_write(&p, path, &e);
    T_CHECK(cs_profile_load(&q, path, &e) == 0, "%s", e.msg);
    cs_profile_merge(&want, &p);
    cs_profile_sort(&want);
    cs_profile_sort(&q);
    T_CHECK(q.npartial == 2 && q.complete == 0 && q.nranks == 3 * p.nranks, "three files");
    T_CHECK(t_profile_eq(&q, &want, "main + two partials"), "merged");
    cs_profile_free(&q);

    /* a corrupted partial file is an error naming it */
    cs_profile_partial_path(part, sizeof part, path, 3);
    put_file(part, "COLLSELP", 8);
    T_CHECK(cs_profile_load(&q, path, &e) < 0 && strstr(e.msg, part), "bad partial: %s", e.msg);

    /* main file alone: complete as written */
    unlink(part);
    cs_profile_partial_path(part, sizeof part, path, 10);
    unlink(part);
    T_CHECK(cs_profile_load(&q, path, &e) == 0 && q.complete == 1 && q.npartial == 0, "main only");
    cs_profile_free(&q);
    /* a relative path in the current directory */
    T_CHECK(chdir(dir) == 0, "chdir");
    T_CHECK(cs_profile_load(&q, "run.prof", &e) == 0 && q.complete == 1, "relative: %s", e.msg);
    cs_profile_free(&q);
    cs_profile_free(&want);
    cs_profile_free(&p);
}

static void cleanup(void)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[512];
    while (d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        path_in(path, sizeof path, de->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Version 2 adds the run's selection (and the folding fields after it); a
 * version 1 payload (the same without them) still reads, with no
 * selection. */
static void test_selection_versions(void)
{
    cs_profile p, q;
    cs_buf b = {0};
    cs_err e;
    sample(&p);
    p.meta.selection = strdup("tree /x/app.tree");
    T_CHECK(cs_profile_serialize(&p, &b) == 0, "serialize");
    T_CHECK(cs_profile_deserialize(&q, b.p, b.n, &e) == 0 && q.meta.selection &&
                !strcmp(q.meta.selection, "tree /x/app.tree"),
            "selection round trip: %s", e.msg);
    cs_profile_free(&q);
    /* the payload before the fields (version 3 adds 4 bytes: arrivals not recorded) */
    size_t xt = xtab_bytes(&p), v1 = b.n - xt - 4 - 4 - strlen("tree /x/app.tree") - 12;
    T_CHECK(cs_profile_deserialize_v(&q, b.p, v1, 1, &e) == 0 && !q.meta.selection &&
                q.ncells == p.ncells,
            "version 1 payload: %s", e.msg);
    cs_profile_free(&q);
    T_CHECK(cs_profile_deserialize_v(&q, b.p, v1, 2, &e) < 0, "version 2 without the field read");
    T_CHECK(cs_profile_deserialize_v(&q, b.p, b.n, 1, &e) < 0, "version 1 with trailing bytes read");
    /* a version 2 payload: the same without the arrival flag, not recorded */
    T_CHECK(cs_profile_deserialize_v(&q, b.p, b.n - xt - 4, 2, &e) == 0 && !cs_arr_recorded(&q) &&
                q.ncells == p.ncells,
            "version 2 payload: %s", e.msg);
    cs_profile_free(&q);
    T_CHECK(cs_profile_deserialize_v(&q, b.p, b.n - xt - 4, 3, &e) < 0, "version 3 without arrivals read");
    T_CHECK(cs_profile_deserialize_v(&q, b.p, b.n - xt, 4, &e) == 0 && q.xtab.n == 0,
            "version 4 payload: no explored methods: %s", e.msg);
    cs_profile_free(&q);
    cs_buf_free(&b);
    cs_profile_free(&p);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cs-record-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    test_roundtrip();
    test_explore();
    test_expect();
    test_segment();
    test_first();
    test_rejects();
    test_partials();
    test_selection_versions();
    cleanup();
    if (t_failures)
        fprintf(stderr, "test_format: %d failures\n", t_failures);
    return t_failures != 0;
}
