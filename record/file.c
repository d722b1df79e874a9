/* Profile files: encode/decode the file image, atomic and signal-safe
 * writers, partial files and their loading (see profile.h). */
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAYLOAD_MAX ((size_t)1 << 30) /* uncompressed: 1 GiB */

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int cs_profile_encode(const cs_profile *p, cs_buf *out, cs_err *e)
{
    cs_buf raw = {0};
    void *z = NULL;
    size_t zn = 0;
    if (cs_profile_serialize(p, &raw) < 0) {
        cs_fail(e, "out of memory serialising a profile of %zu cells", p->ncells);
        goto out;
    }
    CS_CHECK(cs_zstd_compress(raw.p, raw.n, &z, &zn, e));
    unsigned char h[CS_PROFILE_HEADER];
    memcpy(h, CS_PROFILE_MAGIC, 8);
    put_le(h + 8, CS_PROFILE_VERSION, 4);
    put_le(h + 12, zn, 8);
    put_le(h + 20, cs_crc32(0, z, zn), 4);
    cs_buf_put(out, h, sizeof h);
    cs_buf_put(out, z, zn);
    if (out->oom) {
        cs_fail(e, "out of memory encoding a profile");
        goto out;
    }
    free(z);
    cs_buf_free(&raw);
    return 0;
out:
    free(z);
    cs_buf_free(&raw);
    return -1;
}

/* What a file that is not a profile looks like, for the message. */
static const char *describe(const unsigned char *p, size_t n)
{
    if (n >= 8 && memcmp(p, "COLLSEL", 7) == 0)
        return "another kind of collsel file";
    if (n >= 4 && memcmp(p, "\x89PNG", 4) == 0)
        return "a PNG image";
    if (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0)
        return "zstd-compressed data";
    for (size_t i = 0; i < n && i < 64; i++)
        if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\r' && p[i] != '\t') || p[i] == 0x7f)
            return "binary data";
    return "text";
}

int cs_profile_decode(cs_profile *p, const void *file, size_t n, const char *name, cs_err *e)
{
    const unsigned char *b = file;
    void *raw = NULL;
    size_t rawn = 0;
    cs_profile_init(p);
    if (n == 0)
        return cs_fail(e, "%s: empty file (not a collsel profile)", name);
    size_t m = n < 8 ? n : 8;
    if (memcmp(b, CS_PROFILE_MAGIC, m) != 0)
        return cs_fail(e, "%s: not a collsel profile (no COLLSELP header; the file holds %s)",
                       name, describe(b, n));
    if (n < CS_PROFILE_HEADER)
        return cs_fail(e, "%s: truncated: %zu bytes, shorter than the %d-byte header", name, n,
                       CS_PROFILE_HEADER);
    uint32_t version = (uint32_t)get_le(b + 8, 4);
    uint64_t len = get_le(b + 12, 8);
    uint32_t crc = (uint32_t)get_le(b + 20, 4);
    if (version == 0)
        return cs_fail(e, "%s: invalid format version 0 (corrupted header)", name);
    if (version > CS_PROFILE_VERSION)
        return cs_fail(e, "%s: written by a newer collsel (format v%u, this reads up to v%u)",
                       name, version, CS_PROFILE_VERSION);
    if (len > n - CS_PROFILE_HEADER)
        return cs_fail(e, "%s: truncated: the header announces %llu payload bytes, the file has %zu",
                       name, (unsigned long long)len, n - CS_PROFILE_HEADER);
    if (len < n - CS_PROFILE_HEADER)
        return cs_fail(e, "%s: corrupted: %zu unexpected bytes after the payload", name,
                       n - CS_PROFILE_HEADER - (size_t)len);
    uint32_t got = cs_crc32(0, b + CS_PROFILE_HEADER, len);
    if (got != crc)
        return cs_fail(e, "%s: corrupted: checksum mismatch (stored %08x, computed %08x)", name,
                       crc, got);
    cs_err sub;
    if (cs_zstd_decompress(b + CS_PROFILE_HEADER, len, PAYLOAD_MAX, &raw, &rawn, &sub) < 0)
        return cs_fail(e, "%s: corrupted payload: %s", name, sub.msg);
    if (cs_profile_deserialize_v(p, raw, rawn, version, &sub) < 0) {
        free(raw);
        return cs_fail(e, "%s: corrupted payload: %s", name, sub.msg);
    }
    free(raw);
    return 0;
}

int cs_profile_write(const cs_profile *p, const char *path, cs_err *e)
{
    cs_buf b = {0};
    CS_CHECK(cs_profile_encode(p, &b, e));
    CS_CHECK(cs_write_file_atomic(path, b.p, b.n, e));
    cs_buf_free(&b);
    return 0;
out:
    cs_buf_free(&b);
    return -1;
}

int cs_profile_read(cs_profile *p, const char *path, cs_err *e)
{
    void *data;
    size_t n;
    cs_profile_init(p);
    if (cs_read_file(path, &data, &n, e) < 0)
        return -1;
    int rc = cs_profile_decode(p, data, n, path, e);
    free(data);
    return rc;
}

static int sig_cat_num(char *buf, size_t len, size_t *at, unsigned long v)
{
    char d[24];
    int i = (int)sizeof d - 1;
    d[i] = 0;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    return cs_sig_cat(buf, len, at, d + i);
}

int cs_profile_partial_path(char *buf, size_t len, const char *path, int rank)
{
    size_t at = 0;
    if (rank < 0 || cs_sig_cat(buf, len, &at, path) < 0 ||
        cs_sig_cat(buf, len, &at, ".partial.") < 0 ||
        sig_cat_num(buf, len, &at, (unsigned long)rank) < 0)
        return -1;
    return 0;
}

int cs_profile_write_raw(const char *path, const void *file_bytes, size_t n)
{
    return cs_file_replace(path, file_bytes, n, 0);
}

/* Ranks of the "BASE.partial.RANK" files in DIR, sorted. */
static int find_partials(const char *dir, const char *base, long **ranks, size_t *n, cs_err *e)
{
    size_t blen = strlen(base), cap = 0;
    *ranks = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* no directory: no partial files; the caller reports */
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *s = de->d_name;
        if (strncmp(s, base, blen) != 0 || strncmp(s + blen, ".partial.", 9) != 0)
            continue;
        s += blen + 9;
        char *end;
        if (*s < '0' || *s > '9' || (*s == '0' && s[1]))
            continue; /* only the name a rank writes: "07" is not rank 7's file */
        long r = strtol(s, &end, 10);
        if (*end || r < 0 || r > 0x7fffffff)
            continue; /* e.g. a temporary "X.partial.3.tmp.PID" */
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            long *q = realloc(*ranks, cap * sizeof *q);
            if (!q) {
                closedir(d);
                free(*ranks);
                *ranks = NULL;
                return cs_fail(e, "out of memory listing %s", dir);
            }
            *ranks = q;
        }
        (*ranks)[(*n)++] = r;
    }
    closedir(d);
    for (size_t i = 1; i < *n; i++) /* insertion sort: usually few files */
        for (size_t j = i; j > 0 && (*ranks)[j - 1] > (*ranks)[j]; j--) {
            long t = (*ranks)[j];
            (*ranks)[j] = (*ranks)[j - 1];
            (*ranks)[j - 1] = t;
        }
    return 0;
}

/* Merge the file at path into p; *when: the time its data was taken. */
static int merge_file(cs_profile *p, const char *path, double *when, cs_err *e)
{
    cs_profile q;
    if (cs_profile_read(&q, path, e) < 0)
        return -1;
    *when = (double)q.meta.start_time + q.meta.duration;
    int rc = cs_profile_merge(p, &q);
    cs_profile_free(&q);
    return rc < 0 ? cs_fail(e, "%s: out of memory merging", path) : 0;
}

int cs_profile_load(cs_profile *p, const char *path, cs_err *e)
{
    long *ranks = NULL;
    cs_partial_info *info = NULL;
    size_t nranks = 0, found = 0;
    char dir[4096], part[4096];
    cs_profile_init(p);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dlen = slash ? (size_t)(slash - path) : 0;
    if (dlen + 2 > sizeof dir) {
        cs_fail(e, "%s: path too long", path);
        goto out;
    }
    if (slash) {
        memcpy(dir, path, dlen ? dlen : 1); /* "/file" lives in "/" */
        dir[dlen ? dlen : 1] = 0;
    } else {
        strcpy(dir, ".");
    }
    double when;
    if (access(path, F_OK) == 0) {
        CS_CHECK(merge_file(p, path, &when, e));
        found++;
    }
    CS_CHECK(find_partials(dir, base, &ranks, &nranks, e));
    if (nranks && !(info = calloc(nranks, sizeof *info))) {
        cs_fail(e, "%s: out of memory listing %zu partial files", path, nranks);
        goto out;
    }
    for (size_t i = 0; i < nranks; i++) {
        if (cs_profile_partial_path(part, sizeof part, path, (int)ranks[i]) < 0) {
            cs_fail(e, "%s: path too long", path);
            goto out;
        }
        CS_CHECK(merge_file(p, part, &when, e));
        info[i] = (cs_partial_info){(int32_t)ranks[i], when};
        found++;
    }
    if (found == 0) {
        cs_fail(e, "%s: no such profile (and no %s.partial.* files next to it)", path, base);
        goto out;
    }
    if (nranks > 0)
        p->complete = 0;
    p->npartial = (uint32_t)nranks;
    p->partials = info;
    free(ranks);
    return 0;
out:
    free(info);
    free(ranks);
    cs_profile_free(p);
    return -1;
}
