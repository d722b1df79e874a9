/* Decision maps (map.h): a perf table's rows of one collective arranged as
 * a (comm size x message size x method) array of times, plus the weight an
 * application profile puts on each point.
 *
 * Methods are sorted by name with COLL.native first, so that ties between
 * equally fast methods go to native (and otherwise to a stable order).
 * Duplicate rows for one (point, method): the last one wins.  The decision
 * margin (map.h, cs_map_decide) starts at 0; the commands set it.
 *
 * COLL.segment rows (collsel-replay: the one-time cost of a communicator's
 * shared-memory segment at a size) are not methods: with a profile, that
 * cost is spread over the application's calls per communicator and added
 * to the times of the methods that need a segment (spread_segments).
 *
 * Profile weight of a point = the time the application spent in the calls
 * that fall on it, per rank: for each profile cell of the collective, every
 * exact size it kept contributes t_total x (its share of the cell's calls) /
 * comm_size to the map point nearest to (comm_size, bytes), distances taken
 * on log2 scales on both axes; the calls whose exact size was not kept use
 * the geometric middle of the cell's bin.  This is "calls x mean time". */
#include "map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/colls.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_method(const void *a, const void *b)
{
    const char *x = a, *y = b;
    const char *dx = strchr(x, '.'), *dy = strchr(y, '.');
    int nx = dx && !strcmp(dx, ".native"), ny = dy && !strcmp(dy, ".native");
    if (nx != ny)
        return ny - nx;
    return strcmp(x, y);
}

/* Sort and deduplicate; return the new length. */
static int uniq(void *base, int n, size_t sz, int (*cmp)(const void *, const void *))
{
    if (n == 0)
        return 0;
    qsort(base, (size_t)n, sz, cmp);
    int k = 1;
    for (int i = 1; i < n; i++)
        if (cmp((char *)base + (size_t)i * sz, (char *)base + (size_t)(k - 1) * sz) != 0)
            memmove((char *)base + (size_t)k++ * sz, (char *)base + (size_t)i * sz, sz);
    return k;
}

static int find_u32(const uint32_t *a, int n, uint32_t v)
{
    const uint32_t *p = bsearch(&v, a, (size_t)n, sizeof *a, cmp_u32);
    return p ? (int)(p - a) : -1;
}

static int find_u64(const uint64_t *a, int n, uint64_t v)
{
    const uint64_t *p = bsearch(&v, a, (size_t)n, sizeof *a, cmp_u64);
    return p ? (int)(p - a) : -1;
}

static double lg(double v) { return v > 0 ? log2(v) : -1; }

/* Index of the axis value nearest to v on a log2 scale. */
static int nearest_u32(const uint32_t *a, int n, double v)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (fabs(lg(a[i]) - lg(v)) < fabs(lg(a[best]) - lg(v)))
            best = i;
    return best;
}

static int nearest_u64(const uint64_t *a, int n, double v)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (fabs(lg((double)a[i]) - lg(v)) < fabs(lg((double)a[best]) - lg(v)))
            best = i;
    return best;
}

static void add_weights(cs_map *m, const cs_profile *prof)
{
    for (size_t c = 0; c < prof->ncells; c++) {
        const cs_cell *cell = &prof->cells[c];
        if ((int)cell->coll != cs_rcoll_of_coll(m->coll) || !cell->rank_calls || !cell->comm_size)
            continue;
        int i = nearest_u32(m->cs, m->ncs, cell->comm_size);
        double per_call = cell->t_total / (double)cell->rank_calls / cell->comm_size;
        uint64_t kept = 0;
        for (uint32_t s = 0; s < cell->nsizes && s < CS_CELL_NSIZES; s++) {
            int j = nearest_u64(m->ms, m->nms, (double)cell->sizes[s].bytes);
            m->w[i * m->nms + j] += per_call * (double)cell->sizes[s].rank_calls;
            kept += cell->sizes[s].rank_calls;
        }
        if (kept < cell->rank_calls) {
            int bin = (int)cell->bin;
            double mid = sqrt((double)cs_bin_lo(bin) * (double)cs_fold_bin_hi(cell->bin, prof->fold));
            int j = nearest_u64(m->ms, m->nms, mid);
            m->w[i * m->nms + j] += per_call * (double)(cell->rank_calls - kept);
        }
    }
}

static int is_segment(const cs_perf_row *row)
{
    return cs_name_is_segment(row->method);
}

int cs_map_needs_segment(const char *method)
{
    return cs_name_needs_segment(method);
}

/* The segment's one-time cost spread over the application's calls: a
 * communicator of s ranks makes its segment once, for all its collectives.
 * The profile says how many operations (rank calls / s) the application
 * made on communicators of s ranks, every collective together; as the
 * replay does (cs_replay_comm), its communicators of s ranks are taken to
 * be the world's floor(P / s) disjoint groups, so each made ops / (P / s)
 * of them.  Every method that needs a segment gets seg_us / that count
 * added at every point of size s (the tree then weighs what the
 * application pays for it).  Sizes without a COLL.segment row or without
 * calls keep their times. */
static void spread_segments(cs_map *m, const cs_profile *prof)
{
    double world = prof->meta.world_size ? prof->meta.world_size : 1;
    for (size_t c = 0; c < prof->ncells; c++) {
        const cs_cell *cell = &prof->cells[c];
        /* the collectives collsel selects share the segment */
        int ours = cs_coll_of_rcoll((int)cell->coll) >= 0;
        if (!ours || !cell->comm_size || !cell->rank_calls || m->ncs == 0)
            continue;
        int i = nearest_u32(m->cs, m->ncs, cell->comm_size);
        if (m->cs[i] != cell->comm_size)
            continue;
        double groups = floor(world / cell->comm_size);
        m->seg_calls[i] += (double)cell->rank_calls / cell->comm_size / (groups > 1 ? groups : 1);
    }
    for (int i = 0; i < m->ncs; i++) {
        if (isnan(m->seg_us[i]) || m->seg_calls[i] < 1)
            continue;
        double add = m->seg_us[i] / m->seg_calls[i];
        for (int q = 0; q < m->nmethods; q++) {
            if (!cs_map_needs_segment(m->methods[q]))
                continue;
            for (int j = 0; j < m->nms; j++) {
                double *t = &m->t[((size_t)i * m->nms + j) * m->nmethods + q];
                if (!isnan(*t))
                    *t += add;
            }
        }
    }
}

int cs_map_build(cs_map *m, const cs_perf *perf, int coll, const cs_profile *prof, cs_err *e)
{
    memset(m, 0, sizeof *m);
    m->coll = coll;
    size_t n = 0;
    for (size_t r = 0; r < perf->n; r++)
        n += perf->rows[r].coll == coll && !is_segment(&perf->rows[r]);
    if (!n)
        return cs_fail(e, "the performance table has no rows for %s", cs_coll_name(coll));
    m->cs = malloc(n * sizeof *m->cs);
    m->ms = malloc(n * sizeof *m->ms);
    m->methods = malloc(n * sizeof *m->methods);
    if (!m->cs || !m->ms || !m->methods)
        goto out;
    int k = 0;
    for (size_t r = 0; r < perf->n; r++) {
        const cs_perf_row *row = &perf->rows[r];
        if (row->coll != coll || is_segment(row))
            continue;
        m->cs[k] = row->comm_size;
        m->ms[k] = row->msg_bytes;
        snprintf(m->methods[k], sizeof m->methods[k], "%s", row->method);
        k++;
    }
    m->ncs = uniq(m->cs, k, sizeof *m->cs, cmp_u32);
    m->nms = uniq(m->ms, k, sizeof *m->ms, cmp_u64);
    m->nmethods = uniq(m->methods, k, sizeof *m->methods, cmp_method);
    m->native = -1;
    for (int q = 0; q < m->nmethods; q++) {
        const char *dot = strchr(m->methods[q], '.');
        if (dot && !strcmp(dot, ".native"))
            m->native = q;
    }
    size_t npts = (size_t)m->ncs * m->nms;
    m->t = malloc(npts * m->nmethods * sizeof *m->t);
    m->seg_us = malloc((size_t)m->ncs * sizeof *m->seg_us);
    m->seg_calls = calloc((size_t)m->ncs, sizeof *m->seg_calls);
    if (!m->t || !m->seg_us || !m->seg_calls)
        goto out;
    for (size_t i = 0; i < npts * m->nmethods; i++)
        m->t[i] = NAN;
    for (int i = 0; i < m->ncs; i++)
        m->seg_us[i] = NAN;
    for (size_t r = 0; r < perf->n; r++) {
        const cs_perf_row *row = &perf->rows[r];
        if (row->coll != coll)
            continue;
        int i = find_u32(m->cs, m->ncs, row->comm_size);
        if (is_segment(row)) {
            if (i >= 0)
                m->seg_us[i] = row->median_us;
            continue;
        }
        int j = find_u64(m->ms, m->nms, row->msg_bytes);
        char key[64];
        snprintf(key, sizeof key, "%s", row->method);
        char(*mp)[64] =
            bsearch(key, m->methods, (size_t)m->nmethods, sizeof *m->methods, cmp_method);
        m->t[((size_t)i * m->nms + j) * m->nmethods + (mp - m->methods)] = row->median_us;
    }
    if (prof) {
        m->w = calloc(npts, sizeof *m->w);
        if (!m->w)
            goto out;
        add_weights(m, prof);
        spread_segments(m, prof);
    }
    return 0;
out:
    cs_map_free(m);
    return cs_fail(e, "out of memory building the %s map", cs_coll_name(coll));
}

void cs_map_free(cs_map *m)
{
    free(m->cs);
    free(m->ms);
    free(m->methods);
    free(m->t);
    free(m->w);
    free(m->seg_us);
    free(m->seg_calls);
    memset(m, 0, sizeof *m);
}

int cs_map_best(const cs_map *m, int i, int j)
{
    int best = -1;
    for (int k = 0; k < m->nmethods; k++) {
        double t = cs_map_time(m, i, j, k);
        if (!isnan(t) && (best < 0 || t < cs_map_time(m, i, j, best)))
            best = k;
    }
    return best;
}

int cs_map_decide(const cs_map *m, int i, int j)
{
    int best = cs_map_best(m, i, j);
    if (best < 0 || m->native < 0 || best == m->native)
        return best;
    double tn = cs_map_time(m, i, j, m->native);
    if (isnan(tn) || cs_margin_beats(cs_map_time(m, i, j, best), tn, m->margin))
        return best;
    return m->native;
}
