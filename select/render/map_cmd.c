/* `collsel map (TREE|PERF) -o FILE.png [--penalty --perf PERF] [--profile P]`
 *
 * The input kind is detected by content (render.h).  A tree gives its
 * decision map (one rectangle per leaf, outlined, coloured by the leaf's
 * first method); a perf table gives the measured map (best method per
 * measured point, cells bounded at the same midpoints the tree uses:
 * arithmetic between communicator sizes, geometric between message sizes);
 * --penalty --perf PERF with a tree gives, per measured point, the penalty
 * of the tree's choice against the best measured method as a heat map.
 * --profile overlays the application's calls (dot size ~ log of the number
 * of operations).  One panel per collective; -o with %s writes one PNG per
 * collective (map-%s.png -> map-bcast.png, ...).
 */
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/map.h"
#include "map_png.h"
#include "render.h"

typedef struct opts {
    const char *in, *out, *perf, *profile;
    int penalty;
} opts;

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int copy_axes(cs_panel *p, const uint32_t *cs, int ncs, const uint64_t *ms, int nms)
{
    p->cs = malloc((size_t)(ncs ? ncs : 1) * sizeof *cs);
    p->ms = malloc((size_t)(nms ? nms : 1) * sizeof *ms);
    if (!p->cs || !p->ms || ncs < 1 || nms < 1)
        return -1;
    memcpy(p->cs, cs, (size_t)ncs * sizeof *cs);
    memcpy(p->ms, ms, (size_t)nms * sizeof *ms);
    p->ncs = ncs;
    p->nms = nms;
    return 0;
}

/* Cell (i, j) of a measured map, bounded like the tree's columns/rows. */
static void cell_bounds(const cs_map *m, int i, int j, cs_rrect *r)
{
    r->cs_lo = i == 0 ? 0 : (uint32_t)(((uint64_t)m->cs[i - 1] + m->cs[i]) / 2 + 1);
    r->cs_hi = i == m->ncs - 1 ? UINT32_MAX : (uint32_t)(((uint64_t)m->cs[i] + m->cs[i + 1]) / 2);
    r->ms_lo = j == 0 ? 0 : (uint64_t)floor(sqrt((double)m->ms[j - 1] * (double)m->ms[j])) + 1;
    r->ms_hi = j == m->nms - 1 ? UINT64_MAX : (uint64_t)floor(sqrt((double)m->ms[j] * (double)m->ms[j + 1]));
}

static int add_profile(cs_panel *p, const cs_profile *prof)
{
    for (size_t c = 0; c < prof->ncells; c++) {
        const cs_cell *cell = &prof->cells[c];
        if ((int)cell->coll != cs_rcoll_of_coll(p->coll) || !cell->comm_size || !cell->rank_calls)
            continue;
        uint64_t kept = 0;
        for (uint32_t s = 0; s < cell->nsizes && s < CS_CELL_NSIZES; s++) {
            kept += cell->sizes[s].rank_calls;
            if (cs_panel_dot(p, cell->comm_size, cell->sizes[s].bytes,
                             (double)cell->sizes[s].rank_calls / cell->comm_size) < 0)
                return -1;
        }
        if (kept < cell->rank_calls) {
            uint64_t mid = (uint64_t)sqrt((double)cs_bin_lo((int)cell->bin) *
                                          (double)cs_bin_hi((int)cell->bin));
            if (cs_panel_dot(p, cell->comm_size, mid,
                             (double)(cell->rank_calls - kept) / cell->comm_size) < 0)
                return -1;
        }
    }
    return 0;
}

static int tree_panel(cs_sheet *s, cs_panel *p, const cs_tree *t, int coll, const char *in)
{
    const uint32_t *cs;
    const uint64_t *ms;
    int ncs, nms;
    cs_leaf *lv = NULL;
    size_t n = 0;
    if (cs_tree_axes(t, coll, &cs, &ncs, &ms, &nms) < 0 || copy_axes(p, cs, ncs, ms, nms) < 0 ||
        cs_tree_leaves(t, coll, &lv, &n) < 0)
        return -1;
    p->outline = 1;
    for (size_t i = 0; i < n; i++) {
        int key = cs_sheet_key(s, cs_tree_method_name(t, coll, lv[i].ids[0]));
        cs_rrect r = {lv[i].cs_lo, lv[i].cs_hi, lv[i].ms_lo, lv[i].ms_hi, key, 0};
        if (key < 0 || cs_panel_rect(p, &r) < 0) {
            free(lv);
            return -1;
        }
    }
    snprintf(p->title, sizeof p->title, "%s: decision tree", cs_coll_name(coll));
    snprintf(p->subtitle, sizeof p->subtitle, "%s: %zu leaves, %d x %d measured points",
             base(in), n, ncs, nms);
    free(lv);
    return 0;
}

/* Measured map (t == NULL) or penalty of t against it. */
static int perf_panel(cs_sheet *s, cs_panel *p, const cs_map *m, const cs_tree *t,
                      const char *in, const char *perf)
{
    if (copy_axes(p, m->cs, m->ncs, m->ms, m->nms) < 0)
        return -1;
    p->outline = 1;
    p->heat = t != NULL;
    double sum = 0, worst = 0;
    int measured = 0, over = 0;
    for (int i = 0; i < m->ncs; i++)
        for (int j = 0; j < m->nms; j++) {
            cs_rrect r;
            cell_bounds(m, i, j, &r);
            int best = cs_map_best(m, i, j);
            r.key = -1;
            r.val = NAN;
            if (!t) {
                if (best >= 0 && (r.key = cs_sheet_key(s, m->methods[best])) < 0)
                    return -1;
            } else if (best >= 0) {
                const uint16_t *ids;
                int nc = cs_tree_decide(t, p->coll, m->cs[i], m->ms[j], &ids);
                const char *name = nc > 0 ? cs_tree_method_name(t, p->coll, ids[0]) : NULL;
                for (int k = 0; name && k < m->nmethods; k++)
                    if (strcmp(m->methods[k], name) == 0 && !isnan(cs_map_time(m, i, j, k)))
                        r.val = 100.0 * (cs_map_time(m, i, j, k) / cs_map_time(m, i, j, best) - 1);
                if (!isnan(r.val)) {
                    measured++;
                    sum += r.val;
                    worst = fmax(worst, r.val);
                    over += r.val >= 25;
                }
            }
            if (cs_panel_rect(p, &r) < 0)
                return -1;
        }
    const char *cn = cs_coll_name(p->coll);
    if (!t) {
        snprintf(p->title, sizeof p->title, "%s: fastest measured method", cn);
        snprintf(p->subtitle, sizeof p->subtitle, "%s: %d x %d points, %d methods", base(perf),
                 m->ncs, m->nms, m->nmethods);
    } else {
        snprintf(p->title, sizeof p->title, "%s: penalty of the tree", cn);
        snprintf(p->subtitle, sizeof p->subtitle,
                 "%s vs %s: mean %.1f %%, max %.0f %%, %d of %d points >= 25 %%", base(in),
                 base(perf), measured ? sum / measured : 0.0, worst, over, measured);
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: collsel map (TREE|PERF) -o FILE.png [--penalty --perf PERF] [--profile P]\n"
            "  Draws one panel per collective: communicator size (ranks) up, message\n"
            "  size (bytes, log scale) across, one colour per method.\n"
            "  TREE            the tree's decision map (leaves outlined)\n"
            "  PERF            the measured map: fastest method at every measured point\n"
            "                  (input kind detected by content)\n"
            "  --penalty --perf PERF   with a TREE: heat map of the tree's penalty against\n"
            "                  the measured times (white < 25 %%, warmer above)\n"
            "  --profile P     overlay the application's calls from profile P\n"
            "  -o, --output FILE.png\n"
            "                  one sheet with all panels; with %%s in the name, one PNG\n"
            "                  per collective (map-%%s.png -> map-bcast.png ...)\n"
            "  --help          this text\n");
}

static int parse(int argc, char **argv, opts *o)
{
    static const struct option lo[] = {{"output", required_argument, 0, 'o'},
                                        {"perf", required_argument, 0, 'P'},
                                        {"profile", required_argument, 0, 'p'},
                                        {"penalty", no_argument, 0, 'x'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'P': o->perf = optarg; break;
        case 'p': o->profile = optarg; break;
        case 'x': o->penalty = 1; break;
        case 'h': usage(stdout); return 0;
        default:
            fprintf(stderr, "collsel map: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    const char *why = NULL;
    if (optind + 1 != argc || !o->out)
        why = "need exactly one TREE or PERF input and -o FILE.png";
    else if (o->penalty != (o->perf != NULL))
        why = "--penalty and --perf PERF go together";
    else if (strstr(o->out, "%") && (!strstr(o->out, "%s") || strchr(strstr(o->out, "%s") + 2, '%') ||
                                     strstr(o->out, "%") != strstr(o->out, "%s")))
        why = "-o may contain one %s (for the collective name) and no other %";
    if (why) {
        fprintf(stderr, "collsel map: %s\n", why);
        usage(stderr);
        return 2;
    }
    o->in = argv[optind];
    return -1;
}

int cs_cmd_map(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    cs_err e = {{0}};
    cs_tree *t = NULL;
    cs_perf perf;
    cs_profile prof;
    cs_sheet s = {0};
    cs_perf_init(&perf);
    cs_profile_init(&prof);
    rc = 2;
    int kind = cs_rinput_kind(o.in, &e);
    if (kind < 0)
        goto out;
    if (kind == CS_RIN_PERF && o.penalty) {
        cs_fail(&e, "%s is a performance table; --penalty needs a TREE", o.in);
        goto out;
    }
    if (kind == CS_RIN_TREE && cs_tree_read(&t, o.in, &e) < 0)
        goto out;
    const char *perfpath = kind == CS_RIN_PERF ? o.in : o.perf;
    if (perfpath && cs_perf_read(&perf, perfpath, &e) < 0)
        goto out;
    if (o.profile && cs_profile_read(&prof, o.profile, &e) < 0)
        goto out;
    rc = 1;
    for (int coll = 0; coll < CS_NCOLL; coll++) {
        cs_panel *p = &s.p[s.np];
        p->coll = coll;
        int ok;
        if (perfpath) {
            int has = 0;
            for (size_t r = 0; r < perf.n && !has; r++)
                has = perf.rows[r].coll == coll;
            if (!has || (t && !cs_tree_has(t, coll)))
                continue;
            cs_map m;
            CS_CHECK(cs_map_build(&m, &perf, coll, NULL, &e));
            ok = perf_panel(&s, p, &m, t, o.in, perfpath);
            cs_map_free(&m);
        } else {
            if (!cs_tree_has(t, coll))
                continue;
            ok = tree_panel(&s, p, t, coll, o.in);
        }
        s.np++;
        if (ok < 0 || (o.profile && add_profile(p, &prof) < 0)) {
            cs_fail(&e, "out of memory drawing %s", cs_coll_name(coll));
            goto out;
        }
    }
    if (s.np == 0) {
        if (t && perfpath)
            cs_fail(&e, "%s and %s: nothing to draw (no collective present in both)", o.in,
                    perfpath);
        else
            cs_fail(&e, "%s: nothing to draw (no collective)", o.in);
        rc = 2;
        goto out;
    }
    CS_CHECK(cs_sheet_draw(&s, o.out, &e));
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "collsel map: %s\n", e.msg);
    cs_sheet_free(&s);
    cs_tree_free(t);
    cs_perf_free(&perf);
    cs_profile_free(&prof);
    return rc;
}
