/* Helpers shared by the record unit tests: a check macro, a deterministic
 * random generator, random profiles, and a field-by-field comparison. */
#ifndef COLLSEL_TEST_TESTPROF_H
#define COLLSEL_TEST_TESTPROF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/profile.h"

static int t_failures;

#define T_CHECK(cond, ...)                                           \
    do {                                                             \
        if (!(cond)) {                                               \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__,   \
                    __LINE__, #cond);                                \
            fprintf(stderr, __VA_ARGS__);                            \
            fputc('\n', stderr);                                     \
            t_failures++;                                            \
        }                                                            \
    } while (0)

static uint64_t t_rng = 0x9e3779b97f4a7c15ull;

static inline uint64_t t_rand(void)
{
    t_rng ^= t_rng << 13;
    t_rng ^= t_rng >> 7;
    t_rng ^= t_rng << 17;
    return t_rng;
}

static inline unsigned t_below(unsigned n)
{
    return (unsigned)(t_rand() % n);
}

/* A random cell of one of a few keys.  Times are multiples of 2^-10 s and
 * small, so floating-point sums are exact in any order.  sizes_per_key
 * bounds the distinct exact sizes a key can ever see (<= 4 keeps the size
 * table exact, hence associative). */
static inline void t_random_cell(cs_cell *c, unsigned sizes_per_key)
{
    static const uint32_t colls[] = {CS_R_BCAST, CS_R_REDUCE, CS_R_BARRIER, CS_R_ALLREDUCE};
    static const uint32_t comms[] = {2, 4, 8};
    memset(c, 0, sizeof *c);
    c->coll = colls[t_below(4)];
    c->comm_size = comms[t_below(3)];
    c->bin = 40 + t_below(6);
    unsigned calls = 1 + t_below(20);
    for (unsigned i = 0; i < calls; i++) {
        uint64_t bytes = cs_bin_lo((int)c->bin) + t_below(sizes_per_key);
        int root = -1;
        if (cs_rcoll_rooted((int)c->coll)) {
            unsigned m = t_below(10);
            root = m < 6 ? 0 : m < 9 ? 3 : (int)t_below(8);
        }
        cs_cell_record(c, bytes, root, (double)(1 + t_below(64)) / 1024.0);
    }
}

static inline void t_random_profile(cs_profile *p, unsigned ncells, unsigned sizes_per_key)
{
    static const char *where[] = {"app+0x10 main+0x4", "app+0x20 solve+0x8", "libx.so+0x30 f+0x1",
                                  "app+0x40 io+0x2"};
    cs_profile_init(p);
    p->nranks = 1 + t_below(4);
    p->complete = t_below(4) != 0;
    for (unsigned i = 0; i < ncells; i++) {
        cs_cell c;
        t_random_cell(&c, sizes_per_key);
        if (cs_profile_add_cell(p, &c) < 0)
            abort();
    }
    for (unsigned i = t_below(5); i > 0; i--)
        if (cs_profile_add_site(p, (uint32_t)t_below(4), where[t_below(4)], 1 + t_below(100),
                                (double)t_below(1000) / 1024.0) < 0)
            abort();
}

static inline int t_str_eq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* 1 if equal (cells in order, sites in order, metadata). */
static inline int t_profile_eq(const cs_profile *a, const cs_profile *b, const char *what)
{
    int ok = 1;
#define T_EQ(cond, ...)                                        \
    do {                                                       \
        if (!(cond)) {                                         \
            fprintf(stderr, "%s: %s differs: ", what, #cond);  \
            fprintf(stderr, __VA_ARGS__);                      \
            fputc('\n', stderr);                               \
            ok = 0;                                            \
        }                                                      \
    } while (0)
    T_EQ(a->ncells == b->ncells, "%zu vs %zu", a->ncells, b->ncells);
    T_EQ(a->nsites == b->nsites, "%zu vs %zu", a->nsites, b->nsites);
    T_EQ(a->nranks == b->nranks, "%u vs %u", a->nranks, b->nranks);
    T_EQ(a->complete == b->complete, "%u vs %u", a->complete, b->complete);
    T_EQ(t_str_eq(a->meta.mpi_library, b->meta.mpi_library), "mpi_library");
    T_EQ(t_str_eq(a->meta.cmdline, b->meta.cmdline), "cmdline");
    T_EQ(t_str_eq(a->meta.hostname0, b->meta.hostname0), "hostname0");
    T_EQ(a->meta.world_size == b->meta.world_size && a->meta.nnodes == b->meta.nnodes &&
             a->meta.ranks_per_node == b->meta.ranks_per_node &&
             a->meta.start_time == b->meta.start_time && a->meta.duration == b->meta.duration,
         "numbers");
    for (size_t i = 0; ok && i < a->ncells; i++) {
        const cs_cell *x = &a->cells[i], *y = &b->cells[i];
        T_EQ(cs_cell_key_cmp(x, y) == 0, "cell %zu key", i);
        T_EQ(x->rank_calls == y->rank_calls, "cell %zu: %llu vs %llu", i,
             (unsigned long long)x->rank_calls, (unsigned long long)y->rank_calls);
        T_EQ(x->t_total == y->t_total && x->t_min == y->t_min && x->t_max == y->t_max,
             "cell %zu times %g/%g/%g vs %g/%g/%g", i, x->t_total, x->t_min, x->t_max, y->t_total,
             y->t_min, y->t_max);
        T_EQ(x->root_mode == y->root_mode && x->root == y->root, "cell %zu root %u/%d vs %u/%d", i,
             x->root_mode, x->root, y->root_mode, y->root);
        T_EQ(x->nsizes == y->nsizes && x->other_size_calls == y->other_size_calls,
             "cell %zu nsizes %u/%llu vs %u/%llu", i, x->nsizes,
             (unsigned long long)x->other_size_calls, y->nsizes,
             (unsigned long long)y->other_size_calls);
        for (uint32_t k = 0; k < x->nsizes && k < y->nsizes; k++)
            T_EQ(x->sizes[k].bytes == y->sizes[k].bytes &&
                     x->sizes[k].rank_calls == y->sizes[k].rank_calls,
                 "cell %zu size %u", i, k);
    }
    for (size_t i = 0; ok && i < a->nsites; i++) {
        const cs_site *x = &a->sites[i], *y = &b->sites[i];
        T_EQ(x->coll == y->coll && t_str_eq(x->where, y->where) &&
                 x->rank_calls == y->rank_calls && x->t_total == y->t_total,
             "site %zu (%s vs %s)", i, x->where, y->where);
    }
    T_EQ(a->xtab.k == b->xtab.k && a->xtab.n == b->xtab.n && a->xtab.dropped == b->xtab.dropped,
         "explored: k %u/%u, %zu/%zu entries", a->xtab.k, b->xtab.k, a->xtab.n, b->xtab.n);
    for (size_t i = 0; ok && i < a->xtab.n; i++) {
        const cs_xcell *x = &a->xtab.x[i], *y = &b->xtab.x[i];
        T_EQ(x->coll == y->coll && x->comm_size == y->comm_size && x->bytes == y->bytes &&
                 t_str_eq(x->method, y->method) && x->calls == y->calls && x->t == y->t &&
                 x->t2 == y->t2 && x->tmin == y->tmin && x->clipped == y->clipped,
             "explored entry %zu (%s vs %s)", i, x->method, y->method);
    }
#undef T_EQ
    return ok;
}

#endif
