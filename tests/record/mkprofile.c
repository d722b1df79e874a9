/* mkprofile: write profiles with known content for the `collsel show` tests.
 *   mkprofile golden FILE   a fixed 8-rank profile (2 nodes x 4), built the
 *                           way the shim builds one: per-rank cells filled
 *                           with cs_cell_record, merged rank by rank
 *   mkprofile bad DIR       damaged variants of it, one per way a file can be
 *                           bad (names say how), for the exit-code tests;
 *                           the payload-* ones have an intact checksum
 *   mkprofile arrivals FILE the golden profile with arrivals: its Allreduce
 *                           and Barrier operations matched from per-rank
 *                           records (rank 7 late by 100 us in 3 of 4
 *                           Allreduces, rank 3 by 60 us in the others; the
 *                           Allreduce rank r leaves r us after rank 0; the
 *                           Barrier's arrivals 0..35 us apart, rank 0 last;
 *                           3 records of an operation that lack the others')
 *   mkprofile records       the arrival records of `arrivals` as CSV on
 *                           stdout (comm,seq,entry_ns,exit_ns,comm_size,
 *                           comm_rank,world_rank,node,coll,bin,wexp): the
 *                           inputs from which the show test computes the
 *                           figures it expects
 *   mkprofile odd FILE      the golden profile with strings that are not
 *                           valid UTF-8 (bytes 0xf5..0xff, cut sequences)
 *                           and control characters, for the JSON output
 *   mkprofile cell FILE COLL COMM BYTES CALLS SECONDS [SELECTION]
 *                           one cell: CALLS rank calls of COLL (Bcast, ...)
 *                           on COMM ranks, BYTES each, SECONDS each (the
 *                           site and compare tests) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/profile.h"

static void die(const char *what, const cs_err *e)
{
    fprintf(stderr, "mkprofile: %s: %s\n", what, e ? e->msg : "failed");
    exit(1);
}

/* n calls of one collective on one rank. */
static void calls(cs_profile *rank, int coll, uint32_t comm, int n, uint64_t (*bytes)(int),
                  int (*root)(int), double t0, int r)
{
    cs_profile one;
    cs_profile_init(&one);
    one.complete = 1;
    for (int i = 0; i < n; i++) {
        uint64_t b = bytes(i);
        cs_cell c;
        memset(&c, 0, sizeof c);
        c.coll = (uint32_t)coll;
        c.comm_size = comm;
        c.bin = (uint32_t)cs_bin_of(b);
        cs_cell_record(&c, b, root ? root(i) : -1, t0 * (1 + 0.125 * r + 0.0625 * (i % 4)));
        if (cs_profile_add_cell(&one, &c) < 0)
            die("add_cell", NULL);
    }
    if (cs_profile_merge(rank, &one) < 0)
        die("merge", NULL);
    cs_profile_free(&one);
}

static uint64_t b16(int i) { return (void)i, 16; }
static uint64_t b2m(int i) { return (void)i, 2u << 20; }
static uint64_t b48(int i) { return (void)i, 48; }
static uint64_t b8k(int i) { return (void)i, 8192; }
static uint64_t b24(int i) { return (void)i, 24; }
static uint64_t b0(int i) { return (void)i, 0; }
static uint64_t bmix(int i) { return 1000 + (uint64_t)(i % 6) * (i % 3 ? 4 : 1); }
static int root0(int i) { return (void)i, 0; }
static int root3(int i) { return (void)i, 3; }
static int rootstep(int i) { return i % 4; }

static void golden(cs_profile *p)
{
    cs_profile_init(p);
    for (int r = 0; r < 8; r++) {
        cs_profile rank;
        cs_profile_init(&rank);
        rank.nranks = 1;
        rank.complete = 1;
        calls(&rank, CS_R_ALLREDUCE, 8, 400, b16, NULL, 20e-6, r);
        calls(&rank, CS_R_BCAST, 8, 10, b2m, root0, 1.5e-3, r);
        calls(&rank, CS_R_BCAST, 8, 1, b48, root0, 8e-6, r);
        calls(&rank, CS_R_BCAST, 4, 40, b8k, rootstep, 30e-6, r);
        calls(&rank, CS_R_REDUCE, 4, 40, b24, root3, 12e-6, r);
        calls(&rank, CS_R_REDUCE, 8, 30, bmix, root0, 25e-6, r);
        calls(&rank, CS_R_BARRIER, 8, 40, b0, NULL, 40e-6, r);
        cs_profile_add_site(&rank, CS_R_ALLREDUCE, "example_app+0x1f3c residual+0x4c", 400, 400 * 20e-6);
        cs_profile_add_site(&rank, CS_R_BCAST, "example_app+0x2210 load_table+0x31", 10, 10 * 1.5e-3);
        cs_profile_add_site(&rank, CS_R_BCAST, "example_app+0x1a00 setup+0x22", 1, 8e-6);
        cs_profile_add_site(&rank, CS_R_BCAST, "example_app+0x2300 row_step+0x10", 40, 40 * 30e-6);
        cs_profile_add_site(&rank, CS_R_REDUCE, "example_app+0x2310 row_step+0x60", 40, 40 * 12e-6);
        cs_profile_add_site(&rank, CS_R_REDUCE, "libsolver.so+0x9f0 norms+0x4c \"q\" \\ \xc3\xa9", 30, 30 * 25e-6);
        cs_profile_add_site(&rank, CS_R_BARRIER, "example_app+0x2400 main+0x1b8", 40, 40 * 40e-6);
        if (cs_profile_merge(p, &rank) < 0)
            die("merge", NULL);
        cs_profile_free(&rank);
    }
    cs_profile_trim_sites(p, 5);
    cs_profile_sort(p);
    p->meta.mpi_library = strdup("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4");
    p->meta.cmdline = strdup("./example_app --steps 40 --name \"run 1\"");
    p->meta.hostname0 = strdup("node01");
    p->meta.world_size = 8;
    p->meta.nnodes = 2;
    p->meta.ranks_per_node = 4;
    p->meta.start_time = 1763820000;
    p->meta.duration = 3.75;
}

/* Where arrivals() puts each record: into the profile, or printed (records). */
static FILE *rec_out;

static void add_rec(cs_profile *p, const cs_arr_rec *x, const char *site)
{
    if (rec_out) {
        fprintf(rec_out, "%llu,%llu,%lld,%lld,%u,%u,%u,%u,%s,%u,%u\n", (unsigned long long)x->comm,
                (unsigned long long)x->seq, (long long)x->entry, (long long)x->exit, x->comm_size,
                x->comm_rank, x->world_rank, x->node, cs_rcoll_name((int)x->coll), x->bin, x->wexp);
        return;
    }
    if (cs_arr_add_rec(&p->arr, x, site) < 0)
        die("arrival record", NULL);
}

/* Per-rank arrival records of the golden run, matched into its cells. */
static void arrivals(cs_profile *p)
{
    for (uint64_t op = 0; op < 48; op++) /* Allreduce, 8 ranks, 16 B */
        for (uint32_t r = 0; r < 8; r++) {
            int64_t t = (int64_t)op * 1000000 + (int64_t)r * 1000;
            int64_t last = (int64_t)op * 1000000 + (op % 4 ? 100000 : 60000) + 7000;
            if (r == (op % 4 ? 7u : 3u))
                t = last;
            cs_arr_rec x = {11, op, t, last + 20000 + (int64_t)r * 1000, 8, r, r, r / 4,
                            CS_R_ALLREDUCE,
                            (uint32_t)cs_bin_of(16), 0, op < 32 ? 0 : 3};
            add_rec(p, &x, "example_app+0x1f3c residual+0x4c");
        }
    for (uint64_t op = 0; op < 40; op++) /* Barrier, 8 ranks */
        for (uint32_t r = 0; r < 8; r++) {
            int64_t t = 90000000 + (int64_t)op * 1000000 + (int64_t)((r * 3 + 7) % 8) * 5000;
            cs_arr_rec x = {22, op, t, 90000000 + (int64_t)op * 1000000 + 35000 + 30000, 8, r,
                            r, r / 4, CS_R_BARRIER, 0, 0, 0};
            add_rec(p, &x, "example_app+0x2400 main+0x1b8");
        }
    for (uint32_t r = 0; r < 3; r++) { /* an operation whose other ranks' records are lost */
        cs_arr_rec x = {11, 48, 48000000, 48010000, 8, r, r, 0, CS_R_ALLREDUCE,
                        (uint32_t)cs_bin_of(16), 0, 3};
        add_rec(p, &x, NULL);
    }
    if (rec_out)
        return;
    if (cs_arr_match(&p->arr) < 0)
        die("match", NULL);
    p->arr.clock_err = 1.5e-6;
}

static void put(const char *dir, const char *name, const void *data, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

/* Encode p with one cell changed by fn into DIR/NAME: a valid header and
 * checksum around a payload the reader must reject. */
static void bad_payload(const char *dir, const char *name, cs_profile *p,
                        void (*fn)(cs_profile *))
{
    cs_profile q = *p;
    cs_cell *cells = malloc(p->ncells * sizeof *cells);
    cs_buf img = {0};
    cs_err e;
    memcpy(cells, p->cells, p->ncells * sizeof *cells);
    q.cells = cells;
    fn(&q);
    if (cs_profile_encode(&q, &img, &e) < 0)
        die(name, &e);
    put(dir, name, img.p, img.n);
    cs_buf_free(&img);
    free(cells);
    if (q.arr.recs != p->arr.recs) /* the record fn added (no site name) */
        free(q.arr.recs);
}

static void cell_coll(cs_profile *p) { p->cells[0].coll = CS_R_N + 5; }
static void cell_order(cs_profile *p)
{
    cs_cell c = p->cells[0];
    p->cells[0] = p->cells[1];
    p->cells[1] = c;
}
static void cell_time(cs_profile *p) { p->cells[1].t_total = -1; }
static void cell_comm0(cs_profile *p) { p->cells[2].comm_size = 0; }
static void arr_rank(cs_profile *p)
{
    cs_arr_rec x = {1, 0, 0, 10, 4, 4, 0, 0, CS_R_BCAST, 3, UINT32_MAX, 0}; /* rank 4 of 4 */
    if (cs_arr_add_rec(&p->arr, &x, NULL) < 0)
        die("arrival record", NULL);
}

/* An explored table (record/explore.h): methods at two points, a point's
 * segment, uncounted and first-call entries, one point's calls clipped. */
static void explored(cs_profile *p)
{
    cs_xcell x[] = {
        {CS_REDUCE, 8, 16, "reduce.native", 400, 4e-3, 4.1e-8, 8e-6, 3},
        {CS_REDUCE, 8, 16, "reduce.shm.dynamic", 380, 1.5e-3, 6e-9, 3e-6, 0},
        {CS_REDUCE, 8, 16, "reduce.binomial", 390, 2.7e-3, 1.9e-8, 6e-6, 1},
        {CS_REDUCE, 8, 16, "reduce" CS_SEGMENT_SUFFIX, 8, 4e-4, 2.1e-8, 4.6e-5, 0},
        {CS_REDUCE, 8, 16, "reduce" CS_UNCOUNTED_SUFFIX, 24, 9e-4, 4e-8, 2e-5, 0},
        {CS_REDUCE, 8, 16, "reduce.native" CS_FIRST_SUFFIX, 8, 2e-4, 6e-9, 2e-5, 0},
        {CS_BCAST, 8, 2097152, "bcast.native", 40, 0.04, 4.1e-5, 9e-4, 0},
        {CS_BCAST, 8, 2097152, "bcast.shm.tree.k2", 38, 0.03, 2.5e-5, 7e-4, 2},
    };
    p->xtab.k = 2;
    p->xtab.dropped = 5;
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        if (cs_xtab_add(&p->xtab, &x[i]) < 0)
            die("explored cell", NULL);
}

static void bad(const char *dir, const unsigned char *img, size_t n)
{
    unsigned char *b = malloc(n);
    memcpy(b, img, n);
    put(dir, "empty.prof", b, 0);
    put(dir, "trunc-4.prof", b, 4);
    put(dir, "trunc-header.prof", b, 20);
    put(dir, "trunc-24.prof", b, CS_PROFILE_HEADER);
    put(dir, "trunc-half.prof", b, n / 2);
    put(dir, "trunc-last.prof", b, n - 1);
    b[0] ^= 0x01;
    put(dir, "flip-magic.prof", b, n);
    b[0] ^= 0x01;
    b[13] ^= 0x40;
    put(dir, "flip-length.prof", b, n);
    b[13] ^= 0x40;
    b[CS_PROFILE_HEADER + n / 3] ^= 0x08;
    put(dir, "flip-payload.prof", b, n);
    b[CS_PROFILE_HEADER + n / 3] ^= 0x08;
    b[8] = 7;
    put(dir, "newer.prof", b, n);
    free(b);
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                        0,    0,   0,   13,  'I',  'H',  'D',  'R'};
    put(dir, "foreign-png.prof", png, sizeof png);
    const char *text = "collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps\n";
    put(dir, "foreign-text.prof", text, strlen(text));
}

/* mkprofile cell FILE COLL COMM BYTES CALLS SECONDS [SELECTION] */
static int one_cell(int argc, char **argv)
{
    cs_profile p;
    cs_err e;
    cs_cell c;
    int coll = cs_rcoll_from_name(argv[3]);
    long n = atol(argv[6]);
    if (coll < 0 || n < 1)
        die("cell: collective or calls", NULL);
    cs_profile_init(&p);
    memset(&c, 0, sizeof c);
    c.coll = (uint32_t)coll;
    c.comm_size = (uint32_t)atol(argv[4]);
    uint64_t b = strtoull(argv[5], NULL, 10);
    c.bin = (uint32_t)cs_bin_of(b);
    for (long i = 0; i < n; i++)
        cs_cell_record(&c, b, -1, atof(argv[7]));
    if (cs_profile_add_cell(&p, &c) < 0)
        die("add_cell", NULL);
    p.complete = 1;
    p.nranks = c.comm_size;
    p.meta.world_size = c.comm_size;
    p.meta.duration = 1;
    if (argc > 8)
        p.meta.selection = strdup(argv[8]);
    if (cs_profile_write(&p, argv[2], &e) < 0)
        die(argv[2], &e);
    cs_profile_free(&p);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 8 && !strcmp(argv[1], "cell"))
        return one_cell(argc, argv);
    if (argc == 2 && !strcmp(argv[1], "records")) {
        cs_profile p;
        golden(&p);
        rec_out = stdout;
        printf("comm,seq,entry_ns,exit_ns,comm_size,comm_rank,world_rank,node,coll,bin,wexp\n");
        arrivals(&p);
        cs_profile_free(&p);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (argc != 3 || (strcmp(argv[1], "golden") && strcmp(argv[1], "bad") &&
                      strcmp(argv[1], "odd") && strcmp(argv[1], "arrivals") &&
                      strcmp(argv[1], "explored"))) {
        fprintf(stderr, "usage: mkprofile golden|arrivals|explored FILE | mkprofile bad DIR | "
                        "mkprofile odd FILE | mkprofile records\n");
        return 2;
    }
    cs_profile p;
    cs_err e;
    golden(&p);
    if (!strcmp(argv[1], "odd")) {
        free(p.meta.cmdline);
        free(p.meta.hostname0);
        p.meta.cmdline = strdup("./app \xf5\x80\x80 \xff\xfe \xe2\x82 \xc3\xa9 \"q\" \t\x1b[31m");
        p.meta.hostname0 = strdup("\xf8\x88\x80\x80\x80");
        if (cs_profile_write(&p, argv[2], &e) < 0)
            die(argv[2], &e);
    } else if (strcmp(argv[1], "bad")) { /* golden, arrivals, explored */
        if (argv[1][0] == 'a')
            arrivals(&p);
        if (argv[1][0] == 'e')
            explored(&p);
        if (cs_profile_write(&p, argv[2], &e) < 0)
            die(argv[2], &e);
    } else {
        cs_buf img = {0};
        if (cs_profile_encode(&p, &img, &e) < 0)
            die("encode", &e);
        bad(argv[2], img.p, img.n);
        bad_payload(argv[2], "payload-coll.prof", &p, cell_coll);
        bad_payload(argv[2], "payload-order.prof", &p, cell_order);
        bad_payload(argv[2], "payload-time.prof", &p, cell_time);
        bad_payload(argv[2], "payload-comm0.prof", &p, cell_comm0);
        bad_payload(argv[2], "payload-arrival.prof", &p, arr_rank);
        cs_buf_free(&img);
    }
    cs_profile_free(&p);
    return 0;
}
