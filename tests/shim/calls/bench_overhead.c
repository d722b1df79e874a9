/* Overhead of the shim's recording, both sides measured in ONE run.
 *
 *   mpirun -n 2 collsel exec --record /tmp/b.prof -- bench_overhead [N]
 *
 * Run preloaded: MPI_X goes through the shim (recorded), PMPI_X does not
 * (native).  The two sides are interleaved in blocks (native, shim, native,
 * shim, ...) so that drift and noise from other processes fall on both; the
 * per-call time of each side is its total over all blocks / calls.  Cases:
 * MPI_Barrier and an 8-byte MPI_Bcast on the 2 ranks of MPI_COMM_WORLD (N
 * calls each, default 200000), and the same on MPI_COMM_SELF, where the
 * collective itself is almost free, so the difference is the shim's cost.
 * Without COLLSEL_RECORD the same program measures the pure pass-through;
 * with COLLSEL_TREE, the cost of selection where the tree answers native.
 * Rank 0 prints per-call ns of both sides, the overhead in ns and in %, by
 * wall clock and by the thread's CPU time (which leaves out the time the
 * process was not running: the machine may be shared and oversubscribed),
 * and the median over blocks of the per-call difference (robust to bursts
 * of load hitting single blocks).  All figures: max over ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BLOCKS 20

static double clk(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct bench {
    const char *name;
    MPI_Comm comm;
    int bcast;
} bench;

/* Adds the block's wall-clock and CPU time (this thread) to t[0], t[1]. */
static void run_block(const bench *b, int shim, long n, char *buf, double *t)
{
    double w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_THREAD_CPUTIME_ID);
    if (b->bcast) {
        if (shim)
            for (long i = 0; i < n; i++)
                MPI_Bcast(buf, 8, MPI_BYTE, 0, b->comm);
        else
            for (long i = 0; i < n; i++)
                PMPI_Bcast(buf, 8, MPI_BYTE, 0, b->comm);
    } else {
        if (shim)
            for (long i = 0; i < n; i++)
                MPI_Barrier(b->comm);
        else
            for (long i = 0; i < n; i++)
                PMPI_Barrier(b->comm);
    }
    t[1] += clk(CLOCK_THREAD_CPUTIME_ID) - c0;
    t[0] += clk(CLOCK_MONOTONIC) - w0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int me, np;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Comm_size(MPI_COMM_WORLD, &np);
    char buf[8] = {0};
    const bench benches[] = {
        {"Barrier world", MPI_COMM_WORLD, 0},
        {"Bcast 8 B world", MPI_COMM_WORLD, 1},
        {"Barrier self", MPI_COMM_SELF, 0},
        {"Bcast 8 B self", MPI_COMM_SELF, 1},
    };
    const char *rec = getenv("COLLSEL_RECORD"), *tree = getenv("COLLSEL_TREE"),
               *force = getenv("COLLSEL_FORCE");
    char mode[160];
    snprintf(mode, sizeof mode, "%s%s%s%s", rec ? "recording " : "",
             tree ? "tree-selecting " : "", force ? "forced " : "",
             rec || tree || force ? "" : "pass-through (nothing configured)");
    if (me == 0)
        printf("bench_overhead: %d ranks, %ld calls per side and case, %d interleaved blocks, "
               "shim %s\n%-16s %-5s %10s %10s %12s %9s %12s %9s\n",
               np, n, BLOCKS, mode, "case",
               "clock", "native ns", "shim ns", "overhead ns", "overhead", "median d ns",
               "median");
    for (size_t k = 0; k < sizeof benches / sizeof benches[0]; k++) {
        const bench *b = &benches[k];
        long per = n / BLOCKS;
        double t[2][2] = {{0, 0}, {0, 0}}, warm[2], blk_t[BLOCKS][2][2];
        run_block(b, 0, per / 10 + 1, buf, warm); /* warm-up */
        run_block(b, 1, per / 10 + 1, buf, warm);
        for (int blk = 0; blk < BLOCKS; blk++)
            for (int s = 0; s < 2; s++) {
                int side = (blk & 1) ? 1 - s : s; /* alternate which side goes first */
                double bt[2] = {0, 0};
                PMPI_Barrier(MPI_COMM_WORLD);
                run_block(b, side, per, buf, bt);
                t[side][0] += bt[0];
                t[side][1] += bt[1];
                blk_t[blk][side][0] = bt[0];
                blk_t[blk][side][1] = bt[1];
            }
        /* median over blocks of the per-call difference (robust to bursts of
         * load that hit one block) */
        double med[2];
        for (int c = 0; c < 2; c++) {
            double d[BLOCKS];
            for (int i = 0; i < BLOCKS; i++) {
                d[i] = (blk_t[i][1][c] - blk_t[i][0][c]) / (double)per * 1e9;
                for (int j = i; j > 0 && d[j - 1] > d[j]; j--) {
                    double x = d[j];
                    d[j] = d[j - 1];
                    d[j - 1] = x;
                }
            }
            med[c] = 0.5 * (d[(BLOCKS - 1) / 2] + d[BLOCKS / 2]);
        }
        /* per call, ns: native wall, shim wall, native cpu, shim cpu; max over ranks */
        double loc[6], mx[6], calls = (double)(per * BLOCKS);
        for (int i = 0; i < 4; i++)
            loc[i] = t[i & 1][i >> 1] / calls * 1e9;
        loc[4] = med[0];
        loc[5] = med[1];
        PMPI_Reduce(loc, mx, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0)
            for (int c = 0; c < 2; c++)
                printf("%-16s %-5s %10.1f %10.1f %12.1f %8.2f%% %12.1f %8.2f%%\n",
                       c ? "" : b->name, c ? "cpu" : "wall", mx[2 * c], mx[2 * c + 1],
                       mx[2 * c + 1] - mx[2 * c],
                       100.0 * (mx[2 * c + 1] - mx[2 * c]) / mx[2 * c], mx[4 + c],
                       100.0 * mx[4 + c] / mx[2 * c]);
    }
    MPI_Finalize();
    return 0;
}
