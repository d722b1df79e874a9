/* Test helper: write a small profile through record/profile.h.
 *   mkprof OUT CELL...   CELL = COLL:COMM_SIZE:BYTES:CALLS[:ROOTMODE[:ROOT]]
 * COLL: Bcast, Reduce, Barrier, Allreduce, ... (record names); CALLS =
 * operations (rank_calls = CALLS x COMM_SIZE); ROOTMODE: zero (default),
 * fixed, varying.  Cells with the same (coll, comm size, bin) merge, so
 * two exact sizes of one bin make one cell with two sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/profile.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mkprof OUT COLL:CS:BYTES:CALLS[:zero|fixed|varying[:ROOT]]...\n");
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
        c.t_total = 1e-6 * (double)c.rank_calls;
        c.t_min = c.t_max = 1e-6;
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
        if (cs_profile_add_cell(&p, &c) < 0) {
            fprintf(stderr, "mkprof: cannot add '%s'\n", argv[i]);
            return 1;
        }
    }
    cs_err e;
    if (cs_profile_write(&p, argv[1], &e) < 0) {
        fprintf(stderr, "mkprof: %s\n", e.msg);
        return 1;
    }
    cs_profile_free(&p);
    return 0;
}
