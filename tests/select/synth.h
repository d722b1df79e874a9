/* A synthetic but plausible performance table for the select benchmarks
 * and CLI tests: Hockney (alpha-beta-gamma) cost models of the usual bcast
 * and reduce algorithms on a small cluster, with a deterministic +-4 %
 * "measurement noise" so that boundaries are irregular like measured maps.
 * Comm sizes 2..32 (every size), message sizes 2^(i/2) bytes from 1 B to
 * 16 MiB (49 sizes): a 64 x 64 grid, depth up to 6 as in the papers.
 * alpha = 3 us, beta = 1/1500 us per byte (1.5 GB/s), gamma = 1/4000 us per
 * byte, segment 8 KiB for the segmented methods. */
#ifndef SEL_SYNTH_H
#define SEL_SYNTH_H

#include <math.h>
#include <stdio.h>

#include "select/perf.h"

static double synth_noise(unsigned a, unsigned b, unsigned c)
{
    unsigned h = a * 2654435761u ^ (b + 0x9e3779b9u) * 40503u ^ c * 2246822519u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return 1 + 0.08 * ((h % 1000) / 1000.0 - 0.5);
}

/* Time of method `meth` (0..5) of bcast (coll 0) or reduce (coll 1). */
static double synth_time(int coll, int meth, double P, double m)
{
    const double a = 3, b = 1 / 1500.0, g = coll ? 1 / 4000.0 : 0, S = 8192;
    double lg = ceil(log2(P)), ns = ceil(m / S), s = m < S ? m : S, h = floor(log2(P));
    switch (meth) {
    case 0: /* native: a fixed decision, binomial then pipeline from 64 KiB */
        return 1.05 * (m < 65536 ? synth_time(coll, 2, P, m) : synth_time(coll, 3, P, m));
    case 1: /* linear */
        return (P - 1) * (a + m * b) + (P - 1) * m * g;
    case 2: /* binomial */
        return lg * (a + m * (b + g));
    case 3: /* pipeline (chain), 8 KiB segments */
        return (P - 2 + ns) * (a + s * (b + g));
    case 4: /* binary tree, 8 KiB segments */
        return 2 * (h + ns - 1) * (a + s * (b + g));
    default: /* scatter + allgather (bcast) / reduce-scatter + gather (reduce) */
        return 2 * lg * a + 2 * (P - 1) / P * m * b + (P - 1) / P * m * g + (P > 16 ? 4 * a : 0);
    }
}

static void synth_perf(cs_perf *p)
{
    static const char *const names[2][6] = {
        {"bcast.native", "bcast.linear", "bcast.binomial", "bcast.pipeline.seg8k",
         "bcast.binary.seg8k", "bcast.scatter_rdallgather"},
        {"reduce.native", "reduce.linear", "reduce.binomial", "reduce.pipeline.seg8k",
         "reduce.binary.seg8k", "reduce.rabenseifner"}};
    for (int c = 0; c < 2; c++)
        for (unsigned P = 2; P <= 32; P++)
            for (int i = 0; i <= 48; i++) {
                uint64_t m = (uint64_t)llround(pow(2, i / 2.0));
                for (int k = 0; k < 6; k++) {
                    double t = synth_time(c, k, P, (double)m) *
                               synth_noise(P, (unsigned)i, (unsigned)(k + 7 * c));
                    cs_perf_row r = {.coll = c, .comm_size = P, .msg_bytes = m, .median_us = t,
                                     .min_us = 0.97 * t, .max_us = 1.2 * t, .reps = 20};
                    snprintf(r.method, sizeof r.method, "%s", names[c][k]);
                    cs_perf_add(p, &r);
                }
            }
}

#endif
