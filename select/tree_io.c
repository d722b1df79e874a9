/* Decision tree files.
 *
 *   "COLLSELT"  u32 version  u32 payload length  u32 CRC-32 of payload  payload
 *   payload: u32 number of collectives, then per collective:
 *     u32 coll, [version 2: u32 kind,] u32 k, u32 ncs, u32 cs[ncs], u32 nms, u64 ms[nms],
 *     u32 nmethods, str names[nmethods], u32 nnodes, u32 nodes[nnodes],
 *     u32 nleaves, per leaf: u8 n, u16 ids[n]
 *   [version 3: u32 nodes, u32 ranks per node: the layout it was tuned for]
 * Version 2 adds the kind of each function (tree_impl.h: 0 quadtree, 1
 * binary tree of cuts); a file of quadtrees only is written as version 1.
 * Version 3 adds the layout; a tree of unknown layout is written as 1 or 2.
 * Integers little-endian (common/util.h cs_buf / cs_rd).  Everything is
 * validated on reading (cs_dtree_install); any problem rejects the file
 * with a message naming it. */
#include <stdlib.h>
#include <string.h>

#include "tree_impl.h"

#define TREE_MAGIC "COLLSELT"
#define TREE_VERSION 3
#define TREE_HEADER 20

static void put_dtree(cs_buf *b, int coll, const cs_dtree *d, uint32_t ver)
{
    cs_buf_u32(b, (uint32_t)coll);
    if (ver >= 2)
        cs_buf_u32(b, (uint32_t)d->kind);
    cs_buf_u32(b, (uint32_t)d->k);
    cs_buf_u32(b, (uint32_t)d->ncs);
    for (int i = 0; i < d->ncs; i++)
        cs_buf_u32(b, d->cs[i]);
    cs_buf_u32(b, (uint32_t)d->nms);
    for (int j = 0; j < d->nms; j++)
        cs_buf_u64(b, d->ms[j]);
    cs_buf_u32(b, (uint32_t)d->nmethods);
    for (int m = 0; m < d->nmethods; m++)
        cs_buf_str(b, d->methods[m]);
    cs_buf_u32(b, d->nnodes);
    for (uint32_t i = 0; i < d->nnodes; i++)
        cs_buf_u32(b, d->nodes[i]);
    cs_buf_u32(b, d->nleaves);
    for (uint32_t l = 0; l < d->nleaves; l++) {
        cs_buf_u8(b, d->leaf_n_own[l]);
        for (int i = 0; i < d->leaf_n_own[l]; i++) {
            uint16_t id = d->leaf_ids_own[l * CS_TREE_MAXCHOICE + i];
            cs_buf_put(b, (unsigned char[2]){(unsigned char)id, (unsigned char)(id >> 8)}, 2);
        }
    }
}

int cs_tree_write(const cs_tree *t, const char *path, cs_err *e)
{
    cs_buf pl = {0}, f = {0};
    int rc = -1, n = 0;
    uint32_t ver = 1;
    for (int c = 0; c < CS_NCOLL; c++) {
        n += t->d[c].present;
        if (t->d[c].present && t->d[c].kind != CS_DTREE_QUAD)
            ver = 2;
    }
    if (t->nodes)
        ver = 3;
    cs_buf_u32(&pl, (uint32_t)n);
    for (int c = 0; c < CS_NCOLL; c++)
        if (t->d[c].present)
            put_dtree(&pl, c, &t->d[c], ver);
    if (ver >= 3) {
        cs_buf_u32(&pl, t->nodes);
        cs_buf_u32(&pl, t->ranks_per_node);
    }
    cs_buf_put(&f, TREE_MAGIC, 8);
    cs_buf_u32(&f, ver);
    cs_buf_u32(&f, (uint32_t)pl.n);
    cs_buf_u32(&f, cs_crc32(0, pl.p, pl.n));
    cs_buf_put(&f, pl.p, pl.n);
    if (pl.oom || f.oom) {
        cs_fail(e, "%s: out of memory", path);
        goto out;
    }
    CS_CHECK(cs_write_file_atomic(path, f.p, f.n, e));
    rc = 0;
out:
    cs_buf_free(&pl);
    cs_buf_free(&f);
    return rc;
}

/* Read a count and check that `each` bytes per item fit in what is left. */
static int rd_count(cs_rd *r, uint32_t *n, size_t each, uint32_t max)
{
    if (cs_rd_u32(r, n) < 0 || *n > max || (size_t)*n * each > r->n - r->off) {
        r->bad = 1;
        return -1;
    }
    return 0;
}

static int get_dtree(cs_rd *r, cs_dtree *d, uint32_t *coll, uint32_t ver)
{
    uint32_t v = CS_DTREE_QUAD;
    if (cs_rd_u32(r, coll) < 0 || (ver >= 2 && cs_rd_u32(r, &v) < 0) || v > CS_DTREE_BIN)
        return -1;
    d->kind = (int)v;
    if (cs_rd_u32(r, &v) < 0 || v > CS_TREE_MAXK)
        return -1;
    d->k = (int)v;
    if (rd_count(r, &v, 4, 256) < 0 || !(d->cs = malloc((v + 1) * sizeof *d->cs)))
        return -1;
    d->ncs = (int)v;
    for (int i = 0; i < d->ncs; i++)
        CS_CHECK(cs_rd_u32(r, &d->cs[i]));
    if (rd_count(r, &v, 8, 256) < 0 || !(d->ms = malloc((v + 1) * sizeof *d->ms)))
        return -1;
    d->nms = (int)v;
    for (int j = 0; j < d->nms; j++)
        CS_CHECK(cs_rd_u64(r, &d->ms[j]));
    if (rd_count(r, &v, 4, 65535) < 0 || !(d->methods = calloc(v + 1, sizeof *d->methods)))
        return -1;
    d->nmethods = (int)v;
    for (int m = 0; m < d->nmethods; m++) {
        char *s;
        CS_CHECK(cs_rd_str(r, &s));
        snprintf(d->methods[m], sizeof d->methods[m], "%s", s);
        int ok = strlen(s) < sizeof d->methods[m];
        free(s);
        if (!ok)
            return -1;
    }
    if (rd_count(r, &d->nnodes, 4, 1u << 20) < 0 ||
        !(d->nodes = malloc((d->nnodes + 1) * sizeof *d->nodes)))
        return -1;
    for (uint32_t i = 0; i < d->nnodes; i++)
        CS_CHECK(cs_rd_u32(r, &d->nodes[i]));
    if (rd_count(r, &d->nleaves, 3, 65536) < 0 ||
        !(d->leaf_n_own = calloc(d->nleaves + 1, 1)) ||
        !(d->leaf_ids_own = calloc((size_t)(d->nleaves + 1) * CS_TREE_MAXCHOICE, 2)))
        return -1;
    for (uint32_t l = 0; l < d->nleaves; l++) {
        uint8_t n;
        CS_CHECK(cs_rd_u8(r, &n));
        if (n < 1 || n > CS_TREE_MAXCHOICE)
            return -1;
        d->leaf_n_own[l] = n;
        for (int i = 0; i < n; i++) {
            unsigned char x[2];
            CS_CHECK(cs_rd_get(r, x, 2));
            d->leaf_ids_own[l * CS_TREE_MAXCHOICE + i] = (uint16_t)(x[0] | x[1] << 8);
        }
    }
    return 0;
out:
    return -1;
}

int cs_tree_read(cs_tree **tp, const char *path, cs_err *e)
{
    void *data = NULL;
    size_t n;
    cs_tree *t = NULL;
    cs_dtree d = {0};
    *tp = NULL;
    CS_CHECK(cs_read_file(path, &data, &n, e));
    const unsigned char *p = data;
    if (n == 0) {
        cs_fail(e, "%s: empty file (not a collsel tree)", path);
        goto out;
    }
    if (n < 8 || memcmp(p, TREE_MAGIC, 8) != 0) {
        cs_fail(e, "%s: not a collsel tree file (bad magic)", path);
        goto out;
    }
    cs_rd r = {p, n, 8, 0};
    uint32_t ver, len, crc, ncoll;
    if (cs_rd_u32(&r, &ver) < 0 || cs_rd_u32(&r, &len) < 0 || cs_rd_u32(&r, &crc) < 0) {
        cs_fail(e, "%s: truncated header", path);
        goto out;
    }
    if (ver > TREE_VERSION || ver == 0) {
        cs_fail(e, "%s: tree file version %u not supported (this collsel reads version %d%s)",
                path, ver, TREE_VERSION, ver ? "; written by a newer collsel" : "");
        goto out;
    }
    if (len != n - TREE_HEADER) {
        cs_fail(e, "%s: %s (header says %u payload bytes, file has %zu)", path,
                len > n - TREE_HEADER ? "truncated" : "trailing garbage", len, n - TREE_HEADER);
        goto out;
    }
    if (cs_crc32(0, p + TREE_HEADER, len) != crc) {
        cs_fail(e, "%s: checksum mismatch (file corrupted)", path);
        goto out;
    }
    if (!(t = cs_tree_new())) {
        cs_fail(e, "%s: out of memory", path);
        goto out;
    }
    if (cs_rd_u32(&r, &ncoll) < 0 || ncoll > CS_NCOLL) {
        cs_fail(e, "%s: bad number of collectives", path);
        goto out;
    }
    for (uint32_t i = 0; i < ncoll; i++) {
        uint32_t coll = 0;
        if (get_dtree(&r, &d, &coll, ver) < 0) {
            cs_fail(e, "%s: malformed decision function %u (bad count, name or list)", path, i);
            goto out;
        }
        if (coll >= CS_NCOLL || t->d[coll].present) {
            cs_fail(e, "%s: collective %u unknown or present twice", path, coll);
            goto out;
        }
        CS_CHECK(cs_dtree_install(t, (int)coll, &d, path, e));
    }
    if (ver >= 3 && (cs_rd_u32(&r, &t->nodes) < 0 || cs_rd_u32(&r, &t->ranks_per_node) < 0 ||
                     !t->nodes != !t->ranks_per_node || t->nodes > 1u << 24 ||
                     t->ranks_per_node > 1u << 24)) {
        cs_fail(e, "%s: bad or missing layout (nodes x ranks per node)", path);
        goto out;
    }
    if (r.off != r.n) {
        cs_fail(e, "%s: %zu unexpected bytes after the last decision function", path, r.n - r.off);
        goto out;
    }
    free(data);
    *tp = t;
    return 0;
out:
    cs_dtree_free(&d);
    cs_tree_free(t);
    free(data);
    return -1;
}
