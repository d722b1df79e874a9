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
 * drift between them).  Alltoall: the size is one block (p blocks each way);
 * the point also times one memcpy of the bytes a rank receives (the floor
 * of a single-copy method) and prints the best single-copy method against
 * it.
 *
 * --arrivals PATTERN (replay/pattern.h): every call under that arrival
 * pattern; the times are then COMPLETION (last exit - last arrival, the
 * part a method can change), and the exit span (last exit - first
 * arrival) is printed beside them.
 */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/shm/shm.h"
#include "record/profile.h"
#include "replay/pattern.h"
#include "op.h"
#include "spec.h"
#include "timing.h"

typedef struct row {
    const char *name;
    double us, ratio, span_us, skew_us;
    int rounds, converged;
} row;

/* What every point shares: the options and the output. */
typedef struct bench_cfg {
    cs_timing_opts o;
    int top, rank, csv, root;
    int reorder_fp;      /* --reorder-fp: the calls' c.reorder_fp */
    int interleave;      /* --interleave N: N calls per method, one at a time in turn */
    const char *methods; /* --methods: comma-separated name parts, or NULL (all) */
    double floor;        /* a flag round trip (us), or <= 0 */
    double cross;        /* this point's bytes crossing the cores once (us), or <= 0 */
    const char *pattern; /* canonical arrival pattern name */
} bench_cfg;

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
            "                                 [--arrivals PATTERN] [--root R] [--csv]\n"
            "                                 [--methods PART[,PART...]] [--reorder-fp]\n"
            "                                 [--interleave N] [--node-size N]\n"
            "                                 [--work DURATION:KIB]\n\n"
            "Times every method of the chosen collectives (default: all of them)\n"
            "against native on MPI_COMM_WORLD at each size of LIST (default\n"
            "8,65536,4194304; suffixes k, M accepted; barrier has no size) and prints,\n"
            "per point, the methods sorted by the ratio median(method)/median(native).\n"
            "Segmented variants whose segment is >= the message are skipped (they are\n"
            "the unsegmented method).  (All)reduce sums doubles (sizes rounded to 8 B).\n"
            "Alltoall: the size is one block; the point adds one memcpy of the (p-1)\n"
            "blocks a rank receives (the single-copy floor) and the best single-copy\n"
            "method against it.\n"
            "  --time-per-method S  bound of one measurement in seconds (default 0.2)\n"
            "  --top N              print only the N best methods of each point\n"
            "  --arrivals PATTERN   every call under an arrival pattern, timed on its own:\n"
            "                       the time is then the COMPLETION (last exit - last\n"
            "                       arrival; the injected delay never counts) and the exit\n"
            "                       span (last exit - first arrival) is printed too.\n"
            "                         none             all at once (per-call timing)\n"
            "                         one-late:D[@R]   rank R (default: one drawn per call)\n"
            "                                          arrives D late (20us, 1.5ms, 500ns)\n"
            "                         random:D         each rank late by uniform [0, D]\n"
            "                       the same draw on every rank; arrivals compared on\n"
            "                       CLOCK_MONOTONIC (a node's shared clock; offsets estimated\n"
            "                       across nodes); a delay is a spin on that clock\n"
            "  --root R             root of bcast and reduce (default 0)\n"
            "  --csv                rows coll,comm_size,msg_bytes,arrivals,method,median_us,\n"
            "                       ratio,span_us,native_us,rounds,skew_us instead of the\n"
            "                       text (skew: last exit - first exit, under --arrivals)\n"
            "  --methods PART,...   only the methods whose name contains one of the PARTs\n"
            "                       (native is always measured)\n"
            "  --work DURATION:KIB  with --arrivals: before each call every rank computes\n"
            "                       for DURATION over KIB KiB of its own memory (stencil\n"
            "                       sweeps, untimed), as an application between its calls:\n"
            "                       e.g. 10ms:2048 (single-copy paths slow down after it)\n"
            "  --reorder-fp         the dynamic reductions may sum the doubles in arrival\n"
            "                       order (COLLSEL_REORDER_FP=1 of the preload library);\n"
            "                       without it they keep rank order\n"
            "  --interleave N       with --arrivals: N single calls per method, one call of\n"
            "                       each per round, each round in a new order (no method\n"
            "                       always follows the same one), so that a loaded machine\n"
            "                       hits them all alike; prints per method\n"
            "                       the 10th percentile and the median of the completion\n"
            "                       (ratio: median / native's median) and the median span\n"
            "  --node-size N        cut each machine into virtual nodes of N ranks (as\n"
            "                       COLLSEL_NODE_SIZE does in the preload library), so\n"
            "                       that the node-aware methods run on one machine\n"
            "  -h, --help           this text\n");
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

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* cross_us on node (every: all of the world is on it). */
static double cross_in(uint64_t n, int rank, MPI_Comm node, int every)
{
    enum { ROUNDS = 41 };
    MPI_Win win;
    char *base;
    size_t len = (size_t)n + 2 * 64;
    if (!every || MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)len : 0, 1, MPI_INFO_NULL,
                                          node, &base, &win) != MPI_SUCCESS)
        return -1;
    MPI_Aint sz;
    int du;
    MPI_Win_shared_query(win, 0, &sz, &du, &base);
    uint64_t *ping = (uint64_t *)base, *pong = (uint64_t *)(base + 64);
    char *data = base + 128, *mine = aligned_alloc(4096, (n + 4095) / 4096 * 4096 + 4096);
    double t[ROUNDS], us = -1;
    if (rank == 0)
        __atomic_store_n(ping, 0, __ATOMIC_SEQ_CST), __atomic_store_n(pong, 0, __ATOMIC_SEQ_CST);
    if (mine)
        memset(mine, rank + 1, n);
    int ok = mine != NULL, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (uint64_t v = 1; all && v <= ROUNDS; v++) {
        if (rank == 0) {
            memcpy(data, mine, n);
            __atomic_store_n(ping, v, __ATOMIC_RELEASE);
            pp_wait(pong, v);
        } else if (rank == 1) {
            pp_wait(ping, v);
            double t0 = MPI_Wtime();
            memcpy(mine, data, n);
            __asm__ __volatile__("" ::"r"(mine) : "memory");
            t[v - 1] = MPI_Wtime() - t0;
            __atomic_store_n(pong, v, __ATOMIC_RELEASE);
        }
    }
    if (all && rank == 1) {
        qsort(t, ROUNDS, sizeof *t, cmp_double);
        us = t[ROUNDS / 2] * 1e6;
    }
    MPI_Bcast(&us, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    free(mine);
    MPI_Win_free(&win);
    return us;
}

/* The data floor of a point: n bytes crossing from one core to the other
 * once.  World rank 0 writes them into a shared buffer (they are then in
 * its cache, as a late rank's vector is in its own) and raises a flag;
 * rank 1 copies them out, timed from the flag seen to the copy done.  No
 * method that moves n bytes between ranks 0 and 1 (a bcast, a reduce
 * whose late rank is not the root; an allreduce moves them both ways)
 * finishes in less after the last arrival.  Median of 41 rounds in us, or
 * -1 (not one node, fewer than 2 ranks).  Collective over the world. */
static double cross_us(uint64_t n, int rank)
{
    MPI_Comm node;
    int nsize, world;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    int one = nsize == world && world >= 2, every;
    MPI_Allreduce(&one, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    double us = cross_in(n, rank, node, every);
    MPI_Comm_free(&node);
    return us;
}

/* The single-copy floor of an alltoall: every rank copies the (p - 1) n
 * bytes it receives once with memcpy between page-aligned buffers (no peer
 * involved), timed like a collective. */
typedef struct copy_floor {
    char *from, *to;
    size_t n;
} copy_floor;

static int copy_run(void *arg, long i)
{
    (void)i;
    copy_floor *f = arg;
    memcpy(f->to, f->from, f->n);
    __asm__ __volatile__("" ::"r"(f->to) : "memory"); /* the copy is not elided */
    return MPI_SUCCESS;
}

static double memcpy_us(const cs_rop *op, const cs_timing_opts *o)
{
    copy_floor f = {NULL, NULL, op->call.bytes * (size_t)(op->call.size - 1)};
    /* page-aligned: glibc's string copy is many times slower when the
     * destination is just ahead of the source in a page (coll/copy.c) */
    size_t len = (f.n + 4095) / 4096 * 4096;
    f.from = aligned_alloc(4096, len ? len : 4096);
    f.to = aligned_alloc(4096, len ? len : 4096);
    int ok = f.from && f.to, all;
    if (ok)
        memset(f.from, 1, f.n), memset(f.to, 2, f.n);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, op->comm);
    cs_timing t;
    double us = all && cs_time_collective(op->comm, copy_run, &f, o, &t) == MPI_SUCCESS
                    ? t.median_us
                    : -1;
    free(f.from);
    free(f.to);
    return us;
}

/* The data floor line of a point (b->cross > 0). */
static void print_cross(const bench_cfg *b, const cs_rop *op)
{
    char bb[32];
    if (b->cross > 0)
        printf("  data floor: %s crossing from one core to the other once (rank 1 copying "
               "what rank 0 just wrote) takes %.2f us (x cross below)\n",
               cs_fmt_bytes(bb, sizeof bb, (double)op->call.bytes), b->cross);
}

static void print_point(const bench_cfg *b, const cs_rop *op, row *rows, int nr,
                        const cs_timing *nat0, const cs_timing *nat1, double copy)
{
    enum cs_coll coll = op->coll;
    const cs_timing *nt = nat0->median_us < nat1->median_us ? nat0 : nat1;
    double nat = nt->median_us;
    for (int i = 0; i < nr; i++)
        rows[i].ratio = nat > 0 ? rows[i].us / nat : 0;
    qsort(rows, (size_t)nr, sizeof *rows, cmp_row);
    if (b->csv) {
        printf("%s,%d,%llu,%s,%s.native,%.4f,1,%.4f,%.4f,%d,%.4f\n", cs_coll_name(coll),
               op->call.size, (unsigned long long)op->call.bytes, b->pattern, cs_coll_name(coll),
               nat, nt->span_us, nat, nt->rounds, nt->skew_us);
        for (int i = 0; i < nr && (b->top <= 0 || i < b->top); i++)
            printf("%s,%d,%llu,%s,%s,%.4f,%.4f,%.4f,%.4f,%d,%.4f\n", cs_coll_name(coll),
                   op->call.size, (unsigned long long)op->call.bytes, b->pattern, rows[i].name,
                   rows[i].us, rows[i].ratio, rows[i].span_us, nat, rows[i].rounds,
                   rows[i].skew_us);
        fflush(stdout);
        return;
    }
    char bb[32];
    int arr = b->o.arrivals != NULL;
    char span[48] = "";
    if (arr)
        snprintf(span, sizeof span, ", exit span %.2f us, skew %.2f us", nt->span_us,
                 nt->skew_us);
    printf("\n%s %s, %d ranks%s%s: native %.2f us (before %.2f, after %.2f)%s, %d methods\n",
           cs_coll_name(coll),
           !cs_coll_sized(coll) ? "-" : cs_fmt_bytes(bb, sizeof bb, (double)op->call.bytes),
           op->call.size, arr ? ", arrivals " : "", arr ? b->pattern : "", nat, nat0->median_us,
           nat1->median_us, span, nr);
    print_cross(b, op);
    printf("  %-34s %12s %7s %6s%s%s%s\n", "method", arr ? "completion" : "median_us", "ratio",
           "rounds", arr ? "  span_us  skew_us" : "", b->floor > 0 ? "  x floor" : "",
           b->cross > 0 ? "  x cross" : "");
    for (int i = 0; i < nr && (b->top <= 0 || i < b->top); i++) {
        printf("  %-34s %12.2f %7.3f %5d%s", rows[i].name, rows[i].us, rows[i].ratio,
               rows[i].rounds, rows[i].converged ? " " : "*");
        if (arr)
            printf("  %8.2f %8.2f", rows[i].span_us, rows[i].skew_us);
        if (b->floor > 0)
            printf("  %7.2f", rows[i].us / b->floor);
        if (b->cross > 0)
            printf("  %7.2f", rows[i].us / b->cross);
        printf("\n");
    }
    for (int i = 0; i < nr && copy > 0; i++)
        if (strstr(rows[i].name, ".cma")) { /* sorted: the best single-copy method */
            printf("  single-copy floor: one memcpy of the %s a rank receives takes "
                   "%.2f us; %s takes %.2f x that (native %.2f x)\n",
                   cs_fmt_bytes(bb, sizeof bb, (double)op->call.bytes * (op->call.size - 1)),
                   copy, rows[i].name, rows[i].us / copy, nat / copy);
            break;
        }
    fflush(stdout);
}

/* --interleave: the methods (tab[idx[k]], native among them) one call each
 * in turn, in a new order each round (cs_time_order), b->interleave times;
 * per method the 10th percentile and median of the completion and the
 * median span. */
static int bench_interleaved(cs_rop *op, const cs_method *tab, const int *idx, int nk,
                             const bench_cfg *b)
{
    const int n = b->interleave;
    double *v = malloc(sizeof *v * (size_t)n * (size_t)nk * 2), out[5];
    int *perm = malloc(sizeof *perm * (size_t)nk);
    int rc = v && perm ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    const double t0 = cs_pat_now(b->o.arrivals);
    for (int c = 0; c < n && rc == MPI_SUCCESS; c++) {
        cs_time_order(perm, nk, c);
        for (int j = 0; j < nk && rc == MPI_SUCCESS; j++) {
            const int k = perm[j];
            long i = c;
            op->m = &tab[idx[k]];
            rc = cs_pat_round(op->comm, b->o.arrivals, cs_rop_run, op, &i, 1, t0, out);
            v[(size_t)k * (size_t)n + (size_t)c] = out[0] * 1e6;
            v[(size_t)(nk + k) * (size_t)n + (size_t)c] = out[3] * 1e6;
        }
    }
    if (rc == MPI_SUCCESS && b->rank == 0) {
        char bb[32];
        for (int k = 0; k < 2 * nk; k++)
            qsort(v + (size_t)k * (size_t)n, (size_t)n, sizeof *v, cmp_double);
        const double nat = v[n / 2];
        printf("\n%s %s, %d ranks, arrivals %s, %d calls per method in turn\n",
               cs_coll_name(op->coll), cs_fmt_bytes(bb, sizeof bb, (double)op->call.bytes),
               op->call.size, b->pattern, n);
        print_cross(b, op);
        printf("  %-34s %9s %9s %7s %9s%s%s\n", "method", "p10_us", "median_us", "ratio",
               "span_us", b->floor > 0 ? "  x floor" : "", b->cross > 0 ? "  x cross" : "");
        for (int k = 0; k < nk; k++) {
            const double *w = v + (size_t)k * (size_t)n, med = w[n / 2];
            printf("  %-34s %9.2f %9.2f %7.3f %9.2f", tab[idx[k]].name, w[n / 10], med,
                   nat > 0 ? med / nat : 0, v[(size_t)(nk + k) * (size_t)n + (size_t)n / 2]);
            if (b->floor > 0)
                printf("  %7.2f", med / b->floor);
            if (b->cross > 0)
                printf("  %7.2f", med / b->cross);
            printf("\n");
        }
        fflush(stdout);
    }
    free(v);
    free(perm);
    return rc;
}

static int bench_point(enum cs_coll coll, uint64_t bytes, const bench_cfg *b)
{
    cs_rop op;
    const cs_timing_opts *o = &b->o;
    int rc = cs_rop_init(&op, coll, MPI_COMM_WORLD, bytes,
                         b->root ? CS_ROOT_FIXED : CS_ROOT_ZERO, b->root);
    if (rc != MPI_SUCCESS)
        return rc;
    op.call.reorder_fp = b->reorder_fp;
    bench_cfg pb = *b; /* with this point's data floor */
    pb.cross = -1;
    if (b->o.arrivals && !b->csv && op.call.bytes >= 1024 &&
        (coll == CS_BCAST || coll == CS_REDUCE || coll == CS_ALLREDUCE))
        pb.cross = cross_us(op.call.bytes, b->rank);
    b = &pb;
    int nm;
    const cs_method *tab = cs_methods(coll, &nm);
    if (b->interleave > 0 && b->o.arrivals) {
        int *idx = malloc(sizeof *idx * (size_t)nm), nk = 0;
        for (int i = 0; idx && i < nm; i++)
            if (i == 0 || (!cs_rop_redundant(&op, &tab[i]) && cs_rop_applies(&op, &tab[i]) &&
                           cs_name_matches(tab[i].name, b->methods)))
                idx[nk++] = i;
        rc = idx ? bench_interleaved(&op, tab, idx, nk, b) : MPI_ERR_NO_MEM;
        free(idx);
        cs_rop_free(&op);
        return rc;
    }
    row *rows = calloc((size_t)nm, sizeof *rows);
    int nr = 0;
    cs_timing nat0, nat1, t;
    rc = measure(&op, &tab[0], o, &nat0);
    for (int i = 1; i < nm && rc == MPI_SUCCESS && rows; i++) {
        if (cs_rop_redundant(&op, &tab[i]) || !cs_rop_applies(&op, &tab[i]) ||
            !cs_name_matches(tab[i].name, b->methods))
            continue;
        rc = measure(&op, &tab[i], o, &t);
        rows[nr++] = (row){tab[i].name, t.median_us, 0, t.span_us, t.skew_us, t.rounds,
                           t.converged};
    }
    if (rc == MPI_SUCCESS)
        rc = measure(&op, &tab[0], o, &nat1);
    double copy = coll == CS_ALLTOALL && rc == MPI_SUCCESS ? memcpy_us(&op, o) : -1;
    if (rc == MPI_SUCCESS && b->rank == 0 && rows)
        print_point(b, &op, rows, nr, &nat0, &nat1, copy);
    if (!rows)
        rc = MPI_ERR_NO_MEM;
    free(rows);
    cs_rop_free(&op);
    return rc;
}

int main(int argc, char **argv)
{
    int colls[CS_NCOLL], rank, size, bad = 0;
    bench_cfg b = {.pattern = "none"};
    cs_pattern pat;
    const char *pattern = NULL;
    double work_s = 0; /* --work */
    size_t work_kib = 0;
    long root = 0;
    for (int c = 0; c < CS_NCOLL; c++)
        colls[c] = 1;
    uint64_t *sizes = NULL, dflt[] = {8, 65536, 4194304};
    int nsizes = 0;
    cs_timing_opts *o = &b.o;
    cs_err e = {{0}};
    o->max_seconds = 0.2;
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
            o->max_seconds = strtod(v, &end);
            if (*end || !(o->max_seconds > 0 && o->max_seconds <= 3600)) {
                fprintf(stderr, "collsel-bench: --time-per-method '%s': need seconds in (0, 3600]\n", v);
                bad = 1;
            }
            i++;
        } else if (!strcmp(a, "--top") && v) {
            b.top = atoi(v);
            i++;
        } else if (!strcmp(a, "--arrivals") && v) {
            if (cs_pattern_parse(v, &pat, &e) < 0 || pat.kind == CS_PAT_RECORDED) {
                fprintf(stderr, "collsel-bench: --arrivals: %s\n",
                        pat.kind == CS_PAT_RECORDED ? "'recorded' needs a profile (collsel-replay "
                                                      "--arrivals recorded)" : e.msg);
                bad = 1;
            }
            pattern = v;
            i++;
        } else if (!strcmp(a, "--root") && v) {
            char *end;
            root = strtol(v, &end, 10);
            if (*end || root < 0 || root > 1 << 24) {
                fprintf(stderr, "collsel-bench: --root '%s': need a rank number\n", v);
                bad = 1;
            }
            i++;
        } else if (!strcmp(a, "--csv")) {
            b.csv = 1;
        } else if (!strcmp(a, "--interleave") && v) {
            b.interleave = atoi(v);
            if (b.interleave < 1 || b.interleave > 1000000) {
                fprintf(stderr, "collsel-bench: --interleave '%s': need 1..1000000 calls\n", v);
                bad = 1;
            }
            i++;
        } else if (!strcmp(a, "--work") && v) {
            if (cs_pat_parse_work(v, &work_s, &work_kib, &e) < 0) {
                fprintf(stderr, "collsel-bench: --work: %s\n", e.msg);
                bad = 1;
            }
            i++;
        } else if (!strcmp(a, "--reorder-fp")) {
            b.reorder_fp = 1;
        } else if (!strcmp(a, "--node-size") && v) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 1 << 20) {
                fprintf(stderr, "collsel-bench: --node-size '%s': need a number of ranks >= 1\n", v);
                bad = 1;
            }
            cs_shm_set_node_size((int)n);
            i++;
        } else if (!strcmp(a, "--methods") && v) {
            b.methods = v;
            i++;
        } else {
            fprintf(stderr, "collsel-bench: unknown or incomplete option '%s' (see --help)\n", a);
            bad = 1;
        }
    }
    if (!bad && work_s > 0 && !pattern) {
        fprintf(stderr, "collsel-bench: --work needs --arrivals (use 'none' for no delay)\n");
        bad = 1;
    }
    if (!bad && b.interleave && !pattern) {
        fprintf(stderr, "collsel-bench: --interleave needs --arrivals (use 'none' for no delay)\n");
        bad = 1;
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
    b.rank = rank;
    b.root = (int)root;
    int rc = MPI_SUCCESS, late = pattern && pat.late_rank >= size;
    if (late || root >= size) {
        if (rank == 0)
            fprintf(stderr, "collsel-bench: %s %ld is not a rank of the %d\n",
                    late ? "--arrivals: the late rank" : "--root", late ? (long)pat.late_rank : root,
                    size);
        MPI_Finalize();
        return 2;
    }
    char pname[CS_PAT_NAME_MAX];
    if (rank == 0 && !b.csv)
        printf("collsel-bench: %d ranks, <= %.2f s per measurement; ratio = method / native "
               "(< 1: faster); * = CI target not reached\n", size, o->max_seconds);
    if (rank == 0 && b.csv)
        printf("coll,comm_size,msg_bytes,arrivals,method,median_us,ratio,span_us,native_us,rounds,"
               "skew_us\n");
    b.floor = b.csv ? -1 : floor_us(o, rank);
    if (rank == 0 && b.floor > 0)
        printf("floor: a flag round trip between ranks 0 and 1 through shared memory takes "
               "%.3f us (x floor below: the method's time in round trips)\n", b.floor);
    cs_pat_run run;
    if (pattern) {
        b.pattern = cs_pattern_name(&pat, pname, sizeof pname);
        rc = cs_pat_run_init(&run, &pat, MPI_COMM_WORLD, rank, size);
        if (rc == MPI_SUCCESS && cs_pat_set_work(&run, work_s, work_kib) < 0)
            rc = MPI_ERR_NO_MEM;
        o->arrivals = &run;
        if (rank == 0 && !b.csv)
            printf("arrivals %s: times are completion (last exit - last arrival), span = last "
                   "exit - first arrival, per call\n", b.pattern);
        if (rank == 0 && !b.csv && work_s > 0)
            printf("work: before each call every rank computes %.3g ms over %zu KiB of its own "
                   "(untimed)\n", work_s * 1e3, work_kib);
    }
    for (int c = 0; c < CS_NCOLL && rc == MPI_SUCCESS; c++)
        for (int s = 0; colls[c] && s < (cs_coll_sized(c) ? nsizes : 1) && rc == MPI_SUCCESS; s++)
            rc = bench_point((enum cs_coll)c, cs_coll_sized(c) ? sizes[s] : 0, &b);
    if (pattern && rank == 0 && run.misses)
        fprintf(stderr, "collsel-bench: %ld of %ld calls had a rank later than its pattern "
                        "(the slack after a call grew to %.0f us)\n", run.misses, run.calls,
                run.slack * 1e6);
    if (pattern)
        cs_pat_run_free(&run);
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
