/* collsel common utilities: the one error idiom, checksums, whole-file I/O
 * with atomic replacement, logging.  Pure C11 + POSIX, no MPI.
 *
 * Error idiom (used everywhere): a function that can fail returns int
 * (0 = ok, -1 = failed) and fills a caller-supplied `cs_err *` with one
 * human-readable line that names the thing (file, line, variable).  Inside a
 * function, CS_CHECK(expr) jumps to the single `out:` label when expr < 0,
 * where the clean-up runs (the same label as the algorithms' CS_TRY,
 * coll/coll.h: one cleanup label in the whole project).
 */
#ifndef COLLSEL_UTIL_H
#define COLLSEL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define CS_HIDDEN __attribute__((visibility("hidden")))
#define CS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CS_HIDDEN
#define CS_PRINTF(a, b)
#endif

typedef struct cs_err {
    char msg[512];
} cs_err;

/* Set the error message (printf-style).  Always returns -1 so that
 * `return cs_fail(e, "...")` reads naturally.  e may be NULL. */
int cs_fail(cs_err *e, const char *fmt, ...) CS_PRINTF(2, 3);

#define CS_CHECK(expr)  \
    do {                \
        if ((expr) < 0) \
            goto out;   \
    } while (0)

/* Room for one more element in a growing array: items points to the
 * array's pointer (T **), n elements are used, *cap allocated, each of
 * elem bytes; when full the capacity doubles (first: the first one).
 * Returns 0, or -1 when out of memory (the array is left as it was). */
int cs_grow(void *items, size_t n, size_t *cap, size_t elem, size_t first);

/* CRC-32 (IEEE, reflected, as zlib).  Start with crc = 0. */
uint32_t cs_crc32(uint32_t crc, const void *data, size_t n);

/* Read a whole file into a malloc'd buffer (NUL-terminated for convenience;
 * *n excludes the NUL). */
int cs_read_file(const char *path, void **data, size_t *n, cs_err *e);

/* Async-signal-safe append of s to buf[*at..len) (NUL-terminated; -1 when
 * it does not fit). */
int cs_sig_cat(char *buf, size_t len, size_t *at, const char *s);

/* Files in directories other users can write (/tmp, shared scratch): no
 * name collsel writes is ever opened for writing; data goes to a new
 * temporary file "path.tmp.RANDOM" created exclusively without following
 * links (a link or file planted at any name makes the creation retry
 * under another name, never write through it), and is renamed over path
 * (rename replaces a link at path, not its target).
 *
 * cs_tmp_create: the temporary file's descriptor (its name in tmp), or -1
 * with errno.  cs_write_all: the whole buffer, or -1 with errno.
 * cs_file_replace: write data to path that way (fsync first unless
 * CS_FILE_NOSYNC); 0, or -1 with errno and nothing left behind.  All three
 * are async-signal-safe (no malloc, no stdio). */
#define CS_FILE_NOSYNC 1
int cs_tmp_create(const char *path, char *tmp, size_t len);
int cs_write_all(int fd, const void *data, size_t n);
int cs_file_replace(const char *path, const void *data, size_t n, int flags);
/* cs_file_replace with fsync and an error message. */
int cs_write_file_atomic(const char *path, const void *data, size_t n, cs_err *e);

/* Check that the directory of path exists and is writable (used at init so a
 * bad COLLSEL_RECORD is reported at once, not at the end). */
int cs_check_writable_dir(const char *path, cs_err *e);

/* zstd wrappers: out is malloc'd. */
int cs_zstd_compress(const void *in, size_t n, void **out, size_t *outn, cs_err *e);
int cs_zstd_decompress(const void *in, size_t n, size_t max_out, void **out,
                       size_t *outn, cs_err *e);

/* Monotonic wall clock in seconds. */
double cs_now(void);

/* Growable byte buffer (serialisation). */
typedef struct cs_buf {
    unsigned char *p;
    size_t n, cap;
    int oom; /* set once an allocation failed; later appends are no-ops */
} cs_buf;
void cs_buf_put(cs_buf *b, const void *data, size_t n);
void cs_buf_u8(cs_buf *b, uint8_t v);
void cs_buf_u32(cs_buf *b, uint32_t v);
void cs_buf_u64(cs_buf *b, uint64_t v);
void cs_buf_f64(cs_buf *b, double v);
void cs_buf_str(cs_buf *b, const char *s); /* u32 length + bytes */
void cs_buf_printf(cs_buf *b, const char *fmt, ...) CS_PRINTF(2, 3);
void cs_buf_free(cs_buf *b);

/* Bounds-checked reader over a byte range: every get fails (returns -1 and
 * sets r->bad) instead of reading past the end. */
typedef struct cs_rd {
    const unsigned char *p;
    size_t n, off;
    int bad;
} cs_rd;
int cs_rd_get(cs_rd *r, void *dst, size_t n);
int cs_rd_u8(cs_rd *r, uint8_t *v);
int cs_rd_u32(cs_rd *r, uint32_t *v);
int cs_rd_u64(cs_rd *r, uint64_t *v);
int cs_rd_f64(cs_rd *r, double *v);
int cs_rd_str(cs_rd *r, char **s); /* malloc'd, NUL-terminated, max 1 MiB, no NUL inside */

/* Human-readable sizes: "8 B", "64 KiB", "4 MiB" (buf >= 32 bytes). */
const char *cs_fmt_bytes(char *buf, size_t len, double bytes);

#endif
