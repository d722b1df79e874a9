/* select/render: input detection, method-name parsing, tree -> bands.
 * See render.h. */
#include "render.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* ---- input ---------------------------------------------------------- */

static int looks_like_csv(const unsigned char *p, size_t n)
{
    if (n >= 14 && memcmp(p, "# collsel perf", 14) == 0)
        return 1;
    size_t i = 0;
    int comma = 0;
    for (; i < n && p[i] != '\n'; i++) {
        if (p[i] == ',')
            comma = 1;
        else if (p[i] != '\r' && p[i] != '\t' && (p[i] < 0x20 || p[i] > 0x7e))
            return 0;
    }
    return comma;
}

/* The first bytes of a zstd frame, decompressed (at most cap; a frame
 * that claims a huge content is not decompressed whole to judge its head).
 * Returns the number of bytes, 0 if the data are not zstd. */
static size_t zstd_head(const void *in, size_t n, unsigned char *out, size_t cap)
{
    ZSTD_DStream *z = ZSTD_createDStream();
    size_t got = 0;
    if (z && !ZSTD_isError(ZSTD_initDStream(z))) {
        ZSTD_inBuffer ib = {in, n, 0};
        ZSTD_outBuffer ob = {out, cap, 0};
        while (ob.pos < ob.size && ib.pos < ib.size) {
            size_t before = ob.pos + ib.pos;
            if (ZSTD_isError(ZSTD_decompressStream(z, &ob, &ib)) || ob.pos + ib.pos == before)
                break;
        }
        got = ob.pos;
    }
    ZSTD_freeDStream(z);
    return got;
}

int cs_rinput_kind(const char *path, cs_err *e)
{
    void *data;
    size_t n;
    if (cs_read_file(path, &data, &n, e) < 0)
        return -1;
    const unsigned char *p = data;
    int kind;
    if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd) {
        /* a compressed tree or table: judge by the decompressed head (not
         * zstd after all: a tree, let the tree reader name the problem) */
        unsigned char head[4096];
        size_t hn = zstd_head(data, n, head, sizeof head);
        kind = hn && looks_like_csv(head, hn) ? CS_RIN_PERF : CS_RIN_TREE;
    } else
        kind = looks_like_csv(p, n) ? CS_RIN_PERF : CS_RIN_TREE;
    free(data);
    return kind;
}

int cs_rfile_crc(const char *path, uint32_t *crc, cs_err *e)
{
    void *data;
    size_t n;
    if (cs_read_file(path, &data, &n, e) < 0)
        return -1;
    *crc = cs_crc32(0, data, n);
    free(data);
    return 0;
}

/* ---- methods -------------------------------------------------------- */

/* "k4" -> 4; "seg8k" -> 8192; anything else -1. */
static long suffix_num(const char *s, const char *pre, const char *post)
{
    size_t lp = strlen(pre), lq = strlen(post), n = strlen(s);
    if (n <= lp + lq || strncmp(s, pre, lp) != 0 || strcmp(s + n - lq, post) != 0)
        return -1;
    long v = 0;
    for (size_t i = lp; i < n - lq; i++) {
        if (!isdigit((unsigned char)s[i]) || v > 1000000)
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

int cs_rmeth_parse(const char *name, cs_rmeth *m)
{
    memset(m, 0, sizeof *m);
    m->coll = -1;
    char buf[128];
    if (!name || strlen(name) >= sizeof buf)
        return -1;
    strcpy(buf, name);
    char *save = NULL;
    char *tok = strtok_r(buf, ".", &save);
    if (!tok || (m->coll = cs_coll_from_name(tok)) < 0)
        return -1;
    size_t len = 0;
    while ((tok = strtok_r(NULL, ".", &save)) != NULL) {
        long v;
        if (len && (v = suffix_num(tok, "seg", "k")) > 0 && !m->segsize) {
            m->segsize = (int)v * 1024;
        } else if (len && (v = suffix_num(tok, "k", "")) > 0 && !m->fanout && !m->segsize) {
            m->fanout = (int)v;
        } else { /* a qualifier: part of the algorithm ("shm.tree") */
            size_t n = strlen(tok);
            if (len + (len > 0) + n >= sizeof m->algo)
                return -1;
            if (len)
                m->algo[len++] = '.';
            memcpy(m->algo + len, tok, n + 1);
            len += n;
        }
    }
    return len ? 0 : -1;
}

/* ---- bands ---------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_leaf_ms(const void *a, const void *b)
{
    const cs_leaf *x = *(const cs_leaf *const *)a, *y = *(const cs_leaf *const *)b;
    return x->ms_lo < y->ms_lo ? -1 : x->ms_lo > y->ms_lo;
}

static int same_runs(const cs_band *a, const cs_band *b)
{
    if (a->nruns != b->nruns)
        return 0;
    for (int i = 0; i < a->nruns; i++)
        if (a->runs[i].ms_lo != b->runs[i].ms_lo || a->runs[i].id != b->runs[i].id)
            return 0;
    return 1;
}

/* The runs of the band starting at communicator size s: the leaves that
 * contain s, sorted by message size, equal neighbours merged. */
static int band_runs(const cs_leaf *lv, size_t n, uint32_t s, const cs_leaf **tmp, cs_band *b,
                     const char *cname, cs_err *e)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (lv[i].cs_lo <= s && s <= lv[i].cs_hi)
            tmp[k++] = &lv[i];
    qsort(tmp, k, sizeof *tmp, cmp_leaf_ms);
    b->runs = malloc((k ? k : 1) * sizeof *b->runs);
    if (!b->runs)
        return cs_fail(e, "%s: out of memory", cname);
    b->nruns = 0;
    uint64_t next = 0;
    for (size_t i = 0; i < k; i++) {
        const cs_leaf *l = tmp[i];
        if (l->ms_lo != next || l->n < 1)
            return cs_fail(e, "%s: tree leaves do not tile the map at comm size %u, "
                              "message size %llu", cname, s, (unsigned long long)next);
        if (b->nruns == 0 || b->runs[b->nruns - 1].id != l->ids[0])
            b->runs[b->nruns++] = (cs_run){l->ms_lo, l->ids[0]};
        next = l->ms_hi + 1;
        if (l->ms_hi == UINT64_MAX) {
            if (i + 1 != k)
                return cs_fail(e, "%s: overlapping tree leaves at comm size %u", cname, s);
            return 0;
        }
    }
    return cs_fail(e, "%s: tree leaves do not cover message sizes from %llu up at comm size %u",
                   cname, (unsigned long long)next, s);
}

int cs_bands_build(const cs_tree *t, int coll, cs_bands *out, cs_err *e)
{
    memset(out, 0, sizeof *out);
    out->coll = coll;
    const char *cname = cs_coll_name(coll);
    cs_leaf *lv = NULL;
    size_t n = 0;
    uint32_t *starts = NULL;
    const cs_leaf **tmp = NULL;
    if (cs_tree_leaves(t, coll, &lv, &n) < 0 || n == 0) {
        free(lv);
        return cs_fail(e, "%s: the tree has no leaves for this collective", cname);
    }
    out->nleaves = n;
    starts = malloc(n * sizeof *starts);
    tmp = malloc(n * sizeof *tmp);
    out->b = calloc(n, sizeof *out->b);
    if (!starts || !tmp || !out->b) {
        cs_fail(e, "%s: out of memory", cname);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        starts[i] = lv[i].cs_lo;
    qsort(starts, n, sizeof *starts, cmp_u32);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++)
        if (ns == 0 || starts[ns - 1] != starts[i])
            starts[ns++] = starts[i];
    if (starts[0] != 0) {
        cs_fail(e, "%s: tree leaves start at comm size %u, not 0", cname, starts[0]);
        goto out;
    }
    for (size_t i = 0; i < ns; i++) {
        cs_band cur = {starts[i], i + 1 < ns ? starts[i + 1] - 1 : UINT32_MAX, 0, NULL};
        if (band_runs(lv, n, starts[i], tmp, &cur, cname, e) < 0) {
            free(cur.runs);
            goto out;
        }
        cs_band *prev = out->nbands ? &out->b[out->nbands - 1] : NULL;
        if (prev && same_runs(prev, &cur)) {
            prev->cs_hi = cur.cs_hi;
            free(cur.runs);
        } else
            out->b[out->nbands++] = cur;
    }
    free(starts);
    free(tmp);
    free(lv);
    return 0;
out:
    free(starts);
    free(tmp);
    free(lv);
    cs_bands_free(out);
    return -1;
}

void cs_bands_free(cs_bands *b)
{
    for (int i = 0; b->b && i < b->nbands; i++)
        free(b->b[i].runs);
    free(b->b);
    b->b = NULL;
    b->nbands = 0;
}

size_t cs_bands_tests(const cs_bands *b)
{
    size_t t = b->nbands > 0 ? (size_t)b->nbands - 1 : 0;
    for (int i = 0; i < b->nbands; i++)
        t += (size_t)b->b[i].nruns - 1;
    return t;
}

int cs_band_method(const cs_band *b, uint64_t ms)
{
    int id = b->runs[0].id;
    for (int i = 1; i < b->nruns && b->runs[i].ms_lo <= ms; i++)
        id = b->runs[i].id;
    return id;
}

/* ---- CLI helpers ------------------------------------------------------ */

int cs_rtree_load(const char *cmd, const char *path, cs_tree **t)
{
    cs_err e = {{0}};
    if (cs_tree_read(t, path, &e) < 0) {
        fprintf(stderr, "collsel %s: %s\n", cmd, e.msg[0] ? e.msg : path);
        return -1;
    }
    return 0;
}
