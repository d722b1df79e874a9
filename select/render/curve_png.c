/* Curves for collsel compare (render.h, cs_curve_draw): per panel, each
 * series' points (x = leaves, log2 axis; y = penalty in percent, linear)
 * joined in x order, with a legend under the plot. */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map_png.h"
#include "render.h"

enum { CW = 560, CPW = 440, CPH = 320, CML = 80, CMT = 44, CAXIS = 44, CLEG = 18 };

static const double series_rgb[8][3] = {
    {0.12, 0.47, 0.71}, {0.55, 0.75, 0.90}, {0.17, 0.63, 0.17}, {0.84, 0.15, 0.16},
    {1.00, 0.50, 0.05}, {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29}, {0.50, 0.50, 0.50}};

static void text(cairo_t *cr, const char *s, double x, double y, double ax, double ay)
{
    cairo_text_extents_t ex;
    cairo_text_extents(cr, s, &ex);
    cairo_move_to(cr, x - ax * ex.width - ex.x_bearing, y - ay * ex.height - ex.y_bearing);
    cairo_show_text(cr, s);
}

static void panel(cairo_t *cr, const cs_cpanel *p)
{
    double x0 = INFINITY, x1 = -INFINITY, y1 = 0;
    for (int s = 0; s < p->ns; s++)
        for (int i = 0; i < p->s[s].n; i++) {
            x0 = fmin(x0, p->s[s].x[i]);
            x1 = fmax(x1, p->s[s].x[i]);
            y1 = fmax(y1, p->s[s].y[i]);
        }
    if (!(x0 <= x1)) {
        x0 = 1;
        x1 = 2;
    }
    double lx0 = floor(log2(fmax(x0, 1))), lx1 = ceil(log2(fmax(x1, 2)));
    if (lx1 <= lx0)
        lx1 = lx0 + 1;
    double ystep = y1 <= 0 ? 1 : pow(10, floor(log10(y1 / 4)));
    while (y1 / ystep > 8)
        ystep *= 2;
    double ymax = ystep * ceil(y1 / ystep + 1e-9);
    if (ymax <= 0)
        ymax = 1;
#define PX(v) (CML + (log2(fmax(v, 1)) - lx0) / (lx1 - lx0) * CPW)
#define PY(v) (CMT + CPH - (v) / ymax * CPH)
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, 15);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, p->title, CW / 2.0, 10, 0.5, 0);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 11);
    cairo_set_line_width(cr, 1);
    char b[32];
    for (double v = 0; v <= ymax + 1e-9; v += ystep) { /* y grid */
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, CML, PY(v));
        cairo_line_to(cr, CML + CPW, PY(v));
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(b, sizeof b, "%g", v);
        text(cr, b, CML - 6, PY(v), 1, 0.5);
    }
    for (double l = lx0; l <= lx1; l++) { /* x ticks: powers of two */
        snprintf(b, sizeof b, "%g", exp2(l));
        cairo_move_to(cr, PX(exp2(l)), CMT + CPH);
        cairo_line_to(cr, PX(exp2(l)), CMT + CPH + 4);
        cairo_stroke(cr);
        text(cr, b, PX(exp2(l)), CMT + CPH + 7, 0.5, 0);
    }
    cairo_rectangle(cr, CML, CMT, CPW, CPH);
    cairo_stroke(cr);
    text(cr, "leaves (log scale)", CML + CPW / 2.0, CMT + CPH + 24, 0.5, 0);
    cairo_save(cr);
    cairo_translate(cr, 22, CMT + CPH / 2.0);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, p->ylabel, 0, 0, 0.5, 0.5);
    cairo_restore(cr);
    for (int s = 0; s < p->ns; s++) {
        const cs_cseries *se = &p->s[s];
        int ord[CS_CURVE_MAXPTS];
        for (int i = 0; i < se->n; i++)
            ord[i] = i;
        for (int i = 1; i < se->n; i++) /* insertion sort by x */
            for (int j = i; j > 0 && se->x[ord[j]] < se->x[ord[j - 1]]; j--) {
                int t = ord[j];
                ord[j] = ord[j - 1];
                ord[j - 1] = t;
            }
        cairo_set_source_rgb(cr, series_rgb[s % 8][0], series_rgb[s % 8][1], series_rgb[s % 8][2]);
        cairo_set_line_width(cr, 1.6);
        for (int i = 0; i < se->n; i++) {
            double x = PX(se->x[ord[i]]), y = PY(se->y[ord[i]]);
            if (i)
                cairo_line_to(cr, x, y);
            else
                cairo_move_to(cr, x, y);
        }
        cairo_stroke(cr);
        for (int i = 0; i < se->n; i++) {
            cairo_arc(cr, PX(se->x[i]), PY(se->y[i]), 3.2, 0, 2 * M_PI);
            cairo_fill(cr);
        }
        double ly = CMT + CPH + CAXIS + CLEG * (s / 2), lx = CML + (s % 2) * (CPW / 2.0);
        cairo_rectangle(cr, lx, ly, 14, 10);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        text(cr, se->name, lx + 20, ly + 5, 0, 0.5);
    }
#undef PX
#undef PY
}

int cs_curve_draw(const cs_cpanel *p, int np, const char *path, cs_err *e)
{
    int rows = 0;
    for (int i = 0; i < np; i++)
        rows = p[i].ns > rows ? p[i].ns : rows;
    int h = CMT + CPH + CAXIS + CLEG * ((rows + 1) / 2) + 10;
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, CW * (np ? np : 1), h);
    cairo_t *cr = cairo_create(sf);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    for (int i = 0; i < np; i++) {
        cairo_save(cr);
        cairo_translate(cr, CW * i, 0);
        panel(cr, &p[i]);
        cairo_restore(cr);
    }
    int rc = cs_png_save(cr, sf, path, e);
    cairo_debug_reset_static_data();
    return rc;
}
