#!/bin/sh
# synth_perf.sh OUT.csv [SCALE]: a synthetic performance table (cost models
# with crossovers along both axes, deterministic ripple) for the render
# tests.  SCALE multiplies the bandwidth term of the segmented methods
# (large values make them lose everywhere).
out=$1; scale=${2:-1}
awk -v scale="$scale" 'BEGIN {
    print "collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps"
    ncs = split("2 3 4 6 8 12 16 24 32 48 64", cs, " ")
    for (i = 1; i <= ncs; i++) {
        p = cs[i]; L = log(p) / log(2)
        for (n = 1; n <= 4194304; n *= 4) {
            k = n / 1000; r = 1 + 0.03 * sin(p * 7 + n)
            row("bcast", p, n, "bcast.native", (2.2 * L + k * L * 1.1 + 1) * r)
            row("bcast", p, n, "bcast.binomial", (2 * L + k * L) * r)
            row("bcast", p, n, "bcast.knomial.k4", (1.4 * L + k * L * 1.4) * r)
            row("bcast", p, n, "bcast.pipeline.seg1k", (1.5 * (p - 1) + 3 + k * 1.05 * scale) * r)
            row("bcast", p, n, "bcast.scatter_ringallgather", (2 * (L + p - 1) + 2.1 * k) * r)
            row("reduce", p, n, "reduce.native", (2.5 * L + k * L * 1.3 + 1) * r)
            row("reduce", p, n, "reduce.binomial", (2 * L + k * L * 1.2) * r)
            row("reduce", p, n, "reduce.rabenseifner", (5 * L + 2.4 * k) * r)
            row("reduce", p, n, "reduce.chain.k2.seg8k", ((p - 1) + 6 + k * 1.3 * scale) * r)
            row("allreduce", p, n, "allreduce.native", (3 * L + k * L * 1.5 + 1) * r)
            row("allreduce", p, n, "allreduce.recursive_doubling", (2.5 * L + k * L * 1.2) * r)
            row("allreduce", p, n, "allreduce.rabenseifner", (5 * L + 2.2 * k) * r)
            row("allreduce", p, n, "allreduce.ring.seg64k", (2 * (p - 1) + 8 + k * 1.6 * scale) * r)
        }
        r = 1 + 0.03 * sin(p * 3)
        row("barrier", p, 0, "barrier.native", (2.1 * L + 1) * r)
        row("barrier", p, 0, "barrier.dissemination", (2 * L + 0.5) * r)
        row("barrier", p, 0, "barrier.linear", (0.6 * p + 1) * r)
        row("barrier", p, 0, "barrier.tree.k4", (2.2 * L / 2 + 1.5) * r)
    }
}
function row(c, p, n, m, t) { printf "%s,%d,%d,%s,%.3f,%.3f,%.3f,20\n", c, p, n, m, t, t * 0.95, t * 1.2 }' > "$out"
