/* Unit tests of the files: perf tables (round trip plain and zstd, magic,
 * trailer, checksum, version, row errors naming file:line) and tree files
 * (round trip of every decision; truncated, flipped, foreign, newer and
 * structurally invalid files rejected with a message naming the file).
 * argv[1]: a scratch directory. */
#include "sel_test.h"

#include <unistd.h>

static char dir[512];

static const char *path_of(const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void put_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

static void put_text(const char *path, const char *s) { put_file(path, s, strlen(s)); }

static void *get_file(const char *path, size_t *n)
{
    void *p;
    cs_err e;
    MUST(cs_read_file(path, &p, n, &e), e);
    return p;
}

/* The perf read of `text` fails with a message containing `want`. */
static void perf_rejects(const char *text, const char *want)
{
    const char *p = path_of("bad.csv");
    put_text(p, text);
    cs_perf t;
    cs_err e = {{0}};
    cs_perf_init(&t);
    int rc = cs_perf_read(&t, p, &e);
    CHECK(rc < 0 && strstr(e.msg, want) && strstr(e.msg, p), "want '%s', got rc %d '%s'", want,
          rc, e.msg);
    cs_perf_free(&t);
}

static void test_perf(void)
{
    cs_perf t, u;
    cs_err e;
    cs_perf_init(&t);
    add_row(&t, CS_BCAST, 4, 8, "bcast.binomial", 3.25);
    add_row(&t, CS_REDUCE, 16, 1 << 20, "reduce.rabenseifner", 1234.5);
    add_row(&t, CS_BARRIER, 2, 0, "barrier.two_proc", 0.75);
    const char *names[2] = {"p.csv", "p.csv.zst"};
    for (int z = 0; z < 2; z++) {
        cs_perf_init(&u);
        MUST(cs_perf_write(&t, path_of(names[z]), &e), e);
        MUST(cs_perf_read(&u, path_of(names[z]), &e), e);
        CHECK(u.n == 3, "%s: %zu rows", names[z], u.n);
        for (size_t i = 0; i < u.n && i < 3; i++)
            CHECK(u.rows[i].coll == t.rows[i].coll && u.rows[i].comm_size == t.rows[i].comm_size &&
                      u.rows[i].msg_bytes == t.rows[i].msg_bytes &&
                      !strcmp(u.rows[i].method, t.rows[i].method) &&
                      u.rows[i].median_us == t.rows[i].median_us && u.rows[i].reps == 1,
                  "%s row %zu", names[z], i);
        cs_perf_free(&u);
    }
    size_t n;
    unsigned char *raw = get_file(path_of("p.csv.zst"), &n);
    CHECK(n > 4 && raw[0] == 0x28 && raw[1] == 0xb5, "zstd magic in .zst output");
    free(raw);
    char *txt = get_file(path_of("p.csv"), &n);
    CHECK(!strncmp(txt, "# collsel perf v1\n", 18), "magic line");
    /* corruption: a flipped digit, truncation, a newer version */
    char *digit = strstr(txt, "1234.5");
    digit[0] = '7';
    put_file(path_of("flip.csv"), txt, n);
    cs_perf_init(&u);
    CHECK(cs_perf_read(&u, path_of("flip.csv"), &e) < 0 && strstr(e.msg, "checksum"), "flip: %s",
          e.msg);
    put_file(path_of("trunc.csv"), txt, n - 10);
    CHECK(cs_perf_read(&u, path_of("trunc.csv"), &e) < 0 && strstr(e.msg, "truncated"),
          "truncated: %s", e.msg);
    txt[16] = '9';
    put_file(path_of("newer.csv"), txt, n);
    CHECK(cs_perf_read(&u, path_of("newer.csv"), &e) < 0 && strstr(e.msg, "newer"), "newer: %s",
          e.msg);
    CHECK(u.n == 0, "failed reads add no rows");
    free(txt);
    /* hand-made: no magic, columns reordered, optional ones missing, a
     * byte order mark as spreadsheets write it */
    put_text(path_of("hand.csv"), "\xef\xbb\xbfmethod,collective,comm_size,msg_bytes,median_us\n"
                                  "# a comment\n\n"
                                  "bcast.linear, bcast, 8, 64, 5.5\r\n");
    MUST(cs_perf_read(&u, path_of("hand.csv"), &e), e);
    CHECK(u.n == 1 && u.rows[0].comm_size == 8 && u.rows[0].msg_bytes == 64 &&
              u.rows[0].min_us == 5.5 && !strcmp(u.rows[0].method, "bcast.linear"),
          "hand-made table");
    cs_perf_free(&u);
    const char *hdr = "collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps\n";
    char buf[512];
    struct {
        const char *row, *want;
    } bad[] = {
        {"gather,4,8,gather.linear,1,1,1,1", ":2: unknown collective 'gather'"},
        {"bcast,4,8,reduce.binomial,1,1,1,1", ":2: method 'reduce.binomial' does not start"},
        {"bcast,4,8,bcast.x,-1,1,1,1", ":2: median_us '-1' is not a non-negative number"},
        {"bcast,4,8,bcast.x,1,abc,1,1", ":2: min_us 'abc'"},
        {"bcast,-4,8,bcast.x,1,1,1,1", ":2: comm_size '-4'"},
        {"bcast,4,8k,bcast.x,1,1,1,1", ":2: msg_bytes '8k'"},
        {"bcast,4,8,bcast.x,1,1,1", ":2: 7 fields, the header has 8"},
        {"bcast,4,8,bcast.x,nan,1,1,1", ":2: median_us 'nan'"},
        {"bcast,4,8,bcast.bin\xffomial,1,1,1,1", ":2: method 'bcast.bin\xffomial' has characters"},
        {"bcast,4,8,bcast.a b,1,1,1,1", ":2: method 'bcast.a b' has characters"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(buf, sizeof buf, "%s%s\n", hdr, bad[i].row);
        perf_rejects(buf, bad[i].want);
    }
    perf_rejects("collective,comm_size,method,median_us\nbcast,4,bcast.x,1\n",
                 ":1: header lacks column 'msg_bytes'");
    perf_rejects("", "no header line");
    cs_perf_free(&t);
}

/* Arrival patterns in a perf table: the column round trip (version 2 only
 * when used), a bad pattern named, the default pattern and the selection
 * (segment rows kept whatever their pattern). */
static void test_perf_arrivals(void)
{
    cs_perf t, u;
    cs_err e;
    cs_perf_init(&t);
    const char *pats[] = {"none", "recorded", "", "one-late:20us@1"};
    for (int k = 0; k < 4; k++) {
        cs_perf_row r = {.coll = 1, .comm_size = 2, .msg_bytes = 8, .median_us = 1 + k,
                         .min_us = 1, .max_us = 9, .reps = 3};
        snprintf(r.method, sizeof r.method, "reduce.linear");
        snprintf(r.arrivals, sizeof r.arrivals, "%s", pats[k]);
        CHECK(cs_perf_add(&t, &r) == 0, "add");
    }
    cs_perf_row seg = {.coll = 1, .comm_size = 2, .median_us = 500, .reps = 3};
    snprintf(seg.method, sizeof seg.method, "reduce.segment");
    CHECK(cs_perf_add(&t, &seg) == 0, "add segment");
    MUST(cs_perf_write(&t, path_of("arr.csv"), &e), e);
    size_t n;
    char *txt = get_file(path_of("arr.csv"), &n);
    CHECK(!strncmp(txt, "# collsel perf v2\n", 18) && strstr(txt, ",reps,arrivals\n") &&
              strstr(txt, ",3,one-late:20us@1\n") && strstr(txt, ",reduce.segment,500,0,0,3,\n"),
          "arrivals column written: %s", txt);
    free(txt);
    cs_perf_init(&u);
    MUST(cs_perf_read(&u, path_of("arr.csv"), &e), e);
    CHECK(u.n == 5 && !strcmp(u.rows[3].arrivals, "one-late:20us@1") && !u.rows[2].arrivals[0],
          "arrivals read back");
    CHECK(!strcmp(cs_perf_default_arrivals(&u), "recorded"), "default: recorded");
    char chosen[CS_PERF_ARRIVALS_MAX];
    CHECK(cs_perf_select_arrivals(&u, NULL, chosen) == 4 && !strcmp(chosen, "recorded") &&
              u.n == 2 && u.rows[0].median_us == 2 && cs_perf_is_segment(&u.rows[1]),
          "select recorded (+ the segment row)");
    cs_perf_free(&u);
    t.n = 1; /* only "none": no column, no v2 */
    t.rows[0].arrivals[0] = 0;
    MUST(cs_perf_write(&t, path_of("arr1.csv"), &e), e);
    txt = get_file(path_of("arr1.csv"), &n);
    CHECK(!strncmp(txt, "# collsel perf v1\n", 18) && !strstr(txt, "arrivals"), "no column unused");
    free(txt);
    perf_rejects("collective,comm_size,msg_bytes,method,median_us,arrivals\n"
                 "bcast,4,8,bcast.x,1,one late\n",
                 ":2: arrivals 'one late' is not an arrival pattern");
    cs_perf_free(&t);
}

/* ---- tree files ---- */
static int best_fn(int i, int j) { return (i * 7 + j * 3) % 5 % 3; }

/* The tree read from `bytes` is rejected with a message naming the file
 * and containing `want` (NULL: any message). */
static void tree_rejects(const void *bytes, size_t n, const char *want, const char *what)
{
    const char *p = path_of("bad.tree");
    put_file(p, bytes, n);
    cs_tree *t = (cs_tree *)1;
    cs_err e = {{0}};
    int rc = cs_tree_read(&t, p, &e);
    CHECK(rc < 0 && t == NULL && strstr(e.msg, p) && (!want || strstr(e.msg, want)),
          "%s: want '%s', got rc %d '%s'", what, want ? want : "", rc, e.msg);
}

/* A tree file of one bcast function on a 1 x 1 grid: one leaf answering
 * method `leaf` of the n names name(i). */
static void one_leaf_tree(const char *path, int n, const char *(*name)(int, char *), int leaf)
{
    cs_buf pl = {0}, f = {0};
    char nb[64];
    cs_buf_u32(&pl, 1);
    cs_buf_u32(&pl, CS_BCAST);
    cs_buf_u32(&pl, 0); /* k */
    cs_buf_u32(&pl, 1);
    cs_buf_u32(&pl, 4); /* comm sizes */
    cs_buf_u32(&pl, 1);
    cs_buf_u64(&pl, 8); /* message sizes */
    cs_buf_u32(&pl, (uint32_t)n);
    for (int i = 0; i < n; i++)
        cs_buf_str(&pl, name(i, nb));
    cs_buf_u32(&pl, 1);
    cs_buf_u32(&pl, 0x80000000u); /* the root is leaf 0 */
    cs_buf_u32(&pl, 1);
    cs_buf_u8(&pl, 1);
    cs_buf_put(&pl, (unsigned char[2]){(unsigned char)leaf, (unsigned char)(leaf >> 8)}, 2);
    cs_buf_put(&f, "COLLSELT", 8);
    cs_buf_u32(&f, 1);
    cs_buf_u32(&f, (uint32_t)pl.n);
    cs_buf_u32(&f, cs_crc32(0, pl.p, pl.n));
    cs_buf_put(&f, pl.p, pl.n);
    put_file(path, f.p, f.n);
    cs_buf_free(&pl);
    cs_buf_free(&f);
}

static const char *many_name(int i, char *b)
{
    snprintf(b, 64, "bcast.m%05d", i);
    return b;
}

static const char *twice_name(int i, char *b)
{
    snprintf(b, 64, "bcast.m%05d", i == 40000 ? 17 : i);
    return b;
}

/* The most methods a file may list: read at once (names checked for
 * repeats by sorting, not pairwise); one repeated name is rejected. */
static void test_tree_many_methods(void)
{
    cs_tree *t = NULL;
    cs_err e;
    one_leaf_tree(path_of("many.tree"), 65535, many_name, 65534);
    MUST(cs_tree_read(&t, path_of("many.tree"), &e), e);
    const uint16_t *ids;
    CHECK(cs_tree_decide(t, CS_BCAST, 4, 8, &ids) == 1 &&
              !strcmp(cs_tree_method_name(t, CS_BCAST, ids[0]), "bcast.m65534"),
          "65535 methods: the leaf answers the last one");
    cs_tree_free(t);
    one_leaf_tree(path_of("dup.tree"), 65535, twice_name, 0);
    size_t n;
    void *dup = get_file(path_of("dup.tree"), &n);
    tree_rejects(dup, n, "bcast method 'bcast.m00017' listed twice", "repeated name");
    free(dup);
}

static void test_tree_files(void)
{
    static const char *const names[] = {"bcast.native", "bcast.binomial", "bcast.pipeline.seg8k"};
    cs_perf p;
    cs_perf_init(&p);
    perf_from(&p, 5, 9, names, 3, best_fn);
    add_row(&p, CS_BARRIER, 2, 0, "barrier.native", 2);
    add_row(&p, CS_BARRIER, 2, 0, "barrier.two_proc", 1);
    add_row(&p, CS_BARRIER, 64, 0, "barrier.native", 20);
    add_row(&p, CS_BARRIER, 64, 0, "barrier.two_proc", 30);
    cs_tree *t = cs_tree_new(), *r = NULL;
    cs_err e;
    cs_quadtree_opts o;
    cs_quadtree_opts_default(&o);
    o.max_depth = 3;
    for (int c = 0; c < CS_NCOLL; c++) {
        cs_map m;
        if (c == CS_REDUCE || c == CS_ALLREDUCE || c == CS_ALLTOALL) {
            CHECK(cs_map_build(&m, &p, c, NULL, &e) < 0 && strstr(e.msg, "no rows for ") && strstr(e.msg, cs_coll_name(c)),
                  "no rows: %s", e.msg);
            continue;
        }
        MUST(cs_map_build(&m, &p, c, NULL, &e), e);
        MUST(cs_quadtree_build(t, &m, &o, &e), e);
        cs_map_free(&m);
    }
    const char *tp = path_of("t.tree");
    MUST(cs_tree_write(t, tp, &e), e);
    MUST(cs_tree_read(&r, tp, &e), e);
    CHECK(cs_tree_has(r, CS_BCAST) && cs_tree_has(r, CS_BARRIER) && !cs_tree_has(r, CS_REDUCE),
          "collectives present");
    const uint16_t *ids;
    CHECK(cs_tree_decide(r, CS_REDUCE, 4, 8, &ids) == 0, "no reduce decision");
    CHECK(cs_tree_nmethods(r, CS_BCAST) == 3 &&
              !strcmp(cs_tree_method_name(r, CS_BCAST, 2), "bcast.pipeline.seg8k"),
          "method names");
    int diff = 0;
    for (int c = 0; c < CS_NCOLL; c += 2)
        for (uint32_t cs = 0; cs < 80; cs++)
            for (int b = 0; b < 64; b++) {
                uint64_t bytes[3] = {(1ull << b) - 1, 1ull << b, (1ull << b) + (1ull << b) / 3};
                for (int v = 0; v < 3; v++) {
                    const uint16_t *a, *x;
                    int na = cs_tree_decide(t, c, cs, bytes[v], &a);
                    int nx = cs_tree_decide(r, c, cs, bytes[v], &x);
                    diff += na != nx || memcmp(a, x, (size_t)na * sizeof *a) != 0;
                }
            }
    CHECK(diff == 0, "round trip: %d decisions differ", diff);
    CHECK(cs_tree_decide(r, CS_BARRIER, 2, 0, &ids) == 2 &&
              !strcmp(cs_tree_method_name(r, CS_BARRIER, ids[0]), "barrier.two_proc") &&
              cs_tree_decide(r, CS_BARRIER, 1000, 0, &ids) &&
              !strcmp(cs_tree_method_name(r, CS_BARRIER, ids[0]), "barrier.native"),
          "barrier decisions");
    cs_tree_stats s1, s2;
    cs_tree_stats_get(t, CS_BCAST, &s1);
    cs_tree_stats_get(r, CS_BCAST, &s2);
    CHECK(s1.nodes == s2.nodes && s1.leaves == s2.leaves && s1.bytes == s2.bytes, "stats");
    cs_tree_free(r);
    cs_tree_free(t);
    cs_perf_free(&p);

    size_t n;
    unsigned char *good = get_file(tp, &n);
    unsigned char *bad = malloc(n + 16);
    tree_rejects(good, 0, "empty", "empty file");
    size_t cuts[] = {7, 8, 19, 20, 21, n / 2, n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        tree_rejects(good, cuts[i], NULL, "truncated");
    tree_rejects(good, n - 1, "truncated", "truncated by one byte");
    memcpy(bad, good, n);
    memcpy(bad + n, "junk", 4);
    tree_rejects(bad, n + 4, "trailing garbage", "appended bytes");
    int rejected = 0;
    for (size_t off = 0; off < n; off++) { /* every single flipped byte */
        memcpy(bad, good, n);
        bad[off] ^= 0x40;
        put_file(path_of("flip.tree"), bad, n);
        cs_tree *x = NULL;
        rejected += cs_tree_read(&x, path_of("flip.tree"), &e) < 0 && !x;
        cs_tree_free(x);
    }
    CHECK(rejected == (int)n, "flipped bytes: %d of %zu rejected", rejected, n);
    memcpy(bad, good, n);
    bad[16] ^= 1;
    tree_rejects(bad, n, "checksum", "flipped crc");
    tree_rejects("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\0\0\0\0\0", 24, "not a collsel tree",
                 "foreign");
    tree_rejects("collective,comm_size\n", 21, "not a collsel tree", "csv");
    memcpy(bad, good, n);
    bad[8] = 4; /* this collsel reads versions 1..3 */
    tree_rejects(bad, n, "newer", "newer version");
    /* structurally invalid with a valid checksum: a node pointing back */
    memcpy(bad, good, n);
    cs_rd rd = {bad, n, 20, 0};
    uint32_t v, k, cnt;
    cs_rd_u32(&rd, &v);                       /* ncoll */
    cs_rd_u32(&rd, &v);                       /* coll */
    cs_rd_u32(&rd, &k);                       /* k */
    cs_rd_u32(&rd, &cnt);                     /* ncs */
    rd.off += 4 * cnt;
    cs_rd_u32(&rd, &cnt);                     /* nms */
    rd.off += 8 * cnt;
    cs_rd_u32(&rd, &cnt);                     /* nmethods */
    for (uint32_t i = 0; i < cnt; i++) {
        char *s;
        cs_rd_str(&rd, &s);
        free(s);
    }
    cs_rd_u32(&rd, &cnt);                     /* nnodes */
    CHECK(!rd.bad && cnt > 4, "parsed up to the nodes (%u)", cnt);
    unsigned char *root = bad + rd.off;
    uint32_t zero = 0, crc;
    memcpy(root + 4 * 1, &zero, 4); /* node 1 -> children at node 0 */
    crc = cs_crc32(0, bad + 20, n - 20);
    memcpy(bad + 16, &crc, 4);
    tree_rejects(bad, n, "node 1", "cycle");
    memcpy(bad, good, n);
    memcpy(bad + rd.off + 4, "\xff\xff\xff\x7f", 4); /* child index out of range */
    crc = cs_crc32(0, bad + 20, n - 20);
    memcpy(bad + 16, &crc, 4);
    tree_rejects(bad, n, "node", "child out of range");
    /* a method name with a byte that is no name character (the PNG text
     * of `collsel map` must be UTF-8), valid checksum */
    memcpy(bad, good, n);
    unsigned char *nm = memmem(bad, n, "bcast.binomial", 14);
    CHECK(nm != NULL, "method name in the file");
    if (nm) {
        nm[8] = 0xff;
        crc = cs_crc32(0, bad + 20, n - 20);
        memcpy(bad + 16, &crc, 4);
        tree_rejects(bad, n, "characters other than", "method name byte");
    }
    free(bad);
    free(good);
}

/* The layout a tree was tuned for (version 3): written, read back, named;
 * a tree without one reads 0 x 0; half a layout is rejected. */
static void test_tree_layout(void)
{
    static const char *const names[] = {"bcast.native", "bcast.binomial"};
    cs_perf p;
    cs_perf_init(&p);
    perf_from(&p, 2, 2, names, 2, best_fn);
    cs_tree *t = cs_tree_new(), *r = NULL;
    cs_err e;
    cs_quadtree_opts o;
    cs_quadtree_opts_default(&o);
    cs_map m;
    MUST(cs_map_build(&m, &p, CS_BCAST, NULL, &e), e);
    MUST(cs_quadtree_build(t, &m, &o, &e), e);
    cs_map_free(&m);
    const char *tp = path_of("layout.tree");
    uint32_t nodes = 9, rpn = 9;
    MUST(cs_tree_write(t, tp, &e), e);
    MUST(cs_tree_read(&r, tp, &e), e);
    cs_tree_layout(r, &nodes, &rpn);
    CHECK(nodes == 0 && rpn == 0, "no layout: read %u x %u", nodes, rpn);
    cs_tree_free(r);
    cs_tree_set_layout(t, 2, 3);
    MUST(cs_tree_write(t, tp, &e), e);
    MUST(cs_tree_read(&r, tp, &e), e);
    cs_tree_layout(r, &nodes, &rpn);
    char b[64];
    CHECK(nodes == 2 && rpn == 3 &&
              !strcmp(cs_layout_str(nodes, rpn, b, sizeof b), "2 nodes x 3 ranks per node"),
          "layout: read %u x %u (%s)", nodes, rpn, b);
    cs_tree_free(r);
    /* version 3 whose layout says nodes but no ranks (checksum fixed up) */
    void *data;
    size_t n;
    MUST(cs_read_file(tp, &data, &n, &e), e);
    unsigned char *d = data;
    memset(d + n - 4, 0, 4);
    uint32_t crc = cs_crc32(0, d + 20, n - 20);
    for (int k = 0; k < 4; k++)
        d[16 + k] = (unsigned char)(crc >> 8 * k);
    tree_rejects(d, n, "layout", "half a layout");
    free(data);
    cs_tree_free(t);
    cs_perf_free(&p);
}

int main(int argc, char **argv)
{
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
    test_perf();
    test_perf_arrivals();
    test_tree_files();
    test_tree_many_methods();
    test_tree_layout();
    if (sel_failures)
        fprintf(stderr, "%d checks failed\n", sel_failures);
    else
        printf("test_files: all checks passed\n");
    return sel_failures ? 1 : 0;
}
