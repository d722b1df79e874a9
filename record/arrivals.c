/* Arrivals: pending records matched into operations, the per-cell split of
 * time into wait and completion, spread, late ranks, call sites and the
 * sampled lateness vectors (see arrivals.h for the definitions).
 *
 * Merging is commutative: records are kept sorted by (comm, seq,
 * comm_rank) and an operation is reduced once all comm_size of its records
 * are present, whichever merge brings them together; the cells' sums add,
 * the late-rank and site tables keep their largest entries (the rest in
 * *_other), the vectors keep the CS_ARR_VECS smallest priorities
 * (priority sampling: priority = u / weight with u a hash of the
 * operation, Duffield, Lund and Thorup, J. ACM 2007).
 */
#include "profile.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cs_arr_free(cs_arr *a)
{
    for (size_t i = 0; i < a->nsites; i++)
        free(a->sites[i]);
    free(a->sites);
    free(a->recs);
    for (size_t i = 0; i < a->ncells; i++) {
        cs_arr_cell *c = &a->cells[i];
        for (uint32_t k = 0; k < c->nsites; k++)
            free(c->sites[k].where);
        free(c->prio);
        free(c->vec);
    }
    free(a->cells);
    memset(a, 0, sizeof *a);
}

/* ---- tables ------------------------------------------------------------ */

static uint32_t site_index(cs_arr *a, const char *name)
{
    if (!name)
        return UINT32_MAX;
    for (size_t i = 0; i < a->nsites; i++)
        if (strcmp(a->sites[i], name) == 0)
            return (uint32_t)i;
    if (cs_grow(&a->sites, a->nsites, &a->cap_sites, sizeof *a->sites, 16) < 0)
        return UINT32_MAX;
    char *s = strdup(name);
    if (!s)
        return UINT32_MAX;
    a->sites[a->nsites] = s;
    return (uint32_t)a->nsites++;
}

int cs_arr_add_rec(cs_arr *a, const cs_arr_rec *r, const char *site)
{
    if (cs_grow(&a->recs, a->nrecs, &a->cap_recs, sizeof *a->recs, 256) < 0)
        return -1;
    cs_arr_rec *d = &a->recs[a->nrecs++];
    *d = *r;
    d->site = site_index(a, site);
    if (!a->recorded)
        a->pairs = a->gaps = 1; /* matched here: the pair and gap sums are kept */
    a->recorded = 1;
    return 0;
}

static int key_cmp3(uint32_t c1, uint32_t s1, uint32_t b1, uint32_t c2, uint32_t s2, uint32_t b2)
{
    if (c1 != c2)
        return c1 < c2 ? -1 : 1;
    if (s1 != s2)
        return s1 < s2 ? -1 : 1;
    return b1 < b2 ? -1 : b1 > b2;
}

static int acell_cmp(const void *x, const void *y)
{
    const cs_arr_cell *a = x, *b = y;
    return key_cmp3(a->coll, a->comm_size, a->bin, b->coll, b->comm_size, b->bin);
}

static size_t cell_pos(const cs_arr *a, uint32_t coll, uint32_t size, uint32_t bin)
{
    size_t lo = 0, hi = a->ncells;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const cs_arr_cell *c = &a->cells[mid];
        if (key_cmp3(c->coll, c->comm_size, c->bin, coll, size, bin) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The cell of a key, created empty if missing (NULL: out of memory). */
static cs_arr_cell *cell_get(cs_arr *a, uint32_t coll, uint32_t size, uint32_t bin)
{
    cs_cell k = {.coll = coll, .comm_size = size, .bin = bin};
    cs_fold_key(&k, a->fold);
    size_t i = cell_pos(a, k.coll, k.comm_size, k.bin);
    if (i < a->ncells && key_cmp3(a->cells[i].coll, a->cells[i].comm_size, a->cells[i].bin,
                                  k.coll, k.comm_size, k.bin) == 0)
        return &a->cells[i];
    if (cs_grow(&a->cells, a->ncells, &a->cap_cells, sizeof *a->cells, 16) < 0)
        return NULL;
    memmove(&a->cells[i + 1], &a->cells[i], (a->ncells - i) * sizeof *a->cells);
    cs_arr_cell *c = &a->cells[i];
    memset(c, 0, sizeof *c);
    c->coll = k.coll;
    c->comm_size = k.comm_size;
    c->bin = k.bin;
    a->ncells++;
    return c;
}

/* Add w to rank's entry of the late table (largest kept, rest in other). */
static void late_add(cs_arr_cell *c, int32_t rank, double w)
{
    uint32_t i;
    for (i = 0; i < c->nlate && c->late[i].rank != rank; i++)
        ;
    if (i == c->nlate) {
        if (c->nlate < CS_ARR_NLATE) {
            c->late[c->nlate].rank = rank;
            c->late[c->nlate++].ops = 0;
        } else if (w > c->late[CS_ARR_NLATE - 1].ops) { /* replaces the smallest */
            i = CS_ARR_NLATE - 1;
            c->late_other = cs_time_add(c->late_other, c->late[i].ops);
            c->late[i].rank = rank;
            c->late[i].ops = 0;
        } else {
            c->late_other = cs_time_add(c->late_other, w);
            return;
        }
    }
    c->late[i].ops = cs_time_add(c->late[i].ops, w);
    for (; i > 0 && (c->late[i].ops > c->late[i - 1].ops ||
                     (c->late[i].ops == c->late[i - 1].ops && c->late[i].rank < c->late[i - 1].rank));
         i--) {
        __typeof__(c->late[0]) t = c->late[i];
        c->late[i] = c->late[i - 1];
        c->late[i - 1] = t;
    }
}

/* Add wait at a site (a name owned elsewhere: copied). */
static void site_add(cs_arr_cell *c, const char *where, double wait)
{
    uint32_t i;
    if (!where) {
        c->site_other_wait = cs_time_add(c->site_other_wait, wait);
        return;
    }
    for (i = 0; i < c->nsites && strcmp(c->sites[i].where, where) != 0; i++)
        ;
    if (i == c->nsites) {
        char *s = c->nsites < CS_ARR_NSITES ? strdup(where) : NULL;
        if (!s) {
            c->site_other_wait = cs_time_add(c->site_other_wait, wait);
            return;
        }
        c->sites[c->nsites].where = s;
        c->sites[c->nsites++].wait = 0;
    }
    c->sites[i].wait = cs_time_add(c->sites[i].wait, wait);
    for (; i > 0 && c->sites[i].wait > c->sites[i - 1].wait; i--) {
        __typeof__(c->sites[0]) t = c->sites[i];
        c->sites[i] = c->sites[i - 1];
        c->sites[i - 1] = t;
    }
}

/* Keep vector v (comm_size values) with priority pr if it is among the
 * CS_ARR_VECS (and CS_ARR_VEC_VALUES) smallest.  -1: out of memory. */
static uint32_t vec_cap(uint32_t comm_size)
{
    uint32_t k = comm_size ? CS_ARR_VEC_VALUES / comm_size : 0;
    return k < CS_ARR_VECS ? k : CS_ARR_VECS;
}

static int vec_add(cs_arr_cell *c, double pr, const uint32_t *v)
{
    uint32_t cap = vec_cap(c->comm_size), n = c->comm_size;
    if (cap == 0)
        return 0;
    if (!c->prio) {
        c->prio = malloc(cap * sizeof *c->prio);
        c->vec = malloc((size_t)cap * n * sizeof *c->vec);
        if (!c->prio || !c->vec) {
            free(c->prio);
            free(c->vec);
            c->prio = NULL;
            c->vec = NULL;
            return -1;
        }
    }
    uint32_t at = c->nvec;
    if (c->nvec == cap) { /* replace the largest priority, if larger */
        at = 0;
        for (uint32_t i = 1; i < c->nvec; i++)
            if (c->prio[i] > c->prio[at])
                at = i;
        if (!(pr < c->prio[at]))
            return 0;
    } else {
        c->nvec++;
    }
    c->prio[at] = pr;
    memcpy(c->vec + (size_t)at * n, v, n * sizeof *v);
    return 0;
}

/* ---- matching ------------------------------------------------------------ */

static int rec_cmp(const void *x, const void *y)
{
    const cs_arr_rec *a = x, *b = y;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return a->comm_rank < b->comm_rank ? -1 : a->comm_rank > b->comm_rank;
}

/* u in (0, 1] from (comm, seq): the operation's draw for priority sampling */
static double op_u(uint64_t comm, uint64_t seq)
{
    uint64_t z = (comm + 0x632BE59BD9B4E019ull) ^ (seq * 0xD1B54A32D192ED03ull);
    z = (z ^ (z >> 31)) * 0x9E3779B97F4A7C15ull;
    z ^= z >> 29;
    return ((double)(z >> 11) + 1.0) / 9007199254740992.0;
}

/* Reduce one complete operation g[0..n) (sorted by comm_rank, n ==
 * comm_size).  -1: out of memory. */
static int reduce_op(cs_arr *a, const cs_arr_rec *g, uint32_t n)
{
    uint32_t wexp = 0, one_node = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (g[i].wexp > wexp)
            wexp = g[i].wexp;
        one_node &= g[i].node == g[0].node;
    }
    double w = ldexp(1.0, (int)wexp);
    int local = a->clock == CS_ARR_CLOCK_NODE;
    for (uint32_t i = 0; i < n; i++) {
        int64_t last = g[i].entry;
        for (uint32_t j = 0; j < n; j++)
            if ((!local || g[j].node == g[i].node) && g[j].entry > last)
                last = g[j].entry;
        int64_t left = g[i].exit < last ? g[i].exit : last;
        double wait = 1e-9 * (double)(left - g[i].entry);
        double compl = g[i].exit > last ? 1e-9 * (double)(g[i].exit - last) : 0;
        cs_arr_cell *c = cell_get(a, g[i].coll, g[i].comm_size, g[i].bin);
        if (!c)
            return -1;
        c->entries = cs_count_add(c->entries, 1);
        c->n = cs_time_add(c->n, w);
        c->wait = cs_time_add(c->wait, w * wait);
        c->compl = cs_time_add(c->compl, w * compl);
        site_add(c, g[i].site < a->nsites ? a->sites[g[i].site] : NULL, w * wait);
    }
    if ((local && !one_node) || n < 2)
        return 0; /* arrivals across nodes cannot be compared; one rank: no arrival pattern */
    uint32_t lastr = 0, firstr = 0;
    for (uint32_t i = 1; i < n; i++) {
        if (g[i].entry > g[lastr].entry)
            lastr = i;
        if (g[i].entry < g[firstr].entry)
            firstr = i;
    }
    int64_t spread = g[lastr].entry - g[firstr].entry;
    cs_arr_cell *c = cell_get(a, g[0].coll, g[0].comm_size, g[0].bin);
    if (!c)
        return -1;
    c->nops = cs_count_add(c->nops, 1);
    c->ops = cs_time_add(c->ops, w);
    c->spread = cs_time_add(c->spread, w * 1e-9 * (double)spread);
    c->spread_hist[cs_bin_of((uint64_t)spread)] =
        cs_time_add(c->spread_hist[cs_bin_of((uint64_t)spread)], w);
    late_add(c, (int32_t)g[lastr].world_rank, w);
    if (c->comm_size != n) /* folded across communicator sizes: no vectors */
        return 0;
    uint32_t *v = malloc(n * sizeof *v);
    if (!v)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t d = (uint64_t)(g[i].entry - g[firstr].entry);
        v[i] = d > CS_ARR_LATE_MAX ? CS_ARR_LATE_MAX : (uint32_t)d;
    }
    int rc = vec_add(c, op_u(g[0].comm, g[0].seq) / w, v);
    free(v);
    return rc;
}

/* A sum that may be negative (the wait a call's exits caused, or saved),
 * kept within +-CS_TIME_MAX like every time (merging a profile with itself
 * must not make it unreadable). */
static double signed_add(double a, double b)
{
    double s = a + b;
    return s > CS_TIME_MAX ? CS_TIME_MAX : s < -CS_TIME_MAX ? -CS_TIME_MAX : s;
}

/* The operation reduced just before, kept for pairing with the next one on
 * its communicator (its records may be overwritten in place meanwhile). */
typedef struct prev_op {
    int valid;
    uint64_t comm, seq;
    uint32_t n, coll, comm_size, bin, one_node, wexp;
    int64_t *exit; /* n, by communicator rank */
    size_t cap;
} prev_op;

/* Pair the complete operation g[0..n) with its predecessor p (the same
 * communicator, call number - 1): its wait had p released every rank at
 * p's last exit (see cs_arr_cell).  -1: out of memory. */
static int pair_op(cs_arr *a, const prev_op *p, const cs_arr_rec *g, uint32_t n)
{
    uint32_t we = 0, wp = p->wexp;
    for (uint32_t i = 0; i < n; i++)
        we = g[i].wexp > we ? g[i].wexp : we;
    /* the pair's weight: 1 / the chance both were kept (cs_arr_level) */
    double w = ldexp(1.0, (int)(we > wp ? we : wp) + (we && wp));
    int64_t x = p->exit[0], last = g[0].entry, last2 = INT64_MIN;
    for (uint32_t i = 1; i < n; i++) {
        if (p->exit[i] > x)
            x = p->exit[i];
        if (g[i].entry > last)
            last = g[i].entry;
    }
    for (uint32_t i = 0; i < n; i++) {
        int64_t a2 = g[i].entry + (x - p->exit[i]);
        if (a2 > last2)
            last2 = a2;
    }
    double caused = 0, lag = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t shift = x - p->exit[i], a2 = g[i].entry + shift;
        int64_t left = g[i].exit < last ? g[i].exit : last;
        /* a rank that left before the last arrival leaves as long after its
         * own arrival; the others as long after the last arrival */
        int64_t x2 = g[i].exit < last ? a2 + (g[i].exit - g[i].entry) : g[i].exit + (last2 - last);
        int64_t left2 = x2 < last2 ? x2 : last2;
        double wt = 1e-9 * (double)(left - g[i].entry), wt2 = 1e-9 * (double)(left2 - a2);
        cs_arr_cell *c = cell_get(a, g[i].coll, g[i].comm_size, g[i].bin);
        if (!c)
            return -1;
        c->pwait = cs_time_add(c->pwait, w * wt);
        c->swait = cs_time_add(c->swait, w * wt2);
        if (g[i].entry > p->exit[i]) /* clocks of one node: never earlier */
            c->gap = cs_time_add(c->gap, w * 1e-9 * (double)(g[i].entry - p->exit[i]));
        c->ngap = cs_time_add(c->ngap, w);
        caused += w * (wt - wt2);
        lag += w * 1e-9 * (double)shift;
    }
    cs_arr_cell *c = cell_get(a, g[0].coll, g[0].comm_size, g[0].bin);
    cs_arr_cell *q = cell_get(a, p->coll, p->comm_size, p->bin);
    if (!c || !q)
        return -1;
    c->npair = cs_time_add(c->npair, w);
    q->nprev = cs_time_add(q->nprev, w);
    q->induced = signed_add(q->induced, caused);
    q->lag = cs_time_add(q->lag, lag);
    return 0;
}

/* Remember g[0..n) (all on one node: one_node) as the predecessor of the
 * next operation. */
static int keep_prev(prev_op *p, const cs_arr_rec *g, uint32_t n, int one_node)
{
    if (n > p->cap) {
        int64_t *e = realloc(p->exit, n * sizeof *e);
        if (!e)
            return -1;
        p->exit = e;
        p->cap = n;
    }
    p->valid = 1;
    p->comm = g[0].comm;
    p->seq = g[0].seq;
    p->n = n;
    p->coll = g[0].coll;
    p->comm_size = g[0].comm_size;
    p->bin = g[0].bin;
    p->one_node = (uint32_t)one_node;
    p->wexp = 0;
    for (uint32_t i = 0; i < n; i++) {
        p->exit[i] = g[i].exit;
        p->wexp = g[i].wexp > p->wexp ? g[i].wexp : p->wexp;
    }
    return 0;
}

int cs_arr_match(cs_arr *a)
{
    if (a->nrecs == 0)
        return 0;
    qsort(a->recs, a->nrecs, sizeof *a->recs, rec_cmp);
    size_t k = 0, i = 0;
    int rc = 0;
    prev_op prev = {0};
    while (i < a->nrecs) {
        size_t j = i + 1, ndup = 0;
        while (j < a->nrecs && a->recs[j].comm == a->recs[i].comm &&
               a->recs[j].seq == a->recs[i].seq)
            j++;
        /* the same rank's record twice (a file merged twice): keep one */
        size_t m = i + 1;
        for (size_t t = i + 1; t < j; t++) {
            if (a->recs[t].comm_rank == a->recs[m - 1].comm_rank) {
                ndup++;
                continue;
            }
            a->recs[m++] = a->recs[t];
        }
        size_t n = m - i;
        int ok = n == a->recs[i].comm_size && a->recs[m - 1].comm_rank == n - 1;
        if (ok && rc == 0) {
            const cs_arr_rec *g = &a->recs[i];
            int one_node = 1;
            for (size_t t = 0; t < n; t++)
                one_node &= g[t].node == g[0].node;
            /* across nodes only on comparable clocks */
            int comparable = a->clock != CS_ARR_CLOCK_NODE || (one_node && prev.one_node);
            if (reduce_op(a, g, (uint32_t)n) < 0 ||
                (prev.valid && prev.comm == g[0].comm && prev.seq + 1 == g[0].seq &&
                 prev.n == n && n > 1 && comparable && pair_op(a, &prev, g, (uint32_t)n) < 0) ||
                keep_prev(&prev, g, (uint32_t)n, one_node) < 0)
                rc = -1;
        } else {
            prev.valid = 0;
            memmove(&a->recs[k], &a->recs[i], n * sizeof *a->recs);
            k += n;
        }
        a->unmatched += ndup;
        i = j;
    }
    free(prev.exit);
    a->nrecs = k;
    a->matched_at = k;
    return rc;
}

int cs_arr_finish(cs_arr *a)
{
    int rc = cs_arr_match(a);
    a->unmatched += a->nrecs;
    a->nrecs = 0;
    for (size_t i = 0; i < a->nsites; i++)
        free(a->sites[i]);
    a->nsites = 0;
    return rc;
}

/* ---- merging ------------------------------------------------------------- */

/* dst += src for cells of one key. */
static int cell_merge(cs_arr_cell *d, const cs_arr_cell *s)
{
    d->entries = cs_count_add(d->entries, s->entries);
    d->n = cs_time_add(d->n, s->n);
    d->wait = cs_time_add(d->wait, s->wait);
    d->compl = cs_time_add(d->compl, s->compl);
    d->nops = cs_count_add(d->nops, s->nops);
    d->ops = cs_time_add(d->ops, s->ops);
    d->spread = cs_time_add(d->spread, s->spread);
    for (int b = 0; b < CS_NBINS; b++)
        d->spread_hist[b] = cs_time_add(d->spread_hist[b], s->spread_hist[b]);
    for (uint32_t i = 0; i < s->nlate; i++)
        late_add(d, s->late[i].rank, s->late[i].ops);
    d->late_other = cs_time_add(d->late_other, s->late_other);
    for (uint32_t i = 0; i < s->nsites; i++)
        site_add(d, s->sites[i].where, s->sites[i].wait);
    d->site_other_wait = cs_time_add(d->site_other_wait, s->site_other_wait);
    d->npair = cs_time_add(d->npair, s->npair);
    d->pwait = cs_time_add(d->pwait, s->pwait);
    d->swait = cs_time_add(d->swait, s->swait);
    d->nprev = cs_time_add(d->nprev, s->nprev);
    d->induced = signed_add(d->induced, s->induced);
    d->lag = cs_time_add(d->lag, s->lag);
    d->gap = cs_time_add(d->gap, s->gap);
    d->ngap = cs_time_add(d->ngap, s->ngap);
    if (d->comm_size != s->comm_size)
        return 0;
    for (uint32_t i = 0; i < s->nvec; i++)
        if (vec_add(d, s->prio[i], cs_arr_vec(s, i)) < 0)
            return -1;
    return 0;
}

int cs_arr_merge(cs_arr *dst, const cs_arr *src)
{
    if (!src->recorded)
        return 0;
    if (!dst->recorded) {
        dst->recorded = 1;
        dst->clock = src->clock;
        dst->pairs = src->pairs;
        dst->gaps = src->gaps;
    } else {
        if (src->clock == CS_ARR_CLOCK_NODE)
            dst->clock = CS_ARR_CLOCK_NODE;
        dst->pairs &= src->pairs;
        dst->gaps &= src->gaps;
    }
    if (src->clock_err > dst->clock_err)
        dst->clock_err = src->clock_err;
    if (src->level > dst->level)
        dst->level = src->level;
    dst->dropped += src->dropped;
    dst->untracked += src->untracked;
    dst->unmatched += src->unmatched;
    dst->vec_dropped += src->vec_dropped;
    for (size_t i = 0; i < src->nrecs; i++) {
        const cs_arr_rec *r = &src->recs[i];
        if (cs_arr_add_rec(dst, r, r->site < src->nsites ? src->sites[r->site] : NULL) < 0)
            return -1;
    }
    for (size_t i = 0; i < src->ncells; i++) {
        const cs_arr_cell *s = &src->cells[i];
        cs_arr_cell *d = cell_get(dst, s->coll, s->comm_size, s->bin);
        if (!d || cell_merge(d, s) < 0)
            return -1;
    }
    return dst->nrecs >= 2 * dst->matched_at + 4096 ? cs_arr_match(dst) : 0;
}

/* ---- folding and bounds ------------------------------------------------------ */

static void drop_vecs(cs_arr *a, cs_arr_cell *c, uint32_t keep)
{
    if (c->nvec <= keep)
        return;
    a->vec_dropped += c->nvec - keep;
    while (c->nvec > keep) { /* remove the largest priority */
        uint32_t at = 0;
        for (uint32_t i = 1; i < c->nvec; i++)
            if (c->prio[i] > c->prio[at])
                at = i;
        c->nvec--;
        c->prio[at] = c->prio[c->nvec];
        memmove(c->vec + (size_t)at * c->comm_size, c->vec + (size_t)c->nvec * c->comm_size,
                c->comm_size * sizeof *c->vec);
    }
}

int cs_arr_fold(cs_arr *a, uint32_t level)
{
    if (level <= a->fold)
        return 0;
    a->fold = level;
    size_t n = a->ncells;
    cs_arr_cell *old = a->cells;
    a->cells = NULL;
    a->ncells = a->cap_cells = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        cs_arr_cell *s = &old[i];
        cs_cell k = {.coll = s->coll, .comm_size = s->comm_size, .bin = s->bin};
        cs_fold_key(&k, level);
        if (k.comm_size != s->comm_size)
            drop_vecs(a, s, 0);
        cs_arr_cell *d = rc == 0 ? cell_get(a, s->coll, s->comm_size, s->bin) : NULL;
        if (!d || cell_merge(d, s) < 0)
            rc = -1;
        for (uint32_t k2 = 0; k2 < s->nsites; k2++)
            free(s->sites[k2].where);
        free(s->prio);
        free(s->vec);
    }
    free(old);
    return rc;
}

int cs_arr_shrink(cs_arr *a)
{
    uint32_t most = 0;
    for (size_t i = 0; i < a->ncells; i++)
        if (a->cells[i].nvec > most)
            most = a->cells[i].nvec;
    if (most > 0) { /* halved; the last one of each cell goes too */
        for (size_t i = 0; i < a->ncells; i++)
            drop_vecs(a, &a->cells[i], most / 2);
        return 0;
    }
    uint32_t lv = 0;
    for (size_t i = 0; i < a->nrecs; i++)
        if (a->recs[i].wexp > lv)
            lv = a->recs[i].wexp;
    if (a->nrecs == 0)
        return 1;
    if (lv >= 63) { /* every record at the last level: they all go */
        a->dropped += a->nrecs;
        a->nrecs = 0;
        return 0;
    }
    lv = lv < CS_ARR_LEVEL0 ? CS_ARR_LEVEL0 + 1 : lv + 1;
    size_t k = 0;
    for (size_t i = 0; i < a->nrecs; i++) {
        cs_arr_rec *r = &a->recs[i];
        if (r->wexp == 0 || cs_arr_level(r->comm, r->seq) >= lv) {
            if (r->wexp)
                r->wexp = lv;
            a->recs[k++] = *r;
        } else {
            a->dropped++;
        }
    }
    if (k == a->nrecs) { /* only first calls left: they go too */
        a->dropped += k;
        k = 0;
    }
    a->nrecs = k;
    if (lv > a->level)
        a->level = lv;
    return 0;
}

/* ---- reader API ------------------------------------------------------------- */

int cs_arr_recorded(const cs_profile *p)
{
    return p->arr.recorded != 0;
}

const cs_arr_cell *cs_arr_find(const cs_profile *p, uint32_t coll, uint32_t comm_size,
                               uint32_t bin)
{
    const cs_arr *a = &p->arr;
    size_t i = cell_pos(a, coll, comm_size, bin);
    if (!a->recorded || i >= a->ncells)
        return NULL;
    const cs_arr_cell *c = &a->cells[i];
    if (key_cmp3(c->coll, c->comm_size, c->bin, coll, comm_size, bin) != 0 || c->entries == 0)
        return NULL;
    return c;
}

int cs_arr_split(const cs_profile *p, const cs_cell *c, double *wait_s, double *compl_s)
{
    const cs_arr_cell *a = cs_arr_find(p, c->coll, c->comm_size, c->bin);
    *wait_s = *compl_s = 0;
    if (!a)
        return -1;
    double d = a->wait + a->compl;
    double share = d > 0 ? a->wait / d : 0;
    *wait_s = c->t_total * share;
    *compl_s = c->t_total - *wait_s;
    return 0;
}

int cs_arr_induced(const cs_profile *p, const cs_cell *c, double *caused_s, double *causes_s,
                   double *lag_s)
{
    const cs_arr_cell *a = cs_arr_find(p, c->coll, c->comm_size, c->bin);
    double w, k, dummy;
    if (!lag_s)
        lag_s = &dummy;
    *caused_s = *causes_s = *lag_s = 0;
    if (!p->arr.pairs || !a || (a->npair == 0 && a->nprev == 0) || cs_arr_split(p, c, &w, &k) < 0)
        return -1;
    /* per operation of the pairs, as a share of the cell's measured time
     * per operation (the cell's recorded time then scales it): the same
     * pairs give both sides, so what the predecessors cause is what their
     * successors show, whatever rare long waits elsewhere in the cell */
    double per_op = a->ops > 0 ? (a->wait + a->compl) / a->ops : 0; /* measured, per operation */
    if (a->npair > 0 && per_op > 0) {
        double x = c->t_total * ((a->pwait - a->swait) / a->npair) / per_op;
        *caused_s = x < -w ? -w : x > w ? w : x;
    }
    if (a->nprev > 0 && per_op > 0) {
        *causes_s = c->t_total * (a->induced / a->nprev) / per_op;
        *lag_s = c->t_total * (a->lag / a->nprev) / per_op;
    }
    return 0;
}

double cs_arr_gap(const cs_profile *p, const cs_arr_cell *a)
{
    return p->arr.gaps && a && a->ngap > 0 ? a->gap / a->ngap : -1;
}

double cs_arr_spread_q(const cs_arr_cell *a, double q)
{
    double total = 0, at = 0;
    for (int b = 0; b < CS_NBINS; b++)
        total += a->spread_hist[b];
    if (total <= 0)
        return -1;
    for (int b = 0; b < CS_NBINS; b++) {
        double h = a->spread_hist[b];
        if (h > 0 && at + h >= q * total) { /* linear within the bin */
            if (b == 0)
                return 0;
            double lo = (double)cs_bin_lo(b), hi = (double)cs_bin_hi(b) + 1;
            double f = (q * total - at) / h;
            return 1e-9 * (lo + (hi - lo) * (f < 0 ? 0 : f > 1 ? 1 : f));
        }
        at += h;
    }
    return 1e-9 * (double)cs_bin_hi(CS_NBINS - 1);
}

/* ---- serialisation ---------------------------------------------------------- */

void cs_arr_serialize(const cs_arr *a, cs_buf *out)
{
    cs_buf_u32(out, a->recorded);
    if (!a->recorded)
        return;
    cs_buf_u32(out, a->clock);
    cs_buf_f64(out, a->clock_err);
    cs_buf_u32(out, a->level);
    cs_buf_u64(out, a->dropped);
    cs_buf_u64(out, a->untracked);
    cs_buf_u64(out, a->unmatched);
    cs_buf_u64(out, a->vec_dropped);
    cs_buf_u64(out, a->nsites);
    for (size_t i = 0; i < a->nsites; i++)
        cs_buf_str(out, a->sites[i]);
    cs_buf_u64(out, a->nrecs);
    for (size_t i = 0; i < a->nrecs; i++) {
        const cs_arr_rec *r = &a->recs[i];
        cs_buf_u64(out, r->comm);
        cs_buf_u64(out, r->seq);
        cs_buf_u64(out, (uint64_t)r->entry);
        cs_buf_u64(out, (uint64_t)r->exit);
        uint32_t v[8] = {r->comm_size, r->comm_rank, r->world_rank, r->node,
                         r->coll, r->bin, r->site, r->wexp};
        for (int k = 0; k < 8; k++)
            cs_buf_u32(out, v[k]);
    }
    cs_buf_u64(out, a->ncells);
    for (size_t i = 0; i < a->ncells; i++) {
        const cs_arr_cell *c = &a->cells[i];
        cs_buf_u32(out, c->coll);
        cs_buf_u32(out, c->comm_size);
        cs_buf_u32(out, c->bin);
        cs_buf_u64(out, c->entries);
        cs_buf_f64(out, c->n);
        cs_buf_f64(out, c->wait);
        cs_buf_f64(out, c->compl);
        cs_buf_u64(out, c->nops);
        cs_buf_f64(out, c->ops);
        cs_buf_f64(out, c->spread);
        uint32_t nh = 0;
        for (int b = 0; b < CS_NBINS; b++)
            nh += c->spread_hist[b] != 0;
        cs_buf_u32(out, nh);
        for (int b = 0; b < CS_NBINS; b++)
            if (c->spread_hist[b] != 0) {
                cs_buf_u32(out, (uint32_t)b);
                cs_buf_f64(out, c->spread_hist[b]);
            }
        cs_buf_u32(out, c->nlate);
        for (uint32_t k = 0; k < c->nlate; k++) {
            cs_buf_u32(out, (uint32_t)c->late[k].rank);
            cs_buf_f64(out, c->late[k].ops);
        }
        cs_buf_f64(out, c->late_other);
        cs_buf_u32(out, c->nsites);
        for (uint32_t k = 0; k < c->nsites; k++) {
            cs_buf_str(out, c->sites[k].where);
            cs_buf_f64(out, c->sites[k].wait);
        }
        cs_buf_f64(out, c->site_other_wait);
        cs_buf_u32(out, c->nvec);
        for (uint32_t k = 0; k < c->nvec; k++)
            cs_buf_f64(out, c->prio[k]);
        for (size_t k = 0; k < (size_t)c->nvec * c->comm_size; k++)
            cs_buf_u32(out, c->vec[k]);
        cs_buf_f64(out, c->npair);
        cs_buf_f64(out, c->pwait);
        cs_buf_f64(out, c->swait);
        cs_buf_f64(out, c->nprev);
        cs_buf_f64(out, c->induced);
        cs_buf_f64(out, c->lag);
        cs_buf_f64(out, c->gap);
        cs_buf_f64(out, c->ngap);
    }
}

#define OKT(t) ((t) >= 0 && (t) <= CS_TIME_MAX) /* false for NaN */
#define CS_ARR_NS_MAX ((int64_t)1 << 62)        /* times differ by less than 2^63 */
#define REC_BYTES (4 * 8 + 8 * 4)
#define ACELL_MIN_BYTES (3 * 4 + 8 + 3 * 8 + 8 + 2 * 8 + 4 + 4 + 8 + 4 + 8 + 4)

static int rd_cell(cs_rd *r, cs_arr_cell *c, uint32_t version, cs_err *e)
{
    uint32_t nh, b;
    cs_rd_u32(r, &c->coll);
    cs_rd_u32(r, &c->comm_size);
    cs_rd_u32(r, &c->bin);
    cs_rd_u64(r, &c->entries);
    cs_rd_f64(r, &c->n);
    cs_rd_f64(r, &c->wait);
    cs_rd_f64(r, &c->compl);
    cs_rd_u64(r, &c->nops);
    cs_rd_f64(r, &c->ops);
    cs_rd_f64(r, &c->spread);
    if (cs_rd_u32(r, &nh) < 0 || nh > CS_NBINS)
        return cs_fail(e, "arrival cell cut short or with %u spread bins", nh);
    if (c->coll >= CS_R_N || c->comm_size == 0 || c->bin >= CS_NBINS)
        return cs_fail(e, "arrival cell has collective %u, communicator size %u, bin %u",
                       c->coll, c->comm_size, c->bin);
    if (!OKT(c->n) || !OKT(c->wait) || !OKT(c->compl) || !OKT(c->ops) || !OKT(c->spread) ||
        c->entries > CS_COUNT_MAX || c->nops > CS_COUNT_MAX)
        return cs_fail(e, "arrival cell has a negative, absurd or not-a-number sum");
    for (uint32_t k = 0, prev = 0; k < nh; k++) {
        double w;
        cs_rd_u32(r, &b);
        cs_rd_f64(r, &w);
        if (r->bad || b >= CS_NBINS || (k && b <= prev) || !OKT(w) || w == 0)
            return cs_fail(e, "arrival cell has a bad spread bin");
        c->spread_hist[b] = w;
        prev = b;
    }
    if (cs_rd_u32(r, &c->nlate) < 0 || c->nlate > CS_ARR_NLATE)
        return cs_fail(e, "arrival cell has %u late ranks (at most %d)", c->nlate, CS_ARR_NLATE);
    for (uint32_t k = 0; k < c->nlate; k++) {
        uint32_t rk;
        cs_rd_u32(r, &rk);
        cs_rd_f64(r, &c->late[k].ops);
        c->late[k].rank = (int32_t)rk;
        if (!OKT(c->late[k].ops))
            return cs_fail(e, "arrival cell has a bad late-rank count");
    }
    cs_rd_f64(r, &c->late_other);
    uint32_t ns = 0;
    if (cs_rd_u32(r, &ns) < 0 || ns > CS_ARR_NSITES)
        return cs_fail(e, "arrival cell has %u call sites (at most %d)", ns, CS_ARR_NSITES);
    for (uint32_t k = 0; k < ns; k++) {
        if (cs_rd_str(r, &c->sites[k].where) < 0)
            return cs_fail(e, "arrival cell's call site cut short");
        c->nsites++;
        cs_rd_f64(r, &c->sites[k].wait);
        if (!OKT(c->sites[k].wait))
            return cs_fail(e, "arrival cell has a bad call-site wait");
    }
    cs_rd_f64(r, &c->site_other_wait);
    uint32_t nv = 0;
    if (cs_rd_u32(r, &nv) < 0 || nv > vec_cap(c->comm_size))
        return cs_fail(e, "arrival cell has %u lateness vectors of %u (at most %u)", nv,
                       c->comm_size, vec_cap(c->comm_size));
    if (!OKT(c->late_other) || !OKT(c->site_other_wait))
        return cs_fail(e, "arrival cell has a bad sum");
    if ((size_t)nv * (8 + 4 * (size_t)c->comm_size) > r->n - r->off)
        return cs_fail(e, "arrival cell's vectors cut short");
    if (nv) {
        c->prio = malloc(vec_cap(c->comm_size) * sizeof *c->prio);
        c->vec = malloc((size_t)vec_cap(c->comm_size) * c->comm_size * sizeof *c->vec);
        if (!c->prio || !c->vec)
            return cs_fail(e, "out of memory reading lateness vectors");
        for (uint32_t k = 0; k < nv; k++) {
            cs_rd_f64(r, &c->prio[k]);
            if (!(c->prio[k] >= 0) || !isfinite(c->prio[k]))
                return cs_fail(e, "arrival cell has a bad vector priority");
        }
        c->nvec = nv;
        for (size_t k = 0; k < (size_t)nv * c->comm_size; k++)
            cs_rd_u32(r, &c->vec[k]);
    }
    if (version >= 4) {
        cs_rd_f64(r, &c->npair);
        cs_rd_f64(r, &c->pwait);
        cs_rd_f64(r, &c->swait);
        cs_rd_f64(r, &c->nprev);
        cs_rd_f64(r, &c->induced);
        cs_rd_f64(r, &c->lag);
        if (!r->bad && (!OKT(c->npair) || !OKT(c->nprev) || !OKT(c->pwait) ||
                        !OKT(c->swait) || !OKT(c->lag) || !(fabs(c->induced) <= CS_TIME_MAX)))
            return cs_fail(e, "arrival cell has a bad pair sum");
    }
    if (version >= 5) {
        cs_rd_f64(r, &c->gap);
        cs_rd_f64(r, &c->ngap);
        if (!r->bad && (!OKT(c->gap) || !OKT(c->ngap)))
            return cs_fail(e, "arrival cell has a bad gap sum");
    }
    return r->bad ? cs_fail(e, "arrival cell cut short") : 0;
}

int cs_arr_deserialize(cs_arr *a, cs_rd *r, uint32_t version, cs_err *e)
{
    uint64_t n;
    memset(a, 0, sizeof *a);
    if (cs_rd_u32(r, &a->recorded) < 0)
        return cs_fail(e, "arrival data cut short");
    if (a->recorded > 1)
        return cs_fail(e, "arrival flag %u (0 or 1)", a->recorded);
    if (!a->recorded)
        return 0;
    a->pairs = version >= 4;
    a->gaps = version >= 5;
    cs_rd_u32(r, &a->clock);
    cs_rd_f64(r, &a->clock_err);
    cs_rd_u32(r, &a->level);
    cs_rd_u64(r, &a->dropped);
    cs_rd_u64(r, &a->untracked);
    cs_rd_u64(r, &a->unmatched);
    cs_rd_u64(r, &a->vec_dropped);
    if (cs_rd_u64(r, &n) < 0 || n > (r->n - r->off) / 4)
        return cs_fail(e, "arrival data cut short, or absurd site count");
    if (a->clock > CS_ARR_CLOCK_NODE || !OKT(a->clock_err) || a->level > 64)
        return cs_fail(e, "arrival clock mode %u, error %g or level %u out of range", a->clock,
                       a->clock_err, a->level);
    a->sites = n ? calloc(n, sizeof *a->sites) : NULL;
    if (n && !a->sites)
        return cs_fail(e, "out of memory reading %llu arrival sites", (unsigned long long)n);
    a->cap_sites = n;
    for (uint64_t i = 0; i < n; i++) {
        if (cs_rd_str(r, &a->sites[i]) < 0)
            return cs_fail(e, "arrival site %llu cut short", (unsigned long long)i);
        a->nsites++;
    }
    if (cs_rd_u64(r, &n) < 0 || n > (r->n - r->off) / REC_BYTES)
        return cs_fail(e, "absurd arrival record count %llu", (unsigned long long)n);
    a->recs = n ? malloc(n * sizeof *a->recs) : NULL;
    if (n && !a->recs)
        return cs_fail(e, "out of memory reading %llu arrival records", (unsigned long long)n);
    a->cap_recs = n;
    for (uint64_t i = 0; i < n; i++) {
        cs_arr_rec *x = &a->recs[i];
        uint64_t en, ex;
        cs_rd_u64(r, &x->comm);
        cs_rd_u64(r, &x->seq);
        cs_rd_u64(r, &en);
        cs_rd_u64(r, &ex);
        uint32_t *v[8] = {&x->comm_size, &x->comm_rank, &x->world_rank, &x->node,
                          &x->coll, &x->bin, &x->site, &x->wexp};
        for (int k = 0; k < 8; k++)
            cs_rd_u32(r, v[k]);
        x->entry = (int64_t)en;
        x->exit = (int64_t)ex;
        if (r->bad)
            return cs_fail(e, "arrival record %llu cut short", (unsigned long long)i);
        if (x->comm_size == 0 || x->comm_rank >= x->comm_size || x->coll >= CS_R_N ||
            x->bin >= CS_NBINS || (x->site != UINT32_MAX && x->site >= a->nsites) ||
            x->wexp > 63 || x->exit < x->entry || x->entry < -CS_ARR_NS_MAX ||
            x->exit > CS_ARR_NS_MAX)
            return cs_fail(e, "arrival record %llu is out of range", (unsigned long long)i);
        a->nrecs++;
    }
    if (cs_rd_u64(r, &n) < 0 || n > (r->n - r->off) / ACELL_MIN_BYTES)
        return cs_fail(e, "absurd arrival cell count %llu", (unsigned long long)n);
    a->cells = n ? calloc(n, sizeof *a->cells) : NULL;
    if (n && !a->cells)
        return cs_fail(e, "out of memory reading %llu arrival cells", (unsigned long long)n);
    a->cap_cells = n;
    for (uint64_t i = 0; i < n; i++) {
        cs_arr_cell *c = &a->cells[i];
        a->ncells++; /* owned from here on: freed with the rest */
        if (rd_cell(r, c, version, e) < 0)
            return -1;
        if (i > 0 && acell_cmp(&a->cells[i - 1], c) >= 0)
            return cs_fail(e, "arrival cell %llu is out of order or repeated",
                           (unsigned long long)i);
    }
    return 0;
}
