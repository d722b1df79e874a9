/* Performance tables: CSV read/write (see perf.h for the format).
 *
 * Reading accepts the columns in any order; collective, comm_size,
 * msg_bytes, method and median_us are required, min_us/max_us default to
 * median_us and reps to 1 when absent (hand-made tables).  Unknown columns
 * are ignored.  Lines starting with '#' are comments, except the magic line
 * (first line) and the trailer (last line) of a collsel-written file. */
#include "perf.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/colls.h"

#define PERF_MAGIC "# collsel perf v"
#define PERF_VERSION 2 /* 2: the arrivals column (written only when used) */
#define PERF_HEADER "collective,comm_size,msg_bytes,method,median_us,min_us,max_us,reps"
#define PERF_MAX_BYTES ((size_t)64 << 20) /* decompressed: 64 MiB, ~700,000 rows */

enum { COL_COLL, COL_CS, COL_MS, COL_METHOD, COL_MED, COL_MIN, COL_MAX, COL_REPS, COL_ARR, NCOL };
static const char *const col_names[NCOL] = {"collective", "comm_size", "msg_bytes", "method",
                                            "median_us", "min_us", "max_us", "reps",
                                            "arrivals"};
static const int col_required[NCOL] = {1, 1, 1, 1, 1, 0, 0, 0, 0};

void cs_perf_init(cs_perf *t) { memset(t, 0, sizeof *t); }

void cs_perf_free(cs_perf *t)
{
    free(t->rows);
    cs_perf_init(t);
}

int cs_perf_add(cs_perf *t, const cs_perf_row *r)
{
    if (cs_grow(&t->rows, t->n, &t->cap, sizeof *t->rows, 64) < 0)
        return -1;
    t->rows[t->n++] = *r;
    return 0;
}

/* Split line (modified in place) at commas; returns the field count. */
static int split_fields(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n < max)
            f[n] = p;
        n++;
        p = strchr(p, ',');
        if (!p)
            break;
        *p = 0;
    }
    for (int i = 0; i < n && i < max; i++) { /* trim blanks */
        while (*f[i] == ' ' || *f[i] == '\t')
            f[i]++;
        char *end = f[i] + strlen(f[i]);
        while (end > f[i] && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            *--end = 0;
    }
    return n;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end || x > max)
        return -1;
    *v = x;
    return 0;
}

static int parse_time(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return (!*s || *end || errno || !isfinite(*v) || *v < 0) ? -1 : 0;
}

typedef struct perf_ctx {
    const char *path;
    int col[NCOL]; /* field index of each column, -1 = absent */
    int nfields;
} perf_ctx;

static int parse_header(perf_ctx *c, char *line, int lineno, cs_err *e)
{
    char *f[64];
    int n = split_fields(line, f, 64);
    if (n > 64)
        return cs_fail(e, "%s:%d: header has %d columns (at most 64 accepted)", c->path, lineno, n);
    c->nfields = n;
    for (int k = 0; k < NCOL; k++) {
        c->col[k] = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(f[i], col_names[k]))
                c->col[k] = i;
        if (c->col[k] < 0 && col_required[k])
            return cs_fail(e, "%s:%d: header lacks column '%s' (expected %s)", c->path, lineno,
                           col_names[k], PERF_HEADER);
    }
    return 0;
}

static int parse_row(perf_ctx *c, char *line, int lineno, cs_perf_row *r, cs_err *e)
{
    char *f[64];
    int n = split_fields(line, f, 64);
    if (n != c->nfields)
        return cs_fail(e, "%s:%d: %d fields, the header has %d", c->path, lineno, n, c->nfields);
    memset(r, 0, sizeof *r);
    const char *cname = f[c->col[COL_COLL]];
    r->coll = cs_coll_from_name(cname);
    if (r->coll < 0)
        return cs_fail(e, "%s:%d: unknown collective '%s' (accepted: %s)",
                       c->path, lineno, cname, cs_coll_names());
    uint64_t v;
    const char *s = f[c->col[COL_CS]];
    if (parse_u64(s, UINT32_MAX, &v) < 0 || v == 0)
        return cs_fail(e, "%s:%d: comm_size '%s' is not an integer in 1..%u", c->path, lineno, s,
                       UINT32_MAX);
    r->comm_size = (uint32_t)v;
    s = f[c->col[COL_MS]];
    if (parse_u64(s, UINT64_MAX, &r->msg_bytes) < 0)
        return cs_fail(e, "%s:%d: msg_bytes '%s' is not a non-negative integer", c->path, lineno,
                       s);
    s = f[c->col[COL_METHOD]];
    size_t cl = strlen(cname);
    if (strncmp(s, cname, cl) != 0 || s[cl] != '.' || !s[cl + 1])
        return cs_fail(e, "%s:%d: method '%s' does not start with its collective '%s.'", c->path,
                       lineno, s, cname);
    if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") !=
        strlen(s))
        return cs_fail(e, "%s:%d: method '%s' has characters other than letters, digits, '_', "
                          "'-' and '.'", c->path, lineno, s);
    if (strlen(s) >= CS_METHOD_NAME_MAX)
        return cs_fail(e, "%s:%d: method name '%s' longer than %d characters", c->path, lineno, s,
                       CS_METHOD_NAME_MAX - 1);
    strcpy(r->method, s);
    double *dst[3] = {&r->median_us, &r->min_us, &r->max_us};
    for (int k = COL_MED; k <= COL_MAX; k++) {
        if (c->col[k] < 0) {
            *dst[k - COL_MED] = r->median_us;
            continue;
        }
        s = f[c->col[k]];
        if (parse_time(s, dst[k - COL_MED]) < 0)
            return cs_fail(e, "%s:%d: %s '%s' is not a non-negative number", c->path, lineno,
                           col_names[k], s);
    }
    r->reps = 1;
    if (c->col[COL_REPS] >= 0) {
        s = f[c->col[COL_REPS]];
        if (parse_u64(s, UINT32_MAX, &v) < 0)
            return cs_fail(e, "%s:%d: reps '%s' is not a non-negative integer", c->path, lineno, s);
        r->reps = (uint32_t)v;
    }
    if (c->col[COL_ARR] >= 0) {
        s = f[c->col[COL_ARR]];
        if (strlen(s) >= CS_PERF_ARRIVALS_MAX ||
            strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789.:@-") != strlen(s))
            return cs_fail(e, "%s:%d: arrivals '%s' is not an arrival pattern (none, recorded, "
                              "one-late:20us, ...)", c->path, lineno, s);
        strcpy(r->arrivals, s);
    }
    return 0;
}

int cs_perf_is_segment(const cs_perf_row *r)
{
    return cs_name_is_segment(r->method);
}

const char *cs_perf_default_arrivals(const cs_perf *t)
{
    int has[3] = {0, 0, 0}; /* recorded, back-to-back, none */
    for (size_t i = 0; i < t->n; i++) {
        const char *a = t->rows[i].arrivals;
        if (cs_perf_is_segment(&t->rows[i]))
            continue;
        has[0] |= !strcmp(a, "recorded");
        has[1] |= !*a;
        has[2] |= !strcmp(a, "none");
    }
    if (has[0] || has[1] || has[2])
        return has[0] ? "recorded" : has[1] ? "" : "none";
    for (size_t i = 0; i < t->n; i++)
        if (!cs_perf_is_segment(&t->rows[i]))
            return t->rows[i].arrivals;
    return "";
}


int cs_perf_select_arrivals(cs_perf *t, const char *want, char *chosen)
{
    char w[CS_PERF_ARRIVALS_MAX];
    snprintf(w, sizeof w, "%s", want ? want : cs_perf_default_arrivals(t));
    int npat = 0;
    for (size_t i = 0; i < t->n; i++) { /* distinct patterns (a few: quadratic is fine) */
        size_t j = 0;
        while (j < i && strcmp(t->rows[j].arrivals, t->rows[i].arrivals))
            j++;
        npat += j == i && !cs_perf_is_segment(&t->rows[i]);
    }
    size_t m = 0;
    for (size_t i = 0; i < t->n; i++)
        if (cs_perf_is_segment(&t->rows[i]) || !strcmp(t->rows[i].arrivals, w))
            t->rows[m++] = t->rows[i];
    t->n = m;
    if (chosen)
        snprintf(chosen, CS_PERF_ARRIVALS_MAX, "%s", w);
    return npat;
}

/* Check magic and trailer of a collsel-written file; *body_end is set to
 * the start of the trailer line (where row parsing stops). */
static int check_trailer(const char *path, const char *p, size_t n, size_t *body_end,
                         unsigned long *rows, cs_err *e)
{
    unsigned ver = 0;
    if (sscanf(p + strlen(PERF_MAGIC), "%u", &ver) != 1)
        return cs_fail(e, "%s:1: malformed magic line (expected '" PERF_MAGIC "%d')", path,
                       PERF_VERSION);
    if (ver > PERF_VERSION)
        return cs_fail(e, "%s: written by a newer collsel (perf format version %u, this one "
                          "reads up to %d)", path, ver, PERF_VERSION);
    size_t end = n;
    if (end == 0 || p[end - 1] != '\n')
        return cs_fail(e, "%s: truncated (no end trailer line)", path);
    size_t ls = end - 1;
    while (ls > 0 && p[ls - 1] != '\n')
        ls--;
    unsigned long crc;
    if (sscanf(p + ls, "# end rows=%lu crc32=%lx", rows, &crc) != 2)
        return cs_fail(e, "%s: truncated (last line is not the '# end rows=N crc32=X' trailer)",
                       path);
    if ((uint32_t)crc != cs_crc32(0, p, ls))
        return cs_fail(e, "%s: checksum mismatch (file corrupted)", path);
    *body_end = ls;
    return 0;
}

static int parse_text(cs_perf *t, const char *path, char *p, size_t n, cs_err *e)
{
    perf_ctx c = {.path = path};
    if (n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) { /* UTF-8 byte order mark (spreadsheets) */
        p += 3;
        n -= 3;
    }
    size_t body_end = n;
    unsigned long rows_expected = 0;
    int magic = !strncmp(p, PERF_MAGIC, strlen(PERF_MAGIC));
    if (magic && check_trailer(path, p, n, &body_end, &rows_expected, e) < 0)
        return -1;
    p[body_end] = 0;
    int lineno = 0, have_header = 0;
    size_t first_row = t->n;
    for (char *line = p; line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        lineno++;
        char *s = line;
        line = nl ? nl + 1 : NULL;
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (!*s || *s == '#')
            continue;
        if (!have_header) {
            if (parse_header(&c, s, lineno, e) < 0)
                return -1;
            have_header = 1;
            continue;
        }
        cs_perf_row r;
        if (parse_row(&c, s, lineno, &r, e) < 0)
            return -1;
        if (cs_perf_add(t, &r) < 0)
            return cs_fail(e, "%s:%d: out of memory", path, lineno);
    }
    if (!have_header)
        return cs_fail(e, "%s: no header line (expected %s)", path, PERF_HEADER);
    if (magic && t->n - first_row != rows_expected)
        return cs_fail(e, "%s: trailer says %lu rows, file has %zu", path, rows_expected,
                       t->n - first_row);
    return 0;
}

int cs_perf_read(cs_perf *t, const char *path, cs_err *e)
{
    void *data = NULL, *plain = NULL;
    size_t n, pn;
    int rc = -1;
    CS_CHECK(cs_read_file(path, &data, &n, e));
    static const unsigned char zmagic[4] = {0x28, 0xb5, 0x2f, 0xfd};
    if (n >= 4 && !memcmp(data, zmagic, 4)) {
        cs_err ze;
        if (cs_zstd_decompress(data, n, PERF_MAX_BYTES, &plain, &pn, &ze) < 0) {
            cs_fail(e, "%s: %s", path, ze.msg);
            goto out;
        }
        char *q = realloc(plain, pn + 1);
        if (!q) {
            cs_fail(e, "%s: out of memory", path);
            goto out;
        }
        q[pn] = 0;
        plain = q;
    } else {
        plain = data;
        data = NULL;
        pn = n;
    }
    if (memchr(plain, 0, pn)) {
        cs_fail(e, "%s: not a text file (contains NUL bytes)", path);
        goto out;
    }
    size_t n0 = t->n;
    rc = parse_text(t, path, plain, pn, e);
    if (rc < 0)
        t->n = n0;
out:
    free(data);
    free(plain);
    return rc;
}

int cs_perf_write(const cs_perf *t, const char *path, cs_err *e)
{
    cs_buf b = {0};
    void *z = NULL;
    size_t zn;
    int rc = -1;
    int arr = 0; /* the arrivals column and version 2 only when a row has a pattern */
    for (size_t i = 0; i < t->n; i++)
        arr |= t->rows[i].arrivals[0] != 0;
    cs_buf_printf(&b, PERF_MAGIC "%d\n" PERF_HEADER "%s\n", arr ? PERF_VERSION : 1,
                  arr ? ",arrivals" : "");
    for (size_t i = 0; i < t->n; i++) {
        const cs_perf_row *r = &t->rows[i];
        const char *cn = cs_coll_name(r->coll);
        if (!cn) {
            cs_fail(e, "%s: row %zu has invalid collective %d", path, i, r->coll);
            goto out;
        }
        cs_buf_printf(&b, "%s,%u,%llu,%s,%.9g,%.9g,%.9g,%u%s%s\n", cn, r->comm_size,
                      (unsigned long long)r->msg_bytes, r->method, r->median_us, r->min_us,
                      r->max_us, r->reps, arr ? "," : "", arr ? r->arrivals : "");
    }
    uint32_t crc = cs_crc32(0, b.p, b.n);
    cs_buf_printf(&b, "# end rows=%zu crc32=%08x\n", t->n, crc);
    if (b.oom) {
        cs_fail(e, "%s: out of memory", path);
        goto out;
    }
    size_t pl = strlen(path);
    if (pl > 4 && !strcmp(path + pl - 4, ".zst")) {
        cs_err ze;
        if (cs_zstd_compress(b.p, b.n, &z, &zn, &ze) < 0) {
            cs_fail(e, "%s: %s", path, ze.msg);
            goto out;
        }
        CS_CHECK(cs_write_file_atomic(path, z, zn, e));
    } else {
        CS_CHECK(cs_write_file_atomic(path, b.p, b.n, e));
    }
    rc = 0;
out:
    free(z);
    cs_buf_free(&b);
    return rc;
}
