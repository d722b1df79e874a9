/* Drawing decision maps and penalty heat maps with cairo (see map_png.h).
 *
 * Layout of a panel: title and subtitle on top, the plot (ranks up, bytes
 * across on log2), tick labels that never overlap (a tick is dropped when
 * its label would touch the previous one), axis titles, then the legend
 * (methods with their colours, or the penalty colour bar) and, when the
 * application's calls are overlaid, the dot-size key.  Colours: native is
 * always grey; other methods take a fixed palette of 11 well-separated
 * colours in the order of the sheet's key table, so a method has the same
 * colour in every panel (and bcast.X / reduce.X share one); past 11
 * methods the palette repeats with hatching.
 */
#include "map_png.h"
#include "common/util.h"

#include "common/colls.h"

#include <cairo.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { PW = 600, PLOT_W = 470, PLOT_H = 330, ML = 80, MT = 58, AXIS_H = 52, LEG_ROW = 18 };

static const double palette[11][3] = {
    {0x44, 0x77, 0xAA}, {0xEE, 0x66, 0x77}, {0x22, 0x88, 0x33}, {0xCC, 0xBB, 0x44},
    {0x66, 0xCC, 0xEE}, {0xAA, 0x33, 0x77}, {0xF2, 0x8E, 0x2B}, {0x9C, 0x75, 0x5F},
    {0x33, 0x22, 0x88}, {0x44, 0xAA, 0x99}, {0xFF, 0x9D, 0xA7},
};
static const double native_rgb[3] = {0xBB, 0xBB, 0xBB};

/* Penalty bins (percent) and their colours: white below 25 %. */
static const double heat_edge[] = {25, 50, 100, 200};
static const double heat_rgb[5][3] = {
    {0xFF, 0xFF, 0xFF}, {0xFF, 0xED, 0xA0}, {0xFE, 0xB2, 0x4C}, {0xF0, 0x3B, 0x20}, {0x99, 0x00, 0x0D},
};
static const char *heat_label[5] = {"< 25 %", "25-50 %", "50-100 %", "100-200 %", ">= 200 %"};

/* ---- sheet bookkeeping ------------------------------------------------ */

int cs_sheet_key(cs_sheet *s, const char *name)
{
    for (int i = 0; i < s->nkeys; i++)
        if (strcmp(s->keys[i], name) == 0)
            return i;
    char(*k)[64] = realloc(s->keys, (size_t)(s->nkeys + 1) * sizeof *k);
    if (!k)
        return -1;
    s->keys = k;
    snprintf(k[s->nkeys], sizeof k[0], "%s", name);
    return s->nkeys++;
}

int cs_panel_rect(cs_panel *p, const cs_rrect *r)
{
    if (cs_grow(&p->r, p->nr, &p->capr, sizeof *p->r, 64) < 0)
        return -1;
    p->r[p->nr++] = *r;
    return 0;
}

int cs_panel_dot(cs_panel *p, uint32_t cs, uint64_t ms, double ops)
{
    for (size_t i = 0; i < p->nd; i++)
        if (p->d[i].cs == cs && p->d[i].ms == ms) {
            p->d[i].ops += ops;
            return 0;
        }
    if (cs_grow(&p->d, p->nd, &p->capd, sizeof *p->d, 64) < 0)
        return -1;
    p->d[p->nd++] = (cs_rdot){cs, ms, ops};
    return 0;
}

void cs_sheet_free(cs_sheet *s)
{
    for (int i = 0; i < s->np; i++) {
        free(s->p[i].cs);
        free(s->p[i].ms);
        free(s->p[i].r);
        free(s->p[i].d);
    }
    free(s->keys);
    memset(s, 0, sizeof *s);
}

/* ---- colours ------------------------------------------------------------ */

static int is_native(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot && strcmp(dot + 1, "native") == 0;
}

static const char *suffix(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? dot + 1 : name;
}

/* Palette slot of key k: native -1, else the rank of its algorithm part
 * (the name without "COLL.") among the distinct non-native ones, so that
 * bcast.binomial and reduce.binomial share a colour. */
static int key_slot(const cs_sheet *s, int k)
{
    if (is_native(s->keys[k]))
        return -1;
    int slot = 0;
    for (int i = 0; i < s->nkeys; i++) {
        if (is_native(s->keys[i]))
            continue;
        if (strcmp(suffix(s->keys[i]), suffix(s->keys[k])) == 0)
            return slot;
        int first = 1; /* count each suffix once, at its first key */
        for (int j = 0; j < i && first; j++)
            first = strcmp(suffix(s->keys[j]), suffix(s->keys[i])) != 0;
        slot += first;
    }
    return slot;
}

static void set_rgb(cairo_t *cr, const double *rgb)
{
    cairo_set_source_rgb(cr, rgb[0] / 255, rgb[1] / 255, rgb[2] / 255);
}

/* Fill the current rectangle path area (x, y, w, h) with key k's colour. */
static void fill_key(cairo_t *cr, const cs_sheet *s, int k, double x, double y, double w, double h)
{
    int slot = key_slot(s, k);
    set_rgb(cr, slot < 0 ? native_rgb : palette[slot % 11]);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
    if (slot >= 11) { /* second round of the palette: hatch it */
        cairo_save(cr);
        cairo_rectangle(cr, x, y, w, h);
        cairo_clip(cr);
        cairo_set_source_rgba(cr, 1, 1, 1, 0.8);
        cairo_set_line_width(cr, 1.5);
        for (double t = -h; t < w; t += 6) {
            cairo_move_to(cr, x + t, y + h);
            cairo_line_to(cr, x + t + h, y);
        }
        cairo_stroke(cr);
        cairo_restore(cr);
    }
}

static const double *heat_colour(double v)
{
    int b = 0;
    while (b < 4 && v >= heat_edge[b])
        b++;
    return heat_rgb[b];
}

/* ---- axes ---------------------------------------------------------------- */

typedef struct axes {
    int ylog, flat_x;
    double ylo, yhi, xlo, xhi; /* in scale units */
} axes;

static double ys(const axes *a, double v) { return a->ylog ? log2(v > 0.25 ? v : 0.25) : v; }
static double xs(double v) { return log2(v > 0.5 ? v : 0.5); }

/* pixel positions inside the plot (origin top-left of the plot) */
static double ypix(const axes *a, double scaled)
{
    double t = (scaled - a->ylo) / (a->yhi - a->ylo);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return PLOT_H * (1 - t);
}
static double xpix(const axes *a, double scaled)
{
    if (a->flat_x)
        return scaled < 0 ? 0 : PLOT_W;
    double t = (scaled - a->xlo) / (a->xhi - a->xlo);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return PLOT_W * t;
}

static void make_axes(const cs_panel *p, axes *a)
{
    memset(a, 0, sizeof *a);
    a->ylog = p->ncs > 1 && p->cs[0] > 0 && p->cs[p->ncs - 1] >= 8.0 * p->cs[0];
    double y0 = ys(a, p->cs[0]), yn = ys(a, p->cs[p->ncs - 1]);
    double d0 = p->ncs > 1 ? ys(a, p->cs[1]) - y0 : 1, dn = p->ncs > 1 ? yn - ys(a, p->cs[p->ncs - 2]) : 1;
    a->ylo = y0 - d0 / 2;
    a->yhi = yn + dn / 2;
    int first = 0;
    while (first < p->nms && p->ms[first] == 0)
        first++;
    if (first == p->nms) {
        a->flat_x = 1;
        return;
    }
    double x0 = xs((double)p->ms[first]), xn = xs((double)p->ms[p->nms - 1]);
    double e0 = first + 1 < p->nms ? xs((double)p->ms[first + 1]) - x0 : 1;
    double en = p->nms - first > 1 ? xn - xs((double)p->ms[p->nms - 2]) : 1;
    a->xlo = x0 - e0 / 2;
    a->xhi = xn + en / 2;
}

static void text_at(cairo_t *cr, const char *s, double x, double y, double ax, double ay)
{
    cairo_text_extents_t ex;
    cairo_text_extents(cr, s, &ex);
    cairo_move_to(cr, x - ax * ex.width - ex.x_bearing, y - ay * ex.height - ex.y_bearing);
    cairo_show_text(cr, s);
}

static double text_w(cairo_t *cr, const char *s)
{
    cairo_text_extents_t ex;
    cairo_text_extents(cr, s, &ex);
    return ex.x_advance;
}

static void font(cairo_t *cr, double size, int bold)
{
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

static void draw_ticks(cairo_t *cr, const cs_panel *p, const axes *a)
{
    char buf[48];
    font(cr, 11, 0);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    /* y: the measured communicator sizes, skipping crowded ones */
    double last = 1e9;
    for (int i = 0; i < p->ncs; i++) {
        double y = ypix(a, ys(a, p->cs[i]));
        if (last - y < 15)
            continue;
        last = y;
        cairo_move_to(cr, -5, y);
        cairo_line_to(cr, 0, y);
        cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%u", p->cs[i]);
        text_at(cr, buf, -8, y, 1, 0.5);
    }
    font(cr, 12, 0);
    cairo_save(cr);
    cairo_translate(cr, -ML + 16, PLOT_H / 2.0);
    cairo_rotate(cr, -M_PI / 2);
    text_at(cr, a->ylog ? "communicator size (ranks, log scale)" : "communicator size (ranks)", 0,
            0, 0.5, 0.5);
    cairo_restore(cr);
    if (a->flat_x) {
        text_at(cr, "no message size (every size takes the same method)", PLOT_W / 2.0,
                PLOT_H + 26, 0.5, 0.5);
        return;
    }
    /* x: powers of two, every `step` octaves so that labels never touch */
    font(cr, 11, 0);
    int lo = (int)ceil(a->xlo), hi = (int)floor(a->xhi);
    int step = 1;
    for (;; step++) {
        double widest = 0;
        for (int k = lo; k <= hi; k++)
            if (k % step == 0 && k >= 0)
                widest = fmax(widest, text_w(cr, cs_fmt_bytes(buf, sizeof buf, ldexp(1, k))));
        if (widest + 10 <= step * PLOT_W / (a->xhi - a->xlo) || step > 40)
            break;
    }
    for (int k = lo; k <= hi; k++) {
        if (k < 0 || k % step != 0)
            continue;
        double x = xpix(a, k);
        cairo_move_to(cr, x, PLOT_H);
        cairo_line_to(cr, x, PLOT_H + 5);
        cairo_stroke(cr);
        text_at(cr, cs_fmt_bytes(buf, sizeof buf, ldexp(1, k)), x, PLOT_H + 8, 0.5, 0);
    }
    font(cr, 12, 0);
    text_at(cr, "message size (count x type size, log scale)", PLOT_W / 2.0, PLOT_H + 34, 0.5, 0);
}

/* ---- plot contents --------------------------------------------------------- */

static void rect_pix(const axes *a, const cs_rrect *r, double *x, double *y, double *w, double *h)
{
    double y0 = ypix(a, ys(a, r->cs_lo - 0.5)), y1 = ypix(a, ys(a, r->cs_hi + 0.5));
    double x0 = r->ms_lo == 0 ? 0 : xpix(a, xs((double)r->ms_lo));
    double x1 = xpix(a, xs((double)r->ms_hi + 1.0));
    if (a->flat_x) {
        x0 = 0;
        x1 = PLOT_W;
    }
    *x = x0;
    *y = y1;
    *w = x1 - x0;
    *h = y0 - y1;
}

static void draw_rects(cairo_t *cr, const cs_sheet *s, const cs_panel *p, const axes *a)
{
    for (size_t i = 0; i < p->nr; i++) {
        const cs_rrect *r = &p->r[i];
        double x, y, w, h;
        rect_pix(a, r, &x, &y, &w, &h);
        if (w <= 0 || h <= 0)
            continue;
        if (p->heat) {
            if (isnan(r->val))
                cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
            else
                set_rgb(cr, heat_colour(r->val));
            cairo_rectangle(cr, x, y, w, h);
            cairo_fill(cr);
        } else if (r->key >= 0)
            fill_key(cr, s, r->key, x, y, w, h);
    }
    if (!p->outline)
        return;
    cairo_set_line_width(cr, 0.6);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.35);
    for (size_t i = 0; i < p->nr; i++) {
        double x, y, w, h;
        rect_pix(a, &p->r[i], &x, &y, &w, &h);
        if (w > 0 && h > 0) {
            cairo_rectangle(cr, x, y, w, h);
            cairo_stroke(cr);
        }
    }
    if (!p->heat)
        return;
    /* penalty figures inside cells that have room */
    font(cr, 10, 0);
    char buf[32];
    for (size_t i = 0; i < p->nr; i++) {
        double x, y, w, h;
        rect_pix(a, &p->r[i], &x, &y, &w, &h);
        double v = p->r[i].val;
        snprintf(buf, sizeof buf, isnan(v) ? "n/a" : "%.0f%%", v);
        if (w < text_w(cr, buf) + 4 || h < 13)
            continue;
        if (!isnan(v) && v >= heat_edge[2])
            cairo_set_source_rgb(cr, 1, 1, 1);
        else
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        text_at(cr, buf, x + w / 2, y + h / 2, 0.5, 0.5);
    }
}

static double dot_radius(double ops) { return fmin(2.5 + 2.0 * log10(1 + ops), 14); }

static void draw_dots(cairo_t *cr, const cs_panel *p, const axes *a)
{
    for (size_t i = 0; i < p->nd; i++) {
        const cs_rdot *d = &p->d[i];
        double x = a->flat_x ? PLOT_W / 2.0 : d->ms == 0 ? 0 : xpix(a, xs((double)d->ms));
        double y = ypix(a, ys(a, d->cs));
        cairo_arc(cr, x, y, dot_radius(d->ops), 0, 2 * M_PI);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.75);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_set_line_width(cr, 1.2);
        cairo_stroke(cr);
    }
}

/* ---- legend ------------------------------------------------------------------- */

/* Keys used in panel p, in key order. */
static int used_keys(const cs_sheet *s, const cs_panel *p, int *out)
{
    int n = 0;
    for (int k = 0; k < s->nkeys; k++)
        for (size_t i = 0; i < p->nr; i++)
            if (p->r[i].key == k) {
                out[n++] = k;
                break;
            }
    return n;
}

/* Legend height (draw = 0) or draw it; origin = top-left of legend area. */
static double legend(cairo_t *cr, const cs_sheet *s, const cs_panel *p, int draw)
{
    double y = 0;
    font(cr, 11, 0);
    if (p->heat) {
        if (draw) {
            cairo_set_source_rgb(cr, 0, 0, 0);
            text_at(cr, "penalty = time of the tree's choice / time of the best method - 1", 0,
                    y, 0, 0);
        }
        y += LEG_ROW;
        double bw = (PLOT_W - 70) / 5.0;
        for (int b = 0; b < 5 && draw; b++) {
            set_rgb(cr, heat_rgb[b]);
            cairo_rectangle(cr, b * bw, y, bw, 14);
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
            cairo_set_line_width(cr, 0.8);
            cairo_stroke(cr);
            cairo_set_source_rgb(cr, 0, 0, 0);
            text_at(cr, heat_label[b], b * bw + bw / 2, y + 17, 0.5, 0);
        }
        if (draw) {
            cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
            cairo_rectangle(cr, 5 * bw + 10, y, 22, 14);
            cairo_fill(cr);
            cairo_set_source_rgb(cr, 0, 0, 0);
            text_at(cr, "n/a", 5 * bw + 36, y + 7, 0, 0.5);
        }
        y += 36;
    } else {
        int keys[256], n = used_keys(s, p, keys);
        double colw = 0;
        for (int i = 0; i < n; i++)
            colw = fmax(colw, text_w(cr, s->keys[keys[i]]) + 34);
        int ncol = colw > 0 ? (int)((PW - 40) / colw) : 1;
        ncol = ncol < 1 ? 1 : ncol > n ? (n ? n : 1) : ncol;
        int rows = (n + ncol - 1) / ncol;
        colw = (PW - 40.0) / ncol;
        for (int i = 0; i < n && draw; i++) {
            double x = (i / rows) * colw, yy = y + (i % rows) * LEG_ROW;
            fill_key(cr, s, keys[i], x, yy, 22, 13);
            cairo_set_source_rgba(cr, 0, 0, 0, 0.5);
            cairo_set_line_width(cr, 0.6);
            cairo_rectangle(cr, x, yy, 22, 13);
            cairo_stroke(cr);
            cairo_set_source_rgb(cr, 0, 0, 0);
            text_at(cr, s->keys[keys[i]], x + 28, yy + 6.5, 0, 0.5);
        }
        y += rows * LEG_ROW + 6;
    }
    if (p->nd) {
        double total = 0;
        for (size_t i = 0; i < p->nd; i++)
            total += p->d[i].ops;
        if (draw) {
            char buf[160];
            snprintf(buf, sizeof buf, "application calls (%.0f in %zu points); dot size:", total,
                     p->nd);
            cairo_set_source_rgb(cr, 0, 0, 0);
            text_at(cr, buf, 0, y + 9, 0, 0.5);
            double x = text_w(cr, buf) + 16;
            static const double ex[] = {1, 100, 10000, 1000000};
            static const char *exl[] = {"1", "100", "10^4", "10^6"};
            for (int i = 0; i < 4; i++) {
                double r = dot_radius(ex[i]);
                cairo_arc(cr, x + r, y + 9, r, 0, 2 * M_PI);
                cairo_set_source_rgba(cr, 0, 0, 0, 0.75);
                cairo_fill(cr);
                cairo_set_source_rgb(cr, 0, 0, 0);
                text_at(cr, exl[i], x + 2 * r + 4, y + 9, 0, 0.5);
                x += 2 * r + 14 + text_w(cr, exl[i]);
            }
        }
        y += 28;
    }
    return y;
}

/* ---- panels and sheets ----------------------------------------------------------- */

static double panel_height(cairo_t *cr, const cs_sheet *s, const cs_panel *p)
{
    return MT + PLOT_H + AXIS_H + legend(cr, s, p, 0) + 12;
}

static void draw_panel(cairo_t *cr, const cs_sheet *s, const cs_panel *p)
{
    axes a;
    make_axes(p, &a);
    cairo_set_source_rgb(cr, 0, 0, 0);
    font(cr, 15, 1);
    text_at(cr, p->title, PW / 2.0, 8, 0.5, 0);
    font(cr, 11, 0);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    text_at(cr, p->subtitle, PW / 2.0, 32, 0.5, 0);
    cairo_save(cr);
    cairo_translate(cr, ML, MT);
    cairo_rectangle(cr, 0, 0, PLOT_W, PLOT_H);
    cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
    cairo_fill(cr);
    cairo_save(cr);
    cairo_rectangle(cr, 0, 0, PLOT_W, PLOT_H);
    cairo_clip(cr);
    draw_rects(cr, s, p, &a);
    draw_dots(cr, p, &a);
    cairo_restore(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, 0, 0, PLOT_W, PLOT_H);
    cairo_stroke(cr);
    draw_ticks(cr, p, &a);
    cairo_translate(cr, -ML + 20, PLOT_H + AXIS_H);
    legend(cr, s, p, 1);
    cairo_restore(cr);
}

static cairo_status_t to_buf(void *closure, const unsigned char *data, unsigned int len)
{
    cs_buf_put(closure, data, len);
    return CAIRO_STATUS_SUCCESS;
}

int cs_png_save(cairo_t *cr, cairo_surface_t *sf, const char *path, cs_err *e)
{
    cs_buf b = {0};
    cairo_status_t st = cairo_status(cr);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_write_to_png_stream(sf, to_buf, &b);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
    int rc = -1;
    if (st != CAIRO_STATUS_SUCCESS)
        cs_fail(e, "%s: drawing failed: %s", path, cairo_status_to_string(st));
    else if (b.oom)
        cs_fail(e, "%s: out of memory", path);
    else
        rc = cs_write_file_atomic(path, b.p, b.n, e);
    cs_buf_free(&b);
    return rc;
}

/* Draw panels [from, to) side by side into path. */
static int draw_png(cs_sheet *s, int from, int to, const char *path, cs_err *e)
{
    cairo_surface_t *probe = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 8, 8);
    cairo_t *pc = cairo_create(probe);
    double h = 0;
    for (int i = from; i < to; i++)
        h = fmax(h, panel_height(pc, s, &s->p[i]));
    cairo_destroy(pc);
    cairo_surface_destroy(probe);
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, PW * (to - from), (int)ceil(h));
    cairo_t *cr = cairo_create(sf);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    for (int i = from; i < to; i++) {
        cairo_save(cr);
        cairo_translate(cr, PW * (i - from), 0);
        draw_panel(cr, s, &s->p[i]);
        cairo_restore(cr);
    }
    int rc = cs_png_save(cr, sf, path, e);
    if (rc == 0)
        printf("wrote %s (%d panel%s)\n", path, to - from, to - from == 1 ? "" : "s");
    return rc;
}

int cs_sheet_draw(cs_sheet *s, const char *out, cs_err *e)
{
    const char *pct = strstr(out, "%s");
    int rc = 0;
    if (!pct)
        rc = draw_png(s, 0, s->np, out, e);
    for (int i = 0; pct && i < s->np && rc == 0; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%.*s%s%s", (int)(pct - out), out, cs_coll_name(s->p[i].coll),
                 pct + 2);
        rc = draw_png(s, i, i + 1, path, e);
    }
    /* drop cairo's font caches (no cairo object is left) so that leak
     * checkers see a clean exit */
    cairo_debug_reset_static_data();
    return rc;
}
