/* Replay points from profiles and grids: see points.h. */
#include "points.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

#include "op.h"

static int add(cs_points *pts, const cs_point *p, cs_err *e)
{
    if (cs_grow(&pts->p, pts->n, &pts->cap, sizeof *pts->p, 64) < 0)
        return cs_fail(e, "out of memory (%zu replay points)", pts->n);
    pts->p[pts->n] = *p;
    pts->p[pts->n].bytes = cs_rop_bytes((enum cs_coll)p->coll, p->bytes);
    pts->n++;
    return 0;
}

/* The point's share (calls / the cell's calls) of its cell's time and
 * arrivals; a copy of the cell's lateness vectors in seconds. */
static int add_cell_point(cs_points *pts, cs_point *p, const cs_profile *prof, const cs_cell *c,
                          double calls, cs_err *e)
{
    double share = c->rank_calls ? calls / (double)c->rank_calls : 0, w, cpl;
    p->ops = calls / c->comm_size;
    p->t_s = share * c->t_total;
    p->arr = cs_arr_split(prof, c, &w, &cpl) == 0;
    p->wait_s = p->arr ? share * w : 0;
    p->compl_s = p->arr ? share * cpl : p->t_s;
    const cs_arr_cell *a = cs_arr_find(prof, c->coll, c->comm_size, c->bin);
    p->gap_s = cs_arr_gap(prof, a);
    double caused, causes, lag;
    if (p->arr && cs_arr_induced(prof, c, &caused, &causes, &lag) == 0) {
        p->causes_s = share * causes; /* the point's share of the cell's */
        p->lag_s = share * lag;
    }
    if (a && a->nvec && a->comm_size == c->comm_size) {
        size_t nv = (size_t)a->nvec * a->comm_size;
        if (!(p->late = malloc(sizeof *p->late * nv)))
            return cs_fail(e, "out of memory (lateness vectors)");
        for (size_t k = 0; k < nv; k++)
            p->late[k] = 1e-9 * a->vec[k];
        p->nvec = a->nvec;
        p->vranks = a->comm_size;
    }
    if (add(pts, p, e) == 0)
        return 0;
    free(p->late);
    return -1;
}

int cs_points_add_profile(cs_points *pts, const cs_profile *prof, const int colls[CS_NCOLL],
                          cs_err *e)
{
    pts->arr |= cs_arr_recorded(prof);
    for (size_t i = 0; i < prof->ncells; i++) {
        const cs_cell *c = &prof->cells[i];
        pts->t_all += c->t_total;
        int coll = cs_coll_of_rcoll((int)c->coll);
        if (coll < 0 || !colls[coll] || c->comm_size == 0 || c->rank_calls == 0)
            continue;
        cs_point p = {.coll = coll, .comm_size = c->comm_size, .root_mode = (int)c->root_mode,
                      .root = c->root};
        if (!cs_coll_sized(coll) || c->nsizes == 0) {
            p.bytes = cs_coll_sized(coll) ? cs_bin_lo((int)c->bin) : 0;
            if (add_cell_point(pts, &p, prof, c, (double)c->rank_calls, e) < 0)
                return -1;
            continue;
        }
        for (uint32_t k = 0; k < c->nsizes && k < CS_CELL_NSIZES; k++) {
            uint64_t calls = c->sizes[k].rank_calls + (k == 0 ? c->other_size_calls : 0);
            cs_point q = p;
            q.bytes = c->sizes[k].bytes;
            if (add_cell_point(pts, &q, prof, c, (double)calls, e) < 0)
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
                cs_point p = {.coll = c, .comm_size = g->cs[i],
                              .bytes = cs_coll_sized(c) ? g->ms[j] : 0, .root_mode = CS_ROOT_ZERO,
                              .gap_s = -1};
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
        if (d->gap_s < 0 || s->gap_s < 0) /* the one known, or unknown */
            d->gap_s = d->gap_s > s->gap_s ? d->gap_s : s->gap_s;
        else if (d->ops + s->ops > 0) /* weighted by the calls */
            d->gap_s = (d->gap_s * d->ops + s->gap_s * s->ops) / (d->ops + s->ops);
        d->ops += s->ops;
        d->t_s += s->t_s, d->wait_s += s->wait_s, d->compl_s += s->compl_s;
        d->causes_s += s->causes_s, d->lag_s += s->lag_s;
        d->arr |= s->arr;
        if (!d->late) { /* one cell's vectors (the same cell, or a grid point) */
            d->late = s->late, d->nvec = s->nvec, d->vranks = s->vranks;
        } else {
            free(s->late);
        }
    }
    pts->n = m + 1;
}

void cs_points_free(cs_points *pts)
{
    for (size_t i = 0; i < pts->n; i++)
        free(pts->p[i].late);
    free(pts->p);
    memset(pts, 0, sizeof *pts);
}
