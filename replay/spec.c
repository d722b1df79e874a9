/* Parsing of sizes and grid specifications: see spec.h. */
#include "spec.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VALUES 4096            /* per axis */
#define MAX_MSG ((uint64_t)1 << 30) /* 1 GiB: the replay allocates buffers */
#define MAX_CS 1048576u

int cs_parse_seconds(const char *s, double max, double *out, cs_err *e)
{
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || !isfinite(v))
        return cs_fail(e, "'%s' is not a duration (e.g. 90, 90s, 5m, 1h)", s ? s : "");
    if (!strcmp(end, "m") || !strcmp(end, "min"))
        v *= 60;
    else if (!strcmp(end, "h"))
        v *= 3600;
    else if (strcmp(end, "") && strcmp(end, "s"))
        return cs_fail(e, "'%s' is not a duration (e.g. 90, 90s, 5m, 1h)", s);
    if (!(v > 0 && v <= max))
        return cs_fail(e, "'%s': need a duration in (0, %g] seconds", s, max);
    *out = v;
    return 0;
}

int cs_parse_size(const char *s, uint64_t *v, cs_err *e)
{
    char *end;
    if (!s || !isdigit((unsigned char)*s))
        return cs_fail(e, "'%s' is not a size (accepted: N, Nk, NM, NG, e.g. 64k)", s ? s : "");
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (errno || *end || x > (UINT64_MAX >> shift))
        return cs_fail(e, "'%s' is not a size (accepted: N, Nk, NM, NG, e.g. 64k)", s);
    *v = (uint64_t)x << shift;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int sort_unique(uint64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i])
            v[m++] = v[i];
    return m;
}

/* Values of one axis.  items: the clause's comma-separated tokens. */
typedef struct axis {
    uint64_t v[MAX_VALUES];
    int n, set;
} axis;

static int axis_add(axis *a, uint64_t x, const char *what, cs_err *e)
{
    if (a->n >= MAX_VALUES)
        return cs_fail(e, "grid: more than %d values for %s", MAX_VALUES, what);
    a->v[a->n++] = x;
    return 0;
}

/* "LO:HI[:+N|:xN]" or a single value. */
static int axis_token(axis *a, char *tok, int is_cs, cs_err *e)
{
    const char *what = is_cs ? "cs" : "ms";
    uint64_t lo, hi, step = is_cs ? 1 : 2;
    int geometric = !is_cs;
    char *c1 = strchr(tok, ':');
    if (!c1) {
        if (cs_parse_size(tok, &lo, e) < 0)
            return cs_fail(e, "grid: %s value '%s' is not a number", what, tok);
        return axis_add(a, lo, what, e);
    }
    *c1 = 0;
    char *c2 = strchr(c1 + 1, ':');
    if (c2)
        *c2 = 0;
    if (cs_parse_size(tok, &lo, e) < 0 || cs_parse_size(c1 + 1, &hi, e) < 0)
        return cs_fail(e, "grid: %s range '%s:%s' needs LO:HI[:+N|:xN] with numbers", what,
                       tok, c1 + 1);
    if (c2) {
        char *s = c2 + 1;
        if ((*s != '+' && *s != 'x') || cs_parse_size(s + 1, &step, e) < 0)
            return cs_fail(e, "grid: %s step '%s' must be +N (arithmetic) or xN (geometric)",
                           what, s);
        geometric = *s == 'x';
    }
    if (lo > hi || (geometric && (step < 2 || lo == 0)) || step == 0)
        return cs_fail(e, "grid: %s range %llu:%llu with step %s%llu is empty or endless", what,
                       (unsigned long long)lo, (unsigned long long)hi, geometric ? "x" : "+",
                       (unsigned long long)step);
    for (uint64_t x = lo; x <= hi;) {
        if (axis_add(a, x, what, e) < 0)
            return -1;
        uint64_t nx = geometric ? x * step : x + step;
        if (nx <= x || (geometric && nx / step != x))
            break; /* overflow */
        x = nx;
    }
    return 0;
}

int cs_replay_grid_parse(const char *spec, uint32_t world_size, cs_replay_grid *g, cs_err *e)
{
    memset(g, 0, sizeof *g);
    axis *ax = calloc(2, sizeof *ax); /* [0] cs, [1] ms */
    char *s = strdup(spec ? spec : "");
    int cur = -1, rc = -1;
    if (!ax || !s) {
        cs_fail(e, "grid: out of memory");
        goto out;
    }
    for (char *save = NULL, *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (eq) {
            *eq = 0;
            cur = !strcmp(tok, "cs") ? 0 : !strcmp(tok, "ms") ? 1 : -1;
            if (cur < 0) {
                cs_fail(e, "grid: unknown clause '%s' (accepted: cs=..., ms=...)", tok);
                goto out;
            }
            if (ax[cur].set) {
                cs_fail(e, "grid: clause '%s' given twice", tok);
                goto out;
            }
            ax[cur].set = 1;
            tok = eq + 1;
        } else if (cur < 0) {
            cs_fail(e, "grid: '%s' must start with cs= or ms=", tok);
            goto out;
        }
        if (axis_token(&ax[cur], tok, cur == 0, e) < 0)
            goto out;
    }
    if (!ax[0].set)
        for (uint32_t c = 2; c <= world_size && ax[0].n < MAX_VALUES; c++)
            ax[0].v[ax[0].n++] = c;
    if (!ax[1].set)
        for (uint64_t m = 1; m <= ((uint64_t)4 << 20); m *= 2)
            ax[1].v[ax[1].n++] = m;
    for (int i = 0; i < ax[0].n; i++)
        if (ax[0].v[i] < 1 || ax[0].v[i] > MAX_CS) {
            cs_fail(e, "grid: communicator size %llu out of range (1..%u)",
                    (unsigned long long)ax[0].v[i], MAX_CS);
            goto out;
        }
    for (int i = 0; i < ax[1].n; i++)
        if (ax[1].v[i] > MAX_MSG) {
            cs_fail(e, "grid: message size %llu out of range (0..%llu bytes)",
                    (unsigned long long)ax[1].v[i], (unsigned long long)MAX_MSG);
            goto out;
        }
    if (ax[0].n == 0 || ax[1].n == 0) {
        cs_fail(e, "grid: '%s' gives no %s", spec, ax[0].n == 0 ? "communicator size" : "message size");
        goto out;
    }
    ax[0].n = sort_unique(ax[0].v, ax[0].n);
    ax[1].n = sort_unique(ax[1].v, ax[1].n);
    g->cs = malloc(sizeof *g->cs * (size_t)ax[0].n);
    g->ms = malloc(sizeof *g->ms * (size_t)ax[1].n);
    if (!g->cs || !g->ms) {
        cs_fail(e, "grid: out of memory");
        cs_replay_grid_free(g);
        goto out;
    }
    for (int i = 0; i < ax[0].n; i++)
        g->cs[i] = (uint32_t)ax[0].v[i];
    memcpy(g->ms, ax[1].v, sizeof *g->ms * (size_t)ax[1].n);
    g->ncs = ax[0].n;
    g->nms = ax[1].n;
    rc = 0;
out:
    free(s);
    free(ax);
    return rc;
}

void cs_replay_grid_free(cs_replay_grid *g)
{
    free(g->cs);
    free(g->ms);
    memset(g, 0, sizeof *g);
}

int cs_parse_size_list(const char *s, uint64_t **v, int *n, cs_err *e)
{
    axis *a = calloc(1, sizeof *a);
    char *d = strdup(s ? s : "");
    int rc = -1;
    *v = NULL;
    *n = 0;
    if (!a || !d) {
        cs_fail(e, "out of memory");
        goto out;
    }
    for (char *save = NULL, *tok = strtok_r(d, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        uint64_t x;
        if (cs_parse_size(tok, &x, e) < 0 || axis_add(a, x, "sizes", e) < 0)
            goto out;
    }
    if (a->n == 0) {
        cs_fail(e, "'%s': no sizes (accepted: comma-separated sizes, e.g. 8,64k,4M)", s ? s : "");
        goto out;
    }
    a->n = sort_unique(a->v, a->n);
    *v = malloc(sizeof **v * (size_t)a->n);
    if (!*v) {
        cs_fail(e, "out of memory");
        goto out;
    }
    memcpy(*v, a->v, sizeof **v * (size_t)a->n);
    *n = a->n;
    rc = 0;
out:
    free(d);
    free(a);
    return rc;
}
