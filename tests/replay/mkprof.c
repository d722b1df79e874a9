/* Test helper: write a small profile through record/profile.h.
 *   mkprof [--us T] [--late RANK:US | --skew US] OUT CELL...
 *                        CELL = COLL:COMM_SIZE:BYTES:CALLS[:ROOTMODE[:ROOT]]
 * --late: arrivals recorded (record/arrivals.h) for every cell's first 64
 * operations: communicator rank RANK enters US microseconds after the
 * others, every rank leaves 1 us after it (so a cell's time is mostly the
 * others' wait; t_total stays 1 us per rank call, split by that ratio).
 * --skew: the same operations back to back, 1 ms apart: communicator rank 0
 * leaves each US microseconds before the others (which leave 2 x US after
 * the last arrival) and, working as long as they do between calls, enters
 * the next US early: all its wait (US per operation) is the previous
 * call's uneven exit.
 * --us: every rank call's recorded time, microseconds (default 1).
 * COLL: Bcast, Reduce, Barrier, Allreduce, ... (record names); CALLS =
 * operations (rank_calls = CALLS x COMM_SIZE); ROOTMODE: zero (default),
 * fixed, varying.  Cells with the same (coll, comm size, bin) merge, so
 * two exact sizes of one bin make one cell with two sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/profile.h"

/* The arrival records of cell c's first operations (see --late). */
static int add_arrivals(cs_profile *p, const cs_cell *c, uint64_t key, unsigned late, double us,
                        int skew)
{
    for (uint64_t seq = 0; seq < 64 && seq < c->rank_calls / c->comm_size; seq++)
        for (uint32_t r = 0; r < c->comm_size; r++) {
            int64_t t0 = (int64_t)(seq * 1000000), lat = (int64_t)(us * 1e3);
            cs_arr_rec rec = {.comm = key, .seq = seq, .comm_size = c->comm_size,
                              .comm_rank = r, .world_rank = r, .coll = c->coll, .bin = c->bin,
                              .entry = t0 + (r == late % c->comm_size ? lat : 0),
                              .exit = t0 + lat + 1000};
            if (skew) /* last arrival t0 (rank 0 at t0 - lat), exits t0 + lat and t0 + 2 lat */
                rec.entry = t0 - (r == 0 ? lat : 0), rec.exit = t0 + (r == 0 ? lat : 2 * lat);
            if (cs_arr_add_rec(&p->arr, &rec, NULL) < 0)
                return -1;
        }
    return cs_arr_match(&p->arr);
}

int main(int argc, char **argv)
{
    unsigned late = 0;
    double late_us = -1;
    int skew = 0;
    double us = 1; /* each rank call's recorded time */
    if (argc > 2 && !strcmp(argv[1], "--us")) {
        if (sscanf(argv[2], "%lf", &us) != 1 || !(us > 0)) {
            fprintf(stderr, "mkprof: --us US (> 0)\n");
            return 2;
        }
        argc -= 2, argv += 2;
    }
    if (argc > 2 && !strcmp(argv[1], "--late")) {
        if (sscanf(argv[2], "%u:%lf", &late, &late_us) != 2 || late_us < 0) {
            fprintf(stderr, "mkprof: --late RANK:US\n");
            return 2;
        }
        argc -= 2, argv += 2;
    } else if (argc > 2 && !strcmp(argv[1], "--skew")) {
        if (sscanf(argv[2], "%lf", &late_us) != 1 || !(late_us > 0 && late_us < 400)) {
            fprintf(stderr, "mkprof: --skew US (0 < US < 400)\n");
            return 2;
        }
        skew = 1;
        argc -= 2, argv += 2;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: mkprof [--us T] [--late RANK:US | --skew US] OUT COLL:CS:BYTES:CALLS"
                        "[:zero|fixed|varying[:ROOT]]...\n");
        return 2;
    }
    cs_profile p;
    cs_profile_init(&p);
    p.complete = 1;
    p.nranks = 4;
    for (int i = 2; i < argc; i++) {
        char coll[32], mode[16] = "zero";
        unsigned cs;
        unsigned long long bytes, calls;
        int root = 0;
        int n = sscanf(argv[i], "%31[^:]:%u:%llu:%llu:%15[^:]:%d", coll, &cs, &bytes, &calls,
                       mode, &root);
        int rc = cs_rcoll_from_name(coll);
        if (n < 4 || rc < 0 || cs == 0) {
            fprintf(stderr, "mkprof: bad cell '%s'\n", argv[i]);
            return 2;
        }
        cs_cell c;
        memset(&c, 0, sizeof c);
        c.coll = (uint32_t)rc;
        c.comm_size = cs;
        c.bin = (uint32_t)cs_bin_of(bytes);
        c.rank_calls = calls * cs;
        c.t_total = us * 1e-6 * (double)c.rank_calls;
        c.t_min = c.t_max = us * 1e-6;
        if (cs_rcoll_rooted(rc)) {
            c.root_mode = !strcmp(mode, "fixed") ? CS_ROOT_FIXED
                          : !strcmp(mode, "varying") ? CS_ROOT_VARYING : CS_ROOT_ZERO;
            c.root = root;
        }
        if (rc != CS_R_BARRIER) {
            c.nsizes = 1;
            c.sizes[0].bytes = bytes;
            c.sizes[0].rank_calls = c.rank_calls;
        }
        if (cs_profile_add_cell(&p, &c) < 0 ||
            (late_us >= 0 && add_arrivals(&p, &c, (uint64_t)i, late, late_us, skew) < 0)) {
            fprintf(stderr, "mkprof: cannot add '%s'\n", argv[i]);
            return 1;
        }
    }
    if (late_us >= 0)
        cs_arr_finish(&p.arr);
    cs_err e;
    if (cs_profile_write(&p, argv[1], &e) < 0) {
        fprintf(stderr, "mkprof: %s\n", e.msg);
        return 1;
    }
    cs_profile_free(&p);
    return 0;
}
