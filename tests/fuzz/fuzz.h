/* Shared helpers of the libFuzzer targets (tests/fuzz/fuzz_*.c).
 *
 * Each target feeds one reader of untrusted input with the fuzzer's bytes
 * and checks what must hold of any input: no crash, leak or undefined
 * behaviour (ASan, UBSan, LeakSanitizer), an error is one line, and what a
 * reader accepts survives a write and a read unchanged.  Readers that take
 * a path get the bytes through a file in a scratch directory (tmpfs when
 * there is one), made once per process. */
#ifndef COLLSEL_FUZZ_H
#define COLLSEL_FUZZ_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "common/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

/* A property of the reader failed: report and crash, so that the fuzzer
 * keeps the input. */
#define FUZZ_ASSERT(cond, ...)                                        \
    do {                                                              \
        if (!(cond)) {                                                \
            fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                             \
            fputc('\n', stderr);                                      \
            abort();                                                  \
        }                                                             \
    } while (0)

/* An error message is one non-empty line. */
static inline void fuzz_check_err(const cs_err *e)
{
    FUZZ_ASSERT(e->msg[0] && !strchr(e->msg, '\n'), "error message '%s'", e->msg);
}

static char fuzz_dir_name[256];

/* Remove every file of the scratch directory (and, at exit, itself). */
static inline void fuzz_clean(void)
{
    DIR *d = opendir(fuzz_dir_name);
    struct dirent *de;
    char p[600];
    while (d && (de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", fuzz_dir_name, de->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
}

static inline void fuzz_remove_dir(void)
{
    fuzz_clean();
    rmdir(fuzz_dir_name);
}

/* The scratch directory of this process: "$FUZZ_SCRATCH/collsel-fuzz.XXXXXX"
 * (default /dev/shm, else /tmp), removed at exit. */
static inline const char *fuzz_dir(void)
{
    if (!fuzz_dir_name[0]) {
        const char *base = getenv("FUZZ_SCRATCH");
        if (!base || !*base)
            base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fuzz_dir_name, sizeof fuzz_dir_name, "%.200s/collsel-fuzz.XXXXXX", base);
        if (!mkdtemp(fuzz_dir_name)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fuzz_remove_dir);
    }
    return fuzz_dir_name;
}

/* buf = scratch/name. */
static inline void fuzz_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", fuzz_dir(), name);
}

static inline void fuzz_write(const char *path, const void *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || (n && write(fd, data, n) != (ssize_t)n) || close(fd) != 0) {
        perror(path);
        abort();
    }
}

#endif
