/* Unit test: cells, root-mode algebra, merge associativity/commutativity on
 * random profiles, exact-size tables, call-site trimming, metadata. */
#include <math.h>
#include "testprof.h"

/* Reference model of root behaviour: the set of roots seen (bits 0..7). */
static void mode_of_set(unsigned set, uint32_t *mode, int32_t *root)
{
    *mode = CS_ROOT_NONE;
    *root = 0;
    if (!set)
        return;
    int lo = __builtin_ctz(set);
    *root = lo;
    if (set & (set - 1))
        *mode = CS_ROOT_VARYING;
    else
        *mode = lo == 0 ? CS_ROOT_ZERO : CS_ROOT_FIXED;
}

static void cell_with_roots(cs_cell *c, unsigned set)
{
    memset(c, 0, sizeof *c);
    c->coll = CS_R_BCAST;
    c->comm_size = 8;
    for (int r = 7; r >= 0; r--) /* record the largest first: "first seen" must not matter */
        if (set & (1u << r))
            cs_cell_record(c, 64, r, 1.0 / 1024);
}

static void test_root_algebra(void)
{
    uint32_t m;
    int32_t r;
    cs_cell a, b;
    /* the rules, spelled out */
    struct {
        unsigned x, y;
        uint32_t mode;
        int32_t root;
    } rules[] = {
        {1u << 0, 1u << 0, CS_ROOT_ZERO, 0},          /* ZERO + ZERO */
        {1u << 3, 1u << 3, CS_ROOT_FIXED, 3},         /* FIXED 3 + FIXED 3 */
        {1u << 3, 1u << 5, CS_ROOT_VARYING, 3},       /* FIXED 3 + FIXED 5 */
        {1u << 0, 1u << 5, CS_ROOT_VARYING, 0},       /* ZERO + FIXED */
        {0, 1u << 5, CS_ROOT_FIXED, 5},               /* NONE is neutral */
        {1u << 0, 0, CS_ROOT_ZERO, 0},
        {0, 0, CS_ROOT_NONE, 0},
        {(1u << 2) | (1u << 6), 1u << 6, CS_ROOT_VARYING, 2}, /* VARYING absorbs */
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        cell_with_roots(&a, rules[i].x);
        cell_with_roots(&b, rules[i].y);
        cs_cell_merge(&a, &b);
        T_CHECK(a.root_mode == rules[i].mode && (a.root_mode == CS_ROOT_NONE || a.root == rules[i].root),
                "rule %zu: got %s %d, want %s %d", i, cs_root_mode_name((int)a.root_mode), a.root,
                cs_root_mode_name((int)rules[i].mode), rules[i].root);
    }
    /* every pair and triple of small root sets against the set model */
    for (unsigned x = 0; x < 16; x++)
        for (unsigned y = 0; y < 16; y++)
            for (unsigned z = 0; z < 16; z += 5) {
                cs_cell l, r2, c;
                cell_with_roots(&l, x);
                cell_with_roots(&b, y);
                cell_with_roots(&c, z);
                cs_cell_merge(&l, &b);
                cs_cell_merge(&l, &c); /* (x+y)+z */
                cell_with_roots(&r2, x);
                cs_cell_merge(&b, &c);
                cs_cell_merge(&r2, &b); /* x+(y+z) */
                mode_of_set(x | y | z, &m, &r);
                T_CHECK(l.root_mode == m && (m == CS_ROOT_NONE || l.root == r),
                        "(%x+%x)+%x: %u/%d want %u/%d", x, y, z, l.root_mode, l.root, m, r);
                T_CHECK(r2.root_mode == l.root_mode && r2.root == l.root, "assoc %x %x %x", x, y, z);
            }
}

static void test_cell_record(void)
{
    cs_cell c;
    memset(&c, 0, sizeof c);
    const uint64_t seq[] = {100, 200, 200, 100, 300, 200, 400, 500, 200, 100, 500, 200};
    double t = 0;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        double s = (double)(i + 3) / 1024;
        cs_cell_record(&c, seq[i], -1, s);
        t += s;
    }
    T_CHECK(c.rank_calls == 12, "%llu", (unsigned long long)c.rank_calls);
    T_CHECK(c.t_total == t && c.t_min == 3.0 / 1024 && c.t_max == 14.0 / 1024, "times %g %g %g",
            c.t_total, c.t_min, c.t_max);
    T_CHECK(c.root_mode == CS_ROOT_NONE, "unrooted calls leave root none");
    T_CHECK(c.nsizes == 4 && c.sizes[0].bytes == 200 && c.sizes[0].rank_calls == 5 &&
                c.sizes[1].bytes == 100 && c.sizes[1].rank_calls == 3 && c.sizes[2].bytes == 300 &&
                c.sizes[3].bytes == 400 && c.other_size_calls == 2,
            "sizes %llu:%llu %llu:%llu other %llu", (unsigned long long)c.sizes[0].bytes,
            (unsigned long long)c.sizes[0].rank_calls, (unsigned long long)c.sizes[1].bytes,
            (unsigned long long)c.sizes[1].rank_calls, (unsigned long long)c.other_size_calls);
    /* merging keeps the most frequent of the union */
    cs_cell d;
    memset(&d, 0, sizeof d);
    for (int i = 0; i < 6; i++)
        cs_cell_record(&d, 500, -1, 1.0 / 1024);
    cs_cell_record(&d, 1, -1, 1.0 / 2048);
    cs_cell_merge(&c, &d);
    T_CHECK(c.rank_calls == 19 && c.t_min == 1.0 / 2048, "merged counts");
    T_CHECK(c.nsizes == 4 && c.sizes[0].bytes == 500 && c.sizes[0].rank_calls == 6 &&
                c.sizes[1].bytes == 200 && c.sizes[2].bytes == 100 && c.sizes[3].bytes == 1 &&
                c.other_size_calls == 2 + 1 + 1,
            "merged sizes %llu %llu %llu %llu other %llu", (unsigned long long)c.sizes[0].bytes,
            (unsigned long long)c.sizes[1].bytes, (unsigned long long)c.sizes[2].bytes,
            (unsigned long long)c.sizes[3].bytes, (unsigned long long)c.other_size_calls);
}

static void copy_of(cs_profile *dst, const cs_profile *src)
{
    cs_profile_init(dst);
    if (cs_profile_merge(dst, src) < 0)
        abort();
}

static void merged(cs_profile *out, const cs_profile *x, const cs_profile *y)
{
    copy_of(out, x);
    if (cs_profile_merge(out, y) < 0)
        abort();
}

static void check_invariants(const cs_profile *p, const char *what)
{
    for (size_t i = 0; i < p->ncells; i++) {
        const cs_cell *c = &p->cells[i];
        uint64_t s = c->other_size_calls;
        for (uint32_t k = 0; k < c->nsizes; k++) {
            s += c->sizes[k].rank_calls;
            if (k)
                T_CHECK(c->sizes[k - 1].rank_calls >= c->sizes[k].rank_calls, "%s: order", what);
        }
        T_CHECK(s == c->rank_calls, "%s: cell %zu sizes sum %llu, calls %llu", what, i,
                (unsigned long long)s, (unsigned long long)c->rank_calls);
        if (i)
            T_CHECK(cs_cell_key_cmp(&p->cells[i - 1], c) < 0, "%s: cells sorted", what);
    }
}

static uint64_t total_calls(const cs_profile *p, double *time)
{
    uint64_t n = 0;
    *time = 0;
    for (size_t i = 0; i < p->ncells; i++) {
        n += p->cells[i].rank_calls;
        *time += p->cells[i].t_total;
    }
    return n;
}

static void test_random_merges(unsigned sizes_per_key, int trials)
{
    for (int t = 0; t < trials; t++) {
        cs_profile a, b, c, ab, bc, l, r, ca, cab, a2;
        t_random_profile(&a, 1 + t_below(30), sizes_per_key);
        t_random_profile(&b, t_below(30), sizes_per_key);
        t_random_profile(&c, 1 + t_below(30), sizes_per_key);
        copy_of(&a2, &a);
        cs_profile_sort(&a2);
        cs_profile_sort(&a);
        T_CHECK(t_profile_eq(&a, &a2, "empty + a == a"), "copy");
        merged(&ab, &a, &b);
        merged(&l, &ab, &c);
        merged(&bc, &b, &c);
        merged(&r, &a, &bc);
        merged(&ca, &c, &a);
        merged(&cab, &ca, &b);
        check_invariants(&l, "(a+b)+c");
        check_invariants(&r, "a+(b+c)");
        double ta, tb, tc, tl;
        uint64_t n = total_calls(&a, &ta) + total_calls(&b, &tb) + total_calls(&c, &tc);
        T_CHECK(total_calls(&l, &tl) == n && tl == ta + tb + tc, "counts add up: %llu", (unsigned long long)n);
        T_CHECK(l.nranks == a.nranks + b.nranks + c.nranks, "nranks");
        T_CHECK(l.complete == (a.complete && b.complete && c.complete), "complete");
        cs_profile_sort(&l);
        cs_profile_sort(&r);
        cs_profile_sort(&cab);
        if (sizes_per_key <= CS_CELL_NSIZES) {
            T_CHECK(t_profile_eq(&l, &r, "(a+b)+c vs a+(b+c)"), "trial %d", t);
            T_CHECK(t_profile_eq(&l, &cab, "(a+b)+c vs (c+a)+b"), "trial %d", t);
        } else { /* sizes may differ; everything else must not */
            T_CHECK(l.ncells == r.ncells, "ncells");
            for (size_t i = 0; i < l.ncells && i < r.ncells; i++)
                T_CHECK(l.cells[i].rank_calls == r.cells[i].rank_calls &&
                            l.cells[i].t_total == r.cells[i].t_total &&
                            l.cells[i].root_mode == r.cells[i].root_mode &&
                            l.cells[i].root == r.cells[i].root,
                        "trial %d cell %zu", t, i);
        }
        cs_profile *all[] = {&a, &b, &c, &ab, &bc, &l, &r, &ca, &cab, &a2};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            cs_profile_free(all[i]);
    }
}

static void test_sites(void)
{
    cs_profile p, q;
    cs_profile_init(&p);
    char name[32];
    uint64_t calls = 0;
    double time = 0;
    for (int i = 1; i <= 10; i++) {
        snprintf(name, sizeof name, "app+0x%x f%d", i, i);
        cs_profile_add_site(&p, CS_R_BCAST, name, (uint64_t)i, i / 64.0);
        calls += (uint64_t)i;
        time += i / 64.0;
    }
    cs_profile_add_site(&p, CS_R_REDUCE, "a", 7, 0.5 / 64); /* short name */
    cs_profile_add_site(&p, CS_R_BCAST, "app+0x3 f3", 4, 4.5 / 64); /* same site again */
    calls += 4;
    time += 4.5 / 64;
    T_CHECK(p.nsites == 11, "%zu sites", p.nsites);
    cs_profile_trim_sites(&p, 4);
    /* kept: f10, f9, f8, f3 (7.5/64 after the repeat); other: Bcast (1,2,4..7) and Reduce (a) */
    T_CHECK(p.nsites == 6, "%zu sites after trim", p.nsites);
    const cs_site *kept[6];
    size_t nk = 0;
    for (size_t i = 0; i < p.nsites && nk < 6; i++)
        if (strcmp(p.sites[i].where, "other") != 0)
            kept[nk++] = &p.sites[i];
    T_CHECK(nk == 4 && !strcmp(kept[0]->where, "app+0xa f10") &&
                !strcmp(kept[2]->where, "app+0x8 f8") && !strcmp(kept[3]->where, "app+0x3 f3") &&
                kept[3]->rank_calls == 7,
            "hottest kept in order (%zu kept)", nk);
    uint64_t c2 = 0;
    double t2 = 0;
    int others = 0;
    for (size_t i = 0; i < p.nsites; i++) {
        if (p.sites[i].coll == CS_R_BCAST) {
            c2 += p.sites[i].rank_calls;
            t2 += p.sites[i].t_total;
        }
        if (!strcmp(p.sites[i].where, "other"))
            others++;
        if (i)
            T_CHECK(p.sites[i - 1].t_total >= p.sites[i].t_total, "sites sorted by time");
    }
    T_CHECK(c2 == calls && t2 == time && others == 2, "Bcast sums %llu %g, %d other", (unsigned long long)c2, t2, others);
    copy_of(&q, &p);
    cs_profile_trim_sites(&q, 4);
    cs_profile_sort(&p);
    cs_profile_sort(&q);
    T_CHECK(t_profile_eq(&p, &q, "trim twice"), "idempotent");
    cs_profile_merge(&q, &p); /* "other" sites combine */
    cs_profile_trim_sites(&q, 4);
    T_CHECK(q.nsites == 6, "%zu sites after merging trimmed", q.nsites);
    cs_profile_free(&p);
    cs_profile_free(&q);
}

static void test_meta(void)
{
    cs_profile a, b, m;
    cs_profile_init(&a);
    cs_profile_init(&b);
    cs_profile_init(&m);
    a.meta.cmdline = strdup("./app");
    a.meta.world_size = 4;
    a.complete = 1;
    a.nranks = 4;
    b.meta.cmdline = strdup("./other");
    b.meta.hostname0 = strdup("node7");
    b.meta.world_size = 8;
    b.nranks = 1;
    cs_profile_merge(&m, &a);
    T_CHECK(m.complete == 1 && m.meta.world_size == 4 && !strcmp(m.meta.cmdline, "./app"),
            "empty dst takes src");
    cs_profile_merge(&m, &b);
    T_CHECK(m.complete == 0 && m.nranks == 5, "complete and nranks");
    T_CHECK(!strcmp(m.meta.cmdline, "./app") && m.meta.world_size == 4 &&
                m.meta.hostname0 && !strcmp(m.meta.hostname0, "node7"),
            "dst metadata kept, empty fields filled");
    cs_profile_free(&a);
    cs_profile_free(&b);
    cs_profile_free(&m);
}

/* Rank calls per (collective, communicator size) or, with by_coll, per
 * collective: into t[coll][size] (sizes < 128). */
static void totals(const cs_profile *p, uint64_t t[CS_R_N][128], int by_coll)
{
    memset(t, 0, sizeof(uint64_t) * CS_R_N * 128);
    for (size_t i = 0; i < p->ncells; i++)
        t[p->cells[i].coll][by_coll ? 0 : p->cells[i].comm_size & 127] += p->cells[i].rank_calls;
}

/* Folding to fit a size bound: the file fits, totals stay exact, the
 * folded count adds up; merging profiles of different levels meets at the
 * higher one with the same totals. */
static void test_bound(void)
{
    static uint64_t before[CS_R_N][128], after[CS_R_N][128];
    cs_profile p, q, m;
    cs_err e;
    cs_profile_init(&p);
    for (uint32_t cs = 1; cs <= 60; cs++)
        for (uint32_t bin = 0; bin < 120; bin += 1 + cs % 3)
            for (int coll = CS_R_BCAST; coll <= CS_R_ALLREDUCE; coll++) {
                cs_cell c;
                memset(&c, 0, sizeof c);
                c.coll = (uint32_t)coll;
                c.comm_size = cs;
                c.bin = bin;
                for (unsigned k = 0; k < 1 + bin % 3; k++)
                    cs_cell_record(&c, cs_bin_lo((int)bin) + k, coll == CS_R_BCAST ? (int)k : -1,
                                   1e-6 * (double)(1 + k));
                cs_profile_add_cell(&p, &c);
            }
    cs_profile_add_site(&p, CS_R_BCAST, "app+0x10 main+0x4", 7, 1.0);
    size_t n0 = p.ncells;
    double t0, t1;
    uint64_t calls0 = total_calls(&p, &t0);
    for (size_t cap = 16384; cap >= 512; cap /= 4) {
        copy_of(&q, &p);
        T_CHECK(cs_profile_bound(&q, cap, &e) == 0, "bound %zu: %s", cap, e.msg);
        cs_buf b = {0};
        cs_profile_encode(&q, &b, &e);
        T_CHECK(b.n <= cap && q.fold > 0, "bound %zu: file of %zu bytes at level %u", cap, b.n,
                q.fold);
        cs_buf_free(&b);
        T_CHECK(total_calls(&q, &t1) == calls0 && fabs(t1 - t0) < 1e-9 * t0, "bound %zu: totals",
                cap);
        T_CHECK(q.folded_cells == n0 - q.ncells, "bound %zu: folded %llu, cells %zu -> %zu", cap,
                (unsigned long long)q.folded_cells, n0, q.ncells);
        totals(&p, before, q.fold >= 8);
        totals(&q, after, q.fold >= 8);
        T_CHECK(!memcmp(before, after, sizeof before), "bound %zu: per-size totals", cap);
        check_invariants(&q, "bound");
        /* merge with an unfolded profile, both ways */
        merged(&m, &q, &p);
        T_CHECK(m.fold == q.fold && total_calls(&m, &t1) == 2 * calls0, "merge folded + unfolded");
        check_invariants(&m, "merge folded + unfolded");
        cs_profile_free(&m);
        merged(&m, &p, &q);
        T_CHECK(m.fold == q.fold && total_calls(&m, &t1) == 2 * calls0, "merge unfolded + folded");
        check_invariants(&m, "merge unfolded + folded");
        cs_profile_free(&m);
        cs_profile_free(&q);
    }
    /* every level keeps the totals; the last is one cell per collective and
     * 0 / non-0 bytes */
    for (uint32_t level = 1; level <= CS_FOLD_MAX; level++) {
        copy_of(&q, &p);
        cs_profile_fold(&q, level);
        T_CHECK(total_calls(&q, &t1) == calls0 && q.fold == level, "level %u totals", level);
        check_invariants(&q, "fold");
        if (level == CS_FOLD_MAX)
            T_CHECK(q.ncells == 2 * (CS_R_ALLREDUCE - CS_R_BCAST + 1), "last level: %zu cells",
                    q.ncells);
        cs_profile_free(&q);
    }
    cs_profile_free(&p);
}

int main(void)
{
    test_bound();
    test_root_algebra();
    test_cell_record();
    test_random_merges(CS_CELL_NSIZES, 300);
    test_random_merges(7, 100);
    test_sites();
    test_meta();
    if (t_failures)
        fprintf(stderr, "test_merge: %d failures\n", t_failures);
    return t_failures != 0;
}
