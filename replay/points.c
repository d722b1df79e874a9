/* Replay points from profiles and grids: see points.h. */
#include "points.h"

#include <stdlib.h>
#include <string.h>

#include "op.h"

static int add(cs_points *pts, const cs_point *p, cs_err *e)
{
    if (pts->n == pts->cap) {
        size_t cap = pts->cap ? 2 * pts->cap : 64;
        cs_point *q = realloc(pts->p, cap * sizeof *q);
        if (!q)
            return cs_fail(e, "out of memory (%zu replay points)", pts->n);
        pts->p = q;
        pts->cap = cap;
    }
    pts->p[pts->n] = *p;
    pts->p[pts->n].bytes = cs_rop_bytes((enum cs_coll)p->coll, p->bytes);
    pts->n++;
    return 0;
}

int cs_points_add_profile(cs_points *pts, const cs_profile *prof, const int colls[CS_NCOLL],
                          cs_err *e)
{
    for (size_t i = 0; i < prof->ncells; i++) {
        const cs_cell *c = &prof->cells[i];
        int coll = cs_coll_of_rcoll((int)c->coll);
        if (coll < 0 || !colls[coll] || c->comm_size == 0 || c->rank_calls == 0)
            continue;
        cs_point p = {coll, c->comm_size, 0, (int)c->root_mode, c->root, 0};
        if (!cs_coll_sized(coll) || c->nsizes == 0) {
            p.bytes = cs_coll_sized(coll) ? cs_bin_lo((int)c->bin) : 0;
            p.ops = cs_cell_ops(c);
            if (add(pts, &p, e) < 0)
                return -1;
            continue;
        }
        for (uint32_t k = 0; k < c->nsizes && k < CS_CELL_NSIZES; k++) {
            uint64_t calls = c->sizes[k].rank_calls + (k == 0 ? c->other_size_calls : 0);
            p.bytes = c->sizes[k].bytes;
            p.ops = (double)calls / c->comm_size;
            if (add(pts, &p, e) < 0)
                return -1;
        }
    }
    return 0;
}

int cs_points_add_grid(cs_points *pts, const cs_replay_grid *g, const int colls[CS_NCOLL], cs_err *e)
{
    for (int c = 0; c < CS_NCOLL; c++)
        for (int i = 0; colls[c] && i < g->ncs; i++)
            for (int j = 0; j < (cs_coll_sized(c) ? g->nms : 1); j++) {
                cs_point p = {c, g->cs[i], cs_coll_sized(c) ? g->ms[j] : 0, CS_ROOT_ZERO, 0, 0};
                if (add(pts, &p, e) < 0)
                    return -1;
            }
    return 0;
}

static int cmp_point(const void *a, const void *b)
{
    const cs_point *x = a, *y = b;
    if (x->coll != y->coll)
        return x->coll - y->coll;
    if (x->comm_size != y->comm_size)
        return x->comm_size < y->comm_size ? -1 : 1;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

void cs_points_merge(cs_points *pts)
{
    if (pts->n == 0)
        return;
    qsort(pts->p, pts->n, sizeof *pts->p, cmp_point);
    size_t m = 0;
    for (size_t i = 1; i < pts->n; i++) {
        cs_point *d = &pts->p[m], *s = &pts->p[i];
        if (cmp_point(d, s) != 0) {
            pts->p[++m] = *s;
            continue;
        }
        if (d->ops == 0) { /* grid point: take the profile's roots */
            d->root_mode = s->root_mode;
            d->root = s->root;
        } else if (s->ops != 0 && (s->root_mode != d->root_mode || s->root != d->root)) {
            d->root_mode = CS_ROOT_VARYING;
        }
        d->ops += s->ops;
    }
    pts->n = m + 1;
}

void cs_points_free(cs_points *pts)
{
    free(pts->p);
    memset(pts, 0, sizeof *pts);
}
