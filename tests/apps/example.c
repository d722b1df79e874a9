/* example_app: a small MPI code shaped like a real one, for recording and
 * tuning runs and for checking that collsel changes nothing but speed.
 *
 * A 1-D heat equation on a ring of ranks (halo exchange with
 * MPI_Sendrecv), plus the collectives such codes make:
 *   setup    MPI_Bcast of a parameter struct and of a run name (string)
 *   per step MPI_Allreduce of the quantised field sum (SUM) and of the
 *            residual (MAX); MPI_Reduce of three residual terms to rank 0;
 *            on a row communicator (MPI_Comm_split) an MPI_Bcast of damping
 *            coefficients from a rotating root and an MPI_Reduce to row
 *            rank 0; one MPI_Barrier
 *   every k  MPI_Bcast of a 1-4 MiB source table from rank 0
 *   end      MPI_Reduce of integer checksums, printed by rank 0
 * Every value that crosses a reduction is an integer (int64, or a double
 * holding an integer < 2^53) or goes through MAX, so any reduction order
 * gives bit-identical results: the output must be the same across runs and
 * with or without collsel.  Wall time goes to stderr as "time: ...".
 *
 * usage: example_app [--steps N] [--n CELLS] [--table-every K]
 *                    [--table-mib M] [--sweeps S] [--quick] [--help] */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct params {
    int steps, n, table_every, table_len, sweeps;
    double alpha, dt;
} params;

static int rank, size;

static void usage(FILE *f)
{
    fprintf(f, "usage: example_app [--steps N] [--n CELLS] [--table-every K] [--table-mib M]\n"
               "                   [--sweeps S] [--quick] [--help]\n"
               "  --steps N        time steps (default 200)\n"
               "  --n CELLS        cells per rank (default 80000)\n"
               "  --table-every K  broadcast the source table every K steps (default 25)\n"
               "  --table-mib M    table size in MiB, 1..4 (default 2)\n"
               "  --sweeps S       stencil sweeps per step (default 4)\n"
               "  --quick          a short run for tests (20 steps, 4000 cells, 1 MiB)\n");
}

/* Rank 0 parses the arguments; returns 0 ok, 1 help, 2 bad usage. */
static int parse(int argc, char **argv, params *p)
{
    *p = (params){200, 80000, 25, 2 << 17, 4, 0.25, 1e-3};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long v = 0;
        if (!strcmp(a, "--help"))
            return 1;
        if (!strcmp(a, "--quick")) {
            p->steps = 20, p->n = 4000, p->table_every = 5, p->table_len = 1 << 17;
            p->sweeps = 2;
            continue;
        }
        char *end = NULL;
        if (i + 1 < argc)
            v = strtol(argv[i + 1], &end, 10);
        if (!end || *end || v < 1) {
            fprintf(stderr, "example_app: %s needs a positive integer\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--steps"))
            p->steps = (int)v;
        else if (!strcmp(a, "--n"))
            p->n = (int)v;
        else if (!strcmp(a, "--table-every"))
            p->table_every = (int)v;
        else if (!strcmp(a, "--sweeps"))
            p->sweeps = (int)v;
        else if (!strcmp(a, "--table-mib") && v <= 4)
            p->table_len = (int)v << 17; /* doubles */
        else {
            fprintf(stderr, "example_app: unknown option or bad value: %s %ld\n", a, v);
            return 2;
        }
    }
    return 0;
}

/* The "table" rank 0 loads every k steps (deterministic, step-dependent). */
static void make_table(double *t, int len, int step)
{
    for (int j = 0; j < len; j++)
        t[j] = (double)((j * 7 + step * 13) % 1024) / 1024.0;
}

static int64_t quantise(double v)
{
    return (int64_t)llround(v * 1e6);
}

/* One stencil sweep with halo exchange around the ring of ranks. */
static void sweep(double *u, double *tmp, const double *src, const params *p)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Sendrecv(&u[p->n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 2, &u[p->n + 1], 1, MPI_DOUBLE, right, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 1; i <= p->n; i++)
        tmp[i] = u[i] + p->alpha * (u[i - 1] - 2 * u[i] + u[i + 1]) + p->dt * src[i];
    memcpy(&u[1], &tmp[1], (size_t)p->n * sizeof *u);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t0 = MPI_Wtime();

    /* setup: rank 0 reads the arguments, everybody gets them */
    params p;
    int rc = rank == 0 ? parse(argc, argv, &p) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc) {
        if (rank == 0)
            usage(rc == 1 ? stdout : stderr);
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    MPI_Bcast(&p, (int)sizeof p, MPI_BYTE, 0, MPI_COMM_WORLD);
    char name[64] = "";
    int len = 0;
    if (rank == 0)
        len = snprintf(name, sizeof name, "heat-ring-%dx%d", size, p.n) + 1;
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(name, len, MPI_CHAR, 0, MPI_COMM_WORLD);

    /* rows of (up to) 2 ranks */
    int row_width = size >= 4 ? 2 : 1;
    MPI_Comm row;
    MPI_Comm_split(MPI_COMM_WORLD, rank / row_width, rank, &row);
    int row_rank, row_size;
    MPI_Comm_rank(row, &row_rank);
    MPI_Comm_size(row, &row_size);

    double *u = calloc((size_t)p.n + 2, sizeof *u), *tmp = calloc((size_t)p.n + 2, sizeof *u);
    double *src = calloc((size_t)p.n + 2, sizeof *u), *table = malloc((size_t)p.table_len * sizeof *u);
    if (!u || !tmp || !src || !table) {
        fprintf(stderr, "example_app: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 1; i <= p.n; i++)
        u[i] = (double)((rank * p.n + i) % 97) / 97.0;

    uint64_t history = 0, row_history = 0, table_sum = 0;
    double umax = 0;
    for (int step = 0; step < p.steps; step++) {
        if (step % p.table_every == 0) {
            if (rank == 0)
                make_table(table, p.table_len, step);
            MPI_Bcast(table, p.table_len, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            for (int i = 1; i <= p.n; i++)
                src[i] = table[((int64_t)rank * p.n + i) % p.table_len];
            table_sum += (uint64_t)quantise(table[(step * 31) % p.table_len]);
        }
        for (int s = 0; s < p.sweeps; s++)
            sweep(u, tmp, src, &p);

        /* global residuals: a quantised sum (exact) and a max */
        double local[2] = {0, 0}, global[2];
        int64_t q = 0;
        for (int i = 1; i <= p.n; i++) {
            q += quantise(u[i]);
            double r = fabs(u[i] - u[i - 1]);
            local[1] = r > local[1] ? r : local[1];
        }
        local[0] = (double)q; /* an integer < 2^53: sums exactly in any order */
        MPI_Allreduce(&local[0], &global[0], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&local[1], &global[1], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double shift = global[0] / ((double)size * p.n) * 1e-12;
        for (int i = 1; i <= p.n; i++)
            u[i] -= shift;

        /* residual terms to rank 0 */
        double terms[3] = {(double)quantise(u[1]), (double)quantise(u[p.n]), (double)(step + rank)},
               sum[3] = {0, 0, 0};
        MPI_Reduce(terms, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            history = history * 31 + (uint64_t)(int64_t)sum[0] + 7 * (uint64_t)(int64_t)sum[1] +
                      (uint64_t)sum[2] + (uint64_t)quantise(global[1]);

        /* row communicator: damping from a rotating root, a row reduce */
        double coef[2] = {0, 0};
        if (row_rank == step % row_size) {
            coef[0] = (double)(quantise(u[p.n / 2]) % 1000) * 1e-9;
            coef[1] = (double)(step % 3);
        }
        MPI_Bcast(coef, 2, MPI_DOUBLE, step % row_size, row);
        for (int i = 1; i <= p.n; i++)
            u[i] *= 1 - coef[0] * coef[1];
        double rterm[2] = {(double)quantise(u[2]), (double)row_rank}, rsum[2];
        MPI_Reduce(rterm, rsum, 2, MPI_DOUBLE, MPI_SUM, 0, row);
        if (row_rank == 0)
            row_history = row_history * 17 + (uint64_t)(int64_t)rsum[0] + (uint64_t)rsum[1];

        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* final checksums (integers) */
    int64_t local_sum = 0, total = 0;
    uint64_t rows = 0;
    for (int i = 1; i <= p.n; i++) {
        local_sum += quantise(u[i]);
        umax = u[i] > umax ? u[i] : umax;
    }
    double gmax = 0;
    MPI_Reduce(&local_sum, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&umax, &gmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    uint64_t mine = row_rank == 0 ? row_history : 0;
    MPI_Reduce(&mine, &rows, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    if (rank == 0) {
        printf("example_app %s: %d ranks, %d steps, %d cells per rank, table %d KiB every %d\n",
               name, size, p.steps, p.n, p.table_len / 128, p.table_every);
        printf("checksum field    %lld\n", (long long)total);
        printf("max field         %.17g\n", gmax);
        printf("residual history  %llu\n", (unsigned long long)history);
        printf("row history       %llu\n", (unsigned long long)rows);
        printf("table checksum    %llu\n", (unsigned long long)table_sum);
        fprintf(stderr, "time: %.3f s\n", t1 - t0);
    }
    free(u);
    free(tmp);
    free(src);
    free(table);
    MPI_Comm_free(&row);
    MPI_Finalize();
    return 0;
}
