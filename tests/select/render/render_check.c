/* Test helper for tests/render (no MPI):
 *
 *   render_check codegen TREE LIB.so PREFIX
 *       LIB.so is `collsel codegen TREE` compiled as a shared object.  For
 *       every collective of the tree, its NAME_COLL() must answer the tree's
 *       first candidate (cs_tree_decide) at every measured point, on both
 *       sides of every cell boundary, and at 20000 random points inside and
 *       outside the measured range; NAME_COLL_method(i) must be the tree's
 *       name of method i.  Prints the number of points checked.
 *   render_check profile OUT
 *       writes a small synthetic profile (bcast and reduce calls) for the
 *       map overlay test.
 *   render_check png FILE WIDTH MIN MAX
 *       FILE must be a PNG of that width whose plots show MIN..MAX distinct
 *       fill colours of the method / penalty palette (decoded with cairo).
 */
#include <cairo.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/profile.h"
#include "select/tree.h"

typedef int (*decide_fn)(int, size_t);
typedef const char *(*name_fn)(int);

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int bad;

static void one(const cs_tree *t, int coll, decide_fn f, uint32_t cs, uint64_t ms, long *n)
{
    const uint16_t *ids;
    if (cs > 0x7fffffffu)
        return;
    int nc = cs_tree_decide(t, coll, cs, ms, &ids);
    int got = f((int)cs, (size_t)ms);
    (*n)++;
    if (nc < 1 || got != ids[0]) {
        if (bad++ < 10)
            fprintf(stderr, "%s: comm_size %u msg_bytes %llu: generated code says %d, tree %d\n",
                    cs_coll_name(coll), cs, (unsigned long long)ms, got, nc < 1 ? -1 : ids[0]);
    }
}

static int check_codegen(const char *tree, const char *so, const char *prefix)
{
    cs_err e = {{0}};
    cs_tree *t;
    if (cs_tree_read(&t, tree, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", so, dlerror());
        return 1;
    }
    int colls = 0;
    for (int coll = 0; coll < CS_NCOLL; coll++) {
        if (!cs_tree_has(t, coll))
            continue;
        char sym[160];
        snprintf(sym, sizeof sym, "%s_%s", prefix, cs_coll_name(coll));
        decide_fn f = (decide_fn)(uintptr_t)dlsym(h, sym);
        snprintf(sym, sizeof sym, "%s_%s_method", prefix, cs_coll_name(coll));
        name_fn nf = (name_fn)(uintptr_t)dlsym(h, sym);
        if (!f || !nf) {
            fprintf(stderr, "%s: missing %s or its decision function\n", so, sym);
            return 1;
        }
        for (int m = 0; m < cs_tree_nmethods(t, coll); m++)
            if (!nf(m) || strcmp(nf(m), cs_tree_method_name(t, coll, m)) != 0) {
                fprintf(stderr, "%s: method %d is '%s', tree says '%s'\n", cs_coll_name(coll), m,
                        nf(m) ? nf(m) : "(null)", cs_tree_method_name(t, coll, m));
                bad++;
            }
        const uint32_t *cs;
        const uint64_t *ms;
        int ncs, nms;
        cs_tree_axes(t, coll, &cs, &ncs, &ms, &nms);
        long n = 0;
        for (int i = 0; i < ncs; i++)
            for (int j = 0; j < nms; j++)
                for (int di = -1; di <= 1; di++)
                    for (int dj = -1; dj <= 1; dj++)
                        one(t, coll, f, cs[i] + di, ms[j] + dj, &n);
        cs_leaf *lv;
        size_t nl;
        if (cs_tree_leaves(t, coll, &lv, &nl) == 0) {
            for (size_t l = 0; l < nl; l++) /* both sides of every leaf edge */
                for (int d = -1; d <= 1; d++) {
                    one(t, coll, f, lv[l].cs_lo + d, lv[l].ms_lo, &n);
                    one(t, coll, f, lv[l].cs_hi + d, lv[l].ms_hi, &n);
                    one(t, coll, f, lv[l].cs_lo, lv[l].ms_lo + d, &n);
                    one(t, coll, f, lv[l].cs_hi, lv[l].ms_hi + d, &n);
                }
            free(lv);
        }
        uint32_t csmax = cs[ncs - 1] * 4 + 8;
        for (int r = 0; r < 20000; r++) {
            uint32_t c = (uint32_t)(next() % csmax);
            uint64_t m = next() >> (next() % 64);
            one(t, coll, f, c, m, &n);
        }
        one(t, coll, f, 0, 0, &n);
        one(t, coll, f, 1u << 30, UINT64_MAX, &n);
        printf("%s: %ld points checked\n", cs_coll_name(coll), n);
        colls++;
    }
    cs_tree_free(t);
    if (!colls)
        fprintf(stderr, "%s: no collective\n", tree);
    return bad || !colls;
}

static int write_profile(const char *out)
{
    cs_profile p;
    cs_profile_init(&p);
    static const struct {
        int coll;
        uint32_t cs;
        uint64_t bytes, calls;
    } pts[] = {{CS_R_BCAST, 4, 64, 4000}, {CS_R_BCAST, 16, 65536, 160},
               {CS_R_BCAST, 32, 1 << 20, 32}, {CS_R_REDUCE, 8, 8, 80000},
               {CS_R_REDUCE, 64, 4096, 640}, {CS_R_BARRIER, 16, 0, 1600}};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        cs_cell c;
        memset(&c, 0, sizeof c);
        c.coll = (uint32_t)pts[i].coll;
        c.comm_size = pts[i].cs;
        c.bin = (uint32_t)cs_bin_of(pts[i].bytes);
        c.rank_calls = pts[i].calls;
        c.t_total = 1e-6 * (double)pts[i].calls;
        c.t_min = c.t_max = 1e-6;
        c.nsizes = 1;
        c.sizes[0].bytes = pts[i].bytes;
        c.sizes[0].rank_calls = pts[i].calls;
        if (cs_profile_add_cell(&p, &c) < 0)
            return 1;
    }
    p.complete = 1;
    p.nranks = 64;
    cs_err e = {{0}};
    int rc = cs_profile_write(&p, out, &e);
    if (rc < 0)
        fprintf(stderr, "%s\n", e.msg);
    cs_profile_free(&p);
    return rc < 0;
}

/* The fill colours of the pictures (select/render/map_png.c): the method
 * palette and the penalty bins above 25 %. */
static const uint32_t fills[] = {
    0x4477AA, 0xEE6677, 0x228833, 0xCCBB44, 0x66CCEE, 0xAA3377, 0xF28E2B, 0x9C755F,
    0x332288, 0x44AA99, 0xFF9DA7, 0xFFEDA0, 0xFEB24C, 0xF03B20, 0x99000D,
};
enum { NFILL = sizeof fills / sizeof fills[0], PLOT_TOP = 58, PLOT_BOTTOM = 388 };

/* Distinct palette colours covering >= 300 pixels of the plot rows (the
 * legend below is not counted) must be within [lo, hi]. */
static int check_png(const char *file, int width, int lo, int hi)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(file);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "%s: not a readable PNG\n", file);
        return 1;
    }
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *d = cairo_image_surface_get_data(s);
    long cnt[NFILL] = {0};
    for (int y = PLOT_TOP; y < PLOT_BOTTOM && y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t px;
            memcpy(&px, d + (size_t)y * stride + 4 * x, 4);
            for (int k = 0; k < NFILL; k++)
                cnt[k] += (px & 0xffffff) == fills[k];
        }
    int ncol = 0;
    for (int k = 0; k < NFILL; k++)
        ncol += cnt[k] >= 300;
    cairo_surface_destroy(s);
    printf("%s: %d x %d, %d fill colours\n", file, w, h, ncol);
    if (w != width || h < 400 || ncol < lo || ncol > hi) {
        fprintf(stderr, "%s: want width %d, height >= 400, %d..%d fill colours\n", file, width,
                lo, hi);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "codegen"))
        return check_codegen(argv[2], argv[3], argv[4]);
    if (argc == 3 && !strcmp(argv[1], "profile"))
        return write_profile(argv[2]);
    if (argc == 6 && !strcmp(argv[1], "png"))
        return check_png(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    fprintf(stderr, "usage: render_check codegen TREE LIB.so PREFIX | profile OUT | "
                    "png FILE WIDTH MIN MAX\n");
    return 2;
}
