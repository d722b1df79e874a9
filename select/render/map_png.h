/* Decision-map pictures as data: what `collsel map` draws, independent of
 * where it came from (a tree, a perf table, a penalty analysis).  map_cmd.c
 * fills panels; map_png.c draws them with cairo.
 *
 * Coordinates are real units: communicator sizes (ranks, integer ranges,
 * inclusive) and message sizes (bytes, integer ranges, inclusive).  The
 * y axis (ranks) is log2 when the measured sizes span a factor >= 8, else
 * linear; the x axis (bytes) is always log2.  A panel whose message sizes
 * are all 0 (barrier) has no x axis: rectangles span the full width.
 */
#ifndef COLLSEL_MAP_PNG_H
#define COLLSEL_MAP_PNG_H

#include <cairo.h>
#include <stddef.h>
#include <stdint.h>

#include "common/colls.h"
#include "common/util.h"

typedef struct cs_rrect {
    uint32_t cs_lo, cs_hi;
    uint64_t ms_lo, ms_hi;
    int key;     /* method key (index into cs_sheet.keys), -1 = none */
    double val;  /* heat panels: penalty in percent, NAN = not measured */
} cs_rrect;

typedef struct cs_rdot {
    uint32_t cs;
    uint64_t ms;
    double ops;  /* collective operations at this point */
} cs_rdot;

typedef struct cs_panel {
    int coll;
    char title[128];
    char subtitle[160];
    int heat;          /* 1: colour by val (penalty), else by key */
    int outline;       /* 1: outline every rectangle (tree leaves, cells) */
    uint32_t *cs;      /* measured axes (ranges and ticks), owned */
    int ncs;
    uint64_t *ms;
    int nms;
    cs_rrect *r;       /* owned */
    size_t nr, capr;
    cs_rdot *d;        /* owned */
    size_t nd, capd;
} cs_panel;

typedef struct cs_sheet {
    cs_panel p[CS_NCOLL];
    int np;
    char (*keys)[64];  /* method names; colour = f(key index) */
    int nkeys;
} cs_sheet;

/* Index of method name in sheet->keys, adding it; -1 out of memory. */
int cs_sheet_key(cs_sheet *s, const char *name);
int cs_panel_rect(cs_panel *p, const cs_rrect *r);
int cs_panel_dot(cs_panel *p, uint32_t cs, uint64_t ms, double ops);
void cs_sheet_free(cs_sheet *s);

/* Draw the sheet: one PNG with all panels side by side, or, when out
 * contains "%s", one PNG per panel with the collective name substituted.
 * Files are written atomically; the names written are printed on stdout. */
int cs_sheet_draw(cs_sheet *s, const char *out, cs_err *e);

/* Write what cr drew on sf to path as PNG (atomically); destroys cr and
 * sf.  0, or -1 with e naming path. */
int cs_png_save(cairo_t *cr, cairo_surface_t *sf, const char *path, cs_err *e);

#endif
