/* collsel common utilities: see util.h. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

int cs_fail(cs_err *e, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static uint32_t crc_table[256];
static int crc_ready;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
    __atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

uint32_t cs_crc32(uint32_t crc, const void *data, size_t n)
{
    if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE))
        crc_init(); /* idempotent: racing threads compute the same table */
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

int cs_read_file(const char *path, void **data, size_t *n, cs_err *e)
{
    *data = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cs_fail(e, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    unsigned char *p = malloc(cap + 1);
    if (!p) {
        fclose(f);
        return cs_fail(e, "%s: out of memory", path);
    }
    for (;;) {
        size_t got = fread(p + len, 1, cap - len, f);
        len += got;
        if (len < cap) {
            if (ferror(f)) {
                int err = errno;
                free(p);
                fclose(f);
                return cs_fail(e, "%s: read error: %s", path, strerror(err));
            }
            break;
        }
        unsigned char *q = realloc(p, cap * 2 + 1);
        if (!q) {
            free(p);
            fclose(f);
            return cs_fail(e, "%s: out of memory", path);
        }
        p = q;
        cap *= 2;
    }
    fclose(f);
    p[len] = 0;
    *data = p;
    *n = len;
    return 0;
}

int cs_sig_cat(char *buf, size_t len, size_t *at, const char *s)
{
    size_t n = strlen(s);
    if (*at + n + 1 > len)
        return -1;
    memcpy(buf + *at, s, n + 1);
    *at += n;
    return 0;
}

int cs_tmp_create(const char *path, char *tmp, size_t len)
{
    static unsigned counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        /* a name nobody can guess ahead of us: pid, a counter and the clock,
         * mixed; O_EXCL makes whatever is there (a link, a file) an
         * error, and O_NOFOLLOW a link even on file systems that
         * would follow it */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)getpid() * 0x9E3779B97F4A7C15u ^
                     (uint64_t)__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 0xC2B2AE3D27D4EB4Fu ^
                     (uint64_t)ts.tv_nsec * 0x165667B19E3779F9u ^ (uint64_t)ts.tv_sec;
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9u;
        x ^= x >> 32;
        char suffix[13];
        for (int i = 0; i < 12; i++, x >>= 5)
            suffix[i] = "abcdefghijklmnopqrstuvwxyz012345"[x & 31];
        suffix[12] = 0;
        size_t at = 0;
        if (cs_sig_cat(tmp, len, &at, path) < 0 || cs_sig_cat(tmp, len, &at, ".tmp.") < 0 ||
            cs_sig_cat(tmp, len, &at, suffix) < 0) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

int cs_write_all(int fd, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int cs_file_replace(const char *path, const void *data, size_t n, int flags)
{
    char tmp[4200];
    int fd = cs_tmp_create(path, tmp, sizeof tmp);
    if (fd < 0)
        return -1;
    if (cs_write_all(fd, data, n) < 0 ||
        (!(flags & CS_FILE_NOSYNC) && fsync(fd) != 0 && errno != EINVAL)) {
        int err = errno;
        close(fd);
        unlink(tmp);
        errno = err;
        return -1;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int err = errno;
        unlink(tmp);
        errno = err;
        return -1;
    }
    return 0;
}

int cs_write_file_atomic(const char *path, const void *data, size_t n, cs_err *e)
{
    if (cs_file_replace(path, data, n, 0) < 0)
        return cs_fail(e, "%s: cannot write: %s", path, strerror(errno));
    return 0;
}

int cs_check_writable_dir(const char *path, cs_err *e)
{
    char *copy = strdup(path);
    if (!copy)
        return cs_fail(e, "%s: out of memory", path);
    const char *dir = dirname(copy);
    struct stat st;
    int rc = 0;
    if (stat(dir, &st) != 0)
        rc = cs_fail(e, "%s: directory %s does not exist", path, dir);
    else if (!S_ISDIR(st.st_mode))
        rc = cs_fail(e, "%s: %s is not a directory", path, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        rc = cs_fail(e, "%s: directory %s is not writable: %s", path, dir, strerror(errno));
    free(copy);
    return rc;
}

int cs_zstd_compress(const void *in, size_t n, void **out, size_t *outn, cs_err *e)
{
    size_t cap = ZSTD_compressBound(n);
    void *p = malloc(cap ? cap : 1);
    if (!p)
        return cs_fail(e, "out of memory compressing %zu bytes", n);
    size_t r = ZSTD_compress(p, cap, in, n, 3);
    if (ZSTD_isError(r)) {
        free(p);
        return cs_fail(e, "zstd compression failed: %s", ZSTD_getErrorName(r));
    }
    *out = p;
    *outn = r;
    return 0;
}

int cs_zstd_decompress(const void *in, size_t n, size_t max_out, void **out,
                       size_t *outn, cs_err *e)
{
    unsigned long long sz = ZSTD_getFrameContentSize(in, n);
    if (sz == ZSTD_CONTENTSIZE_ERROR)
        return cs_fail(e, "not zstd data");
    if (sz == ZSTD_CONTENTSIZE_UNKNOWN)
        return cs_fail(e, "zstd frame without content size");
    if (sz > max_out)
        return cs_fail(e, "zstd content size %llu exceeds limit %zu", sz, max_out);
    void *p = malloc(sz ? sz : 1);
    if (!p)
        return cs_fail(e, "out of memory decompressing %llu bytes", sz);
    size_t r = ZSTD_decompress(p, sz, in, n);
    if (ZSTD_isError(r) || r != sz) {
        free(p);
        return cs_fail(e, "zstd data corrupt: %s",
                       ZSTD_isError(r) ? ZSTD_getErrorName(r) : "size mismatch");
    }
    *out = p;
    *outn = r;
    return 0;
}

double cs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cs_buf_put(cs_buf *b, const void *data, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
}

void cs_buf_u8(cs_buf *b, uint8_t v) { cs_buf_put(b, &v, 1); }

void cs_buf_u32(cs_buf *b, uint32_t v)
{
    unsigned char x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    cs_buf_put(b, x, 4);
}

void cs_buf_u64(cs_buf *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    cs_buf_put(b, x, 8);
}

void cs_buf_f64(cs_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    cs_buf_u64(b, u);
}

void cs_buf_str(cs_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    cs_buf_u32(b, (uint32_t)n);
    cs_buf_put(b, s, n);
}

void cs_buf_printf(cs_buf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        cs_buf_put(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    cs_buf_put(b, big, (size_t)n);
    free(big);
}

void cs_buf_free(cs_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
    b->oom = 0;
}

int cs_rd_get(cs_rd *r, void *dst, size_t n)
{
    if (r->bad || n > r->n - r->off) {
        r->bad = 1;
        return -1;
    }
    memcpy(dst, r->p + r->off, n);
    r->off += n;
    return 0;
}

int cs_rd_u8(cs_rd *r, uint8_t *v) { return cs_rd_get(r, v, 1); }

int cs_rd_u32(cs_rd *r, uint32_t *v)
{
    unsigned char x[4];
    if (cs_rd_get(r, x, 4) < 0)
        return -1;
    *v = 0;
    for (int i = 0; i < 4; i++)
        *v |= (uint32_t)x[i] << (8 * i);
    return 0;
}

int cs_rd_u64(cs_rd *r, uint64_t *v)
{
    unsigned char x[8];
    if (cs_rd_get(r, x, 8) < 0)
        return -1;
    *v = 0;
    for (int i = 0; i < 8; i++)
        *v |= (uint64_t)x[i] << (8 * i);
    return 0;
}

int cs_rd_f64(cs_rd *r, double *v)
{
    uint64_t u;
    if (cs_rd_u64(r, &u) < 0)
        return -1;
    memcpy(v, &u, 8);
    return 0;
}

int cs_rd_str(cs_rd *r, char **s)
{
    uint32_t n;
    *s = NULL;
    if (cs_rd_u32(r, &n) < 0)
        return -1;
    /* a NUL inside would cut the string short: what was read would not be
     * what is written back (no writer puts one there) */
    if (n > (1u << 20) || n > r->n - r->off || memchr(r->p + r->off, 0, n)) {
        r->bad = 1;
        return -1;
    }
    char *p = malloc((size_t)n + 1);
    if (!p) {
        r->bad = 1;
        return -1;
    }
    memcpy(p, r->p + r->off, n);
    p[n] = 0;
    r->off += n;
    *s = p;
    return 0;
}

const char *cs_fmt_bytes(char *buf, size_t len, double bytes)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        u++;
    }
    if (u == 0 || bytes == (double)(long long)bytes)
        snprintf(buf, len, "%.0f %s", bytes, unit[u]);
    else
        snprintf(buf, len, "%.1f %s", bytes, unit[u]);
    return buf;
}

#include "colls.h"

static const struct {
    const char *name;
    int rooted, reduces, sized;
} colls[CS_NCOLL] = {
#define CS_COLL_ROW(id, name, rooted, reduces, sized) {name, rooted, reduces, sized},
    CS_COLL_LIST(CS_COLL_ROW)
#undef CS_COLL_ROW
};

const char *cs_coll_name(int c)
{
    return c >= 0 && c < CS_NCOLL ? colls[c].name : NULL;
}

int cs_coll_rooted(int c)
{
    return c >= 0 && c < CS_NCOLL && colls[c].rooted;
}

int cs_coll_reduces(int c)
{
    return c >= 0 && c < CS_NCOLL && colls[c].reduces;
}

int cs_coll_sized(int c)
{
    return c >= 0 && c < CS_NCOLL && colls[c].sized;
}

/* Is name a row beside the methods, "COLL" then suffix? */
static int coll_row(const char *name, const char *suffix)
{
    const char *dot = strchr(name, '.');
    return dot && !strcmp(dot, suffix);
}

int cs_name_is_segment(const char *name)
{
    return coll_row(name, CS_SEGMENT_SUFFIX);
}

int cs_name_is_uncounted(const char *name)
{
    return coll_row(name, CS_UNCOUNTED_SUFFIX);
}

int cs_name_is_first(const char *name)
{
    size_t n = strlen(name), k = strlen(CS_FIRST_SUFFIX);
    return n > k && !strcmp(name + n - k, CS_FIRST_SUFFIX);
}

int cs_name_needs_segment(const char *name)
{
    const char *p = strchr(name, '.');
    while (p) {
        p++;
        if (!strncmp(p, "shm", 3) || !strncmp(p, "node", 4))
            return 1;
        p = strpbrk(p, ".-");
    }
    return 0;
}

const char *cs_coll_names(void)
{
    static char list[128];
    if (!list[0]) /* idempotent: every caller writes the same bytes */
        for (int c = 0; c < CS_NCOLL; c++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", c ? ", " : "",
                     cs_coll_name(c));
    return list;
}

int cs_coll_from_name(const char *s)
{
    for (int c = 0; c < CS_NCOLL; c++)
        if (s && strcmp(s, cs_coll_name(c)) == 0)
            return c;
    return -1;
}

int cs_grow(void *items, size_t n, size_t *cap, size_t elem, size_t first)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : first;
    void *old, *q;
    memcpy(&old, items, sizeof old); /* the caller's T *, read without aliasing it */
    q = realloc(old, c * elem);
    if (!q)
        return -1;
    memcpy(items, &q, sizeof q);
    *cap = c;
    return 0;
}
