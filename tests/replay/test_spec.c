/* Unit tests of collsel-replay's pure parts: sizes, grid specs, the median
 * confidence interval, points from a profile (no MPI calls). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/points.h"
#include "replay/spec.h"
#include "replay/timing.h"

static int fails;
#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
            fails++;                                                       \
        }                                                                  \
    } while (0)

static void test_sizes(void)
{
    uint64_t v;
    cs_err e;
    CHECK(cs_parse_size("8", &v, &e) == 0 && v == 8);
    CHECK(cs_parse_size("64k", &v, &e) == 0 && v == 65536);
    CHECK(cs_parse_size("4M", &v, &e) == 0 && v == 4194304);
    CHECK(cs_parse_size("1G", &v, &e) == 0 && v == 1073741824);
    CHECK(cs_parse_size("", &v, &e) < 0);
    CHECK(cs_parse_size("-1", &v, &e) < 0);
    CHECK(cs_parse_size("4MB", &v, &e) < 0 && strstr(e.msg, "4MB"));
    CHECK(cs_parse_size("99999999999999999999", &v, &e) < 0);
    uint64_t *l;
    int n;
    CHECK(cs_parse_size_list("4M,8,64k,8", &l, &n, &e) == 0 && n == 3 && l[0] == 8 &&
          l[1] == 65536 && l[2] == 4194304);
    free(l);
    CHECK(cs_parse_size_list(",", &l, &n, &e) < 0);
    CHECK(cs_parse_size_list("8,x", &l, &n, &e) < 0 && strstr(e.msg, "'x'"));
}

static void test_grid(void)
{
    cs_replay_grid g;
    cs_err e;
    CHECK(cs_replay_grid_parse("cs=2:4,ms=1:4194304", 8, &g, &e) == 0);
    CHECK(g.ncs == 3 && g.cs[0] == 2 && g.cs[2] == 4);
    CHECK(g.nms == 23 && g.ms[0] == 1 && g.ms[22] == 4194304 && g.ms[10] == 1024);
    cs_replay_grid_free(&g);
    CHECK(cs_replay_grid_parse("cs=2:64:x2,ms=8:64k:x8", 8, &g, &e) == 0);
    CHECK(g.ncs == 6 && g.cs[5] == 64 && g.nms == 5 && g.ms[4] == 32768);
    cs_replay_grid_free(&g);
    CHECK(cs_replay_grid_parse("ms=100:400:+100,cs=3,2,3", 8, &g, &e) == 0);
    CHECK(g.ncs == 2 && g.cs[0] == 2 && g.cs[1] == 3);
    CHECK(g.nms == 4 && g.ms[0] == 100 && g.ms[3] == 400);
    cs_replay_grid_free(&g);
    /* defaults: cs=2..world, ms=1..4M */
    CHECK(cs_replay_grid_parse("ms=8", 5, &g, &e) == 0 && g.ncs == 4 && g.cs[3] == 5 && g.nms == 1);
    cs_replay_grid_free(&g);
    CHECK(cs_replay_grid_parse("cs=4", 5, &g, &e) == 0 && g.nms == 23);
    cs_replay_grid_free(&g);
    /* errors name the problem */
    CHECK(cs_replay_grid_parse("xs=2", 4, &g, &e) < 0 && strstr(e.msg, "xs"));
    CHECK(cs_replay_grid_parse("cs=4:2", 4, &g, &e) < 0 && strstr(e.msg, "4:2"));
    CHECK(cs_replay_grid_parse("cs=2:8:x1", 4, &g, &e) < 0);
    CHECK(cs_replay_grid_parse("cs=2:8:y2", 4, &g, &e) < 0 && strstr(e.msg, "y2"));
    CHECK(cs_replay_grid_parse("cs=2,cs=3", 4, &g, &e) < 0 && strstr(e.msg, "twice"));
    CHECK(cs_replay_grid_parse("8", 4, &g, &e) < 0);
    CHECK(cs_replay_grid_parse("cs=0", 4, &g, &e) < 0);
    CHECK(cs_replay_grid_parse("ms=2G", 4, &g, &e) < 0);
    CHECK(cs_replay_grid_parse("cs=1:100000", 4, &g, &e) < 0); /* too many values */
}

static void test_ci(void)
{
    double x[101];
    for (int i = 0; i < 101; i++)
        x[i] = 100 - i; /* 100 .. 0, unsorted */
    double med = cs_median_sorted(x, 101), lo, hi;
    CHECK(med == 50 && x[0] == 0 && x[100] == 100);
    cs_median_ci(x, 101, &lo, &hi);
    /* P(Bin(101, 1/2) <= 40) = 2.4 %, <= 41: 3.7 %: the 41st and 61st */
    CHECK(lo == 40 && hi == 60);
    double z[9] = {9, 8, 7, 6, 5, 4, 3, 2, 1};
    cs_median_sorted(z, 9);
    cs_median_ci(z, 9, &lo, &hi); /* P(<= 1) = 2.0 %: one outlier each side */
    CHECK(lo == 2 && hi == 8);
    double w[1200];
    for (int i = 0; i < 1200; i++)
        w[i] = i + 1; /* beyond 1000 values: floor(600 - 0.98 sqrt(1200)) = 566 */
    cs_median_ci(w, 1200, &lo, &hi);
    CHECK(lo == 566 && hi == 635);
    double y[4] = {4, 1, 3, 2};
    CHECK(cs_median_sorted(y, 4) == 2.5);
    cs_median_ci(y, 4, &lo, &hi); /* small sample: the whole range */
    CHECK(lo == 1 && hi == 4);
}

static void test_points(void)
{
    cs_profile p;
    cs_profile_init(&p);
    cs_cell c;
    memset(&c, 0, sizeof c);
    c.coll = CS_R_BCAST;
    c.comm_size = 4;
    c.bin = (uint32_t)cs_bin_of(100);
    c.rank_calls = 40;
    c.root_mode = CS_ROOT_FIXED;
    c.root = 2;
    c.nsizes = 2;
    c.sizes[0].bytes = 100;
    c.sizes[0].rank_calls = 28;
    c.sizes[1].bytes = 120;
    c.sizes[1].rank_calls = 8;
    c.other_size_calls = 4;
    CHECK(cs_profile_add_cell(&p, &c) == 0);
    memset(&c, 0, sizeof c);
    c.coll = CS_R_REDUCE;
    c.comm_size = 2;
    c.bin = (uint32_t)cs_bin_of(4);
    c.rank_calls = 10;
    c.root_mode = CS_ROOT_ZERO;
    c.nsizes = 1;
    c.sizes[0].bytes = 4;
    c.sizes[0].rank_calls = 10;
    CHECK(cs_profile_add_cell(&p, &c) == 0);
    c.bin = (uint32_t)cs_bin_of(8);
    c.root_mode = CS_ROOT_FIXED;
    c.root = 1;
    c.sizes[0].bytes = 8;
    CHECK(cs_profile_add_cell(&p, &c) == 0);
    c.coll = CS_R_ALLREDUCE; /* replayed too (its root is ignored) */
    CHECK(cs_profile_add_cell(&p, &c) == 0);
    memset(&c, 0, sizeof c);
    c.coll = CS_R_BARRIER;
    c.comm_size = 4;
    c.rank_calls = 12;
    CHECK(cs_profile_add_cell(&p, &c) == 0);

    cs_points pts = {0};
    cs_err e;
    int all[CS_NCOLL] = {[CS_BCAST] = 1, [CS_REDUCE] = 1, [CS_BARRIER] = 1, [CS_ALLREDUCE] = 1};
    int nobar[CS_NCOLL] = {[CS_BCAST] = 1, [CS_REDUCE] = 1};
    CHECK(cs_points_add_profile(&pts, &p, all, &e) == 0);
    cs_points_merge(&pts);
    /* bcast 4:100 (7+1 ops), bcast 4:120 (2 ops), reduce 2:8 (4 B and 8 B
     * merged, roots differ -> varying), barrier 4:0, allreduce 2:8 */
    CHECK(pts.n == 5);
    if (pts.n == 5) {
        CHECK(pts.p[0].coll == CS_BCAST && pts.p[0].bytes == 100 && pts.p[0].ops == 8 &&
              pts.p[0].root_mode == CS_ROOT_FIXED && pts.p[0].root == 2);
        CHECK(pts.p[1].bytes == 120 && pts.p[1].ops == 2);
        CHECK(pts.p[2].coll == CS_REDUCE && pts.p[2].bytes == 8 && pts.p[2].ops == 10 &&
              pts.p[2].root_mode == CS_ROOT_VARYING);
        CHECK(pts.p[3].coll == CS_BARRIER && pts.p[3].bytes == 0 && pts.p[3].ops == 3);
        CHECK(pts.p[4].coll == CS_ALLREDUCE && pts.p[4].bytes == 8 && pts.p[4].ops == 5);
    }
    cs_points_free(&pts);
    /* grid + profile: a grid point takes the profile's roots, no duplicates */
    cs_replay_grid g;
    CHECK(cs_replay_grid_parse("cs=4,ms=100,1000", 4, &g, &e) == 0);
    CHECK(cs_points_add_grid(&pts, &g, nobar, &e) == 0);
    CHECK(cs_points_add_profile(&pts, &p, nobar, &e) == 0);
    cs_points_merge(&pts);
    /* bcast 4:100, 4:120, 4:1000; reduce 2:8, 4:104 (100 rounded), 4:1000 */
    CHECK(pts.n == 6);
    if (pts.n == 6) {
        CHECK(pts.p[0].bytes == 100 && pts.p[0].root_mode == CS_ROOT_FIXED && pts.p[0].ops == 8);
        CHECK(pts.p[2].bytes == 1000 && pts.p[2].root_mode == CS_ROOT_ZERO && pts.p[2].ops == 0);
        CHECK(pts.p[3].coll == CS_REDUCE && pts.p[3].comm_size == 2);
        CHECK(pts.p[4].coll == CS_REDUCE && pts.p[4].bytes == 104);
    }
    cs_points_free(&pts);
    cs_replay_grid_free(&g);
    cs_profile_free(&p);
}

int main(void)
{
    test_sizes();
    test_grid();
    test_ci();
    test_points();
    if (fails)
        fprintf(stderr, "%d check(s) failed\n", fails);
    else
        printf("replay unit tests: all passed\n");
    return fails ? 1 : 0;
}
