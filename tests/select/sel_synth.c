/* sel_synth perf OUT.csv | profile OUT.prof: write the synthetic perf table
 * of synth.h, or a small profile whose bcast calls fall at comm sizes 16 and
 * 24 with 4..64 KiB and whose reduce calls fall at 8 ranks x 8 B (for the
 * CLI tests and the weighted-tuning demonstration). */
#include <stdio.h>
#include <string.h>

#include "record/profile.h"
#include "synth.h"

static void cell(cs_profile *p, int coll, uint32_t cs, uint64_t bytes, uint64_t calls, double t)
{
    cs_cell c;
    memset(&c, 0, sizeof c);
    c.coll = (uint32_t)coll;
    c.comm_size = cs;
    c.bin = (uint32_t)cs_bin_of(bytes);
    c.rank_calls = calls * cs;
    c.t_total = t * cs;
    c.t_min = c.t_max = t / (double)calls;
    c.root_mode = CS_ROOT_ZERO;
    c.nsizes = 1;
    c.sizes[0].bytes = bytes;
    c.sizes[0].rank_calls = calls * cs;
    cs_profile_add_cell(p, &c);
}

int main(int argc, char **argv)
{
    cs_err e;
    if (argc != 3) {
        fprintf(stderr, "usage: sel_synth perf OUT.csv | profile OUT.prof\n");
        return 2;
    }
    if (!strcmp(argv[1], "perf")) {
        cs_perf p;
        cs_perf_init(&p);
        synth_perf(&p);
        if (cs_perf_write(&p, argv[2], &e) < 0) {
            fprintf(stderr, "sel_synth: %s\n", e.msg);
            return 1;
        }
        cs_perf_free(&p);
        return 0;
    }
    cs_profile p;
    cs_profile_init(&p);
    p.complete = 1;
    p.nranks = 24;
    for (uint64_t b = 4096; b <= 65536; b *= 2) {
        cell(&p, CS_R_BCAST, 16, b, 1000, 0.05);
        cell(&p, CS_R_BCAST, 24, b + b / 2, 500, 0.04);
    }
    cell(&p, CS_R_REDUCE, 8, 8, 100000, 0.3);
    if (cs_profile_write(&p, argv[2], &e) < 0) {
        fprintf(stderr, "sel_synth: %s\n", e.msg);
        return 1;
    }
    cs_profile_free(&p);
    return 0;
}
