/* Profiles in memory: cells, call sites, merge, trim, sort (see profile.h).
 *
 * Merging is associative and commutative in counts and times (integer sums,
 * min, max; floating-point sums are exact whenever the inputs are, e.g. in
 * the tests) and in root modes (a commutative monoid with NONE as identity).
 * The exact-size table keeps the CS_CELL_NSIZES most frequent sizes (ties:
 * smaller size first); it is exact, and therefore associative, as long as a
 * cell sees at most CS_CELL_NSIZES distinct sizes; beyond that the kept
 * sizes are the most frequent of what each merge saw, and every call is
 * still counted once, either in sizes[] or in other_size_calls.
 */
#include "profile.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

const char *cs_root_mode_name(int mode)
{
    static const char *names[] = {"none", "zero", "fixed", "varying"};
    return mode >= 0 && mode <= CS_ROOT_VARYING ? names[mode] : "?";
}

/* (mode, root) x (mode, root) -> (mode, root). */
static void root_combine(uint32_t *mode, int32_t *root, uint32_t m2, int32_t r2)
{
    if (m2 == CS_ROOT_NONE)
        return;
    if (*mode == CS_ROOT_NONE) {
        *mode = m2;
        *root = r2;
        return;
    }
    if (*mode != CS_ROOT_VARYING && m2 != CS_ROOT_VARYING && *root == r2)
        return; /* ZERO+ZERO, FIXED r + FIXED r */
    *mode = CS_ROOT_VARYING;
    if (r2 < *root)
        *root = r2;
}

static void sizes_bubble(cs_cell *c, uint32_t i)
{
    while (i > 0 && (c->sizes[i].rank_calls > c->sizes[i - 1].rank_calls ||
                     (c->sizes[i].rank_calls == c->sizes[i - 1].rank_calls &&
                      c->sizes[i].bytes < c->sizes[i - 1].bytes))) {
        __typeof__(c->sizes[0]) t = c->sizes[i];
        c->sizes[i] = c->sizes[i - 1];
        c->sizes[i - 1] = t;
        i--;
    }
}

void cs_cell_record(cs_cell *c, uint64_t bytes, int root, double seconds)
{
    if (c->rank_calls == 0 || seconds < c->t_min)
        c->t_min = seconds;
    if (c->rank_calls == 0 || seconds > c->t_max)
        c->t_max = seconds;
    c->rank_calls++;
    c->t_total += seconds;
    if (root >= 0)
        root_combine(&c->root_mode, &c->root, root == 0 ? CS_ROOT_ZERO : CS_ROOT_FIXED, root);
    uint32_t i;
    for (i = 0; i < c->nsizes && c->sizes[i].bytes != bytes; i++)
        ;
    if (i < c->nsizes) {
        c->sizes[i].rank_calls++;
        sizes_bubble(c, i);
    } else if (c->nsizes < CS_CELL_NSIZES) {
        c->sizes[i].bytes = bytes;
        c->sizes[i].rank_calls = 1;
        c->nsizes++;
        sizes_bubble(c, i);
    } else {
        c->other_size_calls++;
    }
}

static int size_cmp(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b; /* {bytes, rank_calls} */
    if (x[1] != y[1])
        return x[1] > y[1] ? -1 : 1;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

void cs_cell_merge(cs_cell *dst, const cs_cell *src)
{
    if (src->rank_calls > 0) {
        if (dst->rank_calls == 0 || src->t_min < dst->t_min)
            dst->t_min = src->t_min;
        if (dst->rank_calls == 0 || src->t_max > dst->t_max)
            dst->t_max = src->t_max;
    }
    dst->rank_calls = cs_count_add(dst->rank_calls, src->rank_calls);
    dst->t_total = cs_time_add(dst->t_total, src->t_total);
    root_combine(&dst->root_mode, &dst->root, src->root_mode, src->root);

    uint64_t all[2 * CS_CELL_NSIZES][2];
    uint32_t n = 0;
    for (uint32_t i = 0; i < dst->nsizes && i < CS_CELL_NSIZES; i++, n++) {
        all[n][0] = dst->sizes[i].bytes;
        all[n][1] = dst->sizes[i].rank_calls;
    }
    for (uint32_t i = 0; i < src->nsizes && i < CS_CELL_NSIZES; i++) {
        uint32_t j;
        for (j = 0; j < n && all[j][0] != src->sizes[i].bytes; j++)
            ;
        if (j == n) {
            all[n][0] = src->sizes[i].bytes;
            all[n++][1] = 0;
        }
        all[j][1] = cs_count_add(all[j][1], src->sizes[i].rank_calls);
    }
    qsort(all, n, sizeof all[0], size_cmp);
    dst->nsizes = n < CS_CELL_NSIZES ? n : CS_CELL_NSIZES;
    for (uint32_t i = 0; i < dst->nsizes; i++) {
        dst->sizes[i].bytes = all[i][0];
        dst->sizes[i].rank_calls = all[i][1];
    }
    dst->other_size_calls = cs_count_add(dst->other_size_calls, src->other_size_calls);
    for (uint32_t i = dst->nsizes; i < n; i++)
        dst->other_size_calls = cs_count_add(dst->other_size_calls, all[i][1]);
}

void cs_profile_init(cs_profile *p)
{
    memset(p, 0, sizeof *p);
}

void cs_profile_free(cs_profile *p)
{
    free(p->meta.mpi_library);
    free(p->meta.cmdline);
    free(p->meta.hostname0);
    free(p->meta.selection);
    for (size_t i = 0; i < p->nsites; i++)
        free(p->sites[i].where);
    free(p->sites);
    free(p->cells);
    free(p->partials);
    cs_arr_free(&p->arr);
    cs_xtab_free(&p->xtab);
    cs_profile_init(p);
}

int cs_cell_key_cmp(const cs_cell *a, const cs_cell *b)
{
    if (a->coll != b->coll)
        return a->coll < b->coll ? -1 : 1;
    if (a->comm_size != b->comm_size)
        return a->comm_size < b->comm_size ? -1 : 1;
    return a->bin < b->bin ? -1 : a->bin > b->bin;
}

int cs_profile_add_cell(cs_profile *p, const cs_cell *c)
{
    size_t lo = 0, hi = p->ncells; /* first cell with key >= c's */
    if (hi > 0 && cs_cell_key_cmp(&p->cells[hi - 1], c) < 0) {
        lo = hi; /* appending in order: the common case */
    } else {
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cs_cell_key_cmp(&p->cells[mid], c) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    if (lo < p->ncells && cs_cell_key_cmp(&p->cells[lo], c) == 0) {
        cs_cell_merge(&p->cells[lo], c);
        return 0;
    }
    if (cs_grow(&p->cells, p->ncells, &p->cap_cells, sizeof *p->cells, 64) < 0)
        return -1;
    memmove(&p->cells[lo + 1], &p->cells[lo], (p->ncells - lo) * sizeof *c);
    cs_cell *d = &p->cells[lo];
    memset(d, 0, sizeof *d);
    d->coll = c->coll;
    d->comm_size = c->comm_size;
    d->bin = c->bin;
    p->ncells++;
    cs_cell_merge(d, c);
    return 0;
}

int cs_profile_add_site(cs_profile *p, uint32_t coll, const char *where,
                        uint64_t rank_calls, double t_total)
{
    if (!where)
        where = "?";
    for (size_t i = 0; i < p->nsites; i++) {
        cs_site *s = &p->sites[i];
        if (s->coll == coll && strcmp(s->where, where) == 0) {
            s->rank_calls = cs_count_add(s->rank_calls, rank_calls);
            s->t_total = cs_time_add(s->t_total, t_total);
            return 0;
        }
    }
    if (cs_grow(&p->sites, p->nsites, &p->cap_sites, sizeof *p->sites, 32) < 0)
        return -1;
    char *w = strdup(where);
    if (!w)
        return -1;
    p->sites[p->nsites++] = (cs_site){coll, w, rank_calls, t_total};
    return 0;
}

static int meta_str(char **dst, const char *src)
{
    if ((*dst && **dst) || !src || !*src)
        return 0;
    char *s = strdup(src);
    if (!s)
        return -1;
    free(*dst);
    *dst = s;
    return 0;
}

/* dst's cells += src's: both sorted by key, one pass (a merge at the end
 * of a large job meets thousands of cells from every rank). */
static int merge_cells(cs_profile *dst, const cs_profile *src)
{
    size_t n = dst->ncells, m = src->ncells, i = 0, j = 0, k = 0;
    if (m == 0)
        return 0;
    cs_cell *out = malloc((n + m) * sizeof *out);
    if (!out)
        return -1;
    while (i < n || j < m) {
        int c = i == n ? 1 : j == m ? -1 : cs_cell_key_cmp(&dst->cells[i], &src->cells[j]);
        if (c < 0) {
            out[k++] = dst->cells[i++];
        } else if (c > 0) {
            cs_cell *d = &out[k++];
            memset(d, 0, sizeof *d);
            d->coll = src->cells[j].coll;
            d->comm_size = src->cells[j].comm_size;
            d->bin = src->cells[j].bin;
            cs_cell_merge(d, &src->cells[j++]);
        } else {
            out[k] = dst->cells[i++];
            cs_cell_merge(&out[k++], &src->cells[j++]);
        }
    }
    free(dst->cells);
    dst->cells = out;
    dst->ncells = k;
    dst->cap_cells = n + m;
    return 0;
}

int cs_profile_merge(cs_profile *dst, const cs_profile *src)
{
    int empty = dst->nranks == 0 && dst->ncells == 0 && dst->nsites == 0;
    cs_meta *m = &dst->meta;
    const cs_meta *s = &src->meta;
    if (meta_str(&m->mpi_library, s->mpi_library) < 0 || meta_str(&m->cmdline, s->cmdline) < 0 ||
        meta_str(&m->hostname0, s->hostname0) < 0 || meta_str(&m->selection, s->selection) < 0)
        return -1;
    if (!m->world_size)
        m->world_size = s->world_size;
    if (!m->nnodes)
        m->nnodes = s->nnodes;
    if (!m->ranks_per_node)
        m->ranks_per_node = s->ranks_per_node;
    if (!m->start_time)
        m->start_time = s->start_time;
    if (m->duration == 0)
        m->duration = s->duration;
    dst->complete = empty ? src->complete : dst->complete && src->complete;
    dst->nranks += src->nranks;
    if (src->fold > dst->fold && cs_profile_fold(dst, src->fold) < 0)
        return -1;
    dst->folded_cells += src->folded_cells;
    if (src->fold < dst->fold) { /* src's cells at dst's level */
        for (size_t i = 0; i < src->ncells; i++) {
            cs_cell c = src->cells[i];
            cs_fold_key(&c, dst->fold);
            if (cs_profile_add_cell(dst, &c) < 0)
                return -1;
        }
    } else if (merge_cells(dst, src) < 0) {
        return -1;
    }
    for (size_t i = 0; i < src->nsites; i++) {
        const cs_site *t = &src->sites[i];
        if (cs_profile_add_site(dst, t->coll, t->where, t->rank_calls, t->t_total) < 0)
            return -1;
    }
    if (cs_xtab_merge(&dst->xtab, &src->xtab) < 0)
        return -1;
    return cs_arr_merge(&dst->arr, &src->arr);
}

static int site_cmp(const void *a, const void *b)
{
    const cs_site *x = a, *y = b;
    if (x->t_total != y->t_total)
        return x->t_total > y->t_total ? -1 : 1;
    if (x->rank_calls != y->rank_calls)
        return x->rank_calls > y->rank_calls ? -1 : 1;
    if (x->coll != y->coll)
        return x->coll < y->coll ? -1 : 1;
    return strcmp(x->where, y->where);
}

static int cell_cmp(const void *a, const void *b)
{
    return cs_cell_key_cmp(a, b);
}

void cs_profile_sort(cs_profile *p)
{
    if (p->ncells)
        qsort(p->cells, p->ncells, sizeof *p->cells, cell_cmp);
    if (p->nsites)
        qsort(p->sites, p->nsites, sizeof *p->sites, site_cmp);
}

/* The sites beyond the hottest max_sites (and any earlier "other") are
 * folded into one "other" site per collective. */
void cs_profile_trim_sites(cs_profile *p, size_t max_sites)
{
    uint64_t calls[CS_R_N] = {0};
    double time[CS_R_N] = {0};
    char *reuse[CS_R_N] = {0};
    size_t kept = 0;
    if (p->nsites)
        qsort(p->sites, p->nsites, sizeof *p->sites, site_cmp);
    for (size_t i = 0; i < p->nsites; i++) {
        cs_site *s = &p->sites[i];
        if (kept < max_sites && strcmp(s->where, "other") != 0) {
            p->sites[kept++] = *s;
            continue;
        }
        uint32_t c = s->coll < CS_R_N ? s->coll : 0;
        calls[c] = cs_count_add(calls[c], s->rank_calls);
        time[c] = cs_time_add(time[c], s->t_total);
        if (!reuse[c] && strlen(s->where) >= strlen("other")) {
            reuse[c] = strcpy(s->where, "other"); /* fits: no allocation */
        } else if (!reuse[c] && (reuse[c] = strdup("other")) == NULL) {
            reuse[c] = s->where; /* out of memory: keep a name, still sum */
            continue;
        } else {
            free(s->where);
        }
    }
    for (uint32_t c = 0; c < CS_R_N; c++)
        if (reuse[c])
            p->sites[kept++] = (cs_site){c, reuse[c], calls[c], time[c]};
    p->nsites = kept;
    if (p->nsites)
        qsort(p->sites, p->nsites, sizeof *p->sites, site_cmp);
}
