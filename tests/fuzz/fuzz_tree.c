/* fuzz_tree: decision tree files (select/tree_io.c, cs_dtree_install), the
 * file every rank of a tuned job loads (COLLSEL_TREE), and what the render
 * commands do with an accepted tree (bands, method names, codegen,
 * exports; select/render/).
 * Input: a tree file image when it starts with the magic "COLLSELT" (the
 * checksum checked as is), else the payload alone, to which the target
 * adds a valid header (so that mutations reach the payload's checks).
 * A tree the reader accepts must answer every query the same through the
 * flat table and the quadtree, list leaves that tile its map, write and
 * read back byte for byte, and go through codegen and both exports (which
 * may refuse it with exit code 2, never crash). */
#include "fuzz.h"

#include "select/render/render.h"
#include "select/tree.h"

int cs_cmd_codegen(int argc, char **argv);
int cs_cmd_export(int argc, char **argv);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (!freopen("/dev/null", "w", stdout))
        abort();
    return 0;
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Probe values around every axis point, and the extremes. */
static void probe(const cs_tree *t, int coll)
{
    const uint32_t *cs;
    const uint64_t *ms;
    int ncs, nms;
    FUZZ_ASSERT(cs_tree_axes(t, coll, &cs, &ncs, &ms, &nms) == 0 && ncs > 0 && nms > 0,
                "axes of %d", coll);
    uint32_t pc[3 * 8 + 2] = {0, UINT32_MAX};
    uint64_t pm[3 * 8 + 2] = {0, UINT64_MAX};
    int npc = 2, npm = 2;
    for (int i = 0; i < ncs && i < 8; i++)
        for (int d = -1; d <= 1; d++)
            pc[npc++] = cs[i] + (uint32_t)d;
    for (int j = 0; j < nms && j < 8; j++)
        for (int d = -1; d <= 1; d++)
            pm[npm++] = ms[j] + (uint64_t)(int64_t)d;
    int nm = cs_tree_nmethods(t, coll);
    for (int a = 0; a < npc; a++)
        for (int b = 0; b < npm; b++) {
            const uint16_t *ids, *qids;
            int n = cs_tree_decide(t, coll, pc[a], pm[b], &ids);
            int qn = cs_tree_decide_qt(t, coll, pc[a], pm[b], &qids);
            FUZZ_ASSERT(n >= 1 && n == qn && !memcmp(ids, qids, (size_t)n * sizeof *ids),
                        "coll %d at (%u, %llu): flat table and quadtree differ", coll, pc[a],
                        (unsigned long long)pm[b]);
            for (int i = 0; i < n; i++)
                FUZZ_ASSERT(ids[i] < nm && cs_tree_method_name(t, coll, ids[i]),
                            "coll %d: method id %u of %d", coll, ids[i], nm);
        }
}

static void render(const cs_tree *t, int coll)
{
    cs_leaf *lv = NULL;
    size_t nl = 0;
    FUZZ_ASSERT(cs_tree_leaves(t, coll, &lv, &nl) == 0 && nl >= 1, "leaves of %d", coll);
    free(lv);
    cs_tree_stats st;
    FUZZ_ASSERT(cs_tree_stats_get(t, coll, &st) == 0, "stats of %d", coll);
    cs_bands b;
    cs_err e = {{0}};
    if (cs_bands_build(t, coll, &b, &e) == 0) {
        cs_bands_tests(&b);
        for (int i = 0; i < b.nbands; i++)
            cs_band_method(&b.b[i], 12345);
        cs_bands_free(&b);
    } else {
        fuzz_check_err(&e);
    }
    for (int m = 0; m < cs_tree_nmethods(t, coll); m++) {
        cs_rmeth rm;
        const char *name = cs_tree_method_name(t, coll, m);
        cs_rmeth_parse(name, &rm);
        cs_export_maps(name);
    }
}

static void same_file(const char *a, const char *b)
{
    void *x, *y;
    size_t nx, ny;
    cs_err e;
    FUZZ_ASSERT(cs_read_file(a, &x, &nx, &e) == 0 && cs_read_file(b, &y, &ny, &e) == 0,
                "%s", e.msg);
    size_t at = 0;
    while (at < nx && at < ny && ((unsigned char *)x)[at] == ((unsigned char *)y)[at])
        at++;
    FUZZ_ASSERT(nx == ny && at == nx,
                "a tree written back differs from its file (%zu and %zu bytes, from byte %zu)",
                nx, ny, at);
    free(x);
    free(y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char path[300], back[300], out[300];
    fuzz_path(path, sizeof path, "in.tree");
    fuzz_path(back, sizeof back, "back.tree");
    fuzz_path(out, sizeof out, "out");
    if (n >= 8 && !memcmp(data, "COLLSELT", 8)) {
        fuzz_write(path, data, n);
    } else {
        unsigned char *f = malloc(n + 20);
        memcpy(f, "COLLSELT", 8);
        put32(f + 8, 1);
        put32(f + 12, (uint32_t)n);
        put32(f + 16, cs_crc32(0, data, n));
        if (n)
            memcpy(f + 20, data, n);
        fuzz_write(path, f, n + 20);
        free(f);
    }
    cs_err e = {{0}};
    int kind = cs_rinput_kind(path, &e);
    FUZZ_ASSERT(kind == CS_RIN_TREE || kind == CS_RIN_PERF, "input kind %d", kind);
    cs_tree *t;
    if (cs_tree_read(&t, path, &e) < 0) {
        fuzz_check_err(&e);
        return 0;
    }
    for (int c = 0; c < CS_NCOLL; c++)
        if (cs_tree_has(t, c)) {
            probe(t, c);
            render(t, c);
        }
    FUZZ_ASSERT(cs_tree_write(t, back, &e) == 0, "write: %s", e.msg);
    same_file(path, back);
    cs_tree_free(t);
    char *cg[] = {"codegen", path, "-o", out, NULL};
    int rc = cs_cmd_codegen(4, cg);
    FUZZ_ASSERT(rc == 0 || rc == 2, "codegen: exit code %d", rc);
    char *xo[] = {"export", path, "--format", "ompi-rules", "-o", out, NULL};
    rc = cs_cmd_export(6, xo);
    FUZZ_ASSERT(rc == 0 || rc == 2, "export ompi-rules: exit code %d", rc);
    char *xm[] = {"export", path, "--format", "mpich-json", "--no-mpich-defaults", "-o", out,
                  NULL};
    rc = cs_cmd_export(7, xm);
    FUZZ_ASSERT(rc == 0 || rc == 2, "export mpich-json: exit code %d", rc);
    return 0;
}
