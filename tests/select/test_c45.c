/* C4.5 (select/c45.h): the book's confidence limits and pruning example,
 * Quinlan's golf data, trees on hand-made maps whose correct tree is
 * known, combined and weighted trees, the compiled run-time function (flat
 * table == descent, file round trip), bad options. */
#include "select/c45.h"
#include "select/tree_impl.h"
#include "sel_test.h"
#include "select/penalty.h"

static void test_upper(void)
{
    /* Quinlan, C4.5 (1993), ch. 4: U_25%(0,6) = 0.206, U_25%(0,9) = 0.143,
     * U_25%(0,1) = 0.750, U_25%(1,16) = 0.157 */
    static const double v[][3] = {{6, 0, 0.206}, {9, 0, 0.143}, {1, 0, 0.750}, {16, 1, 0.157}};
    for (int i = 0; i < 4; i++) {
        double u = cs_c45_upper(v[i][0], v[i][1], 0.25);
        CHECK(fabs(u - v[i][2]) < 0.0015, "U25(%g, %g) = %.4f, book %.3f", v[i][1], v[i][0], u,
              v[i][2]);
    }
    CHECK(fabs(cs_c45_upper(2.5, 0.5, 0.25) - cs_c45_upper(2.5, 0.5, 0.25)) == 0, "stable");
    CHECK(cs_c45_upper(10, 2, 0.05) > cs_c45_upper(10, 2, 0.25), "lower confidence, higher limit");
    CHECK(cs_c45_upper(10, 10, 0.25) == 1 && cs_c45_upper(0, 0, 0.25) == 0, "edges");
}

/* The book's pruning example (the congressional voting data, "education
 * spending" under "adoption of the budget resolution = n"): a test whose
 * three branches hold 6, 9 and 1 cases, pure; the 16 cases hold one error
 * as a leaf.  Estimated: 6 x 0.206 + 9 x 0.143 + 1 x 0.750 = 3.273 for the
 * subtree, 16 x 0.157 = 2.512 for the leaf: pruned at CF 25 %; kept at a
 * high CF (90 %: 0.309 against 0.54). */
static void test_prune_book(void)
{
    double x[16];
    int cls[16];
    for (int i = 0; i < 16; i++) {
        x[i] = i < 6 ? 0 : i < 15 ? 1 : 2;
        cls[i] = i < 15 ? 0 : 1;
    }
    cs_c45_data d = {.nattr = 1, .ncls = 2, .nvals = {3}, .n = 16, .x = x, .cls = cls};
    cs_c45_opts o = {.minobjs = 2, .cf = 25};
    cs_c45 t;
    cs_c45_shape s;
    cs_err e;
    MUST(cs_c45_grow(&t, &d, &o, &e), e);
    cs_c45_shape_get(&t, &s);
    CHECK(t.leaves_grown == 3 && t.errors_grown == 0, "grown: %d leaves, %g errors",
          t.leaves_grown, t.errors_grown);
    CHECK(s.leaves == 1 && fabs(s.est - 2.512) < 0.02 && s.errors == 1,
          "CF 25%%: %d leaves, est %.3f, %g errors (book: 1 leaf, 2.512)", s.leaves, s.est,
          s.errors);
    cs_c45_free(&t);
    o.cf = 90;
    MUST(cs_c45_grow(&t, &d, &o, &e), e);
    cs_c45_shape_get(&t, &s);
    CHECK(s.leaves == 3 && s.errors == 0, "CF 90%%: %d leaves (3 expected)", s.leaves);
    double q[1] = {2};
    CHECK(t.v[cs_c45_leaf(&t, q)].cls == 1, "the single case of class 1 is kept at CF 90%%");
    cs_c45_free(&t);
    /* the same at CF 25 % through the leaf estimates of the unpruned tree */
    double sub = 6 * cs_c45_upper(6, 0, .25) + 9 * cs_c45_upper(9, 0, .25) + cs_c45_upper(1, 0, .25);
    CHECK(fabs(sub - 3.273) < 0.01, "subtree estimate %.3f (book 3.273)", sub);
}

/* Quinlan's golf data (book, table 1-1): outlook (sunny, overcast, rain),
 * temperature, humidity (continuous), windy; class play / don't.  The
 * book's tree: outlook = overcast: play; sunny: humidity <= 70 (75 in the
 * book's midpoint notation): play, else don't; rain: windy: don't, else
 * play. */
static void test_golf(void)
{
    static const double x[14][4] = {
        {0, 75, 70, 1}, {0, 80, 90, 1}, {0, 85, 85, 0}, {0, 72, 95, 0}, {0, 69, 70, 0},
        {1, 72, 90, 1}, {1, 83, 78, 0}, {1, 64, 65, 1}, {1, 81, 75, 0}, {2, 71, 80, 1},
        {2, 65, 70, 1}, {2, 75, 80, 0}, {2, 68, 80, 0}, {2, 70, 96, 0}};
    static const int cls[14] = {0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0};
    cs_c45_data d = {.nattr = 4, .ncls = 2, .nvals = {3, 0, 0, 2}, .n = 14, .x = &x[0][0],
                     .cls = cls};
    cs_c45_opts o = {.minobjs = 2, .cf = 25};
    cs_c45 t;
    cs_c45_shape s;
    cs_err e;
    MUST(cs_c45_grow(&t, &d, &o, &e), e);
    cs_c45_shape_get(&t, &s);
    const cs_c45_node *r = &t.v[0];
    CHECK(r->attr == 0 && r->nbranch == 3, "root tests attribute %d (outlook expected)", r->attr);
    CHECK(s.leaves == 5 && s.errors == 0, "%d leaves, %g errors (book: 5, 0)", s.leaves, s.errors);
    if (r->attr == 0) {
        const cs_c45_node *sunny = &t.v[r->child], *over = &t.v[r->child + 1],
                          *rain = &t.v[r->child + 2];
        CHECK(sunny->attr == 2 && sunny->thresh == 70, "sunny: attribute %d <= %g", sunny->attr,
              sunny->thresh);
        CHECK(over->attr < 0 && over->cls == 0, "overcast: a leaf, play");
        CHECK(rain->attr == 3, "rain: attribute %d (windy expected)", rain->attr);
    }
    for (int i = 0; i < 14; i++)
        CHECK(t.v[cs_c45_leaf(&t, x[i])].cls == cls[i], "case %d misclassified", i);
    cs_c45_free(&t);
}

/* bcast over 6 comm sizes x 9 message sizes: linear where i < 3 and
 * j < 4, binomial from j = 6, native elsewhere.  The smallest tree of
 * axis cuts has 4 leaves. */
static const char *const names3[] = {"bcast.native", "bcast.binomial", "bcast.linear"};
static int pattern(int i, int j) { return j >= 6 ? 1 : i < 3 && j < 4 ? 2 : 0; }
static int pattern_r(int i, int j) { return i >= 4 ? 1 : j < 2 ? 2 : 0; }

static void check_runtime(const cs_tree *t, int coll)
{
    srand(7);
    int same = 1;
    for (int q = 0; q < 20000; q++) {
        uint32_t c = 1 + (uint32_t)(rand() % 200);
        uint64_t b = (uint64_t)exp2((double)rand() / RAND_MAX * 20);
        const uint16_t *a, *z;
        int n1 = cs_tree_decide(t, coll, c, b, &a), n2 = cs_tree_decide_qt(t, coll, c, b, &z);
        same &= n1 == n2 && n1 > 0 && !memcmp(a, z, (size_t)n1 * 2);
    }
    CHECK(same, "%s: flat table and tree descent disagree", cs_coll_name(coll));
    cs_leaf *lv;
    size_t n, area = 0;
    const uint32_t *cs;
    const uint64_t *ms;
    int ncs, nms;
    cs_tree_axes(t, coll, &cs, &ncs, &ms, &nms);
    if (cs_tree_leaves(t, coll, &lv, &n) == 0) {
        for (size_t l = 0; l < n; l++)
            area += (size_t)(lv[l].x1 - lv[l].x0) * (lv[l].y1 - lv[l].y0);
        free(lv);
    }
    CHECK(area == (size_t)ncs * nms, "%s: leaves cover %zu of %d points", cs_coll_name(coll),
          area, ncs * nms);
}

static void test_map_exact(void)
{
    cs_perf p;
    cs_map m;
    cs_err e;
    cs_perf_init(&p);
    perf_from(&p, 6, 9, names3, 3, pattern);
    MUST(cs_map_build(&m, &p, CS_BCAST, NULL, &e), e);
    cs_tree *t = cs_tree_new();
    cs_c45_tune o;
    cs_c45_result r;
    cs_c45_tune_default(&o);
    const cs_map *mp = &m;
    MUST(cs_c45_build(t, &mp, 1, &o, &r, &e), e);
    cs_tree_stats st;
    cs_pen_stats ps;
    cs_tree_stats_get(t, CS_BCAST, &st);
    MUST(cs_penalty_eval(t, &m, &ps, NULL, NULL, &e), e);
    CHECK(r.leaves == 4 && st.leaves == 4 && st.binary, "%d C4.5 leaves, %u compiled (4)",
          r.leaves, st.leaves);
    CHECK(ps.max == 0 && r.errors == 0, "exact map: max penalty %g, %g errors", ps.max, r.errors);
    check_runtime(t, CS_BCAST);
    /* through a file: same decisions */
    const char *path = "test_c45.tree";
    MUST(cs_tree_write(t, path, &e), e);
    cs_tree *u;
    MUST(cs_tree_read(&u, path, &e), e);
    cs_pen_stats pu;
    MUST(cs_penalty_eval(u, &m, &pu, NULL, NULL, &e), e);
    cs_tree_stats su;
    cs_tree_stats_get(u, CS_BCAST, &su);
    CHECK(pu.max == 0 && su.leaves == 4 && su.binary, "read back: %u leaves, max %g", su.leaves,
          pu.max);
    cs_tree_free(u);
    remove(path);
    /* a large -m: fewer leaves, still a valid function */
    o.c.minobjs = 20;
    MUST(cs_c45_build(t, &mp, 1, &o, &r, &e), e);
    CHECK(r.leaves < 4, "-m 20: %d leaves", r.leaves);
    check_runtime(t, CS_BCAST);
    /* a leaf cap */
    o.c.minobjs = 2;
    o.c.max_leaves = 2;
    MUST(cs_c45_build(t, &mp, 1, &o, &r, &e), e);
    cs_tree_stats_get(t, CS_BCAST, &st);
    CHECK(r.leaves == 2 && st.leaves == 2, "cap 2: %d leaves", r.leaves);
    /* bad options */
    o.c.max_leaves = 0;
    o.c.minobjs = 0;
    CHECK(cs_c45_build(t, &mp, 1, &o, &r, &e) < 0 && strstr(e.msg, "-m"), "-m 0 rejected");
    o.c.minobjs = 2;
    o.c.cf = 0;
    CHECK(cs_c45_build(t, &mp, 1, &o, &r, &e) < 0 && strstr(e.msg, "-c"), "-c 0 rejected");
    o.c.cf = 101;
    CHECK(cs_c45_build(t, &mp, 1, &o, &r, &e) < 0 && strstr(e.msg, "-c"), "-c 101 rejected");
    cs_tree_free(t);
    cs_map_free(&m);
    cs_perf_free(&p);
}

/* One point, one method: a single leaf. */
static void test_degenerate(void)
{
    cs_perf p;
    cs_map m;
    cs_err e;
    cs_perf_init(&p);
    add_row(&p, CS_BCAST, 4, 8, "bcast.binomial", 3);
    MUST(cs_map_build(&m, &p, CS_BCAST, NULL, &e), e);
    cs_tree *t = cs_tree_new();
    cs_c45_tune o;
    cs_c45_result r;
    cs_c45_tune_default(&o);
    const cs_map *mp = &m;
    MUST(cs_c45_build(t, &mp, 1, &o, &r, &e), e);
    const uint16_t *ids;
    int n = cs_tree_decide(t, CS_BCAST, 100, 1 << 20, &ids);
    CHECK(r.leaves == 1 && n == 1 && !strcmp(cs_tree_method_name(t, CS_BCAST, ids[0]),
                                             "bcast.binomial"), "one point: %d leaves", r.leaves);
    cs_tree_free(t);
    cs_map_free(&m);
    cs_perf_free(&p);
}

/* Combined bcast + reduce: classes shared by name ("binomial"); the
 * collective is tested only where the collectives differ. */
static void test_combined(void)
{
    static const char *const rn[] = {"reduce.native", "reduce.binomial", "reduce.linear"};
    for (int differ = 0; differ < 2; differ++) {
        cs_perf p;
        cs_map m[2];
        cs_err e;
        cs_perf_init(&p);
        perf_from(&p, 6, 9, names3, 3, pattern);
        cs_perf tmp;
        cs_perf_init(&tmp);
        perf_from(&tmp, 6, 9, rn, 3, differ ? pattern_r : pattern);
        for (size_t i = 0; i < tmp.n; i++) {
            tmp.rows[i].coll = CS_REDUCE;
            cs_perf_add(&p, &tmp.rows[i]);
        }
        cs_perf_free(&tmp);
        MUST(cs_map_build(&m[0], &p, CS_BCAST, NULL, &e), e);
        MUST(cs_map_build(&m[1], &p, CS_REDUCE, NULL, &e), e);
        cs_tree *t = cs_tree_new();
        cs_c45_tune o;
        cs_c45_result r;
        cs_c45_tune_default(&o);
        const cs_map *mp[2] = {&m[0], &m[1]};
        MUST(cs_c45_build(t, mp, 2, &o, &r, &e), e);
        CHECK(differ ? r.coll_level >= 1 : r.coll_level == 0, "differ %d: collective tested at "
              "level %d", differ, r.coll_level);
        for (int c = 0; c < 2; c++) {
            cs_pen_stats ps;
            MUST(cs_penalty_eval(t, &m[c], &ps, NULL, NULL, &e), e);
            CHECK(ps.max == 0, "combined (differ %d) %s: max penalty %g", differ,
                  cs_coll_name(m[c].coll), ps.max);
            check_runtime(t, m[c].coll);
        }
        CHECK(differ || r.leaves == 4, "same maps: %d leaves (4)", r.leaves);
        cs_tree_free(t);
        cs_map_free(&m[0]);
        cs_map_free(&m[1]);
        cs_perf_free(&p);
    }
}

/* Weighted cases: an irregular map, the application calls 3 points.  At a
 * cap of 3 leaves the weighted tree is exact where the calls are; the
 * unweighted one is not. */
static int pattern_w(int i, int j) { return (i * 7 + j * 3) % 5 < 2 ? 1 : (i + 2 * j) % 3 == 0 ? 2 : 0; }

static void test_weighted(void)
{
    cs_perf p;
    cs_map m;
    cs_err e;
    cs_perf_init(&p);
    perf_from(&p, 8, 10, names3, 3, pattern_w);
    MUST(cs_map_build(&m, &p, CS_BCAST, NULL, &e), e);
    m.w = calloc((size_t)m.ncs * m.nms, sizeof *m.w);
    m.w[1 * m.nms + 2] = 5;
    m.w[6 * m.nms + 7] = 3;
    m.w[3 * m.nms + 9] = 1;
    cs_tree *t = cs_tree_new();
    cs_c45_tune o;
    cs_c45_result r;
    cs_pen_stats pw, pu;
    cs_c45_tune_default(&o);
    o.c.max_leaves = 3;
    const cs_map *mp = &m;
    o.weighted = 1;
    MUST(cs_c45_build(t, &mp, 1, &o, &r, &e), e);
    MUST(cs_penalty_eval(t, &m, &pw, NULL, NULL, &e), e);
    int lw = r.leaves;
    o.weighted = 0;
    MUST(cs_c45_build(t, &mp, 1, &o, &r, &e), e);
    MUST(cs_penalty_eval(t, &m, &pu, NULL, NULL, &e), e);
    CHECK(lw <= 3 && pw.wmean == 0, "weighted: %d leaves, weighted penalty %g", lw, pw.wmean);
    CHECK(pu.wmean > 0, "unweighted at 3 leaves: weighted penalty %g (expected > 0)", pu.wmean);
    cs_tree_free(t);
    cs_map_free(&m);
    cs_perf_free(&p);
}

/* Binary trees are validated when installed (as when read from a file):
 * a cut outside its block, children before their parent, a bad kind. */
static int install_bin(uint32_t root, uint32_t n1, uint32_t n2, int kind, cs_err *e)
{
    cs_dtree d = {0};
    d.kind = kind;
    d.k = 2;
    d.ncs = d.nms = 4;
    d.nmethods = 1;
    d.cs = malloc(4 * sizeof *d.cs);
    d.ms = malloc(4 * sizeof *d.ms);
    d.methods = calloc(1, sizeof *d.methods);
    d.nodes = malloc(3 * sizeof *d.nodes);
    d.leaf_n_own = malloc(2);
    d.leaf_ids_own = calloc(2 * CS_TREE_MAXCHOICE, 2);
    for (int i = 0; i < 4; i++) {
        d.cs[i] = 2u << i;
        d.ms[i] = 1ull << (4 * i);
    }
    snprintf(d.methods[0], 64, "bcast.native");
    d.nnodes = 3;
    d.nleaves = 2;
    d.nodes[0] = root;
    d.nodes[1] = n1;
    d.nodes[2] = n2;
    d.leaf_n_own[0] = d.leaf_n_own[1] = 1;
    cs_tree *t = cs_tree_new();
    int rc = cs_dtree_install(t, CS_BCAST, &d, "test", e);
    cs_tree_free(t);
    return rc;
}

static void test_bin_checks(void)
{
    cs_err e;
    uint32_t l0 = CS_TREE_LEAF | 0, l1 = CS_TREE_LEAF | 1;
    CHECK(install_bin(CS_BIN_NODE(1, 0, 2), l0, l1, CS_DTREE_BIN, &e) == 0, "valid: %s", e.msg);
    CHECK(install_bin(CS_BIN_NODE(1, 1, 4), l0, l1, CS_DTREE_BIN, &e) < 0 &&
          strstr(e.msg, "cuts its block"), "cut at the block's end: %s", e.msg);
    CHECK(install_bin(CS_BIN_NODE(1, 0, 0), l0, l1, CS_DTREE_BIN, &e) < 0 &&
          strstr(e.msg, "cuts its block"), "cut at 0: %s", e.msg);
    CHECK(install_bin(CS_BIN_NODE(0, 0, 2), l0, l1, CS_DTREE_BIN, &e) < 0, "child is the node");
    CHECK(install_bin(CS_BIN_NODE(2, 0, 2), l0, l1, CS_DTREE_BIN, &e) < 0, "children past the end");
    CHECK(install_bin(CS_BIN_NODE(1, 0, 2) | 1u << 29, l0, l1, CS_DTREE_BIN, &e) < 0,
          "stray bits");
    CHECK(install_bin(CS_BIN_NODE(1, 0, 2), l0, l1, 7, &e) < 0 && strstr(e.msg, "kind"),
          "kind 7: %s", e.msg);
}

int main(void)
{
    test_bin_checks();
    test_upper();
    test_prune_book();
    test_golf();
    test_map_exact();
    test_degenerate();
    test_combined();
    test_weighted();
    if (sel_failures)
        fprintf(stderr, "%d check(s) failed\n", sel_failures);
    else
        printf("select c45: all checks passed\n");
    return sel_failures != 0;
}
