/* Helpers of the select unit tests: a check macro that counts failures and
 * perf tables made from a "best method" function. */
#ifndef SEL_TEST_H
#define SEL_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/quadtree.h"

static int sel_failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            sel_failures++;                                                \
        }                                                                  \
    } while (0)

#define MUST(expr, err)                                                    \
    do {                                                                   \
        if ((expr) < 0) {                                                  \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, (err).msg); \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

static void add_row(cs_perf *p, int coll, uint32_t cs, uint64_t ms, const char *meth, double t)
{
    cs_perf_row r = {.coll = coll, .comm_size = cs, .msg_bytes = ms, .median_us = t,
                     .min_us = t, .max_us = t, .reps = 1};
    snprintf(r.method, sizeof r.method, "%s", meth);
    if (cs_perf_add(p, &r) < 0)
        exit(1);
}

/* bcast perf table over ncs x nms points (cs = 2, 4, 8, ..., ms = 1, 4, 16,
 * ...): method best(i, j) of `names` takes 10 us, the others 10 us x
 * (2 + their index); nothing is measured where best() returns -1. */
static void perf_from(cs_perf *p, int ncs, int nms, const char *const *names, int nnames,
                      int (*best)(int i, int j))
{
    for (int i = 0; i < ncs; i++)
        for (int j = 0; j < nms; j++) {
            int b = best(i, j);
            if (b < 0)
                continue;
            for (int m = 0; m < nnames; m++)
                add_row(p, CS_BCAST, 2u << i, 1ull << (2 * j), names[m],
                        m == b ? 10 : 10.0 * (2 + m));
        }
}

#endif
