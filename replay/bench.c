/* collsel-bench: every method of every collective collsel replaces against
 * the MPI library's own collective (native), in the same run, at a few
 * message sizes on MPI_COMM_WORLD; prints per point the methods sorted by the ratio
 * method / native (< 1: faster than native).  A benchmark, not a test:
 *
 *   mpirun -n 4 collsel-bench [--coll bcast] [--sizes 8,65536,4194304]
 *
 * Native is measured before and after the methods of a point; the ratio
 * uses the smaller of the two medians (conservative: a method must beat
 * native at its best) and both are printed (a noisy machine shows up as a
 * drift between them).
 */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "op.h"
#include "spec.h"
#include "timing.h"

typedef struct row {
    const char *name;
    double us, ratio;
    int rounds, converged;
} row;

static int cmp_row(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return (x->ratio > y->ratio) - (x->ratio < y->ratio);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -n P collsel-bench [--coll C[,C...]] [--sizes LIST]\n"
            "                                 [--time-per-method S] [--top N]\n"
            "                                 [--methods SUBSTRING,...]\n\n"
            "Times every method of the chosen collectives (default: all of them)\n"
            "against native on MPI_COMM_WORLD at each size of LIST (default\n"
            "8,65536,4194304; suffixes k, M accepted; barrier has no size) and prints,\n"
            "per point, the methods sorted by the ratio median(method)/median(native).\n"
            "Segmented variants whose segment is >= the message are skipped (they are\n"
            "the unsegmented method).  (All)reduce sums doubles (sizes rounded to 8 B).\n"
            "  --time-per-method S  bound of one measurement in seconds (default 0.2)\n"
            "  --top N              print only the N best methods of each point\n"
            "  --methods LIST       only the methods whose names hold one of these\n"
            "                       comma-separated substrings (native always runs)\n");
}

/* Time op through method m; returns median us (collective). */
static int measure(cs_rop *op, const cs_method *m, const cs_timing_opts *o, cs_timing *t)
{
    op->m = m;
    return cs_time_collective(op->comm, cs_rop_run, op, o, t);
}

/* The physical floor of a collective inside a node: a flag ping-pong
 * between world ranks 0 and 1 through shared memory (one cache line each
 * way), timed like a collective (rounds, median).  Other ranks idle. */
typedef struct pingpong {
    uint64_t *ping, *pong;
    int rank;
    uint64_t n;
} pingpong;

static void pp_wait(uint64_t *f, uint64_t v)
{
    for (int i = 0; __atomic_load_n(f, __ATOMIC_ACQUIRE) < v; i++) {
        if (i > 20000)
            sched_yield(); /* oversubscribed: let the peer run */
#if defined(__x86_64__) || defined(__i386__)
        else
            __builtin_ia32_pause(); /* as cs_shm_wait spins: 1000 bare polls took less
                                       than a round trip here, so every wait yielded */
#endif
    }
}

static int pp_run(void *arg, long i)
{
    (void)i;
    pingpong *p = arg;
    uint64_t v = ++p->n;
    if (p->rank == 0) {
        __atomic_store_n(p->ping, v, __ATOMIC_RELEASE);
        pp_wait(p->pong, v);
    } else if (p->rank == 1) {
        pp_wait(p->ping, v);
        __atomic_store_n(p->pong, v, __ATOMIC_RELEASE);
    }
    return MPI_SUCCESS;
}

/* Median round trip in us, or -1 (fewer than 2 ranks, not one node). */
static double floor_us(const cs_timing_opts *o, int rank)
{
    MPI_Comm node;
    int nsize;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    int world;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    int ok = nsize == world && world >= 2, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    double us = -1;
    if (all) {
        MPI_Win win;
        char *base;
        MPI_Win_allocate_shared(rank == 0 ? 2 * 64 : 0, 1, MPI_INFO_NULL, node, &base, &win);
        MPI_Aint sz;
        int du;
        MPI_Win_shared_query(win, 0, &sz, &du, &base);
        pingpong p = {(uint64_t *)base, (uint64_t *)(base + 64), rank, 0};
        if (rank == 0)
            __atomic_store_n(p.ping, 0, __ATOMIC_SEQ_CST),
                __atomic_store_n(p.pong, 0, __ATOMIC_SEQ_CST);
        MPI_Barrier(node);
        cs_timing t;
        if (cs_time_collective(MPI_COMM_WORLD, pp_run, &p, o, &t) == MPI_SUCCESS)
            us = t.median_us;
        MPI_Win_free(&win);
    }
    MPI_Comm_free(&node);
    return us;
}

static const char *only; /* --methods */

static int bench_point(enum cs_coll coll, uint64_t bytes, const cs_timing_opts *o, int top,
                       int rank, double floor)
{
    cs_rop op;
    int rc = cs_rop_init(&op, coll, MPI_COMM_WORLD, bytes, 1 /* CS_ROOT_ZERO */, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    int nm;
    const cs_method *tab = cs_methods(coll, &nm);
    row *rows = calloc((size_t)nm, sizeof *rows);
    int nr = 0;
    cs_timing nat0, nat1, t;
    rc = measure(&op, &tab[0], o, &nat0);
    for (int i = 1; i < nm && rc == MPI_SUCCESS && rows; i++) {
        if (!cs_name_matches(tab[i].name, only) || cs_rop_redundant(&op, &tab[i]) ||
            !cs_rop_applies(&op, &tab[i]))
            continue;
        rc = measure(&op, &tab[i], o, &t);
        rows[nr++] = (row){tab[i].name, t.median_us, 0, t.rounds, t.converged};
    }
    if (rc == MPI_SUCCESS)
        rc = measure(&op, &tab[0], o, &nat1);
    if (rc == MPI_SUCCESS && rank == 0 && rows) {
        double nat = nat0.median_us < nat1.median_us ? nat0.median_us : nat1.median_us;
        for (int i = 0; i < nr; i++)
            rows[i].ratio = nat > 0 ? rows[i].us / nat : 0;
        qsort(rows, (size_t)nr, sizeof *rows, cmp_row);
        char b[32];
        printf("\n%s %s, %d ranks: native %.2f us (before %.2f, after %.2f), %d methods\n",
               cs_coll_name(coll), !cs_coll_sized(coll) ? "-" : cs_fmt_bytes(b, sizeof b, (double)op.call.bytes),
               op.call.size, nat, nat0.median_us, nat1.median_us, nr);
        printf("  %-34s %12s %7s %6s%s\n", "method", "median_us", "ratio", "rounds",
               floor > 0 ? "  x floor" : "");
        for (int i = 0; i < nr && (top <= 0 || i < top); i++) {
            printf("  %-34s %12.2f %7.3f %5d%s", rows[i].name, rows[i].us, rows[i].ratio,
                   rows[i].rounds, rows[i].converged ? " " : "*");
            if (floor > 0)
                printf("  %7.2f", rows[i].us / floor);
            printf("\n");
        }
        fflush(stdout);
    }
    if (!rows)
        rc = MPI_ERR_NO_MEM;
    free(rows);
    cs_rop_free(&op);
    return rc;
}

int main(int argc, char **argv)
{
    int colls[CS_NCOLL], top = 0, rank, size, bad = 0;
    for (int c = 0; c < CS_NCOLL; c++)
        colls[c] = 1;
    uint64_t *sizes = NULL, dflt[] = {8, 65536, 4194304};
    int nsizes = 0;
    cs_timing_opts o;
    cs_err e = {{0}};
    memset(&o, 0, sizeof o);
    o.max_seconds = 0.2;
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--coll") && v) {
            memset(colls, 0, sizeof colls);
            char *d = strdup(v), *save = NULL;
            for (char *t = strtok_r(d, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int c = cs_coll_from_name(t);
                if (c < 0) {
                    fprintf(stderr, "collsel-bench: --coll: unknown collective '%s' "
                                    "(accepted: %s)\n", t, cs_coll_names());
                    bad = 1;
                } else {
                    colls[c] = 1;
                }
            }
            free(d);
            i++;
        } else if (!strcmp(a, "--sizes") && v) {
            if (cs_parse_size_list(v, &sizes, &nsizes, &e) < 0) {
                fprintf(stderr, "collsel-bench: --sizes: %s\n", e.msg);
                bad = 1;
            }
            i++;
        } else if (!strcmp(a, "--time-per-method") && v) {
            char *end;
            o.max_seconds = strtod(v, &end);
            if (*end || !(o.max_seconds > 0 && o.max_seconds <= 3600)) {
                fprintf(stderr, "collsel-bench: --time-per-method '%s': need seconds in (0, 3600]\n", v);
                bad = 1;
            }
            i++;
        } else if (!strcmp(a, "--top") && v) {
            top = atoi(v);
            i++;
        } else if (!strcmp(a, "--methods") && v) {
            only = v;
            i++;
        } else {
            fprintf(stderr, "collsel-bench: unknown or incomplete option '%s' (see --help)\n", a);
            bad = 1;
        }
    }
    if (bad)
        return 2;
    if (!sizes) {
        sizes = dflt;
        nsizes = 3;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("collsel-bench: %d ranks, <= %.2f s per measurement; ratio = method / native "
               "(< 1: faster); * = CI target not reached\n", size, o.max_seconds);
    double floor = floor_us(&o, rank);
    if (rank == 0 && floor > 0)
        printf("floor: a flag round trip between ranks 0 and 1 through shared memory takes "
               "%.3f us (x floor below: the method's time in round trips)\n", floor);
    int rc = MPI_SUCCESS;
    for (int c = 0; c < CS_NCOLL && rc == MPI_SUCCESS; c++)
        for (int s = 0; colls[c] && s < (cs_coll_sized(c) ? nsizes : 1) && rc == MPI_SUCCESS; s++)
            rc = bench_point((enum cs_coll)c, cs_coll_sized(c) ? sizes[s] : 0, &o, top, rank,
                             floor);
    if (rc != MPI_SUCCESS && rank == 0) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "collsel-bench: MPI error: %s\n", msg);
    }
    if (sizes != dflt)
        free(sizes);
    MPI_Finalize();
    return rc == MPI_SUCCESS ? 0 : 1;
}
